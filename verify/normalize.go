package verify

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// secret is a value compared exactly when both sides hold it and by its
// fingerprint when one side was redacted; findings print only FP.
type secret struct {
	Raw string // "" when the side held only the fingerprint
	FP  string
	// Unreported: the side's source does not report the value
	// (model.NotReported, a live cluster's DescribeConfigs): only the
	// key's presence is compared.
	Unreported bool
}

func equalSecret(a, b secret) bool {
	if a.Unreported || b.Unreported {
		return true
	}
	if a.Raw != "" && b.Raw != "" {
		return a.Raw == b.Raw
	}
	return a.FP == b.FP
}

// configValue is one config value; non-sensitive values are their own
// fingerprint. Sensitive is the printers' rule for the resource's type, so
// a finding never shows what an image printer would hide.
func configValue(rt model.ConfigResourceType, key, v string) secret {
	if !model.SensitiveConfig(rt, key) {
		return secret{Raw: v, FP: v}
	}
	if v == model.NotReported {
		return secret{FP: v, Unreported: true}
	}
	// A redacted dump holds the fingerprint instead of the secret.
	if model.IsRedacted(v) {
		return secret{FP: v}
	}
	return secret{Raw: v, FP: model.RedactedValue(v)}
}

type clusterN struct {
	ID string
}

// topicN: the partition count is not a field, the partitions class
// shows each partition that is on one side only.
type topicN struct {
	ID string
}

type partitionN struct {
	Replicas         []int32
	AddingReplicas   []int32
	RemovingReplicas []int32
	Directories      []string // only between two KRaft views
}

type runtimeN struct {
	Leader              int32
	ISR                 []int32
	ELR                 []int32 // nil when not compared
	LastKnownELR        []int32
	LeaderEpoch         int32
	PartitionEpoch      int32
	LeaderRecoveryState int8
}

type scramN struct {
	Iterations int32
	Credential secret // salt, stored key and server key
	// NotExported: the side holds the credential without its salt, keys
	// and iterations (a dump written without --show-secrets); only its
	// presence is compared.
	NotExported bool
	// Unreported: the side's source reports the mechanism and iterations
	// only (a live cluster's DescribeUserScramCredentials): user,
	// mechanism and iterations are compared.
	Unreported bool
}

// onlyPresence blanks the SCRAM credentials one side did not export on
// both sides, so that only their presence is compared, and the secrets of
// those one side did not report, so that their iterations are.
func onlyPresence(l, r map[string]scramN) {
	for k, a := range l {
		b, ok := r[k]
		switch {
		case !ok:
		case a.NotExported || b.NotExported:
			l[k], r[k] = scramN{NotExported: true}, scramN{NotExported: true}
		case a.Unreported || b.Unreported:
			l[k], r[k] = scramN{Iterations: a.Iterations}, scramN{Iterations: b.Iterations}
		}
	}
}

type tokenN struct {
	Owner               string
	Requester           string
	Renewers            []string
	IssueTimestamp      int64
	MaxTimestamp        int64
	ExpirationTimestamp int64
}

// voterN is a quorum voter as compared: what the side reports of it.
type voterN struct {
	DirectoryID string
	Endpoints   string
}

type brokerN struct {
	Rack      string
	Endpoints []string
	// Same-world only: these differ by design between the worlds.
	Epoch                int64
	IncarnationID        string
	Fenced               bool
	InControlledShutdown bool
	IsMigratingZkBroker  bool
	LogDirs              []string
	Features             []string
}

