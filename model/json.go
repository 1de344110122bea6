package model

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Names for Kafka's enum codes (kafka-metadata reference §3.5). An unknown
// code prints as UNKNOWN(<code>) so that it is never mistaken for a known
// value; the JSON document keeps the raw code next to every name.

// ACLResourceTypeName names an ACL ResourceType code.
func ACLResourceTypeName(code int8) string {
	return enumName(code, []string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"})
}

// ACLPatternTypeName names a PatternType code.
func ACLPatternTypeName(code int8) string {
	return enumName(code, []string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"})
}

// ACLOperationName names an AclOperation code.
func ACLOperationName(code int8) string {
	return enumName(code, []string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER",
		"DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE",
		"CREATE_TOKENS", "DESCRIBE_TOKENS", "TWO_PHASE_COMMIT"})
}

// ACLPermissionTypeName names an AclPermissionType code.
func ACLPermissionTypeName(code int8) string {
	return enumName(code, []string{"UNKNOWN", "ANY", "DENY", "ALLOW"})
}

// ScramMechanismName names a SCRAM mechanism code as Kafka's config keys
// spell it.
func ScramMechanismName(code int8) string {
	return enumName(code, []string{"UNKNOWN", "SCRAM-SHA-256", "SCRAM-SHA-512"})
}

// SecurityProtocolName names a SecurityProtocol code.
func SecurityProtocolName(code int16) string {
	return enumName(code, []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"})
}

// LeaderRecoveryStateName names a LeaderRecoveryState code.
func LeaderRecoveryStateName(code int8) string {
	return enumName(code, []string{"RECOVERED", "RECOVERING"})
}

func enumName[T int8 | int16](code T, names []string) string {
	if code >= 0 && int(code) < len(names) {
		return names[code]
	}
	return "UNKNOWN(" + strconv.Itoa(int(code)) + ")"
}

// The JSON document of an image. Field order is the struct order below and
// is part of kmeta's interface (documented in the README): change it only
// by adding fields. Every map becomes an array sorted with a full key;
// collections are always arrays, never null, so `jq '.topics[]'` works on an
// empty image. Enums carry both a name and the raw code (`xxxCode`).

type imageJSON struct {
	ClusterID        string             `json:"clusterId"`
	Features         []Feature          `json:"features"`
	Brokers          []brokerJSON       `json:"brokers"`
	Controllers      []controllerJSON   `json:"controllers"`
	Topics           []topicJSON        `json:"topics"`
	Configs          []configsJSON      `json:"configs"`
	ClientQuotas     []clientQuotaJSON  `json:"clientQuotas"`
	ACLs             []aclJSON          `json:"acls"`
	SCRAM            []scramJSON        `json:"scram"`
	DelegationTokens []*DelegationToken `json:"delegationTokens"`
	ProducerIDs      *ProducerIDs       `json:"producerIds"`
	Migration        *migrationJSON     `json:"migration"`
	Quorum           *quorumJSON        `json:"quorum"`
	ZK               *zkJSON            `json:"zk"`
	Provenance       Provenance         `json:"provenance"`
	Warnings         []Finding          `json:"warnings"`
	// NotReported is written only when a source could not report some
	// fields (the kafka:// source), so that other documents are unchanged.
	NotReported []Field `json:"notReported,omitempty"`
	// StaticConfigs (the nodes' server.properties keys a source reported
	// or the operator passed) and UnreportedConfigs (config resources the
	// source could not read) are written only when present.
	StaticConfigs     []staticConfigsJSON  `json:"staticConfigs,omitempty"`
	UnreportedConfigs []configResourceJSON `json:"unreportedConfigs,omitempty"`
}

type staticConfigsJSON struct {
	Node    int32         `json:"node"`
	Configs []ConfigEntry `json:"configs"`
}

type configResourceJSON struct {
	ResourceType     string `json:"resourceType"`
	ResourceTypeCode int8   `json:"resourceTypeCode"`
	ResourceName     string `json:"resourceName"`
}

type endpointJSON struct {
	Name                 string `json:"name"`
	Host                 string `json:"host"`
	Port                 uint16 `json:"port"`
	SecurityProtocol     string `json:"securityProtocol"`
	SecurityProtocolCode int16  `json:"securityProtocolCode"`
}

type brokerJSON struct {
	ID                   int32          `json:"id"`
	Epoch                int64          `json:"epoch"`
	IncarnationID        UUID           `json:"incarnationId"`
	Endpoints            []endpointJSON `json:"endpoints"`
	Features             []FeatureRange `json:"features"`
	Rack                 *string        `json:"rack"`
	Fenced               bool           `json:"fenced"`
	InControlledShutdown bool           `json:"inControlledShutdown"`
	IsMigratingZkBroker  bool           `json:"isMigratingZkBroker"`
	LogDirs              []UUID         `json:"logDirs"`
	CordonedLogDirs      []UUID         `json:"cordonedLogDirs"`
}

type controllerJSON struct {
	ID               int32          `json:"id"`
	IncarnationID    UUID           `json:"incarnationId"`
	ZkMigrationReady bool           `json:"zkMigrationReady"`
	Endpoints        []endpointJSON `json:"endpoints"`
	Features         []FeatureRange `json:"features"`
}

type topicJSON struct {
	Name       string          `json:"name"`
	ID         UUID            `json:"id"`
	Partitions []partitionJSON `json:"partitions"`
}

// partitionJSON keeps nil and empty lists apart (null vs []): an ELR of
// null means "not tracked".
type partitionJSON struct {
	ID                      int32   `json:"partition"`
	Leader                  int32   `json:"leader"`
	LeaderEpoch             int32   `json:"leaderEpoch"`
	PartitionEpoch          int32   `json:"partitionEpoch"`
	Replicas                []int32 `json:"replicas"`
	ISR                     []int32 `json:"isr"`
	ELR                     []int32 `json:"elr"`
	LastKnownELR            []int32 `json:"lastKnownElr"`
	AddingReplicas          []int32 `json:"addingReplicas"`
	RemovingReplicas        []int32 `json:"removingReplicas"`
	LeaderRecoveryState     string  `json:"leaderRecoveryState"`
	LeaderRecoveryStateCode int8    `json:"leaderRecoveryStateCode"`
	Directories             []UUID  `json:"directories"`
	OfflineReplicas         []int32 `json:"offlineReplicas,omitempty"`
}

type configsJSON struct {
	ResourceType     string        `json:"resourceType"`
	ResourceTypeCode int8          `json:"resourceTypeCode"`
	ResourceName     string        `json:"resourceName"`
	Configs          []ConfigEntry `json:"configs"`
}

type quotaEntityJSON struct {
	EntityType string  `json:"entityType"`
	EntityName *string `json:"entityName"` // null: the default entity
}

type quotaValueJSON struct {
	Name  string    `json:"name"`
	Value jsonFloat `json:"value"`
}

type clientQuotaJSON struct {
	// Key is QuotaEntityKey(entity), the canonical sort key.
	Key    string            `json:"key"`
	Entity []quotaEntityJSON `json:"entity"`
	Values []quotaValueJSON  `json:"values"`
}

type aclJSON struct {
	ID                 UUID   `json:"id"`
	ResourceType       string `json:"resourceType"`
	ResourceTypeCode   int8   `json:"resourceTypeCode"`
	ResourceName       string `json:"resourceName"`
	PatternType        string `json:"patternType"`
	PatternTypeCode    int8   `json:"patternTypeCode"`
	Principal          string `json:"principal"`
	Host               string `json:"host"`
	Operation          string `json:"operation"`
	OperationCode      int8   `json:"operationCode"`
	PermissionType     string `json:"permissionType"`
	PermissionTypeCode int8   `json:"permissionTypeCode"`
}

// scramJSON: the secret fields are base64 and present only when the image
// was not redacted; fingerprint only when it was.
type scramJSON struct {
	User          string `json:"user"`
	Mechanism     string `json:"mechanism"`
	MechanismCode int8   `json:"mechanismCode"`
	Iterations    int32  `json:"iterations"`
	Salt          []byte `json:"salt,omitempty"`
	StoredKey     []byte `json:"storedKey,omitempty"`
	ServerKey     []byte `json:"serverKey,omitempty"`
	Fingerprint   string `json:"fingerprint,omitempty"`
}

type migrationJSON struct {
	HasState             bool   `json:"hasState"`
	State                string `json:"state"`
	StateCode            int8   `json:"stateCode"`
	HasZNode             bool   `json:"hasZnode"`
	KRaftControllerID    int32  `json:"kraftControllerId"`
	KRaftControllerEpoch int32  `json:"kraftControllerEpoch"`
	KRaftMetadataOffset  int64  `json:"kraftMetadataOffset"`
	KRaftMetadataEpoch   int32  `json:"kraftMetadataEpoch"`
	ZNodeVersion         int32  `json:"znodeVersion"`
	ZNodeNull            bool   `json:"znodeNull,omitempty"`
}

type voterJSON struct {
	ID          int32          `json:"id"`
	DirectoryID UUID           `json:"directoryId"`
	Endpoints   []endpointJSON `json:"endpoints"`
}

type quorumJSON struct {
	LeaderID     int32       `json:"leaderId"`
	LeaderEpoch  int32       `json:"leaderEpoch"`
	KRaftVersion int16       `json:"kraftVersion"`
	Voters       []voterJSON `json:"voters"`
}

// rawZNodeJSON: data is given as text when it is valid UTF-8 (Kafka's
// znodes are JSON), otherwise as base64 in dataBase64.
type rawZNodeJSON struct {
	Path       string  `json:"path"`
	Data       *string `json:"data,omitempty"`
	DataBase64 []byte  `json:"dataBase64,omitempty"`
}

type reassignmentJSON struct {
	Partition string  `json:"partition"` // "topic-N" as the znode names it
	Replicas  []int32 `json:"replicas"`
}

type notificationJSON struct {
	Kind  string `json:"kind"`
	Count int32  `json:"count"`
}

type zkJSON struct {
	Chroot                    string             `json:"chroot"`
	ControllerID              int32              `json:"controllerId"`
	ControllerEpoch           int32              `json:"controllerEpoch"`
	ControllerEpochZkVersion  int32              `json:"controllerEpochZkVersion"`
	MaxStateControllerEpoch   int32              `json:"maxStateControllerEpoch"`
	KRaftControllerEpoch      int32              `json:"kraftControllerEpoch"`
	BrokerSequenceID          int32              `json:"brokerSequenceId"`
	FeatureStatus             int32              `json:"featureStatus"`
	MaxZxid                   int64              `json:"maxZxid"`
	PendingTopicDeletions     []string           `json:"pendingTopicDeletions"`
	MissingPartitionStates    []string           `json:"missingPartitionStates"`
	LegacyReassignments       []reassignmentJSON `json:"legacyReassignments"`
	PreferredReplicaElections []string           `json:"preferredReplicaElections"`
	Notifications             []notificationJSON `json:"notifications"`
	Warnings                  []string           `json:"warnings"`
	Raw                       []rawZNodeJSON     `json:"raw"`
}

// jsonFloat writes NaN and infinities (which a ZooKeeper quota string can
// hold, as Java parses "NaN" and "Infinity") as strings, since JSON numbers
// cannot express them and encoding/json would fail.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(v)
}

func endpointsJSON(eps []Endpoint) []endpointJSON {
	out := make([]endpointJSON, 0, len(eps))
	for _, e := range eps {
		out = append(out, endpointJSON{Name: e.Name, Host: e.Host, Port: e.Port,
			SecurityProtocol: SecurityProtocolName(e.SecurityProtocol), SecurityProtocolCode: e.SecurityProtocol})
	}
	return out
}

// MarshalJSON writes the image as kmeta's stable JSON document (see
// imageJSON); it is WriteJSON into memory. It does not redact: call
// Redacted first unless secrets are wanted.
//
// Strings are not HTML-escaped ("User:<x>" stays readable); an outer
// encoder that escapes HTML still can.
func (img *Image) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := img.WriteJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// jsonDoc is the document without its topics, which WriteJSON streams.
func (img *Image) jsonDoc() *imageJSON {
	doc := &imageJSON{
		ClusterID:        img.ClusterID,
		Features:         img.SortedFeatures(),
		Brokers:          []brokerJSON{},
		Controllers:      []controllerJSON{},
		Topics:           []topicJSON{},
		Configs:          []configsJSON{},
		ClientQuotas:     []clientQuotaJSON{},
		ACLs:             []aclJSON{},
		SCRAM:            []scramJSON{},
		DelegationTokens: []*DelegationToken{},
		ProducerIDs:      img.ProducerIDs,
		Provenance:       img.Provenance,
		Warnings:         nonNil(img.Warnings),
		NotReported:      img.NotReported,
	}
	for _, b := range img.SortedBrokers() {
		doc.Brokers = append(doc.Brokers, brokerJSON{
			ID: b.ID, Epoch: b.Epoch, IncarnationID: b.IncarnationID, Endpoints: endpointsJSON(b.Endpoints),
			Features: nonNil(b.Features), Rack: b.Rack, Fenced: b.Fenced, InControlledShutdown: b.InControlledShutdown,
			IsMigratingZkBroker: b.IsMigratingZkBroker, LogDirs: nonNil(b.LogDirs), CordonedLogDirs: b.CordonedLogDirs,
		})
	}
	for _, c := range img.SortedControllers() {
		doc.Controllers = append(doc.Controllers, controllerJSON{
			ID: c.ID, IncarnationID: c.IncarnationID, ZkMigrationReady: c.ZkMigrationReady,
			Endpoints: endpointsJSON(c.Endpoints), Features: nonNil(c.Features),
		})
	}
	for _, rc := range img.SortedConfigs() {
		doc.Configs = append(doc.Configs, configsJSON{
			ResourceType: rc.Resource.Type.String(), ResourceTypeCode: int8(rc.Resource.Type),
			ResourceName: rc.Resource.Name, Configs: rc.Entries,
		})
	}
	for _, id := range slices.Sorted(maps.Keys(img.StaticConfigs)) {
		doc.StaticConfigs = append(doc.StaticConfigs, staticConfigsJSON{Node: id, Configs: SortedConfigEntries(img.StaticConfigs[id])})
	}
	for _, rc := range img.UnreportedConfigs {
		doc.UnreportedConfigs = append(doc.UnreportedConfigs, configResourceJSON{
			ResourceType: rc.Type.String(), ResourceTypeCode: int8(rc.Type), ResourceName: rc.Name})
	}
	for _, q := range img.SortedClientQuotas() {
		qj := clientQuotaJSON{Key: QuotaEntityKey(q.Entity), Entity: []quotaEntityJSON{}, Values: []quotaValueJSON{}}
		for _, p := range CanonicalQuotaEntity(q.Entity) {
			qj.Entity = append(qj.Entity, quotaEntityJSON{EntityType: p.Type, EntityName: p.Name})
		}
		for _, v := range SortedQuotaValues(q.Values) {
			qj.Values = append(qj.Values, quotaValueJSON{Name: v.Name, Value: jsonFloat(v.Value)})
		}
		doc.ClientQuotas = append(doc.ClientQuotas, qj)
	}
	for _, a := range img.SortedACLs() {
		doc.ACLs = append(doc.ACLs, aclJSON{
			ID:           a.ID,
			ResourceType: ACLResourceTypeName(a.ResourceType), ResourceTypeCode: a.ResourceType,
			ResourceName: a.ResourceName,
			PatternType:  ACLPatternTypeName(a.PatternType), PatternTypeCode: a.PatternType,
			Principal: a.Principal, Host: a.Host,
			Operation: ACLOperationName(a.Operation), OperationCode: a.Operation,
			PermissionType: ACLPermissionTypeName(a.PermissionType), PermissionTypeCode: a.PermissionType,
		})
	}
	for _, s := range img.SortedSCRAM() {
		doc.SCRAM = append(doc.SCRAM, scramJSON{
			User: s.User, Mechanism: ScramMechanismName(s.Mechanism), MechanismCode: s.Mechanism,
			Iterations: s.Iterations, Salt: s.Salt, StoredKey: s.StoredKey, ServerKey: s.ServerKey,
			Fingerprint: s.Fingerprint,
		})
	}
	if m := img.Migration; m != nil {
		doc.Migration = &migrationJSON{
			HasState: m.HasState, State: m.State.String(), StateCode: int8(m.State),
			HasZNode: m.HasZNode, KRaftControllerID: m.KRaftControllerID, KRaftControllerEpoch: m.KRaftControllerEpoch,
			KRaftMetadataOffset: m.KRaftMetadataOffset, KRaftMetadataEpoch: m.KRaftMetadataEpoch,
			ZNodeVersion: m.ZNodeVersion, ZNodeNull: m.ZNodeNull,
		}
	}
	if q := img.Quorum; q != nil {
		qj := &quorumJSON{LeaderID: q.LeaderID, LeaderEpoch: q.LeaderEpoch, KRaftVersion: q.KRaftVersion, Voters: []voterJSON{}}
		// Voters keep their recorded order: it is the order Kafka wrote.
		for _, v := range q.Voters {
			qj.Voters = append(qj.Voters, voterJSON{ID: v.ID, DirectoryID: v.DirectoryID, Endpoints: endpointsJSON(v.Endpoints)})
		}
		doc.Quorum = qj
	}
	if z := img.ZK; z != nil {
		// Lists are sorted copies: they come from znode children, whose
		// order means nothing. Warnings keep the order they were raised in.
		zj := &zkJSON{
			Chroot: z.Chroot, ControllerID: z.ControllerID, ControllerEpoch: z.ControllerEpoch,
			ControllerEpochZkVersion: z.ControllerEpochZkVersion, MaxStateControllerEpoch: z.MaxStateControllerEpoch,
			KRaftControllerEpoch: z.KRaftControllerEpoch,
			BrokerSequenceID:     z.BrokerSequenceID, FeatureStatus: z.FeatureStatus, MaxZxid: z.MaxZxid,
			PendingTopicDeletions:     sortedCopy(z.PendingTopicDeletions),
			MissingPartitionStates:    sortedCopy(z.MissingPartitionStates),
			LegacyReassignments:       []reassignmentJSON{},
			PreferredReplicaElections: sortedCopy(z.PreferredReplicaElections),
			Notifications:             []notificationJSON{},
			Warnings:                  nonNil(z.Warnings),
			Raw:                       []rawZNodeJSON{},
		}
		for _, k := range slices.Sorted(maps.Keys(z.LegacyReassignments)) {
			zj.LegacyReassignments = append(zj.LegacyReassignments, reassignmentJSON{Partition: k, Replicas: nonNil(z.LegacyReassignments[k])})
		}
		for _, k := range slices.Sorted(maps.Keys(z.Notifications)) {
			zj.Notifications = append(zj.Notifications, notificationJSON{Kind: k, Count: z.Notifications[k]})
		}
		for _, path := range slices.Sorted(maps.Keys(z.Raw)) {
			data := z.Raw[path]
			r := rawZNodeJSON{Path: path}
			if utf8.Valid(data) {
				s := string(data)
				r.Data = &s
			} else {
				r.DataBase64 = data
			}
			zj.Raw = append(zj.Raw, r)
		}
		doc.ZK = zj
	}
	for _, t := range img.SortedDelegationTokens() {
		tc := *t
		tc.Renewers = nonNil(t.Renewers)
		doc.DelegationTokens = append(doc.DelegationTokens, &tc)
	}
	return doc
}

// nonNil turns a nil slice into an empty one, for lists where Kafka makes
// no nil/empty distinction and jq users want an array.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
