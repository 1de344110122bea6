package metalog

import "sync"

// Parallel log dump. Formatting records is nearly all of a dump's time and
// is independent from batch to batch, so a large file is read through a
// ParallelReader whose workers each run a private Dumper over their
// batches into a buffer, and run the checker's per-batch record walk
// (Checker.newPrecheck) on the same batch. The consumer then feeds each
// batch to the dump's Checker in file order, with the worker's findings,
// and writes the batches' text in file order: the output is byte for byte
// the sequential one and the verdict (Damage, Problems, TornTails) is the
// same (TestParallelDumpMatchesSequential). DumpRows hands rows to a
// callback and stays sequential.

// dumpSource is what dumpFile reads: batches, and how to check and dump
// each.
type dumpSource interface {
	Next() (*Batch, error)
	Position() int64
	Close() error
	// dump feeds b (with the reader's error, nil or a CRC mismatch) to
	// the checker and writes it.
	dump(d *Dumper, f DataFile, b *Batch, readErr error) error
}

type seqDump struct{ *Reader }

func (seqDump) dump(d *Dumper, f DataFile, b *Batch, readErr error) error {
	d.check.Batch(b, readErr)
	return d.dumpBatch(f, b)
}

// dumped is one batch as a worker dumped and prechecked it. out goes back
// to dumpBufs once written.
type dumped struct {
	out      *[]byte
	problems int
	first    error
	err      error
	pre      prechecked
}

var dumpBufs = sync.Pool{New: func() any { return new([]byte) }}

// appendTo is a worker Dumper's writer: what it writes (error lines, the
// text dump's notes) joins its lines in d.buf, in order.
type appendTo struct{ d *Dumper }

func (a appendTo) Write(p []byte) (int, error) {
	a.d.buf = append(a.d.buf, p...)
	return len(p), nil
}

type parDump struct {
	p   *ParallelReader[dumped]
	cur *dumped
}

func (s *parDump) Next() (*Batch, error) {
	b, res, err := s.p.Next()
	s.cur = res
	return b, err
}

func (s *parDump) Position() int64 { return s.p.Position() }
func (s *parDump) Close() error    { return s.p.Close() }

// dump checks b with the worker's findings and writes what the worker made
// of it, counting as dumpBatch would.
func (s *parDump) dump(d *Dumper, f DataFile, b *Batch, readErr error) error {
	d.check.batchPrechecked(b, readErr, &s.cur.pre)
	d.done += b.Size()
	if d.opts.Progress != nil {
		d.opts.Progress(d.done, d.total)
	}
	d.problems += s.cur.problems
	if d.first == nil {
		d.first = s.cur.first
	}
	_, err := d.w.Write(*s.cur.out)
	dumpBufs.Put(s.cur.out)
	s.cur.out = nil
	if err != nil {
		return err
	}
	return s.cur.err
}

// openBatches opens f for dumpFile, in parallel when it is worth it.
func (d *Dumper) openBatches(f DataFile) (dumpSource, error) {
	workers := parallelWorkers(f.Size)
	if d.opts.Format == DumpRows || workers < 2 || d.check.stats != nil {
		r, err := OpenReader(f.Path, ReaderOptions{})
		if err != nil {
			return nil, err
		}
		return seqDump{r}, nil
	}
	p, err := OpenParallel(f.Path, ReaderOptions{}, workers, func() BatchWork[dumped] {
		wd := &Dumper{opts: d.opts, acc: true}
		wd.w = appendTo{wd}
		wd.opts.Progress, wd.opts.Row = nil, nil // the consumer reports progress
		check := d.check.newPrecheck(f)
		return func(b *Batch, crcErr error, first bool) dumped {
			out := dumpBufs.Get().(*[]byte)
			wd.buf, wd.problems, wd.first = (*out)[:0], 0, nil
			err := wd.dumpBatch(f, b)
			*out = wd.buf
			wd.buf = nil
			return dumped{out: out, problems: wd.problems, first: wd.first, err: err, pre: check(b, crcErr, first)}
		}
	})
	if err != nil {
		return nil, err
	}
	return &parDump{p: p}, nil
}