// view is one side, normalized: per class, entity → comparable value.
type view struct {
	cluster  map[string]clusterN
	topics   map[string]topicN
	configs  map[string]map[string]secret
	quotas   map[string]map[string]float64
	acls     map[string]bool
	scram    map[string]scramN
	tokens   map[string]tokenN
	brokers  map[string]brokerN
	features map[string]map[string]int16

	// encrypted: the ZooKeeper password configs held encrypted with
	// password.encoder.secret, by entity and key, and how they were
	// compared (the encrypted-password rule).
	encrypted map[string]map[string]encryptedPassword
	// zkOnly is the state only ZooKeeper holds, by entity and field
	// (pending deletions, missing partition states, legacy
	// reassignments), and zkRaw the /consumers znodes: set for a
	// ZooKeeper view compared with another one.
	zkOnly map[string]map[string]string
	zkRaw  map[string]string
	// brokerIsMigrating: KRaft brokers that are migrating ZK brokers.
	brokerMigrating map[string]bool
	// partialEndpoints: this side names, per broker, only the address it
	// was asked through (model.FieldBrokerEndpoints not reported).
	partialEndpoints bool
	// voters are the quorum's voters (nil when the side has none to
	// compare): "voter N" → directory id and endpoints, each "" when the
	// side does not report it.
	voters map[string]voterN
	// notes say what this side could not be compared on.
	notes []string
}

// encryptedPassword is one encrypted password config: decrypted with the
// secret given, or not (err says why, when a secret was given).
type encryptedPassword struct {
	decrypted bool
	err       error
}

// Entity names. They are the keys findings carry, so they are stable.
func topicEntity(name string) string { return "topic " + name }
func partitionEntity(topic string, p int32) string {
	return "partition " + topic + "-" + strconv.Itoa(int(p))
}
func brokerEntity(id int32) string { return "broker " + strconv.Itoa(int(id)) }

func configEntity(r model.ConfigResource) string {
	name := r.Name
	if name == "" {
		name = "<default>"
	}
	return "config " + r.Type.String() + " " + name
}

func aclEntity(a *model.ACL) string {
	return fmt.Sprintf("acl %s:%s:%s %s@%s %s %s", model.ACLResourceTypeName(a.ResourceType),
		model.ACLPatternTypeName(a.PatternType), a.ResourceName, a.Principal, a.Host,
		model.ACLOperationName(a.Operation), model.ACLPermissionTypeName(a.PermissionType))
}

func scramEntity(user string, mech int8) string {
	return "scram " + user + " " + model.ScramMechanismName(mech)
}

// addressString is an endpoint without its listener name.
func addressString(e model.Endpoint) string {
	return fmt.Sprintf("%s:%d(%s)", e.Host, e.Port, model.SecurityProtocolName(e.SecurityProtocol))
}

func endpointString(e model.Endpoint) string {
	return fmt.Sprintf("%s://%s:%d(%s)", e.Name, e.Host, e.Port, model.SecurityProtocolName(e.SecurityProtocol))
}

func uuids(us []model.UUID) []string {
	if us == nil {
		return nil
	}
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.String()
	}
	return out
}

