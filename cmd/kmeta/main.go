// Command kmeta reads, compares and migrates Kafka cluster metadata held in
// ZooKeeper and in KRaft's __cluster_metadata log, without a JVM.
//
// The command layer's conventions (registration, common flags, output,
// exit codes) are described at the top of app.go.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
)

func main() {

	// Ctrl-C cancels the context; commands pass it to long reads.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	growPipe(os.Stdout)
	endProfile := cpuProfile(os.Getenv("KMETA_CPUPROFILE"))
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	endProfile()
	memProfile(os.Getenv("KMETA_MEMPROFILE"))
	stop()
	os.Exit(code)
}

// cpuProfile writes a CPU profile of the run to path when it is set: what
// `make pgo` merges into the profile the build optimises with
// (default.pgo), and what a slow run can be reported with.
func cpuProfile(path string) (end func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kmeta: KMETA_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// memProfile writes the heap profile of the run to path when it is set:
// every allocation's site and size over the whole run (go tool pprof
// -sample_index=alloc_space), and what was still live at the end
// (inuse_space). Where the peak memory of a large read comes from.
func memProfile(path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kmeta: KMETA_MEMPROFILE: %v\n", err)
	}
}
