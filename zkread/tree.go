package zkread

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// Stat is a znode's stat as a client sees it (the fields of ZooKeeper's Stat
// record). Cversion counts child creations and deletions.
type Stat = zkfile.Stat

// ACL is one ZooKeeper access control entry.
type ACL = zkfile.ACL

// Node is one znode. Data nil means the znode holds null, which ZooKeeper
// distinguishes from empty data. Children are sorted; ACL is nil when the
// source did not read it (live reads without ReadACLs). It is zkfile's
// node, so an offline read hands over the tree it built without copying.
type Node = zkfile.Node

// Origin is where an offline read found a znode's data: the snapshot or
// transaction log and the byte offset of its record there (a snapshot's
// node record, a log's entry).
type Origin = zkfile.Origin

// Tree is the raw znode tree every source produces. Paths are absolute and
// relative to the chroot: "/" is the chroot itself.
type Tree struct {
	Nodes map[string]*Node
	// MaxZxid is the highest zxid seen: the data dir's last applied zxid, or
	// for a live read the highest czxid/mzxid/pzxid read.
	MaxZxid int64
	// Source describes where the tree came from (for provenance).
	Source string
	// Chroot the paths are relative to ("" when none).
	Chroot string
	// Origin is the live source (zk://HOSTS/CHROOT) the tree was read
	// from, also through a dump that recorded it; "" when unknown.
	Origin string
	// Warnings: snapshot fallbacks, torn tails, a tree that changed while it
	// was read. Never empty-string entries. Each is the Message of the
	// Findings entry at the same index.
	Warnings []string
	// Findings are the same warnings typed (model.WarnSnapshotFallback,
	// WarnTornTail, WarnZKLogDamaged, WarnTreeChanged, WarnChrootDetected),
	// with where they apply; Decode carries them into Image.Warnings.
	Findings []model.Finding
	// Origins maps a path to where an offline read found its data (nil for
	// live and dump reads), so errors can name the file and offset.
	Origins map[string]Origin
	// Changed is set by a live read that saw the tree change while reading
	// and could not get a stable view.
	Changed bool
	// Sessions is the session table (session id → timeout in ms) a data
	// dir holds: its snapshot's, brought up to date by the logged
	// createSession and closeSession transactions. Nil for a live read or
	// a dump, which hold none.
	Sessions map[int64]int32
	// ReaderSessions are the ids of the sessions a live read itself
	// opened (nil otherwise), so that a caller listing the ensemble's
	// clients can leave kmeta's own out.
	ReaderSessions []int64

	// index numbers the nodes an offline read made (nil otherwise), for
	// the decoder's marks.
	index *zkfile.Index
	// history followed the read (DataDirOptions.Step), nil otherwise.
	history *history
}

// warn adds a warning, typed and as text.
func (t *Tree) warn(f model.Finding) {
	t.Findings = append(t.Findings, f)
	t.Warnings = append(t.Warnings, f.Message)
}

// warnf adds a warning of one of the model's checks (a model.Warn* code)
// with a location (nil: none).
func (t *Tree) warnf(code string, where *model.Location, format string, args ...any) {
	t.warn(model.Warning(code, where, format, args...))
}

// sortWarnings orders the warnings by message (concurrent readers add
// them in any order), keeping Warnings and Findings aligned.
func (t *Tree) sortWarnings() {
	slices.SortStableFunc(t.Findings, func(a, b model.Finding) int { return strings.Compare(a.Message, b.Message) })
	t.Warnings = t.Warnings[:0]
	for _, f := range t.Findings {
		t.Warnings = append(t.Warnings, f.Message)
	}
}

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{Nodes: map[string]*Node{}} }

// Get returns the node at path or nil.
func (t *Tree) Get(path string) *Node { return t.Nodes[path] }

