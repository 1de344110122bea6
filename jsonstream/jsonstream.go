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
// arr, the array v's top-level field key stands for, written an element
// at a time. v must encode that field as null (the caller leaves it nil),
// and it must not be v's first field. A nil arr is written null, as
// encoding/json writes it.
func Write[T any](w io.Writer, v any, key string, arr []T, indent, escapeHTML bool) error {
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
	field := `,"` + key + `":null`
	if indent {
		field = ",\n  \"" + key + "\": null"
	}
	at := bytes.Index(head.Bytes(), []byte(field))
	if at < 0 {
		return fmt.Errorf("jsonstream: %q is not a field of the document's first level", key)
	}
	at = bytes.Index(head.Bytes()[at:], []byte("null")) + at
	if _, err := w.Write(head.Bytes()[:at]); err != nil {
		return err
	}
	if err := writeArray(w, arr, indent, enc); err != nil {
		return err
	}
	_, err := w.Write(head.Bytes()[at+len("null"):])
	return err
}

// writeArray writes arr as encoding/json writes it one level down.
func writeArray[T any](w io.Writer, arr []T, indent bool, enc func(io.Writer, string) *json.Encoder) error {
	switch {
	case arr == nil:
		_, err := io.WriteString(w, "null")
		return err
	case len(arr) == 0:
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
	for i := range arr {
		buf.Reset()
		if err := e.Encode(&arr[i]); err != nil {
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
