package records

// The validate-only path: `log check` needs to know whether a record body
// decodes, not what it holds. The generated validate<Name> functions walk a
// body exactly as the generated Decode methods do (same fields, version
// gates, length bounds, null rules, tagged-field framing and trailing-byte
// rule) keeping a position and nothing else (see vSkip below): no struct,
// no slice, no string, no error value. It runs at several times the speed
// of a decode and allocates nothing per record.
//
// Only a verdict comes out. When the verdict is "does not decode", the full
// decoder runs once more on that record to produce its error, so findings
// carry exactly the messages they always did, and the full decoder stays
// the arbiter: the two must agree (validate_test.go, FuzzValidateMetadata).

// ValidateMetadata reports whether a data record's value (frame and body)
// decodes, with the result DecodeMetadata would give: nil when it decodes,
// DecodeMetadata's own error when it does not. It allocates only when the
// value does not decode.
func ValidateMetadata(value []byte) error {
	if ValidMetadata(value) {
		return nil
	}
	_, _, err := DecodeMetadata(value)
	return err
}

// ValidMetadata is the verdict alone, for callers that only want to know
// whether a value decodes (log check's clean path): true exactly when
// DecodeMetadata decodes it. False also for unknown types and versions,
// which only the decoder's error tells apart from damage. It allocates
// nothing.
func ValidMetadata(value []byte) bool {
	// Frame version 1 with a one-byte apiKey and version, as nearly every
	// record has it: the frame is three bytes, read in place.
	if len(value) >= 3 && value[0] == 1 && value[1] < 0x80 && value[2] < 0x80 {
		return validateMetadataBody(int16(value[1]), value[3:], int16(value[2]))
	}
	r := vr{b: value}
	fv := r.uvarint()
	key := r.uvarint()
	ver := r.uvarint()
	if r.bad || fv != 1 || key > 32767 || ver > 32767 {
		return false
	}
	return validateMetadataBody(int16(key), value[r.off:], int16(ver))
}

// vr is the validating cursor. Each method mirrors the wire.Reader method
// the decoder calls at the same place. bad is sticky like the reader's
// error: once set the verdict is "does not decode", and what is read after
// it only has to stay in bounds (it does: every read is bounds-checked), so
// the hot reads do not test it first.
type vr struct {
	b   []byte
	off int
	bad bool
}

func (r *vr) skip(n int) {
	if uint(n) > uint(len(r.b)-r.off) {
		r.bad = true
		return
	}
	r.off += n
}

// uvarint mirrors wire.Reader.Uvarint: at most 5 bytes. Nearly every
// varint of a metadata record is one byte: the methods below read that
// case in line (uvarint1, inlined) and call uvarintLong only for the rest.
func (r *vr) uvarint() uint32 {
	if u, ok := r.uvarint1(); ok {
		return u
	}
	return r.uvarintLong()
}

// uvarint1 reads a one-byte uvarint; ok is false (nothing read) otherwise.
func (r *vr) uvarint1() (uint32, bool) {
	if o := r.off; o < len(r.b) {
		if c := r.b[o]; c < 0x80 {
			r.off = o + 1
			return uint32(c), true
		}
	}
	return 0, false
}

//go:noinline
func (r *vr) uvarintLong() uint32 {
	var v uint32
	for i := 0; i < 5; i++ {
		if r.off >= len(r.b) {
			r.bad = true
			return 0
		}
		c := r.b[r.off]
		r.off++
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v
		}
	}
	r.bad = true
	return 0
}

// compactLen mirrors wire.Reader.compactLen: -1 for null (or failure), and
// n elements of minElem bytes must fit in what remains (n*minElem cannot
// overflow: n < 2^32 and minElem is a small element size).
func (r *vr) compactLen(minElem int) int {
	u, ok := r.uvarint1()
	if !ok {
		u = r.uvarintLong()
	}
	if r.bad || u == 0 {
		return -1
	}
	n := int(u - 1)
	if minElem > 0 && n*minElem > len(r.b)-r.off {
		r.bad = true
		return -1
	}
	return n
}

