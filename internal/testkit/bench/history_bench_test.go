package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/metalog"
)

// lineCounter counts the lines and bytes a process writes, keeping none
// of them: a history of a million changes is hundreds of megabytes.
type lineCounter struct {
	lines, bytes int64
	first        []byte // the first line, to check its shape
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if c.first == nil || !bytes.Contains(c.first, []byte("\n")) {
		c.first = append(c.first, p[:min(len(p), 4096)]...)
	}
	c.lines += int64(bytes.Count(p, []byte("\n")))
	c.bytes += int64(len(p))
	return len(p), nil
}

// historyRun is one run of kmeta: wall time, CPU time, peak RSS (KiB)
// and what it wrote; exit 1 (findings) is success.
type historyRun struct {
	wall, cpu time.Duration
	rss       int64
	out       lineCounter
}

func runCounted(t *testing.T, bin string, args ...string) historyRun {
	t.Helper()
	var r historyRun
	cmd := exec.Command(bin, args...)
	cmd.Stdout = &r.out
	m := measureProc(t, cmd, 1, nil) // 1: findings (lint)
	r.wall, r.cpu, r.rss = m.wall, m.cpu, m.maxRSS
	return r
}

// TestBenchHistory measures kmeta history (issue 33) over the log of
// TestBenchLint's --history rows (changeLog: 1,000,000
// PartitionChangeRecords over 10,000 partitions, ISR and leader churn in
// batches of 1 to 50): every change as a JSON line, the same as text,
// and a narrow selection (one topic), beside kmeta lint of the same log
// (the replay alone, the floor). The target is under 5 s and under 200
// MiB for the JSON run; the figures are printed, never asserted. Each row
// runs KMETA_BENCH_RUNS times (3 here when unset: the rows are long) and
// prints min/median/max wall time and the largest peak RSS. The test
// fails only when a run does not list every change.
//
// KMETA_BENCH_SCALE=small: 100,000 changes.
func TestBenchHistory(t *testing.T) {
	bin := benchBin(t)
	changes, parts := 1_000_000, 10_000
	if smallScale() {
		changes = 100_000
	}
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("KMETA_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	dir := t.TempDir()
	if d := os.Getenv("KMETA_BENCH_DIR"); d != "" {
		dir = d
	}
	start := time.Now()
	logDir := filepath.Join(dir, fmt.Sprintf("changes-%d", changes))
	var rows []string
	if _, err := os.Stat(filepath.Join(logDir, "__cluster_metadata-0", metalog.SegmentFileName(0))); err == nil {
		// KMETA_BENCH_DIR kept: changeLog is a pure function of its sizes.
		rows = append(rows, fmt.Sprintf("log of %d partition changes over %d partitions (kept in %s)", changes, parts, logDir))
	} else {
		var batches int
		logDir, batches = changeLog(t, mkdir(t, dir, fmt.Sprintf("changes-%d", changes)), parts, changes)
		rows = append(rows, fmt.Sprintf("log of %d partition changes over %d partitions, %d batches (generated in %s)",
			changes, parts, batches, time.Since(start).Round(time.Second)))
	}
	row := func(what string, check func(historyRun), args ...string) {
		var rs []historyRun
		for range runs {
			r := runCounted(t, bin, args...)
			check(r)
			rs = append(rs, r)
		}
		slices.SortFunc(rs, func(a, b historyRun) int { return int(a.wall - b.wall) })
		med := rs[len(rs)/2]
		var peak int64
		for _, r := range rs {
			peak = max(peak, r.rss)
		}
		rows = append(rows, fmt.Sprintf("%-44s %6.2f s (min %.2f, max %.2f), %6.2f s CPU, peak RSS %4d MiB, %d lines, %d MiB out",
			what, med.wall.Seconds(), rs[0].wall.Seconds(), rs[len(rs)-1].wall.Seconds(), med.cpu.Seconds(), peak>>10, med.out.lines, med.out.bytes>>20))
	}
	// Every PartitionChangeRecord changes its partition: at least one
	// change each, besides the cluster's creation.
	all := func(r historyRun) {
		if r.out.lines < int64(changes) {
			t.Fatalf("%d lines for %d partition changes", r.out.lines, changes)
		}
	}
	row("kmeta lint (the replay alone)", func(historyRun) {}, "lint", "-o", "json", logDir)
	row("kmeta history -o json", func(r historyRun) {
		all(r)
		if !bytes.HasPrefix(r.out.first, []byte(`{"offset":`)) {
			t.Fatalf("first line %q", r.out.first)
		}
	}, "history", "-o", "json", logDir)
	row("kmeta history (text)", all, "history", logDir)
	row("kmeta history --entity topic:lint-topic-000042", func(r historyRun) {
		if r.out.lines == 0 || r.out.lines > int64(changes)/10 {
			t.Fatalf("%d lines for one topic of %d", r.out.lines, parts/100)
		}
	}, "history", "-o", "json", "--entity", "topic:lint-topic-000042", logDir)
	t.Logf("\nkmeta history (target: under 5 s and 200 MiB for -o json) (%s):\n%s", machine(), strings.Join(rows, "\n"))
}
