package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/synth"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
)

// writeEveryRecord writes a segment and a snapshot holding every metadata
// record type at every version kmeta knows, every field set to a
// non-default value, plus the raft control records.
func writeEveryRecord(t *testing.T, dir string) (segment, snapshot string, n int) {
	t.Helper()
	g := synth.New(42)
	var values [][]byte
	for _, vr := range g.Every() {
		b, err := records.EncodeMetadata(nil, vr.Rec, vr.Version)
		if err != nil {
			t.Fatalf("encode %s v%d: %v", vr.Rec.RecordName(), vr.Version, err)
		}
		values = append(values, b)
	}
	lc, err := records.EncodeControl(nil, &records.LeaderChangeMessage{LeaderId: 1,
		Voters: []records.LeaderChangeMessageVoter{{VoterId: 1}, {VoterId: 2}}, GrantingVoters: []records.LeaderChangeMessageVoter{{VoterId: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	sw, err := metalog.CreateSegment(dir, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.AppendControl(3, 1700000000000, []metalog.ControlRecord{{Type: metalog.ControlLeaderChange, Value: lc}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(values); i += 4 {
		end := min(i+4, len(values))
		if err := sw.AppendData(3, 1700000000000+int64(i), values[i:end]); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Commit(); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, (metalog.SnapshotID{EndOffset: int64(len(values) + 1), Epoch: 3}).FileName())
	if err := metalog.WriteSnapshotFile(snap, values, metalog.SnapshotOptions{Epoch: 3, Timestamp: 1700000000000, LastContainedLogTimestamp: 1700000000000}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, metalog.SegmentFileName(0)), snap, len(values)
}

// TestKafkaReadsWhatKmetaWrites: files kmeta's encoder and writer produce
// are read by Kafka's own DumpLogSegments without a single error, and
// Kafka's decoding prints exactly what kmeta's decoding prints: every
// field of every record type and version, tagged fields included.
func TestKafkaReadsWhatKmetaWrites(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	seg, snap, n := writeEveryRecord(t, t.TempDir())
	for _, f := range []string{seg, snap} {
		kafka := d.DumpLog(t, []string{f})
		if strings.Contains(kafka, "Error at") || strings.Contains(kafka, "invalid bytes") || strings.Contains(kafka, "isvalid: false") {
			t.Fatalf("Kafka could not read %s:\n%s", f, kafka)
		}
		if got := strings.Count(kafka, " payload: {"); got != n {
			t.Fatalf("Kafka decoded %d records of %s, want %d", got, f, n)
		}
		compareDumps(t, f, kafka, kmetaDump(t, f))
	}
}
