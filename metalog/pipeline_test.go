package metalog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/synth"
	"github.com/kmeta/kmeta/metalog/records"
)

// bigBatchSegment writes a segment of about size bytes in which every
// 97th batch holds 9,000 records: larger than a ParallelReader job's
// arena, so that the pipeline's own framing hands it to Reader and takes
// over again after it. It returns the path and the batches' positions.
func bigBatchSegment(t *testing.T, dir string, size int64) (string, []int64) {
	t.Helper()
	g := synth.New(11)
	w, err := CreateSegment(dir, 0, WriteOptions{})
	must(t, err)
	var written int64
	var starts []int64 // the batches' positions
	var vals [][]byte
	var buf []byte
	for i := 0; written < size; i++ {
		n := 1 + (i*7919)%50
		if i%97 == 5 {
			n = 9000
		}
		vals, buf = vals[:0], buf[:0]
		for range n {
			m, v := g.Busy()
			start := len(buf)
			if buf, err = records.EncodeMetadata(buf, m, v); err != nil {
				t.Fatal(err)
			}
			vals = append(vals, buf[start:len(buf):len(buf)])
		}
		must(t, w.AppendData(5, 1700000000000+int64(i), vals))
		written += int64(len(buf)) + int64(n)*8 + 61
	}
	must(t, w.Commit())
	p := filepath.Join(dir, SegmentFileName(0))
	data, err := os.ReadFile(p)
	must(t, err)
	for pos := int64(0); pos < int64(len(data)); pos += int64(binary.BigEndian.Uint32(data[pos+8:])) + LengthPrefix {
		starts = append(starts, pos)
	}
	return p, starts
}

// TestParallelFramingAroundBigBatches: ParallelReader reads a file
// straight into its jobs and leaves to Reader every batch it does not
// take whole (a batch larger than a job, damage, the end of the file).
// On a segment with batches larger than a job, clean and damaged at
// and around those batches and at job boundaries, check and dump through
// the pipeline equal the sequential reader field for field and byte for
// byte.
func TestParallelFramingAroundBigBatches(t *testing.T) {
	forceParallel(t)
	dir := t.TempDir()
	p, starts := bigBatchSegment(t, dir, 6*parallelJobBytes)
	orig, err := os.ReadFile(p)
	must(t, err)
	var big []int64 // positions of the big batches
	for i, s := range starts {
		end := int64(len(orig))
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		if end-s > parallelJobBytes+parallelJobBytes/4 {
			big = append(big, s)
		}
	}
	if len(big) < 2 {
		t.Fatalf("%d batches larger than a job, want at least 2", len(big))
	}
	opts := CheckOptions{Strict: true, DecodeValue: validateForCheck, MaxPerKind: 3}
	rep, _ := checkBothWays(t, dir, opts)
	if !rep.OK() || rep.Files[0].Batches != int64(len(starts)) {
		t.Fatalf("clean segment: %+v", rep)
	}
	dumpBothWays(t, p)
	rng := rand.New(rand.NewPCG(3, 4))
	// -short (make test's race pass, where each case is ten times dearer):
	// every kind of damage twice.
	cases := 24
	if testing.Short() {
		cases = 12
	}
	for i := 0; i < cases; i++ {
		data := append([]byte(nil), orig...)
		// Half the damage lands in or next to a big batch.
		at := rng.IntN(len(data))
		if i%2 == 0 {
			b := big[rng.IntN(len(big))]
			at = int(b) + rng.IntN(2*HeaderSize) - HeaderSize
		}
		switch i % 6 {
		case 0, 1: // a flip: a CRC mismatch
			data[at] ^= 0x10
		case 2, 3: // truncation: a torn tail
			data = data[:at]
		case 4: // a broken length: bad-length, or a torn tail
			i := starts[rng.IntN(len(starts))]
			data[i+8], data[i+9] = 0x00, 0x7f
		case 5: // a bad magic
			i := starts[rng.IntN(len(starts))]
			data[i+16] = 9
		}
		must(t, os.WriteFile(p, data, 0o644))
		checkBothWays(t, dir, opts)
		checkBothWays(t, dir, CheckOptions{})
		// The dumps (text and JSON, both ways) cost most of the test:
		// the first half of the cases (every kind of damage once or
		// twice) is enough for them.
		if i < cases/2 {
			dumpBothWays(t, p)
		}
	}
}

// dumpBothWays dumps the log dir of path (text and JSON, with the
// checker's verdict) sequentially and through the pipeline and compares
// the bytes and the verdicts.
func dumpBothWays(t *testing.T, path string) {
	t.Helper()
	for _, format := range []DumpFormat{DumpText, DumpJSON} {
		var out [2]bytes.Buffer
		var damage [2]string
		var torn [2][]TornTail
		for k, min := range []int64{math.MaxInt64, 0} {
			old := ParallelMinFileSize
			ParallelMinFileSize = min
			d, err := OpenLogDir(filepath.Dir(path))
			must(t, err)
			dm := NewDumper(&out[k], DumpOptions{Format: format, ShowSecrets: true, Filter: DumpFilter{To: -1}})
			if err := dm.DumpDir(d); err != nil {
				fmt.Fprintf(&out[k], "\nerror: %v", err)
			}
			ParallelMinFileSize = old
			if f := dm.Damage(); f != nil {
				damage[k] = fmt.Sprintf("%+v %+v", *f, *f.Where)
			}
			torn[k] = dm.TornTails()
		}
		if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) || damage[0] != damage[1] || !reflect.DeepEqual(torn[0], torn[1]) {
			t.Fatalf("format %d: the dump through the pipeline (%d bytes, damage %s, torn %v) differs from the sequential one (%d bytes, damage %s, torn %v)",
				format, out[1].Len(), damage[1], torn[1], out[0].Len(), damage[0], torn[0])
		}
	}
}
