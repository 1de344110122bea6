package kafkatest

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// KMETA_JVM_LOG names a file that gets one line per JVM the harness ran
// (tools and servers): when it ended, its kind, the release, the main
// class, its wall time, the CPU time it used (user+system) and, for a
// server, its log file. The CPU time is what a loaded machine inflates
// least, so it tells where make test's time goes whatever else runs:
// `sort -k6 -n` the file. StartKRaft, StartZKCluster and StartZooKeeper
// name their directory in the test's log ("kafkatest: ... dir
// /tmp/kmeta-kafka-..."), so with the `go test -json` stream
// (KMETA_TEST_JSON) a server's CPU can be put down to its test.
var jvmLog struct {
	sync.Mutex
	f    *os.File
	once sync.Once
}

func logJVM(kind, version, mainClass, logPath string, start time.Time, ps *os.ProcessState) {
	path := os.Getenv("KMETA_JVM_LOG")
	if path == "" || ps == nil {
		return
	}
	jvmLog.Lock()
	defer jvmLog.Unlock()
	jvmLog.once.Do(func() {
		jvmLog.f, _ = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	})
	if jvmLog.f == nil {
		return
	}
	cpu := ps.UserTime() + ps.SystemTime()
	if logPath != "" {
		logPath = " " + logPath
	}
	fmt.Fprintf(jvmLog.f, "%s %s %s %s wall=%.2f cpu=%.2f%s\n", time.Now().UTC().Format(time.RFC3339), kind, version, mainClass,
		time.Since(start).Seconds(), cpu.Seconds(), logPath)
}
