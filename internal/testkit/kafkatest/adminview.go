package kafkatest

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AdminView is what a live cluster reports through the admin API: the
// oracle a replayed metadata image is compared with. Fixtures store it as
// admin.json. Every list is sorted by its full key and maps marshal with
// sorted keys, so equal states give byte-equal JSON.
//
// Conventions: a default client-quota entity has a null name; configs hold
// only dynamic (non-default) values and a sensitive value is null (Kafka
// never returns it); times are Unix milliseconds; the token HMAC is standard
// base64.
type AdminView struct {
	KafkaVersion string  `json:"kafkaVersion"`
	ClusterID    string  `json:"clusterId"`
	Brokers      []int32 `json:"brokers"` // unfenced brokers in the metadata response

	Topics []AdminTopic `json:"topics"`
	// TopicConfigs: topic name → key → value (source DYNAMIC_TOPIC_CONFIG).
	TopicConfigs map[string]map[string]*string `json:"topicConfigs"`
	// BrokerConfigs: broker id → key → value (source DYNAMIC_BROKER_CONFIG).
	BrokerConfigs map[string]map[string]*string `json:"brokerConfigs"`
	// BrokerDefaultConfigs: cluster-wide broker defaults
	// (DYNAMIC_DEFAULT_BROKER_CONFIG, the resource named "").
	BrokerDefaultConfigs map[string]*string `json:"brokerDefaultConfigs"`

	ACLs   []AdminACL   `json:"acls"`
	Quotas []AdminQuota `json:"quotas"`
	// SCRAMUsers is one broker's answer to DescribeUserScramCredentials:
	// that of SCRAMUsersBroker. Brokers can disagree (see
	// SCRAMUsersByBroker), and then this is the answer that holds the most
	// credentials, unless the caller picked another with SelectSCRAMBroker.
	SCRAMUsers []AdminSCRAM `json:"scramUsers"`
	// SCRAMUsersBroker is the broker whose answer SCRAMUsers is.
	SCRAMUsersBroker int32 `json:"scramUsersBroker"`
	// SCRAMUsersByBroker holds every broker's own answer, by broker id.
	// A KRaft broker serves DescribeUserScramCredentials from its
	// metadata image, and Kafka 3.5 to 4.4 can build that image without a
	// credential the log holds when a broker replays many records at once,
	// as after a restart (ScramDelta.apply; see testdata/kraft/README.md).
	SCRAMUsersByBroker map[string][]AdminSCRAM `json:"scramUsersByBroker"`
	DelegationTokens   []AdminToken            `json:"delegationTokens"`
	Features           map[string]int16        `json:"features"` // finalized max level by feature name
	// FeaturesEpoch is the highest FinalizedFeaturesEpoch in the brokers'
	// ApiVersions answers; in KRaft it is the offset of the newest record
	// in that broker's metadata image.
	FeaturesEpoch int64 `json:"featuresEpoch"`
	// FeaturesEpochByBroker is each broker's FinalizedFeaturesEpoch, by
	// broker id: equal values mean the brokers had applied the same log.
	FeaturesEpochByBroker map[string]int64 `json:"featuresEpochByBroker"`
}

// AdminTopic is one topic from a Metadata response.
type AdminTopic struct {
	Name       string           `json:"name"`
	ID         string           `json:"id"` // Kafka's base64url Uuid form
	Internal   bool             `json:"internal"`
	Partitions []AdminPartition `json:"partitions"`
}

// AdminPartition is one partition from a Metadata response.
type AdminPartition struct {
	Partition       int32   `json:"partition"`
	Leader          int32   `json:"leader"`
	LeaderEpoch     int32   `json:"leaderEpoch"`
	Replicas        []int32 `json:"replicas"`
	ISR             []int32 `json:"isr"`
	OfflineReplicas []int32 `json:"offlineReplicas"`
}

// AdminACL is one ACL binding. Enum fields use Kafka's upper-case names
// (TOPIC, LITERAL, READ, ALLOW).
type AdminACL struct {
	ResourceType string `json:"resourceType"`
	ResourceName string `json:"resourceName"`
	PatternType  string `json:"patternType"`
	Principal    string `json:"principal"`
	Host         string `json:"host"`
	Operation    string `json:"operation"`
	Permission   string `json:"permission"`
}

// AdminQuota is one client-quota entity and its values.
type AdminQuota struct {
	Entity []AdminQuotaEntity `json:"entity"` // sorted by type
	Values map[string]float64 `json:"values"`
}

