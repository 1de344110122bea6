package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"
)

// Reassignment is the file kafka-reassign-partitions takes
// (--reassignment-json-file): version 1 and each partition's new
// replicas. lint's fixes and restore's plan write it.
type Reassignment struct {
	Version    int                     `json:"version"`
	Partitions []ReassignmentPartition `json:"partitions"`
}

// ReassignmentPartition is one partition of a Reassignment.
type ReassignmentPartition struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas"`
}

// JSON is r as the file holds it, on one line: every string JSON-escaped
// (a damaged source's topic name may hold a quote or a control
// character), and every rune Printable refuses written \uXXXX, so that
// the line prints as it is; '<', '>' and '&' as they are.
func (r *Reassignment) JSON() string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(r) // ints, strings and slices always encode
	out := strings.TrimSuffix(b.String(), "\n")
	if Printable(out) {
		return out
	}
	// Outside its strings the document is ASCII: what is left to escape
	// is in a string, where \uXXXX means the rune.
	b.Reset()
	for _, c := range out {
		if PrintableRune(c) {
			b.WriteRune(c)
			continue
		}
		for _, u := range utf16.Encode([]rune{c}) {
			fmt.Fprintf(&b, "\\u%04x", u)
		}
	}
	return b.String()
}
