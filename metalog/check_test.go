package metalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

func kinds(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, string(f.Severity)+":"+f.Code)
	}
	sort.Strings(out)
	return out
}

func TestCheckCleanDir(t *testing.T) {
	root, part := standardDir(t)
	must(t, os.WriteFile(filepath.Join(part, LeaderEpochFileName), []byte("0\n2\n2 90\n3 120\n"), 0o644))
	rep, err := Check(root, CheckOptions{Strict: true, Stats: true})
	must(t, err)
	if len(rep.Findings) != 0 {
		t.Fatalf("findings %+v", rep.Findings)
	}
	if rep.LogStartOffset != 90 || rep.LogEndOffset != 140 || rep.LastGoodOffset != 139 || len(rep.Files) != 5 {
		t.Fatalf("report %+v", rep)
	}
	s := rep.Stats
	// The log: the segments' 5 batches (epoch 3 opens with its
	// LeaderChange), 49 data records and the LeaderChange.
	if s.Batches != 5 || s.ControlBatches != 1 || s.Records != 50 || len(s.ByAPIKey) != 1 || s.ByAPIKey[0].Key != 12 || s.ByAPIKey[0].Records != 49 ||
		s.FirstOffset != 90 || s.LastOffset != 139 {
		t.Fatalf("stats %+v", s)
	}
	if want := []EpochStats{{Epoch: 2, Batches: 2, Records: 30, FirstOffset: 90, LastOffset: 119}, {Epoch: 3, Batches: 3, Records: 20, FirstOffset: 120, LastOffset: 139}}; !slices.Equal(s.Epochs, want) {
		t.Fatalf("epochs %+v", s.Epochs)
	}
	// Apart, in reading order: bootstrap.checkpoint (3 batches, 1 data
	// record) and the two snapshots (3 batches, 3 data records each).
	var got []string
	for _, f := range rep.SnapshotStats {
		got = append(got, fmt.Sprintf("%s %s %d/%d %d %v", filepath.Base(f.Path), f.Kind, f.Stats.Batches, f.Stats.ControlBatches, f.Stats.Records, f.Stats.Epochs))
	}
	want := []string{"bootstrap.checkpoint bootstrap 3/2 3 [{0 3 3 0 2}]",
		"00000000000000000050-0000000001.checkpoint snapshot 3/2 5 [{1 3 5 0 4}]",
		"00000000000000000100-0000000002.checkpoint snapshot 3/2 5 [{2 3 5 0 4}]"}
	if !slices.Equal(got, want) {
		t.Fatalf("snapshot stats %q", got)
	}
	// The report is data: it marshals deterministically.
	a, _ := json.Marshal(rep)
	rep2, _ := Check(root, CheckOptions{Strict: true, Stats: true})
	b, _ := json.Marshal(rep2)
	if !bytes.Equal(a, b) {
		t.Fatal("two checks of the same dir differ")
	}
}

