package printer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func strp(s string) *string { return &s }

// testImage is a hand-built image exercising every section: kmeta's own
// output format is what the goldens pin, so no Kafka output is involved.
func testImage() *model.Image {
	img := model.NewImage()
	img.ClusterID = "MkU3OEVBNTcwNTJENDM2Qk"
	img.Features["metadata.version"] = 21
	img.Features["group.version"] = 1
	img.Features["transaction.version"] = 2
	plain := model.Endpoint{Name: "PLAINTEXT", Host: "broker1.example.com", Port: 9092, SecurityProtocol: 0}
	sasl := model.Endpoint{Name: "SASL_SSL", Host: "::1", Port: 9094, SecurityProtocol: 3}
	img.Brokers[2] = &model.Broker{ID: 2, Epoch: 12, IncarnationID: model.UUID{2}, Endpoints: []model.Endpoint{plain},
		Rack: nil, Fenced: true, LogDirs: []model.UUID{{0xaa}}}
	img.Brokers[1] = &model.Broker{ID: 1, Epoch: 10, IncarnationID: model.UUID{1}, Endpoints: []model.Endpoint{plain, sasl},
		Features: []model.FeatureRange{{Name: "metadata.version", Min: 7, Max: 21}, {Name: "group.version", Min: 0, Max: 1}},
		Rack:     strp("rack-a"), InControlledShutdown: true, IsMigratingZkBroker: true}
	img.Controllers[3000] = &model.Controller{ID: 3000, IncarnationID: model.UUID{3}, ZkMigrationReady: true,
		Endpoints: []model.Endpoint{{Name: "CONTROLLER", Host: "localhost", Port: 9093}},
		Features:  []model.FeatureRange{{Name: "kraft.version", Min: 0, Max: 1}}}
	img.Topics["orders"] = &model.Topic{Name: "orders", ID: model.UUID{0x10, 0x20}, Partitions: map[int32]*model.Partition{
		1: {ID: 1, Replicas: []int32{2, 1, 3}, ISR: []int32{2, 1}, ELR: []int32{}, LastKnownELR: []int32{3},
			Leader: 2, LeaderEpoch: 5, PartitionEpoch: 9,
			Directories: []model.UUID{model.DirUnassigned, model.DirMigrating, model.DirLost}},
		0: {ID: 0, Replicas: []int32{1, 2, 4}, ISR: []int32{1, 2}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{3},
			Leader: 1, LeaderEpoch: 3, PartitionEpoch: 7},
	}}
	img.Topics["__consumer_offsets"] = &model.Topic{Name: "__consumer_offsets", ID: model.UUID{0x30},
		Partitions: map[int32]*model.Partition{0: {ID: 0, Replicas: []int32{1}, ISR: []int32{}, Leader: model.NoLeader,
			LeaderRecoveryState: model.Recovering, LeaderEpoch: 1, PartitionEpoch: 2}}}
	img.Topics["empty"] = &model.Topic{Name: "empty", ID: model.UUID{}, Partitions: map[int32]*model.Partition{}}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: ""}] = map[string]string{
		"log.retention.hours": "168",
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required;",
	}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{
		"ssl.keystore.password": "hunter2", "ssl.truststore.password": "hunter2", "ssl.keystore.location": "/etc/ks.jks"}
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{
		"cleanup.policy": "compact", "min.insync.replicas": "2", "message.format": "tab\there"}
	img.ClientQuotas["a"] = &model.ClientQuota{Entity: []model.QuotaEntityPart{{Type: "user", Name: strp("alice")}, {Type: "client-id", Name: nil}},
		Values: map[string]float64{"producer_byte_rate": 1048576, "request_percentage": 12.5}}
	img.ClientQuotas["b"] = &model.ClientQuota{Entity: []model.QuotaEntityPart{{Type: "user", Name: nil}},
		Values: map[string]float64{"consumer_byte_rate": 2e6}}
	img.ClientQuotas["c"] = &model.ClientQuota{Entity: []model.QuotaEntityPart{{Type: "ip", Name: strp("10.0.0.1")}},
		Values: map[string]float64{"connection_creation_rate": 10}}
	img.ACLs[model.UUID{9}] = &model.ACL{ID: model.UUID{9}, ResourceType: 2, ResourceName: "orders", PatternType: 3,
		Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3}
	img.ACLs[model.UUID{8}] = &model.ACL{ID: model.UUID{8}, ResourceType: 3, ResourceName: "app-", PatternType: 4,
		Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3}
	img.ACLs[model.UUID{7}] = &model.ACL{ID: model.UUID{7}, ResourceType: 4, ResourceName: "kafka-cluster", PatternType: 3,
		Principal: "User:mallory", Host: "10.0.0.66", Operation: 2, PermissionType: 2}
	img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "alice",
		Mechanism: model.ScramSHA512, Salt: []byte("salt-a"), StoredKey: []byte("stored-a"), ServerKey: []byte("server-a"), Iterations: 8192}
	img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA256}] = &model.ScramCredential{User: "alice",
		Mechanism: model.ScramSHA256, Salt: []byte("salt-a"), StoredKey: []byte("stored-a"), ServerKey: []byte("server-a"), Iterations: 4096}
	img.SCRAM[model.ScramKey{User: "bob", Mechanism: model.ScramSHA256}] = &model.ScramCredential{User: "bob",
		Mechanism: model.ScramSHA256, Salt: []byte("salt-b"), StoredKey: []byte("stored-b"), ServerKey: []byte("server-b"), Iterations: 4096}
	img.DelegationTokens["tok-1"] = &model.DelegationToken{TokenID: "tok-1", Owner: "User:alice", Requester: "User:alice",
		Renewers: []string{"User:bob", "User:carol"}, IssueTimestamp: 1700000000000, MaxTimestamp: 1700604800000,
		ExpirationTimestamp: 1700086400000}
	img.ProducerIDs = &model.ProducerIDs{NextProducerID: 7000, BrokerID: 1, BrokerEpoch: -1}
	img.Migration = &model.Migration{HasState: true, State: model.MigrationMigration, HasZNode: true,
		KRaftControllerID: 3000, KRaftControllerEpoch: 1, KRaftMetadataOffset: 1234, KRaftMetadataEpoch: 2, ZNodeVersion: 5}
	img.Quorum = &model.Quorum{LeaderID: 3000, LeaderEpoch: 2, KRaftVersion: 1, Voters: []model.Voter{
		{ID: 3000, DirectoryID: model.UUID{0x55}, Endpoints: []model.Endpoint{{Name: "CONTROLLER", Host: "localhost", Port: 9093}}}}}
	img.ZK = &model.ZKState{ControllerID: 1, ControllerEpoch: 4, KRaftControllerEpoch: 1, MaxZxid: 0x300000042,
		PendingTopicDeletions: []string{"zz-old", "aa-old"}, Raw: map[string][]byte{"/custom/b": []byte("{}"), "/custom/a": {0xff}},
		Chroot: "/kafka", ControllerEpochZkVersion: 3, MaxStateControllerEpoch: 4, BrokerSequenceID: 2, FeatureStatus: 1,
		MissingPartitionStates: []string{"orders-2"}, LegacyReassignments: map[string][]int32{"orders-0": {1, 2, 4}},
		PreferredReplicaElections: []string{"orders-1"}, Notifications: map[string]int32{"isr_change": 3, "config_change": 1},
		Warnings: []string{"snapshot.2 unreadable, used snapshot.1"}}
	img.Provenance = model.Provenance{Source: "kraft:/var/lib/kafka/meta", Offset: 1300, Epoch: 2,
		Timestamp: time.Date(2025, 3, 4, 5, 6, 7, 8_000_000, time.UTC)}
	return img
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

