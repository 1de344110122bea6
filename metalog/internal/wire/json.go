package wire

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The JSON helpers reproduce what Kafka's generated JSON converters emit
// through Jackson, so that kmeta's record payloads can be compared with
// DumpLogSegments output byte for byte: no HTML escaping, control characters
// as \u00XX, bytes as standard base64, doubles as Java's Double.toString.

// AppendJSONString appends s as a JSON string the way Jackson writes it.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Kafka decoded the bytes as UTF-8 with replacement.
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// AppendJSONInt appends an integer.
func AppendJSONInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// AppendJSONBool appends true or false.
func AppendJSONBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// AppendJSONBytes appends bytes as a standard base64 string.
func AppendJSONBytes(b []byte, v []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

// AppendJSONDouble appends f as a JSON value the way Kafka's JSON
// converters write a float64 field: Java's Double.toString for finite
// values, and NaN and the infinities as quoted strings ("NaN",
// "Infinity", "-Infinity"), which Jackson does by default and which keeps
// the output valid JSON.
func AppendJSONDouble(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b = append(b, '"')
		b = AppendJavaDouble(b, f)
		return append(b, '"')
	}
	return AppendJavaDouble(b, f)
}

// AppendJavaDouble appends f as Java's Double.toString prints it: plain
// notation with at least one fractional digit for 1e-3 <= |f| < 1e7, else
// computerized scientific notation ("1.048576E7"), using the shortest digits
// that round-trip.
func AppendJavaDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return append(b, s...)
	}
	// 'e' gives d.ddddde±XX with the shortest digits.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	b = append(b, mant...)
	b = append(b, 'E')
	return strconv.AppendInt(b, int64(e), 10)
}
