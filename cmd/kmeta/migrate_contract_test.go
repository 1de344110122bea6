package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// TestApplyReportsThePlansFindings: apply -o json carries the findings of
// the plan it carries out (here the warnings of two overrides and of
// registrations left in the data dir), not an empty list.
func TestApplyReportsThePlansFindings(t *testing.T) {
	src := "zkdata:" + filepath.Join(zkFixture, "datadir")
	args := []string{"--zk", src, "--controllers", "3000@localhost:9093", "--override=keep-reassignments,drop-pending-deletions", "-o", "json"}
	codes := func(out string) []string {
		var doc struct {
			Findings []struct{ Code, Severity string } `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var cs []string
		for _, f := range doc.Findings {
			cs = append(cs, f.Severity+" "+f.Code)
		}
		return cs
	}
	plan := kmeta(append([]string{"migrate", "plan"}, args...)...)
	apply := kmeta(append([]string{"migrate", "apply", "--out", filepath.Join(t.TempDir(), "out")}, args...)...)
	if plan.code != 0 || apply.code != 0 {
		t.Fatalf("plan exit %d, apply exit %d: %s %s", plan.code, apply.code, plan.stderr, apply.stderr)
	}
	want, got := codes(plan.stdout), codes(apply.stdout)
	if !slices.Contains(want, "info override-used") || !slices.Equal(got, want) {
		t.Errorf("apply's findings %q, the plan's %q", got, want)
	}
}
