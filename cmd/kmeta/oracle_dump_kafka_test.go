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
	fs := fixtureDumps(t)
	var argss [][]string
	for _, f := range fs {
		abs, _ := filepath.Abs(f.data)
		argss = append(argss, []string{"--cluster-metadata-decoder", "--files", abs})
	}
	// Every fixture in one JVM: DumpLogSegments' own main once per file.
	t.Logf("%d fixtures", len(fs))
	runs, err := d.RunEach(t.Context(), d.Tools.DumpLog, argss)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		if runs[i].Exit != 0 {
			t.Fatalf("DumpLogSegments %s: exit %d\n%s", f.data, runs[i].Exit, runs[i].Stderr)
		}
		compareDumps(t, f.data, string(runs[i].Stdout), kmetaDump(t, argss[i][2]))
	}
}
