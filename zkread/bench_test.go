package zkread

import (
	"path/filepath"
	"testing"
)

// Offline read and decode of the fixture data dir (5 snapshots, 4 logs,
// ~250 transactions). Reported, never asserted.
func BenchmarkReadDataDir(b *testing.B) {
	dir := filepath.Join(fixtureDir, "datadir")
	for b.Loop() {
		if _, err := ReadDataDir(dir, DataDirOptions{Chroot: fixtureChroot}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	t, err := ReadDataDir(filepath.Join(fixtureDir, "datadir"), DataDirOptions{Chroot: fixtureChroot})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(t.Len()), "znodes")
	for b.Loop() {
		if _, err := Decode(t, DecodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
