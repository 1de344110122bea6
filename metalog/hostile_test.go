package metalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/model"
)

// Issue 29's wrong answers from the log's side: damage that read as a
// healthy (or empty) log. Each case fails on the code before the issue.

const fixture44 = "../testdata/kraft/4.4.0/metadata"

// seg86 is the 4.4.0 fixture's active segment (offsets 86-193).
var seg86 = filepath.Join(MetadataPartitionDir, "00000000000000000086.log")

// TestNoMetadataLogIsDamage: __cluster_metadata-0 as a symlink loop, a
// dangling symlink, a plain file or an empty dir is one error finding
// naming it, never an empty healthy log.
func TestNoMetadataLogIsDamage(t *testing.T) {
	cases := []struct {
		name string
		make func(pd string) error
		want string
	}{
		{"symlink loop", func(pd string) error { return os.Symlink(MetadataPartitionDir, pd) }, "a symlink loop (to __cluster_metadata-0)"},
		{"dangling symlink", func(pd string) error { return os.Symlink("/nonexistent-kmeta", pd) }, "a dangling symlink (to /nonexistent-kmeta)"},
		{"plain file", func(pd string) error { return os.WriteFile(pd, []byte("x"), 0o644) }, "a regular file, not a directory"},
		{"empty dir", func(pd string) error { return os.Mkdir(pd, 0o755) }, "the partition dir holds no segment and no snapshot"},
		{"dir with only quorum-state", func(pd string) error {
			if err := os.Mkdir(pd, 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(pd, QuorumStateFileName), []byte(`{"leaderId":1,"leaderEpoch":3,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`), 0o644)
		}, "the partition dir holds no segment and no snapshot"},
		// Neither Kafka 3.x's format (bootstrap.checkpoint) nor 4.x's
		// (__cluster_metadata-0 with the bootstrap snapshot) leaves a dir
		// with neither.
		{"absent, no bootstrap.checkpoint", func(pd string) error { return nil },
			"absent, with no bootstrap.checkpoint either (kafka-storage format writes bootstrap.checkpoint in 3.x, this dir with the bootstrap snapshot in 4.x): not a formatted dir Kafka has yet to start on"},
		// A broker's LogManager left its checkpoints: Kafka ran here.
		{"absent, Kafka ran here", func(pd string) error {
			root := filepath.Dir(pd)
			if err := WriteSnapshotFile(filepath.Join(root, BootstrapFileName), [][]byte{workedValue(t)}, SnapshotOptions{Timestamp: 1}); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(root, "recovery-point-offset-checkpoint"), []byte("0\n0\n"), 0o644)
		}, "absent, although recovery-point-offset-checkpoint says Kafka has run on this dir (kafka-storage format does not write it)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			must(t, os.WriteFile(filepath.Join(root, MetaPropertiesFileName), []byte("node.id=1\nversion=1\ncluster.id=J8s9MEWSTUWdc7DjnB6J8g\n"), 0o644))
			pd := filepath.Join(root, MetadataPartitionDir)
			must(t, tc.make(pd))
			rep, err := Check(root, CheckOptions{Strict: true})
			must(t, err)
			if got := strings.Join(kinds(rep), ","); got != "error:"+KindNoMetadataLog || rep.OK() {
				t.Fatalf("findings %s\n%s", got, dumpFindings(rep))
			}
			f := rep.Findings[0]
			if f.Where.File != pd || f.Message != "metalog: no metadata log: "+tc.want+" (Kafka creates it with its first segment)" && f.Message != "metalog: no metadata log: "+tc.want {
				t.Fatalf("finding %s at %s, want %q about %s", f.Message, f.Where.File, tc.want, pd)
			}
			res, err := LoadImage(root, ImageOptions{AtOffset: -1})
			must(t, err)
			if !res.Image.IsPartial() {
				t.Fatalf("image from %s is not partial: %+v", tc.name, res.Warnings)
			}
		})
	}
	// A formatted dir Kafka has not started on yet holds no partition dir
	// at all: that is no damage.
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, MetaPropertiesFileName), []byte("node.id=1\nversion=1\ncluster.id=J8s9MEWSTUWdc7DjnB6J8g\n"), 0o644))
	must(t, WriteSnapshotFile(filepath.Join(root, BootstrapFileName), [][]byte{workedValue(t)}, SnapshotOptions{Timestamp: 1}))
	if rep, err := Check(root, CheckOptions{Strict: true}); err != nil || len(rep.Findings) != 0 {
		t.Fatalf("formatted dir: %v %s", err, dumpFindings(rep))
	}
}

