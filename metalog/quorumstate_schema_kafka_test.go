package metalog

import (
	"slices"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestQuorumStateMatchesSchema checks the quorum-state reader against
// the QuorumStateData schema in the kafka-raft jar of every Kafka release
// the harness knows (3.9.2 and 4.4.0): every field the schema defines is
// read under Kafka's JSON name (lowerCamelCase), nested voter fields too,
// plus the data_version Kafka's file store adds. The reader serves every
// release, so every release's fields must be read.
func TestQuorumStateMatchesSchema(t *testing.T) {
	for _, v := range kafkatest.Versions {
		t.Run(v, func(t *testing.T) {
			ss, err := kafkatest.Dist(t, v).Schemas(kafkatest.RaftJar, kafkatest.MessageSchemaDir)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ss, func(s kafkatest.Schema) bool { return s.Name == "QuorumStateData" })
			if i < 0 {
				t.Fatalf("Kafka %s: no QuorumStateData schema in %s", v, kafkatest.RaftJar)
			}
			checkQuorumStateSchema(t, ss[i].JSON)
		})
	}
}
