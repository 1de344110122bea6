package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

var (
	fixture44 = filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
	fixture39 = filepath.Join("..", "..", "testdata", "kraft", "3.9.2", "metadata")
	activeSeg = filepath.Join("__cluster_metadata-0", "00000000000000000086.log")
	firstSeg  = filepath.Join("__cluster_metadata-0", "00000000000000000000.log")
)

// damaged copies the 4.4.0 fixture and applies damage to it.
func damaged(t *testing.T, damage func(dir string)) string {
	t.Helper()
	dir := copyFixture(t, "4.4.0")
	damage(dir)
	return dir
}

func flipByte(dir, rel string) {
	p := filepath.Join(dir, rel)
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0x10
	os.WriteFile(p, b, 0o644)
}

func truncate(dir, rel string, n int) {
	p := filepath.Join(dir, rel)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-n], 0o644)
}

// zkModeBrokerDir writes a ZooKeeper-mode broker's log dir as Kafka 3.x
// lays it out: meta.properties version 0, the offset checkpoint files and
// topic-partition dirs.
func zkModeBrokerDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kafka-logs")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "meta.properties"), []byte("#\n#Tue Dec 01 09:00:00 UTC 2026\nbroker.id=1\nversion=0\ncluster.id=ToAmJGLdjtzIec30sLZozA\n"), 0o644)
	for _, f := range []string{"cleaner-offset-checkpoint", "log-start-offset-checkpoint", "recovery-point-offset-checkpoint", "replication-offset-checkpoint"} {
		os.WriteFile(filepath.Join(dir, f), []byte("0\n0\n"), 0o644)
	}
	for _, p := range []string{"orders-0", "orders-1", "__consumer_offsets-0"} {
		os.MkdirAll(filepath.Join(dir, p), 0o755)
		os.WriteFile(filepath.Join(dir, p, "00000000000000000000.log"), nil, 0o644)
	}
	return dir
}

