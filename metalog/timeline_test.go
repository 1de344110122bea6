package metalog

import (
	"bufio"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/kmeta/kmeta/metalog/records"
)

// kdTypeRe reads a record's type from a kafka-dump-log record line: the
// payload's "type" for a data record, the message's name for a control
// record (--cluster-metadata-decoder).
var kdTypeRe = regexp.MustCompile(`^\| offset: (-?\d+) .*? headerKeys: \[[^\]]*\] (?:payload: \{"type":"([A-Z_]+)"|(\w+) \{)`)

// kdControlNames are kmeta's names of the control records Kafka's dump
// names by their message.
var kdControlNames = map[string]string{"LeaderChange": "LEADER_CHANGE", "SnapshotHeader": "SNAPSHOT_HEADER",
	"SnapshotFooter": "SNAPSHOT_FOOTER", "KRaftVersion": "KRAFT_VERSION", "KRaftVoters": "KRAFT_VOTERS"}

// kdRecord is one record of a Kafka dump: its offset, type and its
// batch's time.
type kdRecord struct {
	offset, time int64
	typ          string
}

func kafkaDumpRecords(t *testing.T, path string) []kdRecord {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var out []kdRecord
	var batchTime int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		l := sc.Text()
		if m := kdBatchRe.FindStringSubmatch(l); m != nil {
			batchTime, _ = strconv.ParseInt(m[11], 10, 64)
			continue
		}
		m := kdTypeRe.FindStringSubmatch(l)
		if m == nil {
			if kdRecordRe.MatchString(l) {
				t.Fatalf("%s: no record type in %q", path, l)
			}
			continue
		}
		off, _ := strconv.ParseInt(m[1], 10, 64)
		typ := m[2]
		if typ == "" {
			if typ = kdControlNames[m[3]]; typ == "" {
				t.Fatalf("%s: unknown control record %q", path, m[3])
			}
		}
		out = append(out, kdRecord{off, batchTime, typ})
	}
	must(t, sc.Err())
	return out
}

// wantHistogram bins values by the rule Timeline documents: the smallest
// width of widths whose bins from that of the smallest value to that of
// the largest number at most TimelineBins.
func wantHistogram(widths []int64, recs []kdRecord, value func(kdRecord) int64) Histogram {
	h := Histogram{Counts: map[string][]int64{}}
	if len(recs) == 0 {
		return h
	}
	lo, hi := value(recs[0]), value(recs[0])
	for _, r := range recs {
		lo, hi = min(lo, value(r)), max(hi, value(r))
	}
	w := widths[0]
	for _, x := range widths {
		if w = x; floorDiv(hi, w)-floorDiv(lo, w) < TimelineBins {
			break
		}
	}
	h.Start, h.Width, h.First, h.Last = floorDiv(lo, w)*w, w, lo, hi
	n := floorDiv(hi, w) - floorDiv(lo, w) + 1
	for _, r := range recs {
		c := h.Counts[r.typ]
		if c == nil {
			c = make([]int64, n)
			h.Counts[r.typ] = c
		}
		c[floorDiv(value(r), w)-floorDiv(lo, w)]++
	}
	return h
}

// TestTimelineKafkaFixtures replays the logs real Kafka wrote with a
// Timeline observing, and compares what it counted with Kafka's own
// DumpLogSegments output of the same files (committed next to them):
// every record of the snapshot replay starts from, by type; every record
// of the segments after it but the transaction markers (which take no
// effect of their own), by type, offset and batch time.
func TestTimelineKafkaFixtures(t *testing.T) {
	for _, v := range []string{"3.9.2", "4.4.0"} {
		t.Run(v, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", "kraft", v, "metadata")
			tl := NewTimeline()
			res, err := LoadImage(dir, ImageOptions{AtOffset: -1, Observe: tl.Observe})
			must(t, err)
			if res.Plan.Snapshot == nil {
				t.Fatal("the fixture replays no snapshot: the snapshot's count goes untested")
			}
			dumps := filepath.Join("..", "testdata", "kraft", v, "dumps")
			snapEnd := res.Plan.Snapshot.Snapshot.EndOffset
			wantSnap := map[string]int64{}
			for _, r := range kafkaDumpRecords(t, filepath.Join(dumps, filepath.Base(res.Plan.Snapshot.Path)+".txt")) {
				wantSnap[r.typ]++
			}
			var log []kdRecord
			for _, s := range res.Plan.Segments {
				for _, r := range kafkaDumpRecords(t, filepath.Join(dumps, filepath.Base(s.Path)+".txt")) {
					switch r.typ {
					case "BEGIN_TRANSACTION_RECORD", "END_TRANSACTION_RECORD", "ABORT_TRANSACTION_RECORD":
						continue
					}
					if r.offset >= snapEnd {
						log = append(log, r)
					}
				}
			}
			if len(log) == 0 {
				t.Fatal("no record after the snapshot: the log's counts go untested")
			}
			wantLog := map[string]int64{}
			for _, r := range log {
				wantLog[r.typ]++
			}
			gotSnap, gotLog := map[string]int64{}, map[string]int64{}
			for _, ty := range tl.Types() {
				if ty.Snapshot > 0 {
					gotSnap[ty.Name] = ty.Snapshot
				}
				if ty.Log > 0 {
					gotLog[ty.Name] = ty.Log
				}
			}
			if !maps.Equal(gotSnap, wantSnap) {
				t.Errorf("snapshot records by type:\n got %v\nwant %v", gotSnap, wantSnap)
			}
			if !maps.Equal(gotLog, wantLog) {
				t.Errorf("log records by type:\n got %v\nwant %v", gotLog, wantLog)
			}
			checkHistogram(t, "offsets", tl.Offsets(), wantHistogram(offsetWidths, log, func(r kdRecord) int64 { return r.offset }))
			checkHistogram(t, "times", tl.Times(), wantHistogram(timeWidths, log, func(r kdRecord) int64 { return r.time }))
			t.Logf("%d types; offsets: %d bins of %d from %d; times: %d bins of %d ms", len(tl.Types()),
				tl.Offsets().Bins(), tl.Offsets().Width, tl.Offsets().Start, tl.Times().Bins(), tl.Times().Width)
		})
	}
}

