// Package synth makes deterministic, realistic KRaft metadata for tests and
// benchmarks: every record type at every version kmeta knows, with fields
// populated, and arbitrarily large logs shaped like a busy cluster's
// (partition changes, NoOps, configs, registrations). Files it writes go
// through metalog's writer, so Kafka's own tools can be asked to read them.
package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Gen produces records from a seeded source.
type Gen struct {
	rng    *rand.Rand
	topics []model.UUID
	names  []string
}

// New returns a generator seeded with seed.
func New(seed uint64) *Gen { return &Gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

func (g *Gen) uuid() model.UUID {
	var u model.UUID
	for i := range u {
		u[i] = byte(g.rng.UintN(256))
	}
	if u.IsZero() {
		u[15] = 7
	}
	return u
}

func (g *Gen) ints(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(g.rng.IntN(50))
	}
	return out
}

func (g *Gen) str(prefix string) string { return fmt.Sprintf("%s-%d", prefix, g.rng.IntN(100000)) }

func ptr[T any](v T) *T { return &v }

// Every returns one fully populated record of every type at every version,
// with the version to encode it at.
func (g *Gen) Every() []Versioned {
	var out []Versioned
	for _, mt := range records.MetadataTypes() {
		for v := mt.MinVersion; v <= mt.MaxVersion; v++ {
			out = append(out, Versioned{g.Full(mt.APIKey, v), v})
		}
	}
	return out
}

// Versioned is a record and the version to write it at.
type Versioned struct {
	Rec     records.Metadata
	Version int16
}

// Full returns a record of type apiKey with every field that exists at v set
// to a non-default value.
func (g *Gen) Full(apiKey, v int16) records.Metadata {
	switch apiKey {
	case 0:
		r := &records.RegisterBrokerRecord{BrokerId: int32(g.rng.IntN(100)), IncarnationId: g.uuid(), BrokerEpoch: g.rng.Int64N(1 << 40),
			EndPoints: []records.RegisterBrokerRecordBrokerEndpoint{{Name: "PLAINTEXT", Host: "broker-1.example", Port: 9092, SecurityProtocol: 0}, {Name: "SSL", Host: "broker-1.example", Port: 9093, SecurityProtocol: 1}},
			Features:  []records.RegisterBrokerRecordBrokerFeature{{Name: "metadata.version", MinSupportedVersion: 7, MaxSupportedVersion: 27}},
			Rack:      ptr("rack-\"a\"\n"), Fenced: false}
		if v >= 1 {
			r.InControlledShutdown = true
		}
		if v >= 2 {
			r.IsMigratingZkBroker = true
		}
		if v >= 3 {
			r.LogDirs = []model.UUID{g.uuid(), g.uuid()}
		}
		if v >= 4 {
			r.CordonedLogDirs = []model.UUID{r.LogDirs[1]}
		}
		return r
	case 1:
		return &records.UnregisterBrokerRecord{BrokerId: 3, BrokerEpoch: g.rng.Int64N(1 << 40)}
	case 2:
		return &records.TopicRecord{Name: g.str("topic.with_dots"), TopicId: g.uuid()}
	case 3:
		r := &records.PartitionRecord{PartitionId: int32(g.rng.IntN(1000)), TopicId: g.uuid(), Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2},
			RemovingReplicas: []int32{3}, AddingReplicas: []int32{4}, Leader: 1, LeaderRecoveryState: 1, LeaderEpoch: 5, PartitionEpoch: 9}
		if v >= 1 {
			r.Directories = []model.UUID{g.uuid(), g.uuid(), g.uuid()}
		}
		if v >= 2 {
			r.EligibleLeaderReplicas, r.LastKnownElr = []int32{3}, []int32{}
		}
		return r
	case 4:
		return &records.ConfigRecord{ResourceType: 2, ResourceName: g.str("t"), Name: "retention.ms", Value: ptr("86400000")}
	case 5:
		r := &records.PartitionChangeRecord{PartitionId: 7, TopicId: g.uuid(), Isr: []int32{1}, Leader: -1, Replicas: []int32{1, 2},
			RemovingReplicas: []int32{}, AddingReplicas: []int32{2}, LeaderRecoveryState: 0}
		if v >= 1 {
			r.Directories = []model.UUID{g.uuid(), g.uuid()}
		}
		if v >= 2 {
			r.EligibleLeaderReplicas, r.LastKnownElr = []int32{2}, []int32{1}
		}
		return r
	case 7:
		return &records.FenceBrokerRecord{Id: 2, Epoch: 77}
	case 8:
		return &records.UnfenceBrokerRecord{Id: 2, Epoch: 78}
	case 9:
		return &records.RemoveTopicRecord{TopicId: g.uuid()}
	case 10:
		return &records.DelegationTokenRecord{Owner: "User:alice", Requester: "User:bob", Renewers: []string{"User:carol", "User:dave"},
			IssueTimestamp: 1700000000000, MaxTimestamp: 1700600000000, ExpirationTimestamp: 1700086400000, TokenId: g.str("tok")}
	case 11:
		return &records.UserScramCredentialRecord{Name: g.str("user"), Mechanism: 2, Salt: []byte("salt-bytes"), StoredKey: []byte{1, 2, 3, 250},
			ServerKey: []byte{9, 8, 7}, Iterations: 8192}
	case 12:
		return &records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 27}
	case 14:
		return &records.ClientQuotaRecord{Entity: []records.ClientQuotaRecordEntityData{{EntityType: "user", EntityName: ptr("alice")}, {EntityType: "client-id"}},
			Key: "producer_byte_rate", Value: 10485760.5, Remove: false}
	case 15:
		return &records.ProducerIdsRecord{BrokerId: 1, BrokerEpoch: 12, NextProducerId: 5000}
	case 17:
		r := &records.BrokerRegistrationChangeRecord{BrokerId: 1, BrokerEpoch: 100, Fenced: -1}
		if v >= 1 {
			r.InControlledShutdown = 1
		}
		if v >= 2 {
			r.LogDirs = []model.UUID{g.uuid()}
		}
		if v >= 3 {
			r.CordonedLogDirs = []model.UUID{}
		}
		return r
	case 18:
		return &records.AccessControlEntryRecord{Id: g.uuid(), ResourceType: 2, ResourceName: "orders-", PatternType: 4, Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3}
	case 19:
		return &records.RemoveAccessControlEntryRecord{Id: g.uuid()}
	case 20:
		return &records.NoOpRecord{}
	case 21:
		return &records.ZkMigrationStateRecord{ZkMigrationState: 1}
	case 22:
		return &records.RemoveUserScramCredentialRecord{Name: "bob", Mechanism: 1}
	case 23:
		return &records.BeginTransactionRecord{Name: ptr("Bootstrap records")}
	case 24:
		return &records.EndTransactionRecord{}
	case 25:
		return &records.AbortTransactionRecord{Reason: ptr("Controller failover")}
	case 26:
		return &records.RemoveDelegationTokenRecord{TokenId: "tok-1"}
	case 27:
		return &records.RegisterControllerRecord{ControllerId: 3000, IncarnationId: g.uuid(), ZkMigrationReady: true,
			EndPoints: []records.RegisterControllerRecordControllerEndpoint{{Name: "CONTROLLER", Host: "c1", Port: 9093, SecurityProtocol: 0}},
			Features:  []records.RegisterControllerRecordControllerFeature{{Name: "kraft.version", MinSupportedVersion: 0, MaxSupportedVersion: 1}}}
	case 28:
		return &records.ClearElrRecord{TopicName: "orders"}
	case 29:
		return &records.UnregisterControllerRecord{ControllerId: 3001}
	}
	panic(fmt.Sprintf("synth: no generator for apiKey %d", apiKey))
}