// TestDamagedLengthIsNotATornTail: one flipped byte in the length of the
// active segment's first batch (outside the CRC) makes the length run
// past the end with 7 KB of whole batches behind it. That is corruption
// at the batch's position, and the clean prefix ends before it.
func TestDamagedLengthIsNotATornTail(t *testing.T) {
	dir := fstree.Copy(t, fixture44)
	seg := filepath.Join(dir, seg86)
	b, err := os.ReadFile(seg)
	must(t, err)
	b[10] ^= 0x40 // batchLength of batch 86-86 grows by 16 KiB
	must(t, os.WriteFile(seg, b, 0o644))
	rep, err := Check(dir, CheckOptions{Strict: true})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "error:bad-length" {
		t.Fatalf("findings %s\n%s", got, dumpFindings(rep))
	}
	f := rep.Findings[0]
	if f.Where.File != seg || f.Where.Position != 0 || f.Where.Offset != 86 || !strings.Contains(f.Message, "a whole batch at offset 87 starts at position 92") {
		t.Fatalf("finding %+v %s", f.Where, f.Message)
	}
	// The snapshot at 99 still covers what the damage hides; nothing of
	// the damaged segment is good.
	if rep.LastGoodOffset != 98 || rep.Files[len(rep.Files)-1].Path != seg || rep.Files[len(rep.Files)-1].LastGoodOffset != -1 {
		t.Fatalf("last good offset %d, files %+v", rep.LastGoodOffset, rep.Files)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	must(t, err)
	if res.Damage == nil || res.Damage.Code != KindBadLength || !res.Image.IsPartial() {
		t.Fatalf("image: damage %+v", res.Damage)
	}

	// The same file cut inside its last batch is a torn tail still.
	torn := fstree.Copy(t, fixture44)
	seg = filepath.Join(torn, seg86)
	st, err := os.Stat(seg)
	must(t, err)
	must(t, os.Truncate(seg, st.Size()-10))
	rep, err = Check(torn, CheckOptions{Strict: true})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "warning:torn-tail" {
		t.Fatalf("torn: findings %s\n%s", got, dumpFindings(rep))
	}
}

// TestRaisedEpochWithoutLeaderChange: the last batch's epoch set to 999
// (outside the CRC, no LeaderChange at 999) is damage at that batch, and
// replay stops before it.
func TestRaisedEpochWithoutLeaderChange(t *testing.T) {
	dir := fstree.Copy(t, fixture44)
	seg := filepath.Join(dir, seg86)
	sp := batchSpans(t, seg)
	last := sp[len(sp)-1]
	b, err := os.ReadFile(seg)
	must(t, err)
	binary.BigEndian.PutUint32(b[last.pos+12:], 999)
	must(t, os.WriteFile(seg, b, 0o644))
	rep, err := Check(dir, CheckOptions{})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "error:"+KindEpochNoLeaderChange {
		t.Fatalf("findings %s\n%s", got, dumpFindings(rep))
	}
	if f := rep.Findings[0]; f.Where.File != seg || f.Where.Position != last.pos || f.Where.Offset != 193 {
		t.Fatalf("finding %+v", f.Where)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	must(t, err)
	if res.EndOffset != 193 || res.LastEpoch != 1 || !res.Image.IsPartial() {
		t.Fatalf("replay end %d epoch %d partial %v", res.EndOffset, res.LastEpoch, res.Image.IsPartial())
	}
}

// TestGarbageSmallFiles: meta.properties that holds none of Kafka's keys,
// and quorum-state with a negative leader epoch, are errors (problems of
// the dir), not a dir without ids or a warning.
func TestGarbageSmallFiles(t *testing.T) {
	// Kafka's readers take both (TestPropsMatchKafkaReaders): the parse
	// succeeds, and the damage is said apart.
	for _, data := range [][]byte{
		{0x9c, 0x00, 0x41, 0xff, 0x13, 0x37, '\n', 0x80, 0x01},
		[]byte("this is not\na properties file = at all\n"),
		{},
	} {
		mp, err := ParseMetaProperties(data)
		if err != nil || mp.Damage == nil || !errors.Is(mp.Damage, ErrProperties) || !strings.Contains(mp.Damage.Error(), "not a meta.properties Kafka wrote") {
			t.Errorf("meta.properties %q: %v, damage %v", data, err, mp.Damage)
		}
	}
	dir := fstree.Copy(t, fixture44)
	must(t, os.WriteFile(filepath.Join(dir, MetaPropertiesFileName), []byte{0x9c, 0x00, 0x41, 0xff, '=', 0x13, '\n'}, 0o644))
	rep, err := Check(dir, CheckOptions{})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "error:bad-properties" {
		t.Fatalf("garbage meta.properties: %s\n%s", got, dumpFindings(rep))
	}

	qs, err := ParseQuorumState([]byte(`{"leaderId":3000,"leaderEpoch":-5,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`))
	var pe *PropsError
	if err != nil || !errors.As(qs.Damage, &pe) || pe.Position != 31 || !strings.Contains(qs.Damage.Error(), "leaderEpoch -5 is negative") {
		t.Fatalf("negative epoch: %v, damage %v", err, qs.Damage)
	}
	dir = fstree.Copy(t, fixture44)
	qsPath := filepath.Join(dir, MetadataPartitionDir, QuorumStateFileName)
	b, err := os.ReadFile(qsPath)
	must(t, err)
	must(t, os.WriteFile(qsPath, []byte(strings.Replace(string(b), `"leaderEpoch":1`, `"leaderEpoch":-5`, 1)), 0o644))
	rep, err = Check(dir, CheckOptions{})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "error:bad-properties" || rep.OK() {
		t.Fatalf("negative epoch: %s\n%s", got, dumpFindings(rep))
	}
}

// TestDamagedFileReplayUsesIsPartial: the 3.9.2 fixture's second segment
// (offsets 87-168) renamed to ...100.log. Its segment-base-mismatch sits on
// its first batch (87-89), below the snapshot's end (90) where replay
// starts, but replay would take 90-168 from that very file: replay stops
// before offset 90 and the image is partial. It used to say the damage
// was below where replay starts and the image did not rest on it, exit 0.
func TestDamagedFileReplayUsesIsPartial(t *testing.T) {
	dir := fstree.Copy(t, "../testdata/kraft/3.9.2/metadata")
	pd := filepath.Join(dir, MetadataPartitionDir)
	renamed := filepath.Join(pd, SegmentFileName(100))
	must(t, os.Rename(filepath.Join(pd, SegmentFileName(87)), renamed))
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	must(t, err)
	var got []string
	for _, w := range res.Warnings {
		got = append(got, fmt.Sprintf("%s %s %s", w.Code, w.Where, w.Message))
	}
	want := []string{fmt.Sprintf("replay-stopped %s replay stopped before this batch: its file is damaged below offset 90, where replay starts (segment-base-mismatch at offset 87: first batch at offset 87, file name says 100), and Kafka's log loading does not trust the file from the damage on; this and later records are not in the image",
		model.At(renamed, 227, 90))}
	if !slices.Equal(got, want) || !res.Image.IsPartial() || res.StoppedAt != 90 || res.Image.Provenance.Offset != 89 {
		t.Fatalf("warnings\n%s\nwant\n%s\npartial %v, stopped at %d, image at offset %d", strings.Join(got, "\n"), strings.Join(want, "\n"), res.Image.IsPartial(), res.StoppedAt, res.Image.Provenance.Offset)
	}
}
