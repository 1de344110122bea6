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

// adlerUpdate is hash/adler32's checksum, continued from any split, on
// lengths about every boundary of its runs and blocks and on bytes that
// fill its lanes most (0xff).
func TestAdlerUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	lengths := []int{4095, 4096, 4097, 5552, 8*512*adlerRun - 1, 8 * 512 * adlerRun, 3*8*512 + 8*adlerRun + 5, 1 << 20}
	for n := range 8*adlerRun*3 + 2 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for _, fill := range []string{"zero", "ff", "random"} {
			b := make([]byte, n)
			for i := range b {
				switch fill {
				case "ff":
					b[i] = 0xff
				case "random":
					b[i] = byte(rng.Uint32())
				}
			}
			want := adler32.Checksum(b)
			for _, split := range []int{0, min(1, n), n / 3, n / 2, n} {
				if got := adlerUpdate(adlerUpdate(1, b[:split]), b[split:]); got != want {
					t.Fatalf("%d bytes (%s) split at %d: %#x, want %#x", n, fill, split, got, want)
				}
			}
		}
	}
}

func FuzzAdler(f *testing.F) {
	f.Add(bytes.Repeat([]byte{0xff}, 3000), uint(1000))
	f.Add([]byte("ZKSN"), uint(2))
	f.Fuzz(func(t *testing.T, b []byte, split uint) {
		s := int(split % uint(len(b)+1))
		if got, want := adlerUpdate(adlerUpdate(1, b[:s]), b[s:]), adler32.Checksum(b); got != want {
			t.Fatalf("%d bytes split at %d: %#x, want %#x", len(b), s, got, want)
		}
	})
}

func BenchmarkAdlerUpdate(b *testing.B) {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		adlerUpdate(1, buf)
	}
}
