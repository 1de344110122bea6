// Package peakrss measures a child process's own peak RSS, for the
// bench's figures and the mutation campaigns' memory bounds.
//
// The kernel's rusage ru_maxrss of a child cannot be used: os/exec starts
// children with vfork (CLONE_VM), and exec records the high-water mark of
// the address space it replaces, the parent's, into the child's maxrss. A
// child of a bench process holding a million synthesized partitions would
// show at least that process's RSS. VmHWM in /proc/PID/status is the
// high-water mark of the child's own address space after exec, so it is
// sampled until the process exits; a peak reached in its last few
// milliseconds can be missed (it samples every 2 ms), none is inflated.
package peakrss

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Watch samples a running process's own peak RSS (VmHWM, KiB).
type Watch struct {
	peak int64 // KiB
	stop chan struct{}
	wg   sync.WaitGroup
}

const every = 2 * time.Millisecond

// Start starts sampling pid; call Done after the process was waited for.
func Start(pid int) *Watch {
	w := &Watch{stop: make(chan struct{})}
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			if kb := VmHWM(path); kb > w.peak {
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

// Done stops sampling and returns the peak RSS in KiB.
func (w *Watch) Done() int64 {
	close(w.stop)
	w.wg.Wait()
	return w.peak
}

// VmHWM reads VmHWM (KiB) from a /proc status file; 0 when it has none
// (the process has exited).
func VmHWM(path string) int64 {
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
