package metalog

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/kmeta/kmeta/model"
)

// ReaderOptions tunes a Reader. The zero value is ready to use.
type ReaderOptions struct {
	// MaxBatchBytes caps a batch's total size (header included); a larger
	// length field is reported as ErrBadLength. Default
	// DefaultMaxBatchBytes.
	MaxBatchBytes int
	// MaxDecompressedBytes caps a batch's decompressed records section.
	// Default DefaultMaxDecompressedBytes.
	MaxDecompressedBytes int
	// SkipCRC turns CRC verification off (Batch.CRCChecked is then false).
	SkipCRC bool
	// BufferSize is the read buffer size. Default 1 MiB.
	BufferSize int
}

func (o ReaderOptions) withDefaults() ReaderOptions {
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.MaxDecompressedBytes <= 0 {
		o.MaxDecompressedBytes = DefaultMaxDecompressedBytes
	}
	if o.BufferSize <= 0 {
		o.BufferSize = 1 << 20
	}
	// The header must fit in the buffer; smaller values only hurt.
	o.BufferSize = max(o.BufferSize, 4096)
	return o
}

// Reader streams the batches of one file (a segment, a snapshot or a
// bootstrap.checkpoint: they share the format). Memory use is bounded by
// the buffer size plus the largest batch, whatever the file size.
//
// Errors are *CorruptionError values. A CRC mismatch is reported together
// with the batch, and Next can be called again: the framing is intact, so a
// dump can go on. Every other error (torn tail, bad length, bad magic) ends
// the stream and is returned again by later calls.
type Reader struct {
	name  string
	br    *bufio.Reader
	f     *os.File
	opts  ReaderOptions
	pos   int64
	size  int64 // -1 when unknown
	buf   []byte
	batch Batch
	dec   *decompressor
	err   error
	// skipped: pos was moved past the read buffer (skipTo); the file is
	// read again from pos at the next call.
	skipped bool
}

// NewReader reads batches from r. name is used in errors only. size is the
// number of bytes r holds, or -1 when unknown; when known, a length field
// pointing past the end is recognised as a torn tail before any buffer is
// sized for it.
func NewReader(r io.Reader, name string, size int64, opts ReaderOptions) *Reader {
	opts = opts.withDefaults()
	rd := &Reader{name: name, opts: opts, size: size, dec: newDecompressor(opts.MaxDecompressedBytes)}
	rd.br = bufio.NewReaderSize(r, opts.BufferSize)
	return rd
}

// OpenReader opens path read-only and returns a Reader over it. Close it.
func OpenReader(path string, opts ReaderOptions) (*Reader, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &FileError{File: path, Err: err}
	}
	opts = opts.withDefaults()
	if st.Size() < int64(opts.BufferSize) {
		// Small files (most snapshots and bootstrap files) need no big buffer.
		opts.BufferSize = max(int(st.Size()), 4096)
	}
	r := NewReader(f, path, st.Size(), opts)
	r.f = f
	return r, nil
}

// openData opens a data file read-only, refusing directories and Kafka's
// lock file.
func openData(path string) (*os.File, error) {
	if isLockName(path) {
		return nil, &FileError{File: path, Err: errors.New("refusing to open Kafka's .lock file")}
	}
	// A device or FIFO would be read without end, or hang.
	f, _, err := model.OpenRegular(path)
	if err != nil {
		var ie *model.InputError
		if errors.As(err, &ie) {
			err = ie.Err
		}
		return nil, &FileError{File: path, Err: err}
	}
	return f, nil
}

// Close closes the file opened by OpenReader; it is a no-op otherwise.
func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// Name returns the name used in errors.
func (r *Reader) Name() string { return r.name }

// Position returns the byte position just after the last batch returned:
// the end of the known-good prefix when Next has failed.
func (r *Reader) Position() int64 { return r.pos }

// Next returns the next batch, or io.EOF at a clean end of file. The batch
// and everything it points to are valid until the following call.
func (r *Reader) Next() (*Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.skipped {
		r.skipped = false
		if _, err := r.f.Seek(r.pos, io.SeekStart); err != nil {
			r.err = r.ioError(err)
			return nil, r.err
		}
		r.br.Reset(r.f)
	}
	b, err := r.next()
	if err != nil && !errors.Is(err, ErrCRC) {
		r.err = err
	}
	return b, err
}

