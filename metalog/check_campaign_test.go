package metalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// Two classes the mutation campaign found accepted silently.
func TestCheckEmptySegmentIsAGap(t *testing.T) {
	src := filepath.Join("..", "testdata", "kraft", "4.4.0", "metadata", "__cluster_metadata-0")
	dir := t.TempDir()
	// Segment 0 emptied, segment 86 kept, no snapshot reaching 86: offsets
	// 0..85 are in no batch and Kafka would read past them.
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src, "00000000000000000086.log"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "00000000000000000086.log"), b, 0o644)
	rep, err := Check(dir, CheckOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Damage()
	if d == nil || d.Code != KindOffsetGap || d.Where.Offset != 86 {
		t.Fatalf("damage %v, want an offset gap at 86; findings %v", d, rep.Findings)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Image.IsPartial() {
		t.Errorf("image of a log missing offsets 0..85 is not marked partial: %v", res.Warnings)
	}
}

func TestCheckBootstrapEpochWarns(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "kraft", "bootstrap", "3.9.2", "*", "metadata", "bootstrap.checkpoint"))
	if len(files) == 0 {
		t.Fatal("no bootstrap fixture")
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	b[15] = 7 // partitionLeaderEpoch of the first batch (not covered by the CRC)
	p := filepath.Join(t.TempDir(), "bootstrap.checkpoint")
	os.WriteFile(p, b, 0o644)
	rep, err := Check(p, CheckOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Code == KindSnapshotEpoch && f.Severity == model.SevWarning {
			return
		}
	}
	t.Fatalf("no epoch warning on a bootstrap batch at epoch 7: %v", rep.Findings)
}
