package metalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

func ptr[T any](v T) *T { return &v }

// writeLog writes one segment of batches (each a list of records) at
// epoch, every record at the newest version kmeta knows.
func writeLog(t *testing.T, dir string, epoch int32, batches ...[]records.Metadata) {
	t.Helper()
	w, err := CreateSegment(dir, 0, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		var vals [][]byte
		for _, m := range b {
			v, err := records.EncodeMetadata(nil, m, m.MaxVersion())
			if err != nil {
				t.Fatal(err)
			}
			vals = append(vals, v)
		}
		if err := w.AppendData(epoch, 1700000000000, vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// Metadata transactions (KIP-868) as Kafka's MetadataBatchLoader applies
// them: committed ones take effect at End, aborted ones never, and an
// unfinished one is not applied.
func TestReplayTransactions(t *testing.T) {
	a, b, c := model.UUID{1}, model.UUID{2}, model.UUID{3}
	dir := t.TempDir()
	writeLog(t, dir, 1,
		[]records.Metadata{&records.BeginTransactionRecord{Name: ptr("t1")}, &records.TopicRecord{Name: "committed", TopicId: a}},
		[]records.Metadata{&records.EndTransactionRecord{}},
		[]records.Metadata{&records.BeginTransactionRecord{}, &records.TopicRecord{Name: "aborted", TopicId: b}, &records.AbortTransactionRecord{Reason: ptr("Controller failover")}},
		[]records.Metadata{&records.BeginTransactionRecord{}, &records.TopicRecord{Name: "unfinished", TopicId: c}},
	)
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Image.Topics["committed"]; !ok || len(res.Image.Topics) != 1 {
		t.Fatalf("topics %v, want only the committed one", res.Image.Topics)
	}
	if !hasWarning(res, model.WarnUnfinishedTxn, "unfinished") {
		t.Errorf("no warning about the unfinished transaction: %v", res.Warnings)
	}
	// Stopping inside the first transaction leaves it unapplied.
	res, err = LoadImage(dir, ImageOptions{AtOffset: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Image.Topics) != 0 {
		t.Errorf("at offset 1 (before End) topics %v", res.Image.Topics)
	}
}

// Partition changes are deltas: absent fields keep their values, a leader
// field bumps the leader epoch, every change bumps the partition epoch.
func TestReplayPartitionChange(t *testing.T) {
	id := model.UUID{9}
	dir := t.TempDir()
	writeLog(t, dir, 1, []records.Metadata{
		&records.TopicRecord{Name: "t", TopicId: id},
		&records.PartitionRecord{PartitionId: 0, TopicId: id, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2, 3}, Leader: 1, LeaderEpoch: 4, PartitionEpoch: 7},
		&records.PartitionChangeRecord{PartitionId: 0, TopicId: id, Isr: []int32{1, 2}, Leader: -2, LeaderRecoveryState: -1},
		&records.PartitionChangeRecord{PartitionId: 0, TopicId: id, Leader: 2, LeaderRecoveryState: -1},
		&records.ConfigRecord{ResourceType: 2, ResourceName: "t", Name: "retention.ms", Value: ptr("1")},
	}, []records.Metadata{&records.RemoveTopicRecord{TopicId: id}, &records.TopicRecord{Name: "u", TopicId: model.UUID{8}}})
	res, err := LoadImage(dir, ImageOptions{AtOffset: 4})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Image.Topics["t"].Partitions[0]
	if p.Leader != 2 || p.LeaderEpoch != 5 || p.PartitionEpoch != 9 || len(p.ISR) != 2 || len(p.Replicas) != 3 {
		t.Fatalf("partition %+v", p)
	}
	if got := res.Image.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "t"}]["retention.ms"]; got != "1" {
		t.Fatalf("config %q", got)
	}
	res, err = LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Image.Topics["t"]; ok || len(res.Image.Configs) != 0 {
		t.Fatalf("removed topic or its configs survive: %v %v", res.Image.Topics, res.Image.Configs)
	}
}

// A snapshot newer (by epoch) than the whole log makes Kafka discard the
// log; replay must not apply the stale segment on top of the snapshot.
// Partition records and changes of a topic that was removed, or replaced
// by a topic of the same name and a new id, are refused, right after the
// removal as much as later: the replayer remembers the topic it found
// last, and must forget it when topics change.
func TestReplayRefusesPartitionsOfGoneTopics(t *testing.T) {
	x, y := model.UUID{9}, model.UUID{8}
	part := func(topic model.UUID, p int32) *records.PartitionRecord {
		return &records.PartitionRecord{PartitionId: p, TopicId: topic, Replicas: []int32{1}, Isr: []int32{1}, Leader: 1}
	}
	change := func(topic model.UUID, p int32) *records.PartitionChangeRecord {
		return &records.PartitionChangeRecord{PartitionId: p, TopicId: topic, Leader: -2, LeaderRecoveryState: -1}
	}
	r := NewReplayer()
	for i, m := range []records.Metadata{
		&records.TopicRecord{Name: "t", TopicId: x}, part(x, 0), // applied
		&records.RemoveTopicRecord{TopicId: x}, part(x, 1), change(x, 0), // removal applied, two refused
		&records.TopicRecord{Name: "t", TopicId: x}, part(x, 2), // applied: t is back with id x
		&records.TopicRecord{Name: "t", TopicId: y}, part(x, 3), change(x, 2), part(y, 0), // x replaced: two refused, y's applied
	} {
		if err := r.Apply(Position{Offset: int64(i)}, m); err != nil {
			t.Fatal(err)
		}
	}
	img := r.Image()
	if r.Applied != 7 || r.Skipped != 4 {
		t.Errorf("applied %d, skipped %d, want 7 and 4", r.Applied, r.Skipped)
	}
	if tp := img.Topics["t"]; len(img.Topics) != 1 || tp == nil || tp.ID != y || len(tp.Partitions) != 1 || tp.Partitions[0] == nil {
		t.Errorf("topics %+v, want t with id %v and partition 0 only", img.Topics, y)
	}
}

func TestPlanTruncatesToNewerSnapshot(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, MetadataPartitionDir)
	os.MkdirAll(dir, 0o755)
	writeLog(t, dir, 3, []records.Metadata{&records.TopicRecord{Name: "stale", TopicId: model.UUID{1}}, &records.NoOpRecord{}, &records.NoOpRecord{}})
	os.WriteFile(filepath.Join(dir, "leader-epoch-checkpoint"), []byte("0\n1\n3 0\n"), 0o644)
	v, _ := records.EncodeMetadata(nil, &records.TopicRecord{Name: "fresh", TopicId: model.UUID{2}}, 0)
	if err := WriteSnapshotFile(filepath.Join(dir, (SnapshotID{EndOffset: 2, Epoch: 5}).FileName()), [][]byte{v}, SnapshotOptions{Epoch: 5}); err != nil {
		t.Fatal(err)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Plan.Truncated || len(res.Image.Topics) != 1 || res.Image.Topics["fresh"] == nil {
		t.Fatalf("plan %+v topics %v", res.Plan, res.Image.Topics)
	}
}

// An offset that no usable snapshot and no segment of the source reaches
// cannot be replayed: that is an error, never an empty image.
func TestLoadImageAtOffsetNotCovered(t *testing.T) {
	part := filepath.Join("..", "testdata", "kraft", "4.4.0", "metadata", MetadataPartitionDir)
	for _, c := range []struct {
		path string
		at   int64
	}{
		{filepath.Join(part, "00000000000000000099-0000000001.checkpoint"), 10},
		{filepath.Join(part, "00000000000000000086.log"), 10},
	} {
		res, err := LoadImage(c.path, ImageOptions{AtOffset: c.at})
		if !errors.Is(err, ErrOffsetNotCovered) || !IsOurs(err) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s at %d: err %v, image %+v", c.path, c.at, err, res)
		}
	}
	// The same files replay where they do reach.
	for _, c := range []struct {
		path string
		at   int64
	}{
		{filepath.Join(part, "00000000000000000099-0000000001.checkpoint"), 98},
		{filepath.Join(part, "00000000000000000086.log"), 98},
		{filepath.Join(part, "00000000000000000086.log"), -1},
	} {
		if _, err := LoadImage(c.path, ImageOptions{AtOffset: c.at}); err != nil {
			t.Errorf("%s at %d: %v", c.path, c.at, err)
		}
	}
}

