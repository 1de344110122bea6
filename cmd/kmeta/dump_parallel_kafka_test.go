package main

import (
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestParallelDumpMatchesLiveKafka: a multi-megabyte segment dumped by the
// parallel path prints what Kafka's DumpLogSegments prints for it.
func TestParallelDumpMatchesLiveKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	forceParallelDump(t)
	p := writeBusySegment(t, t.TempDir(), 2<<20)
	compareDumps(t, p, d.DumpLog(t, []string{p}), kmetaDump(t, p))
}