// TestCheckFindings damages a standard dir in one way per case and
// expects exactly the listed findings.
func TestCheckFindings(t *testing.T) {
	seg := func(part string, base int64) string { return filepath.Join(part, SegmentFileName(base)) }
	flip := func(path string, at int64) {
		b, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		b[at] ^= 0x40
		os.WriteFile(path, b, 0o644)
	}
	// Batch 2 of segment 90 starts after batch 1 (10 records).
	batch2 := int64(HeaderSize + 10*31)
	cases := []struct {
		name     string
		snaps    []SnapshotID
		segs     []segSpec
		mutate   func(root, part string)
		want     []string
		lastGood int64
	}{
		{name: "crc", mutate: func(_, p string) { flip(seg(p, 90), batch2+40) },
			want: []string{"error:crc-mismatch"}, lastGood: 99},
		{name: "torn tail of the active segment", mutate: func(_, p string) {
			fi, _ := os.Stat(seg(p, 120))
			os.Truncate(seg(p, 120), fi.Size()-1)
		}, want: []string{"warning:torn-tail"}, lastGood: 124},
		{name: "torn tail of an older segment", mutate: func(_, p string) {
			os.Truncate(seg(p, 90), batch2+70)
		}, want: []string{"error:offset-gap", "error:torn-tail"}, lastGood: 99},
		{name: "bad magic", mutate: func(_, p string) {
			b, _ := os.ReadFile(seg(p, 120))
			b[16] = 1
			os.WriteFile(seg(p, 120), b, 0o644)
		}, want: []string{"error:bad-magic"}, lastGood: 119},
		{name: "gap between segments", segs: []segSpec{{90, []batchSpec{{2, 10}}}, {120, []batchSpec{{3, 5}}}},
			want: []string{"error:offset-gap"}, lastGood: 99},
		{name: "overlap between segments", segs: []segSpec{{90, []batchSpec{{2, 40}}}, {120, []batchSpec{{3, 5}}}},
			// The overlapping batch is damage, and the log ends (as Kafka
			// computes its end) after segment 120's last batch.
			want: []string{"error:offset-overlap"}, lastGood: 124},
		{name: "epoch regression", segs: []segSpec{{90, []batchSpec{{2, 10}, {4, 20}}}, {120, []batchSpec{{3, 5}}}},
			want: []string{"error:epoch-regression", "warning:quorum-state-epoch"}, lastGood: 119},
		{name: "coverage hole", snaps: []SnapshotID{{EndOffset: 80, Epoch: 1}},
			want: []string{"error:snapshot-coverage-hole"}, lastGood: 79},
		{name: "snapshot beyond log end is fine", snaps: []SnapshotID{{EndOffset: 500, Epoch: 9}},
			want: nil, lastGood: 499},
		{name: "snapshot without footer", mutate: func(_, p string) {
			path := filepath.Join(p, SnapshotID{100, 2}.FileName())
			os.Truncate(path, lastBatchPos(t, path))
		}, want: []string{"error:snapshot-missing-footer"}, lastGood: 49},
		{name: "snapshot without header", mutate: func(_, p string) {
			path := filepath.Join(p, SnapshotID{100, 2}.FileName())
			var out []byte
			out, _ = AppendDataBatch(out, BatchParams{Epoch: 2}, [][]byte{workedValue(t)})
			os.WriteFile(path, out, 0o644)
		}, want: []string{"error:snapshot-missing-footer", "error:snapshot-missing-header"}, lastGood: 49},
		{name: "snapshot epoch mismatch", mutate: func(_, p string) {
			os.Rename(filepath.Join(p, SnapshotID{100, 2}.FileName()), filepath.Join(p, SnapshotID{100, 3}.FileName()))
		}, want: []string{"error:snapshot-epoch-mismatch"}, lastGood: 49},
		{name: "segment named wrong", mutate: func(_, p string) {
			os.Rename(seg(p, 120), seg(p, 121))
		}, want: []string{"error:segment-base-mismatch"}, lastGood: 119},
		{name: "bad file names and unknown files", mutate: func(_, p string) {
			os.WriteFile(filepath.Join(p, "123.log"), nil, 0o644)
			os.WriteFile(filepath.Join(p, "1-2.checkpoint"), nil, 0o644)
			os.WriteFile(filepath.Join(p, "notes.txt"), nil, 0o644)
		}, want: []string{"error:bad-file-name", "error:bad-file-name", "warning:unknown-file"}, lastGood: 139},
		{name: "properties", mutate: func(r, p string) {
			os.WriteFile(filepath.Join(r, MetaPropertiesFileName), []byte("version=1\nnode.id=1\n"), 0o644)
			os.WriteFile(filepath.Join(p, QuorumStateFileName), []byte(`{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[],"data_version":0}`), 0o644)
			os.WriteFile(filepath.Join(p, PartitionMetadataFileName), []byte("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAg"), 0o644)
			os.WriteFile(filepath.Join(p, LeaderEpochFileName), []byte("0\n2\n2 90\n3 121\n"), 0o644)
		}, want: []string{"error:bad-properties", "warning:leader-epoch-checkpoint-mismatch", "warning:partition-metadata-topic-id", "warning:quorum-state-epoch"}, lastGood: 139},
		{name: "directory where a file belongs", mutate: func(_, p string) {
			os.Remove(filepath.Join(p, QuorumStateFileName))
			os.Mkdir(filepath.Join(p, QuorumStateFileName), 0o755)
			os.Remove(seg(p, 120))
			os.Mkdir(seg(p, 120), 0o755)
		}, want: []string{"error:unreadable", "error:unreadable"}, lastGood: 119},
		{name: "empty active segment is fine", segs: []segSpec{{90, []batchSpec{{2, 30}}}, {120, nil}},
			want: nil, lastGood: 119},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snaps := tc.snaps
			if snaps == nil {
				snaps = []SnapshotID{{EndOffset: 50, Epoch: 1}, {EndOffset: 100, Epoch: 2}}
			}
			segs := tc.segs
			if segs == nil {
				segs = []segSpec{{90, []batchSpec{{2, 10}, {2, 20}}}, {120, []batchSpec{{3, 5}, {3, 15}}}}
			}
			root, part := buildLogDir(t, snaps, segs)
			if tc.mutate != nil {
				tc.mutate(root, part)
			}
			rep, err := Check(root, CheckOptions{Strict: true})
			must(t, err)
			if got := strings.Join(kinds(rep), ","); got != strings.Join(tc.want, ",") {
				t.Fatalf("findings %s, want %s\n%s", got, strings.Join(tc.want, ","), dumpFindings(rep))
			}
			if rep.LastGoodOffset != tc.lastGood {
				t.Fatalf("last good offset %d, want %d\n%s", rep.LastGoodOffset, tc.lastGood, dumpFindings(rep))
			}
			if rep.LastGoodOffset >= rep.LogEndOffset {
				t.Fatalf("last good offset %d is not below the log end %d", rep.LastGoodOffset, rep.LogEndOffset)
			}
			for _, f := range rep.Findings {
				if f.Where == nil || f.Where.File == "" || f.Message == "" {
					t.Fatalf("finding without location: %+v", f)
				}
			}
		})
	}
}

