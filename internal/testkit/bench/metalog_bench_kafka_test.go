package bench

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/synth"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

func benchBytes() int64 {
	if s := os.Getenv("KMETA_BENCH_BYTES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return n
		}
	}
	return 512 << 20
}

// synthesize writes a segment of at least size bytes shaped like a busy
// cluster's metadata log: batches of 1-50 records, mostly partition changes
// and NoOps, a bounded set of topics (so the final image stays small).
func synthesize(t *testing.T, dir string, size int64) (path string, nrec, nbatch int64) {
	t.Helper()
	p := filepath.Join(dir, metalog.SegmentFileName(0))
	if kept, err := os.ReadFile(dir + ".count"); err == nil {
		// KMETA_BENCH_DIR kept from an earlier run: the log is a pure
		// function of size (for one synth generator), written atomically,
		// and its counts were written after it, beside its directory (in
		// it, check would report an unknown file).
		var was int64
		if _, err := fmt.Sscanf(string(kept), "%d %d %d", &was, &nrec, &nbatch); err == nil && was == size {
			t.Logf("reusing %s: %d batches, %d records", p, nbatch, nrec)
			return p, nrec, nbatch
		}
	}
	g := synth.New(7)
	w, err := metalog.CreateSegment(dir, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var written int64
	ts := int64(1700000000000)
	vals := make([][]byte, 0, 64)
	buf := make([]byte, 0, 1<<16)
	for i := 0; written < size; i++ {
		n := 1 + (i*7919)%50
		vals, buf = vals[:0], buf[:0]
		for j := 0; j < n; j++ {
			m, v := g.Busy()
			start := len(buf)
			buf, err = records.EncodeMetadata(buf, m, v)
			if err != nil {
				t.Fatal(err)
			}
			vals = append(vals, buf[start:len(buf):len(buf)])
		}
		if err := w.AppendData(5, ts+int64(i), vals); err != nil {
			t.Fatal(err)
		}
		nrec += int64(n)
		nbatch++
		for _, v := range vals {
			written += int64(len(v)) + 8
		}
		written += 61
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	t.Logf("synthesized %s: %d bytes, %d batches, %d records", p, st.Size(), nbatch, nrec)
	if err := os.WriteFile(dir+".count", fmt.Appendf(nil, "%d %d %d\n", size, nrec, nbatch), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, nrec, nbatch
}

func kmetaBin(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "..", "bin", "kmeta")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("build kmeta first (make build): %v", err)
	}
	return bin
}

// TestBenchSideBySide measures kmeta and, in the same run, what it is
// compared with: Kafka's DumpLogSegments as kafka-dump-log.sh runs it (log
// dump, text and JSON lines), the read+CRC-32C ceiling of the same file
// (log check), and image printing at two sizes (growth). Kafka reading
// every batch and record of the synthesized log is also the proof that
// kmeta's writer produces valid Kafka logs. Timings are reported, never
// asserted; the test fails only when a tool does not read everything.
//
// Sizes: a 512 MiB log and 1,000,000 / 100,000-partition snapshots;
// KMETA_BENCH_SCALE=small: 64 MiB and 100,000 / 10,000. KMETA_BENCH_BYTES
// overrides the log size, KMETA_BENCH_RUNS the runs per row (default 5),
// KMETA_BENCH_ROWS=log or =image one group of rows (=check: of the log
// rows, only log check and its ceiling, without Kafka's tool).
func TestBenchSideBySide(t *testing.T) {
	if os.Getenv("KMETA_BENCH") == "" {
		t.Skip("benchmark: run with `make bench` (KMETA_BENCH=1)")
	}
	bin := kmetaBin(t)
	dir := os.Getenv("KMETA_BENCH_DIR") // kept after the run when set
	if dir == "" {
		dir = t.TempDir()
	}
	size, bigParts, smallParts := benchBytes(), 1_000_000, 100_000
	if smallScale() {
		size, bigParts, smallParts = 64<<20, 100_000, 10_000
		if s := os.Getenv("KMETA_BENCH_BYTES"); s != "" {
			size = benchBytes()
		}
	}
	tb := &table{title: fmt.Sprintf("kmeta make bench: snapshots of %d and %d partitions", bigParts, smallParts)}
	switch {
	case benchRow("log"):
		benchLogRows(t, kafkatest.Dist(t, kafkatest.Latest4), bin, dir, size, tb)
	case benchRow("check"):
		benchCheckRows(t, bin, dir, size, tb)
	}
	if benchRow("image") {
		benchImageRows(t, bin, dir, bigParts, smallParts, tb)
	}
	report(t, "KMETA_BENCH_REPORT", tb)
}

// benchRow says whether KMETA_BENCH_ROWS (a comma-separated list of "log",
// "check" and "image"; empty for all) selects a group of rows, so that one
// engineer can measure only the rows their change moves. "log" includes
// "check".
func benchRow(group string) bool {
	s := os.Getenv("KMETA_BENCH_ROWS")
	return s == "" || slices.Contains(strings.Split(s, ","), group)
}

// benchLogRows: log dump against Kafka's tool, log check against the
// read+CRC ceiling.
func benchLogRows(t *testing.T, d *kafkatest.Distribution, bin, dir string, size int64, tb *table) {
	logPath, nrec, _ := synthesize(t, mkdir(t, dir, "log"), size)
	st, _ := os.Stat(logPath)
	logBytes := st.Size()
	tb.title += fmt.Sprintf("; %d-byte metadata log (%d records)", logBytes, nrec)

	wantRecords := func(who string) func(run) {
		return func(r run) {
			if r.count != nrec {
				t.Fatalf("%s printed %d records, want %d", who, r.count, nrec)
			}
		}
	}
	// Kafka's tool, as shipped.
	kafka := stats(repeat(t, func() *exec.Cmd {
		return kafkaScriptCommand(t, d, d.Tools.DumpLog, "--cluster-metadata-decoder", "--files", logPath)
	}, "| offset:", wantRecords("Kafka DumpLogSegments")))
	tb.add("Kafka DumpLogSegments --cluster-metadata-decoder (kafka-dump-log.sh JVM options)", kafka, logBytes, "", nil, "the peer of the two dump rows")
	text := stats(repeat(t, func() *exec.Cmd { return exec.Command(bin, "log", "dump", "--show-secrets", logPath) },
		"| offset:", wantRecords("kmeta log dump")))
	tb.add("kmeta log dump (text, as kafka-dump-log prints)", text, logBytes, "Kafka DumpLogSegments", &kafka, "")
	jl := stats(repeat(t, func() *exec.Cmd { return exec.Command(bin, "log", "dump", "--show-secrets", "-o", "json", logPath) },
		`"kind":"record"`, wantRecords("kmeta log dump -o json")))
	tb.add("kmeta log dump -o json (JSON lines)", jl, logBytes, "Kafka DumpLogSegments", &kafka, "")

	benchCheckPair(t, bin, dir, logPath, logBytes, size, tb)
}

// benchCheckRows: the log check rows alone (KMETA_BENCH_ROWS=check).
func benchCheckRows(t *testing.T, bin, dir string, size int64, tb *table) {
	logPath, nrec, _ := synthesize(t, mkdir(t, dir, "log"), size)
	st, _ := os.Stat(logPath)
	tb.title += fmt.Sprintf("; %d-byte metadata log (%d records)", st.Size(), nrec)
	benchCheckPair(t, bin, dir, logPath, st.Size(), size, tb)
}

// benchCheckPair: log check against reading the file and CRC-32C over
// every byte, on a log ten times smaller first (the growth).
func benchCheckPair(t *testing.T, bin, dir, logPath string, logBytes, size int64, tb *table) {
	smallPath, _, _ := synthesize(t, mkdir(t, dir, "log-small"), size/10)
	st, _ := os.Stat(smallPath)
	small, _ := benchLogCheck(t, bin, smallPath, st.Size(), tb, nil)
	benchLogCheck(t, bin, logPath, logBytes, tb, &small)
}

// benchLogCheck adds the rows of log check of path and of its read+CRC
// ceiling, with the growth over smaller's check when set, and returns
// the check's stat.
func benchLogCheck(t *testing.T, bin, path string, size int64, tb *table, smaller *stat) (stat, stat) {
	// The ceiling, check and check --frames-only (which says where
	// check's time goes: what validating the record bodies costs)
	// interleaved, run by run, so that a shared machine's load weighs on
	// all alike; the file's pages freshly cached first.
	freshPageCache(t, path)
	var ceil []stageCost
	var runs, frames []run
	for range benchRuns() {
		ceil = append(ceil, measure(t, func() error { readCRC(t, path); return nil }))
		runs = append(runs, runProc(t, exec.Command(bin, "log", "check", path), ""))
		frames = append(frames, runProc(t, exec.Command(bin, "log", "check", "--frames-only", path), ""))
	}
	ceiling := costs(ceil)
	tb.add(fmt.Sprintf("ceiling: read the %d-byte log + CRC-32C over it (in the bench process)", size), ceiling, size, "", nil, "page cache freshly filled before the rows (freshPageCache)")
	check, fr := stats(runs), stats(frames)
	name := fmt.Sprintf("kmeta log check of the %d-byte log (framing, CRC, record validation, KRaft rules)", size)
	bound := fmt.Sprintf("bound: CPU, %.2fs over %d cores; ratio = fraction of the ceiling", check.cpu.Seconds(), numCPU())
	if smaller == nil {
		tb.add(name, check, size, "read+CRC ceiling", &ceiling, bound)
	} else {
		tb.addGrowth(name, check, size, "read+CRC ceiling", &ceiling, *smaller, 10, bound)
	}
	tb.add("kmeta log check --frames-only, the same log (no record body validated)", fr, size, "read+CRC ceiling", &ceiling,
		fmt.Sprintf("the bodies' validation: %.2fs of check's CPU", (check.cpu-fr.cpu).Seconds()))
	return check, ceiling
}

// benchImageRows: image printing, text and JSON, at two sizes for growth.
func benchImageRows(t *testing.T, bin, dir string, bigParts, smallParts int, tb *table) {
	var img [2][2]stat
	for i, parts := range []int{smallParts, bigParts} {
		snap := synthSnapshot(t, mkdir(t, dir, fmt.Sprintf("img-%d", parts)), parts)
		for j, args := range [][]string{{"image", snap}, {"image", "-o", "json", snap}} {
			marker := ""
			if j == 1 {
				marker = `"partition":`
			}
			img[i][j] = stats(repeatWith(t, runProcFile, func() *exec.Cmd { return exec.Command(bin, args...) }, marker, func(r run) {
				if j == 1 && r.count != int64(parts) {
					t.Fatalf("kmeta image -o json printed %d partitions, want %d", r.count, parts)
				}
			}))
		}
	}
	for j, name := range []string{"kmeta image", "kmeta image -o json"} {
		tb.add(fmt.Sprintf("%s, %d partitions", name, smallParts), img[0][j], 0, "", nil, "")
		g := img[1][j]
		tb.add(fmt.Sprintf("%s, %d partitions", name, bigParts), g, 0, "", nil,
			fmt.Sprintf("growth for %dx partitions: time %.1fx, RSS %.1fx", bigParts/smallParts,
				g.med.Seconds()/img[0][j].med.Seconds(), float64(g.rss)/float64(max(1, img[0][j].rss))))
	}
}

// readCRC reads path with large reads and computes CRC-32C over it: what
// any log check must at least do.
func readCRC(t *testing.T, path string) time.Duration {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4<<20)
	var c uint32
	for {
		n, err := f.Read(buf)
		c = crc32.Update(c, castagnoli, buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	d := time.Since(start)
	sink = c
	return d
}

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	sink       uint32
)

func numCPU() int { return runtime.NumCPU() }

// synthSnapshot writes a snapshot of a cluster with parts partitions (100
// per topic, three replicas on three brokers, directories assigned) and
// returns its path.
func synthSnapshot(t *testing.T, dir string, parts int) string {
	t.Helper()
	part := mkdir(t, dir, "__cluster_metadata-0")
	path := filepath.Join(part, metalog.SnapshotID{EndOffset: int64(parts + parts/100 + 10), Epoch: 1}.FileName())
	if _, err := os.Stat(path); err == nil {
		// KMETA_BENCH_DIR kept from an earlier run: the snapshot is a pure
		// function of parts, and the writer is atomic, so it is whole.
		return path
	}
	w, err := metalog.CreateSnapshot(path, metalog.SnapshotOptions{Epoch: 1, Timestamp: 1700000000000})
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	add := func(m records.Metadata, v int16) {
		var err error
		if buf, err = records.EncodeMetadata(buf[:0], m, v); err != nil {
			t.Fatal(err)
		}
		if err := w.Append(buf); err != nil {
			t.Fatal(err)
		}
	}
	add(&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 27}, 0)
	dirs := []model.UUID{{1, 1}, {2, 2}, {3, 3}}
	for p := 0; p < parts; p += 100 {
		id := model.UUID{0xb, byte(p >> 24), byte(p >> 16), byte(p >> 8), byte(p)}
		add(&records.TopicRecord{Name: fmt.Sprintf("bench-topic-%07d", p/100), TopicId: id}, 0)
		for i := 0; i < min(100, parts-p); i++ {
			r := []int32{int32(i % 3), int32((i + 1) % 3), int32((i + 2) % 3)}
			add(&records.PartitionRecord{PartitionId: int32(i), TopicId: id, Replicas: r, Isr: r, Leader: r[0],
				LeaderEpoch: int32(i % 7), PartitionEpoch: int32(i % 11), Directories: dirs}, 1)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

func mkdir(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
