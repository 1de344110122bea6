package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/zkdeps"
)

// depsJSON runs zk dependents -o json and decodes it.
func depsJSON(t *testing.T, wantCode int, args ...string) *zkdeps.Result {
	t.Helper()
	code, out, stderr := runKmeta(t, append([]string{"zk", "dependents", "-o", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("zk dependents %q: exit %d, want %d: %s", args, code, wantCode, stderr)
	}
	var r zkdeps.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return &r
}

// TestZKDependentsFixtures: the committed fixtures through the command:
// no dependent, Kafka's own sessions named, exit 1 because the brokers
// were still registered when the files were written; one data dir or two
// copies of it (several data dirs of one ensemble) say the same.
func TestZKDependentsFixtures(t *testing.T) {
	dir := filepath.Join(zkFixture, "datadir")
	one := depsJSON(t, exitFindings, "zkdata:"+dir)
	if len(one.Dependents) != 0 || one.SafeToStop || one.Chroot != "/kafka/prod" || len(one.Kafka) != 6 || one.Kind != "zkdata" {
		t.Errorf("data dir: %+v", one)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	two := depsJSON(t, exitFindings, "zkdata:"+dir+","+copyDir)
	if len(two.Dependents) != 0 || !slices.Equal(roleList(two), roleList(one)) || !slices.Equal(two.Checked[2:], one.Checked[2:]) {
		t.Errorf("two data dirs: %+v\none: %+v", two, one)
	}
	dump := depsJSON(t, exitFindings, "zkdump:"+filepath.Join(zkFixture, "dump.json"))
	if len(dump.Dependents) != 0 || len(dump.Kafka) != 2 || len(dump.NotChecked) != 3 {
		t.Errorf("dump: %+v", dump)
	}
	// Text: the verdict first, then Kafka's use, its sessions, and what
	// was and was not checked.
	code, out, _ := runKmeta(t, "zk", "dependents", "zkdata:"+dir)
	if code != exitFindings || !strings.HasPrefix(out, "not safe to stop: nothing but Kafka uses this ensemble, but Kafka itself still does (4 sessions open)\n") ||
		!strings.Contains(out, "\nzk-kafka-connected cluster under /kafka/prod: 4 sessions of the cluster still open: broker 1 (") ||
		!strings.Contains(out, "\nkafka: session ") || !strings.Contains(out, " broker 3's authorizer (closed)\n") ||
		!strings.Contains(out, "\nnot checked: clients' addresses") {
		t.Errorf("text (exit %d):\n%s", code, out)
	}
	code, out, _ = runKmeta(t, "zk", "dependents", "-o", "table", "zkdata:"+dir)
	if code != exitFindings || !strings.Contains(out, "| KAFKA SESSION ") || !strings.Contains(out, "| CHECKED |") {
		t.Errorf("table (exit %d):\n%s", code, out)
	}
	code, out, _ = runKmeta(t, "zk", "dependents", "-o", "html", "--report-time", "2026-01-02T03:04:05Z", "zkdata:"+dir)
	if code != exitFindings || !strings.Contains(out, "kmeta zk dependents") || !strings.Contains(out, "Kafka itself still does") ||
		!strings.Contains(out, "zk-kafka-connected") {
		t.Errorf("html (exit %d): %d bytes", code, len(out))
	}
}

func roleList(r *zkdeps.Result) []string {
	var out []string
	for _, k := range r.Kafka {
		out = append(out, k.Session+" "+k.Role)
	}
	return out
}

// TestZKDependentsRefusals: what zk dependents refuses, exit 2.
func TestZKDependentsRefusals(t *testing.T) {
	dir := filepath.Join(zkFixture, "datadir")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kraft:" + filepath.Join("..", "..", "testdata", "kraft")}, "KRaft source"},
		{[]string{"--chroot", "/nope", "zkdata:" + dir}, "Kafka's chroot /nope does not exist"},
		{[]string{"--chroot", "/kafka", "zkdump:" + filepath.Join(zkFixture, "dump.json")}, "the dump holds /kafka/prod only"},
		{[]string{"zkdata:" + dir + "@zxid=0x7fffffff"}, "past the end"},
	} {
		code, _, stderr := runKmeta(t, append([]string{"zk", "dependents"}, tc.args...)...)
		if code != exitFailure || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q (want %q)", tc.args, code, stderr, tc.want)
		}
	}
}