// orEmpty makes nil and empty lists equal: both mean "none" for replica
// lists.
func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// normalize builds the comparable view of img. cross says the two sides
// are different worlds, which drops what differs by design; skipTopics are
// left out (pending deletions); encoderSecret, when given, decrypts the
// ZooKeeper side's encrypted password configs.
func normalize(img *model.Image, world model.World, cross bool, m mask, skipTopics map[string]bool, encoderSecret string) *view {
	v := &view{
		cluster: map[string]clusterN{}, topics: map[string]topicN{}, configs: map[string]map[string]secret{}, quotas: map[string]map[string]float64{},
		acls: map[string]bool{}, scram: map[string]scramN{}, tokens: map[string]tokenN{}, brokers: map[string]brokerN{},
		features: map[string]map[string]int16{}, encrypted: map[string]map[string]encryptedPassword{},
		brokerMigrating: map[string]bool{},
	}
	if world == model.WorldZooKeeper && !cross {
		v.zkOnly, v.zkRaw = zooKeeperOnly(img)
	}
	v.partialEndpoints = !img.Reports(model.FieldBrokerEndpoints)
	if q := img.Quorum; q != nil && len(q.Voters) > 0 && img.Reports(model.FieldQuorum) {
		v.voters = map[string]voterN{}
		for _, vt := range q.Voters {
			vn := voterN{}
			if img.Reports(model.FieldQuorumVoterDirectoryIDs) {
				vn.DirectoryID = vt.DirectoryID.String()
			}
			if img.Reports(model.FieldQuorumVoterEndpoints) {
				var eps []string
				for _, e := range vt.Endpoints {
					eps = append(eps, endpointString(e))
				}
				slices.Sort(eps)
				vn.Endpoints = strings.Join(eps, " ")
			}
			v.voters["voter "+strconv.Itoa(int(vt.ID))] = vn
		}
	}
	undecrypted, unreported := 0, 0
	v.cluster["cluster"] = clusterN{ID: img.ClusterID}
	for name, t := range img.Topics {
		if m.topics {
			break
		}
		if skipTopics[name] {
			continue
		}
		v.topics[topicEntity(name)] = topicN{ID: t.ID.String()}
	}
	for r, kv := range img.Configs {
		if r.Type == model.ConfigTopic && skipTopics[r.Name] {
			continue
		}
		if len(kv) == 0 {
			continue // Kafka keeps no empty config entity
		}
		if r.Type == model.ConfigTopic && m.topicConfigs || r.Type == model.ConfigBroker && m.brokerConfigs {
			continue // a section a side does not report
		}
		e := configEntity(r)
		src := kv
		kv := make(map[string]secret, len(src))
		for k, val := range src {
			// Kafka's migration decrypts exactly these (and copies any
			// other value as it is).
			if cross && world == model.WorldZooKeeper && model.IsPasswordConfig(k) && model.IsEncryptedPassword(val) {
				var ep encryptedPassword
				if encoderSecret == "" {
					undecrypted++
				} else if plain, err := model.DecryptPassword(encoderSecret, val); err != nil {
					ep.err = err
				} else {
					val, ep.decrypted = plain, true
				}
				if v.encrypted[e] == nil {
					v.encrypted[e] = map[string]encryptedPassword{}
				}
				v.encrypted[e][k] = ep
			}
			cv := configValue(r.Type, k, val)
			if cv.Unreported {
				unreported++
			}
			kv[k] = cv
		}
		v.configs[e] = kv
	}
	if unreported > 0 {
		v.notes = append(v.notes, "sensitive config values a side does not report (a live cluster's DescribeConfigs answers null for them); their keys are compared")
	}
	if undecrypted > 0 {
		v.notes = append(v.notes, fmt.Sprintf("the plaintext of %d encrypted password config(s) in ZooKeeper (pass --password-encoder-secret to compare them)", undecrypted))
	}
	for _, q := range img.ClientQuotas {
		if m.quotas {
			break
		}
		if len(q.Values) == 0 {
			continue
		}
		v.quotas["quota "+model.QuotaEntityKey(q.Entity)] = q.Values
	}
	for _, a := range img.ACLs {
		if m.acls {
			break
		}
		v.acls[aclEntity(a)] = true
	}
	for _, c := range img.SCRAM {
		if m.scram {
			break
		}
		n := scramN{Iterations: c.Iterations, Credential: secret{FP: c.Fingerprint}}
		switch {
		case c.Salt != nil || c.StoredKey != nil || c.ServerKey != nil:
			n.Credential.FP = model.ScramFingerprint(c)
			n.Credential.Raw = string(c.Salt) + "\x00" + string(c.StoredKey) + "\x00" + string(c.ServerKey)
		case c.Iterations == 0:
			n.NotExported = true
			v.notes = append(v.notes, "SCRAM salts, keys and iterations of a side that holds only their existence (a dump written without --show-secrets); their presence is compared")
		case c.Fingerprint == "":
			n.Unreported = true
			v.notes = append(v.notes, "SCRAM salts and keys of a side that does not report them (a live cluster's DescribeUserScramCredentials); user, mechanism and iterations are compared")
		}
		v.scram[scramEntity(c.User, c.Mechanism)] = n
	}
	for id, t := range img.DelegationTokens {
		if m.tokens {
			break
		}
		ren := slices.Clone(t.Renewers)
		slices.Sort(ren)
		v.tokens["token "+id] = tokenN{Owner: t.Owner, Requester: t.Requester, Renewers: ren,
			IssueTimestamp: t.IssueTimestamp, MaxTimestamp: t.MaxTimestamp, ExpirationTimestamp: t.ExpirationTimestamp}
	}
	for id, b := range img.Brokers {
		if m.brokers {
			break
		}
		eps := make([]string, 0, len(b.Endpoints))
		for _, e := range b.Endpoints {
			if m.endpoints {
				// A side that names the address it was asked through,
				// not the listener (a live view): host, port and
				// protocol are compared (reconcileEndpoints).
				eps = append(eps, addressString(e))
				continue
			}
			eps = append(eps, endpointString(e))
		}
		slices.Sort(eps)
		bn := brokerN{Endpoints: eps}
		if b.Rack != nil {
			bn.Rack = *b.Rack
		}
		if !m.brokerEpoch {
			bn.Epoch = b.Epoch
		}
		if !m.incarnation {
			bn.IncarnationID = b.IncarnationID.String()
		}
		bn.Fenced = b.Fenced && !m.fenced
		bn.InControlledShutdown = b.InControlledShutdown && !m.shutdown
		bn.IsMigratingZkBroker = b.IsMigratingZkBroker && !m.migrating
		if !m.logDirs {
			bn.LogDirs = uuids(b.LogDirs)
		}
		if !m.brokerFeatures {
			for _, f := range b.Features {
				bn.Features = append(bn.Features, fmt.Sprintf("%s[%d,%d]", f.Name, f.Min, f.Max))
			}
			slices.Sort(bn.Features)
		}
		v.brokers[brokerEntity(id)] = bn
		if world == model.WorldKRaft && b.IsMigratingZkBroker {
			v.brokerMigrating[brokerEntity(id)] = true
		}
	}
	fs := map[string]int16{}
	for name, level := range img.Features {
		if cross && name == "metadata.version" {
			continue // compared against the brokers' IBP instead
		}
		fs[name] = level
	}
	v.features["finalized features"] = fs
	return v
}