// AdminQuotaEntity is one component of a quota entity; Name nil = default.
type AdminQuotaEntity struct {
	Type string  `json:"type"` // "user", "client-id" or "ip"
	Name *string `json:"name"`
}

// AdminSCRAM is one user's SCRAM credentials (salts and keys are not
// returned by the admin API).
type AdminSCRAM struct {
	User        string           `json:"user"`
	Credentials []AdminSCRAMCred `json:"credentials"`
}

// AdminSCRAMCred is one mechanism of a SCRAM user.
type AdminSCRAMCred struct {
	Mechanism  string `json:"mechanism"` // SCRAM-SHA-256 or SCRAM-SHA-512
	Iterations int32  `json:"iterations"`
}

// AdminToken is one delegation token.
type AdminToken struct {
	TokenID         string   `json:"tokenId"`
	Owner           string   `json:"owner"`     // "User:name"
	Requester       string   `json:"requester"` // "User:name"
	Renewers        []string `json:"renewers"`
	IssueTimestamp  int64    `json:"issueTimestamp"`
	ExpiryTimestamp int64    `json:"expiryTimestamp"`
	MaxTimestamp    int64    `json:"maxTimestamp"`
	HMAC            string   `json:"hmac"`
}

// CaptureAdminView asks the cluster behind cl for everything AdminView
// holds. Delegation tokens are only visible over an authenticated SASL
// connection; on a PLAINTEXT client the list is empty.
func CaptureAdminView(ctx context.Context, cl *kgo.Client, kafkaVersion string) (*AdminView, error) {
	adm := kadm.NewClient(cl)
	v := &AdminView{KafkaVersion: kafkaVersion,
		TopicConfigs: map[string]map[string]*string{}, BrokerConfigs: map[string]map[string]*string{},
		BrokerDefaultConfigs: map[string]*string{}, Features: map[string]int16{},
		SCRAMUsersByBroker: map[string][]AdminSCRAM{}, FeaturesEpochByBroker: map[string]int64{}}

	md, err := adm.Metadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	v.ClusterID = md.Cluster
	for _, b := range md.Brokers {
		v.Brokers = append(v.Brokers, b.NodeID)
	}
	slices.Sort(v.Brokers)
	var names []string
	for _, td := range md.Topics.Sorted() {
		if td.Err != nil {
			return nil, fmt.Errorf("metadata for topic %s: %w", td.Topic, td.Err)
		}
		at := AdminTopic{Name: td.Topic, ID: uuidString(td.ID), Internal: td.IsInternal}
		for _, p := range td.Partitions.Sorted() {
			at.Partitions = append(at.Partitions, AdminPartition{Partition: p.Partition, Leader: p.Leader,
				LeaderEpoch: p.LeaderEpoch, Replicas: nonNil(p.Replicas), ISR: nonNil(p.ISR),
				OfflineReplicas: nonNil(p.OfflineReplicas)})
		}
		v.Topics = append(v.Topics, at)
		names = append(names, td.Topic)
	}

	if len(names) > 0 {
		rcs, err := adm.DescribeTopicConfigs(ctx, names...)
		if err != nil {
			return nil, fmt.Errorf("describe topic configs: %w", err)
		}
		for _, rc := range rcs {
			if rc.Err != nil {
				return nil, fmt.Errorf("describe configs of topic %s: %w", rc.Name, rc.Err)
			}
			if m := dynamicConfigs(rc, kmsg.ConfigSourceDynamicTopicConfig); len(m) > 0 {
				v.TopicConfigs[rc.Name] = m
			}
		}
	}
	for _, b := range v.Brokers {
		rcs, err := adm.DescribeBrokerConfigs(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("describe configs of broker %d: %w", b, err)
		}
		for _, rc := range rcs {
			if rc.Err != nil {
				return nil, fmt.Errorf("describe configs of broker %d: %w", b, rc.Err)
			}
			if m := dynamicConfigs(rc, kmsg.ConfigSourceDynamicBrokerConfig); len(m) > 0 {
				v.BrokerConfigs[strconv.Itoa(int(b))] = m
			}
		}
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx) // no ids: the cluster default resource
	if err != nil {
		return nil, fmt.Errorf("describe default broker configs: %w", err)
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			return nil, fmt.Errorf("describe default broker configs: %w", rc.Err)
		}
		v.BrokerDefaultConfigs = dynamicConfigs(rc, kmsg.ConfigSourceDynamicDefaultBrokerConfig)
	}

	if v.ACLs, err = describeAllACLs(ctx, cl); err != nil {
		return nil, err
	}

	qs, err := adm.DescribeClientQuotas(ctx, false, nil)
	if err != nil {
		return nil, fmt.Errorf("describe client quotas: %w", err)
	}
	for _, q := range qs {
		aq := AdminQuota{Values: map[string]float64{}}
		for _, e := range q.Entity {
			aq.Entity = append(aq.Entity, AdminQuotaEntity{Type: e.Type, Name: e.Name})
		}
		sort.Slice(aq.Entity, func(i, j int) bool { return aq.Entity[i].Type < aq.Entity[j].Type })
		for _, val := range q.Values {
			aq.Values[val.Key] = val.Value
		}
		v.Quotas = append(v.Quotas, aq)
	}
	sort.Slice(v.Quotas, func(i, j int) bool { return quotaKey(v.Quotas[i]) < quotaKey(v.Quotas[j]) })

	if err := scramUsersByBroker(ctx, cl, v); err != nil {
		return nil, err
	}

	tokens, err := adm.DescribeDelegationTokens(ctx)
	if err != nil && !strings.Contains(err.Error(), "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED") {
		return nil, fmt.Errorf("describe delegation tokens: %w", err)
	}
	for _, tk := range tokens {
		at := AdminToken{TokenID: tk.TokenID, Owner: principal(tk.Owner), Requester: principal(tk.TokenRequesterPrincipal),
			Renewers: []string{}, IssueTimestamp: tk.IssueTimestamp.UnixMilli(), ExpiryTimestamp: tk.ExpiryTimestamp.UnixMilli(),
			MaxTimestamp: tk.MaxTimestamp.UnixMilli(), HMAC: base64.StdEncoding.EncodeToString(tk.HMAC)}
		for _, r := range tk.Renewers {
			at.Renewers = append(at.Renewers, principal(r))
		}
		sort.Strings(at.Renewers)
		v.DelegationTokens = append(v.DelegationTokens, at)
	}
	sort.Slice(v.DelegationTokens, func(i, j int) bool { return v.DelegationTokens[i].TokenID < v.DelegationTokens[j].TokenID })

	if err := finalizedFeatures(ctx, adm, v); err != nil {
		return nil, err
	}
	return v, nil
}

