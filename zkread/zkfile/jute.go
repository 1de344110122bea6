package zkfile

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kmeta/kmeta/model"
)

// Sentinel errors. Every error this package returns wraps one of them inside
// a *FileError that names the file and byte offset.
var (
	// ErrCorrupt: the bytes contradict the format (bad magic, checksum
	// mismatch, impossible length, trailing garbage).
	ErrCorrupt = errors.New("zkfile: corrupt file")
	// ErrTornTail: a transaction log ends inside an entry, as after a crash
	// mid-write. ZooKeeper ignores such a tail.
	ErrTornTail = errors.New("zkfile: torn tail")
	// ErrNoSnapshot: the data dir holds no usable snapshot.
	ErrNoSnapshot = errors.New("zkfile: no valid snapshot")
	// ErrGap: the transaction logs do not continue where the snapshot ends.
	ErrGap = errors.New("zkfile: transaction logs do not cover the snapshot")
)

// FileError locates a decoding failure.
type FileError struct {
	File   string
	Offset int64 // byte offset in the (uncompressed) stream
	Msg    string
	Err    error // a sentinel above, or an I/O error
}

func (e *FileError) Error() string {
	// Msg may hold a znode path from the file; keep control characters
	// from reaching a terminal.
	msg := e.Msg
	return fmt.Sprintf("%s: offset %d: %s: %v", e.File, e.Offset, model.Shown(msg), e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// errShort is the cursor's sticky error for reading past the end; callers
// turn it into ErrCorrupt or ErrTornTail depending on context.
var errShort = errors.New("unexpected end of data")

// cursor is a sticky-error reader over jute-encoded bytes. Once an error is
// set every getter returns zero values, so a record is decoded field by field
// and checked once. off is the position of the next byte, base the position
// of buf[0] in the file, so errors can name absolute offsets.
type cursor struct {
	buf  []byte
	off  int
	base int64
	err  error
	at   int64 // absolute offset of the first failure
	what string
}

func (c *cursor) fail(what string, err error) {
	if c.err == nil {
		c.err, c.at, c.what = err, c.base+int64(c.off), what
	}
}

func (c *cursor) remaining() int { return len(c.buf) - c.off }

func (c *cursor) take(n int, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > c.remaining() {
		c.fail(what, errShort)
		return nil
	}
	b := c.buf[c.off : c.off+n : c.off+n]
	c.off += n
	return b
}

func (c *cursor) i32(what string) int32 {
	b := c.take(4, what)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (c *cursor) i64(what string) int64 {
	b := c.take(8, what)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

func (c *cursor) u8(what string) byte {
	b := c.take(1, what)
	if b == nil {
		return 0
	}
	return b[0]
}

func (c *cursor) boolean(what string) bool { return c.u8(what) != 0 }

// buffer reads a jute buffer: nil for length -1, a copy otherwise so the
// result does not pin the whole file in memory.
func (c *cursor) buffer(what string) []byte {
	n := c.i32(what)
	if c.err != nil {
		return nil
	}
	if n == -1 {
		return nil
	}
	if n < -1 {
		c.fail(what, fmt.Errorf("%w: negative length %d", ErrCorrupt, n))
		return nil
	}
	b := c.take(int(n), what)
	if b == nil {
		return nil
	}
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

func (c *cursor) str(what string) (string, bool) {
	n := c.i32(what)
	if c.err != nil || n == -1 {
		return "", false
	}
	if n < -1 {
		c.fail(what, fmt.Errorf("%w: negative length %d", ErrCorrupt, n))
		return "", false
	}
	b := c.take(int(n), what)
	return string(b), b != nil
}

// count reads a vector length and checks that count elements of at least
// minSize bytes each can fit in what remains, so a corrupt count never makes
// us allocate.
func (c *cursor) count(what string, minSize int) int {
	n := c.i32(what)
	if c.err != nil {
		return 0
	}
	if n == -1 {
		return -1
	}
	if n < -1 || int64(n)*int64(minSize) > int64(c.remaining()) {
		c.fail(what, fmt.Errorf("%w: vector count %d does not fit in %d bytes", ErrCorrupt, n, c.remaining()))
		return 0
	}
	return int(n)
}

// ACL is one ZooKeeper access control entry.
type ACL struct {
	Perms  int32  `json:"perms"`
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
}

func (c *cursor) acls(what string) []ACL {
	n := c.count(what, 12)
	if n <= 0 {
		if n == 0 {
			return []ACL{}
		}
		return nil
	}
	out := make([]ACL, 0, n)
	for i := 0; i < n && c.err == nil; i++ {
		var a ACL
		a.Perms = c.i32(what + " perms")
		a.Scheme, _ = c.str(what + " scheme")
		a.ID, _ = c.str(what + " id")
		out = append(out, a)
	}
	return out
}

// Jute is the cursor for readers outside this package: ZooKeeper's client
// protocol encodes its requests and responses in the same jute records as
// its files (zkread's client decodes the server's answers with it). The
// error is sticky, as the cursor's; Err says where the first failure was.
type Jute struct{ c cursor }

// NewJute returns a reader over b.
func NewJute(b []byte) Jute { return Jute{c: cursor{buf: b}} }

func (j *Jute) I32() int32        { return j.c.i32("") }
func (j *Jute) I64() int64        { return j.c.i64("") }
func (j *Jute) Bool() bool        { return j.c.boolean("") }
func (j *Jute) Take(n int) []byte { return j.c.take(n, "") }

// Buffer is a buffer's bytes (a copy), nil for null.
func (j *Jute) Buffer() []byte { return j.c.buffer("") }

// BufferView is a buffer's bytes without a copy (they alias the reader's
// input), nil for null and empty, not nil, for an empty buffer: for a
// caller that copies them anyway.
func (j *Jute) BufferView() []byte {
	n := j.c.i32("")
	if j.c.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		j.c.fail("", fmt.Errorf("%w: negative length %d", ErrCorrupt, n))
		return nil
	}
	return j.c.take(int(n), "")
}

// Str is a ustring; null reads as "".
func (j *Jute) Str() string { s, _ := j.c.str(""); return s }

// Count is a vector's length (-1 for null), bounded by what remains at
// minSize bytes an element.
func (j *Jute) Count(minSize int) int { return j.c.count("", minSize) }

// ACLs is a vector of ACL entries.
func (j *Jute) ACLs() []ACL { return j.c.acls("") }

// Remaining is the number of bytes not read yet.
func (j *Jute) Remaining() int { return j.c.remaining() }

// Fail sets the error, unless one is set already.
func (j *Jute) Fail(err error) { j.c.fail("", err) }

// Err is the first failure and the byte position it happened at.
func (j *Jute) Err() (error, int) { return j.c.err, int(j.c.at) }
