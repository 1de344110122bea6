package verify

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

func sp(s string) *string { return &s }

// pair builds a ZooKeeper view and a KRaft view of one small cluster as
// Kafka's migration leaves them: same content, ACL ids that differ, the
// ZooKeeper broker registrations and the KRaft ones.
func pair() (zk, kr *model.Image) {
	build := func(world model.World) *model.Image {
		img := model.NewImage()
		img.ClusterID = "Y_M1NY68Tu2c3nV89agwIw"
		tid := model.UUID{1, 2, 3}
		img.Topics["orders"] = &model.Topic{Name: "orders", ID: tid, Partitions: map[int32]*model.Partition{
			0: {ID: 0, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1, LeaderEpoch: 3, PartitionEpoch: 4},
			1: {ID: 1, Replicas: []int32{2, 1}, ISR: []int32{2}, Leader: 2, LeaderEpoch: 1, PartitionEpoch: 2},
		}}
		img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{"retention.ms": "1000"}
		img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: ""}] = map[string]string{"log.retention.ms": "5"}
		img.ClientQuotas["a"] = &model.ClientQuota{Entity: []model.QuotaEntityPart{{Type: "user", Name: nil}}, Values: map[string]float64{"producer_byte_rate": 1024}}
		id := model.UUID{9}
		if world == model.WorldKRaft {
			id = model.UUID{7, 7} // random per migration
		}
		img.ACLs[id] = &model.ACL{ID: id, ResourceType: 2, ResourceName: "orders", PatternType: 3, Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3}
		img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA256}] = &model.ScramCredential{User: "alice", Mechanism: model.ScramSHA256,
			Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 4096}
		img.ProducerIDs = &model.ProducerIDs{NextProducerID: 3000, BrokerID: 1, BrokerEpoch: -1}
		for _, b := range []int32{1, 2} {
			br := &model.Broker{ID: b, Endpoints: []model.Endpoint{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: uint16(9000 + b)}}}
			if world == model.WorldKRaft {
				br.Epoch, br.IncarnationID, br.IsMigratingZkBroker = int64(100+b), model.UUID{byte(b)}, true
				br.Features = []model.FeatureRange{{Name: "metadata.version", Min: 21, Max: 21}}
			} else {
				br.Epoch = int64(b) << 32 // a czxid
			}
			img.Brokers[b] = br
		}
		if world == model.WorldKRaft {
			img.Features["metadata.version"] = 21
			img.Migration = &model.Migration{HasState: true, State: model.MigrationMigration}
			img.Provenance.Offset = 500
		} else {
			img.ZK = &model.ZKState{}
			img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 1, KRaftMetadataOffset: 400, KRaftMetadataEpoch: 1}
		}
		return img
	}
	return build(model.WorldZooKeeper), build(model.WorldKRaft)
}

func verifyPair(t *testing.T, zk, kr *model.Image, opts Options) *Report {
	t.Helper()
	opts.Left, opts.Right = Side{World: model.WorldZooKeeper}, Side{World: model.WorldKRaft}
	rep, err := Compare(zk, kr, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func codes(rep *Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Class+"/"+f.Code+" "+f.Entity+" "+f.Field)
	}
	return out
}

func TestVerifyEqualViews(t *testing.T) {
	zk, kr := pair()
	rep := verifyPair(t, zk, kr, Options{})
	if rep.Differ() || len(rep.Findings) != 0 {
		t.Fatalf("migrated views should agree (ACL ids, broker epochs and incarnations differ by design): %v", codes(rep))
	}
}

// encoded is "hunter2" as Kafka's PasswordEncoder stores it in ZooKeeper
// with password.encoder.secret "encoder-secret" (PBKDF2WithHmacSHA512,
// AES/CBC/PKCS5Padding).
const encoded = "keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,keyLength:128,salt:MDEyMzQ1Njc4OWFiY2RlZg==," +
	"iterations:4096,encryptedPassword:77Ydpq15j2qpgegaBgpgBA==,passwordLength:7,initializationVector:ZmVkY2JhOTg3NjU0MzIxMA=="

// offline makes kr what an offline migration writes before any broker
// starts: no broker registration, no migration state; and zk a cluster
// that was never migrated online (no /migration).
func offline(zk, kr *model.Image) {
	clear(kr.Brokers)
	kr.Migration, zk.Migration = nil, nil
}

