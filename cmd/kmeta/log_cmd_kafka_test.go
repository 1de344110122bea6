package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
)

// Kafka's DumpLogSegments prints the same payloads for non-finite doubles
// (Jackson writes them as quoted strings).
func TestDumpNonFiniteDoublesMatchesKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	seg := writeQuotaSegment(t)
	compareDumps(t, seg, d.DumpLog(t, []string{seg}), kmetaDump(t, seg))
}

// Producer-transaction markers and unknown control types never belong in
// a metadata log, but when a file holds them the text dump still prints
// what Kafka's DumpLogSegments prints, and exits 1 as log check does.
func TestDumpForeignControlRecordsMatchesKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	marker := []byte{0, 0, 0, 0, 0, 7} // version 0, coordinatorEpoch 7
	var file []byte
	for i, ct := range []byte{0, 1, 9} {
		// kmeta's writer refuses these types: write a LeaderChange control
		// batch, then retype its key and fix the CRC.
		b, err := metalog.AppendControlBatch(nil, metalog.BatchParams{BaseOffset: int64(i), Epoch: 1, Timestamp: 1700000000000},
			[]metalog.ControlRecord{{Type: metalog.ControlLeaderChange, Value: marker}})
		if err != nil {
			t.Fatal(err)
		}
		k := bytes.Index(b[metalog.HeaderSize:], []byte{0, 0, 0, 2}) + metalog.HeaderSize
		b[k+3] = ct
		binary.BigEndian.PutUint32(b[17:], metalog.CRC32C(b[21:]))
		file = append(file, b...)
	}
	seg := filepath.Join(t.TempDir(), metalog.SegmentFileName(0))
	if err := os.WriteFile(seg, file, 0o644); err != nil {
		t.Fatal(err)
	}
	compareDumps(t, seg, d.DumpLog(t, []string{seg}), kmetaDumpExit(t, seg, 1))
}
