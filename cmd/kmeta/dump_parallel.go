package main

import (
	"bufio"
	"bytes"
	"runtime"
	"sync"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/metalog"
)

// Parallel log dump. Formatting records is nearly all of a dump's time and
// is independent from batch to batch, so a large file is read through a
// metalog.ParallelReader whose workers each run a private dumper over
// their batches into a buffer; the batches' text is then written in file
// order, so the output is byte for byte the sequential one
// (TestParallelDumpMatchesSequential). The table format collects rows and
// stays sequential.

// parallelDumpMinSize is the file size from which dumps go parallel.
var parallelDumpMinSize int64 = 8 << 20

// batchSource is what dumpFile reads: batches, and how to dump each.
type batchSource interface {
	Next() (*metalog.Batch, error)
	Position() int64
	Close() error
	dump(d *dumper, f metalog.DataFile, b *metalog.Batch) error
}

type seqSource struct{ *metalog.Reader }

func (seqSource) dump(d *dumper, f metalog.DataFile, b *metalog.Batch) error {
	return d.dumpBatch(f, b)
}

// dumped is one batch as a worker dumped it. out goes back to dumpBufs
// once written.
type dumped struct {
	out      *bytes.Buffer
	problems int
	err      error
}

var dumpBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

type parSource struct {
	p   *metalog.ParallelReader[dumped]
	cur *dumped
}

func (s *parSource) Next() (*metalog.Batch, error) {
	b, res, err := s.p.Next()
	s.cur = res
	return b, err
}

func (s *parSource) Position() int64 { return s.p.Position() }
func (s *parSource) Close() error    { return s.p.Close() }

// dump writes what the worker made of b, and counts as dumpBatch would.
func (s *parSource) dump(d *dumper, f metalog.DataFile, b *metalog.Batch) error {
	d.done += b.Size()
	d.progress.Update(d.done, d.total)
	d.problems += s.cur.problems
	_, err := d.w.Write(s.cur.out.Bytes())
	dumpBufs.Put(s.cur.out)
	if err != nil {
		return err
	}
	return s.cur.err
}

// openBatches opens f for dumpFile, in parallel when it is worth it.
func (d *dumper) openBatches(f metalog.DataFile) (batchSource, error) {
	workers := runtime.GOMAXPROCS(0)
	if d.format == printer.Table || workers < 2 || f.Size < parallelDumpMinSize {
		r, err := metalog.OpenReader(f.Path, metalog.ReaderOptions{})
		if err != nil {
			return nil, err
		}
		return seqSource{r}, nil
	}
	p, err := metalog.OpenParallel(f.Path, metalog.ReaderOptions{}, workers, func() metalog.BatchWork[dumped] {
		// The smallest bufio buffer: lines go straight into the batch's
		// buffer instead of being copied through a second one.
		wd := &dumper{w: bufio.NewWriterSize(nil, 16), format: d.format, secrets: d.secrets, filter: d.filter}
		return func(b *metalog.Batch, _ error, _ bool) dumped {
			out := dumpBufs.Get().(*bytes.Buffer)
			out.Reset()
			wd.w.Reset(out)
			wd.problems = 0
			err := wd.dumpBatch(f, b)
			if ferr := wd.w.Flush(); err == nil {
				err = ferr
			}
			return dumped{out: out, problems: wd.problems, err: err}
		}
	})
	if err != nil {
		return nil, err
	}
	return &parSource{p: p}, nil
}