// Each cross-world rule, one change at a time: the code, class and count
// of what is reported.
func TestVerifyRules(t *testing.T) {
	encryptedConfig := func(zk, kr *model.Image, plain string) {
		r := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
		zk.Configs[r] = map[string]string{"listener.name.internal.ssl.key.password": encoded}
		kr.Configs[r] = map[string]string{"listener.name.internal.ssl.key.password": plain}
	}
	for _, tc := range []struct {
		name   string
		change func(zk, kr *model.Image)
		opts   Options
		want   []string
		differ bool
	}{
		{"topic config drift", func(zk, kr *model.Image) {
			zk.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}]["retention.ms"] = "2000"
		}, Options{}, []string{"configs/different config TOPIC orders retention.ms"}, true},
		{"ACL missing in KRaft", func(zk, kr *model.Image) { clear(kr.ACLs) },
			Options{}, []string{"acls/missing-in-kraft acl TOPIC:LITERAL:orders User:alice@* READ ALLOW "}, true},
		{"replica assignment", func(zk, kr *model.Image) { kr.Topics["orders"].Partitions[1].Replicas = []int32{1, 2} },
			Options{}, []string{"partitions/different partition orders-1 replicas"}, true},
		{"runtime moves are warnings", func(zk, kr *model.Image) { kr.Topics["orders"].Partitions[0].Leader = 2 },
			Options{}, []string{"runtime/different partition orders-0 leader"}, true},
		{"partition epoch lag is explained", func(zk, kr *model.Image) { kr.Topics["orders"].Partitions[0].PartitionEpoch = 9 },
			Options{}, []string{"runtime/expected-partition-epoch partition orders-0 partitionEpoch"}, false},
		{"topic missing takes its partitions along", func(zk, kr *model.Image) {
			delete(zk.Topics, "orders")
			delete(zk.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: "orders"})
		}, Options{}, []string{"topics/missing-in-zookeeper topic orders "}, true},
		{"pending deletion is explained", func(zk, kr *model.Image) {
			delete(kr.Topics, "orders")
			delete(kr.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: "orders"})
			zk.ZK.PendingTopicDeletions = []string{"orders"}
		}, Options{}, []string{"topics/expected-pending-deletion topic orders "}, false},
		{"pending deletion present in KRaft is one difference", func(zk, kr *model.Image) {
			zk.ZK.PendingTopicDeletions = []string{"orders"}
		}, Options{}, []string{"topics/different topic orders state"}, true},
		{"config of a topic ZooKeeper does not hold is explained", func(zk, kr *model.Image) {
			zk.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "ghost"}] = map[string]string{"retention.ms": "1"}
		}, Options{}, []string{"configs/expected-config-without-topic config TOPIC ghost "}, false},
		{"topic removed from ZooKeeper only: its config is the topic's, no config-only topic", func(zk, kr *model.Image) {
			delete(zk.Topics, "orders")
		}, Options{}, []string{"topics/missing-in-zookeeper topic orders "}, true},
		{"config of a topic ZooKeeper does not hold, in KRaft too", func(zk, kr *model.Image) {
			zk.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "ghost"}] = map[string]string{"retention.ms": "1"}
			kr.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "ghost"}] = map[string]string{"retention.ms": "1"}
		}, Options{}, []string{"configs/expected-config-without-topic config TOPIC ghost ", "configs/missing-in-zookeeper config TOPIC ghost "}, true},
		{"encrypted password without the secret is not compared", func(zk, kr *model.Image) { encryptedConfig(zk, kr, "secret") },
			Options{}, []string{"configs/expected-encrypted-password config BROKER 1 listener.name.internal.ssl.key.password"}, false},
		{"encrypted password decrypts to KRaft's", func(zk, kr *model.Image) { encryptedConfig(zk, kr, "hunter2") },
			Options{PasswordEncoderSecret: "encoder-secret"}, nil, false},
		{"encrypted password decrypts to another plaintext", func(zk, kr *model.Image) { encryptedConfig(zk, kr, "hunter3") },
			Options{PasswordEncoderSecret: "encoder-secret"}, []string{"configs/different config BROKER 1 listener.name.internal.ssl.key.password"}, true},
		{"encrypted password and a wrong secret", func(zk, kr *model.Image) { encryptedConfig(zk, kr, "hunter2") },
			Options{PasswordEncoderSecret: "not-the-secret"}, []string{"configs/password-not-decrypted config BROKER 1 listener.name.internal.ssl.key.password"}, true},
		{"an encrypted-looking value of a non-password key is compared as it is", func(zk, kr *model.Image) {
			r := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
			zk.Configs[r] = map[string]string{"custom.note": encoded}
			kr.Configs[r] = map[string]string{"custom.note": "hunter2"}
		}, Options{PasswordEncoderSecret: "encoder-secret"}, []string{"configs/different config BROKER 1 custom.note"}, true},
		{"a config Kafka 4.x removed is left out", func(zk, kr *model.Image) {
			zk.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}]["message.format.version"] = "0.10.2"
			// A topic of its own, or its config would be one without a topic.
			for _, img := range []*model.Image{zk, kr} {
				o := *img.Topics["orders"]
				o.Name, o.ID = "legacy", model.UUID{9}
				img.Topics["legacy"] = &o
			}
			zk.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "legacy"}] = map[string]string{"message.downconversion.enable": "true"}
		}, Options{}, []string{"configs/expected-removed-config config TOPIC orders message.format.version", "configs/expected-removed-config config TOPIC legacy "}, false},
		{"SCRAM salt", func(zk, kr *model.Image) {
			kr.SCRAM[model.ScramKey{User: "alice", Mechanism: 1}].Salt = []byte("other")
		},
			Options{}, []string{"scram/different scram alice SCRAM-SHA-256 credential"}, true},
		{"quota default entity", func(zk, kr *model.Image) { kr.ClientQuotas["a"].Values["producer_byte_rate"] = 2048 },
			Options{}, []string{"quotas/different quota user=<default> producer_byte_rate"}, true},
		{"producer ids behind", func(zk, kr *model.Image) { kr.ProducerIDs.NextProducerID = 2000 },
			Options{}, []string{"producer-ids/kraft-behind producer-ids nextProducerId"}, true},
		{"producer ids ahead", func(zk, kr *model.Image) { kr.ProducerIDs.NextProducerID = 5000 },
			Options{}, []string{"producer-ids/kraft-ahead producer-ids nextProducerId"}, false},
		{"producer ids block written by the controller", func(zk, kr *model.Image) {
			zk.ProducerIDs = &model.ProducerIDs{NextProducerID: 4000, BrokerID: -1, BrokerEpoch: -1}
		}, Options{}, nil, false},
		{"IBP mismatch", func(zk, kr *model.Image) {
			kr.Brokers[2].Features[0] = model.FeatureRange{Name: "metadata.version", Min: 20, Max: 20}
		},
			Options{}, []string{"features/ibp-mismatch broker 2 metadata.version"}, true},
		{"feature KRaft bootstraps is explained", func(zk, kr *model.Image) { kr.Features["transaction.version"] = 2 },
			Options{}, []string{"features/expected-kraft-only finalized features transaction.version"}, false},
		{"feature both hold at other levels", func(zk, kr *model.Image) {
			zk.Features["group.version"], kr.Features["group.version"] = 1, 0
		}, Options{}, []string{"features/different finalized features group.version"}, true},
		{"feature only ZooKeeper holds", func(zk, kr *model.Image) { zk.Features["group.version"] = 1 },
			Options{}, []string{"features/missing-in-kraft finalized features group.version"}, true},
		{"broker not registered in KRaft", func(zk, kr *model.Image) { delete(kr.Brokers, 2) },
			Options{}, []string{"brokers/missing-in-kraft broker 2 "}, true},
		{"KRaft-only broker", func(zk, kr *model.Image) {
			kr.Brokers[5] = &model.Broker{ID: 5}
		}, Options{}, []string{"brokers/expected-kraft-only broker 5 "}, false},
		{"stale /migration", func(zk, kr *model.Image) { kr.Migration.State = model.MigrationPreMigration },
			Options{}, []string{"migration/stale-migration-znode migration "}, true},
		// Readiness findings about one view stay in the report and do not
		// make the views differ.
		{"KRaft view behind /migration", func(zk, kr *model.Image) { kr.Provenance.Offset = 300 },
			Options{}, []string{"migration/kraft-view-behind migration "}, false},
		// A topic without id in ZooKeeper (before 2.8) that KRaft carries
		// with the id the migration assigned: one explained finding;
		// checked only with the plan.
		{"topic without id, no plan", func(zk, kr *model.Image) { zk.Topics["orders"].ID = model.UUID{} },
			Options{}, []string{"topics/expected-assigned-topic-id topic orders id"}, false},
		{"topic without id, the plan's id", func(zk, kr *model.Image) { zk.Topics["orders"].ID = model.UUID{} },
			Options{PlanTopicIDs: map[string]model.UUID{"orders": {1, 2, 3}}}, []string{"topics/expected-assigned-topic-id topic orders id"}, false},
		{"topic without id, not the plan's id", func(zk, kr *model.Image) { zk.Topics["orders"].ID = model.UUID{} },
			Options{PlanTopicIDs: map[string]model.UUID{"orders": {4}}}, []string{"topics/different topic orders id"}, true},
		{"topic without id, not in the plan", func(zk, kr *model.Image) { zk.Topics["orders"].ID = model.UUID{} },
			Options{PlanTopicIDs: map[string]model.UUID{}}, []string{"topics/different topic orders id"}, true},
		{"topic without id, not migrated", func(zk, kr *model.Image) {
			zk.Topics["orders"].ID = model.UUID{}
			delete(kr.Topics, "orders")
			delete(kr.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: "orders"})
		}, Options{}, []string{"topics/missing-in-kraft topic orders ", "topics/zk-topic-without-id topic orders "}, true},
		{"missing partition state", func(zk, kr *model.Image) { zk.ZK.MissingPartitionStates = []string{"orders-1"} },
			Options{}, []string{"partitions/zk-partition-state-missing partition orders-1 "}, false},
		{"replica on a broker never registered", func(zk, kr *model.Image) {
			zk.Topics["orders"].Partitions[1].Replicas = []int32{2, 7}
			kr.Topics["orders"].Partitions[1].Replicas = []int32{2, 7}
		}, Options{}, []string{"partitions/replica-on-unregistered-broker broker 7 "}, false},
		{"a stopped cluster registers no broker", func(zk, kr *model.Image) { clear(zk.Brokers); clear(kr.Brokers) },
			Options{}, []string{"brokers/no-broker-registered brokers "}, false},
		// An offline migration of brokers that were killed: their
		// registrations stay in ZooKeeper's snapshot, no broker has
		// registered with KRaft yet, and placement is not checked.
		{"offline migration of killed brokers", func(zk, kr *model.Image) {
			offline(zk, kr)
			zk.Topics["orders"].Partitions[1].Replicas = []int32{2, 7}
			kr.Topics["orders"].Partitions[1].Replicas = []int32{2, 7}
		}, Options{}, []string{"brokers/expected-zookeeper-only broker 1 ", "brokers/expected-zookeeper-only broker 2 ", "brokers/no-broker-registered brokers "}, false},
		// In dual-write, a registration on one side only is a difference.
		{"dual-write: a broker registered in KRaft, not in ZooKeeper", func(zk, kr *model.Image) {
			kr.Brokers[3] = &model.Broker{ID: 3, IsMigratingZkBroker: true, Features: []model.FeatureRange{{Name: "metadata.version", Min: 21, Max: 21}}}
		}, Options{}, []string{"brokers/missing-in-zookeeper broker 3 "}, true},
		{"pre-migration: a broker not yet registered in KRaft", func(zk, kr *model.Image) {
			clear(kr.Brokers)
			kr.Migration.State = model.MigrationPreMigration
			zk.Migration = nil
		}, Options{}, []string{"brokers/missing-in-kraft broker 1 ", "brokers/missing-in-kraft broker 2 "}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zk, kr := pair()
			tc.change(zk, kr)
			rep := verifyPair(t, zk, kr, tc.opts)
			got := codes(rep)
			want := slices.Clone(tc.want)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings %q, want %q", got, want)
			}
			if rep.Differ() != tc.differ {
				t.Errorf("Differ() = %v, want %v", rep.Differ(), tc.differ)
			}
		})
	}
}

