package model

import (
	"fmt"
	"time"
)

// Image is one view of a cluster's metadata: what KRaft replay or a ZooKeeper
// read produced. Zero values mean "absent"; constructors should use NewImage
// so the maps exist.
type Image struct {
	ClusterID string `json:"clusterId"`
	// Features holds finalized feature levels by name, metadata.version
	// included. kraft.version is never a FeatureLevelRecord; when it is known
	// from control records it is recorded in Quorum.KRaftVersion.
	Features map[string]int16 `json:"features"`

	Brokers     map[int32]*Broker     `json:"brokers"`
	Controllers map[int32]*Controller `json:"controllers"`

	// Topics by name. A topic read from a ZooKeeper older than 2.8 may have a
	// zero ID; that is visible, not papered over.
	Topics map[string]*Topic `json:"topics"`

	Configs map[ConfigResource]map[string]string `json:"-"`
	// StaticConfigs are the nodes' static configs by node id: the keys
	// their server.properties set, as DescribeConfigs reports them
	// (STATIC_BROKER_CONFIG) or as the operator passed the file (--config
	// ID=FILE). No metadata record holds them: a node not in the map has
	// static configs the view does not know, which ConfigResolver says
	// rather than take for none. nil for a source that holds none.
	StaticConfigs map[int32]map[string]string `json:"-"`
	// UnreportedConfigs are config resources the source could not read
	// (a stopped broker does not answer DescribeConfigs for its own
	// configs): their absence from Configs is not "none set". Sorted.
	UnreportedConfigs []ConfigResource              `json:"-"`
	ClientQuotas      map[string]*ClientQuota       `json:"-"` // keyed by QuotaEntity.Key()
	ACLs              map[UUID]*ACL                 `json:"-"`
	SCRAM             map[ScramKey]*ScramCredential `json:"-"`
	DelegationTokens  map[string]*DelegationToken   `json:"-"`

	// ProducerIDs is the next producer id block start; nil when never
	// allocated.
	ProducerIDs *ProducerIDs `json:"producerIds,omitempty"`

	Migration *Migration `json:"migration,omitempty"`
	Quorum    *Quorum    `json:"quorum,omitempty"`
	ZK        *ZKState   `json:"zk,omitempty"`

	Provenance Provenance `json:"provenance"`

	// Warnings say what the image rests on (see the Warn* codes): a
	// damaged batch where replay stopped, skipped records, a lenient
	// decode, a tree that changed while it was read. Readers add them in
	// the order they were met; IsPartial tells consumers whether the view
	// may lack content its source held.
	Warnings []Finding `json:"-"`

	// NotReported lists the fields the source cannot report (a live
	// cluster's admin API has no partition epochs, for one): their zero
	// values in this image are not values. Sorted; nil for a source that
	// reports everything the model holds.
	NotReported []Field `json:"notReported,omitempty"`
}

// NewImage returns an empty image with every map allocated.
func NewImage() *Image {
	return &Image{
		Features:         map[string]int16{},
		Brokers:          map[int32]*Broker{},
		Controllers:      map[int32]*Controller{},
		Topics:           map[string]*Topic{},
		Configs:          map[ConfigResource]map[string]string{},
		ClientQuotas:     map[string]*ClientQuota{},
		ACLs:             map[UUID]*ACL{},
		SCRAM:            map[ScramKey]*ScramCredential{},
		DelegationTokens: map[string]*DelegationToken{},
	}
}

// MetadataVersion returns the finalized metadata.version level, or 0.
func (img *Image) MetadataVersion() int16 { return img.Features["metadata.version"] }

// ControllersMetadataVersionMax is the lowest of the registered
// controllers' highest supported metadata.version, which tells the oldest
// controller's release; false when none is registered or one registered
// no range.
func (img *Image) ControllersMetadataVersionMax() (int16, bool) {
	lowest := int16(-1)
	for _, ctl := range img.Controllers {
		mv := int16(-1)
		for _, f := range ctl.Features {
			if f.Name == "metadata.version" {
				mv = f.Max
			}
		}
		if mv < 0 {
			return -1, false
		}
		if lowest < 0 || mv < lowest {
			lowest = mv
		}
	}
	return lowest, lowest >= 0
}

// Endpoint is a listener a broker or controller advertises.
type Endpoint struct {
	Name             string `json:"name"`
	Host             string `json:"host"`
	Port             uint16 `json:"port"`
	SecurityProtocol int16  `json:"securityProtocol"`
}

// FeatureRange is a supported feature range a node registers with.
type FeatureRange struct {
	Name string `json:"name"`
	Min  int16  `json:"minSupportedVersion"`
	Max  int16  `json:"maxSupportedVersion"`
}

