package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/kafkatest"
	"github.com/kmeta/kmeta/internal/synth"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
)

func benchBytes() int64 {
	if s := os.Getenv("KMETA_BENCH_BYTES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return n
		}
	}
	return 1 << 30
}

// synthesize writes a segment of at least size bytes shaped like a busy
// cluster's metadata log: batches of 1-50 records, mostly partition changes
// and NoOps, a bounded set of topics (so the final image stays small).
func synthesize(t *testing.T, dir string, size int64) (path string, nrec, nbatch int64) {
	t.Helper()
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
	p := filepath.Join(dir, metalog.SegmentFileName(0))
	st, _ := os.Stat(p)
	t.Logf("synthesized %s: %d bytes, %d batches, %d records", p, st.Size(), nbatch, nrec)
	return p, nrec, nbatch
}

type runResult struct {
	wall    time.Duration
	maxRSS  int64 // KiB
	stdout  int64 // bytes printed
	records int64 // lines that carry a decoded record
	errors  int64 // lines reporting a decode error
}

// measure runs cmd with stdout counted (not stored) and reports wall time
// and peak RSS.
func measure(t *testing.T, cmd *exec.Cmd, recordMarker, errorMarker string) runResult {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var r runResult
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		r.stdout += int64(len(line)) + 1
		if bytes.Contains(line, []byte(recordMarker)) {
			r.records++
		}
		if errorMarker != "" && bytes.Contains(line, []byte(errorMarker)) {
			r.errors++
		}
	}
	err = cmd.Wait()
	r.wall = time.Since(start)
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = ru.Maxrss
		}
	}
	if err != nil && cmd.ProcessState.ExitCode() > 1 {
		t.Fatalf("%s: %v\n%s", cmd.Path, err, stderr.String())
	}
	return r
}

func kmetaBin(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "bin", "kmeta")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("build kmeta first (make build): %v", err)
	}
	return bin
}

func mbps(n int64, d time.Duration) float64 { return float64(n) / 1e6 / d.Seconds() }

// TestBenchSideBySide decodes and CRC-verifies a synthesized metadata log
// with kmeta and with Kafka's DumpLogSegments, in the same run, and prints
// throughput and memory. Kafka reading every batch and record of the file
// is also the proof that kmeta's writer produces valid Kafka logs.
func TestBenchSideBySide(t *testing.T) {
	if os.Getenv("KMETA_BENCH") == "" {
		t.Skip("benchmark: run with `make bench` (KMETA_BENCH=1)")
	}
	d := kafkatest.Dist(t, kafkatest.Latest4)
	bin := kmetaBin(t)
	dir := os.Getenv("KMETA_BENCH_DIR") // kept after the run when set
	if dir == "" {
		dir = t.TempDir()
	}
	size := benchBytes()
	small, nrecSmall, _ := synthesize(t, mkdir(t, dir, "small"), size/8)
	big, nrec, _ := synthesize(t, mkdir(t, dir, "big"), size)
	st, _ := os.Stat(big)
	bytesBig := st.Size()
	st, _ = os.Stat(small)
	smallBytes := st.Size()

	var rows []string
	row := func(name string, r runResult, n, recs int64) {
		rows = append(rows, fmt.Sprintf("%-50s %7.1fs %8.1f MB/s %11.0f rec/s %6d MiB RSS", name, r.wall.Seconds(), mbps(n, r.wall), float64(recs)/r.wall.Seconds(), r.maxRSS/1024))
	}

	// Full decode: every record to JSON text, both tools.
	km := measure(t, exec.Command(bin, "log", "dump", "--show-secrets", big), "| offset:", "Error at")
	row("kmeta log dump (decode+CRC, text)", km, bytesBig, nrec)
	java := d.Command(t.Context(), d.Tools.DumpLog, "--cluster-metadata-decoder", "--files", big)
	ka := measure(t, java, "| offset:", "Error at")
	row("Kafka DumpLogSegments --cluster-metadata-decoder", ka, bytesBig, nrec)
	if ka.errors != 0 || ka.records != nrec {
		t.Fatalf("Kafka read %d records with %d errors, want %d records and none", ka.records, ka.errors, nrec)
	}
	if km.records != nrec || km.errors != 0 {
		t.Fatalf("kmeta read %d records with %d errors, want %d", km.records, km.errors, nrec)
	}
	// Framing and CRC only.
	kc := measure(t, exec.Command(bin, "log", "check", big), "\x00", "")
	row("kmeta log check (framing, CRC, decode, KRaft rules)", kc, bytesBig, nrec)
	// Memory: dump and image on a log 8x smaller.
	ks := measure(t, exec.Command(bin, "log", "dump", "--show-secrets", small), "| offset:", "")
	row("kmeta log dump on 1/8 of the log", ks, smallBytes, nrecSmall)
	ki := measure(t, exec.Command(bin, "image", "-o", "json", big), "\x00", "")
	row("kmeta image (replay whole log)", ki, bytesBig, nrec)
	kis := measure(t, exec.Command(bin, "image", "-o", "json", small), "\x00", "")
	row("kmeta image on 1/8 of the log", kis, smallBytes, nrecSmall)

	report := fmt.Sprintf("log: %d bytes, %d records\n%s\nspeedup (decode, wall): %.1fx; dump RSS 1/8 vs full: %d vs %d MiB; image RSS 1/8 vs full: %d vs %d MiB\n",
		bytesBig, nrec, strings.Join(rows, "\n"), ka.wall.Seconds()/km.wall.Seconds(), ks.maxRSS/1024, km.maxRSS/1024, kis.maxRSS/1024, ki.maxRSS/1024)
	t.Log("\n" + report)
	if out := os.Getenv("KMETA_BENCH_REPORT"); out != "" {
		os.WriteFile(out, []byte(report), 0o644)
	}
}

func mkdir(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
