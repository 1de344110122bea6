package metalog

import (
	"bytes"
	"errors"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
)

func snappyEncodeForTest(p []byte) []byte { return snappy.Encode(nil, p) }

// TestDecompressionBomb: a small gzip body that inflates beyond the cap is
// a compression error, and the reader does not hold the whole output.
func TestDecompressionBomb(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(make([]byte, 8<<20))
	zw.Close()
	b, err := ParseBatch(buildRecordBatch(buf.Bytes(), 1, Attributes(CompressionGzip)), "bomb", 0)
	must(t, err)
	b.dec = newDecompressor(1 << 20)
	it := b.Records()
	if it.Next() || !errors.Is(it.Err(), ErrCompression) {
		t.Fatalf("err %v, want ErrCompression", it.Err())
	}
	if cap(b.dec.buf) > 1<<20+1 {
		t.Fatalf("decompression buffer grew to %d", cap(b.dec.buf))
	}
	// Unknown codec 5 and garbage under each codec.
	for _, c := range []Compression{1, 2, 3, 4, 5, 6, 7} {
		b, err := ParseBatch(buildRecordBatch([]byte("\x82SNAPPY\x00garbage-garbage-garbage"), 1, Attributes(c)), "g", 0)
		must(t, err)
		it := b.Records()
		if it.Next() || !errors.Is(it.Err(), ErrCompression) {
			t.Fatalf("codec %v: err %v", c, it.Err())
		}
	}
}
