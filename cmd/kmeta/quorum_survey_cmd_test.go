package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog"
)

// TestQuorumSurveyExits: one clean copy, or equal copies, allow a clean
// rebuild (exit 0); a copy behind the best is a finding (exit 1); no dir,
// a dir that cannot be read or copies of two clusters cannot run (exit 2).
// The dirs are left as they were.
func TestQuorumSurveyExits(t *testing.T) {
	full := fstree.Copy(t, fixture44)
	behind := fstree.Copy(t, fixture44)
	if err := os.Truncate(filepath.Join(behind, metalog.MetadataPartitionDir, "00000000000000000086.log"), 4645); err != nil {
		t.Fatal(err)
	}
	before := fstree.Hash(t, full) + fstree.Hash(t, behind)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"quorum", "survey", full}, 0, "CleanRebuild:   yes", ""},
		{[]string{"quorum", "survey", "kraft:" + full, fixture44}, 0, "tied with " + fixture44, ""},
		{[]string{"quorum", "survey", behind, full}, 1, "warning copy-behind copy " + behind + " (node 3000): behind the best copy " + full + ": last epoch 1 and end offset 150 against 1 and 194", ""},
		{[]string{"quorum", "survey", "-o", "json", behind, full}, 1, `"best": 1,`, ""},
		{[]string{"quorum", "survey", "-o", "table", behind, full}, 1, "| RebuildGivesUp | nothing", ""},
		{[]string{"quorum", "survey"}, 2, "", "missing DIR"},
		{[]string{"quorum", "survey", "/nonexistent/kmeta"}, 2, "", "no such file or directory"},
		{[]string{"quorum", "survey", full, fixture39}, 2, "", "give copies of one cluster's metadata log"},
	} {
		r := kmeta(tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("kmeta %s: exit %d, want %d\nstdout %s\nstderr %s", strings.Join(tc.args, " "), r.code, tc.code, r.stdout, r.stderr)
		}
	}
	if fstree.Hash(t, full)+fstree.Hash(t, behind) != before {
		t.Error("survey changed a dir it read")
	}
}