func TestVerifyPartitionMetadata(t *testing.T) {
	zk, kr := pair()
	rep := verifyPair(t, zk, kr, Options{PartitionMetadata: []PartitionMetadata{
		{Path: "/d/orders-0/partition.metadata", Topic: "orders", Partition: 0, TopicID: model.UUID{1, 2, 3}},
		{Path: "/d/orders-1/partition.metadata", Topic: "orders", Partition: 1, TopicID: model.UUID{4}},
	}})
	if got := codes(rep); !slices.Equal(got, []string{"topics/partition-metadata-topic-id partition orders-1 topicId"}) {
		t.Fatalf("findings %q", got)
	}
	if w := rep.Findings[0].Where; w == nil || w.File != "/d/orders-1/partition.metadata" {
		t.Errorf("location %+v", w)
	}
}

// Secrets never appear in findings: SCRAM credentials and sensitive config
// values are fingerprinted, whatever differs.
func TestVerifyNeverPrintsSecrets(t *testing.T) {
	zk, kr := pair()
	kr.SCRAM[model.ScramKey{User: "alice", Mechanism: 1}].StoredKey = []byte("stolen-key")
	r := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
	zk.Configs[r] = map[string]string{"sasl.jaas.config": "password=hunter2"}
	kr.Configs[r] = map[string]string{"sasl.jaas.config": "password=hunter3"}
	rep := verifyPair(t, zk, kr, Options{})
	b, _ := json.Marshal(rep.Findings)
	for _, s := range []string{"stolen-key", "stored", "salt", "hunter2", "hunter3", "c3RvbGVu"} {
		if strings.Contains(string(b), s) {
			t.Errorf("findings carry secret %q: %s", s, b)
		}
	}
	if len(rep.Findings) != 2 {
		t.Fatalf("findings %q", codes(rep))
	}
	for _, f := range rep.Findings {
		if f.Left == nil || f.Right == nil || *f.Left == *f.Right {
			t.Errorf("%s: want two different fingerprints, got %v %v", f.Entity, f.Left, f.Right)
		}
	}
}

