package zkfile

import (
	"bytes"
	"errors"
	"hash/adler32"
	"io"
	"math/rand/v2"
	"testing"
)

// chunky hands out its data in reads of random sizes, then err.
type chunky struct {
	data []byte
	rng  *rand.Rand
	err  error
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, c.err
	}
	n := min(len(p), len(c.data), 1+c.rng.IntN(100_000))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestReadAhead: what the read-ahead hands out is the reader's bytes in
// order, whatever the sizes of the reads on either side and the block
// boundaries; its Adler32 at any point is hash/adler32's of the bytes
// read so far; a peek shows what comes next (across blocks) without
// reading it; the error that ended the reading comes after the last
// byte.
func TestReadAhead(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3<<20+12345)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	boom := errors.New("boom")
	for _, end := range []error{io.EOF, boom} {
		ra := newReadAhead(&chunky{data: data, rng: rand.New(rand.NewPCG(3, 4)), err: end})
		off := 0
		for off < len(data) {
			if rng.IntN(5) == 0 {
				want := data[off:min(off+55, len(data))]
				p, err := ra.peek(55)
				if !bytes.Equal(p, want) || (len(want) == 55) != (err == nil) {
					t.Fatalf("peek at %d: %d bytes, %v", off, len(p), err)
				}
			}
			n := min(1+rng.IntN(200_000), len(data)-off)
			p := make([]byte, n)
			if got, err := ra.read(p); got != n || err != nil || !bytes.Equal(p, data[off:off+n]) {
				t.Fatalf("read at %d: %d of %d bytes, %v", off, got, n, err)
			}
			off += n
			if s := ra.sum(); s != adler32.Checksum(data[:off]) {
				t.Fatalf("sum at %d: %#x, want %#x", off, s, adler32.Checksum(data[:off]))
			}
		}
		if n, err := ra.read(make([]byte, 1)); n != 0 || err != end {
			t.Errorf("past the end: %d, %v; want %v", n, err, end)
		}
		ra.stop()
	}
	// Stopped early, the goroutine ends.
	ra := newReadAhead(bytes.NewReader(data))
	ra.read(make([]byte, 10))
	ra.stop()
}
