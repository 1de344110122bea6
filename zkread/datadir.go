package zkread

import (
	"fmt"

	"github.com/kmeta/kmeta/model"

	"github.com/kmeta/kmeta/zkread/zkfile"
)

// DataDirOptions tunes ReadDataDir.
type DataDirOptions struct {
	// Chroot the Kafka cluster lives under ("/kafka/prod"); "" for none.
	Chroot string
	// LogDir is ZooKeeper's dataLogDir when it differs from dataDir.
	LogDir string
	// AtZxid > 0 reads the tree as of that zxid; AtZxidSet makes 0 a
	// point too (the tree before any transaction), see zkfile.DirOptions.
	AtZxid    int64
	AtZxidSet bool
	// MaxBuffer is ZooKeeper's jute.maxbuffer (the server's
	// -Djute.maxbuffer): lengths in snapshots and logs beyond what
	// ZooKeeper accepts are corruption, never allocated. <= 0: ZooKeeper's
	// default, 0xfffff.
	MaxBuffer int
	// Progress, if set, is called now and then with the bytes of snapshot
	// and log files read and the bytes to read.
	Progress func(done, total int64)
	// Step, when set, follows the replay: it is called with the image as
	// of the snapshot, then after each transaction that changed what the
	// image holds, with the image brought up to date and what changed
	// (history.go). The replay then starts from the oldest snapshot the
	// logs go on from (zkfile.DirOptions.Oldest). The image is one object,
	// changed in place between calls; it is not the returned tree's
	// final decode.
	Step func(img *model.Image, s Step)
	// Replay, when set, follows the transaction stream itself (replay.go):
	// the snapshot the replay starts from, then each transaction. As with
	// Step, the replay then starts from the oldest snapshot the logs go
	// on from. Both may be set.
	Replay *Replay
	// Before, with Step, is called before each transaction Step will be
	// called after, with the image as it still is and what the
	// transaction is about to change (each Change's Refs: the entities
	// it touches), so that a judge reads them before and after (history).
	Before func(img *model.Image, s Step)
}

// ReadDataDir rebuilds the tree from a ZooKeeper data dir (the dir holding
// version-2/, or version-2 itself) without a server: the newest valid
// snapshot plus the transaction logs after it. A corrupt newest snapshot
// makes it fall back to an older one, with a warning in Tree.Warnings.
// Files are only read.
func ReadDataDir(dir string, opts DataDirOptions) (*Tree, error) {
	zo := zkfile.DirOptions{LogDir: opts.LogDir, AtZxid: opts.AtZxid, AtZxidSet: opts.AtZxidSet, MaxBuffer: opts.MaxBuffer, Progress: opts.Progress}
	var h *history
	if opts.Step != nil {
		h = newHistory("zkdata:"+dir, opts.Chroot, opts.Step)
		h.before = opts.Before
		// From the oldest snapshot the logs go on from: the longest
		// history the files hold.
		zo.Base, zo.Step, zo.Oldest = h.base, h.txn, true
	}
	if opts.Replay != nil {
		p := &replayer{r: opts.Replay}
		base, step := zo.Base, zo.Step
		zo.Base = func(dt *zkfile.DataTree) {
			if base != nil {
				base(dt)
			}
			p.base(dt)
		}
		zo.Step = func(dt *zkfile.DataTree, txn *zkfile.Txn, changed []zkfile.Changed) {
			if step != nil {
				step(dt, txn, changed)
			}
			p.step(dt, txn)
		}
		zo.Oldest = true
	}
	res, err := zkfile.ReadDir(dir, zo)
	if err != nil {
		return nil, err
	}
	t, err := fromDataTree(res.Tree, NormalizeChroot(opts.Chroot))
	if err != nil {
		return nil, err
	}
	t.Source = "zkdata:" + dir
	t.history = h
	for _, w := range res.Warnings {
		t.warn(w)
	}
	if (opts.AtZxidSet || opts.AtZxid > 0) && res.Tree.LastZxid < opts.AtZxid {
		if !res.Later {
			// Nothing in the files comes after the point: it is past their
			// end, and reading it as the end state would answer another
			// question than the one asked.
			return nil, &pastEndError{msg: fmt.Sprintf("%s: zxid %#x is past the end of the data dir: its last transaction is zxid %#x", dir, opts.AtZxid, res.Tree.LastZxid)}
		}
		where := model.NoLocation()
		where.File, where.Zxid = dir, res.Tree.LastZxid
		t.warnf(model.WarnCoverageHole, &where, "the data dir ends at zxid %#x, before the requested %#x", res.Tree.LastZxid, opts.AtZxid)
	}
	return t, nil
}

// DataDirBytes is the total ReadDataDir with these options reports to
// Progress, so a caller reading several dirs can show one progress.
func DataDirBytes(dir string, opts DataDirOptions) (int64, error) {
	return zkfile.DirBytes(dir, zkfile.DirOptions{LogDir: opts.LogDir, AtZxid: opts.AtZxid, AtZxidSet: opts.AtZxidSet})
}

// pastEndError is ErrPastEnd with a message of its own (the sentinel's
// text would only repeat it).
type pastEndError struct{ msg string }

func (e *pastEndError) Error() string { return e.msg }
func (e *pastEndError) Unwrap() error { return ErrPastEnd }
