package main

import (
	"os"
	"syscall"
	"testing"
)

// kmeta's stdout, when a pipe, is grown to 1 MiB; a file is left alone.
func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before := pipeCapacity(w)
	growPipe(w)
	if got := pipeCapacity(w); got != pipeSize {
		t.Fatalf("pipe capacity %d after growPipe (was %d), want %d", got, before, pipeSize)
	}
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f) // no pipe: nothing to do, nothing to fail
	if got := pipeCapacity(f); got != -1 {
		t.Fatalf("a regular file reports pipe capacity %d", got)
	}
}

// pipeCapacity is the capacity of the pipe f, -1 for anything else.
func pipeCapacity(f *os.File) int {
	n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fGetPipeSz, 0)
	if errno != 0 {
		return -1
	}
	return int(n)
}
