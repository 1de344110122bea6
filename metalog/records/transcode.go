package records

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/kmeta/kmeta/metalog/internal/wire"
)

// Transcoding: `log dump` prints every record as Kafka's JSON converter
// does (AppendJSON), and decoding a record into its struct first (a struct,
// its slices and strings per record) costs more than the printing. The
// generated json<Name> functions write the JSON straight from a body's
// bytes, on the validating cursor. Each first walks the body as
// validate<Name> does (the same checks, so every read of the printing walk
// after it succeeds) noting where its tagged fields are, then prints; the
// verdict is ValidMetadata's, without a separate validation pass. The
// output is AppendJSON's, byte for byte (transcode_test.go over every
// fixture and type, and FuzzTranscodeMetadata on random input, which also
// holds ok to the decoder's verdict).

// AppendMetadataJSON appends the JSON of a data record's body (frame
// excluded), as AppendJSON writes the decoded record, and returns the
// frame's apiKey and version. ok is false, and nothing is appended (dst is
// returned as it was, though bytes past its length may have been written),
// when the value does not decode (or its type or version is unknown):
// decode it then for the error. It allocates nothing beyond growing dst.
func AppendMetadataJSON(dst, value []byte) (out []byte, apiKey, version int16, ok bool) {
	// The frame as ValidMetadata reads it.
	r := vr{b: value}
	fv := r.uvarint()
	key := r.uvarint()
	ver := r.uvarint()
	if r.bad || fv != 1 || key > 32767 || ver > 32767 {
		return dst, 0, 0, false
	}
	body := vr{b: value[r.off:]}
	out, ok = appendMetadataBodyJSON(dst, int16(key), &body, int16(ver))
	if !ok || body.bad || body.off != len(body.b) {
		return dst, 0, 0, false
	}
	return out, int16(key), int16(ver), true
}

// MetadataTypeName is TypeName of the record type with this apiKey, ""
// when kmeta does not know it.
func MetadataTypeName(apiKey int16) string {
	if apiKey >= 0 && int(apiKey) < len(typeNamesByKey) {
		return typeNamesByKey[apiKey]
	}
	return ""
}

var typeNamesByKey = func() []string {
	var out []string
	for _, t := range metadataTypes {
		for int(t.APIKey) >= len(out) {
			out = append(out, "")
		}
		out[t.APIKey] = TypeName(t.Name)
	}
	return out
}()

func (r *vr) fixed(n int) []byte {
	if r.bad || n > len(r.b)-r.off {
		r.bad = true
		return make([]byte, n) // never reached on a validated body
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *vr) jsonBool(b []byte) []byte { return wire.AppendJSONBool(b, r.fixed(1)[0] != 0) }
func (r *vr) jsonInt8(b []byte) []byte { return wire.AppendJSONInt(b, int64(int8(r.fixed(1)[0]))) }
func (r *vr) jsonInt16(b []byte) []byte {
	return wire.AppendJSONInt(b, int64(int16(binary.BigEndian.Uint16(r.fixed(2)))))
}
func (r *vr) jsonUint16(b []byte) []byte {
	return wire.AppendJSONInt(b, int64(binary.BigEndian.Uint16(r.fixed(2))))
}
func (r *vr) jsonInt32(b []byte) []byte {
	return wire.AppendJSONInt(b, int64(int32(binary.BigEndian.Uint32(r.fixed(4)))))
}
func (r *vr) jsonUint32(b []byte) []byte {
	return wire.AppendJSONInt(b, int64(binary.BigEndian.Uint32(r.fixed(4))))
}
func (r *vr) jsonInt64(b []byte) []byte {
	return wire.AppendJSONInt(b, int64(binary.BigEndian.Uint64(r.fixed(8))))
}
func (r *vr) jsonFloat64(b []byte) []byte {
	return wire.AppendJSONDouble(b, math.Float64frombits(binary.BigEndian.Uint64(r.fixed(8))))
}

// jsonUUID is AppendJSONString(u.String()): base64url needs no escaping.
func (r *vr) jsonUUID(b []byte) []byte {
	u := r.fixed(16)
	if len(u) != 16 {
		b = append(b, '"')
		b = base64.RawURLEncoding.AppendEncode(b, u)
		return append(b, '"')
	}
	return appendUUID(b, u)
}

const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// appendUUID appends a 16-byte Uuid as Kafka prints it (Uuid.toString:
// URL-safe base64 without padding, 22 characters) in quotes. Every
// PartitionRecord and PartitionChangeRecord has one, so it is unrolled
// rather than going through encoding/base64 (TestAppendUUID holds it to
// base64.RawURLEncoding).
func appendUUID(b []byte, u []byte) []byte {
	_ = u[15]
	n := len(b)
	b = append(b, `"0123456789012345678901"`...)
	o := b[n+1 : n+23]
	for i := 0; i < 5; i++ {
		v := uint(u[3*i])<<16 | uint(u[3*i+1])<<8 | uint(u[3*i+2])
		o[4*i] = base64URL[v>>18&0x3f]
		o[4*i+1] = base64URL[v>>12&0x3f]
		o[4*i+2] = base64URL[v>>6&0x3f]
		o[4*i+3] = base64URL[v&0x3f]
	}
	o[20] = base64URL[u[15]>>2]
	o[21] = base64URL[u[15]&0x3<<4]
	return b
}

// rawString is the next n bytes as a string sharing them: it is only read,
// while the value it points into is alive.
func (r *vr) rawString(n int) string {
	s := r.fixed(n)
	if n == 0 {
		return ""
	}
	return unsafe.String(&s[0], n)
}

func (r *vr) jsonString(b []byte) []byte {
	n := r.compactLen(1)
	return wire.AppendJSONString(b, r.rawString(max(n, 0)))
}

func (r *vr) jsonNullableString(b []byte, nullable bool) []byte {
	if !nullable {
		return r.jsonString(b)
	}
	n := r.compactLen(1)
	if n < 0 {
		return append(b, "null"...)
	}
	return wire.AppendJSONString(b, r.rawString(n))
}

func (r *vr) jsonBytes(b []byte) []byte {
	n := r.compactLen(1)
	if n < 0 {
		return append(b, "null"...)
	}
	return wire.AppendJSONBytes(b, r.fixed(n))
}

// The raw default tests of tagged fields, on a copy of the field's cursor.

func rawNullArray(t vr) bool { return t.uvarint() == 0 }

func rawEmptyArray(t vr) bool { return t.uvarint() <= 1 }

func rawEmptyString(t vr) bool { return t.uvarint() == 1 }

func rawZeroUUID(t vr) bool { return [16]byte(t.fixed(16)) == [16]byte{} }

func rawInt(t vr, size int) uint64 {
	s := t.fixed(size)
	switch size {
	case 1:
		return uint64(s[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(s))
	case 4:
		return uint64(binary.BigEndian.Uint32(s))
	}
	return binary.BigEndian.Uint64(s)
}

func rawFloat(t vr) float64 { return math.Float64frombits(rawInt(t, 8)) }
