package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// Issue 29: hostile and damaged input on the newer surfaces. Each test
// names the case of the issue it covers; codes and messages are matched
// as strings so that each test also runs against the code before the fix
// (where it fails).

// onlineDump is the dump taken during Kafka's own migration (phase
// KRaftDualWriting, /controller held by KRaft controller 3000).
var onlineDump = filepath.Join(onlineFixture, "dual-write.dump.json")

// dumpWith writes a copy of a dump with znode data replaced (nil removes
// the znode), and returns its path.
func dumpWith(t *testing.T, src string, data map[string]*string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "variant.dump.json")
	editDump(t, src, out, data, nil)
	return out
}

// editDump writes the dump src to dst with the data of the znodes in data
// replaced (nil removes the znode; a znode not there yet is added with the
// last znode's stat) and the znodes keep refuses left out. The children's
// counts are recounted, as ZooKeeper's stat of the edited tree would count
// them: a dump whose counts disagree is refused as edited.
func editDump(t *testing.T, src, dst string, data map[string]*string, keep func(path string) bool) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var kept []any
	seen := map[string]bool{}
	var stat any
	for _, z := range doc["znodes"].([]any) {
		m := z.(map[string]any)
		path := m["path"].(string)
		stat = m["stat"]
		seen[path] = true
		if keep != nil && !keep(path) {
			continue
		}
		v, ok := data[path]
		switch {
		case !ok:
		case v == nil:
			continue
		default:
			m["data"] = base64.StdEncoding.EncodeToString([]byte(*v))
			m["stat"].(map[string]any)["dataLength"] = len(*v)
			// The decoded forms a dump carries beside the data would
			// still say the old value.
			delete(m, "text")
			delete(m, "decoded")
		}
		kept = append(kept, m)
	}
	for _, p := range slices.Sorted(maps.Keys(data)) {
		if v := data[p]; !seen[p] && v != nil {
			st := map[string]any{}
			for k, x := range stat.(map[string]any) {
				st[k] = x
			}
			st["dataLength"], st["numChildren"] = len(*v), 0
			kept = append(kept, map[string]any{"path": p, "data": base64.StdEncoding.EncodeToString([]byte(*v)), "stat": st})
		}
	}
	doc["znodes"] = kept
	recountChildren(kept)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func ptr(s string) *string { return &s }

// recountChildren sets each znode's stat.numChildren to the children the
// dump holds, as ZooKeeper's stat of the edited tree would count them (a
// dump whose counts disagree is refused as edited or damaged).
func recountChildren(znodes []any) {
	kids := map[string]int{}
	for _, z := range znodes {
		if p := z.(map[string]any)["path"].(string); p != "/" {
			parent := p[:strings.LastIndexByte(p, '/')]
			if parent == "" {
				parent = "/"
			}
			kids[parent]++
		}
	}
	for _, z := range znodes {
		m := z.(map[string]any)
		m["stat"].(map[string]any)["numChildren"] = kids[m["path"].(string)]
	}
}

