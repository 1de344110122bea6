package main

import (
	"strings"
	"testing"
)

// The write commands refuse a malformed request before connecting
// (exit 2), and a connection that cannot be made is exit 2 with the
// address: nothing is sent in either case.
func TestFeaturesWriteUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1", "--release-version", "4.0", "--metadata", "4.0"}, "cannot be combined"},
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1"}, "nothing to upgrade"},
		{[]string{"features", "disable", "kafka://127.0.0.1:1", "--feature", "group.version=0"}, "disable takes --feature NAME"},
		{[]string{"features", "upgrade", "--metadata", "4.0"}, "missing the cluster"},
		{[]string{"features", "upgrade", "kraft:/tmp", "--metadata", "4.0"}, "writes to a live cluster"},
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1", "--bootstrap-server", "127.0.0.1:1", "--metadata", "4.0"}, "too many sources"},
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1", "--metadata", "4.0", "--kafka-timeout", "2s"}, "127.0.0.1:1"},
	} {
		r := kmeta(tc.args...)
		if r.code != exitFailure || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
