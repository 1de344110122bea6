package model

import (
	"reflect"
	"testing"
	"time"
)

func strp(s string) *string { return &s }

// fullImage returns an image in which every field of every type reachable
// from Image is non-zero (TestFullImageCoversEveryField checks this), so
// the clone and redaction tests notice a field added to the model later.
func fullImage() *Image {
	img := NewImage()
	img.ClusterID = "MkU3OEVBNTcwNTJENDM2Qk"
	img.Features["metadata.version"] = 21
	img.Features["group.version"] = 1
	ep := Endpoint{Name: "PLAINTEXT", Host: "localhost", Port: 9092, SecurityProtocol: 2}
	img.Brokers[1] = &Broker{
		ID: 1, Epoch: 10, IncarnationID: UUID{1, 2, 3}, Endpoints: []Endpoint{ep},
		Features: []FeatureRange{{Name: "metadata.version", Min: 1, Max: 21}}, Rack: strp("r1"),
		Fenced: true, InControlledShutdown: true, IsMigratingZkBroker: true, LogDirs: []UUID{{9}}, CordonedLogDirs: []UUID{{9}},
	}
	img.Controllers[3000] = &Controller{
		ID: 3000, IncarnationID: UUID{4}, ZkMigrationReady: true, Endpoints: []Endpoint{ep},
		Features: []FeatureRange{{Name: "kraft.version", Min: 1, Max: 1}},
	}
	img.Topics["foo"] = &Topic{Name: "foo", ID: UUID{7}, Partitions: map[int32]*Partition{
		1: {
			ID: 1, Replicas: []int32{1, 2}, ISR: []int32{1}, ELR: []int32{2}, LastKnownELR: []int32{3},
			RemovingReplicas: []int32{2}, AddingReplicas: []int32{3}, Leader: 1, LeaderRecoveryState: Recovering,
			LeaderEpoch: 4, PartitionEpoch: 5, Directories: []UUID{DirUnassigned, DirLost}, OfflineReplicas: []int32{2},
		},
	}}
	img.Configs[ConfigResource{Type: ConfigBroker, Name: "1"}] = map[string]string{
		"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config": "secret-jaas",
		"ssl.keystore.password":                                 "hunter2",
		"log.retention.ms":                                      "1000",
	}
	img.Configs[ConfigResource{Type: ConfigTopic, Name: "foo"}] = map[string]string{"cleanup.policy": "compact"}
	img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "2", "ssl.keystore.password": "static-secret"})
	img.MarkConfigsUnreported(ConfigResource{Type: ConfigBroker, Name: "2"})
	img.ClientQuotas["q"] = &ClientQuota{
		Entity: []QuotaEntityPart{{Type: "user", Name: strp("alice")}, {Type: "client-id", Name: nil}},
		Values: map[string]float64{"producer_byte_rate": 1024},
	}
	img.ACLs[UUID{5}] = &ACL{ID: UUID{5}, ResourceType: 2, ResourceName: "foo", PatternType: 3,
		Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3}
	img.SCRAM[ScramKey{User: "alice", Mechanism: ScramSHA256}] = &ScramCredential{
		User: "alice", Mechanism: ScramSHA256, Salt: []byte("salt"), StoredKey: []byte("stored"),
		ServerKey: []byte("server"), Iterations: 4096, Fingerprint: "stale",
	}
	img.DelegationTokens["tok"] = &DelegationToken{TokenID: "tok", Owner: "User:alice", Requester: "User:bob",
		Renewers: []string{"User:carol"}, IssueTimestamp: 1, MaxTimestamp: 2, ExpirationTimestamp: 3}
	img.NotReported = []Field{FieldBrokerEpoch}
	img.ProducerIDs = &ProducerIDs{NextProducerID: 5000, BrokerID: 1, BrokerEpoch: -1}
	img.Migration = &Migration{HasState: true, State: MigrationMigration, HasZNode: true, KRaftControllerID: 3000,
		KRaftControllerEpoch: 2, KRaftMetadataOffset: 100, KRaftMetadataEpoch: 3, ZNodeVersion: 4, ZNodeNull: true}
	img.Quorum = &Quorum{LeaderID: 3000, LeaderEpoch: 6, KRaftVersion: 1,
		Voters: []Voter{{ID: 3000, DirectoryID: UUID{8}, Endpoints: []Endpoint{ep}}}}
	img.ZK = &ZKState{ControllerID: 1, ControllerEpoch: 2, KRaftControllerEpoch: 3,
		PendingTopicDeletions: []string{"bar"}, MaxZxid: 0x100000002, Raw: map[string][]byte{"/x": []byte("y")},
		Chroot: "/kafka", Servers: []string{"zk1:2181"}, Warnings: []string{"w"}, ControllerEpochZkVersion: 4, MaxStateControllerEpoch: 6, BrokerSequenceID: 5, FeatureStatus: 1,
		MissingPartitionStates: []string{"foo-1"}, LegacyReassignments: map[string][]int32{"foo-0": {1, 2}},
		PreferredReplicaElections: []string{"foo-0"}, Notifications: map[string]int32{"isr_change": 2}}
	img.Provenance = Provenance{Source: "kraft:/tmp/meta", Offset: 99, Epoch: 6,
		Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Zxid: 0x100000002, Live: []string{"h1:9092", "h2:9092"}}
	l, r := "a", "b"
	img.Warnings = []Finding{{Code: WarnTornTail, Severity: SevWarning, Class: "log", Entity: "segment 0", Field: "f", Left: &l, Right: &r,
		Message: "torn", Fix: "none", Where: &Location{File: "/tmp/meta/0.log", Position: 7, Offset: 3, Line: 2, Znode: "/brokers", Zxid: 9}}}
	return img
}

// TestFullImageCoversEveryField fails when a model field is added that the
// fixture leaves zero, so clone/redaction tests keep covering everything.
func TestFullImageCoversEveryField(t *testing.T) {
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.IsZero() {
			t.Errorf("%s is zero in fullImage; set it so clone and redaction tests cover it", path)
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			walk(path, v.Elem())
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				return
			}
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() != reflect.Uint8 {
				walk(path+"[0]", v.Index(0))
			}
		case reflect.Map:
			it := v.MapRange()
			it.Next()
			walk(path+"[]", it.Value())
		}
	}
	walk("Image", reflect.ValueOf(fullImage()))
}
