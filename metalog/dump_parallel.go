package metalog

import (
	"io"
	"sync"
)

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
//
// A worker appends the text of consecutive batches to one buffer of a few
// hundred kilobytes, and the consumer writes the batches of a job (which
// lie next to each other in it) in one call: a JSON dump's output is
// several times its input, and handing it over batch by batch made the
// consumer copy all of it into the bufio.Writer, on the one goroutine the
// others wait for; a write this large goes past the buffer.

// dumpSource is what dumpFile reads: batches, and how to check and dump
// each.
type dumpSource interface {
	Next() (*Batch, error)
	Position() int64
	Close() error
	// dump feeds b (with the reader's error, nil or a CRC mismatch) to
	// the checker and writes it.
	dump(d *Dumper, f DataFile, b *Batch, readErr error) error
	// flush writes what dump has held back; dumpFile calls it before
	// anything else is written and at the end of the file.
	flush() error
}

type seqDump struct{ *Reader }

func (seqDump) dump(d *Dumper, f DataFile, b *Batch, readErr error) error {
	d.check.Batch(b, readErr)
	return d.dumpBatch(f, b)
}

func (seqDump) flush() error { return nil }

// dumped is one batch as a worker dumped and prechecked it. out is the
// batch's text, a range of the worker's buffer buf (its capacity runs on
// to the end of that buffer, so that the consumer can tell the next
// batch's range follows it); release marks buf's last range: buf goes
// back to dumpBufs once written.
type dumped struct {
	out      []byte
	buf      *[]byte
	release  bool
	problems int
	first    error
	err      error
	pre      prechecked
}

var dumpBufs = sync.Pool{New: func() any { return new([]byte) }}

// dumpChunkBytes is how much text a worker's buffer takes before the next
// batch starts a new one.
const dumpChunkBytes = 512 << 10

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
	w   io.Writer
	// pend: the text of the batches dumped but not yet written, one range
	// of one worker buffer; done: buffers released into it.
	pend []byte
	done []*[]byte
}

func (s *parDump) Next() (*Batch, error) {
	b, res, err := s.p.Next()
	s.cur = res
	return b, err
}

func (s *parDump) Position() int64 { return s.p.Position() }
func (s *parDump) Close() error    { return s.p.Close() }

// dump checks b with the worker's findings and takes what the worker made
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
	if err := s.take(s.cur); err != nil {
		return err
	}
	return s.cur.err
}

// take adds a batch's text to pend, writing pend first when the text does
// not follow it in memory, and after it when its buffer is complete.
func (s *parDump) take(r *dumped) error {
	out := r.out
	r.out = nil
	if len(out) > 0 {
		if n := len(s.pend); n > 0 && cap(s.pend)-n >= len(out) && &s.pend[:n+1][n] == &out[0] {
			s.pend = s.pend[:n+len(out)]
		} else {
			if err := s.flush(); err != nil {
				return err
			}
			s.pend = out
		}
	}
	if r.release {
		s.done = append(s.done, r.buf)
		return s.flush()
	}
	return nil
}

func (s *parDump) flush() error {
	var err error
	if len(s.pend) > 0 {
		_, err = s.w.Write(s.pend)
	}
	s.pend = nil
	for i, b := range s.done {
		dumpBufs.Put(b)
		s.done[i] = nil
	}
	s.done = s.done[:0]
	return err
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
	p, err := OpenParallel(f.Path, ReaderOptions{}, workers, parallelJobBytes, func() BatchWork[dumped] {
		wd := &Dumper{opts: d.opts, acc: true}
		wd.w = appendTo{wd}
		wd.opts.Progress, wd.opts.Row = nil, nil // the consumer reports progress
		check := d.check.newPrecheck(f)
		var cur *[]byte // the buffer this worker appends to
		return func(b *Batch, crcErr error, first bool) dumped {
			if cur == nil {
				cur = dumpBufs.Get().(*[]byte)
				if cap(*cur) < dumpChunkBytes+dumpChunkBytes/4 {
					*cur = make([]byte, 0, dumpChunkBytes+dumpChunkBytes/4)
				}
				*cur = (*cur)[:0]
			}
			start := len(*cur)
			wd.buf, wd.problems, wd.first = *cur, 0, nil
			err := wd.dumpBatch(f, b)
			*cur = wd.buf
			wd.buf = nil
			res := dumped{out: (*cur)[start:], buf: cur, problems: wd.problems, first: wd.first, err: err, pre: check(b, crcErr, first)}
			if len(*cur) >= dumpChunkBytes {
				res.release, cur = true, nil
			}
			return res
		}
	})
	if err != nil {
		return nil, err
	}
	return &parDump{p: p, w: d.w}, nil
}