// §1: a controller dir whose __cluster_metadata-0 is a symlink loop, a
// dangling symlink, a plain file or an empty dir is damage (or no log at
// all): log check, image, lint and quorum survey exit non-zero saying
// so.
func TestHostileNoMetadataLog(t *testing.T) {
	kinds := []struct {
		name string
		make func(pd string) error
		says string
	}{
		{"symlink loop", func(pd string) error { return os.Symlink("__cluster_metadata-0", pd) }, "symlink loop"},
		{"dangling symlink", func(pd string) error { return os.Symlink("/nonexistent-kmeta", pd) }, "dangling symlink"},
		{"plain file", func(pd string) error { return os.WriteFile(pd, []byte("x\n"), 0o644) }, "not a directory"},
		{"empty dir", func(pd string) error { return os.Mkdir(pd, 0o755) }, "holds no segment and no snapshot"},
		{"absent, no bootstrap.checkpoint", func(pd string) error { return nil }, "not a formatted dir Kafka has yet to start on"},
		// The segment Kafka creates when it starts, empty, and neither
		// bootstrap format writes: before, a clean empty image, exit 0.
		{"an empty segment, no bootstrap", emptySegmentIn, "00000000000000000000.log is empty) and there is no snapshot and no bootstrap.checkpoint"},
	}
	for _, k := range kinds {
		dir := t.TempDir()
		b, err := os.ReadFile(filepath.Join(fixture44, "meta.properties"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "meta.properties"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := k.make(filepath.Join(dir, "__cluster_metadata-0")); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range [][]string{{"log", "check"}, {"image"}, {"lint"}, {"quorum", "survey"}} {
			r := kmeta(append(cmd, dir)...)
			if r.code == exitOK || !strings.Contains(r.stdout+r.stderr, k.says) || !strings.Contains(r.stdout+r.stderr, "__cluster_metadata-0") {
				t.Errorf("%s: kmeta %s: exit %d\nstdout %s\nstderr %s", k.name, strings.Join(cmd, " "), r.code, r.stdout, r.stderr)
			}
		}
	}
}

// emptySegmentIn makes pd a partition dir holding one empty segment, as
// Kafka's log layer creates it when a node starts.
func emptySegmentIn(pd string) error {
	if err := os.Mkdir(pd, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), nil, 0o644)
}

// A metadata log dir whose log holds no record: the commands that read
// it agree (history replays the longest history, which is the same). With no bootstrap at all (with or without
// meta.properties) the log is lost: no-metadata-log, and an image that
// reports no metadata.version (not reported, partial), exit 1 from each.
// With the bootstrap kafka-storage format writes (3.x: bootstrap.checkpoint;
// 3.9 --standalone: also the bootstrap snapshot holding the voters) it is
// a node no leader has written to yet: the image is the bootstrap, said
// plainly (bootstrap-only), exit 0. Before, the first two were clean
// empty images (exit 0 everywhere), and the 3.9 standalone node's image
// had no metadata.version (the snapshot of voters alone was replayed).
func TestEmptyLogVerdicts(t *testing.T) {
	boot39 := filepath.Join("..", "..", "testdata", "kraft", "bootstrap", "3.9.2", "3.9-IV0", "metadata")
	copyIn := func(dir, src, name string) {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type verdict struct {
		codes       [5]int // log check, image, lint, quorum survey, history
		features    string
		notReported string
		warnings    string // the image's warning codes
	}
	cases := []struct {
		name string
		make func(dir string)
		want verdict
	}{
		{"an empty segment alone", func(dir string) {}, verdict{
			[5]int{exitFindings, exitFindings, exitFindings, exitFindings, exitFindings}, "[]",
			`["clusterId","features.metadata.version"]`, "metadata-version-missing no-metadata-log"}},
		{"meta.properties and an empty segment", func(dir string) { copyIn(dir, fixture44, "meta.properties") }, verdict{
			[5]int{exitFindings, exitFindings, exitFindings, exitFindings, exitFindings}, "[]",
			`["features.metadata.version"]`, "metadata-version-missing no-metadata-log"}},
		{"3.x formatted, started, no record yet", func(dir string) {
			copyIn(dir, boot39, "meta.properties")
			copyIn(dir, boot39, "bootstrap.checkpoint")
		}, verdict{[5]int{exitOK, exitOK, exitOK, exitOK, exitOK}, `[{"name":"metadata.version","level":21}]`, "null", "bootstrap-only"}},
		{"3.9 formatted --standalone, never started", func(dir string) {
			copyIn(dir, boot39, "meta.properties")
			copyIn(dir, boot39, "bootstrap.checkpoint")
			os.Remove(filepath.Join(dir, "__cluster_metadata-0", "00000000000000000000.log"))
			mp, err := metalog.ReadMetaProperties(filepath.Join(dir, "meta.properties"))
			if err != nil {
				t.Fatal(err)
			}
			voters, err := metalog.VotersControlRecords([]model.Voter{{ID: 3000, DirectoryID: mp.DirectoryID,
				Endpoints: []model.Endpoint{{Name: "CONTROLLER", Host: "127.0.0.1", Port: 9093}}}})
			if err != nil {
				t.Fatal(err)
			}
			// What 3.9.2's format --standalone writes there: the header
			// batch with KRaftVersion and Voters, and the footer.
			snap := filepath.Join(dir, "__cluster_metadata-0", metalog.SnapshotID{}.FileName())
			if err := metalog.WriteSnapshotFile(snap, nil, metalog.SnapshotOptions{Timestamp: 1, HeaderRecords: voters}); err != nil {
				t.Fatal(err)
			}
		}, verdict{[5]int{exitOK, exitOK, exitFindings, exitOK, exitOK}, `[{"name":"metadata.version","level":21}]`, "null", "bootstrap-only"}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := emptySegmentIn(filepath.Join(dir, "__cluster_metadata-0")); err != nil {
			t.Fatal(err)
		}
		c.make(dir)
		var got verdict
		for i, cmd := range [][]string{{"log", "check"}, {"image", "-o", "json"}, {"lint"}, {"quorum", "survey"}, {"history"}} {
			r := kmeta(append(cmd, dir)...)
			got.codes[i] = r.code
			if cmd[0] != "image" {
				continue
			}
			var img struct {
				Features    json.RawMessage `json:"features"`
				NotReported json.RawMessage `json:"notReported"`
				Warnings    []struct{ Code string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &img); err != nil {
				t.Fatalf("%s: image: %v\n%s%s", c.name, err, r.stdout, r.stderr)
			}
			got.features, got.notReported = compactJSON(t, img.Features), "null"
			if img.NotReported != nil {
				got.notReported = compactJSON(t, img.NotReported)
			}
			var codes []string
			for _, w := range img.Warnings {
				codes = append(codes, w.Code)
			}
			got.warnings = strings.Join(codes, " ")
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func compactJSON(t *testing.T, b []byte) string {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// §3: a FIFO as a segment, quorum-state or meta.properties of a
// controller dir is refused at once, naming the file (before the fix,
// every command waited for a writer forever); a rebuild from it writes
// nothing. The exit codes are each command's for damage it meets while
// reading (1) or a source it cannot read (2).
func TestHostileFIFOInControllerDir(t *testing.T) {
	codes := map[string][4]int{ // log check, image, quorum survey, lint; then rebuild below
		activeSeg: {exitFindings, exitFailure, exitFindings, exitFailure},
		filepath.Join("__cluster_metadata-0", "quorum-state"): {exitFindings, exitFindings, exitFindings, exitFindings},
		"meta.properties": {exitFindings, exitFindings, exitFindings, exitFindings},
	}
	for _, rel := range slices.Sorted(maps.Keys(codes)) {
		dir := damaged(t, func(dir string) {
			p := filepath.Join(dir, rel)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip("no FIFOs here")
			}
		})
		fifo := filepath.Join(dir, rel)
		for i, cmd := range [][]string{{"log", "check"}, {"image"}, {"quorum", "survey"}, {"lint"}} {
			r := kmetaBounded(t, 10*time.Second, append(cmd, dir)...)
			if r.code != codes[rel][i] || !strings.Contains(r.stdout+r.stderr, fifo) || !strings.Contains(r.stdout+r.stderr, "not a regular file (a FIFO)") {
				t.Errorf("%s a FIFO: kmeta %s: exit %d, want %d\nstdout %s\nstderr %s", rel, strings.Join(cmd, " "), r.code, codes[rel][i], r.stdout, r.stderr)
			}
		}
		out := filepath.Join(t.TempDir(), "out")
		r := kmetaBounded(t, 10*time.Second, "quorum", "rebuild", "--from", dir, "--controllers", "3000@127.0.0.1:9093", "--out", out)
		if r.code == exitOK || !strings.Contains(r.stderr, fifo+": not a regular file (a FIFO)") {
			t.Errorf("%s a FIFO: rebuild: exit %d\nstderr %s", rel, r.code, r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s a FIFO: a refused rebuild wrote %s", rel, out)
		}
	}
}

// kmetaBounded runs kmeta and fails the test at once when it has not
// returned within d (a run blocked on a FIFO never would).
func kmetaBounded(t *testing.T, d time.Duration, args ...string) cliResult {
	t.Helper()
	done := make(chan cliResult, 1)
	go func() { done <- kmeta(args...) }()
	select {
	case r := <-done:
		return r
	case <-time.After(d):
		t.Fatalf("kmeta %s: no answer within %s", strings.Join(args, " "), d)
		return cliResult{}
	}
}

// flipLength flips one bit of the length of the active segment's first
// batch (not covered by the CRC): 7 KB of whole batches follow.
func flipLength(dir string) {
	p := filepath.Join(dir, activeSeg)
	b, _ := os.ReadFile(p)
	b[10] ^= 0x40
	os.WriteFile(p, b, 0o644)
}

// §1: a flipped byte in the length of the first batch of the active
// segment is corruption (file and position), not a torn tail; survey
// calls the copy damaged; rebuild refuses it and writes nothing.
func TestHostileDamagedLength(t *testing.T) {
	dir := damaged(t, flipLength)
	seg := filepath.Join(dir, activeSeg)
	r := kmeta("log", "check", dir)
	if r.code != exitFindings || !strings.Contains(r.stdout, "bad-length  "+seg+"  0 ") || strings.Contains(r.stdout, "torn-tail") {
		t.Errorf("log check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kmeta("quorum", "survey", "-o", "json", dir)
	if r.code != exitFindings || !strings.Contains(r.stdout, `"integrity": "damaged"`) || !strings.Contains(r.stdout, `"cleanRebuild": false`) {
		t.Errorf("survey: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	for _, accept := range []string{"", "99-193"} {
		args := []string{"quorum", "rebuild", "--from", dir, "--controllers", "3000@127.0.0.1:9093", "--out", out}
		if accept != "" {
			args = append(args, "--accept-loss", accept)
		}
		r = kmeta(args...)
		if r.code != exitFindings || !strings.Contains(r.stderr, seg+" at offset 86 (byte 0)") {
			t.Errorf("rebuild --accept-loss %q: exit %d\n%s%s", accept, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("rebuild --accept-loss %q wrote %s", accept, out)
		}
	}
}

// §1: the last batch's leader epoch set to 999 (no LeaderChange at 999)
// is damage: log check fails, survey takes the intact copy for the best,
// and a rebuild from the intact copy goes ahead.
func TestHostileEpochJump(t *testing.T) {
	bad := damaged(t, func(dir string) {
		p := filepath.Join(dir, activeSeg)
		b, _ := os.ReadFile(p)
		binary.BigEndian.PutUint32(b[7072+12:], 999) // batch 193-193
		os.WriteFile(p, b, 0o644)
	})
	intact := copyFixture(t, "4.4.0")
	r := kmeta("log", "check", bad)
	if r.code != exitFindings || !strings.Contains(r.stdout, "epoch-without-leader-change") {
		t.Errorf("log check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kmeta("quorum", "survey", "-o", "json", bad, intact)
	if r.code != exitFindings || !strings.Contains(r.stdout, `"best": 1,`) {
		t.Errorf("survey: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	r = kmeta("quorum", "rebuild", "--from", intact, "--controllers", "3000@127.0.0.1:9093", "--out", out, bad)
	if r.code != exitOK {
		t.Errorf("rebuild from the intact copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "controller-3000", "__cluster_metadata-0", "00000000000000000194-0000000001.checkpoint")); err != nil {
		t.Errorf("rebuild wrote no snapshot at 194-1: %v", err)
	}
}

// §1: a garbage meta.properties is not "Role unknown ... clean", and a
// negative leader epoch in quorum-state is not a warning with exit 0.
func TestHostileGarbageSmallFiles(t *testing.T) {
	garbage := damaged(t, func(dir string) {
		os.WriteFile(filepath.Join(dir, "meta.properties"), []byte{0x9c, 0x00, 0x41, 0xff, '=', 0x13, '\n', 0x80}, 0o644)
	})
	negative := damaged(t, func(dir string) {
		p := filepath.Join(dir, "__cluster_metadata-0", "quorum-state")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), `"leaderEpoch":1`, `"leaderEpoch":-5`, 1)), 0o644)
	})
	for dir, file := range map[string]string{garbage: filepath.Join(garbage, "meta.properties"), negative: filepath.Join(negative, "__cluster_metadata-0", "quorum-state")} {
		for _, cmd := range [][]string{{"log", "check"}, {"quorum", "survey"}, {"image"}} {
			r := kmeta(append(cmd, dir)...)
			if r.code == exitOK || !strings.Contains(r.stdout+r.stderr, "bad-properties") || strings.Contains(r.stdout, "Integrity\n") && strings.Contains(r.stdout, " clean\n") {
				t.Errorf("kmeta %s %s: exit %d\n%s%s", strings.Join(cmd, " "), dir, r.code, r.stdout, r.stderr)
			}
		}
		// Not "no meta.properties" (it is there, damaged) and not a
		// rebuild: the damaged file is named, to repair.
		out := filepath.Join(t.TempDir(), "out")
		r := kmeta("quorum", "rebuild", "--from", dir, "--controllers", "3000@127.0.0.1:9093", "--out", out)
		if r.code != exitFindings || !strings.HasSuffix(r.stderr, "rebuild from another copy, or from a copy of this dir with "+file+" repaired\n") {
			t.Errorf("rebuild from %s: exit %d\n%s%s", dir, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("a refused rebuild from %s wrote %s", dir, out)
		}
	}
}

// §1: migrate status is not healthy on /controller naming broker -5 or
// an unregistered broker, on a missing /cluster/id, or with a binary or
// empty --config file.
func TestHostileMigrateStatus(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"controller -5", []string{"--zk", "zkdump:" + dumpWith(t, onlineDump, map[string]*string{
			"/controller": ptr(`{"version":2,"brokerid":-5,"timestamp":"1796380430777","kraftControllerEpoch":1}`)})}, exitFindings, "controller-znode-invalid"},
		{"unregistered controller", []string{"--zk", "zkdump:" + dumpWith(t, filepath.Join(zkFixture, "dump.json"), map[string]*string{
			"/controller": ptr(`{"version":2,"brokerid":7,"timestamp":"1796025889554","kraftControllerEpoch":-1}`)})}, exitFindings, "controller-not-registered"},
		{"no /cluster/id", []string{"--zk", "zkdump:" + dumpWith(t, onlineDump, map[string]*string{"/cluster/id": nil})}, exitFindings, "no-cluster-id"},
	}
	for _, tc := range cases {
		code, d, stderr := migrateStatusJSON(t, tc.args...)
		if code != tc.code || d.Healthy || !hasCode(d, tc.says) {
			t.Errorf("%s: exit %d healthy %v findings %+v\n%s", tc.name, code, d.Healthy, d.Findings, stderr)
		}
	}
	dir := t.TempDir()
	bin, empty := filepath.Join(dir, "bin.properties"), filepath.Join(dir, "empty.properties")
	os.WriteFile(bin, []byte{0x00, 0x01, 0x02, 0xff, 0xfe, '=', 'x'}, 0o644)
	os.WriteFile(empty, nil, 0o644)
	for f, says := range map[string]string{bin: "binary data, not a Java properties file", empty: "holds no settings"} {
		r := kmeta("migrate", "status", "--zk", "zkdump:"+onlineDump, "--config", "1="+f)
		if r.code != exitFailure || !strings.Contains(r.stderr, says) {
			t.Errorf("--config %s: exit %d\n%s%s", f, r.code, r.stdout, r.stderr)
		}
	}
}

// brokerProps writes a ZooKeeper-mode broker's server.properties for the
// fixture clusters (extra lines appended) and returns its path.
func brokerProps(t *testing.T, dir string, id int, connect string, extra ...string) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("broker-%d.properties", id))
	body := fmt.Sprintf("broker.id=%d\nlisteners=PLAINTEXT://127.0.0.1:%d\nzookeeper.connect=%s\nlog.dirs=/var/kafka-%d\ninter.broker.protocol.version=3.9\n%s",
		id, 9090+id, connect, id, strings.Join(extra, "\n"))
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// stageFixture is the ZooKeeper fixture's dump (chroot /kafka/prod) with
// broker 3, which holds replicas, registered too, so that KRaftMigration
// can be staged; and the three brokers' files.
func stageFixture(t *testing.T) (dump string, configs []string) {
	t.Helper()
	reg := `{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://127.0.0.1:9093"],"jmx_port":-1,"port":9093,"host":"127.0.0.1","version":5,"timestamp":"1796025889554"}`
	dump = dumpWith(t, filepath.Join(zkFixture, "dump.json"), map[string]*string{"/brokers/ids/3": &reg})
	dir := t.TempDir()
	for id := 1; id <= 3; id++ {
		configs = append(configs, "--config", fmt.Sprintf("%d=%s", id, brokerProps(t, dir, id, "127.0.0.1:2181/kafka/prod")))
	}
	return dump, configs
}

func stageArgs(dump, out string, configs ...string) []string {
	return append([]string{"migrate", "stage", "KRaftMigration", "--zk", "zkdump:" + dump, "--controllers", "3000@127.0.0.1:9093",
		"--metadata-dir", "/var/lib/kafka/ctl", "--out", out}, configs...)
}

// §2: migrate stage checks every target before it writes: a conflicting
// file in --out (the controller's, written last) is refused with --out
// left as it was, not with the brokers' files written beside it.
func TestHostileStageChecksBeforeWriting(t *testing.T) {
	dump, configs := stageFixture(t)
	if r := kmeta(stageArgs(dump, filepath.Join(t.TempDir(), "out"), configs...)...); r.code != exitOK {
		t.Fatalf("stage: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "server-3000.properties"), []byte("# the operator's own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fstree.Hash(t, out)
	r := kmeta(stageArgs(dump, out, configs...)...)
	if r.code == exitOK || !strings.Contains(r.stderr, "server-3000.properties") {
		t.Errorf("stage over a conflicting file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if fstree.Hash(t, out) != before {
		ents, _ := os.ReadDir(out)
		t.Errorf("a refused stage changed --out: %v", ents)
	}
}

// §2: migrate rollback checks every target before it writes.
func TestHostileRollbackChecksBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	var configs []string
	for id := 1; id <= 3; id++ {
		configs = append(configs, "--config", fmt.Sprintf("%d=%s", id, brokerProps(t, dir, id, "127.0.0.1:34139/kafka",
			"zookeeper.metadata.migration.enable=true", "controller.quorum.voters=3000@127.0.0.1:9093", "controller.listener.names=CONTROLLER",
			"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT")))
	}
	args := func(out string) []string {
		return append([]string{"migrate", "rollback", "--zk", "zkdump:" + onlineDump, "--out", out}, configs...)
	}
	if r := kmeta(args(filepath.Join(t.TempDir(), "out"))...); r.code != exitOK {
		t.Fatalf("rollback: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "server-3.properties"), []byte("# the operator's own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fstree.Hash(t, out)
	r := kmeta(args(out)...)
	if r.code == exitOK || !strings.Contains(r.stderr, "server-3.properties") {
		t.Errorf("rollback over a conflicting file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if fstree.Hash(t, out) != before {
		ents, _ := os.ReadDir(out)
		t.Errorf("a refused rollback changed --out: %v", ents)
	}
}

// §2: migrate stage refuses inputs that disagree with the cluster: a
// --config for a broker ZooKeeper does not know, a broker file whose
// zookeeper.connect names another chroot or ensemble; and a file of
// another broker id is said to be one (not a generated id).
func TestHostileStageRefusesForeignInputs(t *testing.T) {
	dump, configs := stageFixture(t)
	dir := t.TempDir()
	cases := []struct {
		name  string
		extra []string
		says  string
	}{
		{"unknown broker 7", []string{"--config", "7=" + brokerProps(t, dir, 7, "127.0.0.1:2181/kafka/prod")}, "node-not-in-cluster --config 7"},
		{"another chroot", nil, "zookeeper-connect-mismatch --config 2"},
		{"another broker's file", nil, "broker.id=1, --config names broker 2"},
	}
	for i, tc := range cases {
		cfg := slices.Clone(configs)
		switch i {
		case 1:
			other := t.TempDir()
			cfg[3] = "2=" + brokerProps(t, other, 2, "127.0.0.1:2181/kafka/other")
		case 2:
			cfg[3] = "2=" + strings.TrimPrefix(cfg[1], "1=")
		}
		out := filepath.Join(t.TempDir(), "out")
		r := kmeta(stageArgs(dump, out, append(cfg, tc.extra...)...)...)
		if r.code != exitFindings || !strings.Contains(r.stdout, tc.says) || strings.Contains(r.stdout, "restart broker 7") {
			t.Errorf("%s: exit %d\n%s%s", tc.name, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: a refused stage wrote %s", tc.name, out)
		}
	}
}
