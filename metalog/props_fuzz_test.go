package metalog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSmallFiles: the small files of a metadata log dir (meta.properties,
// quorum-state, leader-epoch-checkpoint, partition.metadata) parse
// without a panic whatever their bytes, seeded with the real files of the
// committed Kafka 3.9.2 and 4.4.0 dirs; meta.properties and quorum-state
// refuse with a *PropsError, which names where the parse stopped.
func FuzzSmallFiles(f *testing.F) {
	for _, v := range []string{"3.9.2", "4.4.0"} {
		dir := filepath.Join("..", "testdata", "kraft", v, "metadata")
		for _, name := range []string{"meta.properties", "__cluster_metadata-0/quorum-state", "__cluster_metadata-0/leader-epoch-checkpoint", "__cluster_metadata-0/partition.metadata"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var pe *PropsError
		if _, err := ParseMetaProperties(data); err != nil && !errors.As(err, &pe) {
			t.Fatalf("meta.properties: %T %v", err, err)
		}
		if _, err := ParseQuorumState(data); err != nil && !errors.As(err, &pe) {
			t.Fatalf("quorum-state: %T %v", err, err)
		}
		ParseLeaderEpochCheckpoint(data)
		ParsePartitionMetadata(data)
	})
}