// Typed equality of the normalized forms: the fast path of compareClass.
// Each must agree with what go-cmp reports under cmpOpts (nil and empty
// lists are equal, secrets by equalSecret).

func eqComparable[V comparable](a, b V) bool { return a == b }

func eqMap[V any](eq func(a, b V) bool) func(a, b map[string]V) bool {
	return func(a, b map[string]V) bool {
		if len(a) != len(b) {
			return false
		}
		for k, x := range a {
			y, ok := b[k]
			if !ok || !eq(x, y) {
				return false
			}
		}
		return true
	}
}

// Partitions are the bulk of an image (millions), so they are never put
// into entity maps: they are matched topic by topic and partition id, and
// compared on the model directly; only those that differ are normalized
// (partitionOf, runtimeOf) for go-cmp and the findings.

func partitionOf(p *model.Partition, m mask) partitionN {
	pn := partitionN{Replicas: orEmpty(p.Replicas)}
	if !m.reassign {
		pn.AddingReplicas, pn.RemovingReplicas = orEmpty(p.AddingReplicas), orEmpty(p.RemovingReplicas)
	}
	if !m.directories {
		pn.Directories = uuids(p.Directories)
	}
	return pn
}

func runtimeOf(p *model.Partition, m mask) runtimeN {
	rn := runtimeN{Leader: p.Leader, ISR: orEmpty(p.ISR), LeaderEpoch: p.LeaderEpoch}
	if !m.partitionEpoch {
		rn.PartitionEpoch = p.PartitionEpoch
	}
	if !m.recovery {
		rn.LeaderRecoveryState = p.LeaderRecoveryState
	}
	if !m.elr {
		rn.ELR, rn.LastKnownELR = p.ELR, p.LastKnownELR
	}
	return rn
}