// Busy returns the next record of a busy cluster's steady state: mostly
// partition changes (ISR shrink/expand, leader moves) and NoOps, with
// topic creations, config changes and registrations mixed in.
func (g *Gen) Busy() (records.Metadata, int16) {
	// 200 topics of 16 partitions, created first: the final image is the
	// same size however long the log, so memory measurements can tell log
	// size from image size.
	if len(g.topics) < 200 {
		id, name := g.uuid(), fmt.Sprintf("events-%d", len(g.topics))
		g.topics, g.names = append(g.topics, id), append(g.names, name)
		return &records.TopicRecord{Name: name, TopicId: id}, 0
	}
	ti := g.rng.IntN(len(g.topics))
	t := g.topics[ti]
	switch n := g.rng.IntN(100); {
	case n < 55:
		return &records.PartitionChangeRecord{PartitionId: int32(g.rng.IntN(16)), TopicId: t, Isr: g.ints(3), Leader: int32(g.rng.IntN(6))}, 0
	case n < 75:
		return &records.NoOpRecord{}, 0
	case n < 85:
		return &records.PartitionRecord{PartitionId: int32(g.rng.IntN(16)), TopicId: t, Replicas: g.ints(3), Isr: g.ints(3),
			Leader: 1, LeaderEpoch: int32(g.rng.IntN(100)), PartitionEpoch: int32(g.rng.IntN(100)), Directories: []model.UUID{g.uuid(), g.uuid(), g.uuid()}}, 1
	case n < 92:
		return &records.ConfigRecord{ResourceType: 2, ResourceName: g.names[ti], Name: "retention.ms", Value: ptr(fmt.Sprint(g.rng.IntN(1 << 30)))}, 0
	case n < 96:
		return &records.BrokerRegistrationChangeRecord{BrokerId: int32(g.rng.IntN(6)), BrokerEpoch: g.rng.Int64N(1 << 30), Fenced: 1}, 0
	default:
		return g.Full(0, 3), 3
	}
}