// fixedArray skips a compact array of elem-byte elements: arrayLen(nullable,
// elem) and then its n*elem bytes, in one call.
func (r *vr) fixedArray(nullable bool, elem int) {
	u, ok := r.uvarint1()
	if !ok {
		u = r.uvarintLong()
	}
	if r.bad {
		return
	}
	if u == 0 {
		if !nullable {
			r.bad = true
		}
		return
	}
	n := int(u-1) * elem
	if n > len(r.b)-r.off {
		r.bad = true
		return
	}
	r.off += n
}

// taggedFixedArray checks a tagged field's data r.b[start:end] as a compact
// array of elem-byte elements that uses all of it: what arrayLen, skip and
// endTag on a cursor over the data conclude, without the cursor.
func (r *vr) taggedFixedArray(start, end int, nullable bool, elem int) {
	var u uint32
	if c := r.b[start:end]; len(c) > 0 && c[0] < 0x80 {
		u = uint32(c[0])
		start++
	} else {
		sub := vr{b: c}
		if u = sub.uvarintLong(); sub.bad {
			r.bad = true
			return
		}
		start += sub.off
	}
	if u == 0 {
		if !nullable || start != end {
			r.bad = true
		}
		return
	}
	if int(u-1)*elem != end-start {
		r.bad = true
	}
}

// str is a non-nullable compact string.
func (r *vr) str() {
	n := r.compactLen(1)
	if n < 0 {
		r.bad = true
		return
	}
	r.skip(n)
}

// nstr is a nullable compact string.
func (r *vr) nstr() {
	if n := r.compactLen(1); n >= 0 {
		r.skip(n)
	}
}

func (r *vr) bytes(nullable bool) {
	n := r.compactLen(1)
	if n < 0 {
		if !nullable {
			r.bad = true
		}
		return
	}
	r.skip(n)
}

// arrayLen mirrors wire.Reader.ArrayLen.
func (r *vr) arrayLen(nullable bool, minElem int) int {
	if minElem < 1 {
		minElem = 1
	}
	n := r.compactLen(minElem)
	if n < 0 && !nullable {
		r.bad = true
	}
	return n
}

// tagCount reads a tagged-field section's count, bounded as
// wire.Reader.Tags bounds it (every field takes at least two bytes). A
// count of one byte (nearly always) is read in line.
func (r *vr) tagCount() uint32 {
	if o := r.off; o < len(r.b) {
		if c := r.b[o]; c < 0x80 && int(c)*2 <= len(r.b)-o-1 {
			r.off = o + 1
			return uint32(c)
		}
	}
	return r.tagCountLong()
}

//go:noinline
func (r *vr) tagCountLong() uint32 {
	n := r.uvarint()
	if r.bad {
		return 0
	}
	if int(n)*2 > len(r.b)-r.off {
		r.bad = true
		return 0
	}
	return n
}

// tagSpan reads one tagged field's tag and size and returns where its data
// is, r.b[start:end]; the caller validates a known tag there and simply
// moves on from an unknown one (the decoder keeps those as they are). A
// tag and a size of one byte each (nearly always) are read in line.
func (r *vr) tagSpan() (tag uint32, start, end int) {
	if o := r.off; o+1 < len(r.b) {
		if t, s := r.b[o], r.b[o+1]; t|s < 0x80 && int(s) <= len(r.b)-o-2 {
			r.off = o + 2 + int(s)
			return uint32(t), o + 2, r.off
		}
	}
	return r.tagSpanLong()
}

//go:noinline
func (r *vr) tagSpanLong() (tag uint32, start, end int) {
	tag = r.uvarint()
	size := r.uvarint()
	if r.bad {
		return 0, 0, 0
	}
	start = r.off
	r.skip(int(size))
	if r.bad {
		return 0, 0, 0
	}
	return tag, start, r.off
}

// endTag: a known tagged field must decode and use all of its bytes.
func (r *vr) endTag(sub *vr) {
	if sub.bad || sub.off != len(sub.b) {
		r.bad = true
	}
}

// skipTags walks a tagged-field section of a struct that knows no tags
// (nearly always empty: one zero byte).
func (r *vr) skipTags() {
	if o := r.off; o < len(r.b) && r.b[o] == 0 {
		r.off = o + 1
		return
	}
	for n := r.tagCountLong(); n > 0 && !r.bad; n-- {
		r.tagSpanLong()
	}
}