func dumpFindings(r *Report) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %s %s %s pos=%d off=%d: %s\n", f.Severity, f.Code, filepath.Base(f.Where.File), f.Where.Position, f.Where.Offset, f.Message)
	}
	for _, f := range r.Files {
		fmt.Fprintf(&b, "  file %s: %+v\n", filepath.Base(f.Path), f)
	}
	return b.String()
}

// TestCheckOneFindingPerDamagedEpoch: one batch whose epoch field is
// wrong (too high) is one finding, at the batch after it, not one for
// every later batch; replay stops there too.
func TestCheckOneFindingPerDamagedEpoch(t *testing.T) {
	root, part := buildLogDir(t, nil, []segSpec{{0, []batchSpec{{2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}}}})
	p := filepath.Join(part, SegmentFileName(0))
	b, err := os.ReadFile(p)
	must(t, err)
	sp := batchSpans(t, p)
	b[sp[1].pos+12] = 0x7f // partitionLeaderEpoch of the second batch, not CRC-covered
	must(t, os.WriteFile(p, b, 0o644))
	rep, err := Check(root, CheckOptions{Strict: true})
	must(t, err)
	// The raised epoch is the damaged batch's, not a regression of the
	// intact one after it: no leader opened that epoch with a
	// LeaderChange. The next batch is compared with the last trustworthy
	// epoch, so there is one finding.
	if got := strings.Join(kinds(rep), ","); got != "error:epoch-without-leader-change" {
		t.Fatalf("findings %s\n%s", got, dumpFindings(rep))
	}
	if f := rep.Findings[0]; f.Where.Position != sp[1].pos || rep.LastGoodOffset != 2 {
		t.Fatalf("finding at %d (want %d), last good %d\n%s", f.Where.Position, sp[1].pos, rep.LastGoodOffset, dumpFindings(rep))
	}
}

// TestCheckLeaderEpochWarningOnlyWhenTrue: the active segment torn inside
// the first batch of epoch 3 (what a crash leaves) is a torn-tail
// warning, and leader-epoch-checkpoint's "epoch 3 starts at 120" is not
// contradicted by a segment that was never read that far.
func TestCheckLeaderEpochWarningOnlyWhenTrue(t *testing.T) {
	root, part := buildLogDir(t, []SnapshotID{{EndOffset: 100, Epoch: 2}}, []segSpec{{90, []batchSpec{{2, 10}, {2, 20}}}, {120, []batchSpec{{3, 5}}}})
	must(t, os.Truncate(filepath.Join(part, SegmentFileName(120)), 30))
	rep, err := Check(root, CheckOptions{Strict: true})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "warning:torn-tail" {
		t.Fatalf("findings %s\n%s", got, dumpFindings(rep))
	}
}