func TestWriteImageGolden(t *testing.T) {
	for _, tt := range []struct {
		golden string
		format Format
		opt    ImageOptions
	}{
		{"image.txt", Text, ImageOptions{}},
		{"image.table.txt", Table, ImageOptions{}},
		{"image.json", JSON, ImageOptions{}},
		{"image.secrets.txt", Text, ImageOptions{ShowSecrets: true}},
		{"image.secrets.json", JSON, ImageOptions{ShowSecrets: true}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			img := testImage()
			before := img.Clone()
			var buf bytes.Buffer
			if err := WriteImage(&buf, tt.format, img, tt.opt); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, buf.Bytes())
			if diff := cmp.Diff(before, img); diff != "" {
				t.Errorf("printing modified the image:\n%s", diff)
			}
			// Printing is deterministic (maps are iterated in random order).
			for range 5 {
				var again bytes.Buffer
				if err := WriteImage(&again, tt.format, testImage(), tt.opt); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), again.Bytes()) {
					t.Fatal("output differs between runs")
				}
			}
		})
	}
}

// TestWriteImageRedacts checks the property behind the goldens: without
// ShowSecrets no secret byte string reaches the output in any format.
func TestWriteImageRedacts(t *testing.T) {
	secrets := []string{"hunter2", "ScramLoginModule", "salt-a", "stored-a", "server-a",
		// base64 and hex forms, as JSON and text would print them
		"c2FsdC1h", "73616c742d61"}
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := WriteImage(&buf, f, testImage(), ImageOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(buf.String(), s) {
				t.Errorf("%s output contains secret %q", f, s)
			}
		}
		// Equal secrets stay visibly equal: both brokers' passwords and
		// alice's two credentials share a hash.
		want := model.RedactedValue("hunter2")
		if f != JSON && strings.Count(buf.String(), want) != 2 {
			t.Errorf("%s: %s appears %d times, want 2", f, want, strings.Count(buf.String(), want))
		}
	}
	var buf bytes.Buffer
	if err := WriteImage(&buf, JSON, testImage(), ImageOptions{ShowSecrets: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "hunter2") || !strings.Contains(buf.String(), `"salt": "c2FsdC1h"`) {
		t.Error("ShowSecrets output lacks the secrets")
	}
}

