package metalog

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestImageSnapshotKafkaReads: Kafka's own DumpLogSegments
// (--cluster-metadata-decoder) reads the snapshot kmeta writes from the
// image of a real 4.4.0 controller's snapshot, and decodes the same
// records from it as from Kafka's: the payload lines of both dumps as
// multisets (Kafka's order within a section is its hash maps'), and the
// same control records (header with KRaftVersion and Voters, footer).
func TestImageSnapshotKafkaReads(t *testing.T) {
	d := kafkatest.Dist(t, "4.4.0")
	snap := "../testdata/kraft/4.4.0/metadata/__cluster_metadata-0/00000000000000000099-0000000001.checkpoint"
	res, err := LoadImage(snap, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	img := res.Image
	cat, _ := features.CatalogForImage(img)
	mv := img.MetadataVersion()
	hdr, err := VotersControlRecords(img.Quorum.Voters)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(snap))
	if _, err := WriteImageSnapshot(out, img, func(k int16) (int16, bool) { return cat.RecordVersion(mv, k) },
		SnapshotOptions{Epoch: 1, HeaderRecords: hdr}); err != nil {
		t.Fatal(err)
	}
	payloads := func(dump string) (data, control []string) {
		for _, ln := range strings.Split(dump, "\n") {
			if _, p, ok := strings.Cut(ln, " payload: "); ok {
				data = append(data, p)
			} else if _, c, ok := strings.Cut(ln, "headerKeys: [] "); ok && !strings.HasPrefix(c, "SnapshotHeader") {
				// The header's lastContainedLogTimestamp is the one field
				// that differs: kmeta writes the replayed image's.
				control = append(control, c)
			}
		}
		slices.Sort(data)
		return data, control
	}
	kafkaDump := d.DumpLog(t, []string{snap})
	kmetaDump := d.DumpLog(t, []string{out})
	if strings.Contains(kmetaDump, "Exception") || strings.Contains(kmetaDump, "Error") {
		t.Fatalf("DumpLogSegments failed on kmeta's snapshot:\n%s", kmetaDump)
	}
	kd, kc := payloads(kafkaDump)
	md, mc := payloads(kmetaDump)
	if len(kd) == 0 {
		t.Fatalf("no payload in Kafka's dump of its own snapshot:\n%s", kafkaDump)
	}
	if !slices.Equal(kd, md) {
		t.Errorf("DumpLogSegments decodes different records:\nkafka's snapshot:\n%s\nkmeta's:\n%s", strings.Join(kd, "\n"), strings.Join(md, "\n"))
	}
	if !slices.Equal(kc, mc) {
		t.Errorf("control records: kafka %q, kmeta %q", kc, mc)
	}
	t.Logf("DumpLogSegments decoded %d data records from kmeta's snapshot, as from Kafka's", len(md))
}
