package zkread

import (
	"bytes"
	"iter"
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
//
// A live read, a dump and a tree made by hand keep their nodes in a map
// by path; an offline read keeps zkfile's compact tree and hands out
// Nodes made on request (Get), which share its data: change a node
// through Set or SetData, never in place.
type Tree struct {
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
	// Servers is the ensemble a live read asked (HOST:PORT each); nil for
	// a data dir or a dump.
	Servers []string
	// Warnings: snapshot fallbacks, torn tails, a tree that changed while it
	// was read. Never empty-string entries. Each is the Message of the
	// Findings entry at the same index.
	Warnings []string
	// Findings are the same warnings typed (model.WarnSnapshotFallback,
	// WarnTornTail, WarnZKLogDamaged, WarnTreeChanged, WarnChrootDetected),
	// with where they apply; Decode carries them into Image.Warnings.
	Findings []model.Finding
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

	// nodes holds a live read's, a dump's or a hand-made tree's nodes by
	// path; nil for an offline read's.
	nodes map[string]*Node
	// dt is an offline read's tree, root the node this tree's "/" is (the
	// chroot's) and rootPath its path in dt.
	dt       *zkfile.DataTree
	root     zkfile.Ref
	rootPath string
	// size counts an offline tree's nodes under root (-1: not yet).
	size int
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
func NewTree() *Tree { return &Tree{nodes: map[string]*Node{}} }

// offlineTree is the tree of dt under the node at rootPath (r).
func offlineTree(dt *zkfile.DataTree, r zkfile.Ref, rootPath string) *Tree {
	return &Tree{dt: dt, root: r, rootPath: rootPath, size: -1}
}

// adopt makes t the tree dt holds (from its root), its nodes by path
// dropped.
func (t *Tree) adopt(dt *zkfile.DataTree) {
	t.nodes, t.dt, t.root, t.rootPath, t.size = nil, dt, dt.Root(), "/", -1
}

// ref returns the node of an offline tree at path (relative), NoRef when
// there is none.
func (t *Tree) ref(path string) zkfile.Ref {
	if t.rootPath == "/" {
		return t.dt.Lookup(path)
	}
	return t.dt.Under(t.root, t.rootPath, path)
}

// Get returns the node at path or nil.
func (t *Tree) Get(path string) *Node {
	if t.dt == nil {
		return t.nodes[path]
	}
	return t.dt.Node(t.ref(path))
}

// Has says whether a node is at path.
func (t *Tree) Has(path string) bool {
	if t.dt == nil {
		return t.nodes[path] != nil
	}
	return t.ref(path) != zkfile.NoRef
}

// Len is the number of nodes.
func (t *Tree) Len() int {
	if t.dt == nil {
		return len(t.nodes)
	}
	if t.size < 0 {
		if t.rootPath == "/" {
			t.size = t.dt.Len()
		} else {
			t.size = 0
			t.dt.Walk(t.root, "/", func(string, zkfile.Ref) bool { t.size++; return true })
		}
	}
	return t.size
}

// Range calls fn with every node and its path, in no set order, until fn
// returns false.
func (t *Tree) Range(fn func(path string, n *Node) bool) {
	if t.dt == nil {
		for p, n := range t.nodes {
			if !fn(p, n) {
				return
			}
		}
		return
	}
	t.dt.Walk(t.root, "/", func(p string, r zkfile.Ref) bool { return fn(p, t.dt.Node(r)) })
}

// Map returns every node by path, in a map made for the caller: adding
// to it or deleting from it changes nothing in the tree (for tests and
// comparisons of whole trees).
func (t *Tree) Map() map[string]*Node {
	m := make(map[string]*Node, t.Len())
	t.Range(func(p string, n *Node) bool { m[p] = n; return true })
	return m
}

// All is Range as an iterator: every node and its path, in no set order.
func (t *Tree) All() iter.Seq2[string, *Node] {
	return func(yield func(string, *Node) bool) { t.Range(yield) }
}

// Set puts n at path. An offline tree becomes a tree of nodes by path
// first (it is a copy then: the read's own tree is left as it was).
func (t *Tree) Set(path string, n *Node) {
	t.own()
	t.nodes[path] = n
}

// Delete removes the node at path (and nothing else: its parent still
// lists it).
func (t *Tree) Delete(path string) {
	t.own()
	delete(t.nodes, path)
}

// own turns an offline tree into one of nodes by path.
func (t *Tree) own() {
	if t.dt == nil {
		if t.nodes == nil {
			t.nodes = map[string]*Node{}
		}
		return
	}
	m := make(map[string]*Node, t.Len())
	t.Range(func(p string, n *Node) bool { m[p] = n; return true })
	t.nodes, t.dt, t.history = m, nil, nil
}

// SetData replaces the data of the node at path (a redaction): the tree
// keeps data, so no one may change it in place afterwards.
func (t *Tree) SetData(path string, data []byte) {
	if t.dt == nil {
		if n := t.nodes[path]; n != nil {
			n.Data = data
		}
		return
	}
	if r := t.ref(path); r != zkfile.NoRef {
		t.dt.SetData(r, data)
	}
}

// MapData replaces every node's data with what fn returns for it (a
// redaction): fn must not change the bytes it is given.
func (t *Tree) MapData(fn func(path string, data []byte) []byte) {
	if t.dt == nil {
		for p, n := range t.nodes {
			n.Data = fn(p, n.Data)
		}
		return
	}
	t.dt.Walk(t.root, "/", func(p string, r zkfile.Ref) bool {
		t.dt.SetData(r, fn(p, t.dt.Data(r)))
		return true
	})
}

// NodeOrigin returns where an offline read found the data of the node at
// path (the snapshot or log file and its record's offset); false for
// other trees, whose nodes are found by path.
func (t *Tree) NodeOrigin(path string) (Origin, bool) {
	if t.dt == nil {
		return Origin{}, false
	}
	r := t.ref(path)
	if r == zkfile.NoRef {
		return Origin{}, false
	}
	return t.dt.Origin(r)
}

// Paths returns every path in sorted order.
func (t *Tree) Paths() []string {
	out := make([]string, 0, t.Len())
	t.rangePaths(func(p string) { out = append(out, p) })
	sort.Strings(out)
	return out
}

// sorted calls fn with every node in path order until fn fails.
func (t *Tree) sorted(fn func(path string, n *Node) error) error {
	if t.dt == nil {
		for _, p := range t.Paths() {
			if err := fn(p, t.nodes[p]); err != nil {
				return err
			}
		}
		return nil
	}
	type pr struct {
		p string
		r zkfile.Ref
	}
	all := make([]pr, 0, t.Len())
	t.dt.Walk(t.root, "/", func(p string, r zkfile.Ref) bool { all = append(all, pr{p, r}); return true })
	slices.SortFunc(all, func(a, b pr) int { return strings.Compare(a.p, b.p) })
	for _, x := range all {
		if err := fn(x.p, t.dt.Node(x.r)); err != nil {
			return err
		}
	}
	return nil
}

// rangePaths calls fn with every path, making no nodes.
func (t *Tree) rangePaths(fn func(string)) {
	if t.dt == nil {
		for p := range t.nodes {
			fn(p)
		}
		return
	}
	t.dt.Walk(t.root, "/", func(p string, _ zkfile.Ref) bool { fn(p); return true })
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
	a.Range(func(p string, x *Node) bool {
		if zookeeperOwn(a, p) {
			return true
		}
		y := b.Get(p)
		switch {
		case y == nil:
			out = append(out, NodeDiff{Path: p, How: "removed"})
		case (x.Data == nil) != (y.Data == nil) || !bytes.Equal(x.Data, y.Data):
			out = append(out, NodeDiff{Path: p, How: "changed"})
		}
		return true
	})
	b.rangePaths(func(p string) {
		if !a.Has(p) && !zookeeperOwn(b, p) {
			out = append(out, NodeDiff{Path: p, How: "added"})
		}
	})
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

// fromDataTree takes zkfile's tree as a Tree rooted at chroot.
func fromDataTree(dt *zkfile.DataTree, chroot string) (*Tree, error) {
	root := chroot
	if root == "" {
		root = "/"
	}
	r := dt.Lookup(root)
	if r == zkfile.NoRef {
		return nil, &ZnodeError{Path: root, Err: ErrNoNode, Msg: "chroot does not exist"}
	}
	t := offlineTree(dt, r, root)
	t.Chroot, t.MaxZxid, t.Sessions = chroot, dt.LastZxid, dt.Sessions
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