// Broker is a registered broker. On the ZooKeeper side Epoch is the czxid of
// its /brokers/ids znode, as Kafka's controller uses it.
type Broker struct {
	ID                   int32          `json:"id"`
	Epoch                int64          `json:"epoch"`
	IncarnationID        UUID           `json:"incarnationId"`
	Endpoints            []Endpoint     `json:"endpoints"`
	Features             []FeatureRange `json:"features"`
	Rack                 *string        `json:"rack"`
	Fenced               bool           `json:"fenced"`
	InControlledShutdown bool           `json:"inControlledShutdown"`
	IsMigratingZkBroker  bool           `json:"isMigratingZkBroker"`
	LogDirs              []UUID         `json:"logDirs"`
	// CordonedLogDirs (4.3-IV0+) are directories that take no new replicas;
	// nil until the broker reports them.
	CordonedLogDirs []UUID `json:"cordonedLogDirs,omitempty"`
}

// Controller is a registered KRaft controller (MV >= 3.7-IV0).
type Controller struct {
	ID               int32          `json:"id"`
	IncarnationID    UUID           `json:"incarnationId"`
	ZkMigrationReady bool           `json:"zkMigrationReady"`
	Endpoints        []Endpoint     `json:"endpoints"`
	Features         []FeatureRange `json:"features"`
}

// LegalTopicName is Kafka's rule for a topic's name (Topic.validate): 1
// to 249 of [a-zA-Z0-9._-], neither "." nor "..". A source whose topic
// breaks it is damaged or hostile: no Kafka creates one.
func LegalTopicName(name string) bool {
	ok := len(name) > 0 && len(name) <= 249 && name != "." && name != ".."
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	return ok
}

// IllegalTopicNameText is the message of WarnTopicNameIllegal for name,
// shown escaped (%q: a control character in it never reaches a terminal).
func IllegalTopicNameText(name string) string {
	return fmt.Sprintf("topic %q: no Kafka accepts this name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'): the source was not written by Kafka", name)
}

// Topic is a topic and its partitions.
type Topic struct {
	Name       string               `json:"name"`
	ID         UUID                 `json:"id"`
	Partitions map[int32]*Partition `json:"-"`
}

// LeaderRecoveryState values.
const (
	Recovered  int8 = 0
	Recovering int8 = 1
)

// NoLeader is Kafka's leader id for a partition without a leader.
const NoLeader int32 = -1

// Partition is one partition's registration. PartitionEpoch on the ZooKeeper
// side is the data version of the partition state znode.
type Partition struct {
	ID                  int32   `json:"partition"`
	Replicas            []int32 `json:"replicas"`
	ISR                 []int32 `json:"isr"`
	ELR                 []int32 `json:"elr"`
	LastKnownELR        []int32 `json:"lastKnownElr"`
	RemovingReplicas    []int32 `json:"removingReplicas"`
	AddingReplicas      []int32 `json:"addingReplicas"`
	Leader              int32   `json:"leader"`
	LeaderRecoveryState int8    `json:"leaderRecoveryState"`
	LeaderEpoch         int32   `json:"leaderEpoch"`
	PartitionEpoch      int32   `json:"partitionEpoch"`
	Directories         []UUID  `json:"directories"`
	// OfflineReplicas are the replicas a live cluster reports offline
	// (their broker is down or fenced, or their directory failed): a
	// broker's runtime view, which no metadata record holds. Only the
	// kafka:// source sets it; nil elsewhere.
	OfflineReplicas []int32 `json:"offlineReplicas,omitempty"`
}

// ConfigResourceType is ConfigRecord.ResourceType (Kafka's ConfigResource.Type).
type ConfigResourceType int8

const (
	ConfigUnknown       ConfigResourceType = 0
	ConfigTopic         ConfigResourceType = 2
	ConfigBroker        ConfigResourceType = 4
	ConfigBrokerLogger  ConfigResourceType = 8
	ConfigClientMetrics ConfigResourceType = 16
	ConfigGroup         ConfigResourceType = 32
)

func (t ConfigResourceType) String() string {
	switch t {
	case ConfigTopic:
		return "TOPIC"
	case ConfigBroker:
		return "BROKER"
	case ConfigBrokerLogger:
		return "BROKER_LOGGER"
	case ConfigClientMetrics:
		return "CLIENT_METRICS"
	case ConfigGroup:
		return "GROUP"
	}
	return "UNKNOWN"
}

