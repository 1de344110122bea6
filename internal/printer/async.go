package printer

import (
	"io"
	"sync"
)

// asyncWriter writes to w on its own goroutine, so that formatting a large
// image (hundreds of megabytes for a million partitions) and the write
// system calls that move it through a pipe run on two cores. Write copies
// its argument into one of a few buffers and returns; the goroutine writes
// them in order. The first error w returns is returned by every later
// Write and by Close, which must be called: it waits for everything to be
// written.
type asyncWriter struct {
	w    io.Writer
	full chan []byte
	free chan []byte
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func newAsyncWriter(w io.Writer) *asyncWriter {
	const buffers = 3
	a := &asyncWriter{w: w, full: make(chan []byte, buffers), free: make(chan []byte, buffers), done: make(chan struct{})}
	for range buffers {
		a.free <- nil
	}
	go a.run()
	return a
}

func (a *asyncWriter) run() {
	defer close(a.done)
	for b := range a.full {
		if a.error() == nil {
			if _, err := a.w.Write(b); err != nil {
				a.mu.Lock()
				a.err = err
				a.mu.Unlock()
			}
		}
		a.free <- b[:0]
	}
}

func (a *asyncWriter) error() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	if err := a.error(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	b := <-a.free
	a.full <- append(b, p...)
	return len(p), nil
}

// TakeBuffer is Write without the copy: p is written as it is, and the
// buffer returned (empty, at least p's capacity) is the caller's to fill
// next. The JSON image streams through it (model.Image.WriteIndentedJSON).
func (a *asyncWriter) TakeBuffer(p []byte) ([]byte, error) {
	if err := a.error(); err != nil {
		return p[:0], err
	}
	if len(p) == 0 {
		return p, nil
	}
	b := <-a.free
	a.full <- p
	if cap(b) < cap(p) {
		b = make([]byte, 0, cap(p))
	}
	return b[:0], nil
}

// Close waits until everything is written and returns the first error.
func (a *asyncWriter) Close() error {
	close(a.full)
	<-a.done
	return a.error()
}
