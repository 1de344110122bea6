package metalog

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadVerify decodes and CRC-verifies every batch and record of
// an 8 MiB segment of KRaft-shaped batches.
func BenchmarkReadVerify(b *testing.B) {
	v := workedValue(b)
	vals := make([][]byte, 200)
	for i := range vals {
		vals[i] = v
	}
	var data []byte
	var off int64
	for len(data) < 8<<20 {
		var err error
		data, err = AppendDataBatch(data, BatchParams{BaseOffset: off, Epoch: 1, Timestamp: 1}, vals)
		if err != nil {
			b.Fatal(err)
		}
		off += int64(len(vals))
	}
	path := filepath.Join(b.TempDir(), SegmentFileName(0))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := OpenReader(path, ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			bt, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			it := bt.Records()
			for it.Next() {
				n += len(it.Record().Value)
			}
			if it.Err() != nil {
				b.Fatal(it.Err())
			}
		}
		r.Close()
		if n == 0 {
			b.Fatal("no records")
		}
	}
}
