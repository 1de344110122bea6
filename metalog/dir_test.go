package metalog

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

type segSpec struct {
	base    int64
	batches []batchSpec
}

type batchSpec struct {
	epoch int32
	n     int // data records
}

// buildLogDir lays out a metadata log dir the way Kafka does:
//
//	root/meta.properties, bootstrap.checkpoint, .lock
//	root/__cluster_metadata-0/<snapshots>, <segments>, index files,
//	  quorum-state, leader-epoch-checkpoint, partition.metadata
func buildLogDir(t *testing.T, snaps []SnapshotID, segs []segSpec) (root, part string) {
	t.Helper()
	root = t.TempDir()
	part = filepath.Join(root, MetadataPartitionDir)
	must(t, os.Mkdir(part, 0o755))
	must(t, os.WriteFile(filepath.Join(root, MetaPropertiesFileName), []byte("#\n#Thu Jan 01 00:00:00 UTC 2026\nnode.id=1\ndirectory.id=AAAAAAAAAAAAAAAAAAAAZQ\nversion=1\ncluster.id=J8s9MEWSTUWdc7DjnB6J8g\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, LockFileName), nil, 0o000))
	v := workedValue(t)
	must(t, WriteSnapshotFile(filepath.Join(root, BootstrapFileName), [][]byte{v}, SnapshotOptions{Timestamp: 1}))
	for _, id := range snaps {
		must(t, WriteSnapshotFile(filepath.Join(part, id.FileName()), [][]byte{v, v, v}, SnapshotOptions{Epoch: id.Epoch, Timestamp: 5}))
	}
	prevEpoch := int32(-1)
	for _, s := range segs {
		w, err := CreateSegment(part, s.base, WriteOptions{})
		must(t, err)
		for _, b := range s.batches {
			n := b.n
			if prevEpoch >= 0 && b.epoch > prevEpoch && n > 0 {
				// A Raft leader opens its epoch with a LeaderChange: the
				// batch's first offset holds it, the others data.
				must(t, w.AppendControl(b.epoch, 7, []ControlRecord{{Type: ControlLeaderChange, Value: leaderChangeValue}}))
				n--
			}
			prevEpoch = b.epoch
			if n == 0 {
				continue
			}
			vals := make([][]byte, n)
			for i := range vals {
				vals[i] = v
			}
			must(t, w.AppendData(b.epoch, 7, vals))
		}
		must(t, w.Commit())
		for _, ext := range []string{".index", ".timeindex", ".snapshot"} {
			must(t, os.WriteFile(filepath.Join(part, SegmentFileName(s.base)[:20]+ext), []byte("junk"), 0o644))
		}
	}
	must(t, os.WriteFile(filepath.Join(part, QuorumStateFileName), []byte(`{"leaderId":1,"leaderEpoch":3,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`), 0o644))
	must(t, os.WriteFile(filepath.Join(part, PartitionMetadataFileName), []byte("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"), 0o644))
	return root, part
}

// leaderChangeValue is a LeaderChangeMessage body: leader 1, voters and
// granting voters [1].
var leaderChangeValue = []byte{0, 0, 0, 0, 0, 1, 1, 1, 0}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// standardDir: snapshot 100-2, segment 90 (offsets 90..119, epoch 2) and
// segment 120 (120..139, epoch 3).
func standardDir(t *testing.T) (string, string) {
	return buildLogDir(t, []SnapshotID{{EndOffset: 50, Epoch: 1}, {EndOffset: 100, Epoch: 2}},
		[]segSpec{{90, []batchSpec{{2, 10}, {2, 20}}}, {120, []batchSpec{{3, 5}, {3, 15}}}})
}

func TestOpenLogDir(t *testing.T) {
	root, part := standardDir(t)
	must(t, os.WriteFile(filepath.Join(part, LeaderEpochFileName), []byte("0\n2\n2 90\n3 120\n"), 0o644))
	for _, p := range []string{root, part} {
		d, err := OpenLogDir(p)
		if err != nil {
			t.Fatal(err)
		}
		if d.Root != root || d.PartitionDir != part || len(d.Problems) != 0 {
			t.Fatalf("%s: root %q part %q problems %v", p, d.Root, d.PartitionDir, d.Problems)
		}
		if len(d.Segments) != 2 || d.Segments[0].BaseOffset != 90 || d.Segments[1].BaseOffset != 120 {
			t.Fatalf("segments %+v", d.Segments)
		}
		if len(d.Snapshots) != 2 || *d.Snapshots[1].Snapshot != (SnapshotID{100, 2}) {
			t.Fatalf("snapshots %+v", d.Snapshots)
		}
		if d.Bootstrap == nil || d.MetaProperties == nil || d.MetaProperties.NodeID != 1 || d.QuorumState == nil ||
			d.QuorumState.LeaderEpoch != 3 || len(d.LeaderEpochs) != 2 || d.PartitionMetadata.TopicID != MetadataTopicID {
			t.Fatalf("dir %+v", d)
		}
		if len(d.Ignored) != 6 || len(d.Unknown) != 0 {
			t.Fatalf("ignored %v unknown %v", d.Ignored, d.Unknown)
		}
	}
	// Single files.
	d, err := OpenLogDir(filepath.Join(part, SegmentFileName(120)))
	if err != nil || len(d.Segments) != 1 || d.Segments[0].BaseOffset != 120 {
		t.Fatalf("segment: %v %+v", err, d)
	}
	d, err = OpenLogDir(filepath.Join(root, BootstrapFileName))
	if err != nil || d.Bootstrap == nil {
		t.Fatalf("bootstrap: %v %+v", err, d)
	}
	// Not KRaft, missing, lock.
	for _, p := range []string{t.TempDir(), filepath.Join(root, "missing"), filepath.Join(root, LockFileName), filepath.Join(root, MetaPropertiesFileName)} {
		if _, err := OpenLogDir(p); err == nil || !IsOurs(err) {
			t.Fatalf("%s: err %v", p, err)
		}
	}
	if _, err := OpenLogDir(t.TempDir()); !errors.Is(err, ErrNotKRaft) {
		t.Fatalf("empty dir: %v", err)
	}
}

func TestPlanReplay(t *testing.T) {
	root, _ := standardDir(t)
	d, err := OpenLogDir(root)
	must(t, err)
	p := d.PlanReplay()
	if p.Snapshot == nil || p.Snapshot.Snapshot.EndOffset != 100 || p.StartOffset != 100 || len(p.Segments) != 2 || p.Hole || p.Bootstrap != nil {
		t.Fatalf("plan %+v", p)
	}
	st := p.Stream(StreamOptions{})
	defer st.Close()
	var snapRecs, logRecs []int64
	for {
		b, err := st.Next()
		if err == io.EOF {
			break
		}
		must(t, err)
		it := b.Records()
		for it.Next() {
			if st.File().Kind == KindSnapshot {
				snapRecs = append(snapRecs, it.Record().Offset)
			} else {
				logRecs = append(logRecs, it.Record().Offset)
			}
		}
		must(t, it.Err())
	}
	if len(snapRecs) != 5 || snapRecs[0] != 0 { // header, 3 data, footer
		t.Fatalf("snapshot offsets %v", snapRecs)
	}
	if len(logRecs) != 40 || logRecs[0] != 100 || logRecs[39] != 139 {
		t.Fatalf("log offsets %d: %v", len(logRecs), logRecs)
	}

	// A snapshot whose first batch is not a header is passed over.
	must(t, os.WriteFile(d.Snapshots[1].Path, workedExample(t), 0o644))
	p = d.PlanReplay()
	if p.Snapshot == nil || p.Snapshot.Snapshot.EndOffset != 50 || len(p.Skipped) != 1 || !p.Hole {
		t.Fatalf("fallback plan %+v", p)
	}
}

func TestStreamTornTail(t *testing.T) {
	_, part := standardDir(t)
	last := filepath.Join(part, SegmentFileName(120))
	fi, _ := os.Stat(last)
	must(t, os.Truncate(last, fi.Size()-3))
	d, err := OpenLogDir(part)
	must(t, err)
	for _, tolerate := range []bool{false, true} {
		st := d.Log(StreamOptions{TolerateTornTail: tolerate})
		var err error
		n := 0
		for {
			_, err = st.Next()
			if err != nil {
				break
			}
			n++
		}
		if n != 4 { // 90: two batches; 120: its LeaderChange and one of two
			t.Fatalf("tolerate=%v: %d batches", tolerate, n)
		}
		if tolerate && (err != io.EOF || !errors.Is(st.TornTail(), ErrTornTail)) {
			t.Fatalf("tolerated: %v / %v", err, st.TornTail())
		}
		if !tolerate && !errors.Is(err, ErrTornTail) {
			t.Fatalf("strict: %v", err)
		}
	}
}

// TestPlanReplayOldest: history's plan starts where the longest history
// the files hold does: the log's first record when the log starts at 0,
// else the oldest usable snapshot that reaches the log start.
func TestPlanReplayOldest(t *testing.T) {
	segs := []segSpec{{90, []batchSpec{{2, 10}, {2, 20}}}, {120, []batchSpec{{3, 5}}}}
	root, _ := buildLogDir(t, []SnapshotID{{EndOffset: 50, Epoch: 1}, {EndOffset: 95, Epoch: 2}, {EndOffset: 100, Epoch: 2}}, segs)
	d, err := OpenLogDir(root)
	must(t, err)
	if p := d.PlanReplay(); p.Snapshot.Snapshot.EndOffset != 100 {
		t.Fatalf("newest plan %+v", p)
	}
	p := d.PlanReplayOldest(-1)
	if p.Snapshot == nil || p.Snapshot.Snapshot.EndOffset != 95 || p.StartOffset != 95 || len(p.Segments) != 2 || p.Hole {
		t.Fatalf("oldest plan %+v", p)
	}
	// The snapshot at 50 does not reach the log start (90): never used.
	if p := d.PlanReplayOldest(94); p.Snapshot == nil || p.Snapshot.Snapshot.EndOffset != 50 || !p.Hole {
		t.Fatalf("oldest plan before 95: %+v", p)
	}
	root, _ = buildLogDir(t, []SnapshotID{{EndOffset: 30, Epoch: 2}}, []segSpec{{0, []batchSpec{{2, 40}}}})
	d, err = OpenLogDir(root)
	must(t, err)
	if p := d.PlanReplayOldest(-1); p.Snapshot != nil || p.StartOffset != 0 || len(p.Segments) != 1 {
		t.Fatalf("a log from offset 0: %+v", p)
	}
}
