package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kmeta/kmeta/zkread"
)

// Several data dirs of one ensemble.
//
//	zkdata:/srv/zk1,/srv/zk2,/srv/zk3
//
// names the data dirs of the servers of one ZooKeeper ensemble, which a
// stop leaves at different zxids (a follower may not have applied the
// last transactions). Load reads each, uses the one with the newest zxid
// (DataDirs says which), and proves that every other one holds a prefix
// of its history: the newest dir read as of an older dir's zxid must hold
// exactly what the older dir holds: the same znodes with the same data
// (zkread.DiffTrees; raw, so the proof needs no judge of views and no
// decode). Anything else (another cluster's data dir, a server that
// diverged, a newest dir that no longer has the snapshots to rebuild the
// older zxid) fails with ErrDataDirsDiverge, and the result still carries
// every dir's zxid for the report.
//
// A string holding a comma is one dir when that path exists, so a path
// with a comma keeps working. A point in time (@zxid=) names one dir's
// state and is refused with several.

// ErrDataDirsDiverge: several data dirs that are not one history.
var ErrDataDirsDiverge = errors.New("the ZooKeeper data dirs disagree on more than recency")

// DataDir is what Load found in one of several data dirs.
type DataDir struct {
	Path    string `json:"path"`
	MaxZxid int64  `json:"maxZxid"`
	// Used is true for the dir the image was read from (the newest).
	Used bool `json:"used"`
	// Diverged says how this dir disagrees with the newest ("" when it is
	// a prefix of it).
	Diverged string `json:"diverged,omitempty"`
}