// undecodableSegment writes a segment whose second record is a TopicRecord
// with its body cut short: the framing and CRC are fine, the record is not.
func undecodableSegment(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	good, err := records.EncodeMetadata(nil, &records.TopicRecord{Name: "a"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good[:len(good)-5]...)
	w, err := metalog.CreateSegment(dir, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendData(1, 1700000000000, [][]byte{good, bad}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, metalog.SegmentFileName(0))
}

// TestDocumentedExitCodes pins each documented exit code of each command
// (README "Output and exit codes", and each command's --help): 0 ok, 1
// findings or a result resting on damaged input, 2 could not run.
func TestDocumentedExitCodes(t *testing.T) {
	crc := damaged(t, func(d string) { flipByte(d, activeSeg) })
	torn := damaged(t, func(d string) { truncate(d, activeSeg, 7) })
	tornMiddle := damaged(t, func(d string) { truncate(d, firstSeg, 7) })
	undecodable := undecodableSegment(t)
	broker := zkModeBrokerDir(t)
	badProps := damaged(t, func(d string) { os.WriteFile(filepath.Join(d, "meta.properties"), []byte("version=7\n"), 0o644) })
	badQuorum := damaged(t, func(d string) {
		os.WriteFile(filepath.Join(d, "__cluster_metadata-0", "quorum-state"), []byte(`{"leaderId":3000,"leaderEpo`), 0o644)
	})
	zkdata := filepath.Join(zkFixture, "datadir")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // substring of stderr ("" = anything)
	}{
		// image
		{[]string{"image", fixture44}, 0, ""},
		{[]string{"image", crc}, 1, "kmeta: warning: replay-stopped"},
		{[]string{"image", torn}, 0, "kmeta: warning: torn-tail"},
		{[]string{"image", broker}, 2, "a ZooKeeper-mode broker log dir (broker.id 1, 3 partition dirs)"},
		{[]string{"image", "kraft:" + broker}, 2, "a ZooKeeper-mode broker log dir"},
		{[]string{"image", "/nonexistent/kmeta"}, 2, "kmeta: /nonexistent/kmeta: no such file or directory"},
		{[]string{"image", "--at-offset", "194", fixture44}, 2, "offset 194 is past the end of the log: its last offset is 193"},
		{[]string{"image", fixture44 + "@offset=500"}, 2, "past the end"},
		{[]string{"image", "--at-offset", "-2", fixture44}, 2, "--at-offset -2: must be 0 or more"},
		{[]string{"image", "kafka://b"}, 2, `"b" is not HOST:PORT`},
		{[]string{"image", "kafka://b:9092@offset=5"}, 2, "a live cluster is read as it is now"},
		{[]string{"image", "--at-offset", "5", "kafka://b:9092"}, 2, "a live cluster is read as it is now; --at-offset applies"},
		{[]string{"image", "--bootstrap-server", "b:9092", "kafka://b:9092"}, 2, "too many sources"},
		{[]string{"image", "--bootstrap-server", "b:9092", "--bootstrap-controller", "b:9093"}, 2, "give one (brokers or controllers)"},
		{[]string{"image", "--bootstrap-server", "b"}, 2, `--bootstrap-server "b": "b" is not HOST:PORT`},
		{[]string{"log", "dump", "kafka://b:9092"}, 2, "a live Kafka source; this command reads KRaft metadata files"},
		{[]string{"migrate", "plan", "--zk", "kafka://b:9092", "--controllers", "1@h:9093"}, 2, "a live cluster is never a migration source: its admin API does not report what a migration writes (scram.saltAndKeys"},
		{[]string{"migrate", "plan", "--bootstrap-server", "b:9092", "--controllers", "1@h:9093"}, 2, "kafka://b:9092: a live cluster is never a migration source"},
		{[]string{"verify", "--zk", "zkdump:x.json"}, 2, "verify: --kraft is required"},
		{[]string{"image", "--at-zxid", "5", fixture44}, 2, "--at-zxid applies to ZooKeeper data dirs"},
		// log dump
		{[]string{"log", "dump", fixture44}, 0, ""},
		{[]string{"log", "dump", "kraft:" + fixture44}, 0, ""},
		{[]string{"log", "dump", undecodable}, 1, "could not be decoded"},
		{[]string{"log", "dump", crc}, 1, "damaged input (log check fails it): first error crc-mismatch"},
		{[]string{"log", "dump", torn}, 0, "kmeta: warning: torn-tail"},
		{[]string{"log", "dump", tornMiddle}, 1, "damaged input (log check fails it): first error torn-tail"},
		{[]string{"log", "dump", broker}, 2, "ZooKeeper-mode broker log dir"},
		{[]string{"log", "dump", "--from-offset", "5", "--to-offset", "3", fixture44}, 2, "--from-offset 5 is above --to-offset 3"},
		{[]string{"log", "dump", "--from-offset", "-1", fixture44}, 2, "--from-offset -1: must be 0 or more"},
		{[]string{"log", "dump", "--type", "NO_SUCH_RECORD", fixture44}, 2, "unknown record type"},
		{[]string{"log", "dump", "zkdata:" + zkdata}, 2, ": a ZooKeeper source; this command reads KRaft metadata files"},
		{[]string{"log", "dump", badProps}, 1, "kmeta: warning: unusable-file: "},
		// log check
		{[]string{"log", "check", fixture44}, 0, ""},
		{[]string{"log", "check", "kraft:" + fixture44}, 0, ""},
		{[]string{"log", "check", crc}, 1, ""},
		{[]string{"log", "check", torn}, 0, ""},
		{[]string{"log", "check", "--strict", torn}, 1, ""},
		{[]string{"log", "check", "--strict", fixture44}, 0, ""},
		{[]string{"log", "check", broker}, 2, "ZooKeeper-mode broker log dir"},
		{[]string{"log", "check", "/nonexistent/kmeta"}, 2, "kmeta: /nonexistent/kmeta: no such file or directory\n"},
		// log stats
		{[]string{"log", "stats", fixture44}, 0, ""},
		{[]string{"log", "stats", tornMiddle}, 1, "damaged input (log check fails it), statistics cover what could be read: first error torn-tail"},
		{[]string{"log", "stats", crc}, 1, "damaged input (log check fails it), statistics cover what could be read: first error crc-mismatch"},
		{[]string{"log", "stats", badProps}, 1, "kmeta: warning: unusable-file: "},
		{[]string{"image", badQuorum}, 1, "kmeta: warning: bad-properties: "},
		{[]string{"log", "check", badQuorum}, 1, ""},
		{[]string{"log", "stats", broker}, 2, "ZooKeeper-mode broker log dir"},
		// zk
		{[]string{"zk", "image", zkdata}, 0, "kmeta: warning: chroot-detected"},
		{[]string{"zk", "image", fixture44}, 2, "is a KRaft source"},
		{[]string{"zk", "image", "--at-offset", "5", zkdata}, 2, "unknown flag --at-offset"},
		{[]string{"zk", "dump", "-o", "text", zkdata}, 2, "a dump is one JSON document"},
		{[]string{"zk", "dump", "-o", "table", zkdata}, 2, "a dump is one JSON document"},
		// features
		{[]string{"features", "check", fixture44, "--to", "4.4"}, 0, ""},
		{[]string{"features", "check", fixture39, "--to", "4.4"}, 1, ""},
		{[]string{"features", "check", crc, "--to", "4.4"}, 1, "replay-stopped"},
		{[]string{"features", "check", fixture44}, 2, "missing the target"},
		{[]string{"features", "describe", fixture44}, 0, ""},
		{[]string{"features", "describe", crc}, 1, "replay-stopped"},
		{[]string{"features", "list", "--release", "9.9"}, 2, ""},
	} {
		r := kmeta(tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("kmeta %s: exit %d, want %d; stderr %q, want it to contain %q", strings.Join(tc.args, " "), r.code, tc.code, r.stderr, tc.stderr)
		}
		if r.code == 2 && r.stdout != "" && !strings.Contains(strings.Join(tc.args, " "), "zk dump") {
			t.Errorf("kmeta %s: exit 2 with a result on stdout: %q", strings.Join(tc.args, " "), r.stdout)
		}
	}
}

// TestFlagsAfterArguments: operators type flags after the source.
func TestFlagsAfterArguments(t *testing.T) {
	before := kmeta("image", "-o", "json", fixture44)
	after := kmeta("image", fixture44, "-o", "json")
	if after.code != 0 || after.stdout != before.stdout || !json.Valid([]byte(after.stdout)) {
		t.Errorf("image DIR -o json: exit %d, same as before %v\n%s", after.code, after.stdout == before.stdout, after.stderr)
	}
	a := kmeta("log", "dump", "--type", "TopicRecord", "-o", "json", fixture44)
	b := kmeta("log", "dump", fixture44, "--type", "TopicRecord", "-o", "json")
	if b.code != 0 || a.stdout != b.stdout || a.stdout == "" {
		t.Errorf("log dump DIR --type T -o json: exit %d %s", b.code, b.stderr)
	}
	r := kmeta("features", "check", fixture39, "--to", "3.9", "-o", "json")
	if r.code != 0 || !json.Valid([]byte(r.stdout)) {
		t.Errorf("features check SRC --to X -o json: exit %d %s", r.code, r.stderr)
	}
	if r := kmeta("log", "check", fixture44, "--bogus"); r.code != 2 || !strings.Contains(r.stderr, "unknown flag --bogus") {
		t.Errorf("unknown flag after the path: %+v", r)
	}
}

// TestTypeSpellings: --type takes Kafka's MetadataRecordType name, the
// schema name in any case, or the apiKey, and they select the same records.
func TestTypeSpellings(t *testing.T) {
	want := kmeta("log", "dump", "--type", "2", fixture44)
	if want.code != 0 || !strings.Contains(want.stdout, `"type":"TOPIC_RECORD"`) {
		t.Fatalf("--type 2: exit %d", want.code)
	}
	for _, s := range []string{"TOPIC_RECORD", "TopicRecord", "topicrecord", "topic_record"} {
		if r := kmeta("log", "dump", "--type", s, fixture44); r.code != 0 || r.stdout != want.stdout {
			t.Errorf("--type %s differs from --type 2 (exit %d %s)", s, r.code, r.stderr)
		}
	}
}

// TestTablesFitTheTerminal: with COLUMNS=120 every table line of every
// command on the fixtures fits in 120 columns.
func TestTablesFitTheTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "120")
	crc := damaged(t, func(d string) { flipByte(d, activeSeg) })
	for _, args := range [][]string{
		{"image", "-o", "table", fixture44},
		{"image", "-o", "table", fixture39},
		{"zk", "image", "-o", "table", filepath.Join(zkFixture, "datadir")},
		{"log", "check", "-o", "table", crc},
		{"log", "check", "-o", "table", fixture44},
		{"log", "dump", "-o", "table", fixture44},
		{"log", "stats", "-o", "table", fixture44},
		{"features", "list", "-o", "table"},
		{"features", "check", "-o", "table", fixture39, "--to", "4.4"},
		{"features", "describe", "-o", "table", fixture39},
	} {
		r := kmeta(args...)
		if r.code > 1 || r.stdout == "" {
			t.Errorf("%v: exit %d %s", args, r.code, r.stderr)
			continue
		}
		for i, ln := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(ln); n > 120 {
				t.Errorf("%v: line %d is %d columns: %s", args, i+1, n, ln)
				break
			}
		}
	}
}