// TestWriteImageSecretsOneEncoding: with ShowSecrets, SCRAM salts and
// keys are standard base64 (Kafka's encoding) in every format, never hex.
func TestWriteImageSecretsOneEncoding(t *testing.T) {
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := WriteImage(&buf, f, testImage(), ImageOptions{ShowSecrets: true}); err != nil {
			t.Fatal(err)
		}
		// "salt-a", "stored-a", "server-a"
		for _, want := range []string{"c2FsdC1h", "c3RvcmVkLWE=", "c2VydmVyLWE="} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%s: lacks %q (base64)", f, want)
			}
		}
		for _, hex := range []string{"73616c742d61", "73746f7265642d61"} {
			if strings.Contains(buf.String(), hex) {
				t.Errorf("%s: holds %q (hex)", f, hex)
			}
		}
	}
}

func TestWriteImageJSONIsTheModelDocument(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteImage(&buf, JSON, testImage(), ImageOptions{ShowSecrets: true}); err != nil {
		t.Fatal(err)
	}
	direct, err := testImage().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(compact.Bytes(), direct) {
		t.Error("printer JSON differs from (*model.Image).MarshalJSON")
	}
}

func TestWriteImageErrors(t *testing.T) {
	if err := WriteImage(&bytes.Buffer{}, JSON, nil, ImageOptions{}); err == nil {
		t.Error("nil image: no error")
	}
	if err := WriteImage(&bytes.Buffer{}, Format("xml"), model.NewImage(), ImageOptions{}); err == nil {
		t.Error("unknown format: no error")
	}
	var buf bytes.Buffer
	if err := WriteImage(&buf, Text, &model.Image{}, ImageOptions{}); err != nil {
		t.Fatalf("zero image: %v", err)
	}
}