func checkHistogram(t *testing.T, what string, got, want Histogram) {
	t.Helper()
	if got.Start != want.Start || got.Width != want.Width || !maps.EqualFunc(got.Counts, want.Counts, slices.Equal) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// TestTimelineBinsWiden feeds values in random order, spreading over many
// orders of magnitude and going below the first, and checks that the
// bins always equal those binned at once by the documented rule (widening
// and shifting merge bins exactly), and that the size stays
// TimelineBins.
func TestTimelineBinsWiden(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		tl := NewTimeline()
		var recs []kdRecord
		names := []string{"TOPIC_RECORD", "PARTITION_RECORD", "NO_OP_RECORD"}
		for i := range 2000 {
			spread := int64(1) << rng.IntN(40)
			v := 1_000_000 + rng.Int64N(spread) - spread/3
			r := kdRecord{offset: v, time: 1_700_000_000_000 + v, typ: names[rng.IntN(3)]}
			recs = append(recs, r)
			tl.Observe(nil, Position{Offset: r.offset, Timestamp: r.time}, namedRecord(r.typ))
			if i%97 == 0 || i == 1999 {
				checkHistogram(t, "offsets", tl.Offsets(), wantHistogram(offsetWidths, recs, func(r kdRecord) int64 { return r.offset }))
				checkHistogram(t, "times", tl.Times(), wantHistogram(timeWidths, recs, func(r kdRecord) int64 { return r.time }))
				if t.Failed() {
					t.Fatalf("round %d, after %d values", round, i+1)
				}
			}
		}
		if n := tl.Offsets().Bins(); n > TimelineBins || n < 1 {
			t.Fatalf("%d bins", n)
		}
	}
}

// namedRecord is a record of the type name names.
func namedRecord(name string) records.Metadata {
	switch name {
	case "TOPIC_RECORD":
		return &records.TopicRecord{}
	case "PARTITION_RECORD":
		return &records.PartitionRecord{}
	}
	return &records.NoOpRecord{}
}

// TestTimelineSnapshotApart: the records between a snapshot's header and
// footer are counted apart, on no axis; the types come most records
// first.
func TestTimelineSnapshotApart(t *testing.T) {
	tl := NewTimeline()
	at := Position{Offset: 99, Timestamp: 5000}
	tl.Observe(nil, at, &records.SnapshotHeaderRecord{})
	for range 3 {
		tl.Observe(nil, at, &records.TopicRecord{})
	}
	tl.Observe(nil, at, &records.SnapshotFooterRecord{})
	tl.Observe(nil, Position{Offset: 100, Timestamp: 6000}, &records.NoOpRecord{})
	tl.Observe(nil, Position{Offset: 101, Timestamp: 0}, &records.NoOpRecord{})
	got := tl.Types()
	want := []TimelineType{{"TOPIC_RECORD", 3, 0}, {"NO_OP_RECORD", 0, 2}, {"SNAPSHOT_FOOTER", 1, 0}, {"SNAPSHOT_HEADER", 1, 0}}
	if !slices.Equal(got, want) {
		t.Errorf("types %+v, want %+v", got, want)
	}
	if h := tl.Offsets(); h.Start != 100 || h.Width != 1 || !slices.Equal(h.Counts["NO_OP_RECORD"], []int64{1, 1}) || len(h.Counts) != 1 {
		t.Errorf("offsets %+v", h)
	}
	// The batch without a time is on the offset axis only.
	if h := tl.Times(); h.Start != 6000 || h.Width != 1000 || !slices.Equal(h.Counts["NO_OP_RECORD"], []int64{1}) {
		t.Errorf("times %+v", h)
	}
}
