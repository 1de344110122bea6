package main

import (
	"strings"
	"testing"
)

// TestQuorumDescribeExits: a single-voter quorum's log dir is a finding
// (exit 1); no source, a bad flag, a source that cannot be read or a
// cluster that does not answer cannot run (exit 2).
func TestQuorumDescribeExits(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"quorum", "describe", fixture44}, 1, "error   quorum-single-voter quorum", ""},
		{[]string{"quorum", "describe", "-o", "json", fixture44}, 1, `"maxFollowerLagTimeMs": -1`, ""},
		{[]string{"quorum", "describe"}, 2, "", "missing SOURCE"},
		{[]string{"quorum", "describe", "--controller-quorum-fetch-timeout-ms", "0", fixture44}, 2, "", "want a positive number"},
		{[]string{"quorum", "describe", "/nonexistent/kmeta"}, 2, "", "no such file or directory"},
		{[]string{"quorum", "describe", "kafka://127.0.0.1:1"}, 2, "", "connection refused"},
		{[]string{"quorum", "describe", "--bootstrap-controller", "127.0.0.1:1", fixture44}, 2, "", "too many sources"},
	} {
		r := kmeta(tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("kmeta %s: exit %d, want %d\nstdout %s\nstderr %s", strings.Join(tc.args, " "), r.code, tc.code, r.stdout, r.stderr)
		}
	}
}