// A side that was redacted (a dump written without --show-secrets) is
// compared by fingerprint, and equal secrets stay equal.
func TestVerifyRedactedSide(t *testing.T) {
	zk, kr := pair()
	r := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
	zk.Configs[r] = map[string]string{"sasl.jaas.config": "x"}
	kr.Configs[r] = map[string]string{"sasl.jaas.config": "x"}
	rep := verifyPair(t, zk.Redacted(), kr, Options{})
	if len(rep.Findings) != 0 {
		t.Fatalf("redacted equal secrets differ: %q", codes(rep))
	}
	kr.Configs[r]["sasl.jaas.config"] = "y"
	kr.SCRAM[model.ScramKey{User: "alice", Mechanism: 1}].ServerKey = []byte("z")
	if got := codes(verifyPair(t, zk.Redacted(), kr, Options{})); len(got) != 2 {
		t.Fatalf("redacted different secrets: %q", got)
	}
}

func TestIgnoreAndOrder(t *testing.T) {
	zk, kr := pair()
	kr.Topics["orders"].Partitions[0].Leader = 2
	kr.Topics["orders"].Partitions[1].Leader = 1
	zk.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}]["retention.ms"] = "2000"
	rep := verifyPair(t, zk, kr, Options{Ignore: []string{ClassRuntime}})
	if got := codes(rep); !slices.Equal(got, []string{"configs/different config TOPIC orders retention.ms"}) {
		t.Fatalf("findings %q", got)
	}
	if !slices.Equal(rep.Ignored, []string{"runtime"}) || rep.IgnoredCounts["runtime"] != 2 {
		t.Errorf("ignored %v %v", rep.Ignored, rep.IgnoredCounts)
	}
	if _, err := Compare(zk, kr, Options{Left: Side{World: model.WorldZooKeeper}, Right: Side{World: model.WorldKRaft}, Ignore: []string{"nope"}}); err == nil {
		t.Error("unknown class accepted")
	}
	// Same inputs, same bytes: map order never shows.
	first, _ := json.Marshal(verifyPair(t, zk, kr, Options{}).Findings)
	for range 20 {
		again, _ := json.Marshal(verifyPair(t, zk, kr, Options{}).Findings)
		if string(again) != string(first) {
			t.Fatalf("nondeterministic:\n%s\n%s", first, again)
		}
	}
}

// Between two views of one world, the codes are added, removed and
// changed, every field is compared (epochs, directories, ELR), and no
// readiness rule applies.
func TestDiffSameWorld(t *testing.T) {
	_, a := pair()
	_, b := pair()
	b.Topics["orders"].Partitions[0].ELR = []int32{2}
	b.Brokers[1].Epoch = 999
	delete(b.Topics["orders"].Partitions, 1)
	b.Topics["new"] = &model.Topic{Name: "new", ID: model.UUID{5}, Partitions: map[int32]*model.Partition{0: {Replicas: []int32{7}}}}
	b.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "new"}] = map[string]string{"x": "y"}
	b.ProducerIDs = nil
	rep, err := Compare(a, b, Options{Left: Side{World: model.WorldKRaft, Name: "before"}, Right: Side{World: model.WorldKRaft, Name: "after"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"brokers/changed broker 1 epoch", "partitions/removed partition orders-1 ",
		"producer-ids/removed producer-ids nextProducerId", "runtime/changed partition orders-0 elr", "topics/added topic new "}
	got := codes(rep)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings %q\nwant %q", got, want)
	}
	for _, f := range rep.Findings {
		if f.Severity != model.SevInfo {
			t.Errorf("%s: severity %s", f.Code, f.Severity)
		}
	}
	if !rep.Differ() {
		t.Error("changes do not make the views differ")
	}
}

