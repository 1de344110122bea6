package zkread

import (
	"fmt"

	"github.com/kmeta/kmeta/zkread/zkfile"
)

// DataDirOptions tunes ReadDataDir.
type DataDirOptions struct {
	// Chroot the Kafka cluster lives under ("/kafka/prod"); "" for none.
	Chroot string
	// LogDir is ZooKeeper's dataLogDir when it differs from dataDir.
	LogDir string
	// AtZxid > 0 reads the tree as of that zxid.
	AtZxid int64
}

// ReadDataDir rebuilds the tree from a ZooKeeper data dir (the dir holding
// version-2/, or version-2 itself) without a server: the newest valid
// snapshot plus the transaction logs after it. A corrupt newest snapshot
// makes it fall back to an older one, with a warning in Tree.Warnings.
// Files are only read.
func ReadDataDir(dir string, opts DataDirOptions) (*Tree, error) {
	res, err := zkfile.ReadDir(dir, zkfile.DirOptions{LogDir: opts.LogDir, AtZxid: opts.AtZxid})
	if err != nil {
		return nil, err
	}
	t, err := fromDataTree(res.Tree, NormalizeChroot(opts.Chroot))
	if err != nil {
		return nil, err
	}
	t.Source = "zkdata:" + dir
	t.Warnings = append(t.Warnings, res.Warnings...)
	if opts.AtZxid > 0 && res.Tree.LastZxid < opts.AtZxid {
		t.Warnings = append(t.Warnings, fmt.Sprintf("the data dir ends at zxid %#x, before the requested %#x", res.Tree.LastZxid, opts.AtZxid))
	}
	return t, nil
}
