package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

func TestProgressThrottleAndClear(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgressTo(&buf, "reading", progressBytes, func() time.Time { return now })

	p.Update(0, 4096) // first update always draws
	now = now.Add(10 * time.Millisecond)
	p.Update(1024, 4096) // throttled
	now = now.Add(progressInterval)
	p.Update(2048, 4096) // drawn
	now = now.Add(time.Millisecond)
	p.Update(4096, 4096) // final: drawn despite the throttle
	p.Done()

	want := "\rreading:   0.0% (0 B / 4.0 KiB)" +
		"\rreading:  50.0% (2.0 KiB / 4.0 KiB)" +
		"\rreading: 100.0% (4.0 KiB / 4.0 KiB)" +
		"\r" + strings.Repeat(" ", len("reading: 100.0% (4.0 KiB / 4.0 KiB)")) + "\r"
	if got := buf.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	buf.Reset()
	q := newProgressTo(&buf, "znodes", progressCount, func() time.Time { return now })
	q.Update(123456, 0) // unknown total
	q.Update(7, 0)      // throttled (same instant)
	now = now.Add(time.Second)
	q.Update(7, 0) // shorter line pads over the longer one
	if got, want := buf.String(), "\rznodes: 123456\rznodes: 7     "; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestProgressOffWhenNotATerminal(t *testing.T) {
	var out, errw bytes.Buffer
	var p *progress
	cmds := []func() *cli.Command{func() *cli.Command {
		return &cli.Command{Name: "x", Action: func(c *cli.Context) error {
			p = newProgress(c, "x", progressCount)
			p.Update(1, 2) // nil-safe
			p.Done()
			return nil
		}}
	}}
	if code := runWith(t.Context(), cmds, []string{"kmeta", "x"}, &out, &errw); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	if p != nil || errw.Len() != 0 {
		t.Errorf("progress enabled on a non-terminal stderr: %v %q", p, errw.String())
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB", 1 << 62: "4.0 EiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestProgressConcurrentUpdates(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressTo(&buf, "znodes", progressCount, time.Now)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 1000 {
				p.Update(int64(g*1000+i), 8000)
			}
		}()
	}
	for range 8 {
		<-done
	}
	p.Done()
	if !strings.HasSuffix(buf.String(), "\r") {
		t.Errorf("progress line not cleared: %q", buf.String()[max(0, buf.Len()-40):])
	}
}
