package metalog

import (
	"io"
	"math"
	"runtime"
	"sync"
)

// Batch-parallel checking. Check's scan is a sequential walk: offsets,
// epochs, the clean prefix and the finding cap all depend on order. What
// costs time is per batch and independent of order: the CRC and the walk
// over the records (KRaft rules, frame headers, the decode hook). So one
// goroutine frames the file (lengths only, as Reader does), copies each
// batch into a job, and workers on the other cores verify CRCs and run the
// per-batch record checks of check.go (checker.records) into a private
// list of findings. The scan then consumes the batches in file order, and
// each batch's findings enter the report through checker.add in the order
// a sequential scan would have made them, so the report is byte-for-byte
// the one a sequential check produces (TestParallelCheckMatchesSequential).
//
// CheckOptions.DecodeValue is called from several goroutines at once on
// this path; the hooks kmeta passes are pure functions.

// parallelMinFileSize is the size from which a file is checked in
// parallel; small files (snapshots, bootstrap files, fixtures) are not
// worth the goroutines. Tests set it to 0.
var parallelMinFileSize int64 = 8 << 20

// parallelJobBytes is how many batch bytes one job carries.
const parallelJobBytes = 1 << 20

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
	ropts := c.opts.Reader
	ropts.SkipCRC = true // the workers verify CRCs
	r, err := OpenReader(f.Path, ropts)
	if err != nil {
		return nil, err
	}
	return newParallelSource(c, f, r, workers), nil
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

type parallelJob struct {
	batches []Batch
	pos     []int64 // Reader.Position after each batch
	pre     []prechecked
	crcErr  []error
	end     error // the error that ended the file after these batches, or nil
	// holdsFirst: batches[0] is the file's first batch.
	holdsFirst bool
	arena      []byte
	done       chan struct{}
}

type parallelSource struct {
	r       *Reader
	ordered chan *parallelJob
	stop    chan struct{}
	free    chan []byte
	wg      sync.WaitGroup

	cur     *parallelJob
	i       int
	pos     int64
	err     error
	current *prechecked
	checker *checker
}

// noVisit marks "no record seen" in a worker's fileScan; a control record
// of this very type is told apart by iterating once more (see precheck).
const noVisit = ControlType(math.MinInt16)

func newParallelSource(c *checker, f DataFile, r *Reader, workers int) *parallelSource {
	ps := &parallelSource{
		r:       r,
		ordered: make(chan *parallelJob, 2*workers+2),
		stop:    make(chan struct{}),
		free:    make(chan []byte, 2*workers+4),
		checker: c,
	}
	jobs := make(chan *parallelJob, 2*workers+2)
	ps.wg.Add(1 + workers)
	go ps.produce(jobs)
	for range workers {
		go ps.work(c, f, jobs)
	}
	return ps
}

// produce frames the file and hands out jobs, in order, to the workers and
// to the consumer.
func (ps *parallelSource) produce(jobs chan<- *parallelJob) {
	defer ps.wg.Done()
	defer close(jobs)
	defer close(ps.ordered)
	first := true
	for {
		j := &parallelJob{done: make(chan struct{})}
		select {
		case j.arena = <-ps.free:
			j.arena = j.arena[:0]
		default:
			j.arena = make([]byte, 0, parallelJobBytes+parallelJobBytes/4)
		}
		for len(j.arena) < parallelJobBytes {
			b, err := ps.r.Next()
			if err != nil {
				if err != io.EOF {
					j.end = err
				} else {
					j.end = io.EOF
				}
				break
			}
			cp := *b
			if len(j.arena)+len(b.raw) <= cap(j.arena) {
				start := len(j.arena)
				j.arena = append(j.arena, b.raw...)
				cp.raw = j.arena[start:len(j.arena):len(j.arena)]
			} else {
				cp.raw = append([]byte(nil), b.raw...)
			}
			// Scratch the reader shares between batches must not be
			// shared between workers.
			cp.headers, cp.dec = nil, nil
			j.batches = append(j.batches, cp)
			j.pos = append(j.pos, ps.r.Position())
		}
		j.pre = make([]prechecked, len(j.batches))
		j.crcErr = make([]error, len(j.batches))
		// The first batch of the file is the one records treats as first.
		if first && len(j.batches) > 0 {
			j.holdsFirst, first = true, false
		}
		select {
		case jobs <- j:
		case <-ps.stop:
			return
		}
		select {
		case ps.ordered <- j:
		case <-ps.stop:
			return
		}
		if j.end != nil {
			return
		}
	}
}

func (ps *parallelSource) work(c *checker, f DataFile, jobs <-chan *parallelJob) {
	defer ps.wg.Done()
	wc := &checker{opts: c.opts, rep: &Report{}, counts: map[[2]string]int{}}
	// The cap applies once, when the findings enter the real report.
	wc.opts.MaxPerKind = math.MaxInt
	dec := newDecompressor(c.opts.Reader.withDefaults().MaxDecompressedBytes)
	checkCRC := !c.opts.Reader.SkipCRC
	for j := range jobs {
		for i := range j.batches {
			b := &j.batches[i]
			b.dec = dec
			if checkCRC {
				b.CRCChecked = true
				b.CRCValid = b.ComputeCRC() == b.CRC
				if !b.CRCValid {
					j.crcErr[i] = b.crcError()
					continue // scan does not walk the records of such a batch
				}
			}
			j.pre[i] = wc.precheck(f, b, j.holdsFirst && i == 0)
			b.dec = nil
		}
		close(j.done)
	}
}

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

// Next returns the batches in file order, as Reader.Next does.
func (ps *parallelSource) Next() (*Batch, error) {
	ps.current, ps.checker.pre = nil, nil
	if ps.err != nil {
		return nil, ps.err
	}
	for ps.cur == nil || ps.i >= len(ps.cur.batches) {
		if ps.cur != nil {
			if ps.cur.end != nil {
				ps.err = ps.cur.end
				return nil, ps.err
			}
			select {
			case ps.free <- ps.cur.arena:
			default:
			}
		}
		j, ok := <-ps.ordered
		if !ok {
			ps.err = io.EOF
			return nil, ps.err
		}
		<-j.done
		ps.cur, ps.i = j, 0
	}
	i := ps.i
	ps.i++
	b := &ps.cur.batches[i]
	ps.pos = ps.cur.pos[i]
	if err := ps.cur.crcErr[i]; err != nil {
		return b, err
	}
	ps.current = &ps.cur.pre[i]
	ps.checker.pre = ps.current
	return b, nil
}

func (ps *parallelSource) Position() int64 { return ps.pos }

// Close stops the pipeline and closes the file.
func (ps *parallelSource) Close() error {
	close(ps.stop)
	// Drain so that the producer and the workers can finish.
	go func() {
		for j := range ps.ordered {
			<-j.done
		}
	}()
	ps.wg.Wait()
	ps.checker.pre = nil
	return ps.r.Close()
}