// Paths returns every path in sorted order.
func (t *Tree) Paths() []string {
	out := make([]string, 0, len(t.Nodes))
	for p := range t.Nodes {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// NodeDiff is a znode on which two trees disagree (see DiffTrees).
type NodeDiff struct {
	Path string
	// How: "removed" (in the first tree only), "added" (in the second
	// only), or "changed" (the data differs).
	How string
}

// DiffTrees compares two raw trees as two replicas of one ensemble at one
// zxid must agree: the same znode paths holding the same data bytes (null
// data differs from empty, as in ZooKeeper). Stats are not compared: a
// fuzzy snapshot replayed to a zxid may leave cversion and pzxid other than
// the server that applied the transactions live holds, with the same
// znodes and data. ZooKeeper's own /zookeeper subtree (present only
// without a chroot) is left out, as Decode leaves it out: a server sets
// its config znode from its own configuration file, not by a transaction.
// The differences come sorted by path.
func DiffTrees(a, b *Tree) []NodeDiff {
	var out []NodeDiff
	for p, x := range a.Nodes {
		if zookeeperOwn(a, p) {
			continue
		}
		y := b.Nodes[p]
		switch {
		case y == nil:
			out = append(out, NodeDiff{Path: p, How: "removed"})
		case (x.Data == nil) != (y.Data == nil) || !bytes.Equal(x.Data, y.Data):
			out = append(out, NodeDiff{Path: p, How: "changed"})
		}
	}
	for p := range b.Nodes {
		if a.Nodes[p] == nil && !zookeeperOwn(b, p) {
			out = append(out, NodeDiff{Path: p, How: "added"})
		}
	}
	slices.SortFunc(out, func(x, y NodeDiff) int { return strings.Compare(x.Path, y.Path) })
	return out
}

// zookeeperOwn says whether p is in ZooKeeper's own /zookeeper subtree of
// a tree read without a chroot.
func zookeeperOwn(t *Tree, p string) bool {
	return t.Chroot == "" && (p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/"))
}

// Child joins a parent path and a child name.
func Child(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}

// fromDataTree takes zkfile's tree as a Tree rooted at chroot: its nodes
// and origins as they are without a chroot, re-keyed by relative path
// under one (dt is consumed either way).
func fromDataTree(dt *zkfile.DataTree, chroot string) (*Tree, error) {
	root := chroot
	if root == "" {
		root = "/"
	}
	if dt.Nodes[root] == nil {
		return nil, &ZnodeError{Path: root, Err: ErrNoNode, Msg: "chroot does not exist"}
	}
	t := &Tree{Chroot: chroot, MaxZxid: dt.LastZxid, index: dt.Index(), Sessions: dt.Sessions}
	if root == "/" {
		t.Nodes, t.Origins = dt.Nodes, dt.Origins
		dt.Nodes, dt.Origins = nil, nil
		return t, nil
	}
	// Sized for the whole tree: a data dir rarely holds much besides the
	// cluster under its chroot.
	t.Nodes, t.Origins = make(map[string]*Node, len(dt.Nodes)), make(map[string]Origin, len(dt.Nodes))
	for p, n := range dt.Nodes {
		if rel, ok := relPath(p, root); ok {
			t.Nodes[rel] = n
			t.Origins[rel] = dt.Origins[p]
		}
	}
	dt.Nodes, dt.Origins = nil, nil
	return t, nil
}

// relPath maps an absolute path to one relative to root, false when outside.
func relPath(p, root string) (string, bool) {
	if root == "/" {
		return p, true
	}
	if p == root {
		return "/", true
	}
	if strings.HasPrefix(p, root+"/") {
		return p[len(root):], true
	}
	return "", false
}

// NormalizeChroot turns "kafka/prod/", "/kafka/prod" or "/" into "/kafka/prod"
// or "" (no chroot).
func NormalizeChroot(c string) string {
	c = strings.Trim(c, "/")
	if c == "" {
		return ""
	}
	return "/" + c
}
