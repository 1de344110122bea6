package main

import (
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestDumpMatchesLiveKafka runs the newest Kafka's DumpLogSegments on every
// fixture now, so a stale committed dump cannot hide a difference.
func TestDumpMatchesLiveKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	for _, f := range fixtureDumps(t) {
		abs, _ := filepath.Abs(f.data)
		compareDumps(t, f.data, d.DumpLog(t, []string{abs}), kmetaDump(t, abs))
	}
}
