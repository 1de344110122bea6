package metalog

import (
	"math"
	"runtime"
)

// Batch-parallel checking. The Checker's walk is sequential: offsets,
// epochs, the clean prefix and the finding cap all depend on order. What
// costs time is per batch and independent of order: the CRC and the walk
// over the records (KRaft rules, frame headers, the decode hook). So a
// large file is read through a ParallelReader whose workers run
// Checker.records on their batches into a private list of findings
// (precheck). The consumer still feeds every batch to Checker.Batch in
// file order; records then only adds the worker's findings through
// Checker.add, in the order a sequential walk would have made them, so
// the cap, the clean prefix and the report are those of a sequential
// check (TestParallelCheckMatchesSequential). CheckFile and the parallel
// dump (dump_parallel.go) take this path. Image replay keeps the
// checker's walk on one goroutine, reading a large file one batch ahead
// of the replay (readAhead, replay_load.go): its cores go to decoding and
// applying.
//
// CheckOptions.DecodeValue and ValidValue are called from several
// goroutines at once on this path; the hooks kmeta passes are pure
// functions.

// ParallelMinFileSize is the size from which check and dump read a file
// in parallel; small files (snapshots, bootstrap files, fixtures) are not
// worth the goroutines. Tests lower it to exercise the parallel path.
var ParallelMinFileSize int64 = 8 << 20

// parallelWorkers is how many workers a file of size bytes is read with;
// below 2 it is read sequentially.
func parallelWorkers(size int64) int {
	if size < ParallelMinFileSize {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// batchSource is what CheckFile reads batches from: a Reader (no
// prechecked results), or the parallel pipeline.
type batchSource interface {
	Next() (*Batch, *prechecked, error)
	Close() error
}

type seqBatches struct{ *Reader }

func (r seqBatches) Next() (*Batch, *prechecked, error) {
	b, err := r.Reader.Next()
	return b, nil, err
}

// openSource opens f for CheckFile: in parallel when it is worth it and
// nothing needs the records in order (statistics do).
func (c *Checker) openSource(f DataFile) (batchSource, error) {
	workers := parallelWorkers(f.Size)
	if c.stats != nil || workers < 2 {
		r, err := OpenReader(f.Path, c.opts.Reader)
		if err != nil {
			return nil, err
		}
		return seqBatches{r}, nil
	}
	p, err := OpenParallel(f.Path, c.opts.Reader, workers, checkJobBytes, func() BatchWork[prechecked] {
		return c.newPrecheck(f)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// newPrecheck returns one worker's precheck of f's batches, on a private
// Checker with the same options.
func (c *Checker) newPrecheck(f DataFile) BatchWork[prechecked] {
	wc := &Checker{opts: c.opts, rep: &Report{}, counts: map[[2]string]int{}}
	// The cap applies once, when the findings enter the real report.
	wc.opts.MaxPerKind = math.MaxInt
	return func(b *Batch, crcErr error, first bool) prechecked {
		if crcErr != nil {
			return prechecked{} // Batch does not walk the records of such a batch
		}
		return wc.precheck(f, b, first)
	}
}

// prechecked is what a worker found for one batch: the findings of
// Checker.records and the control-record state it leaves in fileScan.
type prechecked struct {
	findings []Finding
	// visited says records saw at least one record (so last* apply).
	visited        bool
	firstIsControl bool
	firstControl   ControlType
	lastIsControl  bool
	lastControl    ControlType
}

// noVisit marks "no record seen" in a worker's fileScan; a control record
// of this very type is told apart by iterating once more (see precheck).
const noVisit = ControlType(math.MinInt16)

// precheck runs Checker.records on one batch into a private finding list.
func (c *Checker) precheck(f DataFile, b *Batch, firstBatch bool) prechecked {
	c.rep.Findings = c.rep.Findings[:0]
	ws := fileScan{first: firstBatch, lastIsControl: true, lastControl: noVisit}
	c.records(f, b, &ws)
	p := prechecked{
		firstIsControl: ws.firstIsControl, firstControl: ws.firstControl,
		lastIsControl: ws.lastIsControl, lastControl: ws.lastControl,
	}
	p.visited = !(ws.lastIsControl && ws.lastControl == noVisit)
	if !p.visited {
		it := b.Records()
		p.visited = it.Next()
	}
	if len(c.rep.Findings) > 0 {
		p.findings = append([]Finding(nil), c.rep.Findings...)
	}
	return p
}

// applyPrechecked stands in for Checker.records on a batch a worker has
// already walked: it adds the findings in their order and carries the
// control-record state over, exactly as records would have left it.
func (c *Checker) applyPrechecked(p *prechecked, s *fileScan) {
	for _, f := range p.findings {
		c.add(f)
	}
	if s.first {
		s.firstIsControl, s.firstControl = p.firstIsControl, p.firstControl
	}
	if p.visited {
		s.lastIsControl, s.lastControl = p.lastIsControl, p.lastControl
	}
}

// batchPrechecked is Batch for a batch whose records a worker has walked
// (pre from newPrecheck; nil walks them here).
func (c *Checker) batchPrechecked(b *Batch, readErr error, pre *prechecked) bool {
	c.pre = pre
	defer func() { c.pre = nil }()
	return c.Batch(b, readErr)
}
