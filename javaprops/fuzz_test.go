package javaprops

import (
	"maps"
	"testing"
	"unicode/utf8"
)

// FuzzFormatReadsBack: whatever the comment, key and value (text a Go
// string holds: valid UTF-8, as every config kmeta writes is), what Format
// writes Parse reads back as exactly the one key and value. Parse is
// Java's reader (metalog's TestJavaValuesMatchKafka and
// TestFormatMatchesJava hold it to Properties.load), so this is what Kafka
// reads from a file kmeta wrote.
func FuzzFormatReadsBack(f *testing.F) {
	f.Add("Written by kmeta quorum rebuild from /var/lib/kafka", "process.roles", "controller")
	f.Add("from /tmp/a\rb=c", "k", "v")
	f.Add("one\r\ntwo\nthree\\", " a=b:c ", "#x\\y\n\U0001F600")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, comment, k, v string) {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			t.Skip()
		}
		want := map[string]string{k: v}
		out := Format(comment, want)
		got, err := Parse(out)
		if err != nil {
			t.Fatalf("Format(%q, %q) = %q: Parse: %v", comment, want, out, err)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("Format(%q, %q) = %q reads back as %q", comment, want, out, got)
		}
	})
}

// FuzzParse: any bytes parse without a panic, a refusal is a
// *SyntaxError, and the lines ParseLines places the keys at are within
// the input.
func FuzzParse(f *testing.F) {
	f.Add([]byte("a=b\nc:d\\\n  e\n# x\n! y\nk\\u0041=\\uD83D\\uDE00\r\n"))
	f.Add([]byte("k=\\u12"))
	f.Add([]byte("\\\n\\\r\\"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, lines, err := ParseLines(data)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		if len(lines) != len(m) {
			t.Fatalf("%d keys, %d lines", len(m), len(lines))
		}
		for k, l := range lines {
			if _, ok := m[k]; !ok || l < 1 || l > len(data)+1 {
				t.Fatalf("key %q at line %d of %d bytes", k, l, len(data))
			}
		}
	})
}
