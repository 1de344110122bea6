package metalog

import (
	"bytes"
	"math"
	"testing"
)

// countWrites counts the Write calls a dump makes.
type countWrites struct {
	bytes.Buffer
	n int
}

func (c *countWrites) Write(p []byte) (int, error) {
	c.n++
	return c.Buffer.Write(p)
}

// TestParallelDumpCoalesced: a dump read through the pipeline writes
// exactly the sequential dump's bytes (text and JSON lines, over a file
// whose text fills several worker buffers, so buffers are released and
// reused mid-file), and hands them to the writer a job at a time, not a
// batch at a time (so a bufio.Writer passes them through rather than
// copying them; batch-by-batch writes, as before, fail the count).
func TestParallelDumpCoalesced(t *testing.T) {
	dir := t.TempDir()
	synthSegment(t, dir, 4<<20)
	for _, format := range []DumpFormat{DumpText, DumpJSON} {
		dump := func() (*countWrites, int) {
			d, err := OpenLogDir(dir)
			must(t, err)
			w := &countWrites{}
			dm := NewDumper(w, DumpOptions{Format: format, ShowSecrets: true, Filter: DumpFilter{To: -1}})
			must(t, dm.DumpDir(d))
			if dm.Damage() != nil {
				t.Fatal(dm.Damage())
			}
			batches := 0
			r, err := OpenReader(d.Segments[0].Path, ReaderOptions{})
			must(t, err)
			defer r.Close()
			for {
				if _, err := r.Next(); err != nil {
					break
				}
				batches++
			}
			return w, batches
		}
		old := ParallelMinFileSize
		ParallelMinFileSize = math.MaxInt64
		seq, batches := dump()
		ParallelMinFileSize = old
		forceParallel(t)
		par, _ := dump()
		if !bytes.Equal(seq.Bytes(), par.Bytes()) {
			t.Fatalf("format %d: the parallel dump (%d bytes) differs from the sequential one (%d bytes)", format, par.Len(), seq.Len())
		}
		if par.Len() < 4*dumpChunkBytes {
			t.Fatalf("format %d: %d bytes of output do not fill several worker buffers", format, par.Len())
		}
		// One write per job or per worker buffer, give or take: far fewer
		// than one per batch.
		if par.n*10 > batches {
			t.Fatalf("format %d: %d writes for %d batches", format, par.n, batches)
		}
		t.Logf("format %d: %d bytes, %d batches, %d writes (sequential: %d)", format, par.Len(), batches, par.n, seq.n)
	}
}
