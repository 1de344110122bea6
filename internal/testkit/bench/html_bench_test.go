package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/biglog"
	"github.com/kmeta/kmeta/internal/testkit/browsertest"
)

// The bounds on the html report of a 1,000,000-partition image:
// a file under 20 MB that headless Chromium opens in under 5 s.
const (
	reportMaxBytes = 20 << 20
	reportMaxOpen  = 5 * time.Second
	// reportOpens is how many times each page is opened, each in a
	// fresh browser.
	reportOpens = 3
)

// TestBenchHTMLReport measures the html reports of a cluster of
// 1,000,000 partitions (KMETA_BENCH_SCALE=small: 100,000), written by
// biglog as a controller leaves it (a snapshot of the cluster and a few
// minutes of changes after it): `kmeta image -o html` and `kmeta lint
// -o html` of the log dir, their time and peak RSS, the pages' sizes, and
// how long headless Chromium takes to open each (the Navigation Timing
// API's DOMContentLoaded and load event, the first contentful paint, and
// the wall time of the navigation; the median of reportOpens opens, each
// in a fresh browser).
// The image report must stay under reportMaxBytes and open (load event
// and first contentful paint) in under reportMaxOpen, the acceptance: the test fails when it
// does not. The lint report lists every finding (one per topic left at
// the default min.insync.replicas: 10,000 of them), so its figures are
// reported, not bounded.
func TestBenchHTMLReport(t *testing.T) {
	if os.Getenv("KMETA_BENCH") == "" {
		t.Skip("benchmark: run with `make bench` (KMETA_BENCH=1)")
	}
	if browsertest.Find() == "" {
		t.Skip("no browser: chromium not found; install Debian's chromium package")
	}
	bin := kmetaBin(t)
	parts := 1_000_000
	if smallScale() {
		parts = 100_000
	}
	dir := t.TempDir()
	start := time.Now()
	if err := biglog.Write(dir, parts); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote a log dir of %d partitions in %.1fs", parts, time.Since(start).Seconds())
	tb := &table{title: fmt.Sprintf("kmeta make bench: html reports of %d partitions", parts)}
	var pages []string
	for _, cmdName := range []string{"image", "lint"} {
		args := []string{cmdName, "-o", "html", "--report-time", "2026-01-02T03:04:05Z", "kraft:" + dir}
		page := filepath.Join(t.TempDir(), cmdName+".html")
		f, err := os.Create(page)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Stdout = f
		if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() > 1 {
			t.Fatalf("kmeta %s: %v", strings.Join(args, " "), err)
		}
		f.Close()
		rs := repeat(t, func() *exec.Cmd { return exec.Command(bin, args...) }, "", nil)
		st, err := os.Stat(page)
		if err != nil {
			t.Fatal(err)
		}
		tb.add(fmt.Sprintf("kmeta %s -o html, %d partitions", cmdName, parts), stats(rs), 0, "", nil, fmt.Sprintf("page %.2f MB", float64(st.Size())/1e6))
		pages = append(pages, page)
	}
	report(t, "KMETA_BENCH_REPORT", tb)

	var lines []string
	for i, page := range pages {
		st, _ := os.Stat(page)
		var dcl, load, fcp, wall []time.Duration
		for range reportOpens {
			tm := openTimed(t, page)
			dcl, load, fcp, wall = append(dcl, tm.DOMContentLoaded), append(load, tm.Load), append(fcp, tm.FirstContentfulPaint), append(wall, tm.Wall)
		}
		d, l, f, w := durs(dcl), durs(load), durs(fcp), durs(wall)
		lines = append(lines, fmt.Sprintf("%-10s %6.2f MB  DOMContentLoaded %5.2fs  load %5.2fs (min %.2fs, max %.2fs)  first contentful paint %5.2fs  navigation wall %5.2fs",
			filepath.Base(page), float64(st.Size())/1e6, d.med.Seconds(), l.med.Seconds(), l.min.Seconds(), l.max.Seconds(), f.med.Seconds(), w.med.Seconds()))
		if i == 0 {
			if st.Size() >= reportMaxBytes {
				t.Errorf("the image report of %d partitions is %d bytes, want under %d", parts, st.Size(), reportMaxBytes)
			}
			// Open: loaded and its content painted, whichever comes last.
			if open := max(l.med, f.med); open >= reportMaxOpen {
				t.Errorf("headless Chromium opens the image report of %d partitions in %s (median load event or first contentful paint), want under %s", parts, open, reportMaxOpen)
			}
		}
	}
	slices.Sort(lines)
	t.Logf("html reports of %d partitions in headless Chromium (%s), median of %d opens:\n%s", parts, browsertest.Find(), reportOpens, strings.Join(lines, "\n"))
}

// openTimed opens page in a fresh headless browser, checks it loaded
// without an error, and returns its timing.
func openTimed(t *testing.T, page string) browsertest.Timing {
	t.Helper()
	var tm browsertest.Timing
	// A subtest, so that the browser stops (its Cleanup) before the next
	// open.
	t.Run("open", func(t *testing.T) {
		p := browsertest.Open(t, page)
		tm = p.Timing(t)
		if errs := p.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %q", page, errs)
		}
	})
	return tm
}
