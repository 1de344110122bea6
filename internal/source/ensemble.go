package source

import (
	"context"
	"errors"
	"fmt"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// Ensemble is a ZooKeeper source read whole, for a judge of the ensemble
// rather than of Kafka's view (zk dependents): the tree from the
// ensemble's root, and Kafka's chroot in it.
type Ensemble struct {
	Tree *zkread.Tree
	// TreeRoot is the ensemble path the tree's "/" is: "" (the root),
	// except for a dump, which holds Kafka's chroot only.
	TreeRoot string
	// Chroot is Kafka's chroot (absolute, "" for the root), and
	// ChrootWhy how it was found.
	Chroot    string
	ChrootWhy string
	// NoAuth are the znodes (absolute) a live read was refused; the rest
	// of the tree was read.
	NoAuth []string
	// Warnings are what the tree rests on (model.Finding, as the tree's).
	Warnings []model.Finding
}

// ReadZKEnsemble reads a ZooKeeper source from the ensemble's root: a
// live ensemble whatever chroot its string names (that chroot is
// Kafka's), a data dir (or several: the newest, shown to extend the
// others) from its root, a dump as it is. chroot names Kafka's chroot
// ("" to take the source's, or to detect it: the one subtree holding
// brokers/ids or cluster/id). zo.Replay follows a data dir's
// transactions (the newest dir's, with several).
func ReadZKEnsemble(ctx context.Context, spec Spec, zo zkread.ReadOptions, chroot string) (*Ensemble, error) {
	if spec.World != model.WorldZooKeeper {
		return nil, fmt.Errorf("%w: %s is not a ZooKeeper source", ErrSource, spec)
	}
	named := ""
	if chroot != "" {
		named = zkread.NormalizeChroot(chroot)
		if named == "" {
			named = "/"
		}
	}
	e := &Ensemble{}
	zo.AtZxid, zo.AtZxidSet = spec.At.Zxid, spec.At.HasZxid
	if spec.ZK.Access != zkread.AccessDataDir {
		// Only a data dir holds transactions to follow.
		zo.Replay = nil
	}
	var t *zkread.Tree
	var err error
	switch spec.ZK.Access {
	case zkread.AccessLive:
		if spec.ZK.Chroot != "" {
			if named != "" && named != spec.ZK.Chroot {
				return nil, fmt.Errorf("%w: --chroot %s and the chroot %s of %s differ", ErrSource, named, spec.ZK.Chroot, spec.Raw)
			}
			named = spec.ZK.Chroot
		}
		root := spec.ZK
		root.Chroot = ""
		t, err = root.ReadTree(ctx, zo)
		var na *zkread.NoAuthError
		if errors.As(err, &na) && t != nil {
			e.NoAuth, err = na.Paths, nil
		}
	case zkread.AccessDataDir:
		zo.Chroot = "/"
		if len(spec.DataDirs) > 1 {
			replay := zo.Replay
			zo.Replay = nil
			res, lerr := loadDataDirs(ctx, spec, Options{ZK: zo})
			if lerr != nil {
				return nil, lerr
			}
			newest := res.tree
			if replay != nil {
				// The history is the newest dir's, read again with it.
				zo.Replay = replay
				for _, d := range res.DataDirs {
					if d.Used {
						newest, err = zkread.Source{Access: zkread.AccessDataDir, Path: d.Path}.ReadTree(ctx, zo)
					}
				}
			}
			t = newest
		} else {
			t, err = spec.ZK.ReadTree(ctx, zo)
		}
	case zkread.AccessDump:
		t, err = spec.ZK.ReadTree(ctx, zo)
		if t != nil {
			e.TreeRoot = t.Chroot
		}
	default:
		return nil, fmt.Errorf("%w: empty source", ErrSource)
	}
	if err != nil {
		return nil, pastEnd(err)
	}
	e.Tree = t
	e.Warnings = model.CloneFindings(t.Findings)
	switch {
	case named == "/":
		e.Chroot, e.ChrootWhy = "", "named: the root"
	case named != "":
		e.Chroot, e.ChrootWhy = named, "named"
	case e.TreeRoot != "":
		e.Chroot, e.ChrootWhy = e.TreeRoot, "the dump's chroot"
	default:
		c, derr := zkread.DetectChroot(t)
		if derr != nil {
			return nil, fmt.Errorf("%s: Kafka's chroot: %w (name it with --chroot)", spec, derr)
		}
		e.Chroot, e.ChrootWhy = c, "detected: it holds brokers/ids or cluster/id"
	}
	if e.TreeRoot != "" && e.Chroot != e.TreeRoot && !(len(e.Chroot) > len(e.TreeRoot) && e.Chroot[:len(e.TreeRoot)+1] == e.TreeRoot+"/") {
		return nil, fmt.Errorf("%w: the dump holds %s only; Kafka's chroot %s is not in it", ErrSource, e.TreeRoot, e.Chroot)
	}
	if !e.Tree.Has(relTo(e.Chroot, e.TreeRoot)) {
		return nil, fmt.Errorf("%w: %s: Kafka's chroot %s does not exist", ErrSource, spec, orRoot(e.Chroot))
	}
	return e, nil
}

// relTo is an absolute path as a path of a tree rooted at root.
func relTo(p, root string) string {
	if p == root || p == "" {
		return "/"
	}
	return p[len(root):]
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