// sameAssignment and sameRuntime agree with go-cmp on partitionOf and
// runtimeOf under cmpOpts (nil and empty lists are equal).
func sameAssignment(a, b *model.Partition, m mask) bool {
	return slices.Equal(a.Replicas, b.Replicas) &&
		(m.reassign || slices.Equal(a.AddingReplicas, b.AddingReplicas) && slices.Equal(a.RemovingReplicas, b.RemovingReplicas)) &&
		(m.directories || slices.Equal(a.Directories, b.Directories))
}

func sameRuntime(a, b *model.Partition, m mask) bool {
	return a.Leader == b.Leader && a.LeaderEpoch == b.LeaderEpoch && (m.partitionEpoch || a.PartitionEpoch == b.PartitionEpoch) &&
		(m.recovery || a.LeaderRecoveryState == b.LeaderRecoveryState) && slices.Equal(a.ISR, b.ISR) &&
		(m.elr || slices.Equal(a.ELR, b.ELR) && slices.Equal(a.LastKnownELR, b.LastKnownELR))
}

func (a scramN) equal(b scramN) bool {
	return a.Iterations == b.Iterations && a.NotExported == b.NotExported && equalSecret(a.Credential, b.Credential)
}

func (a tokenN) equal(b tokenN) bool {
	return a.Owner == b.Owner && a.Requester == b.Requester && slices.Equal(a.Renewers, b.Renewers) &&
		a.IssueTimestamp == b.IssueTimestamp && a.MaxTimestamp == b.MaxTimestamp && a.ExpirationTimestamp == b.ExpirationTimestamp
}

func (a brokerN) equal(b brokerN) bool {
	return a.Rack == b.Rack && slices.Equal(a.Endpoints, b.Endpoints) && a.Epoch == b.Epoch && a.IncarnationID == b.IncarnationID &&
		a.Fenced == b.Fenced && a.InControlledShutdown == b.InControlledShutdown && a.IsMigratingZkBroker == b.IsMigratingZkBroker &&
		slices.Equal(a.LogDirs, b.LogDirs) && slices.Equal(a.Features, b.Features)
}

// zooKeeperOnly collects the state only ZooKeeper holds, which Kafka's
// migration does not carry to KRaft and so only a comparison of two
// ZooKeeper views can show: pending deletions and missing partition
// states and legacy reassignments (by entity and field), and the
// /consumers znodes of the old consumer (path → data).
func zooKeeperOnly(img *model.Image) (facts map[string]map[string]string, raw map[string]string) {
	facts, raw = map[string]map[string]string{}, map[string]string{}
	if img.ZK == nil {
		return facts, raw
	}
	set := func(entity, field, value string) {
		if facts[entity] == nil {
			facts[entity] = map[string]string{}
		}
		facts[entity][field] = value
	}
	for _, t := range img.ZK.PendingTopicDeletions {
		set(topicEntity(t), "pendingDeletion", "true")
	}
	// A flag named for the state it marks, as pendingDeletion is: the
	// field present means the state znode is missing, so that a diff
	// saying it is in one view and not the other reads the right way
	// round (a state znode Kafka's controller wrote since is not one
	// that was removed).
	for _, p := range img.ZK.MissingPartitionStates {
		set("partition "+p, "stateZnodeMissing", "true")
	}
	for p, rs := range img.ZK.LegacyReassignments {
		set("partition "+p, "legacyReassignment", render(reflect.ValueOf(rs)))
	}
	for p, data := range img.ZK.Raw {
		if p == "/consumers" || strings.HasPrefix(p, "/consumers/") {
			raw["znode "+p] = string(data)
		}
	}
	return facts, raw
}
