package records

import (
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestDefinitionsMatchKafkaSchemas checks records.def field by field and
// version by version against the schemas packed in the jars of every Kafka
// release the harness knows (kafkatest.Versions: 3.9.2 and 4.4.0), so the
// check needs nothing outside the repository but the harness's cache.
//
// The newest release (kafkatest.Latest4), which the definitions follow, is
// checked exactly: the same valid versions, and a schema for every
// definition. An older release is checked for what it defines: each of its
// schemas must have a definition, every version it knows must have the same
// wire shape here, and its valid versions may only end lower. What only a
// newer release defines (4.4's ClearElrRecord, UnregisterControllerRecord,
// RegisterBrokerRecord v4, …) is checked against that release alone.
func TestDefinitionsMatchKafkaSchemas(t *testing.T) {
	defs := loadDefs(t)
	for _, v := range kafkatest.Versions {
		t.Run(v, func(t *testing.T) {
			checkSchemaSet(t, defs, kafkaSchemas(t, v), v == kafkatest.Latest4)
		})
	}
}

// kafkaSchemas returns release version's schemas of what a metadata log and
// its directory hold: every metadata record, the control records, and
// QuorumStateData.
func kafkaSchemas(t *testing.T, version string) []kafkatest.Schema {
	t.Helper()
	d := kafkatest.Dist(t, version)
	var out []kafkatest.Schema
	for _, src := range [][2]string{
		{kafkatest.MetadataJar, kafkatest.MetadataSchemaDir},
		{kafkatest.RaftJar, kafkatest.MessageSchemaDir},
		{kafkatest.ClientsJar, kafkatest.MessageSchemaDir},
	} {
		ss, err := d.Schemas(src[0], src[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			// kafka-clients holds every request and response too.
			if src[0] == kafkatest.ClientsJar && controlTypes[s.Name] == 0 {
				continue
			}
			out = append(out, s)
		}
	}
	// Every release the harness knows has every control record; one
	// missing would otherwise go unchecked for an older release.
	found := map[string]bool{}
	for _, s := range out {
		found[s.Name] = true
	}
	for name := range controlTypes {
		if !found[name] {
			t.Errorf("Kafka %s: no schema of control record %s in %s", version, name, kafkatest.ClientsJar)
		}
	}
	t.Logf("Kafka %s: %d schema files", version, len(out))
	return out
}
