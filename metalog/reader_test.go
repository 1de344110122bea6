package metalog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// sampleLog returns a segment-like byte stream of n data batches at
// epoch 3, each holding i+1 copies of the worked-example value, and the
// start position of every batch.
func sampleLog(t testing.TB, n int) ([]byte, []int64) {
	t.Helper()
	var data []byte
	var pos []int64
	off := int64(0)
	v := workedValue(t)
	for i := 0; i < n; i++ {
		vals := make([][]byte, i+1)
		for j := range vals {
			vals[j] = v
		}
		pos = append(pos, int64(len(data)))
		var err error
		data, err = AppendDataBatch(data, BatchParams{BaseOffset: off, Epoch: 3, Timestamp: 1700000000000 + int64(i)}, vals)
		if err != nil {
			t.Fatal(err)
		}
		off += int64(len(vals))
	}
	return data, pos
}

// readAllBatches drains r, returning base offsets, the CRC errors seen and
// the terminal error (nil at a clean EOF).
func readAllBatches(r *Reader) (offsets []int64, crcErrs []error, err error) {
	for {
		b, err := r.Next()
		if err == io.EOF {
			return offsets, crcErrs, nil
		}
		if err != nil && !errors.Is(err, ErrCRC) {
			return offsets, crcErrs, err
		}
		if err != nil {
			crcErrs = append(crcErrs, err)
		}
		it := b.Records()
		for it.Next() {
		}
		if it.Err() != nil {
			return offsets, crcErrs, it.Err()
		}
		offsets = append(offsets, b.BaseOffset)
	}
}

func TestReaderClean(t *testing.T) {
	data, _ := sampleLog(t, 25) // the last batches exceed 4 KiB
	for _, size := range []int64{int64(len(data)), -1} {
		for _, bufSize := range []int{4096, 1 << 20} { // 4096 forces the large-batch path
			r := NewReader(bytes.NewReader(data), "seg", size, ReaderOptions{BufferSize: bufSize})
			offs, crcs, err := readAllBatches(r)
			if err != nil || len(crcs) != 0 {
				t.Fatalf("size=%d buf=%d: err %v crc %v", size, bufSize, err, crcs)
			}
			if want := []int64{0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78, 91, 105, 120, 136, 153, 171, 190, 210, 231, 253, 276, 300}; !equalInt64(offs, want) {
				t.Fatalf("offsets %v, want %v", offs, want)
			}
			if r.Position() != int64(len(data)) {
				t.Fatalf("position %d, want %d", r.Position(), len(data))
			}
		}
	}
}

