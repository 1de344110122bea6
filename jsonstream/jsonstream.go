// Package jsonstream writes a JSON document whose one large array is
// encoded an element at a time: the bytes encoding/json writes for the
// whole value, without the whole value's encoding (and, indented, its two
// copies more) in memory. A migration plan's topics (a million partitions:
// 130 MB indented) and lint's findings (10,000 of them: 100 MB) are
// written this way.
//
// The rest of the value is encoded with the array left out (nil, so
// null), and the array goes where that null is, found by its key: in the
// indented form at the first level (a newline and two spaces before the
// key, which no string holds and a deeper key does not have), in the
// compact form at its first occurrence, which the caller's type must make
// its own (a string holding it would show its quotes escaped).
package jsonstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Write writes v as a json.Encoder writes it (HTML escaped when
// escapeHTML, indented by two spaces when indent, a final newline), with
// the array that v's top-level field key holds written an element at a
// time: elem(i) for i in [0, n). v must encode that field as null (the
// caller leaves it nil), and it must not be v's first field. n < 0 is a
// nil array, written null.
func Write(w io.Writer, v any, key string, n int, elem func(i int) any, indent, escapeHTML bool) error {
	enc := func(w io.Writer, prefix string) *json.Encoder {
		e := json.NewEncoder(w)
		e.SetEscapeHTML(escapeHTML)
		if indent {
			e.SetIndent(prefix, "  ")
		}
		return e
	}
	var head bytes.Buffer
	if err := enc(&head, "").Encode(v); err != nil {
		return err
	}
	at := bytes.Index(head.Bytes(), []byte(`,"`+key+`":null`))
	if indent {
		at = bytes.Index(head.Bytes(), []byte(",\n  \""+key+"\": null"))
	}
	if at < 0 {
		return fmt.Errorf("jsonstream: %q is not a field of the document's first level", key)
	}
	at = bytes.Index(head.Bytes()[at:], []byte("null")) + at
	if _, err := w.Write(head.Bytes()[:at]); err != nil {
		return err
	}
	if err := writeArray(w, n, elem, indent, enc); err != nil {
		return err
	}
	_, err := w.Write(head.Bytes()[at+len("null"):])
	return err
}

// writeArray writes the array as encoding/json writes it one level down.
func writeArray(w io.Writer, n int, elem func(int) any, indent bool, enc func(io.Writer, string) *json.Encoder) error {
	switch {
	case n < 0:
		_, err := io.WriteString(w, "null")
		return err
	case n == 0:
		_, err := io.WriteString(w, "[]")
		return err
	}
	sep, first, last := ",", "[", "]"
	if indent {
		sep, first, last = ",\n    ", "[\n    ", "\n  ]"
	}
	var buf bytes.Buffer
	e := enc(&buf, "    ")
	if _, err := io.WriteString(w, first); err != nil {
		return err
	}
	for i := range n {
		buf.Reset()
		if err := e.Encode(elem(i)); err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
		}
		if _, err := w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, last)
	return err
}
