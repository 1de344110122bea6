package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
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

// A snapshot alone covers offsets below its end offset and no others: log
// check says so instead of printing -1 or -2 (kafka-storage format's
// 0-0 snapshot covers none).
func TestLogCheckSnapshotOffsets(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata", "__cluster_metadata-0")
	for _, c := range []struct{ file, text, json string }{
		{"00000000000000000000-0000000000.checkpoint", "log offsets: none; last known-good offset: none", `"lastGoodOffset": -1`},
		{"00000000000000000099-0000000001.checkpoint", "log offsets: below 99 (a snapshot, no segment); last known-good offset: 98", `"lastGoodOffset": 98`},
	} {
		p := filepath.Join(dir, c.file)
		for _, o := range []string{"text", "table"} {
			code, out, stderr := runKmeta(t, "log", "check", "-o", o, p)
			if code != 0 || strings.Contains(out, "-1") || strings.Contains(out, "-2") {
				t.Errorf("%s -o %s: exit %d, %s%s", c.file, o, code, out, stderr)
			}
			if o == "text" && !strings.Contains(out, c.text) {
				t.Errorf("%s: %q not in\n%s", c.file, c.text, out)
			}
		}
		if _, out, _ := runKmeta(t, "log", "check", "-o", "json", p); !strings.Contains(out, c.json) || strings.Contains(out, "-2") {
			t.Errorf("%s -o json: want %s:\n%s", c.file, c.json, out)
		}
	}
}

// log stats -o json on a damaged log says so in the document, not only in
// the exit code: partial, and the first damage.
func TestLogStatsJSONCarriesDamage(t *testing.T) {
	dir := copyFixture(t, "4.4.0")
	p := filepath.Join(dir, "__cluster_metadata-0", "00000000000000000000.log")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Batches int64 `json:"batches"`
		Partial bool  `json:"partial"`
		Damage  *struct {
			Code string `json:"code"`
		} `json:"damage"`
	}
	for _, c := range []struct {
		src     string
		code    int
		partial bool
		damage  string
	}{{filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata"), 0, false, ""}, {dir, 1, true, "crc-mismatch"}} {
		code, out, stderr := runKmeta(t, "log", "stats", "-o", "json", c.src)
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("%s: %v\n%s", c.src, err, out)
		}
		got := ""
		if d.Damage != nil {
			got = d.Damage.Code
		}
		if code != c.code || d.Partial != c.partial || got != c.damage || d.Batches == 0 {
			t.Errorf("%s: exit %d partial %v damage %q batches %d; want exit %d partial %v damage %q\n%s", c.src, code, d.Partial, got, d.Batches, c.code, c.partial, c.damage, stderr)
		}
	}
}

// log stats describes the log: the committed 4.4.0 fixture's two
// segments (76 batches, one of them control, 194 records, offsets 0 to
// 193, all at epoch 1: counted from its committed DumpLogSegments
// dumps), and each snapshot apart, labelled, with its end offset and
// epoch. Before, the bootstrap snapshot's and snapshot 99-1's batches
// were counted as the log's: 82 batches, 262 records, an epoch 0 the log
// never had and an epoch 1 starting at offset 0 of the snapshot.
func TestLogStatsIsTheLogs(t *testing.T) {
	r := kmeta("log", "stats", fixture44)
	want := strings.ReplaceAll(`log (segments): batches: 76 (1 control), records: 194, bytes: 15334
offsets: 0..193
time: 2026-11-30T07:39:56.404Z .. 2026-11-30T07:40:27.079Z

TYPE                                 KEY        RECORDS  BYTES
REGISTER_BROKER_RECORD               0          5        1375
TOPIC_RECORD                         2          5        164
PARTITION_RECORD                     3          14       1318
CONFIG_RECORD                        4          13       448
PARTITION_CHANGE_RECORD              5          78       3095
REMOVE_TOPIC_RECORD                  9          1        20
DELEGATION_TOKEN_RECORD              10         3        244
USER_SCRAM_CREDENTIAL_RECORD         11         4        550
FEATURE_LEVEL_RECORD                 12         9        219
CLIENT_QUOTA_RECORD                  14         12       591
PRODUCER_IDS_RECORD                  15         3        72
BROKER_REGISTRATION_CHANGE_RECORD    17         19       361
ACCESS_CONTROL_ENTRY_RECORD          18         8        386
REMOVE_ACCESS_CONTROL_ENTRY_RECORD   19         1        20
NO_OP_RECORD                         20         11       44
REMOVE_USER_SCRAM_CREDENTIAL_RECORD  22         1        11
BEGIN_TRANSACTION_RECORD             23         1        24
END_TRANSACTION_RECORD               24         1        4
REMOVE_DELEGATION_TOKEN_RECORD       26         1        27
REGISTER_CONTROLLER_RECORD           27         1        216
LEADER_CHANGE                        control 2  1        19
KRAFT_VERSION                        control 5  1        5
KRAFT_VOTERS                         control 6  1        55

EPOCH  BATCHES  RECORDS  FIRST OFFSET  LAST OFFSET
1      76       194      0             193

snapshots and bootstrap files, not part of the log's counts above:

SNAPSHOT FILE                                                                                        KIND                END OFFSET  EPOCH  BATCHES        RECORDS  BYTES
FX/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint  bootstrap snapshot  0           0      3 (2 control)  7        392
FX/__cluster_metadata-0/00000000000000000099-0000000001.checkpoint  snapshot            99          1      3 (2 control)  61       4851
`, "FX", fixture44)
	if r.code != exitOK || r.stdout != want || r.stderr != "" {
		t.Errorf("exit %d\n%s\nwant\n%s\nstderr %s", r.code, r.stdout, want, r.stderr)
	}
}

// log stats of a snapshot alone says there is no log in it, once: not a
// log's empty type and epoch tables above the snapshot's (JSON keeps its
// zero stats).
func TestLogStatsOfASnapshotAlone(t *testing.T) {
	snap := filepath.Join(fixture44, "__cluster_metadata-0", "00000000000000000099-0000000001.checkpoint")
	r := kmeta("log", "stats", snap)
	want := strings.ReplaceAll(`log (segments): none in this input

snapshots and bootstrap files:

SNAPSHOT FILE                                                                                        KIND      END OFFSET  EPOCH  BATCHES        RECORDS  BYTES
FX  snapshot  99          1      3 (2 control)  61       4851
`, "FX", snap)
	if r.code != exitOK || r.stdout != want || r.stderr != "" {
		t.Errorf("exit %d\n%s\nwant\n%s\nstderr %s", r.code, r.stdout, want, r.stderr)
	}
}