// A batch timestamp beyond what an RFC 3339 time can hold (a damaged or
// hand-made batch; the CRC does not protect against a writer's bad clock)
// must not make the image unprintable.
func TestReplayOutOfRangeTimestamp(t *testing.T) {
	dir := t.TempDir()
	w, err := CreateSegment(dir, 0, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := records.EncodeMetadata(nil, &records.TopicRecord{Name: "t", TopicId: model.UUID{1}}, 0)
	if err := w.AppendData(1, 1700000000000, [][]byte{v}); err != nil {
		t.Fatal(err)
	}
	if err := w.AppendData(1, 1<<62, [][]byte{v}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(res.Image); err != nil {
		t.Fatalf("image does not print: %v", err)
	}
	if got := res.Image.Provenance.Timestamp.UnixMilli(); got != 1700000000000 {
		t.Errorf("provenance timestamp %d, want the last representable one", got)
	}
}

// Records replay cannot decode are counted under a key that says what is
// wrong with them, not under a made-up apiKey/version.
func TestReplayUndecodableRecordKeys(t *testing.T) {
	dir := t.TempDir()
	w, err := CreateSegment(dir, 0, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := records.EncodeMetadata(nil, &records.TopicRecord{Name: "t", TopicId: model.UUID{1}}, 0)
	vals := [][]byte{
		{2, 2, 0, 0},       // frame version 2
		{1, 2, 0, 1, 2, 3}, // TopicRecord v0, body too short
		{1, 99, 0},         // unknown apiKey
		{1, 2, 9},          // unknown TopicRecord version
		good,
	}
	if err := w.AppendData(1, 1700000000000, vals); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"bad record frame":                     1,
		"apiKey 2 version 0 (malformed body)":  1,
		"apiKey 99 version 0 (unknown type)":   1,
		"apiKey 2 version 9 (unknown version)": 1,
	}
	if len(res.Unknown) != len(want) || res.Skipped != 4 || res.Applied != 1 {
		t.Fatalf("unknown %v, skipped %d, applied %d", res.Unknown, res.Skipped, res.Applied)
	}
	for k, n := range want {
		if res.Unknown[k] != n {
			t.Errorf("unknown %v, want %q", res.Unknown, k)
		}
	}
}

// A transaction marker out of order is skipped with a warning, as Kafka's
// MetadataBatchLoader skips it after reporting a fault; replay goes on.
func TestReplayMisplacedTransactionMarker(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, 1,
		[]records.Metadata{&records.EndTransactionRecord{}, &records.TopicRecord{Name: "after", TopicId: model.UUID{4}}},
	)
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Image.Topics["after"] == nil || !hasWarning(res, model.WarnRecordsSkipped, "without a Begin") {
		t.Fatalf("topics %v warnings %v", res.Image.Topics, res.Warnings)
	}
}

// hasWarning reports whether res carries a warning with this code whose
// message contains text, located in a file or at an offset.
func hasWarning(res *ImageResult, code, text string) bool {
	for _, w := range res.Warnings {
		if w.Code == code && strings.Contains(w.Message, text) && w.Where != nil && (w.Where.File != "" || w.Where.Offset >= 0) {
			return true
		}
	}
	return false
}

// TestBootstrapAlongsideWarning: a __cluster_metadata-0 dir opened on its
// own still reads its parent's bootstrap.checkpoint (Kafka's root), and
// the image says so, located at that file; a partition dir holding
// neither snapshot nor segment makes the bootstrap the whole image.
func TestBootstrapAlongsideWarning(t *testing.T) {
	root, part := buildLogDir(t, nil, []segSpec{{0, []batchSpec{{1, 3}}}})
	for _, path := range []string{root, part} {
		res, err := LoadImage(path, ImageOptions{AtOffset: -1})
		must(t, err)
		found := false
		for _, w := range res.Warnings {
			if w.Code == model.WarnBootstrapAlongside && w.Where.File == filepath.Join(root, BootstrapFileName) {
				found = true
			}
		}
		if found != (path == part) {
			t.Errorf("%s: bootstrap-alongside warning %v: %v", path, found, res.Warnings)
		}
	}
	// The empty segment Kafka creates when it starts, and no record yet:
	// the image is the bootstrap, said plainly, and not partial.
	must(t, os.Truncate(filepath.Join(part, SegmentFileName(0)), 0))
	res, err := LoadImage(root, ImageOptions{AtOffset: -1})
	must(t, err)
	want := "a node that holds no metadata record yet, only what kafka-storage format wrote; Kafka started on the dir (00000000000000000000.log is empty) but no leader has written to its log yet: the image is the bootstrap in bootstrap.checkpoint, which the first active controller writes into the log; no cluster state is in it yet"
	if res.Plan.Bootstrap == nil || len(res.Warnings) != 1 || res.Warnings[0].Code != WarnBootstrapOnly || res.Warnings[0].Message != want || res.Image.IsPartial() {
		t.Fatalf("empty segment: plan %+v warnings %v", res.Plan, res.Warnings)
	}
	// No segment at all in the partition dir: a lost log (no-metadata-log),
	// which the bootstrap does not make a node yet to start.
	must(t, os.Remove(filepath.Join(part, SegmentFileName(0))))
	res, err = LoadImage(root, ImageOptions{AtOffset: -1})
	must(t, err)
	if res.Plan.Bootstrap == nil || hasWarning(res, WarnBootstrapOnly, "") || !hasWarning(res, KindNoMetadataLog, "holds no segment and no snapshot") || !res.Image.IsPartial() {
		t.Fatalf("no segment: plan %+v warnings %v", res.Plan, res.Warnings)
	}
}

// TestTornTailSaysWhatWasLost: the torn tail of the active segment is a
// warning at the torn batch naming the bytes and, when its header
// survived, the records and offsets Kafka never committed.
func TestTornTailSaysWhatWasLost(t *testing.T) {
	root, part := buildLogDir(t, nil, []segSpec{{0, []batchSpec{{1, 3}, {1, 4}}}})
	p := filepath.Join(part, SegmentFileName(0))
	sp := batchSpans(t, p)
	must(t, os.Truncate(p, sp[1].pos+sp[1].size-3))
	res, err := LoadImage(root, ImageOptions{AtOffset: -1})
	must(t, err)
	var w *model.Finding
	for i := range res.Warnings {
		if res.Warnings[i].Code == model.WarnTornTail {
			w = &res.Warnings[i]
		}
	}
	if w == nil || res.Image.IsPartial() || w.Where.File != p || w.Where.Position != sp[1].pos || w.Where.Offset != 3 ||
		!strings.Contains(w.Message, fmt.Sprintf("%d byte(s)", sp[1].size-3)) || !strings.Contains(w.Message, "4 record(s), offsets 3 to 6") {
		t.Fatalf("torn tail warning %v (partial %v)", w, res.Image.IsPartial())
	}
}

// Batches large enough for replay to decode on two goroutines
// (applyAhead) give the same image, counts and end offset as the same
// records in batches too small for it, replayed one by one: in full, and
// stopped (--at-offset) at the end of each batch and just before each
// BeginTransactionRecord inside one (where Kafka's loader publishes). Any
// other offset inside a large batch is refused: Kafka applies a batch
// whole.
func TestReplayLargeBatchesMatchOneByOne(t *testing.T) {
	log := bigBatchLog()
	// And a large batch of partitions of topics that do not exist (one
	// never created, one removed in the big batch) among partitions of one
	// that does, which kmeta refuses (Kafka's TopicsDelta fails on them,
	// so they are not in the oracle's log).
	var orphans []records.Metadata
	for p := range int32(3 * aheadMin) {
		r := &records.PartitionRecord{}
		r.SetDefaults()
		r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader = []model.UUID{{0xc, 1}, {0xa, 3}, {0xa, 10}}[p%3], 100+p, []int32{1}, []int32{1}, 1
		orphans = append(orphans, r)
	}
	log = append(log, orphans)
	big, small := t.TempDir(), t.TempDir()
	writeLog(t, big, 1, log...)
	var split [][]records.Metadata
	for _, b := range log {
		for len(b) > 0 {
			n := min(len(b), aheadMin-1)
			split = append(split, b[:n])
			b = b[n:]
		}
	}
	writeLog(t, small, 1, split...)
	// Every large batch ends where one of its small ones does: stop
	// after each batch. Inside a large one, replay refuses.
	ats := []int64{-1}
	end := int64(-1)
	inside := 0
	begins := 0
	for _, b := range log {
		// Just before a BeginTransactionRecord inside a batch: Kafka
		// publishes there, and so may a point stop.
		for i, m := range b {
			if _, ok := m.(*records.BeginTransactionRecord); ok && i > 0 {
				ats = append(ats, end+int64(i))
				begins++
			}
		}
		end += int64(len(b))
		ats = append(ats, end)
		if len(b) >= aheadMin {
			if _, err := LoadImage(big, ImageOptions{AtOffset: end - int64(len(b)/2)}); !errors.Is(err, ErrOffsetInsideBatch) {
				t.Errorf("at offset %d, inside the batch ending at %d: %v", end-int64(len(b)/2), end, err)
			}
			inside++
		}
	}
	if inside < 2 || begins < 2 {
		t.Fatalf("only %d large batches, %d transactions begun inside one", inside, begins)
	}
	for _, at := range ats {
		want, err := LoadImage(small, ImageOptions{AtOffset: at})
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadImage(big, ImageOptions{AtOffset: at})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.Image, got.Image, cmpopts.IgnoreFields(model.Image{}, "Warnings", "Provenance.Source")); d != "" {
			t.Errorf("at offset %d: image differs (-one by one +two goroutines):\n%s", at, d)
		}
		// EndOffset counts the record after the offset when it is in the
		// same batch, so it depends on the batching when stopped.
		if want.Applied != got.Applied || want.Skipped != got.Skipped || (at < 0 && want.EndOffset != got.EndOffset) {
			t.Errorf("at offset %d: applied/skipped/end %d/%d/%d, want %d/%d/%d", at,
				got.Applied, got.Skipped, got.EndOffset, want.Applied, want.Skipped, want.EndOffset)
		}
		if at < 0 && (len(got.Image.Topics) < 20 || got.Applied < 1900) {
			t.Fatalf("the log applied %d records into %d topics: too little to test anything", got.Applied, len(got.Image.Topics))
		}
	}
}