// What verify cannot check without the plan or the encoder secret is
// listed as not compared; with them it is compared, and nothing is listed.
func TestVerifyNotCompared(t *testing.T) {
	build := func() (zk, kr *model.Image) {
		zk, kr = pair()
		zk.Topics["orders"].ID = model.UUID{}
		r := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
		zk.Configs[r] = map[string]string{"ssl.key.password": encoded}
		kr.Configs[r] = map[string]string{"ssl.key.password": "hunter2"}
		return zk, kr
	}
	has := func(rep *Report, s string) bool {
		return slices.ContainsFunc(rep.NotComparedWhy, func(n string) bool { return strings.Contains(n, s) })
	}
	zk, kr := build()
	rep := verifyPair(t, zk, kr, Options{})
	if !has(rep, "--plan") || !has(rep, "--password-encoder-secret") || rep.Differ() {
		t.Errorf("without plan and secret: differ %v, not compared %q", rep.Differ(), rep.NotComparedWhy)
	}
	zk, kr = build()
	rep = verifyPair(t, zk, kr, Options{PlanTopicIDs: map[string]model.UUID{"orders": {1, 2, 3}}, PasswordEncoderSecret: "encoder-secret"})
	if has(rep, "--plan") || has(rep, "--password-encoder-secret") || rep.Differ() {
		t.Errorf("with plan and secret: differ %v, not compared %q, findings %q", rep.Differ(), rep.NotComparedWhy, codes(rep))
	}
}

// With the plan, a topic without id in ZooKeeper has its partition.metadata
// checked against the id the plan assigned.
func TestVerifyPartitionMetadataPlan(t *testing.T) {
	zk, kr := pair()
	zk.Topics["orders"].ID = model.UUID{}
	pms := []PartitionMetadata{
		{Path: "/d/orders-0/partition.metadata", Topic: "orders", Partition: 0, TopicID: model.UUID{1, 2, 3}},
		{Path: "/d/orders-1/partition.metadata", Topic: "orders", Partition: 1, TopicID: model.UUID{4}},
	}
	if got := codes(verifyPair(t, zk, kr, Options{PartitionMetadata: pms})); !slices.Equal(got, []string{"topics/expected-assigned-topic-id topic orders id"}) {
		t.Errorf("without plan: %q", got)
	}
	rep := verifyPair(t, zk, kr, Options{PartitionMetadata: pms, PlanTopicIDs: map[string]model.UUID{"orders": {1, 2, 3}}})
	got := codes(rep)
	slices.Sort(got)
	if want := []string{"topics/expected-assigned-topic-id topic orders id", "topics/partition-metadata-topic-id partition orders-1 topicId"}; !slices.Equal(got, want) || !rep.Differ() {
		t.Errorf("with plan: %q (differ %v), want %q", got, rep.Differ(), want)
	}
}

// Between two ZooKeeper views, the state only ZooKeeper holds is compared
// too (class zookeeper): pending deletions, missing partition states,
// legacy reassignments and the old consumer's /consumers znodes.
func TestDiffZooKeeperOnly(t *testing.T) {
	a, _ := pair()
	b, _ := pair()
	a.ZK.Raw = map[string][]byte{"/consumers/g/offsets/orders/0": []byte("41"), "/consumers/g/offsets/orders/1": []byte("7"), "/unrelated": []byte("x")}
	b.ZK.Raw = map[string][]byte{"/consumers/g/offsets/orders/0": []byte("42"), "/consumers/h/offsets/orders/0": []byte("1")}
	b.ZK.PendingTopicDeletions = []string{"orders"}
	b.ZK.MissingPartitionStates = []string{"orders-1"}
	a.ZK.LegacyReassignments = map[string][]int32{"orders-0": {2, 1}}
	rep, err := Compare(a, b, Options{Left: Side{World: model.WorldZooKeeper, Name: "before"}, Right: Side{World: model.WorldZooKeeper, Name: "after"}})
	if err != nil {
		t.Fatal(err)
	}
	got := codes(rep)
	slices.Sort(got)
	want := []string{
		"zookeeper/added partition orders-1 stateZnodeMissing",
		"zookeeper/added topic orders pendingDeletion",
		"zookeeper/added znode /consumers/h/offsets/orders/0 ",
		"zookeeper/changed znode /consumers/g/offsets/orders/0 ",
		"zookeeper/removed partition orders-0 legacyReassignment",
		"zookeeper/removed znode /consumers/g/offsets/orders/1 ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q\nwant %q", got, want)
	}
	if !rep.Differ() {
		t.Error("ZooKeeper-only changes do not make the views differ")
	}
	// The other way round, a partition's state znode written since (the
	// controller elected its first leader): the message says the missing
	// state is gone, never that a state znode was removed.
	back, err := Compare(b, a, Options{Left: Side{World: model.WorldZooKeeper, Name: "before"}, Right: Side{World: model.WorldZooKeeper, Name: "after"}})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, f := range back.Findings {
		if f.Entity == "partition orders-1" {
			l, r := "", ""
			if f.Left != nil {
				l = *f.Left
			}
			if f.Right != nil {
				r = *f.Right
			}
			msgs = append(msgs, f.Code+" "+f.Field+" "+l+"|"+r+": "+f.Message)
		}
	}
	if want := []string{"removed stateZnodeMissing true|: partition orders-1 stateZnodeMissing is in before, not in after"}; !slices.Equal(msgs, want) {
		t.Errorf("state znode written since: %q, want %q", msgs, want)
	}
	// Across worlds there is no such class: Kafka's migration does not
	// carry this state, and migrate plan reports it.
	zk, kr := pair()
	zk.ZK.Raw = a.ZK.Raw
	for _, n := range verifyPair(t, zk, kr, Options{}).Compared {
		if n.Class == ClassZooKeeper {
			t.Error("class zookeeper compared across worlds")
		}
	}
}