// splitDataDirs returns the dirs of "zkdata:A,B,...": nil when the value is
// one dir.
func splitDataDirs(p string) []string {
	if !strings.Contains(p, ",") {
		return nil
	}
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	var dirs []string
	for _, d := range strings.Split(p, ",") {
		if d = strings.TrimSpace(d); d != "" {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) < 2 {
		return nil
	}
	return dirs
}

// loadDataDirs is Load for several data dirs.
func loadDataDirs(ctx context.Context, spec Spec, opts Options) (*Result, error) {
	zo := opts.ZK
	if spec.At.HasZxid {
		return nil, pointErrorf("%s: a point in time names one data dir's state; give one data dir", spec)
	}
	trees := make([]*zkread.Tree, len(spec.DataDirs))
	res := &Result{Spec: spec}
	fn := zo.DataProgress
	if fn == nil {
		fn = opts.Progress
	}
	prog, err := newDirsProgress(fn, spec.DataDirs, zo)
	if err != nil {
		return nil, err
	}
	newest := 0
	for i, d := range spec.DataDirs {
		zo.DataProgress = prog.read(prog.sizes[i])
		t, err := zkread.Source{Access: zkread.AccessDataDir, Path: d}.ReadTree(ctx, zo)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		prog.finished(prog.sizes[i])
		trees[i] = t
		res.DataDirs = append(res.DataDirs, DataDir{Path: d, MaxZxid: t.MaxZxid})
		if t.MaxZxid > trees[newest].MaxZxid {
			newest = i
		}
	}
	res.DataDirs[newest].Used = true
	res.tree = trees[newest]
	img, err := zkread.Decode(trees[newest], opts.ZKDecode)
	if err != nil && img == nil {
		return nil, fmt.Errorf("%s: %w", spec.DataDirs[newest], err)
	}
	res.Image = img
	newDir := spec.DataDirs[newest]
	// The newest dir is read again as of each older dir's zxid: now that
	// those are known, the bar's total says exactly what that reads.
	again := make([]int64, len(spec.DataDirs))
	if prog.fn != nil {
		prog.total = prog.base
		for i := range spec.DataDirs {
			if i != newest {
				// 0 when it cannot be listed: the read then says why.
				again[i], _ = zkread.DataDirBytes(newDir, zkread.DataDirOptions{LogDir: zo.LogDir, AtZxid: trees[i].MaxZxid, AtZxidSet: true})
				prog.total += again[i]
			}
		}
	}
	var bad []string
	for i, d := range spec.DataDirs {
		if i == newest {
			continue
		}
		zo.DataProgress = prog.read(again[i])
		why, err := prefixOf(ctx, newDir, trees[i], zo)
		if err != nil {
			return nil, err
		}
		prog.finished(again[i])
		if why != "" {
			res.DataDirs[i].Diverged = why
			bad = append(bad, fmt.Sprintf("%s (zxid %#x): %s", d, trees[i].MaxZxid, why))
		}
	}
	if len(bad) > 0 {
		return res, fmt.Errorf("%w: against %s (zxid %#x, the newest): %s", ErrDataDirsDiverge, newDir, trees[newest].MaxZxid, strings.Join(bad, "; "))
	}
	return res, nil
}

// dirsProgress shows the reads of several data dirs as one progress:
// done and total run over every read loadDataDirs makes (each dir once,
// then the newest again as of each older dir's zxid), so the bar neither
// restarts per dir nor passes 100%. Without a callback it does nothing.
type dirsProgress struct {
	fn func(done, total int64)
	// sizes are each dir's bytes for its read (zkread.DataDirBytes).
	sizes []int64
	// base is the bytes of the reads done; total, of all reads.
	base, total int64
}

func newDirsProgress(fn func(done, total int64), dirs []string, zo zkread.ReadOptions) (*dirsProgress, error) {
	p := &dirsProgress{fn: fn, sizes: make([]int64, len(dirs))}
	if fn == nil {
		return p, nil
	}
	var largest int64
	for i, d := range dirs {
		n, err := zkread.DataDirBytes(d, zkread.DataDirOptions{LogDir: zo.LogDir})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		p.sizes[i] = n
		p.total += n
		largest = max(largest, n)
	}
	// Until the dirs are read, which is newest and the zxids of the
	// others are unknown: count each re-read as the largest dir.
	p.total += int64(len(dirs)-1) * largest
	return p, nil
}

// read returns the callback for one read of size bytes.
func (p *dirsProgress) read(size int64) func(done, total int64) {
	if p.fn == nil {
		return nil
	}
	return func(done, _ int64) { p.fn(p.base+min(done, size), p.total) }
}

// finished counts a read as done: one that stopped early (at a zxid)
// leaves no gap.
func (p *dirsProgress) finished(size int64) {
	if p.fn == nil {
		return
	}
	p.base += size
	p.fn(p.base, p.total)
}

// prefixOf says how the older tree is not the newest dir's state at the
// older's zxid ("" when it is): two servers of one ensemble that applied
// the same transactions hold the same znodes with the same data
// (zkread.DiffTrees), so a difference there is another history, never a
// matter of how the views are judged.
func prefixOf(ctx context.Context, newest string, older *zkread.Tree, zo zkread.ReadOptions) (string, error) {
	zo.AtZxid, zo.AtZxidSet = older.MaxZxid, true
	at, err := zkread.Source{Access: zkread.AccessDataDir, Path: newest}.ReadTree(ctx, zo)
	if err != nil {
		return fmt.Sprintf("%s cannot be read as of zxid %#x (%v), so it cannot be shown to extend this dir", newest, older.MaxZxid, err), nil
	}
	if at.MaxZxid != older.MaxZxid {
		return fmt.Sprintf("%s has no state at zxid %#x (it holds %#x there): not one history", newest, older.MaxZxid, at.MaxZxid), nil
	}
	if at.Chroot != older.Chroot {
		return fmt.Sprintf("Kafka's chroot at zxid %#x is %q here and %q in %s: not one history", older.MaxZxid, older.Chroot, at.Chroot, newest), nil
	}
	diffs := zkread.DiffTrees(older, at)
	if len(diffs) == 0 {
		return "", nil
	}
	ds := make([]string, 0, min(len(diffs), 6))
	for _, d := range diffs[:min(len(diffs), 5)] {
		ds = append(ds, d.How+" "+d.Path)
	}
	if n := len(diffs); n > 5 {
		ds = append(ds, fmt.Sprintf("… %d more", n-5))
	}
	return fmt.Sprintf("%d differences at zxid %#x (%s)", len(diffs), older.MaxZxid, strings.Join(ds, ", ")), nil
}