// A records.Decoder reuses a value's lists of numbers and ids for the next
// record of its type, so whatever replay keeps of a record's lists must be
// a copy: partitions changed one after another each keep their own ISR,
// replicas, ELRs and directories, brokers their own log dirs — in small
// batches (one decoder) and in large ones (decoded ahead over several
// rounds). Fails when replay keeps the decoded lists themselves.
func TestReplayKeepsCopiesOfReusedLists(t *testing.T) {
	id := model.UUID{7}
	const parts = 2000 // more than two rounds of applyAhead in one batch
	isr := func(i int) []int32 { return []int32{int32(i % 7), int32(100 + i)} }
	dir := func(i int) model.UUID { return model.UUID{byte(i), byte(i >> 8), 1} }
	small := []records.Metadata{
		&records.RegisterBrokerRecord{BrokerId: 2, LogDirs: []model.UUID{{2, 1}, {2, 2}}},
		&records.RegisterBrokerRecord{BrokerId: 1, LogDirs: []model.UUID{{1, 1}}},
		&records.BrokerRegistrationChangeRecord{BrokerId: 1, LogDirs: []model.UUID{{1, 2}}},
		&records.TopicRecord{Name: "t", TopicId: id},
	}
	var big []records.Metadata
	for i := range parts {
		big = append(big, &records.PartitionRecord{PartitionId: int32(i), TopicId: id, Replicas: []int32{1, 2}, Isr: []int32{1, 2},
			Directories: []model.UUID{dir(i), dir(i)}, Leader: 1})
	}
	for i := range parts {
		big = append(big, &records.PartitionChangeRecord{PartitionId: int32(i), TopicId: id, Isr: isr(i), Replicas: []int32{2, int32(3 + i)},
			Directories: []model.UUID{dir(i + 1), dir(i + 2)}, EligibleLeaderReplicas: []int32{int32(i)}, Leader: -2, LeaderRecoveryState: -1})
	}
	// The same changes again in small batches, one decoder for all.
	var tail [][]records.Metadata
	for i := range 10 {
		tail = append(tail, []records.Metadata{
			&records.PartitionChangeRecord{PartitionId: int32(i), TopicId: id, Isr: isr(i + 1), Leader: -2, LeaderRecoveryState: -1},
			&records.PartitionChangeRecord{PartitionId: int32(i + 10), TopicId: id, LastKnownElr: []int32{int32(i)}, Leader: -2, LeaderRecoveryState: -1},
		})
	}
	d := t.TempDir()
	writeLog(t, d, 1, append([][]records.Metadata{small, big}, tail...)...)
	res, err := LoadImage(d, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	img := res.Image
	if got := img.Brokers[1].LogDirs; !slices.Equal(got, []model.UUID{{1, 2}}) {
		t.Errorf("broker 1 log dirs %v", got)
	}
	if got := img.Brokers[2].LogDirs; !slices.Equal(got, []model.UUID{{2, 1}, {2, 2}}) {
		t.Errorf("broker 2 log dirs %v", got)
	}
	tp := img.Topics["t"]
	for i := range parts {
		p := tp.Partitions[int32(i)]
		wantISR := isr(i)
		if i < 10 {
			wantISR = isr(i + 1)
		}
		var wantLKE []int32
		if i >= 10 && i < 20 {
			wantLKE = []int32{int32(i - 10)}
		}
		if !slices.Equal(p.ISR, wantISR) || !slices.Equal(p.Replicas, []int32{2, int32(3 + i)}) ||
			!slices.Equal(p.ELR, []int32{int32(i)}) || !slices.Equal(p.LastKnownELR, wantLKE) ||
			!slices.Equal(p.Directories, []model.UUID{dir(i + 1), dir(i + 2)}) {
			t.Fatalf("partition %d: ISR %v replicas %v ELR %v last known ELR %v dirs %v", i, p.ISR, p.Replicas, p.ELR, p.LastKnownELR, p.Directories)
		}
	}
}

// Kafka's PartitionRegistration refuses a PartitionRecord whose non-empty
// directories differ in length from its replicas before it reads an
// all-"migrating" list as "migrating" for every replica: such a record is
// refused, while an empty list and a list of the right length stand (the
// oracle: TestReplayMatchesKafkaMetadataDelta).
func TestReplayRefusesMigratingDirectoriesOfWrongLength(t *testing.T) {
	id := model.UUID{9}
	m := model.DirMigrating
	part := func(p int32, dirs ...model.UUID) *records.PartitionRecord {
		return &records.PartitionRecord{PartitionId: p, TopicId: id, Replicas: []int32{1, 2}, Isr: []int32{1}, Leader: 1, Directories: dirs}
	}
	r := NewReplayer()
	for i, rec := range []records.Metadata{
		&records.TopicRecord{Name: "t", TopicId: id},
		part(0), part(1, m, m), // applied
		part(2, m), part(3, m, m, m), // refused
	} {
		if err := r.Apply(Position{Offset: int64(i)}, rec); err != nil {
			t.Fatal(err)
		}
	}
	if r.Applied != 3 || r.Skipped != 2 {
		t.Errorf("applied %d, skipped %d, want 3 and 2", r.Applied, r.Skipped)
	}
	ps := r.Image().Topics["t"].Partitions
	if len(ps) != 2 || ps[0] == nil || ps[1] == nil {
		t.Fatalf("partitions %v, want 0 and 1", ps)
	}
	for _, p := range ps {
		if !slices.Equal(p.Directories, []model.UUID{m, m}) {
			t.Errorf("partition %d: directories %v, want migrating for both replicas", p.ID, p.Directories)
		}
	}
}

// TestReplayWarnsOfIllegalTopicNames: a TopicRecord naming a topic as no
// Kafka does (damage, a hand-made log) is applied as the log says and
// warned of once, at its record, the name escaped; legal names, even
// odd-looking ones, are not.
func TestReplayWarnsOfIllegalTopicNames(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, 1,
		[]records.Metadata{&records.TopicRecord{Name: "orders.v1-_X", TopicId: model.UUID{1}}, &records.TopicRecord{Name: "x; touch PWNED\x1b[2J", TopicId: model.UUID{2}}},
		[]records.Metadata{&records.TopicRecord{Name: strings.Repeat("a", 250), TopicId: model.UUID{3}}, &records.TopicRecord{Name: "..", TopicId: model.UUID{4}}},
		[]records.Metadata{&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21}},
	)
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Image.Topics) != 4 {
		t.Errorf("topics %v, want all four as the log has them", slices.Collect(maps.Keys(res.Image.Topics)))
	}
	var got []string
	for _, w := range res.Warnings {
		if w.Code == model.WarnTopicNameIllegal {
			got = append(got, fmt.Sprintf("%d %s", w.Where.Offset, w.Message))
		}
	}
	want := []string{
		`1 topic "x; touch PWNED\x1b[2J": no Kafka accepts this name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'): the source was not written by Kafka`,
		fmt.Sprintf(`2 topic %q: no Kafka accepts this name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'): the source was not written by Kafka`, strings.Repeat("a", 250)),
		`3 topic "..": no Kafka accepts this name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'): the source was not written by Kafka`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Image.IsPartial() || !slices.ContainsFunc(res.Image.Warnings, func(w model.Finding) bool { return w.Code == model.WarnTopicNameIllegal }) {
		t.Errorf("the image is called partial, or does not carry the warnings: %v", res.Image.Warnings)
	}
}

