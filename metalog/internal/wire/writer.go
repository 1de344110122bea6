package wire

import (
	"encoding/binary"
	"math"
)

// Writer appends Kafka encodings to a byte slice.
type Writer struct {
	B []byte
}

func (w *Writer) Int8(v int8) { w.B = append(w.B, byte(v)) }
func (w *Writer) Bool(v bool) {
	if v {
		w.B = append(w.B, 1)
	} else {
		w.B = append(w.B, 0)
	}
}
func (w *Writer) Int16(v int16)     { w.B = binary.BigEndian.AppendUint16(w.B, uint16(v)) }
func (w *Writer) Uint16(v uint16)   { w.B = binary.BigEndian.AppendUint16(w.B, v) }
func (w *Writer) Int32(v int32)     { w.B = binary.BigEndian.AppendUint32(w.B, uint32(v)) }
func (w *Writer) Uint32(v uint32)   { w.B = binary.BigEndian.AppendUint32(w.B, v) }
func (w *Writer) Int64(v int64)     { w.B = binary.BigEndian.AppendUint64(w.B, uint64(v)) }
func (w *Writer) Float64(v float64) { w.Int64(int64(math.Float64bits(v))) }
func (w *Writer) UUID(u [16]byte)   { w.B = append(w.B, u[:]...) }

func (w *Writer) Uvarint(v uint32)  { w.B = binary.AppendUvarint(w.B, uint64(v)) }
func (w *Writer) Varint(v int32)    { w.Uvarint(uint32(v<<1) ^ uint32(v>>31)) }
func (w *Writer) Uvarlong(v uint64) { w.B = binary.AppendUvarint(w.B, v) }
func (w *Writer) Varlong(v int64)   { w.Uvarlong(uint64(v<<1) ^ uint64(v>>63)) }

func (w *Writer) CompactString(s string) {
	w.Uvarint(uint32(len(s)) + 1)
	w.B = append(w.B, s...)
}

func (w *Writer) CompactNullableString(s *string) {
	if s == nil {
		w.Uvarint(0)
		return
	}
	w.CompactString(*s)
}

// CompactBytes writes b; a nil b is written as null when nullable, else as empty.
func (w *Writer) CompactBytes(b []byte, nullable bool) {
	if b == nil && nullable {
		w.Uvarint(0)
		return
	}
	w.Uvarint(uint32(len(b)) + 1)
	w.B = append(w.B, b...)
}

// ArrayLen writes a compact array length; null when isNull.
func (w *Writer) ArrayLen(n int, isNull bool) {
	if isNull {
		w.Uvarint(0)
		return
	}
	w.Uvarint(uint32(n) + 1)
}

// UvarintSize is the encoded size of v.
func UvarintSize(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Tags writes a tagged-field section: known and unknown fields merged in
// ascending tag order, as Kafka requires.
func (w *Writer) Tags(known, unknown []TaggedField) {
	w.Uvarint(uint32(len(known) + len(unknown)))
	i, j := 0, 0
	for i < len(known) || j < len(unknown) {
		var f TaggedField
		if j >= len(unknown) || (i < len(known) && known[i].Tag < unknown[j].Tag) {
			f = known[i]
			i++
		} else {
			f = unknown[j]
			j++
		}
		w.Uvarint(f.Tag)
		w.Uvarint(uint32(len(f.Data)))
		w.B = append(w.B, f.Data...)
	}
}
