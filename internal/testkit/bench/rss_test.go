package bench

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// rssWatch samples a running process's peak RSS.
//
// The kernel's rusage ru_maxrss of a child cannot be used: os/exec starts
// children with vfork (CLONE_VM), and exec records the high-water mark of
// the address space it replaces, the parent's, into the child's maxrss. A
// child of a bench process holding a million synthesized partitions would
// show at least that process's RSS. VmHWM in /proc/PID/status is the
// high-water mark of the child's own address space after exec, so it is
// sampled until the process exits; a peak reached in its last few
// milliseconds can be missed (sampling every rssEvery), none is inflated.
type rssWatch struct {
	peak int64 // KiB
	stop chan struct{}
	wg   sync.WaitGroup
}

const rssEvery = 2 * time.Millisecond

// watchRSS starts sampling pid; call done after Wait.
func watchRSS(pid int) *rssWatch {
	w := &rssWatch{stop: make(chan struct{})}
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		tick := time.NewTicker(rssEvery)
		defer tick.Stop()
		for {
			if kb := vmHWM(path); kb > w.peak {
				w.peak = kb
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// done stops sampling and returns the peak RSS in KiB.
func (w *rssWatch) done() int64 {
	close(w.stop)
	w.wg.Wait()
	return w.peak
}

// vmHWM reads VmHWM (KiB) from a /proc status file; 0 when it has none
// (the process has exited).
func vmHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

// TestRSSWatchIgnoresTheParent: a child started from a process holding a
// large heap reports its own peak, not the parent's (what ru_maxrss does).
func TestRSSWatchIgnoresTheParent(t *testing.T) {
	if os.Getenv("KMETA_BENCH") == "" {
		t.Skip("benchmark support: run with `make bench` (KMETA_BENCH=1)")
	}
	big := make([]byte, 400<<20)
	for i := range big {
		big[i] = 1
	}
	cmd := exec.Command("sleep", "0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := watchRSS(cmd.Process.Pid)
	cmd.Wait()
	peak := w.done()
	if peak <= 0 || peak > 100<<10 {
		t.Fatalf("child peak %d KiB with a 400 MiB parent", peak)
	}
	t.Logf("child peak %d KiB; ru_maxrss says %d KiB", peak, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	_ = big[len(big)-1]
}
