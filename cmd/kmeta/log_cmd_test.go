package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
)

// writeQuotaSegment writes a segment of ClientQuotaRecords whose values are
// the doubles a hand-written or damaged record may hold: NaN, infinities,
// negative zero and large values.
func writeQuotaSegment(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var vals [][]byte
	for i, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e7, 1.5} {
		name := "u" + string(rune('a'+i))
		rec := &records.ClientQuotaRecord{Entity: []records.ClientQuotaRecordEntityData{{EntityType: "user", EntityName: &name}}, Key: "producer_byte_rate", Value: v}
		b, err := records.EncodeMetadata(nil, rec, 0)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, b)
	}
	w, err := metalog.CreateSegment(dir, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendData(1, 1700000000000, vals); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return dir + "/" + metalog.SegmentFileName(0)
}

// Every line of `log dump -o json` is valid JSON, whatever double a
// ClientQuotaRecord holds.
func TestDumpJSONNonFiniteDoubles(t *testing.T) {
	seg := writeQuotaSegment(t)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"kmeta", "log", "dump", "-o", "json", seg}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want a batch and 6 records:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("invalid JSON line: %s", l)
		}
	}
}

// --type selects records by name or apiKey and prints a batch line only
// above a batch's first selected record.
func TestDumpTypeFilter(t *testing.T) {
	seg := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata", "__cluster_metadata-0", "00000000000000000000.log")
	byName := kmeta("log", "dump", "--type", "TOPIC_RECORD", seg)
	byKey := kmeta("log", "dump", "--type", "2", seg)
	if byName.code != 0 || byName.stdout != byKey.stdout {
		t.Fatalf("--type TOPIC_RECORD and --type 2 differ (exit %d)", byName.code)
	}
	lines := strings.Split(strings.TrimSpace(byName.stdout), "\n")
	var recs, batches int
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "| offset:"):
			recs++
			if !strings.Contains(l, `"type":"TOPIC_RECORD"`) {
				t.Errorf("line %d is not a TopicRecord: %s", i, l)
			}
		case strings.HasPrefix(l, "baseOffset:"):
			batches++
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "| offset:") {
				t.Errorf("batch line %d is not followed by a selected record", i)
			}
		}
	}
	all := kmeta("log", "dump", seg)
	if want := strings.Count(all.stdout, `"type":"TOPIC_RECORD"`); recs != want || recs == 0 || batches == 0 || batches > recs {
		t.Errorf("%d records in %d batches, want %d records", recs, batches, want)
	}
}