// TestCheckKRaftRules hand-builds records that the generic format allows
// and KRaft rejects.
func TestCheckKRaftRules(t *testing.T) {
	val := workedValue(t)
	rec := func(tsDelta, offDelta int64, key []byte, nullKey bool, value []byte, headers int) []byte {
		var body []byte
		body = append(body, 0)
		body = appendVarint(body, tsDelta)
		body = appendVarint(body, offDelta)
		if nullKey {
			body = appendVarint(body, -1)
		} else {
			body = appendVarint(body, int64(len(key)))
			body = append(body, key...)
		}
		if value == nil {
			body = appendVarint(body, -1)
		} else {
			body = appendVarint(body, int64(len(value)))
			body = append(body, value...)
		}
		body = appendVarint(body, int64(headers))
		for i := 0; i < headers; i++ {
			body = append(body, 2, 'h', 1)
		}
		return append(appendVarint(nil, int64(len(body))), body...)
	}
	kraftHeader := func(b []byte) []byte {
		for i := 43; i < 57; i++ {
			b[i] = 0xff
		}
		fixBatch(b)
		return b
	}
	cases := []struct {
		name  string
		batch []byte
		want  string
	}{
		{"timestamp delta", kraftHeader(buildRecordBatch(rec(5, 0, nil, true, val, 0), 1, 0)), "error:kraft-timestamp-delta"},
		{"headers", kraftHeader(buildRecordBatch(rec(0, 0, nil, true, val, 1), 1, 0)), "error:kraft-headers"},
		{"data key", kraftHeader(buildRecordBatch(rec(0, 0, []byte("k"), false, val, 0), 1, 0)), "error:kraft-data-key"},
		{"null value", kraftHeader(buildRecordBatch(rec(0, 0, nil, true, nil, 0), 1, 0)), "error:kraft-empty-value"},
		{"offset delta", kraftHeader(buildRecordBatch(rec(0, 1, nil, true, val, 0), 1, 0)), "error:kraft-offset-delta"},
		{"control type", kraftHeader(buildRecordBatch(rec(0, 0, []byte{0, 0, 0, 1}, false, []byte{0, 0, 0, 0, 0, 0, 0}, 0), 1, AttrControl)), "error:kraft-control-type"},
		{"control key", kraftHeader(buildRecordBatch(rec(0, 0, []byte{0, 0}, false, []byte{0, 0, 0}, 0), 1, AttrControl)), "error:kraft-control-key"},
		{"producer fields", buildRecordBatch(rec(0, 0, nil, true, val, 0), 1, 0), "warning:kraft-producer-fields"},
		{"frame version 0", kraftHeader(buildRecordBatch(rec(0, 0, nil, true, append([]byte{0}, val[1:]...), 0), 1, 0)), "error:frame-version"},
		{"frame header", kraftHeader(buildRecordBatch(rec(0, 0, nil, true, []byte{1, 0xff}, 0), 1, 0)), "error:frame-header"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), SegmentFileName(0))
			must(t, os.WriteFile(path, tc.batch, 0o644))
			rep, err := Check(path, CheckOptions{Strict: true})
			must(t, err)
			if got := strings.Join(kinds(rep), ","); got != tc.want {
				t.Fatalf("findings %s, want %s\n%s", got, tc.want, dumpFindings(rep))
			}
			// Without strict mode only frame findings remain.
			rep, _ = Check(path, CheckOptions{})
			for _, f := range rep.Findings {
				if strings.HasPrefix(f.Code, "kraft-") {
					t.Fatalf("non-strict check reported %s", f.Code)
				}
			}
		})
	}
}

func TestCheckDecodeHookAndBootstrapControl(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, BootstrapFileName)
	must(t, WriteSnapshotFile(path, [][]byte{workedValue(t)}, SnapshotOptions{
		HeaderRecords: []ControlRecord{{Type: ControlKRaftVersion, Value: EncodeKRaftVersion(1)}}}))
	errBoom := errors.New("boom")
	var seen int
	rep, err := Check(path, CheckOptions{DecodeValue: func(v []byte) error { seen++; return errBoom }})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "error:bootstrap-control-type,error:record-decode" || seen != 1 {
		t.Fatalf("findings %s (hook called %d times)\n%s", got, seen, dumpFindings(rep))
	}
}

func TestCheckCannotRun(t *testing.T) {
	for _, p := range []string{filepath.Join(t.TempDir(), "missing"), t.TempDir()} {
		if _, err := Check(p, CheckOptions{}); err == nil || !IsOurs(err) {
			t.Fatalf("%s: %v", p, err)
		}
	}
	// An empty snapshot is a finding, not a failure to run.
	p := filepath.Join(t.TempDir(), SnapshotID{10, 1}.FileName())
	must(t, os.WriteFile(p, nil, 0o644))
	rep, err := Check(p, CheckOptions{})
	must(t, err)
	if got := strings.Join(kinds(rep), ","); got != "error:empty-file" {
		t.Fatalf("%s", got)
	}
}

// lastBatchPos returns the byte position of the last batch of a file.
func lastBatchPos(t *testing.T, path string) int64 {
	r, err := OpenReader(path, ReaderOptions{})
	must(t, err)
	defer r.Close()
	last := int64(-1)
	for {
		b, err := r.Next()
		if err != nil {
			return last
		}
		last = b.Position
	}
}