// ConfigResource names a config entity. The cluster-wide broker default is
// {ConfigBroker, ""} (ZooKeeper's "<default>").
type ConfigResource struct {
	Type ConfigResourceType `json:"type"`
	Name string             `json:"name"`
}

// QuotaEntityPart is one (type, name) pair of a client-quota entity. A nil
// Name is the default entity (ZooKeeper's "<default>").
type QuotaEntityPart struct {
	Type string  `json:"entityType"`
	Name *string `json:"entityName"`
}

// ClientQuota is the set of quota values for one entity.
type ClientQuota struct {
	Entity []QuotaEntityPart  `json:"entity"`
	Values map[string]float64 `json:"values"`
}

// ACL is one access control entry. IDs are random per KRaft write (and
// synthesized on the ZooKeeper side), so compare ACLs by content.
type ACL struct {
	ID             UUID   `json:"id"`
	ResourceType   int8   `json:"resourceType"`
	ResourceName   string `json:"resourceName"`
	PatternType    int8   `json:"patternType"`
	Principal      string `json:"principal"`
	Host           string `json:"host"`
	Operation      int8   `json:"operation"`
	PermissionType int8   `json:"permissionType"`
}

// SCRAM mechanisms as Kafka codes them.
const (
	ScramSHA256 int8 = 1
	ScramSHA512 int8 = 2
)

// ScramKey identifies one SCRAM credential.
type ScramKey struct {
	User      string
	Mechanism int8
}

