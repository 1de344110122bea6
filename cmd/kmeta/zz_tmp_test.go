package main

import (
	"context"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"testing"
)

func TestTmpDumpProf(t *testing.T) {
	f, _ := os.Create("/tmp/perf_dump.prof")
	pprof.StartCPUProfile(f)
	run(context.Background(), append([]string{"kmeta"}, strings.Fields(os.Getenv("ARGS"))...), io.Discard, os.Stderr)
	pprof.StopCPUProfile()
}