func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

func uuidString(id kadm.TopicID) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

func principal(p kadm.Principal) string {
	if p.Type == "" {
		return "User:" + p.Name
	}
	return p.Type + ":" + p.Name
}

func dynamicConfigs(rc kadm.ResourceConfig, source kmsg.ConfigSource) map[string]*string {
	m := map[string]*string{}
	for _, c := range rc.Configs {
		if c.Source == source {
			m[c.Key] = c.Value
		}
	}
	return m
}

// SortLists puts ACLs and quotas in the order CaptureAdminView uses, so a
// view built another way (from a replayed image) compares equal.
func (v *AdminView) SortLists() {
	sort.Slice(v.ACLs, func(i, j int) bool { return aclKey(v.ACLs[i]) < aclKey(v.ACLs[j]) })
	sort.Slice(v.Quotas, func(i, j int) bool { return quotaKey(v.Quotas[i]) < quotaKey(v.Quotas[j]) })
}

func quotaKey(q AdminQuota) string {
	var b strings.Builder
	for _, e := range q.Entity {
		b.WriteString(e.Type)
		if e.Name == nil {
			b.WriteString("\x00<default>")
		} else {
			b.WriteString("\x00=" + *e.Name)
		}
		b.WriteString("\x01")
	}
	return b.String()
}

func describeAllACLs(ctx context.Context, cl *kgo.Client) ([]AdminACL, error) {
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType = kmsg.ACLResourceTypeAny
	req.ResourcePatternType = kmsg.ACLResourcePatternTypeAny
	req.Operation = kmsg.ACLOperationAny
	req.PermissionType = kmsg.ACLPermissionTypeAny
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("describe ACLs: %w", err)
	}
	if resp.ErrorCode != 0 {
		msg := ""
		if resp.ErrorMessage != nil {
			msg = *resp.ErrorMessage
		}
		return nil, fmt.Errorf("describe ACLs: error code %d %s", resp.ErrorCode, msg)
	}
	acls := []AdminACL{}
	for _, r := range resp.Resources {
		for _, a := range r.ACLs {
			acls = append(acls, AdminACL{ResourceType: r.ResourceType.String(), ResourceName: r.ResourceName,
				PatternType: r.ResourcePatternType.String(), Principal: a.Principal, Host: a.Host,
				Operation: a.Operation.String(), Permission: a.PermissionType.String()})
		}
	}
	sort.Slice(acls, func(i, j int) bool { return aclKey(acls[i]) < aclKey(acls[j]) })
	return acls, nil
}

