package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/peakrss"
)

// How peers are run. Kafka's tools run as Kafka's scripts run them:
// kafka-dump-log.sh execs kafka-run-class.sh, whose defaults, when the
// user sets nothing, are KAFKA_HEAP_OPTS="-Xmx256M" and
// KAFKA_JVM_PERFORMANCE_OPTS="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
// -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
// -XX:MaxInlineLevel=15 -Djava.awt.headless=true" (apache/kafka
// bin/kafka-run-class.sh, "Memory options" and "JVM performance options").
// The test harness's own tool settings (C1 only, serial GC) are for quick
// test tools and would misstate what a user sees.
var kafkaScriptJVMOpts = append([]string{"-Xmx256M"}, kafkaPerfJVMOpts...)

// kafkaPerfJVMOpts are kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS,
// which every one of Kafka's scripts runs with; each script sets its own
// heap.
var kafkaPerfJVMOpts = []string{"-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
	"-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15",
	"-Djava.awt.headless=true"}

// zkScriptJVMOpts run the bench's ZooKeeper as Kafka 3.x's
// zookeeper-server-start.sh runs it when the user sets nothing: its
// KAFKA_HEAP_OPTS="-Xmx512M -Xms512M" and the performance options (its GC
// log, -loggc, left out). The harness's server settings (C1 only, a serial
// GC, a heap that starts at 64 MiB and grows) are made to start quickly in
// tests, and serve reads more slowly than a ZooKeeper users run: the
// multiRead ceiling of the live rows took 0.37 s against them and 0.27 s
// against these (median of 9, 2026-12-06).
var zkScriptJVMOpts = append([]string{"-Xmx512M", "-Xms512M"}, kafkaPerfJVMOpts...)

// kafkaServerJVMOpts run a Kafka server as kafka-server-start.sh runs it:
// KAFKA_HEAP_OPTS="-Xmx1G -Xms1G" and the performance options (its GC log
// left out). The bench's peer for the live ZooKeeper read, Kafka's own
// migration, runs with them.
var kafkaServerJVMOpts = append([]string{"-Xmx1G", "-Xms1G"}, kafkaPerfJVMOpts...)

// benchBin skips t unless KMETA_BENCH=1 (make bench) and returns the
// kmeta binary the rows run.
func benchBin(t *testing.T) string {
	t.Helper()
	if os.Getenv("KMETA_BENCH") != "1" {
		t.Skip("benchmark: set KMETA_BENCH=1 (make bench)")
	}
	return kmetaBin(t)
}

// benchRuns is how many times each row runs (KMETA_BENCH_RUNS, default 3;
// rows whose first run takes over a minute run twice).
func benchRuns() int { return benchEnvInt("KMETA_BENCH_RUNS", 5) }

// smallScale: KMETA_BENCH_SCALE=small shrinks every input for a quick run
// on a development machine.
func smallScale() bool { return os.Getenv("KMETA_BENCH_SCALE") == "small" }

// run is one measured process run.
type run struct {
	wall   time.Duration
	cpu    time.Duration // user+sys of the process; 0: not measured
	maxRSS int64         // KiB
	count  int64         // occurrences of the row's marker in stdout
	out    int64         // stdout bytes
}

// runProc runs cmd with stdout streamed through a counter of marker (so
// that nothing is kept) and returns wall time and peak RSS. A run that
// exits above 1 fails the test. The counting is not free: the bench
// process scans every byte on the same cores, inside the timed run (for
// the 647 MB of `zk image -o json` of 1,000,000 partitions, 0.23-0.26 s
// of CPU, and the pipe's writer and reader waking each other doubled
// kmeta's system time). Rows whose output is hundreds of megabytes run
// with runProcFile instead.
func runProc(t *testing.T, cmd *exec.Cmd, marker string) run {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	return measureProc(t, cmd, 1, func(r *run) { r.count, r.out = countMarker(t, out, marker) })
}

// runProcFile runs cmd as `cmd > file` runs it, the file on tmpfs
// (/dev/shm, when there is one: no writeback runs behind the later rows),
// and counts marker in the file after the run, outside the timed part. The
// file is removed.
func runProcFile(t *testing.T, cmd *exec.Cmd, marker string) run {
	t.Helper()
	f, err := os.CreateTemp(tmpfs(), "kmeta-bench-*.out")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Stdout = f
	r := measureProc(t, cmd, 1, nil)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	r.count, r.out = countMarker(t, f, marker)
	return r
}

// tmpfs is where the outputs of timed runs go: /dev/shm when there is
// one, so that no writeback of an earlier run's output runs behind a
// later one; the temp dir otherwise.
func tmpfs() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