func equalInt64(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReaderTruncations cuts the stream at every byte: a cut on a batch
// boundary is a clean, shorter file; anywhere else it is a torn tail
// located at the start of the cut batch.
func TestReaderTruncations(t *testing.T) {
	data, pos := sampleLog(t, 3)
	for cut := 0; cut < len(data); cut++ {
		for _, size := range []int64{int64(cut), -1} {
			r := NewReader(bytes.NewReader(data[:cut]), "seg", size, ReaderOptions{})
			offs, _, err := readAllBatches(r)
			boundary := -1
			for i, p := range pos {
				if int64(cut) == p {
					boundary = i
				}
			}
			if boundary >= 0 {
				if err != nil || len(offs) != boundary {
					t.Fatalf("cut %d (boundary): err %v, %d batches", cut, err, len(offs))
				}
				continue
			}
			var ce *CorruptionError
			if !errors.Is(err, ErrTornTail) || !errors.As(err, &ce) {
				t.Fatalf("cut %d size %d: err %v, want torn tail", cut, size, err)
			}
			want := pos[len(offs)]
			if ce.Position != want || ce.File != "seg" {
				t.Fatalf("cut %d: position %d, want %d", cut, ce.Position, want)
			}
			if r.Position() != want {
				t.Fatalf("cut %d: reader position %d, want %d", cut, r.Position(), want)
			}
			// The error is sticky.
			if _, err2 := r.Next(); err2 != err {
				t.Fatalf("second Next: %v", err2)
			}
		}
	}
}

// TestReaderBitFlips flips each bit of the CRC-covered region of the
// second batch: every flip is a CRC error reported with the batch, and the
// reader goes on to the third batch.
func TestReaderBitFlips(t *testing.T) {
	data, pos := sampleLog(t, 3)
	for i := pos[1] + crcStart; i < pos[2]; i++ {
		for bit := 0; bit < 8; bit++ {
			d := bytes.Clone(data)
			d[i] ^= 1 << bit
			r := NewReader(bytes.NewReader(d), "seg", int64(len(d)), ReaderOptions{})
			var crcErr error
			n := 0
			for {
				b, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil && !errors.Is(err, ErrCRC) {
					t.Fatalf("byte %d bit %d: %v", i, bit, err)
				}
				if err != nil {
					crcErr = err
					if b == nil || b.CRCValid || b.Position != pos[1] {
						t.Fatalf("byte %d bit %d: CRC error without its batch", i, bit)
					}
				}
				n++
			}
			var ce *CorruptionError
			if !errors.As(crcErr, &ce) || ce.Position != pos[1] || ce.Offset != 1 || n != 3 {
				t.Fatalf("byte %d bit %d: crc error %v, batches %d", i, bit, crcErr, n)
			}
		}
	}
	// With SkipCRC the same damage goes unnoticed at the batch level.
	d := bytes.Clone(data)
	d[pos[1]+40] ^= 1
	r := NewReader(bytes.NewReader(d), "seg", -1, ReaderOptions{SkipCRC: true})
	if _, crcs, err := readAllBatches(r); err != nil || len(crcs) != 0 {
		t.Fatalf("SkipCRC: %v %v", err, crcs)
	}
}

func TestReaderHeaderDamage(t *testing.T) {
	data, pos := sampleLog(t, 3)
	set32 := func(d []byte, at int64, v uint32) {
		d[at], d[at+1], d[at+2], d[at+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	cases := []struct {
		name   string
		mutate func(d []byte)
		want   error
		at     int64
		offset int64
	}{
		{"magic 1", func(d []byte) { d[pos[1]+16] = 1 }, ErrBadMagic, pos[1], 1},
		{"magic 0xff", func(d []byte) { d[pos[2]+16] = 0xff }, ErrBadMagic, pos[2], 3},
		{"length below header", func(d []byte) { set32(d, pos[1]+8, 48) }, ErrBadLength, pos[1], 1},
		{"negative length", func(d []byte) { set32(d, pos[1]+8, 0xffffffff) }, ErrBadLength, pos[1], 1},
		{"length above max", func(d []byte) { set32(d, pos[1]+8, 1<<30) }, ErrBadLength, pos[1], 1},
		// The last batch is whole (its CRC matches what is left): a
		// damaged length, not a file that ends inside its last batch.
		{"length past end of file", func(d []byte) { set32(d, pos[2]+8, 1<<20) }, ErrBadLength, pos[2], 3},
		{"length past end of file, batch cut", func(d []byte) { set32(d, pos[2]+8, 1<<20); d[len(d)-1] ^= 1 }, ErrTornTail, pos[2], 3},
		// A whole batch follows: the length is damaged.
		{"length of a middle batch past end of file", func(d []byte) { set32(d, pos[1]+8, 1<<20) }, ErrBadLength, pos[1], 1},
		{"negative record count", func(d []byte) { set32(d, pos[0]+57, 0x80000000) }, ErrBadRecord, pos[0], 0},
		{"zeroed tail", func(d []byte) { clear(d[pos[2]:]) }, ErrBadLength, pos[2], 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := bytes.Clone(data)
			tc.mutate(d)
			r := NewReader(bytes.NewReader(d), "seg", int64(len(d)), ReaderOptions{})
			_, _, err := readAllBatches(r)
			var ce *CorruptionError
			if !errors.Is(err, tc.want) || !errors.As(err, &ce) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if ce.Position != tc.at || ce.Offset != tc.offset {
				t.Fatalf("at %d offset %d, want %d %d", ce.Position, ce.Offset, tc.at, tc.offset)
			}
		})
	}
}

// TestReaderHugeLengthStream: on a stream of unknown size, a length near
// the maximum must not make the reader allocate the whole batch up front.
func TestReaderHugeLengthStream(t *testing.T) {
	data, _ := sampleLog(t, 1)
	d := bytes.Clone(data)
	n := uint32(DefaultMaxBatchBytes - LengthPrefix)
	d[8], d[9], d[10], d[11] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	var ms0, ms1 runtimeMem
	ms0.read()
	r := NewReader(bytes.NewReader(d), "s", -1, ReaderOptions{BufferSize: 4096})
	_, err := r.Next()
	ms1.read()
	if !errors.Is(err, ErrTornTail) {
		t.Fatalf("err %v", err)
	}
	if grown := ms1.total - ms0.total; grown > 8<<20 {
		t.Fatalf("allocated %d bytes for a torn %d-byte stream", grown, len(d))
	}
}

func TestReaderGarbage(t *testing.T) {
	for _, g := range [][]byte{
		[]byte("hello, this is not a kafka log segment at all, just text......."),
		bytes.Repeat([]byte{0xff}, 200),
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x31},
	} {
		r := NewReader(bytes.NewReader(g), "g", int64(len(g)), ReaderOptions{})
		_, _, err := readAllBatches(r)
		if err == nil || !IsOurs(err) {
			t.Fatalf("%q: err %v", g, err)
		}
	}
}

func TestOpenReaderFiles(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(empty, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("empty file: %v, want io.EOF", err)
	}
	r.Close()

	// A directory where a file belongs, a missing file, and Kafka's lock.
	sub := filepath.Join(dir, "00000000000000000010.log")
	os.Mkdir(sub, 0o755)
	lock := filepath.Join(dir, ".lock")
	os.WriteFile(lock, nil, 0o644)
	for _, p := range []string{sub, filepath.Join(dir, "missing.log"), lock} {
		_, err := OpenReader(p, ReaderOptions{})
		var fe *FileError
		if !errors.As(err, &fe) || fe.File != p {
			t.Fatalf("%s: err %v, want FileError", p, err)
		}
	}
	if _, err := OpenReader(filepath.Join(dir, "missing.log"), ReaderOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}
