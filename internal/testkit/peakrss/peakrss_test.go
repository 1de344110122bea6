package peakrss

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestRSSWatchIgnoresTheParent: a child started from a process holding a
// large heap reports its own peak, not the parent's (what ru_maxrss does).
func TestRSSWatchIgnoresTheParent(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 400 MiB")
	}
	big := make([]byte, 400<<20)
	for i := range big {
		big[i] = 1
	}
	cmd := exec.Command("sleep", "0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := Start(cmd.Process.Pid)
	cmd.Wait()
	peak := w.Done()
	if peak <= 0 || peak > 100<<10 {
		t.Fatalf("child peak %d KiB with a 400 MiB parent", peak)
	}
	t.Logf("child peak %d KiB; ru_maxrss says %d KiB", peak, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	_ = big[len(big)-1]
}
