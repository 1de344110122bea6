// Package wire holds the primitives of Kafka's binary encodings that the
// record codec is built on: fixed-width big-endian integers, zig-zag and
// unsigned varints, compact (flexible-version) strings, bytes and arrays,
// UUIDs and tagged-field sections.
//
// Reader is a sticky-error cursor over a byte slice: after the first error
// every getter returns a zero value and the error is kept, so a generated
// decoder reads a whole struct and checks Err once. Every length is checked
// against the bytes that remain before anything is allocated, so a corrupt
// length can never make the reader allocate more than the input holds.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Sentinel errors. Callers add position context.
var (
	ErrShort     = errors.New("wire: not enough bytes")
	ErrVarint    = errors.New("wire: malformed varint")
	ErrNullField = errors.New("wire: null in a non-nullable field")
	ErrTooLong   = errors.New("wire: length exceeds the remaining bytes")
	ErrTrailing  = errors.New("wire: trailing bytes")
	ErrBadTagged = errors.New("wire: malformed tagged fields")
	ErrUnversion = errors.New("wire: field not supported at this version")
)

// Reader decodes from a byte slice. The zero value is not usable; use NewReader.
type Reader struct {
	b   []byte
	off int
	err error
	// sub is the reader Tags hands out for each tagged field in turn,
	// kept so that a reused Reader (Reset) allocates none.
	sub *Reader
}

// NewReader returns a reader over b. Slices it returns alias b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Reset makes r a fresh reader over b, for a decoder that reads many
// values with one Reader instead of allocating one per value.
func (r *Reader) Reset(b []byte) { *r = Reader{b: b, sub: r.sub} }

// Err returns the first error met, wrapped with the byte offset where it happened.
func (r *Reader) Err() error { return r.err }

// Offset is the number of bytes consumed.
func (r *Reader) Offset() int { return r.off }

// Remaining is the number of bytes left.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Fail records err (if none is recorded yet) with the current offset.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = &Error{Offset: r.off, Err: err}
	}
}

// Error is a decoding error at a byte offset within the decoded value.
type Error struct {
	Offset int
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("at byte %d: %v", e.Offset, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.Fail(ErrShort)
		return nil
	}
	s := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return s
}

func (r *Reader) Int8() int8 {
	s := r.take(1)
	if s == nil {
		return 0
	}
	return int8(s[0])
}

func (r *Reader) Bool() bool { return r.Int8() != 0 }

func (r *Reader) Int16() int16 {
	s := r.take(2)
	if s == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(s))
}

func (r *Reader) Uint16() uint16 { return uint16(r.Int16()) }

func (r *Reader) Int32() int32 {
	// Written to be inlined: most fields of most records are int32s.
	if r.err == nil && r.off <= len(r.b)-4 {
		v := binary.BigEndian.Uint32(r.b[r.off:])
		r.off += 4
		return int32(v)
	}
	r.take(4) // fails
	return 0
}

func (r *Reader) Uint32() uint32 { return uint32(r.Int32()) }

func (r *Reader) Int64() int64 {
	s := r.take(8)
	if s == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(s))
}

func (r *Reader) Float64() float64 { return math.Float64frombits(uint64(r.Int64())) }

// UUID reads 16 bytes. The model's UUID type has this underlying type, so
// generated code assigns the result directly.
func (r *Reader) UUID() [16]byte {
	var u [16]byte
	copy(u[:], r.take(16))
	return u
}

// Uvarint decodes an unsigned base-128 varint of at most 5 bytes from the
// start of d. This is the one varint decoder of kmeta, with Kafka's
// overflow rule (ByteUtils.readUnsignedVarint): a continuation bit on the
// fifth byte is malformed, and bits of the fifth byte beyond 32 are dropped,
// as Java's int shift drops them. n is the length read, 0 when d ends
// first, -1 when malformed.
func Uvarint(d []byte) (v uint32, n int) {
	u, n := uvarintN(d, 5)
	return uint32(u), n
}

// Uvarlong is Uvarint for at most 10 bytes (ByteUtils.readUnsignedVarlong).
func Uvarlong(d []byte) (uint64, int) { return uvarintN(d, 10) }

// Varint decodes a zig-zag varint (int32); n as for Uvarint.
func Varint(d []byte) (int32, int) {
	u, n := Uvarint(d)
	return int32(u>>1) ^ -int32(u&1), n
}

// Varlong decodes a zig-zag varlong (int64); n as for Uvarint.
func Varlong(d []byte) (int64, int) {
	u, n := Uvarlong(d)
	return int64(u>>1) ^ -int64(u&1), n
}