// live makes a view of kr as a live cluster's admin API gives it: no
// broker epochs, incarnations or features, no partition epochs, no
// producer-id block or migration state, SCRAM without salts and keys,
// sensitive values not reported; and the view lists what it lacks.
func live(kr *model.Image) *model.Image {
	for _, b := range kr.Brokers {
		b.Epoch, b.IncarnationID, b.Features, b.IsMigratingZkBroker = 0, model.UUID{}, nil, false
		// The one address it was asked through, without the listener's name.
		e := b.Endpoints[0]
		b.Endpoints = []model.Endpoint{{Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol}}
	}
	for _, p := range kr.Topics["orders"].Partitions {
		p.PartitionEpoch = 0
	}
	kr.ProducerIDs, kr.Migration = nil, nil
	for _, c := range kr.SCRAM {
		c.Salt, c.StoredKey, c.ServerKey = nil, nil, nil
	}
	for r, kv := range kr.Configs {
		for k := range kv {
			if model.SensitiveConfig(r.Type, k) {
				kv[k] = model.NotReported
			}
		}
	}
	kr.MarkNotReported(model.FieldBrokerEpoch, model.FieldBrokerIncarnationID, model.FieldBrokerEndpoints, model.FieldBrokerFeatures, model.FieldBrokerMigrating,
		model.FieldPartitionEpoch, model.FieldProducerIDs, model.FieldMigration, model.FieldSCRAMSecrets, model.FieldSensitiveConfigs)
	return kr
}

// TestLiveViewComparesWhatItReports: against a live view, verify and diff
// compare only what both sides report: the fields the view lists are
// left out on both sides and listed, a sensitive value not reported is
// compared by its key's presence, a SCRAM credential without secrets by
// user, mechanism and iterations; everything else is compared as ever.
// The live side is judged as KRaft (a diff with a KRaft log is one world).
func TestLiveViewComparesWhatItReports(t *testing.T) {
	secretKey := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
	build := func() (zk, kr, lv *model.Image) {
		zk, kr = pair()
		_, l := pair()
		for _, img := range []*model.Image{zk, kr, l} {
			img.Configs[secretKey] = map[string]string{"ssl.key.password": "hunter2", "log.cleaner.threads": "2"}
		}
		return zk, kr, live(l)
	}
	diff := func(a, b *model.Image) *Report {
		rep, err := Compare(a, b, Options{Left: Side{World: model.WorldKRaft, Name: "kraft:DIR"}, Right: Side{World: model.WorldKafka, Name: "kafka://b:9092"}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	_, kr, lv := build()
	rep := diff(kr, lv)
	if len(rep.Findings) != 0 || rep.CrossWorld {
		t.Fatalf("a log and its live view: cross %v, findings %q", rep.CrossWorld, codes(rep))
	}
	// The live address is compared (host, port, protocol): one the log
	// does not register is a difference.
	_, kr2, lv2 := build()
	lv2.Brokers[1].Endpoints[0].Port++
	if got := codes(diff(kr2, lv2)); !slices.Equal(got, []string{"brokers/changed broker 1 endpoints"}) {
		t.Errorf("a live address the log does not register: %q", got)
	}
	if want := lv.NotReported; !slices.Equal(rep.NotComparedFields, want) {
		t.Errorf("not compared %q, want %q", rep.NotComparedFields, want)
	}
	if rep.Right.World != model.WorldKafka || rep.Right.Name != "kafka://b:9092" {
		t.Errorf("the live side is reported as %+v", rep.Right)
	}
	joined := strings.Join(rep.NotComparedWhy, "\n")
	if !strings.Contains(joined, "DescribeUserScramCredentials") || !strings.Contains(joined, "DescribeConfigs") {
		t.Errorf("notes %q", rep.NotComparedWhy)
	}

	// What the live view reports is compared: a leader, the iterations,
	// a sensitive key that is gone.
	_, kr, lv = build()
	lv.Topics["orders"].Partitions[0].Leader = 2
	lv.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA256}].Iterations = 8192
	delete(lv.Configs[secretKey], "ssl.key.password")
	got := codes(diff(kr, lv))
	slices.Sort(got)
	want := []string{"configs/removed config BROKER 1 ssl.key.password", "runtime/changed partition orders-0 leader", "scram/changed scram alice SCRAM-SHA-256 iterations"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q\nwant %q", got, want)
	}

	// verify: ZooKeeper against the live cluster is the cross-world
	// comparison, clean on a clean migration.
	zk, _, lv := build()
	vrep, err := Compare(zk, lv, Options{Left: Side{World: model.WorldZooKeeper}, Right: Side{World: model.WorldKafka, Name: "kafka://b:9092"}})
	if err != nil {
		t.Fatal(err)
	}
	if vrep.Differ() || !vrep.CrossWorld {
		t.Errorf("verify against a live view: cross %v, findings %q", vrep.CrossWorld, codes(vrep))
	}
	for _, f := range vrep.Findings {
		if f.Code == CodeMissingInZooKeeper || f.Code == CodeMissingInKRaft {
			t.Errorf("finding %s %s", f.Code, f.Entity)
		}
	}
}

// TestLiveSectionsNotReported: a live view that does not report whole
// sections (a cluster read through its controllers, a principal denied
// the ACLs) leaves those classes out of the comparison on both sides:
// neither a difference nor a readiness finding about brokers it does
// not list, and the classes are not counted as compared.
func TestLiveSectionsNotReported(t *testing.T) {
	zk, kr := pair()
	lv := live(kr)
	clear(lv.Brokers)
	clear(lv.Topics)
	clear(lv.Configs)
	clear(lv.ClientQuotas)
	clear(lv.ACLs)
	clear(lv.SCRAM)
	lv.MarkNotReported(model.FieldBrokers, model.FieldTopics, model.FieldTopicConfigs, model.FieldBrokerConfigs,
		model.FieldClientQuotas, model.FieldACLs, model.FieldSCRAM)
	rep, err := Compare(zk, lv, Options{Left: Side{World: model.WorldZooKeeper}, Right: Side{World: model.WorldKafka, Name: "kafka://c:9093"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 {
		t.Fatalf("findings %q", codes(rep))
	}
	var classes []string
	for _, n := range rep.Compared {
		classes = append(classes, n.Class)
	}
	if want := []string{ClassCluster, ClassTokens, ClassFeatures}; !slices.Equal(classes, want) {
		t.Errorf("compared %q, want %q", classes, want)
	}
	if !slices.Equal(rep.NotComparedFields, lv.NotReported) {
		t.Errorf("not compared %q, want %q", rep.NotComparedFields, lv.NotReported)
	}
	if !slices.ContainsFunc(rep.NotComparedWhy, func(s string) bool { return strings.Contains(s, "replica placement") }) {
		t.Errorf("notes %q", rep.NotComparedWhy)
	}

	// Only the section not reported is left out: a topic missing from a
	// view that reports its topics is still a difference.
	zk, kr = pair()
	lv = live(kr)
	clear(lv.ACLs)
	lv.MarkNotReported(model.FieldACLs)
	delete(lv.Topics, "orders")
	rep, err = Compare(zk, lv, Options{Left: Side{World: model.WorldZooKeeper}, Right: Side{World: model.WorldKafka}})
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(rep); !slices.Contains(got, "topics/"+CodeMissingInKRaft+" topic orders ") || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "acls/") }) {
		t.Errorf("findings %q", got)
	}
}

// TestQuorumVotersCompared: two KRaft views that both hold the quorum's
// voters compare them (directory ids and endpoints where both report
// them); a view without voters (ZooKeeper, a static quorum's log) leaves
// the class out.
func TestQuorumVotersCompared(t *testing.T) {
	ep := model.Endpoint{Name: "CONTROLLER", Host: "c1", Port: 9093}
	withQuorum := func(dir byte) *model.Image {
		_, kr := pair()
		kr.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000, DirectoryID: model.UUID{dir}, Endpoints: []model.Endpoint{ep}}}}
		return kr
	}
	opts := Options{Left: Side{World: model.WorldKRaft, Name: "a"}, Right: Side{World: model.WorldKRaft, Name: "b"}}
	rep, err := Compare(withQuorum(1), withQuorum(1), opts)
	if err != nil || len(rep.Findings) != 0 {
		t.Fatalf("equal voters: %v %q", err, codes(rep))
	}
	rep, _ = Compare(withQuorum(1), withQuorum(2), opts)
	if got := codes(rep); !slices.Equal(got, []string{"quorum/changed voter 3000 directoryID"}) {
		t.Errorf("another directory id: %q", got)
	}
	// A live quorum before DescribeQuorum v2: no directory ids.
	l := withQuorum(2)
	l.MarkNotReported(model.FieldQuorumVoterDirectoryIDs)
	if rep, _ = Compare(withQuorum(1), l, opts); len(rep.Findings) != 0 {
		t.Errorf("directory ids one side does not report: %q", codes(rep))
	}
	// One side without voters: not compared.
	n := withQuorum(1)
	n.Quorum = nil
	if rep, _ = Compare(withQuorum(1), n, opts); len(rep.Findings) != 0 {
		t.Errorf("one side without voters: %q", codes(rep))
	}
}

