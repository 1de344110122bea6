package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
)

// TestMigrateContract: a plan written with a relative source path applies
// from another directory (the file records it absolute); apply --node
// naming no controller, an unknown --metadata-version and a missing
// --log-dirs dir are usage errors (exit 2) that say so.
func TestMigrateContract(t *testing.T) {
	work := t.TempDir()
	fstree.CopyTo(t, filepath.Join(zkFixture, "datadir"), filepath.Join(work, "zk"))
	plan := filepath.Join(work, "plan.json")
	override := "--override=keep-reassignments,drop-pending-deletions"
	t.Chdir(work)
	r := kmeta("migrate", "plan", "--zk", "zkdata:zk", "--controllers", "3000@localhost:9093", override, "--write", plan)
	if r.code != 0 || !strings.Contains(r.stdout, "zkdata:zk ") {
		t.Fatalf("plan: exit %d, stderr %q; the plan shows the source as given: %q", r.code, r.stderr, r.stdout)
	}
	t.Chdir(t.TempDir())
	if r := kmeta("migrate", "apply", "--plan", plan, "--out", "out"); r.code != 0 {
		t.Errorf("apply from another directory: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"migrate", "apply", "--plan", plan, "--out", "out2", "--node", "7"}, "node 7 is no controller of the plan (its controllers: 3000)"},
		{[]string{"migrate", "plan", "--zk", "zkdata:" + filepath.Join(work, "zk"), "--metadata-version", "9.9"}, `--metadata-version: features: unknown metadata.version: release "9.9"`},
		{[]string{"migrate", "brokers", "--plan", plan, "--log-dirs", filepath.Join(work, "nope")}, "nope: no such directory"},
	} {
		r := kmeta(tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.stderr) || r.stdout != "" {
			t.Errorf("kmeta %s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", strings.Join(tc.args, " "), r.code, r.stdout, r.stderr, tc.stderr)
		}
	}
	if _, err := os.Stat("out2"); err == nil {
		t.Error("apply --node 7 created its output dir")
	}
}
