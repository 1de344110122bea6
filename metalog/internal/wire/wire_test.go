package wire

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestVarints(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, -64, 64, 1 << 20, math.MaxInt32, math.MinInt32} {
		w := &Writer{}
		w.Varint(v)
		r := NewReader(w.B)
		if got := r.Varint(); got != v || r.Err() != nil || r.Remaining() != 0 {
			t.Errorf("varint %d: got %d err %v", v, got, r.Err())
		}
	}
	for _, v := range []int64{0, -1, math.MaxInt64, math.MinInt64} {
		w := &Writer{}
		w.Varlong(v)
		if got := NewReader(w.B).Varlong(); got != v {
			t.Errorf("varlong %d: got %d", v, got)
		}
	}
	// Kafka's encodings from the reference: -1 is 0x01, 1 is 0x02.
	w := &Writer{}
	w.Varint(-1)
	w.Varint(1)
	if string(w.B) != "\x01\x02" {
		t.Errorf("zig-zag bytes %x", w.B)
	}
	// More than 5 bytes is malformed; a cut varint is short.
	if r := NewReader([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}); r.Uvarint() != 0 || !errors.Is(r.Err(), ErrVarint) {
		t.Errorf("long varint: %v", r.Err())
	}
	if r := NewReader([]byte{0x80}); r.Uvarint() != 0 || !errors.Is(r.Err(), ErrShort) {
		t.Errorf("short varint: %v", r.Err())
	}
}

// A length that claims more than the input holds fails before allocating.
func TestLengthsBoundedByInput(t *testing.T) {
	w := &Writer{}
	w.Uvarint(1 << 30)
	r := NewReader(w.B)
	if n := r.ArrayLen(false, 4); n != -1 || !errors.Is(r.Err(), ErrTooLong) {
		t.Errorf("array len %d err %v", n, r.Err())
	}
	r = NewReader([]byte{0})
	if r.CompactString(); !errors.Is(r.Err(), ErrNullField) {
		t.Errorf("null string: %v", r.Err())
	}
}

// Java's Double.toString, which Kafka's JSON converters print through.
func TestAppendJavaDouble(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", 1: "1.0", 1048576: "1048576.0", 1e7: "1.0E7", 10485760: "1.048576E7", 9999999: "9999999.0",
		0.001: "0.001", 1e-4: "1.0E-4", 123.456: "123.456", -2.5: "-2.5", 1.5e300: "1.5E300",
	} {
		if got := string(AppendJavaDouble(nil, f)); got != want {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

// Jackson, through which Kafka's JSON converters write, quotes NaN and the
// infinities (QUOTE_NON_NUMERIC_NUMBERS), which also keeps the JSON valid;
// finite doubles print as Java's Double.toString.
func TestAppendJSONDouble(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{math.NaN(), `"NaN"`}, {math.Inf(1), `"Infinity"`}, {math.Inf(-1), `"-Infinity"`},
		{math.Copysign(0, -1), "-0.0"}, {1e7, "1.0E7"}, {1.5, "1.5"},
	} {
		got := AppendJSONDouble(nil, c.f)
		if string(got) != c.want || !json.Valid(got) {
			t.Errorf("%v: got %s, want %s", c.f, got, c.want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	if got := string(AppendJSONString(nil, "a\"b\\c\n\x01<é>/")); got != `"a\"b\\c\n\u0001<é>/"` {
		t.Errorf("got %s", got)
	}
}