func (r *Reader) next() (*Batch, error) {
	hdr, err := r.br.Peek(HeaderSize)
	if len(hdr) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	if err != nil && err != io.EOF {
		return nil, r.ioError(err)
	}
	b := &r.batch
	b.dec = r.dec
	if perr := b.parse(hdr, r.name, r.pos, r.opts.MaxBatchBytes); perr != nil {
		return nil, perr
	}
	size := int(b.Size())
	if r.size >= 0 && int64(size) > r.size-r.pos {
		return nil, r.pastEnd(b, r.size-r.pos, size)
	}
	var raw []byte
	if size <= r.br.Size() {
		raw, err = r.br.Peek(size)
		if err != nil && err != io.EOF {
			return nil, r.ioError(err)
		}
		if len(raw) < size {
			return nil, r.pastEnd(b, int64(len(raw)), size)
		}
		if _, err := r.br.Discard(size); err != nil {
			return nil, r.ioError(err)
		}
	} else {
		raw, err = r.readLarge(size)
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, corrupt(r.name, r.pos, b.BaseOffset, ErrTornTail, "%d bytes left, batch needs %d", len(raw), size)
			}
			return nil, r.ioError(err)
		}
	}
	b.raw = raw
	r.pos += int64(size)
	if !r.opts.SkipCRC {
		b.CRCChecked = true
		b.CRCValid = b.ComputeCRC() == b.CRC
		if !b.CRCValid {
			return b, b.crcError()
		}
	}
	return b, nil
}

// pastEnd is the error for a batch of size bytes with only left bytes
// left: a torn tail, or a damaged length when what is left says the file
// goes on past the batch (lengthDamage). The bytes left are read from the
// file when there is one, from the read buffer otherwise.
func (r *Reader) pastEnd(b *Batch, left int64, size int) error {
	var rest io.ReaderAt
	if r.f != nil {
		rest = offsetReaderAt{r.f, r.pos}
	} else if buf, _ := r.br.Peek(int(min(left, int64(r.br.Size())))); len(buf) > 0 {
		rest, left = bytes.NewReader(buf), int64(len(buf))
	}
	if rest != nil {
		if why := lengthDamage(b, rest, left, r.opts.MaxBatchBytes); why != "" {
			return corrupt(r.name, r.pos, b.BaseOffset, ErrBadLength, "%s", why)
		}
	}
	return corrupt(r.name, r.pos, b.BaseOffset, ErrTornTail, "%d bytes left, batch needs %d", left, size)
}

// readLarge reads a batch bigger than the read buffer into r.buf. It grows
// the buffer as data arrives, so a length field pointing far beyond the
// end of a stream of unknown size costs at most one extra chunk.
func (r *Reader) readLarge(size int) ([]byte, error) {
	const chunk = 4 << 20
	buf := r.buf[:0]
	for len(buf) < size {
		want := min(size-len(buf), chunk)
		if cap(buf)-len(buf) < want {
			nb := make([]byte, len(buf), min(size, max(2*cap(buf), len(buf)+want)))
			copy(nb, buf)
			buf = nb
		}
		n, err := io.ReadFull(r.br, buf[len(buf):len(buf)+want])
		buf = buf[:len(buf)+n]
		if err != nil {
			r.buf = buf[:0]
			return buf, err
		}
	}
	r.buf = buf[:0]
	return buf, nil
}

// skipTo moves a Reader over a file (OpenReader) to pos, where a batch
// starts, as if Next had returned every batch before it; the read buffer
// is refilled from there at the next call. ParallelReader reads the
// batches it frames itself past the buffer (pipeline.go).
func (r *Reader) skipTo(pos int64) {
	if pos != r.pos {
		r.pos, r.skipped = pos, true
	}
}

func (r *Reader) ioError(err error) error {
	return &FileError{File: r.name, Err: err}
}