func aclKey(a AdminACL) string {
	return strings.Join([]string{a.ResourceType, a.ResourceName, a.PatternType, a.Principal, a.Host, a.Operation, a.Permission}, "\x00")
}

// finalizedFeatures reads finalized features from every broker's ApiVersions
// and keeps the answer with the newest epoch (brokers learn of an update
// asynchronously).
func finalizedFeatures(ctx context.Context, adm *kadm.Client, v *AdminView) error {
	vs, err := adm.ApiVersions(ctx)
	if err != nil {
		return fmt.Errorf("api versions: %w", err)
	}
	v.FeaturesEpoch = -1
	for _, bv := range vs.Sorted() {
		if bv.Err != nil {
			return fmt.Errorf("api versions of broker %d: %w", bv.NodeID, bv.Err)
		}
		raw := bv.Raw()
		v.FeaturesEpochByBroker[strconv.Itoa(int(bv.NodeID))] = raw.FinalizedFeaturesEpoch
		if raw.FinalizedFeaturesEpoch <= v.FeaturesEpoch {
			continue
		}
		v.FeaturesEpoch = raw.FinalizedFeaturesEpoch
		v.Features = map[string]int16{}
		for _, f := range raw.FinalizedFeatures {
			v.Features[f.Name] = f.MaxVersionLevel
		}
	}
	return nil
}

// scramUsersByBroker sends DescribeUserScramCredentials (all users) to each
// broker in v.Brokers itself, records every answer and picks SCRAMUsers:
// the answer with the most credentials, the lowest broker id on a tie. The
// known way for brokers to disagree is a broker image that lacks a
// credential (see SCRAMUsersByBroker), never one with an extra credential.
func scramUsersByBroker(ctx context.Context, cl *kgo.Client, v *AdminView) error {
	best := -1
	for _, id := range v.Brokers {
		users, err := describeSCRAMOn(ctx, cl, id)
		if err != nil {
			return err
		}
		v.SCRAMUsersByBroker[strconv.Itoa(int(id))] = users
		if n := scramCredCount(users); n > best {
			best, v.SCRAMUsers, v.SCRAMUsersBroker = n, users, id
		}
	}
	return nil
}

func scramCredCount(users []AdminSCRAM) int {
	n := 0
	for _, u := range users {
		n += len(u.Credentials)
	}
	return n
}

// describeSCRAMOn asks broker id for every user's SCRAM credentials.
func describeSCRAMOn(ctx context.Context, cl *kgo.Client, id int32) ([]AdminSCRAM, error) {
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest() // nil Users: all users
	resp, err := req.RequestWith(ctx, cl.Broker(int(id)))
	if err != nil {
		return nil, fmt.Errorf("describe SCRAM users on broker %d: %w", id, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("describe SCRAM users on broker %d: %w", id, err)
	}
	users := []AdminSCRAM{}
	for _, r := range resp.Results {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return nil, fmt.Errorf("describe SCRAM user %s on broker %d: %w", r.User, id, err)
		}
		as := AdminSCRAM{User: r.User, Credentials: []AdminSCRAMCred{}}
		for _, ci := range r.CredentialInfos {
			as.Credentials = append(as.Credentials, AdminSCRAMCred{Mechanism: kadm.ScramMechanism(ci.Mechanism).String(), Iterations: ci.Iterations})
		}
		sort.Slice(as.Credentials, func(i, j int) bool { return as.Credentials[i].Mechanism < as.Credentials[j].Mechanism })
		users = append(users, as)
	}
	sort.Slice(users, func(i, j int) bool { return users[i].User < users[j].User })
	return users, nil
}

// SelectSCRAMBroker makes SCRAMUsers the answer of the lowest broker id for
// which agree returns true, e.g. the broker that agrees with the
// controller's log. It reports whether one did; if none did, v is unchanged.
func (v *AdminView) SelectSCRAMBroker(agree func(users []AdminSCRAM) bool) bool {
	ids := make([]int, 0, len(v.SCRAMUsersByBroker))
	for k := range v.SCRAMUsersByBroker {
		id, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if users := v.SCRAMUsersByBroker[strconv.Itoa(id)]; agree(users) {
			v.SCRAMUsers, v.SCRAMUsersBroker = users, int32(id)
			return true
		}
	}
	return false
}