// TestLogCheckTable: -o table prints tables only (the summary and the
// findings), not the text report.
func TestLogCheckTable(t *testing.T) {
	crc := damaged(t, func(d string) { flipByte(d, activeSeg) })
	r := kmeta("log", "check", "-o", "table", crc)
	if r.code != 1 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	tables := 0
	for _, ln := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		switch {
		case ln == "":
		case strings.HasPrefix(ln, "+-"):
			tables++
		case strings.HasPrefix(ln, "|"):
		default:
			t.Errorf("not a table line: %q", ln)
		}
	}
	if tables < 6 || !strings.Contains(r.stdout, "crc-mismatch") || !strings.Contains(r.stdout, "| VERDICT") {
		t.Errorf("want a summary table and a findings table:\n%s", r.stdout)
	}
}

// TestWarningsPrintedOnce: every warning an image rests on reaches stderr
// once, in the one format.
func TestWarningsPrintedOnce(t *testing.T) {
	torn := damaged(t, func(d string) { truncate(d, activeSeg, 7) })
	for _, args := range [][]string{{"image", torn}, {"features", "describe", torn}, {"features", "check", torn, "--to", "4.4"}} {
		r := kmeta(args...)
		if n := strings.Count(r.stderr, "kmeta: warning: "+model.WarnTornTail+": "); n != 1 {
			t.Errorf("%v: %d torn-tail warnings in %q", args, n, r.stderr)
		}
	}
}

