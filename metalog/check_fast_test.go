package metalog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/synth"
	"github.com/kmeta/kmeta/metalog/records"
)

// synthSegment writes a segment of about size bytes shaped like the
// benchmark's synthesized log (internal/testkit/bench): batches of 1-50 busy-cluster
// records.
func synthSegment(t testing.TB, dir string, size int64) string {
	t.Helper()
	g := synth.New(7)
	w, err := CreateSegment(dir, 0, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var written int64
	vals := make([][]byte, 0, 64)
	buf := make([]byte, 0, 1<<16)
	for i := 0; written < size; i++ {
		n := 1 + (i*7919)%50
		vals, buf = vals[:0], buf[:0]
		for j := 0; j < n; j++ {
			m, v := g.Busy()
			start := len(buf)
			if buf, err = records.EncodeMetadata(buf, m, v); err != nil {
				t.Fatal(err)
			}
			vals = append(vals, buf[start:len(buf):len(buf)])
		}
		if err := w.AppendData(5, 1700000000000+int64(i), vals); err != nil {
			t.Fatal(err)
		}
		written += int64(len(buf)) + int64(n)*8 + 61
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, SegmentFileName(0))
}

func validateForCheck(v []byte) error {
	err := records.ValidateMetadata(v)
	if err != nil && (errorsIs(err, records.ErrUnknownType) || errorsIs(err, records.ErrUnknownVersion)) {
		return nil
	}
	return err
}

func BenchmarkCheckSynth(b *testing.B) {
	size := int64(64 << 20)
	dir := b.TempDir()
	p := synthSegment(b, dir, size)
	st, _ := os.Stat(p)
	for _, tc := range []struct {
		name string
		opts CheckOptions
	}{
		{"frames", CheckOptions{Strict: true}},
		{"validate", CheckOptions{Strict: true, DecodeValue: validateForCheck}},
		// What log check passes: the verdict first, the hook on refusal.
		{"verdict", CheckOptions{Strict: true, DecodeValue: validateForCheck, ValidValue: records.ValidMetadata}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				rep, err := Check(dir, tc.opts)
				if err != nil || !rep.OK() {
					b.Fatalf("%v %+v", err, rep)
				}
			}
		})
	}
}

var errorsIs = errors.Is

// forceParallel makes every file go through the parallel pipeline (and
// gives it two Ps even on one core) until the test ends, check's jobs the
// size of dump's (the size the tests' segments are measured in).
func forceParallel(t *testing.T) {
	old, oldProcs, oldJob := ParallelMinFileSize, runtime.GOMAXPROCS(0), checkJobBytes
	ParallelMinFileSize, checkJobBytes = 0, parallelJobBytes
	runtime.GOMAXPROCS(max(2, oldProcs))
	t.Cleanup(func() { ParallelMinFileSize, checkJobBytes = old, oldJob; runtime.GOMAXPROCS(oldProcs) })
}

func checkBothWays(t *testing.T, path string, opts CheckOptions) (seq, par *Report) {
	t.Helper()
	old := ParallelMinFileSize
	ParallelMinFileSize = math.MaxInt64
	seq, errS := Check(path, opts)
	ParallelMinFileSize = 0
	par, errP := Check(path, opts)
	ParallelMinFileSize = old
	if (errS == nil) != (errP == nil) {
		t.Fatalf("sequential error %v, parallel error %v", errS, errP)
	}
	if !reflect.DeepEqual(seq, par) {
		js, _ := json.MarshalIndent(seq, "", " ")
		jp, _ := json.MarshalIndent(par, "", " ")
		t.Fatalf("parallel report differs from sequential\nsequential:\n%s\nparallel:\n%s", js, jp)
	}
	return seq, par
}

// TestParallelCheckPassesCheckTests: the check tests' assertions hold
// with every file checked by the parallel pipeline.
func TestParallelCheckPassesCheckTests(t *testing.T) {
	forceParallel(t)
	t.Run("clean", TestCheckCleanDir)
	t.Run("findings", TestCheckFindings)
	t.Run("kraft rules", TestCheckKRaftRules)
	t.Run("decode hook", TestCheckDecodeHookAndBootstrapControl)
}

