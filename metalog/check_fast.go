package metalog

import (
	"math"
	"runtime"
)

// Batch-parallel checking. Check's scan is a sequential walk: offsets,
// epochs, the clean prefix and the finding cap all depend on order. What
// costs time is per batch and independent of order: the CRC and the walk
// over the records (KRaft rules, frame headers, the decode hook). So the
// file is read through a ParallelReader whose workers run the per-batch
// record checks of check.go (checker.records) into a private list of
// findings. The scan consumes the batches in file order, and each batch's
// findings enter the report through checker.add in the order a sequential
// scan would have made them, so the report is the one a sequential check
// produces (TestParallelCheckMatchesSequential).
//
// CheckOptions.DecodeValue is called from several goroutines at once on
// this path; the hooks kmeta passes are pure functions.

// parallelMinFileSize is the size from which a file is checked in
// parallel; small files (snapshots, bootstrap files, fixtures) are not
// worth the goroutines. Tests set it to 0.
var parallelMinFileSize int64 = 8 << 20

// batchSource is what scan reads batches from: a Reader, or the parallel
// pipeline, which behaves exactly like one.
type batchSource interface {
	Next() (*Batch, error)
	Position() int64
	Close() error
}

// openSource opens f for scan: in parallel when it is worth it and nothing
// needs the records in order (statistics do).
func (c *checker) openSource(f DataFile) (batchSource, error) {
	workers := runtime.GOMAXPROCS(0)
	if c.stats != nil || workers < 2 || f.Size < parallelMinFileSize {
		return OpenReader(f.Path, c.opts.Reader)
	}
	p, err := OpenParallel(f.Path, c.opts.Reader, workers, func() BatchWork[prechecked] {
		wc := &checker{opts: c.opts, rep: &Report{}, counts: map[[2]string]int{}}
		// The cap applies once, when the findings enter the real report.
		wc.opts.MaxPerKind = math.MaxInt
		return func(b *Batch, crcErr error, first bool) prechecked {
			if crcErr != nil {
				return prechecked{} // scan does not walk the records of such a batch
			}
			return wc.precheck(f, b, first)
		}
	})
	if err != nil {
		return nil, err
	}
	return &parallelSource{p: p, c: c}, nil
}

// parallelSource adapts the ParallelReader to scan: each batch's result
// is left in checker.pre for records to pick up.
type parallelSource struct {
	p *ParallelReader[prechecked]
	c *checker
}

func (s *parallelSource) Next() (*Batch, error) {
	b, pre, err := s.p.Next()
	s.c.pre = nil
	if b != nil && err == nil {
		s.c.pre = pre
	}
	return b, err
}

func (s *parallelSource) Position() int64 { return s.p.Position() }

func (s *parallelSource) Close() error {
	s.c.pre = nil
	return s.p.Close()
}

// prechecked is what a worker found for one batch: the outcome of
// checker.records and the control-record state it leaves in fileScan.
type prechecked struct {
	findings []Finding
	clean    bool
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

// precheck runs checker.records on one batch into a private finding list.
func (wc *checker) precheck(f DataFile, b *Batch, firstBatch bool) prechecked {
	wc.rep.Findings = wc.rep.Findings[:0]
	ws := fileScan{lastIsControl: true, lastControl: noVisit}
	clean := wc.records(f, b, &ws, firstBatch)
	p := prechecked{
		clean:          clean,
		firstIsControl: ws.firstIsControl, firstControl: ws.firstControl,
		lastIsControl: ws.lastIsControl, lastControl: ws.lastControl,
	}
	p.visited = !(ws.lastIsControl && ws.lastControl == noVisit)
	if !p.visited {
		it := b.Records()
		p.visited = it.Next()
	}
	if len(wc.rep.Findings) > 0 {
		p.findings = append([]Finding(nil), wc.rep.Findings...)
	}
	return p
}

// applyPrechecked stands in for checker.records on a batch a worker has
// already walked: it adds the findings in their order and carries the
// control-record state over, exactly as records would have left it.
func (c *checker) applyPrechecked(p *prechecked, s *fileScan, firstBatch bool) bool {
	for _, f := range p.findings {
		c.add(f)
	}
	if firstBatch {
		s.firstIsControl, s.firstControl = p.firstIsControl, p.firstControl
	}
	if p.visited {
		s.lastIsControl, s.lastControl = p.lastIsControl, p.lastControl
	}
	return p.clean
}