// TestHelpClaimsOnlyWhatExists: help lists only the flags a command
// honours and the commands that exist.
func TestHelpClaimsOnlyWhatExists(t *testing.T) {
	for _, args := range [][]string{{"zk", "image", "--help"}, {"zk", "dump", "--help"}} {
		if r := kmeta(args...); r.code != 0 || strings.Contains(r.stdout, "--at-offset") || !strings.Contains(r.stdout, "--at-zxid") {
			t.Errorf("%v lists --at-offset or lacks --at-zxid:\n%s", args, r.stdout)
		}
	}
	r := kmeta("--help")
	for _, claim := range []string{"compare"} {
		if strings.Contains(r.stdout, claim) {
			t.Errorf("top-level help claims %q, which no command does yet", claim)
		}
	}
	if r := kmeta("--version"); r.code != 0 || !strings.Contains(r.stdout, "commit ") || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("--version: %q", r.stdout)
	}
}

// TestFeaturesCatalogFollowsSource: the catalog is the source's software
// line unless --kafka says otherwise; a level the nodes do not support is
// refused naming each node.
func TestFeaturesCatalogFollowsSource(t *testing.T) {
	r := kmeta("features", "check", fixture39, "--to", "3.9")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "allowed: 3.9-IV0 -> 3.9-IV0 (unchanged, 3.9 catalog)") {
		t.Errorf("3.9.2 source: %d %q", r.code, r.stdout)
	}
	r = kmeta("features", "check", fixture39, "--release-version", "4.4")
	if r.code != 1 || strings.Count(r.stdout, "unsupported-by-node") != 4 || !strings.Contains(r.stdout, "controller 3000 supports metadata.version 1-21") {
		t.Errorf("4.4 on 3.9.2: %d %q", r.code, r.stdout)
	}
	r = kmeta("features", "check", fixture39, "--kafka", "4.x", "--feature", "metadata.version=27")
	if r.code != 1 || !strings.Contains(r.stdout, "(upgrade, 4.x catalog)") || !strings.Contains(r.stdout, "broker 1 (fenced, still registered) supports metadata.version 1-21") {
		t.Errorf("--kafka 4.x --feature: %d %q", r.code, r.stdout)
	}
	if r := kmeta("features", "check", fixture44, "--metadata", "4.4"); r.code != 0 || !strings.Contains(r.stdout, "4.x catalog") {
		t.Errorf("4.4.0 source: %d %q", r.code, r.stdout)
	}
	if r := kmeta("features", "check", fixture44, "--feature", "group.version=1"); r.code != 2 {
		t.Errorf("--feature other than metadata.version: %+v", r)
	}
}

