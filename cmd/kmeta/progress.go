package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// progress draws a one-line progress indicator on stderr. Libraries never
// print: they accept a callback func(done, total int64), and a command
// passes p.Update:
//
//	p := newProgress(c, "reading segments", progressBytes)
//	defer p.Done()
//	img, err := metalog.Load(ctx, dir, metalog.Options{Progress: p.Update})
//
// A nil *progress is valid and does nothing, as does one created when
// progress is off (stderr is not a terminal, or --no-progress).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	unit    progressUnit
	now     func() time.Time
	last    time.Time
	drawn   bool
	lastLen int
}

// progressUnit says how done/total are printed.
type progressUnit int

const (
	progressCount progressUnit = iota // records, znodes, files
	progressBytes                     // sizes, printed as KiB/MiB/GiB
)

// progressInterval throttles redraws; callbacks may come per record.
const progressInterval = 100 * time.Millisecond

// newProgress returns a reporter that draws on stderr only when stderr is a
// terminal and --no-progress was not given; otherwise its methods do
// nothing. Safe for concurrent use (readers may report from goroutines).
func newProgress(c *cli.Context, label string, unit progressUnit) *progress {
	if commonBool(c, flagNoProgress) || !isTerminal(stderr(c)) {
		return nil
	}
	return newProgressTo(stderr(c), label, unit, time.Now)
}

// newProgressTo is newProgress without the terminal check, for tests.
func newProgressTo(w io.Writer, label string, unit progressUnit, now func() time.Time) *progress {
	return &progress{w: w, label: label, unit: unit, now: now}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Update is the callback libraries call. total <= 0 means unknown.
func (p *progress) Update(done, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	// Always draw the first and the final update; throttle the rest.
	if p.drawn && !(total > 0 && done >= total) && t.Sub(p.last) < progressInterval {
		return
	}
	p.last = t
	p.draw(done, total)
}

func (p *progress) draw(done, total int64) {
	var line string
	if total > 0 {
		pct := float64(done) * 100 / float64(total)
		line = fmt.Sprintf("%s: %5.1f%% (%s / %s)", p.label, pct, p.format(done), p.format(total))
	} else {
		line = fmt.Sprintf("%s: %s", p.label, p.format(done))
	}
	// Pad over the previous line so a shorter one leaves no residue.
	pad := p.lastLen - len(line)
	p.lastLen = len(line)
	if pad < 0 {
		pad = 0
	}
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
	p.drawn = true
}

// Done clears the progress line so that later stderr output starts clean.
func (p *progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintf(p.w, "\r%*s\r", p.lastLen, "")
		p.drawn = false
		p.lastLen = 0
	}
}

func (p *progress) format(n int64) string {
	if p.unit != progressBytes {
		return fmt.Sprintf("%d", n)
	}
	return formatBytes(n)
}

// formatBytes prints n with a binary unit, one decimal above 1 KiB.
func formatBytes(n int64) string {
	const k = 1024
	if n < k {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n) / k
	i := 0
	for v >= k && i < len(units)-1 {
		v /= k
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