// outDir is a directory in tmpfs() for t's outputs, removed when t ends.
func outDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp(tmpfs(), "kmeta-bench-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// measureProc starts cmd, calls during (when set) while it runs, waits for
// it, and returns its wall time from the start, peak RSS and CPU. A run
// that exits above okExit fails the test.
func measureProc(t *testing.T, cmd *exec.Cmd, okExit int, during func(*run)) run {
	t.Helper()
	// The bench process is kept quiet while a row runs: its own garbage
	// (a fixture just generated, the floor's read in this process) is
	// collected and handed back to the kernel here, not by its background
	// collector and scavenger on the same two cores inside the timed run.
	debug.FreeOSMemory()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rss := peakrss.Start(cmd.Process.Pid)
	var r run
	if during != nil {
		during(&r)
	}
	err := cmd.Wait()
	r.wall = time.Since(start)
	r.maxRSS = rss.Done()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if err != nil && cmd.ProcessState.ExitCode() > okExit {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, tail(stderr.String()))
	}
	return r
}

// countMarker reads rd to its end in 1 MiB reads and returns how often
// marker occurs (0 for an empty marker) and the bytes read.
func countMarker(t *testing.T, rd io.Reader, marker string) (count, total int64) {
	t.Helper()
	buf := make([]byte, 1<<20)
	m := []byte(marker)
	carry := 0
	for {
		n, err := rd.Read(buf[carry:])
		if n > 0 {
			total += int64(n)
			data := buf[:carry+n]
			if len(m) > 0 {
				// The carried tail is shorter than the marker, so nothing
				// is counted twice; a marker split by a read is counted.
				count += int64(bytes.Count(data, m))
				carry = copy(buf, data[len(data)-min(len(m)-1, len(data)):])
			}
		}
		if err == io.EOF {
			return count, total
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// repeat runs mk() benchRuns times (twice when the first takes over a
// minute) through runProc and checks every run with check.
func repeat(t *testing.T, mk func() *exec.Cmd, marker string, check func(run)) []run {
	t.Helper()
	return repeatWith(t, runProc, mk, marker, check)
}

// repeatWith is repeat with each run made by runOne (runProc or
// runProcFile).
func repeatWith(t *testing.T, runOne func(*testing.T, *exec.Cmd, string) run, mk func() *exec.Cmd, marker string, check func(run)) []run {
	t.Helper()
	var rs []run
	for i := 0; i < benchRuns(); i++ {
		r := runOne(t, mk(), marker)
		if check != nil {
			check(r)
		}
		rs = append(rs, r)
		if i == 0 && r.wall > time.Minute {
			rs = append(rs, runOne(t, mk(), marker))
			break
		}
	}
	return rs
}

// stat is min/median/max of the wall times, the median CPU time and the
// peak RSS of the runs.
type stat struct {
	min, med, max time.Duration
	cpu           time.Duration // median user+sys; 0: not measured
	rss           int64         // KiB, max over the runs; 0: not measured
	n             int
	// paired, when set, is the row's ratio to its peer as the median of
	// the ratios of runs made in pairs, the peer's and the row's one after
	// the other (pairedRatio); the table prints it instead of the ratio
	// of the two medians, which on a VM whose speed moves from one minute
	// to the next mixes runs made at different speeds.
	paired float64
}

// pairedRatio is the median over i of peer[i]/row[i]: runs made in pairs,
// each pair within seconds of each other.
func pairedRatio(peer, row []run) float64 {
	rs := make([]float64, min(len(peer), len(row)))
	if len(rs) == 0 {
		return 0
	}
	for i := range rs {
		rs[i] = peer[i].wall.Seconds() / row[i].wall.Seconds()
	}
	_, med, _ := spread(rs)
	return med
}

func stats(rs []run) stat {
	var ws, cs []time.Duration
	var s stat
	for _, r := range rs {
		ws = append(ws, r.wall)
		cs = append(cs, r.cpu)
		s.rss = max(s.rss, r.maxRSS)
	}
	s.min, s.med, s.max = spread(ws)
	_, s.cpu, _ = spread(cs)
	s.n = len(ws)
	return s
}

// spread is the min, median and max of ds.
func spread[T time.Duration | float64](ds []T) (lo, med, hi T) {
	ds = slices.Sorted(slices.Values(ds))
	med = ds[len(ds)/2]
	if len(ds)%2 == 0 {
		med = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	return ds[0], med, ds[len(ds)-1]
}

// costs is the stat of stages run in this process (measure): wall times,
// CPU (user+sys of the whole process while it ran) and no RSS of their
// own.
func costs(cs []stageCost) stat { return stats(stageRuns(cs)) }

// stageRuns are stages as runs: their wall and CPU times.
func stageRuns(cs []stageCost) []run {
	rs := make([]run, len(cs))
	for i, c := range cs {
		rs[i].wall, rs[i].cpu = c.wall, c.cpu
	}
	return rs
}

func durs(ds []time.Duration) stat {
	rs := make([]run, len(ds))
	for i, d := range ds {
		rs[i].wall = d
	}
	return stats(rs)
}

// table collects rows: a measurement, its peer (another tool or a
// ceiling) measured in the same run, and their ratio by median.
type table struct {
	title string
	rows  [][]string
}

func (tb *table) add(name string, s stat, bytes int64, peer string, peerStat *stat, note string) {
	thr := ""
	if bytes > 0 {
		thr = fmt.Sprintf("%.0f MB/s", float64(bytes)/1e6/s.med.Seconds())
	}
	rss := "-"
	if s.rss > 0 {
		rss = fmt.Sprintf("%d MiB", s.rss/1024)
	}
	ratio := ""
	if peerStat != nil {
		ratio = fmt.Sprintf("%.2fx", peerStat.med.Seconds()/s.med.Seconds())
		if s.paired > 0 {
			paired := fmt.Sprintf("ratio = median of the %d pairs' ratios (ratio of the medians: %s)", s.n, ratio)
			ratio = fmt.Sprintf("%.2fx", s.paired)
			note = strings.TrimSuffix(paired+"; "+note, "; ")
		}
	}
	cpu, cpuRatio := "-", ""
	if s.cpu > 0 {
		cpu = fmt.Sprintf("%.2fs", s.cpu.Seconds())
		if peerStat != nil && peerStat.cpu > 0 {
			cpuRatio = fmt.Sprintf("%.2fx", peerStat.cpu.Seconds()/s.cpu.Seconds())
		}
	}
	r := []string{name, fmt.Sprintf("%.2fs", s.min.Seconds()), fmt.Sprintf("%.2fs", s.med.Seconds()),
		fmt.Sprintf("%.2fs", s.max.Seconds()), fmt.Sprint(s.n), cpu, thr, rss, peer, ratio, cpuRatio, note}
	tb.rows = append(tb.rows, r)
	summary.rows = append(summary.rows, r)
}

// addGrowth adds the row of the larger input (big, factor times small's;
// bytes as for add)
// with the growth of its median time and peak RSS over small's in its
// note (linear or better: both at most factor).
func (tb *table) addGrowth(name string, big stat, bytes int64, peer string, peerStat *stat, small stat, factor int, note string) {
	g := fmt.Sprintf("growth for %dx input: time %.1fx", factor, big.med.Seconds()/small.med.Seconds())
	if big.rss > 0 && small.rss > 0 {
		g += fmt.Sprintf(", RSS %.1fx", float64(big.rss)/float64(small.rss))
	}
	if note != "" {
		g += "; " + note
	}
	tb.add(name, big, bytes, peer, peerStat, g)
}

// summary is every row of every table the run printed, printed once more
// at its end (TestMain) as the one table of `make bench`.
var summary = &table{title: "kmeta make bench: every row of this run (min/median/max wall over RUNS runs, median CPU user+sys, peak RSS = VmHWM)"}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(summary.rows) > 0 {
		fmt.Print("\n" + summary.String())
		if out := os.Getenv("KMETA_BENCH_SUMMARY"); out != "" {
			if err := os.WriteFile(out, []byte(summary.String()), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				code = 1
			}
		}
	}
	os.Exit(code)
}

func (tb *table) String() string {
	hdr := []string{"ROW", "MIN", "MEDIAN", "MAX", "RUNS", "CPU", "THROUGHPUT", "PEAK RSS", "VS", "RATIO (VS/ROW)", "CPU RATIO", "NOTE"}
	all := append([][]string{hdr}, tb.rows...)
	w := make([]int, len(hdr))
	for _, r := range all {
		for i, c := range r {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s, %s\n", tb.title, time.Now().UTC().Format("2006-01-02 15:04 MST"), machine())
	for _, r := range all {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c + strings.Repeat(" ", w[i]-len([]rune(c))))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func machine() string {
	load, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(load))
	l := ""
	if len(f) > 0 {
		l = ", load " + f[0]
	}
	return fmt.Sprintf("%d CPUs%s", numCPU(), l)
}

func report(t *testing.T, env string, tb *table) {
	t.Log("\n" + tb.String())
	if out := os.Getenv(env); out != "" {
		if err := os.WriteFile(out, []byte(tb.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}