// TestUnknownRecordOneVerdict: a segment holding a record of a type
// kmeta does not know (apiKey 99) among sound ones. log dump cannot
// decode it and image skips it (records-skipped), both exit 1; log check
// said HEALTHY (exit 0). It now reports a record-unknown warning at the
// record and fails too, while the file stays undamaged (no error).
func TestUnknownRecordOneVerdict(t *testing.T) {
	dir := t.TempDir()
	good, err := records.EncodeMetadata(nil, &records.TopicRecord{Name: "a", TopicId: model.UUID{1}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := metalog.CreateSegment(dir, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendData(1, 1700000000000, [][]byte{good, {1, 99, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, metalog.SegmentFileName(0))
	r := kmeta("log", "check", "-o", "json", seg)
	var rep struct {
		Findings []struct {
			Code, Severity, Message string
			Where                   struct{ Offset int64 }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("log check: %v\n%s", err, r.stdout)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Severity+" "+f.Code+" "+f.Message)
	}
	if want := "warning record-unknown apiKey 99 v0: records: unknown record type: apiKey 99"; r.code != exitFindings || strings.Join(got, "\n") != want || rep.Findings[0].Where.Offset != 1 {
		t.Errorf("log check: exit %d, findings\n%s\nwant\n%s", r.code, strings.Join(got, "\n"), want)
	}
	if r := kmeta("log", "check", seg); r.code != exitFindings || !strings.HasPrefix(r.stdout, seg+": PROBLEMS (records of a type or version kmeta does not know)\n") {
		t.Errorf("log check: exit %d\n%s", r.code, r.stdout)
	}
	for _, cmd := range [][]string{{"image"}, {"log", "dump"}} {
		if r := kmeta(append(cmd, seg)...); r.code != exitFindings {
			t.Errorf("kmeta %s: exit %d\n%s", strings.Join(cmd, " "), r.code, r.stderr)
		}
	}
}