// The generated validate<Name> functions do not keep a vr: they take the
// body and the position to read from and return the position after what
// they read, or -1 when it does not decode (and stop there). The position
// then lives in a register, not in a struct behind a pointer that every
// read and every non-inlined call goes through, and a failure ends the
// walk at once instead of being carried to its end. The functions below
// are vr's methods in that form, with the same checks: each returns the
// new position or -1. The generated code reads the common case (a
// one-byte length or count) in line and calls the ...Long forms, which
// run the vr methods, for the rest: a call with a fall-back costs more
// than Go's inliner allows, so a helper would be a call per field.

// vAt is vr's position after a fall-back: -1 when it failed.
func vAt(r *vr) int {
	if r.bad {
		return -1
	}
	return r.off
}

// vSkip is vr.skip.
func vSkip(b []byte, off, n int) int {
	if n > len(b)-off {
		return -1
	}
	return off + n
}

// vStrLong is vr.str, for the generated code's strings that do not have
// a one-byte length.
//
//go:noinline
func vStrLong(b []byte, off int) int {
	r := vr{b: b, off: off}
	r.str()
	return vAt(&r)
}

// vNStrLong is vr.nstr, likewise.
//
//go:noinline
func vNStrLong(b []byte, off int) int {
	r := vr{b: b, off: off}
	r.nstr()
	return vAt(&r)
}

// vBytes is vr.bytes: a compact string or bytes, nullable or not. A
// one-byte length means the same in either form (0, null, takes the
// nullable form's fall-back).
func vBytes(b []byte, off int, nullable bool) int {
	if off < len(b) {
		if c := int(b[off]); c > 0 && c < 0x80 {
			if c-1 > len(b)-off-1 {
				return -1
			}
			return off + c
		}
	}
	if nullable {
		return vNStrLong(b, off)
	}
	return vStrLong(b, off)
}

// vFixedArrayLong is vr.fixedArray (the generated code reads a one-byte
// length in line).
//
//go:noinline
func vFixedArrayLong(b []byte, off int, nullable bool, elem int) int {
	r := vr{b: b, off: off}
	r.fixedArray(nullable, elem)
	return vAt(&r)
}

// vArrayLen is vr.arrayLen: n is -1 for a null array, off -1 on failure.
func vArrayLen(b []byte, off int, nullable bool, minElem int) (n, next int) {
	r := vr{b: b, off: off}
	n = r.arrayLen(nullable, minElem)
	return n, vAt(&r)
}

// vTagCountLong is vr.tagCount (the generated code reads a one-byte
// count in line).
//
//go:noinline
func vTagCountLong(b []byte, off int) (n uint32, next int) {
	r := vr{b: b, off: off}
	n = r.tagCountLong()
	return n, vAt(&r)
}

// vTagSpanLong is vr.tagSpanLong; end is -1 on failure.
//
//go:noinline
func vTagSpanLong(b []byte, off int) (tag uint32, start, end int) {
	r := vr{b: b, off: off}
	tag, start, end = r.tagSpanLong()
	if r.bad {
		return 0, 0, -1
	}
	return tag, start, end
}

// vSkipTagsLong is vr.skipTags (the generated code takes an empty
// section in line).
//
//go:noinline
func vSkipTagsLong(b []byte, off int) int {
	r := vr{b: b, off: off}
	r.skipTags()
	return vAt(&r)
}

// vTaggedFixedArrayLong is vr.taggedFixedArray: whether b[start:end] is
// such an array (the generated code reads a one-byte length in line).
//
//go:noinline
func vTaggedFixedArrayLong(b []byte, start, end int, nullable bool, elem int) bool {
	r := vr{b: b}
	r.taggedFixedArray(start, end, nullable, elem)
	return !r.bad
}

// at moves a vr to where a generated validate<Name> stopped (the
// transcoder's walk calls them for nested structs).
func (r *vr) at(off int) {
	if off < 0 {
		r.bad = true
		return
	}
	r.off = off
}
