package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is an output format chosen with kmeta's --output flag.
type Format string

// The output formats every kmeta command supports.
const (
	Text  Format = "text"
	Table Format = "table"
	JSON  Format = "json"
)

// Formats lists the valid formats in the order help text shows them.
var Formats = []Format{Text, Table, JSON}

// ParseFormat validates a --output value against Formats.
func ParseFormat(s string) (Format, error) { return ParseFormatIn(s, Formats) }

// ParseFormatIn validates a --output value against the formats a command
// offers (Formats, or ReportFormats for one with an html report).
func ParseFormatIn(s string, fs []Format) (Format, error) {
	for _, f := range fs {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown output format %q (want %s)", s, FormatList(fs, "or"))
}

// FormatList names fs as prose: "text, table or json".
func FormatList(fs []Format, conj string) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// WriteJSON writes v as one indented JSON document followed by a newline.
// HTML escaping is off so that principals like "User:<x>" and config values
// come out as typed, which is what jq users expect.
func WriteJSON(w io.Writer, v any) error {
	if s, ok := v.(IndentedJSONWriter); ok {
		return s.WriteJSONIndented(w)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// IndentedJSONWriter is a document too large to encode whole (a
// migration plan's million partitions), which writes the bytes WriteJSON
// would itself, a piece at a time.
type IndentedJSONWriter interface {
	WriteJSONIndented(w io.Writer) error
}

// WriteJSONLine writes v as one compact JSON line, for streams (JSON lines).
func WriteJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Count is n followed by noun, in the plural unless n is 1 ("1 blocker",
// "3 blockers", "2 entries"). Every count printed in prose goes through
// it, so that no output says "1 blockers".
func Count(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %s", n, Plural(noun))
}

// Plural is the English plural of a count noun as kmeta prints them.
func Plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}
