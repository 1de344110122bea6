package features_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/metalog"
)

// TestFormatCheckpoints replays the snapshots Kafka 4.4.0's format wrote
// (testdata/features/format-4.4.0, recorded by TestRealKafkaFeatures
// -update-kafka) and checks their finalized features against
// BootstrapRecords.
func TestFormatCheckpoints(t *testing.T) {
	for _, rel := range []string{"3.3-IV3", "3.9", "4.0", "4.4"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "features", "format-4.4.0", rel+".checkpoint"))
		if err != nil {
			t.Fatal(err)
		}
		// Give the file the name format gave it.
		dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000-0000000000.checkpoint"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := metalog.LoadImage(dir, metalog.ImageOptions{AtOffset: -1})
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		want, err := features.Default().BootstrapRecords(rel)
		if err != nil {
			t.Fatal(err)
		}
		wantMap := map[string]int16{}
		for _, r := range want {
			wantMap[r.Name] = r.Level
		}
		if fmt.Sprint(res.Image.Features) != fmt.Sprint(wantMap) {
			t.Errorf("%s: replayed features %v, want %v", rel, res.Image.Features, wantMap)
		}
		if v := features.Check(res.Image, features.LatestProduction(), features.CheckOptions{}); !v.Allowed || v.Lossy {
			t.Errorf("%s: upgrade to latest refused: %+v", rel, v.Findings)
		}
	}
}
