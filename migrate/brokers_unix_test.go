//go:build unix

package migrate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kmeta/kmeta/metalog"
)

// The rewritten meta.properties keeps the mode and the owner of the one it
// replaces: kmeta runs as root, the broker as its own user, which must
// still own (and may rewrite) the file.
func TestConvertBrokersKeepsModeAndOwner(t *testing.T) {
	p := brokerPlan(t)
	dir := t.TempDir()
	zkBrokerDir(t, dir, 1, p.ClusterID, false)
	mpPath := filepath.Join(dir, "meta.properties")
	if err := os.Chmod(mpPath, 0o640); err != nil {
		t.Fatal(err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 4321, 4322 // not whoever runs the test
		if err := os.Chown(mpPath, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := ConvertBrokers(p, BrokerOptions{LogDirs: []string{dir}}); err != nil {
		t.Fatalf("%v %v", err, r.Findings)
	}
	if mp, err := metalog.ReadMetaProperties(mpPath); err != nil || mp.Version != 1 {
		t.Fatalf("not converted: %+v %v", mp, err)
	}
	fi, err := os.Stat(mpPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the original's 0640", fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != uid || int(st.Gid) != gid) {
		t.Errorf("owner %d:%d, want the original's %d:%d", st.Uid, st.Gid, uid, gid)
	}
}