// Every record's PointBefore is the last point whose image lacks the
// record: a replay stops there without refusal and outside any
// transaction, and every offset between it and the record is refused
// (inside a batch), inside a transaction (left unapplied), or shows the
// same image. Over the Kafka-written fixtures (a 3.9.2 bootstrap
// transaction, 4.4.0's, topics created with their configs and
// partitions in one batch) and the large batches (transactions begun and
// ended inside a batch, records after an End in its batch, an abort).
// Fails when PointBefore gives the record's offset minus one, or the
// batch's start for a transaction's record or one after an End.
func TestPointBeforeIsTheLastPointWithoutTheRecord(t *testing.T) {
	big := t.TempDir()
	writeLog(t, big, 1, bigBatchLog()...)
	// A control batch whose records each change the quorum: a point may
	// stop between them (the raft layer applies them one by one).
	ctl := t.TempDir()
	w, err := CreateSegment(ctl, 0, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mv, err := records.EncodeMetadata(nil, &records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 25}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		w.AppendData(1, 1700000000000, [][]byte{mv}),
		w.AppendControl(1, 1700000000000, []ControlRecord{{Type: ControlKRaftVersion, Value: EncodeKRaftVersion(1)}, {Type: ControlKRaftVersion, Value: EncodeKRaftVersion(0)}}),
		w.AppendData(1, 1700000000000, [][]byte{mv}),
		w.Commit(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, dir := range map[string]string{"3.9.2": "../testdata/kraft/3.9.2/metadata", "4.4.0": fixture44, "large batches": big, "control batch": ctl} {
		t.Run(name, func(t *testing.T) {
			type rec struct{ off, before int64 }
			var recs []rec
			_, err := LoadImage(dir, ImageOptions{AtOffset: -1, Oldest: true, Before: func(r *Replayer, pos Position, m records.Message) {
				if !pos.Snapshot {
					_, control := m.(records.Control)
					recs = append(recs, rec{pos.Offset, r.PointBefore(pos, control)})
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			type at struct {
				res      *ImageResult
				inside   bool
				unfinish bool
			}
			loaded := map[int64]at{}
			load := func(off int64) at {
				if a, ok := loaded[off]; ok {
					return a
				}
				res, err := LoadImage(dir, ImageOptions{AtOffset: off})
				var a at
				switch {
				case errors.Is(err, ErrOffsetInsideBatch):
					a.inside = true
				case err != nil:
					t.Fatalf("at offset %d: %v", off, err)
				default:
					a.res, a.unfinish = res, hasWarning(res, model.WarnUnfinishedTxn, "unfinished")
				}
				loaded[off] = a
				return a
			}
			// The records after each point, by point: the offsets up to the
			// last of them are checked once.
			last := map[int64]int64{}
			notPrev := 0
			for _, r := range recs {
				if r.before >= r.off {
					t.Fatalf("offset %d: point before %d", r.off, r.before)
				}
				last[r.before] = max(last[r.before], r.off)
				if r.before != r.off-1 {
					notPrev++
				}
			}
			for p, end := range last {
				if p < 0 {
					continue // the empty log before everything
				}
				a := load(p)
				if a.inside || a.unfinish {
					t.Errorf("point before %d is no point: inside a batch %v, inside a transaction %v", end, a.inside, a.unfinish)
					continue
				}
				for q := p + 1; q < end; q++ {
					b := load(q)
					if b.inside || b.unfinish {
						continue
					}
					if d := cmp.Diff(a.res.Image, b.res.Image, cmpopts.IgnoreFields(model.Image{}, "Warnings", "Provenance")); d != "" {
						t.Errorf("offset %d is a point between %d and the record at %d with another image:\n%s", q, p, end, d)
					}
				}
			}
			if notPrev == 0 && name != "control batch" {
				t.Fatalf("%d records, none whose point before is not the offset before it", len(recs))
			}
			t.Logf("%d records, %d of them with a point before other than the offset before them, %d offsets loaded", len(recs), notPrev, len(loaded))
		})
	}
}

// A static quorum's voters (controller.quorum.voters) reach the image from
// quorum-state when replay meets no LeaderChange naming them: the 3.9.2
// fixture replays from its snapshot (kraft.version 0 snapshots carry no
// voters). Without the file, the image has no voters, as before.
func TestStaticVotersFromQuorumState(t *testing.T) {
	voters := func(dir string) []model.Voter {
		t.Helper()
		res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
		if err != nil {
			t.Fatal(err)
		}
		return res.Image.Quorum.Voters
	}
	const fixture39 = "../testdata/kraft/3.9.2/metadata"
	if got := voters(fixture39); len(got) != 1 || got[0].ID != 3000 || got[0].DirectoryID != (model.UUID{}) || len(got[0].Endpoints) != 0 {
		t.Errorf("3.9.2: voters %+v, want controller 3000 from quorum-state", got)
	}
	dir := filepath.Join(t.TempDir(), "metadata")
	if err := os.CopyFS(dir, os.DirFS(fixture39)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "__cluster_metadata-0", "quorum-state")); err != nil {
		t.Fatal(err)
	}
	// A voter the log never registered: damage, not a voter.
	qs := filepath.Join(dir, "__cluster_metadata-0", "quorum-state")
	if err := os.WriteFile(qs, []byte(`{"clusterId":"","leaderId":3000,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":3000},{"voterId":3008}],"data_version":0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, string(w.Severity)+" "+w.Code+" "+w.Message+" @"+w.Where.File)
	}
	want := []string{"error quorum-state-voters quorum-state's currentVoters name [3008], which the log never registered as controllers (it registered [3000]): the image holds no voters @" + qs}
	if !slices.Equal(got, want) || len(res.Image.Quorum.Voters) != 0 || !res.Image.IsPartial() {
		t.Errorf("a stranger in quorum-state: warnings %q, voters %+v", got, res.Image.Quorum.Voters)
	}
	if err := os.Remove(qs); err != nil {
		t.Fatal(err)
	}
	if got := voters(dir); len(got) != 0 {
		t.Errorf("without quorum-state: voters %+v", got)
	}
}

// TestRefusedRecordsArePartial: records Kafka's MetadataDelta refuses (a
// partition change for a topic no TopicRecord created, or for a partition
// its topic lacks) make the image partial with one records-skipped
// warning naming how many and the first; an aborted transaction's records
// are skipped too, by design, and are no warning. Over the large batches
// the refused PartitionRecords go through applyAhead's path. Fails when
// the loader does not warn on Replayer.Refused, or counts the aborted
// records among the refused.
func TestRefusedRecordsArePartial(t *testing.T) {
	known, unknown := model.UUID{0xd, 1}, model.UUID{0xd, 2}
	part := func(id model.UUID, p int32) *records.PartitionRecord {
		r := &records.PartitionRecord{}
		r.SetDefaults()
		r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader = id, p, []int32{1}, []int32{1}, 1
		return r
	}
	change := func(id model.UUID, p int32) *records.PartitionChangeRecord {
		c := &records.PartitionChangeRecord{}
		c.SetDefaults()
		c.TopicId, c.PartitionId, c.Isr = id, p, []int32{1}
		return c
	}
	created := []records.Metadata{&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 25}, &records.TopicRecord{Name: "t", TopicId: known}}
	aborted := []records.Metadata{&records.BeginTransactionRecord{Name: ptr("x")}, part(known, 1), &records.AbortTransactionRecord{Reason: ptr("y")}}
	refused := []records.Metadata{change(unknown, 0), change(known, 5)}
	big := t.TempDir()
	writeLog(t, big, 1, bigBatchLog()...)
	refusal := "record(s) refused, as Kafka's metadata replay refuses them (a broker reports a metadata load fault and skips them, a controller stops): the first, at offset "
	for _, tc := range []struct {
		name    string
		log     [][]records.Metadata
		dir     string
		skipped int64
		want    []string // warnings: code, offset, message
	}{
		{"refused", [][]records.Metadata{created, {part(known, 0)}, refused, aborted}, "", 3,
			[]string{fmt.Sprintf("records-skipped 3: 2 %s3, is a PartitionChangeRecord for partition 0 of topic id %s, which no TopicRecord created", refusal, unknown)}},
		{"unknown partition", [][]records.Metadata{created, {change(known, 5)}}, "", 1,
			[]string{fmt.Sprintf("records-skipped 2: 1 %s2, is a PartitionChangeRecord for partition 5 of topic t, which has no such partition", refusal)}},
		{"aborted only", [][]records.Metadata{created, {part(known, 0)}, aborted}, "", 1, nil},
		// Two of the three are PartitionRecords decoded ahead; 40 records
		// are an aborted transaction's.
		{"large batches", nil, big, 43,
			[]string{fmt.Sprintf("records-skipped 494: 3 %s494, is a PartitionChangeRecord for partition 999 of topic t05, which has no such partition", refusal)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = t.TempDir()
				writeLog(t, dir, 1, tc.log...)
			}
			res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
			must(t, err)
			var got []string
			for _, w := range res.Warnings {
				if w.Where.File != filepath.Join(dir, SegmentFileName(0)) || w.Where.Position != -1 {
					t.Errorf("warning at %v", w.Where)
				}
				got = append(got, fmt.Sprintf("%s %d: %s", w.Code, w.Where.Offset, w.Message))
			}
			if !slices.Equal(got, tc.want) || res.Skipped != tc.skipped || res.Image.IsPartial() != (len(tc.want) > 0) {
				t.Fatalf("warnings\n%s\nwant\n%s\nskipped %d, want %d; partial %v", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), res.Skipped, tc.skipped, res.Image.IsPartial())
			}
		})
	}
}

// TestPlanTruncatesToSnapshotPastLogEnd: Kafka's truncateToLatestSnapshot
// also discards the log when the snapshot's epoch equals the log's latest
// and the snapshot ends past the log end offset. The 3.9.2 fixture's
// snapshot 90-1 renamed to 500-1 (epoch 1, the log's latest; the log ends
// at 169): image and history (PlanReplayOldest) both start at the
// snapshot, replay no segment, and say so. Renamed to 169-1 (the log end,
// not past it) the log is kept. Image and history used to replay
// nothing, silently, and offsets 0-168, respectively.
func TestPlanTruncatesToSnapshotPastLogEnd(t *testing.T) {
	for _, tc := range []struct {
		end       int64
		truncated bool
	}{{500, true}, {170, true}, {169, false}} {
		dir := fstree.Copy(t, "../testdata/kraft/3.9.2/metadata")
		pd := filepath.Join(dir, MetadataPartitionDir)
		snap := filepath.Join(pd, (SnapshotID{EndOffset: tc.end, Epoch: 1}).FileName())
		must(t, os.Rename(filepath.Join(pd, "00000000000000000090-0000000001.checkpoint"), snap))
		var want []string
		if tc.truncated {
			want = []string{fmt.Sprintf("log-behind-snapshot %s the snapshot ends at offset %d, past the log's end (offset 169) at the log's latest leader epoch: Kafka discards the log and restarts it at the snapshot, and so does replay",
				model.At(snap, -1, tc.end), tc.end)}
		}
		for _, oldest := range []bool{false, true} {
			res, err := LoadImage(dir, ImageOptions{AtOffset: -1, Oldest: oldest})
			must(t, err)
			var got []string
			for _, w := range res.Warnings {
				got = append(got, fmt.Sprintf("%s %s %s", w.Code, w.Where, w.Message))
			}
			if res.Plan.Truncated != tc.truncated || !slices.Equal(got, want) {
				t.Fatalf("snapshot %d, oldest %v: truncated %v, warnings\n%s\nwant\n%s", tc.end, oldest, res.Plan.Truncated, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if tc.truncated && (len(res.Plan.Segments) != 0 || res.Plan.Snapshot == nil || res.Plan.Snapshot.Path != snap || res.Image.Provenance.Offset != tc.end-1) {
				t.Fatalf("snapshot %d, oldest %v: plan %+v, image at offset %d", tc.end, oldest, res.Plan, res.Image.Provenance.Offset)
			}
		}
	}
}

// An image's timestamp is the time of the state it holds, whether the
// state ends at a snapshot or at a log batch: a snapshot's
// SnapshotHeader lastContainedLogTimestamp (the append time of the last
// batch it holds, KafkaRaftClient.createSnapshot from the image's
// provenance), the append time of the last batch otherwise. Before, an
// image read from a snapshot took the time its batches were written.
// Exact values from the committed dumps: the batch ending at offset 98
// (4.4.0) and 89 (3.9.2), and the header of each snapshot taken there.
func TestImageTimestampIsTheStatesTime(t *testing.T) {
	const fixture39 = "../testdata/kraft/3.9.2/metadata"
	part := func(dir, name string) string { return filepath.Join(dir, MetadataPartitionDir, name) }
	cases := []struct {
		name     string
		path     string
		opts     ImageOptions
		snapshot string // the snapshot replay starts from ("" for none)
		want     int64  // Unix ms; 0 for no timestamp
	}{
		{"4.4.0 at 98 from the snapshot", fixture44, ImageOptions{AtOffset: 98}, "00000000000000000099-0000000001.checkpoint", 1796024408385},
		{"4.4.0 at 98 from the log", fixture44, ImageOptions{AtOffset: 98, Oldest: true}, "00000000000000000000-0000000000.checkpoint", 1796024408385},
		{"4.4.0 snapshot alone", part(fixture44, "00000000000000000099-0000000001.checkpoint"), ImageOptions{AtOffset: -1}, "00000000000000000099-0000000001.checkpoint", 1796024408385},
		{"4.4.0 bootstrap snapshot", part(fixture44, "00000000000000000000-0000000000.checkpoint"), ImageOptions{AtOffset: -1}, "00000000000000000000-0000000000.checkpoint", 1796024389502},
		{"3.9.2 at 89 from the snapshot", fixture39, ImageOptions{AtOffset: 89}, "00000000000000000090-0000000001.checkpoint", 1796024363053},
		{"3.9.2 at 89 from the log", fixture39, ImageOptions{AtOffset: 89, Oldest: true}, "", 1796024363053},
		// kafka-storage format 3.9 writes lastContainedLogTimestamp 0:
		// the bootstrap holds no state of a log, so no time.
		{"3.9.2 bootstrap.checkpoint", filepath.Join(fixture39, BootstrapFileName), ImageOptions{AtOffset: -1}, "", 0},
	}
	for _, c := range cases {
		res, err := LoadImage(c.path, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		from := ""
		if res.Plan.Snapshot != nil {
			from = filepath.Base(res.Plan.Snapshot.Path)
		}
		var want time.Time
		if c.want != 0 {
			want = time.UnixMilli(c.want).UTC()
		}
		if got := res.Image.Provenance.Timestamp; from != c.snapshot || !got.Equal(want) {
			t.Errorf("%s: replay from %q, timestamp %v; want from %q, %v", c.name, from, got, c.snapshot, want)
		}
	}
}