// ScramCredential is a stored SCRAM credential. Salt and keys are secrets.
type ScramCredential struct {
	User       string `json:"user"`
	Mechanism  int8   `json:"mechanism"`
	Salt       []byte `json:"salt,omitempty"`
	StoredKey  []byte `json:"storedKey,omitempty"`
	ServerKey  []byte `json:"serverKey,omitempty"`
	Iterations int32  `json:"iterations"`
	// Fingerprint replaces the secret bytes in a redacted image: a short hash
	// so equal secrets stay visibly equal.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// DelegationToken is a delegation token's metadata. Kafka never stores the
// HMAC; it is derived from delegation.token.secret.key.
type DelegationToken struct {
	TokenID             string   `json:"tokenId"`
	Owner               string   `json:"owner"`
	Requester           string   `json:"requester"`
	Renewers            []string `json:"renewers"`
	IssueTimestamp      int64    `json:"issueTimestamp"`
	MaxTimestamp        int64    `json:"maxTimestamp"`
	ExpirationTimestamp int64    `json:"expirationTimestamp"`
}

// ProducerIDs is the producer id allocation state.
type ProducerIDs struct {
	// NextProducerID is the first id of the next block to hand out.
	NextProducerID int64 `json:"nextProducerId"`
	// BrokerID and BrokerEpoch of the last allocation (-1 when unknown).
	BrokerID    int32 `json:"brokerId"`
	BrokerEpoch int64 `json:"brokerEpoch"`
}

// ZkMigrationState is the persisted KIP-866 state. The codes are Kafka's
// (MIGRATION=1 and PRE_MIGRATION=2 are not in lifecycle order).
type ZkMigrationState int8

const (
	MigrationNone          ZkMigrationState = 0
	MigrationMigration     ZkMigrationState = 1
	MigrationPreMigration  ZkMigrationState = 2
	MigrationPostMigration ZkMigrationState = 3
)

func (s ZkMigrationState) String() string {
	switch s {
	case MigrationNone:
		return "NONE"
	case MigrationMigration:
		return "MIGRATION"
	case MigrationPreMigration:
		return "PRE_MIGRATION"
	case MigrationPostMigration:
		return "POST_MIGRATION"
	}
	return "UNKNOWN"
}

// Migration is the ZK->KRaft migration state as each side records it. The
// KRaft side sets State (HasState); the ZooKeeper side fills the /migration
// znode fields (HasZNode).
type Migration struct {
	HasState bool             `json:"hasState"`
	State    ZkMigrationState `json:"state"`

	HasZNode             bool  `json:"hasZnode"`
	KRaftControllerID    int32 `json:"kraftControllerId"`
	KRaftControllerEpoch int32 `json:"kraftControllerEpoch"`
	KRaftMetadataOffset  int64 `json:"kraftMetadataOffset"`
	KRaftMetadataEpoch   int32 `json:"kraftMetadataEpoch"`
	ZNodeVersion         int32 `json:"znodeVersion"`
	// ZNodeNull: /migration exists without data (left by
	// zookeeper-security-migration, KAFKA-19480); the other znode fields
	// are then -1.
	ZNodeNull bool `json:"znodeNull,omitempty"`
}

// Voter is a KRaft quorum voter.
type Voter struct {
	ID          int32      `json:"id"`
	DirectoryID UUID       `json:"directoryId"`
	Endpoints   []Endpoint `json:"endpoints,omitempty"`
}

// Quorum is what the raft control records and quorum-state say.
type Quorum struct {
	LeaderID     int32   `json:"leaderId"`
	LeaderEpoch  int32   `json:"leaderEpoch"`
	Voters       []Voter `json:"voters,omitempty"`
	KRaftVersion int16   `json:"kraftVersion"`
}

// ZKState holds what only ZooKeeper has: the ZK controller and pending admin
// work. zkread owns its contents.
type ZKState struct {
	ControllerID          int32    `json:"controllerId"`
	ControllerEpoch       int32    `json:"controllerEpoch"`
	KRaftControllerEpoch  int32    `json:"kraftControllerEpoch"`
	PendingTopicDeletions []string `json:"pendingTopicDeletions,omitempty"`
	// MaxZxid is the highest zxid seen while reading.
	MaxZxid int64 `json:"maxZxid"`
	// Raw keeps znodes kmeta does not understand, path -> data.
	Raw map[string][]byte `json:"raw,omitempty"`

	// Chroot the znode paths are relative to ("" for none).
	Chroot string `json:"chroot,omitempty"`
	// Servers are the servers (host:port) of the ensemble the view was
	// read from, also through a dump of a live read (nil when unknown: a
	// data dir): with Chroot, what a node's zookeeper.connect must name.
	// Not part of the view's JSON.
	Servers []string `json:"-"`
	// Warnings from reading: snapshot fallbacks, torn log tails, a tree
	// that changed while it was read live.
	Warnings []string `json:"warnings,omitempty"`
	// ControllerEpochZkVersion is /controller_epoch's data version, which
	// Kafka uses to fence controller writes (-1 when absent).
	ControllerEpochZkVersion int32 `json:"controllerEpochZkVersion"`
	// MaxStateControllerEpoch is the highest controller_epoch written in
	// a partition state znode (-1 when no state has one). Kafka's ZK
	// controller refuses to change a partition whose state a higher
	// epoch than its own wrote ("Leader and isr path written by another
	// controller"), so it must not exceed /controller_epoch.
	MaxStateControllerEpoch int32 `json:"maxStateControllerEpoch"`
	// BrokerSequenceID is /brokers/seqid's data version, the base of
	// generated broker ids (-1 when absent).
	BrokerSequenceID int32 `json:"brokerSequenceId"`
	// FeatureStatus is /feature's status (1 enabled, 0 disabled; -1 when
	// the znode is absent).
	FeatureStatus int32 `json:"featureStatus"`
	// MissingPartitionStates lists partitions ("topic-N") whose state znode
	// is absent; their model partition is synthesized as Kafka's migration
	// does (ISR = replicas, leader = first replica, epochs 0).
	MissingPartitionStates []string `json:"missingPartitionStates,omitempty"`
	// LegacyReassignments is /admin/reassign_partitions: "topic-N" -> target
	// replicas. Kafka's migration ignores it.
	LegacyReassignments map[string][]int32 `json:"legacyReassignments,omitempty"`
	// PreferredReplicaElections is /admin/preferred_replica_election
	// ("topic-N").
	PreferredReplicaElections []string `json:"preferredReplicaElections,omitempty"`
	// Notifications counts pending notification znodes by kind:
	// isr_change, log_dir_event, config_change, acl_change,
	// acl_extended_change, token_change.
	Notifications map[string]int32 `json:"notifications,omitempty"`
}

// Provenance says where an image came from and how far it goes.
type Provenance struct {
	Source string `json:"source"`
	// Offset and Epoch of the last record applied (KRaft), -1 when none.
	Offset int64 `json:"offset"`
	Epoch  int32 `json:"epoch"`
	// Timestamp is when the state was written: a KRaft image's is the
	// append time of its last batch, or a snapshot's
	// lastContainedLogTimestamp (the same time); zero when the source
	// does not tell.
	Timestamp time.Time `json:"timestamp,omitzero"`
	// Zxid is the highest zxid the ZooKeeper read saw.
	Zxid int64 `json:"zxid,omitempty"`
	// Live is the addresses a live read asked, as Source names them: a
	// kafka:// read's bootstrap servers (or controllers), a zk:// read's
	// ensemble servers; nil for files, dumps included. A fix that names
	// the cluster to run a command against takes them from here rather
	// than from Source's text. Not in JSON: Source says the same.
	Live []string `json:"-"`
}
