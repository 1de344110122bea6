package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/biglog"
)

// TestImageReportSizeFlat guards the acceptance that a report on a
// million partitions stays usable (internal/testkit/bench's
// TestBenchHTMLReport measures that one): the html report of a KRaft log
// holds aggregates, never one row or mark per partition or record, so
// ten times the partitions (and the snapshot records) leave its size
// nearly unchanged; only numbers grow a digit.
func TestImageReportSizeFlat(t *testing.T) {
	var sizes []int
	for _, n := range []int{10_000, 100_000} {
		dir := t.TempDir()
		if err := biglog.Write(dir, n); err != nil {
			t.Fatal(err)
		}
		code, page, stderr := runKmeta(t, "image", "-o", "html", "--report-time", testReportTime, "kraft:"+dir)
		if code != exitOK {
			t.Fatalf("%d partitions: exit %d: %s", n, code, stderr)
		}
		for _, s := range []string{fmt.Sprintf("%d partitions", n), `id="chart-records-offsets"`, `id="chart-records-time"`} {
			if !strings.Contains(page, s) {
				t.Errorf("%d partitions: the page lacks %s", n, s)
			}
		}
		sizes = append(sizes, len(page))
		t.Logf("%d partitions: %d bytes", n, len(page))
	}
	if d := sizes[1] - sizes[0]; d < -sizes[0]/50 || d > sizes[0]/50 {
		t.Errorf("10x the partitions changed the report by %d bytes (%d to %d): it grows with the cluster", d, sizes[0], sizes[1])
	}
}