// The partitions a replica on an unregistered broker is named for are
// listed by topic and partition id (a topic's ids sparse or dense), once
// each when the broker is both a replica and an adding replica, the
// first five then a count.
func TestUnregisteredBrokerPartitionsInOrder(t *testing.T) {
	zk, kr := pair()
	for _, img := range []*model.Image{zk, kr} {
		add := func(name string, id byte, parts ...*model.Partition) {
			tp := &model.Topic{Name: name, ID: model.UUID{id}, Partitions: map[int32]*model.Partition{}}
			for _, p := range parts {
				tp.Partitions[p.ID] = p
			}
			img.Topics[name] = tp
		}
		part := func(id int32, replicas, adding []int32) *model.Partition {
			return &model.Partition{ID: id, Replicas: replicas, AddingReplicas: adding, ISR: []int32{1}, Leader: 1}
		}
		var c []*model.Partition
		for i := int32(9); i >= 0; i-- {
			c = append(c, part(i, []int32{7, 1}, nil))
		}
		add("c", 3, c...)
		add("b", 2, part(3, []int32{1, 7}, nil), part(0, []int32{7}, nil), part(2, []int32{2, 7}, nil), part(1, []int32{1, 2}, nil))
		add("a", 1, part(5, []int32{1, 7}, []int32{7, 8}), part(0, []int32{1, 2}, nil))
	}
	// A topic KRaft lacks is checked too.
	zk.Topics["d"] = &model.Topic{Name: "d", ID: model.UUID{4}, Partitions: map[int32]*model.Partition{
		0: {ID: 0, Replicas: []int32{9}, ISR: []int32{9}, Leader: 9}}}
	want := []string{
		"broker 7: 14 partition(s) have a replica on broker 7, which is registered neither in ZooKeeper nor in KRaft: Kafka's migration waits for it forever (a-5, b-0, b-2, b-3, c-0, … 9 more)",
		"broker 8: 1 partition(s) have a replica on broker 8, which is registered neither in ZooKeeper nor in KRaft: Kafka's migration waits for it forever (a-5)",
		"broker 9: 1 partition(s) have a replica on broker 9, which is registered neither in ZooKeeper nor in KRaft: Kafka's migration waits for it forever (d-0)",
	}
	// ZooKeeper on the left (the compare notes the topics to list) and
	// on the right (readiness walks them all).
	for _, zkLeft := range []bool{true, false} {
		opts := Options{Left: Side{World: model.WorldZooKeeper}, Right: Side{World: model.WorldKRaft}}
		l, r := zk, kr
		if !zkLeft {
			opts.Left, opts.Right, l, r = opts.Right, opts.Left, kr, zk
		}
		rep, err := Compare(l, r, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if f.Code == CodeReplicaOnUnregisteredBroker {
				got = append(got, f.Entity+": "+f.Message)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("ZooKeeper left %v: findings:\n%s\nwant:\n%s", zkLeft, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// Partitions on one side only, and ids that are not 0..n-1 (walked by
// map rather than by id), are each reported once, with their runtime
// state going with them.
func TestPartitionsOneSideAndSparse(t *testing.T) {
	part := func(id int32) *model.Partition {
		return &model.Partition{ID: id, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1, LeaderEpoch: 3, PartitionEpoch: 4}
	}
	for _, c := range []struct {
		name   string
		change func(zk, kr *model.Image)
		want   []string
	}{
		{"only in KRaft", func(zk, kr *model.Image) { kr.Topics["orders"].Partitions[2] = part(2) },
			[]string{"partitions/missing-in-zookeeper partition orders-2 "}},
		{"only in ZooKeeper", func(zk, kr *model.Image) { zk.Topics["orders"].Partitions[2] = part(2) },
			[]string{"partitions/missing-in-kraft partition orders-2 "}},
		{"sparse in KRaft", func(zk, kr *model.Image) { kr.Topics["orders"].Partitions[5] = part(5) },
			[]string{"partitions/missing-in-zookeeper partition orders-5 "}},
		{"sparse in ZooKeeper, and a leader that differs", func(zk, kr *model.Image) {
			zk.Topics["orders"].Partitions[7] = part(7)
			delete(zk.Topics["orders"].Partitions, 0)
			kr.Topics["orders"].Partitions[1].Leader = 1
		}, []string{"partitions/missing-in-zookeeper partition orders-0 ", "partitions/missing-in-kraft partition orders-7 ", "runtime/different partition orders-1 leader"}},
		{"sparse on both sides", func(zk, kr *model.Image) {
			zk.Topics["orders"].Partitions[9] = part(9)
			kr.Topics["orders"].Partitions[9] = part(9)
			kr.Topics["orders"].Partitions[9].Replicas = []int32{2, 1}
		}, []string{"partitions/different partition orders-9 replicas"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			zk, kr := pair()
			c.change(zk, kr)
			got := codes(verifyPair(t, zk, kr, Options{}))
			if !slices.Equal(got, c.want) {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
}

// The partitions shared out between workers (comparePartitions) give the
// findings one walk gives, none lost or doubled in the merge: every
// difference planted in 2,000 topics, with ZooKeeper on either side.
func TestComparePartitionsSharedOut(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(n int) { parallelPartitions = n }(parallelPartitions)
	zk, kr := pair()
	var want []string
	var unplaced []string
	for i := 1; i <= 2000; i++ {
		name := fmt.Sprintf("t%04d", i)
		for _, img := range []*model.Image{zk, kr} {
			tp := &model.Topic{Name: name, ID: model.UUID{byte(i >> 8), byte(i), 1}, Partitions: map[int32]*model.Partition{}}
			for id := range int32(30) {
				tp.Partitions[id] = &model.Partition{ID: id, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1, LeaderEpoch: 3, PartitionEpoch: 4}
			}
			img.Topics[name] = tp
		}
		zp, kp := zk.Topics[name].Partitions, kr.Topics[name].Partitions
		switch {
		case i%97 == 0:
			delete(kp, 29)
			want = append(want, "partitions/missing-in-kraft partition "+name+"-29 ")
		case i%89 == 0:
			kp[0].Leader = 2
			want = append(want, "runtime/different partition "+name+"-0 leader")
		case i%83 == 0:
			zp[1].Replicas = []int32{2, 1}
			want = append(want, "partitions/different partition "+name+"-1 replicas")
		case i%79 == 0:
			zp[40] = &model.Partition{ID: 40, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1}
			want = append(want, "partitions/missing-in-kraft partition "+name+"-40 ")
		case i%71 == 0:
			zp[2].Replicas, kp[2].Replicas = []int32{1, 7}, []int32{1, 7}
			unplaced = append(unplaced, name+"-2")
		}
	}
	want = append(want, "partitions/"+CodeReplicaOnUnregisteredBroker+" broker 7 ")
	slices.Sort(want)
	wantMsg := fmt.Sprintf("%d partition(s) have a replica on broker 7, which is registered neither in ZooKeeper nor in KRaft: Kafka's migration waits for it forever (%s, … %d more)",
		len(unplaced), strings.Join(unplaced[:5], ", "), len(unplaced)-5)
	for _, zkLeft := range []bool{true, false} {
		opts := Options{Left: Side{World: model.WorldZooKeeper}, Right: Side{World: model.WorldKRaft}}
		l, r := zk, kr
		if !zkLeft {
			opts.Left, opts.Right, l, r = opts.Right, opts.Left, kr, zk
		}
		var reports [2][]byte
		for i, threshold := range []int{1 << 40, 1} {
			parallelPartitions = threshold
			rep, err := Compare(l, r, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := codes(rep)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("ZooKeeper left %v, threshold %d: findings\n%s\nwant\n%s", zkLeft, threshold, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, f := range rep.Findings {
				if f.Code == CodeReplicaOnUnregisteredBroker && f.Message != wantMsg {
					t.Errorf("ZooKeeper left %v, threshold %d: %s\nwant %s", zkLeft, threshold, f.Message, wantMsg)
				}
			}
			if reports[i], err = json.Marshal(rep); err != nil {
				t.Fatal(err)
			}
		}
		if string(reports[0]) != string(reports[1]) {
			t.Errorf("ZooKeeper left %v: the shared-out walk's report differs from one walk's", zkLeft)
		}
	}
}
