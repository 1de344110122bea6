package metalog

import "io"

// ParallelReader reads a file's batches like Reader, while worker
// goroutines run a function over each batch ahead of the consumer: one
// goroutine frames the file (lengths and headers, exactly as Reader does),
// reading it straight into jobs of a few hundred kilobytes (the batches
// Reader would report as damage, or that do not fit a job, are read by
// Reader itself and copied in) and hands jobs out;
// each worker verifies the CRCs of its job's batches and calls its work
// function on them; Next returns the batches in file order with their
// results. Memory is bounded by a few jobs in flight per worker, whatever
// the file size. `log check` and `log dump` use it to spread their
// per-batch work over the cores with output identical to a sequential
// pass.
type ParallelReader[R any] struct {
	r       *Reader
	ordered chan *parallelJob[R]
	stop    chan struct{}
	free    chan *parallelJob[R] // jobs the consumer is done with
	maxJobs int                  // jobs in circulation at most
	jobSize int                  // batch bytes a job carries
	done    chan struct{}
	running int

	cur    *parallelJob[R]
	i      int
	pos    int64
	err    error
	closed bool
}

// BatchWork is one worker's function: it gets each batch (valid only
// during the call, like a batch from Reader.Next), the CRC error Reader
// would have returned with it (nil when valid or not checked), and whether
// it is the file's first batch.
type BatchWork[R any] func(b *Batch, crcErr error, first bool) R

// parallelJobBytes is how many batch bytes one of dump's jobs carries:
// enough to make the hand-over cheap, small enough that the jobs in flight
// (and what the workers made of them, a dump's text being several times
// its input) stay a few megabytes.
const parallelJobBytes = 256 << 10

// checkJobBytes is the same for check, whose workers make next to nothing
// of a job: larger jobs mean fewer hand-overs between the goroutines
// (each a wake-up, a few microseconds of CPU) and fewer, larger reads, as
// long as a job's arena stays well inside a core's L2 cache (2 MiB on the
// bench machine), where the worker reads what the read has just written.
// On the bench's 530 MB log: 256 KiB jobs 0.171 s wall, 0.308 s CPU;
// 512 KiB 0.163, 0.297; 1 MiB 0.158, 0.291; 2 MiB 0.162, 0.301; 4 MiB
// 0.177, 0.327. 1 MiB costs 6 MiB more peak memory than 256 KiB (ten
// jobs in flight). Tests set it to parallelJobBytes (forceParallel), so
// that their segments span many jobs and hold batches larger than one.
var checkJobBytes = 1 << 20

type parallelJob[R any] struct {
	batches []Batch
	pos     []int64 // Reader.Position after each batch
	res     []R
	crcErr  []error
	end     error // the error that ended the file after these batches, or nil
	// holdsFirst: batches[0] is the file's first batch.
	holdsFirst bool
	arena      []byte
	ready      chan struct{}
}

// reset empties a recycled job, keeping its buffers.
func (j *parallelJob[R]) reset() {
	j.batches, j.pos = j.batches[:0], j.pos[:0]
	j.end, j.holdsFirst, j.arena = nil, false, j.arena[:0]
	j.ready = make(chan struct{})
}

// OpenParallel opens path read-only like OpenReader and starts workers
// goroutines; newWorker is called once in each to make its work function
// (so a worker can keep private scratch state). A job carries about
// jobBytes of batches. Close it.
func OpenParallel[R any](path string, opts ReaderOptions, workers, jobBytes int, newWorker func() BatchWork[R]) (*ParallelReader[R], error) {
	checkCRC := !opts.SkipCRC
	opts.SkipCRC = true // the workers verify CRCs
	r, err := OpenReader(path, opts)
	if err != nil {
		return nil, err
	}
	workers = max(1, workers)
	p := &ParallelReader[R]{
		r:       r,
		ordered: make(chan *parallelJob[R], workers+1),
		stop:    make(chan struct{}),
		free:    make(chan *parallelJob[R], 3*workers+4),
		maxJobs: 3*workers + 4,
		jobSize: max(jobBytes, HeaderSize),
		done:    make(chan struct{}, workers+1),
		running: workers + 1,
	}
	jobs := make(chan *parallelJob[R], workers)
	go p.produce(jobs)
	maxDec := opts.withDefaults().MaxDecompressedBytes
	for range workers {
		go p.work(jobs, newWorker(), checkCRC, maxDec)
	}
	return p, nil
}

