package records

// The validate-only path: `log check` needs to know whether a record body
// decodes, not what it holds. The generated validate<Name> functions walk a
// body exactly as the generated Decode methods do (same fields, version
// gates, length bounds, null rules, tagged-field framing and trailing-byte
// rule) on the cursor below, which keeps a position and a failure bit and
// nothing else: no struct, no slice, no string, no error value. It runs at
// several times the speed of a decode and allocates nothing per record.
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
	if validMetadata(value) {
		return nil
	}
	_, _, err := DecodeMetadata(value)
	return err
}

// validMetadata is the verdict alone: false also for unknown types and
// versions, which ValidateMetadata then sorts out through the decoder.
func validMetadata(value []byte) bool {
	r := vr{b: value}
	fv := r.uvarint()
	key := r.uvarint()
	ver := r.uvarint()
	if r.bad || fv != 1 || key > 32767 || ver > 32767 {
		return false
	}
	body := vr{b: value[r.off:]}
	if !validateMetadataBody(int16(key), &body, int16(ver)) {
		return false
	}
	return !body.bad && body.off == len(body.b)
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

// uvarint mirrors wire.Reader.Uvarint: at most 5 bytes.
func (r *vr) uvarint() uint32 {
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
// n elements of minElem bytes must fit in what remains.
func (r *vr) compactLen(minElem int) int {
	u := r.uvarint()
	if r.bad || u == 0 {
		return -1
	}
	n := int(u - 1)
	if minElem > 0 && n > (len(r.b)-r.off)/minElem {
		r.bad = true
		return -1
	}
	return n
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
// wire.Reader.Tags bounds it (every field takes at least two bytes).
func (r *vr) tagCount() uint32 {
	n := r.uvarint()
	if r.bad {
		return 0
	}
	if int(n) > (len(r.b)-r.off)/2 {
		r.bad = true
		return 0
	}
	return n
}

// tag reads one tagged field's tag and size and returns a cursor over its
// data; the caller validates a known tag on it and calls endTag, and
// simply moves on from an unknown one (the decoder keeps those as they are).
func (r *vr) tag() (uint32, vr) {
	tag := r.uvarint()
	size := r.uvarint()
	if r.bad {
		return 0, vr{}
	}
	start := r.off
	r.skip(int(size))
	if r.bad {
		return 0, vr{}
	}
	return tag, vr{b: r.b[start:r.off]}
}

// tagSpan is tag without the cursor: the data is r.b[start:end].
func (r *vr) tagSpan() (tag uint32, start, end int) {
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

// skipTags walks a tagged-field section of a struct that knows no tags.
func (r *vr) skipTags() {
	n := r.tagCount()
	for i := uint32(0); i < n && !r.bad; i++ {
		r.tag()
	}
}