// TestParallelCheckMatchesSequential: on the real-Kafka fixtures (KRaft
// logs, and Kafka's compressed batches decompressed by the workers) and on a
// multi-job synthesized segment damaged in many ways (CRC, record bytes,
// frame headers, lengths, truncation), with a low finding cap, the parallel
// report equals the sequential one field for field, with jobs of dump's
// size (the segment spans 12) and of check's own (3).
func TestParallelCheckMatchesSequential(t *testing.T) {
	forceParallel(t)
	if checkJobBytes != parallelJobBytes {
		t.Fatal("forceParallel did not set check's job size")
	}
	opts := CheckOptions{Strict: true, DecodeValue: validateForCheck, MaxPerKind: 3}
	for _, v := range []string{"kraft/3.9.2/metadata", "kraft/4.4.0/metadata", "compressed/gzip", "compressed/lz4", "compressed/snappy", "compressed/zstd"} {
		checkBothWays(t, filepath.Join("..", "testdata", v), opts)
	}
	dir := t.TempDir()
	p := synthSegment(t, dir, 12*parallelJobBytes)
	orig, err := os.ReadFile(p)
	must(t, err)
	rep, _ := checkBothWays(t, dir, opts)
	if !rep.OK() || rep.Files[0].Batches < 100 {
		t.Fatalf("clean synthesized segment: %+v", rep)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var findings int
	var suppressed int64
	kindsSeen := 0
	for i := 0; i < 40; i++ {
		data := append([]byte(nil), orig...)
		switch i % 4 {
		case 0: // scattered flips: CRC mismatches
			for k := 0; k < 1+i; k++ {
				data[rng.IntN(len(data))] ^= 0x10
			}
		case 1: // flips with the CRCs fixed: record and frame findings
			for k := 0; k < 1+i; k++ {
				data[rng.IntN(len(data))] ^= byte(1 + rng.IntN(255))
			}
			refixCRCs(data)
		case 2: // truncation: torn tail
			data = data[:rng.IntN(len(data))]
		case 3: // a broken length in the middle: the file ends there
			at := rng.IntN(len(data) - 12)
			data[at+8], data[at+9] = 0x7f, 0xff
		}
		must(t, os.WriteFile(p, data, 0o644))
		checkJobBytes = parallelJobBytes
		if i%8 >= 4 {
			checkJobBytes = 1 << 20
		}
		r, _ := checkBothWays(t, dir, opts)
		checkBothWays(t, dir, CheckOptions{})
		findings += len(r.Findings)
		suppressed += r.Files[0].Suppressed
		kindsSeen += len(kinds(r))
	}
	t.Logf("%d findings (%d kinds listed), %d suppressed", findings, kindsSeen, suppressed)
	if findings < 40 || suppressed == 0 {
		t.Fatalf("the damage did not exercise the checks: %d findings, %d suppressed", findings, suppressed)
	}
}

// refixCRCs recomputes the CRC of every batch whose framing is intact, so
// that damage inside a batch reaches the record checks.
func refixCRCs(data []byte) {
	for pos := 0; pos+HeaderSize <= len(data); {
		n := int(binary.BigEndian.Uint32(data[pos+8:])) + LengthPrefix
		if n < HeaderSize || pos+n > len(data) {
			return
		}
		fixBatch(data[pos : pos+n])
		pos += n
	}
}

// TestParallelPathTaken: with the threshold at 0 and two Ps, CheckFile and
// the dumper read through the pipeline, so the parallel tests above test
// it (and not a silent fallback to the sequential reader).
func TestParallelPathTaken(t *testing.T) {
	forceParallel(t)
	d, err := OpenLogDir(filepath.Join("..", "testdata", "kraft", "4.4.0", "metadata"))
	must(t, err)
	f := d.Segments[0]
	c := NewChecker(d, CheckOptions{Strict: true})
	src, err := c.openSource(f)
	must(t, err)
	_, ok := src.(*ParallelReader[prechecked])
	src.Close()
	if !ok {
		t.Fatalf("check read %s through %T, not the pipeline", f.Path, src)
	}
	dm := NewDumper(io.Discard, DumpOptions{Format: DumpJSON})
	dm.check = c
	ds, err := dm.openBatches(f)
	must(t, err)
	_, ok = ds.(*parDump)
	ds.Close()
	if !ok {
		t.Fatalf("dump read %s through %T, not the pipeline", f.Path, ds)
	}
}

// TestParallelPassesVerdictTests: check, image replay and dump reach one
// verdict on every mutant with every file read by the pipeline where the
// readers use it (CheckFile: log check, and the files replay only checks).
func TestParallelPassesVerdictTests(t *testing.T) {
	forceParallel(t)
	t.Run("one verdict on mutants", TestOneVerdictOnMutants)
}