// produce frames the file and hands out jobs, in order, to the workers and
// to the consumer.
func (p *ParallelReader[R]) produce(jobs chan<- *parallelJob[R]) {
	defer func() { p.done <- struct{}{} }()
	defer close(jobs)
	defer close(p.ordered)
	first := true
	made := 0
	for {
		// Jobs are recycled, so that reading a file allocates a bounded
		// set of buffers, not a stream of them: a new one only while
		// fewer than maxJobs exist, else wait for the consumer to free one.
		var j *parallelJob[R]
		select {
		case j = <-p.free:
		default:
			if made < p.maxJobs {
				j = &parallelJob[R]{arena: make([]byte, 0, p.jobSize+p.jobSize/4)}
				made++
			} else {
				select {
				case j = <-p.free:
				case <-p.stop:
					return
				}
			}
		}
		j.reset()
		for len(j.arena) < p.jobSize {
			if p.frame(j) > 0 {
				continue
			}
			if len(j.arena) > 0 && p.r.pos != p.r.size {
				// A batch that does not fit what is left of this job's
				// arena: the next job frames it from the start of its own.
				break
			}
			// The one batch at the current position that frame does not
			// take (damage, a batch larger than an arena, the end of the
			// file): the Reader reads it, exactly as a sequential pass.
			b, err := p.r.Next()
			if err != nil {
				j.end = err
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
			j.pos = append(j.pos, p.r.Position())
		}
		j.res = append(j.res[:0], make([]R, len(j.batches))...)
		j.crcErr = append(j.crcErr[:0], make([]error, len(j.batches))...)
		if first && len(j.batches) > 0 {
			j.holdsFirst, first = true, false
		}
		select {
		case jobs <- j:
		case <-p.stop:
			return
		}
		select {
		case p.ordered <- j:
		case <-p.stop:
			return
		}
		if j.end != nil {
			return
		}
	}
}

// frame reads the file from the Reader's position straight into the free
// part of j's arena (one positioned read, no copy through the Reader's
// buffer) and takes the whole batches in it whose headers Reader would
// accept, up to the file's size as the Reader knows it. It stops at the
// first batch it cannot take whole, leaving it, and anything that
// Reader would report as damage, to Reader.Next at that position: what
// it takes is what Reader.Next would have returned (SkipCRC is set), and
// the rest is read by Reader itself. It returns how many batches it took.
func (p *ParallelReader[R]) frame(j *parallelJob[R]) int {
	r := p.r
	if r.f == nil || r.size < 0 || r.err != nil {
		return 0
	}
	at := len(j.arena)
	want := min(int64(cap(j.arena)-at), r.size-r.pos)
	if want < HeaderSize {
		return 0
	}
	buf := j.arena[at : at+int(want)]
	k, _ := r.f.ReadAt(buf, r.pos) // a short read leaves the rest to Reader
	buf = buf[:k]
	off, n := 0, 0
	for k-off >= HeaderSize {
		j.batches = append(j.batches, Batch{})
		b := &j.batches[len(j.batches)-1]
		if b.parse(buf[off:off+HeaderSize], r.name, r.pos+int64(off), r.opts.MaxBatchBytes) != nil || b.Size() > int64(k-off) {
			j.batches = j.batches[:len(j.batches)-1]
			break
		}
		end := off + int(b.Size())
		b.raw = buf[off:end:end]
		b.headers, b.dec = nil, nil
		off = end
		j.pos = append(j.pos, r.pos+int64(off))
		n++
	}
	j.arena = j.arena[:at+off]
	r.skipTo(r.pos + int64(off))
	return n
}

func (p *ParallelReader[R]) work(jobs <-chan *parallelJob[R], fn BatchWork[R], checkCRC bool, maxDec int) {
	defer func() { p.done <- struct{}{} }()
	dec := newDecompressor(maxDec)
	for j := range jobs {
		for i := range j.batches {
			b := &j.batches[i]
			b.dec = dec
			if checkCRC {
				b.CRCChecked = true
				b.CRCValid = b.ComputeCRC() == b.CRC
				if !b.CRCValid {
					j.crcErr[i] = b.crcError()
				}
			}
			j.res[i] = fn(b, j.crcErr[i], j.holdsFirst && i == 0)
			b.dec, b.headers = nil, nil
		}
		close(j.ready)
	}
}

// Next returns the next batch with its result, and the error Reader.Next
// would return: io.EOF at a clean end, a CRC error together with the batch
// (Next can be called again), any other error without one, for good.
// The batch and the result are valid until the following call.
func (p *ParallelReader[R]) Next() (*Batch, *R, error) {
	if p.err != nil {
		return nil, nil, p.err
	}
	for p.cur == nil || p.i >= len(p.cur.batches) {
		if p.cur != nil {
			if p.cur.end != nil {
				p.err = p.cur.end
				return nil, nil, p.err
			}
			select {
			case p.free <- p.cur:
			default:
			}
		}
		j, ok := <-p.ordered
		if !ok {
			p.err = io.EOF
			return nil, nil, p.err
		}
		<-j.ready
		p.cur, p.i = j, 0
	}
	i := p.i
	p.i++
	p.pos = p.cur.pos[i]
	return &p.cur.batches[i], &p.cur.res[i], p.cur.crcErr[i]
}

// Position is Reader.Position: the end of the last batch returned.
func (p *ParallelReader[R]) Position() int64 { return p.pos }

// Close stops the goroutines and closes the file.
func (p *ParallelReader[R]) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	close(p.stop)
	// Let the producer and the workers finish whatever they hold.
	go func() {
		for j := range p.ordered {
			<-j.ready
		}
	}()
	for range p.running {
		<-p.done
	}
	return p.r.Close()
}
