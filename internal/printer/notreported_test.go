package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// Poisons: values put into fields a view says it does not report. A
// printer that shows one of them shows a field the source did not report
// as if it were a value.
const (
	poisonEpoch     = 424242
	poisonPartEpoch = 535353
	poisonPID       = 646464
	poisonReplica   = 7771
	poisonFeature   = "poison.version"
)

var poisonUUID = model.UUID{0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42}

// liveView is a view as kafka:// gives it (brokers' addresses, topics,
// partitions, SCRAM users without secrets), with every field it does not
// report listed in NotReported and set to a poison, and every
// collection it does not report left empty.
func liveView() *model.Image {
	img := model.NewImage()
	img.ClusterID = "live-cluster"
	img.Features["metadata.version"] = 27
	img.MarkNotReported(
		model.FieldBrokerEpoch, model.FieldBrokerIncarnationID, model.FieldBrokerLogDirs, model.FieldBrokerCordonedLogDirs,
		model.FieldBrokerControlledShutdown, model.FieldBrokerMigrating, model.FieldBrokerEndpoints, model.FieldBrokerFenced,
		model.FieldBrokerFeatures, model.FieldPartitionEpoch, model.FieldPartitionLeaderRecovery, model.FieldPartitionDirectories,
		model.FieldPartitionELR, model.FieldPartitionReassignment, model.FieldProducerIDs, model.FieldMigration,
		model.FieldControllers, model.FieldControllerIncarnationID, model.FieldControllerEndpoints, model.FieldControllerFeatures,
		model.FieldControllerZkMigrationReady, model.FieldDelegationTokens, model.FieldSCRAMSecrets, model.FieldACLs,
		model.FieldClientQuotas, model.FieldQuorumVoterDirectoryIDs, model.FieldQuorumVoterEndpoints)
	img.Brokers[1] = &model.Broker{ID: 1, Epoch: poisonEpoch, IncarnationID: poisonUUID,
		Endpoints: []model.Endpoint{{Host: "127.0.0.1", Port: 28001, SecurityProtocol: 3}},
		Features:  []model.FeatureRange{{Name: poisonFeature, Min: 1, Max: 1}},
		Fenced:    true, InControlledShutdown: true, IsMigratingZkBroker: true,
		LogDirs: []model.UUID{poisonUUID}, CordonedLogDirs: []model.UUID{poisonUUID}}
	img.Topics["orders"] = &model.Topic{Name: "orders", ID: model.UUID{0x10}, Partitions: map[int32]*model.Partition{
		0: {ID: 0, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, LeaderEpoch: 3, PartitionEpoch: poisonPartEpoch,
			ELR: []int32{poisonReplica}, LastKnownELR: []int32{poisonReplica}, AddingReplicas: []int32{poisonReplica},
			RemovingReplicas: []int32{poisonReplica}, LeaderRecoveryState: model.Recovering, Directories: []model.UUID{poisonUUID}},
	}}
	img.SCRAM[model.ScramKey{User: "admin", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "admin", Mechanism: model.ScramSHA512,
		Iterations: 4096, Salt: []byte("poison-salt"), StoredKey: []byte("poison-stored"), ServerKey: []byte("poison-server")}
	img.SCRAM[model.ScramKey{User: "app", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "app", Mechanism: model.ScramSHA512, Iterations: 4096}
	img.ProducerIDs = &model.ProducerIDs{NextProducerID: poisonPID, BrokerID: 1, BrokerEpoch: poisonEpoch}
	img.Migration = &model.Migration{HasState: true, State: model.MigrationPostMigration}
	img.Quorum = &model.Quorum{LeaderID: 3000, LeaderEpoch: 4, KRaftVersion: 1,
		Voters: []model.Voter{{ID: 3000, DirectoryID: poisonUUID, Endpoints: []model.Endpoint{{Name: "POISON", Host: "poison.example", Port: 1}}}}}
	img.Provenance = model.Provenance{Source: "kafka://127.0.0.1:28001", Offset: 99, Epoch: -1}
	return img
}

// poisons are what must not appear in any printout of liveView.
func poisons() []string {
	return []string{"424242", "535353", "646464", "7771", poisonFeature, poisonUUID.String(), "POST_MIGRATION",
		"poison", "in-controlled-shutdown ", "in-controlled-shutdown\n", "migrating-zk-broker ", "migrating-zk-broker\n", "RECOVERING", "sha256:",
		"controllers: none", "delegation tokens: none", "producer ids: none", "migration: none", "acls: none", "client quotas: none",
		"complete", "(SASL_SSL)"}
}

// TestNotReportedNeverAValue: every text, table and html printer over a
// live view prints a field the view lists in NotReported as not
// reported, never as a value (the zero value a reader left, or anything
// else), and a collection the source does not report as not reported,
// never as none.
func TestNotReportedNeverAValue(t *testing.T) {
	for _, f := range []Format{Text, Table, HTML} {
		t.Run(string(f), func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteImage(&b, f, liveView(), ImageOptions{}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, p := range poisons() {
				if strings.Contains(out, p) {
					i := strings.Index(out, p)
					t.Errorf("%s printed %q, a field the view does not report, as a value: ...%s...", f, p, out[max(0, i-80):min(len(out), i+80)])
				}
			}
			want := []string{"not-reported"}
			switch f {
			case Text:
				want = []string{"epoch=not-reported", "incarnation=not-reported", "fenced=not-reported", "in-controlled-shutdown=not-reported",
					"partitionEpoch=not-reported", "controllers: not-reported", "delegation tokens: not-reported", "producer ids: not-reported",
					"migration: not-reported", "acls: not-reported", "client quotas: not-reported", "secret=not-reported",
					"endpoints: SASL_SSL://127.0.0.1:28001 (other listeners not reported)", "directory=not-reported endpoints=not-reported"}
			case HTML:
				want = []string{"not reported", "as the source reports it"}
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%s does not say %q:\n%s", f, w, out)
				}
			}
		})
	}
}
