package metalog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// loadBothWays replays path with every file read in line and again with
// every file read ahead (readAhead), and fails unless the two results are
// the same in everything: image, counts, warnings, damage, offsets.
func loadBothWays(t *testing.T, path string, opts ImageOptions) *ImageResult {
	t.Helper()
	old := ParallelMinFileSize
	defer func() { ParallelMinFileSize = old }()
	ParallelMinFileSize = math.MaxInt64
	in, errIn := LoadImage(path, opts)
	ParallelMinFileSize = 0
	ahead, errAhead := LoadImage(path, opts)
	if fmt.Sprint(errIn) != fmt.Sprint(errAhead) {
		t.Fatalf("%s at %d: error in line %v, read ahead %v", path, opts.AtOffset, errIn, errAhead)
	}
	if !reflect.DeepEqual(in, ahead) {
		d := ""
		if in != nil && ahead != nil {
			d = cmp.Diff(in, ahead, cmpopts.EquateEmpty())
		}
		t.Fatalf("%s at %d: read ahead, replay differs (-in line +ahead):\n%s", path, opts.AtOffset, d)
	}
	return in
}

// TestReadAheadMatchesInline: reading a file ahead of replay (large files)
// changes nothing replay says, on the real-Kafka fixtures, compressed
// logs, at offsets inside the log, and on a synthesized segment damaged in
// the ways log check tells apart (CRC mismatches, bad records with good
// CRCs, torn tails, broken lengths).
func TestReadAheadMatchesInline(t *testing.T) {
	forceParallel(t)
	for _, v := range []string{"kraft/3.9.2/metadata", "kraft/4.4.0/metadata", "compressed/gzip", "compressed/lz4", "compressed/snappy", "compressed/zstd"} {
		path := filepath.Join("..", "testdata", v)
		res := loadBothWays(t, path, ImageOptions{AtOffset: -1})
		for _, at := range []int64{0, res.EndOffset / 3, res.EndOffset / 2} {
			loadBothWays(t, path, ImageOptions{AtOffset: at})
		}
	}
	dir := t.TempDir()
	p := synthSegment(t, dir, 12*parallelJobBytes)
	orig, err := os.ReadFile(p)
	must(t, err)
	res := loadBothWays(t, dir, ImageOptions{AtOffset: -1})
	// The generator's records are sound batches but not a cluster's
	// history: many change partitions no record created, which Kafka
	// refuses, and that is the clean segment's one warning.
	refusals := model.Finding{Code: model.WarnRecordsSkipped, Severity: model.SevWarning, Class: FindingClass, Where: &model.Location{File: p, Position: -1, Offset: 201},
		Message: "16237 record(s) refused, as Kafka's metadata replay refuses them (a broker reports a metadata load fault and skips them, a controller stops): the first, at offset 201, is a PartitionChangeRecord for partition 14 of topic events-65, which has no such partition"}
	// Nor does it set a metadata.version, as a log before Kafka 3.3: the
	// image does not report one (a warning: records were applied).
	noMV := model.Finding{Code: WarnNoMetadataVersion, Severity: model.SevWarning, Class: FindingClass, Where: &model.Location{File: dir, Position: -1, Offset: -1},
		Message: fmt.Sprintf("the image holds no metadata.version (not reported): replay applied %d record(s) and no FeatureLevelRecord for it, as a log written before Kafka 3.3 does; Kafka 3.3 to 3.9 reads such a log as 3.0-IV1, Kafka 4.x refuses it", res.Applied)}
	if res.Applied < 1000 || !reflect.DeepEqual(res.Warnings, []model.Finding{noMV, refusals}) {
		t.Fatalf("clean synthesized segment: %d records applied, warnings %v", res.Applied, res.Warnings)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var partial, skipped int
	for i := 0; i < 40; i++ {
		data := append([]byte(nil), orig...)
		switch i % 4 {
		case 0:
			for k := 0; k < 1+i; k++ {
				data[rng.IntN(len(data))] ^= 0x10
			}
		case 1:
			for k := 0; k < 1+i; k++ {
				data[rng.IntN(len(data))] ^= byte(1 + rng.IntN(255))
			}
			refixCRCs(data)
		case 2:
			data = data[:rng.IntN(len(data))]
		case 3:
			at := rng.IntN(len(data) - 12)
			data[at+8], data[at+9] = 0x7f, 0xff
		}
		must(t, os.WriteFile(p, data, 0o644))
		r := loadBothWays(t, dir, ImageOptions{AtOffset: -1})
		for _, w := range r.Warnings {
			if model.Partial(w) && w.Code != model.WarnRecordsSkipped && w.Code != WarnNoMetadataVersion {
				partial++ // partial for the damage, not only for refusals
				break
			}
		}
		if r.Skipped > 0 {
			skipped++
		}
	}
	t.Logf("damaged: %d partial images, %d with records skipped", partial, skipped)
	if partial < 10 || skipped == 0 {
		t.Fatalf("the damage did not exercise replay: %d partial, %d with records skipped", partial, skipped)
	}
}

// TestReadAheadPathTaken: with the threshold at 0 and two Ps, replay reads
// its files ahead, so the tests that force it test readAhead (and not a
// silent fallback to reading in line).
func TestReadAheadPathTaken(t *testing.T) {
	forceParallel(t)
	d, err := OpenLogDir(filepath.Join("..", "testdata", "kraft", "4.4.0", "metadata"))
	must(t, err)
	f := d.Segments[0]
	r, err := OpenReader(f.Path, ReaderOptions{})
	must(t, err)
	l := &loader{check: NewChecker(d, CheckOptions{Strict: true})}
	l.check.BeginFile(f)
	src := l.batches(f, r)
	defer src.close()
	if _, ok := src.(*aheadBatches); !ok {
		t.Fatalf("replay read %s through %T, not ahead", f.Path, src)
	}
	n := 0
	for a := src.next(); a.err == nil; a = src.next() {
		n++
		src.release(a)
	}
	if n == 0 {
		t.Fatal("no batch read")
	}
}

// A large batch that straddles the snapshot's end is applied from the
// snapshot's end only when read ahead too: readAhead lists the batch's
// records before replay knows where it starts. Fails when the records
// below the snapshot's end are applied again (the TopicRecord at offset 0
// would replace the topic and drop the snapshot's partitions).
func TestReadAheadStraddlingSnapshot(t *testing.T) {
	forceParallel(t)
	dir := t.TempDir()
	id := model.UUID{5}
	part := func(p int32) records.Metadata {
		r := &records.PartitionRecord{}
		r.SetDefaults()
		r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader = id, p, []int32{1}, []int32{1}, 1
		return r
	}
	big := []records.Metadata{&records.TopicRecord{Name: "t", TopicId: id}}
	for p := range int32(3 * aheadMin) {
		big = append(big, part(p))
	}
	writeLog(t, dir, 1, big)
	const end = 50 // the snapshot holds offsets 0 to 49: the topic and partitions 0 to 48
	w, err := CreateSnapshot(filepath.Join(dir, SnapshotID{EndOffset: end, Epoch: 1}.FileName()), SnapshotOptions{Epoch: 1, Timestamp: 1700000000000})
	must(t, err)
	for _, m := range big[:end] {
		v, err := records.EncodeMetadata(nil, m, m.MaxVersion())
		must(t, err)
		must(t, w.Append(v))
	}
	must(t, w.Commit())
	res := loadBothWays(t, dir, ImageOptions{AtOffset: -1})
	if res.Plan.Snapshot == nil || len(res.Image.Topics["t"].Partitions) != 3*aheadMin || res.Applied != int64(len(big)) {
		t.Fatalf("replayed from snapshot %v: %d partitions, %d records applied; want %d and %d",
			res.Plan.Snapshot, len(res.Image.Topics["t"].Partitions), res.Applied, 3*aheadMin, len(big))
	}
}
