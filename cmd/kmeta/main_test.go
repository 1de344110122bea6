package main

import (
	"os"
	"path/filepath"
	"testing"
)

// KMETA_CPUPROFILE writes a CPU profile (gzip-compressed pprof, as make
// pgo merges) of what runs until the end function; unset, nothing.
func TestCPUProfile(t *testing.T) {
	cpuProfile("")() // unset: a no-op end
	p := filepath.Join(t.TempDir(), "cpu.pprof")
	end := cpuProfile(p)
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	end()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("%s is not a gzip-compressed profile (%d bytes, x=%d)", p, len(b), x)
	}
}
