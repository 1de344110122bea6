package metalog

import (
	"os"
	"path/filepath"
	"testing"
)

// An empty leader-epoch-checkpoint is what Kafka creates when it opens
// the log, before the first election: no entries, not a bad file (a
// live controller's dir holds one while the quorum elects no leader).
func TestEmptyLeaderEpochCheckpoint(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, LeaderEpochFileName)
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	es, err := ReadLeaderEpochCheckpoint(p)
	if err != nil || len(es) != 0 {
		t.Fatalf("empty file: %v, %v", es, err)
	}
	if _, err := ParseLeaderEpochCheckpoint([]byte("0\n")); err == nil {
		t.Error("a version line without a count parsed")
	}
}
