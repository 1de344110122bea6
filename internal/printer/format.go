package printer

import (
	"encoding/json"
	"fmt"
	"io"
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

// ParseFormat validates a --output value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown output format %q (want text, table or json)", s)
}

// WriteJSON writes v as one indented JSON document followed by a newline.
// HTML escaping is off so that principals like "User:<x>" and config values
// come out as typed, which is what jq users expect.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJSONLine writes v as one compact JSON line, for streams (JSON lines).
func WriteJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
