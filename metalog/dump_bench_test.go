package metalog

import (
	"bufio"
	"io"
	"os"
	"testing"
)

// BenchmarkDumpSynth dumps a 64 MiB synthesized segment (the benchmark's
// shape) as text and as JSON lines into a discarding buffered writer.
func BenchmarkDumpSynth(b *testing.B) {
	dir := b.TempDir()
	p := synthSegment(b, dir, 64<<20)
	st, _ := os.Stat(p)
	for _, tc := range []struct {
		name   string
		format DumpFormat
	}{{"text", DumpText}, {"json", DumpJSON}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				d, err := OpenLogDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				w := bufio.NewWriterSize(io.Discard, 1<<16)
				dm := NewDumper(w, DumpOptions{Format: tc.format, ShowSecrets: true, Filter: DumpFilter{To: -1}})
				if err := dm.DumpDir(d); err != nil {
					b.Fatal(err)
				}
				w.Flush()
				if dm.Damage() != nil {
					b.Fatal(dm.Damage())
				}
			}
		})
	}
}
