package model

import (
	"encoding/json"
	"strings"
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
// character), '<', '>' and '&' as they are.
func (r *Reassignment) JSON() string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(r) // ints, strings and slices always encode
	return strings.TrimSuffix(b.String(), "\n")
}