func uvarintN(d []byte, max int) (uint64, int) {
	var v uint64
	for i := 0; i < max; i++ {
		if i >= len(d) {
			return 0, 0
		}
		c := d[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, -1
}

// varint runs a decoder at the cursor, recording ErrShort or ErrVarint.
func (r *Reader) varint(dec func([]byte) (uint64, int)) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := dec(r.b[r.off:])
	switch {
	case n == 0:
		r.off = len(r.b)
		r.Fail(ErrShort)
		return 0
	case n < 0:
		r.Fail(ErrVarint)
		return 0
	}
	r.off += n
	return v
}

func uvarint64(d []byte) (uint64, int) {
	u, n := Uvarint(d)
	return uint64(u), n
}

// Uvarint reads an unsigned varint (see the function Uvarint).
func (r *Reader) Uvarint() uint32 {
	// One byte is the common case (lengths, counts, tags): inlined.
	if r.err == nil && r.off < len(r.b) && r.b[r.off] < 0x80 {
		v := r.b[r.off]
		r.off++
		return uint32(v)
	}
	return r.uvarintLong()
}

func (r *Reader) uvarintLong() uint32 { return uint32(r.varint(uvarint64)) }

// Varint reads a zig-zag varint (int32).
func (r *Reader) Varint() int32 {
	u := r.Uvarint()
	return int32(u>>1) ^ -int32(u&1)
}

// Uvarlong reads an unsigned varint of at most 10 bytes.
func (r *Reader) Uvarlong() uint64 { return r.varint(Uvarlong) }

// Varlong reads a zig-zag varlong (int64).
func (r *Reader) Varlong() int64 {
	u := r.Uvarlong()
	return int64(u>>1) ^ -int64(u&1)
}

// compactLen reads a compact length (uvarint N+1; 0 = null). It returns -1 for
// null and checks that minElem*n bytes remain, so a corrupt length cannot
// drive an allocation.
func (r *Reader) compactLen(minElem int) int {
	u := r.Uvarint()
	if r.err != nil {
		return -1
	}
	if u == 0 {
		return -1
	}
	n := int(u - 1)
	if minElem > 0 && n > (len(r.b)-r.off)/minElem {
		r.Fail(ErrTooLong)
		return -1
	}
	return n
}

// CompactString reads a non-nullable compact string.
func (r *Reader) CompactString() string {
	n := r.compactLen(1)
	if n < 0 {
		if r.err == nil {
			r.Fail(ErrNullField)
		}
		return ""
	}
	return string(r.take(n))
}

// CompactNullableString reads a nullable compact string.
func (r *Reader) CompactNullableString() *string {
	n := r.compactLen(1)
	if n < 0 {
		return nil
	}
	s := string(r.take(n))
	return &s
}

// CompactBytes reads compact bytes; nullable says whether null is allowed. The
// result is a copy, so it outlives the input buffer.
func (r *Reader) CompactBytes(nullable bool) []byte {
	n := r.compactLen(1)
	if n < 0 {
		if r.err == nil && !nullable {
			r.Fail(ErrNullField)
		}
		return nil
	}
	s := r.take(n)
	if s == nil {
		return nil
	}
	out := make([]byte, n)
	copy(out, s)
	return out
}

// Reuse returns a list of n elements for a decoder to fill: s's array
// when it has room (s is a previous value's list, cut to length 0),
// otherwise a new one. A nil s always gets a new, non-nil list, so that
// an empty list still decodes as empty, not null.
func Reuse[T any](s []T, n int) []T {
	if s != nil && cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// ArrayLen reads a compact array length. It returns -1 for null (an error if
// the field is not nullable). minElem is the smallest encoded element size,
// used to bound the count by the bytes that remain.
func (r *Reader) ArrayLen(nullable bool, minElem int) int {
	if minElem < 1 {
		minElem = 1
	}
	n := r.compactLen(minElem)
	if n < 0 && r.err == nil && !nullable {
		r.Fail(ErrNullField)
	}
	return n
}

// TaggedField is one tagged field kmeta did not recognise, kept so that
// re-encoding reproduces the input.
type TaggedField struct {
	Tag  uint32
	Data []byte
}

// Tags reads a tagged-field section, calling known for each tag; known reads
// the field from sub and reports whether it knew the tag. Unknown tags are
// returned for re-encoding.
func (r *Reader) Tags(known func(tag uint32, sub *Reader) bool) []TaggedField {
	n := r.Uvarint()
	if r.err != nil {
		return nil
	}
	if int(n) > r.Remaining()/2 {
		r.Fail(ErrBadTagged)
		return nil
	}
	var unknown []TaggedField
	for i := uint32(0); i < n && r.err == nil; i++ {
		tag := r.Uvarint()
		size := r.Uvarint()
		if r.err != nil {
			return nil
		}
		start := r.off
		data := r.take(int(size))
		if r.err != nil {
			return nil
		}
		// One field's reader is done with before the next one's starts.
		if r.sub == nil {
			r.sub = new(Reader)
		}
		sub := r.sub
		sub.Reset(data)
		if known != nil && known(tag, sub) {
			if sub.err != nil {
				r.off = start + sub.errOffset()
				r.Fail(fmt.Errorf("tag %d: %w", tag, errors.Unwrap(sub.err)))
				return nil
			}
			if sub.Remaining() != 0 {
				r.off = start + sub.off
				r.Fail(fmt.Errorf("%w: %d bytes left in tag %d", ErrTrailing, sub.Remaining(), tag))
				return nil
			}
			continue
		}
		unknown = append(unknown, TaggedField{Tag: tag, Data: append([]byte(nil), data...)})
	}
	return unknown
}

func (r *Reader) errOffset() int {
	var e *Error
	if errors.As(r.err, &e) {
		return e.Offset
	}
	return r.off
}

// Sub runs fn on a reader that shares this reader's buffer and position; it is
// how nested structs are read in place. (Kept for symmetry; generated code
// reads nested structs directly from r.)

// Done fails with ErrTrailing when bytes remain.
func (r *Reader) Done() {
	if r.err == nil && r.off != len(r.b) {
		r.Fail(fmt.Errorf("%w: %d byte(s) after the message", ErrTrailing, len(r.b)-r.off))
	}
}
