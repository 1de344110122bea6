package model

// EntityKind is a kind of entity of an image: what a metadata record or a
// znode change touches, what history lists and restore brings back.
type EntityKind uint8

// The entity kinds. Their names (String) are what --entity KIND:NAME
// takes.
const (
	EntityTopic EntityKind = iota + 1
	EntityPartition
	EntityBroker
	EntityController
	EntityConfig
	EntityQuota
	EntityACL
	EntitySCRAM
	EntityToken
	EntityFeature
	EntityQuorum
	EntityProducerIDs
	EntityMigration
)

var entityKindNames = []string{"", "topic", "partition", "broker", "controller", "config", "quota", "acl",
	"scram", "token", "feature", "quorum", "producer-ids", "migration"}

func (k EntityKind) String() string {
	if int(k) < len(entityKindNames) && k > 0 {
		return entityKindNames[k]
	}
	return "unknown"
}

// EntityKinds lists every kind, in the order of their constants.
func EntityKinds() []EntityKind {
	out := make([]EntityKind, 0, len(entityKindNames)-1)
	for k := EntityTopic; k <= EntityMigration; k++ {
		out = append(out, k)
	}
	return out
}

// ParseEntityKind reads a kind's name ("topic", "acl").
func ParseEntityKind(s string) (EntityKind, bool) {
	for i, n := range entityKindNames {
		if i > 0 && n == s {
			return EntityKind(i), true
		}
	}
	return 0, false
}

// EntityRef names the entities one change touches, by the keys the image
// holds them under. Which fields count depends on Kind:
//
//	topic         Name
//	partition     Name (the topic) and ID (the partition; AllIDs: every
//	              partition of the topic, those before and those after)
//	broker        ID
//	controller    ID
//	config        Config
//	quota         Name: QuotaEntityKey of the entity
//	acl           ACL, the id of one ACL (a KRaft record names one); or,
//	              ACL zero, every ACL of the resource (ResourceType,
//	              PatternType, Name), as a ZooKeeper ACL znode holds them
//	scram         Name (the user) and ID (the mechanism; AllIDs: both)
//	token         Name (the token id)
//	feature       Name ("" with AllIDs: every feature)
//	quorum, producer-ids, migration: the one entity of the kind
type EntityRef struct {
	Kind   EntityKind
	Name   string
	ID     int32
	Config ConfigResource
	ACL    UUID
	// ResourceType and PatternType of an ACL resource (ACL zero).
	ResourceType, PatternType int8
}

// AllIDs is EntityRef.ID for every partition of a topic, both SCRAM
// mechanisms of a user, or every feature.
const AllIDs int32 = -1
