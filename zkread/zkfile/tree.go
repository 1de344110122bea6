package zkfile

import (
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// Stat is a znode's stat as a client sees it (the fields of ZooKeeper's Stat
// record). Cversion counts child creations and deletions.
type Stat struct {
	Czxid          int64 `json:"czxid"`
	Mzxid          int64 `json:"mzxid"`
	Pzxid          int64 `json:"pzxid"`
	Ctime          int64 `json:"ctime"`
	Mtime          int64 `json:"mtime"`
	Version        int32 `json:"version"`
	Cversion       int32 `json:"cversion"`
	Aversion       int32 `json:"aversion"`
	EphemeralOwner int64 `json:"ephemeralOwner"`
	DataLength     int32 `json:"dataLength"`
	NumChildren    int32 `json:"numChildren"`
}

// Node is one znode as a client sees it. Data nil means the znode holds
// null, which ZooKeeper distinguishes from empty data.
type Node struct {
	Data []byte
	Stat Stat
	// Children are the child names, sorted.
	Children []string
	// ACL is nil when the source did not read it (live reads without
	// ReadACLs).
	ACL []ACL
}

// Origin is a file and the byte offset of a record in it.
type Origin struct {
	File   string
	Offset int64
}

// DataTree is ZooKeeper's in-memory tree: absolute path -> node, the root
// keyed "/". Once returned by ReadSnapshotFile or ReadDir its nodes hold
// what a client would read: sorted children, client cversion, dataLength
// and numChildren.
type DataTree struct {
	Nodes map[string]*Node
	// Origins maps a path to where its data was read: its record in the
	// snapshot, or the log entry that created it or last set its data.
	Origins map[string]Origin
	// Sessions maps session id -> timeout (ms) as of the snapshot plus
	// replayed createSession/closeSession txns.
	Sessions map[int64]int32
	// LastZxid is the highest zxid applied (snapshot name or last txn).
	LastZxid int64
	// SnapshotZxid is the zxid in the snapshot's file name, and
	// SnapshotFile the file (set once ReadDir chose it).
	SnapshotZxid int64
	SnapshotFile string
	// Applied counts the transactions replayed after the snapshot.
	Applied int

	// origin is the log entry being applied, op the operation.
	origin Origin
	op     int32
	// step is DirOptions.Step during the replay; changed collects the
	// znodes the transaction being applied changed, for it.
	step    func(*DataTree, *Txn, []Changed)
	changed []Changed
	// blocks hold every node ever made, in creation order (a parent always
	// before its children); finish derives the children lists from them.
	blocks [][]entry
	free   []entry
	index  *Index
	// strs and bytes are the arenas paths and data are read into: a few
	// large allocations instead of millions of small ones, for the
	// allocator and for the garbage collector.
	strs, bytes []byte
}

// entry is a node while the tree is built. Until finish, Stat.Cversion
// is ZooKeeper's stored count of child creations, and children lists are
// empty: they are derived from the parent links once, in one allocation.
type entry struct {
	Node
	parent *entry
	name   string
	// kids counts live children, for a delete of a node that still has
	// some (ZooKeeper never logs one; see remove).
	kids    int32
	deleted bool
}

// Blocks of entries grow from minBlock to maxBlock: a small tree (a
// fuzz input) stays small, a big one is a few hundred allocations.
const (
	minBlock = 64
	maxBlock = 4096
)

// newDataTree returns an empty tree sized for about hint nodes.
func newDataTree(hint int) *DataTree {
	return &DataTree{Nodes: make(map[string]*Node, hint), Origins: make(map[string]Origin, hint), Sessions: map[int64]int32{}}
}

// newEntry returns a zeroed entry from the current block.
func (t *DataTree) newEntry() *entry {
	if len(t.free) == 0 {
		n := minBlock
		if k := len(t.blocks); k > 0 {
			n = min(2*len(t.blocks[k-1]), maxBlock)
		}
		t.free = make([]entry, n)
		t.blocks = append(t.blocks, t.free)
	}
	e := &t.free[0]
	t.free = t.free[1:]
	return e
}

// entryOf returns the entry a node of this tree lives in. Every *Node in
// Nodes is the first field of an entry made by newEntry.
func entryOf(n *Node) *entry { return (*entry)(unsafe.Pointer(n)) }

// arena returns n bytes from buf's current chunk (a new chunk when it is
// full; a big value gets its own). The result's capacity is its length,
// so an append by a caller never runs into the next value.
func arena(buf *[]byte, n int) []byte {
	const chunk = 1 << 20
	if n == 0 {
		return []byte{}
	}
	if n > chunk/8 {
		return make([]byte, n)
	}
	if cap(*buf)-len(*buf) < n {
		*buf = make([]byte, 0, chunk)
	}
	b := *buf
	*buf = b[:len(b)+n]
	return b[len(b) : len(b)+n : len(b)+n]
}

// insert adds a node under parent (nil for the root); the caller records
// its origin. false: the path was already there, and the caller must drop
// the tree (the old node was replaced); one hash of the path finds both
// answers.
func (t *DataTree) insert(path string, e *entry, parent *entry, name string) bool {
	before := len(t.Nodes)
	t.Nodes[path] = &e.Node
	if len(t.Nodes) == before {
		return false
	}
	e.parent, e.name = parent, name
	if parent != nil {
		parent.kids++
	}
	return true
}

// finish turns the built entries into what a client reads: children lists
// (sorted, one backing array for all), client cversion, dataLength,
// numChildren. It walks the blocks in order rather than the map: a parent
// always comes before its children there, and memory is read in order.
// Entries no longer in the map (deleted, or a replaced root) are walked
// too, which changes nothing a reader can reach.
func (t *DataTree) finish() {
	total := 0
	for _, b := range t.blocks {
		for i := range b {
			if e := &b[i]; e.parent != nil && !e.deleted {
				e.parent.Stat.NumChildren++
				total++
			}
		}
	}
	names := make([]string, total)
	for _, b := range t.blocks {
		for i := range b {
			e := &b[i]
			n := int(e.Stat.NumChildren)
			e.Children, names = names[:0:n], names[n:]
			if e.parent != nil && !e.deleted {
				e.parent.Children = append(e.parent.Children, e.name)
			}
		}
	}
	for _, b := range t.blocks {
		for i := range b {
			e := &b[i]
			if !slices.IsSorted(e.Children) {
				slices.Sort(e.Children)
			}
			e.Stat.Cversion = e.Stat.Cversion*2 - int32(len(e.Children))
			e.Stat.DataLength = int32(len(e.Data))
			e.Stat.NumChildren = int32(len(e.Children))
			// Drop the build links so the collector has less to follow.
			e.parent, e.name = nil, ""
		}
	}
	t.index = newIndex(t.blocks)
	t.blocks, t.free = nil, nil
}

// Index numbers the nodes of a finished tree from 0 to Len()-1, so a
// caller can keep a mark per node in a bitset rather than in a map keyed
// by millions of pointers (zkread's decoder does).
type Index struct {
	bases  []uintptr // block start addresses, ascending
	blocks [][]entry // in the order of bases
	first  []int     // the number of each block's first entry
	n      int
}

func newIndex(blocks [][]entry) *Index {
	x := &Index{blocks: slices.Clone(blocks)}
	slices.SortFunc(x.blocks, func(a, b []entry) int {
		return cmpAddr(uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0])))
	})
	for _, b := range x.blocks {
		x.bases = append(x.bases, uintptr(unsafe.Pointer(&b[0])))
		x.first = append(x.first, x.n)
		x.n += len(b)
	}
	return x
}

func cmpAddr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Applying is where the transaction being applied was read (its log
// file and the offset of its entry), for DirOptions.Step.
func (t *DataTree) Applying() Origin { return t.origin }

// Index returns the numbering of the tree's nodes (nil before the tree
// is complete).
func (t *DataTree) Index() *Index { return t.index }

// Len is one more than the highest number.
func (x *Index) Len() int { return x.n }

// Number returns n's number; false when n is not a node this tree made
// (a node put in the map by hand). It compares addresses only: n is
// never dereferenced.
func (x *Index) Number(n *Node) (int, bool) {
	p := uintptr(unsafe.Pointer(n))
	lo, hi := 0, len(x.bases)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.bases[m] <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo - 1
	if i < 0 {
		return 0, false
	}
	const size = unsafe.Sizeof(entry{})
	off := p - x.bases[i]
	if off%size != 0 || off/size >= uintptr(len(x.blocks[i])) {
		return 0, false
	}
	return x.first[i] + int(off/size), true
}

// parentOf splits "/a/b" into "/a" and "b"; "/a" into "/" and "a".
func parentOf(p string) (string, string) {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/", p[i+1:]
	}
	return p[:i], p[i+1:]
}

// validPath reports whether p is an absolute, normalised znode path.
func validPath(p string) bool {
	if p == "/" {
		return true
	}
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	return !strings.Contains(p, "//")
}

// create applies a create txn as DataTree.createNode does, including the
// fuzzy-snapshot rule for an existing node (only the parent's cversion and
// pzxid move). A create under a missing parent does nothing.
func (t *DataTree) create(path string, data []byte, acl []ACL, owner int64, parentCVersion int32, zxid, time int64) {
	if !validPath(path) || path == "/" {
		return
	}
	pp, name := parentOf(path)
	pn := t.Nodes[pp]
	if pn == nil {
		return
	}
	parent := entryOf(pn)
	if parentCVersion == -1 {
		parentCVersion = parent.Stat.Cversion + 1
	}
	if parentCVersion > parent.Stat.Cversion {
		parent.Stat.Cversion = parentCVersion
		parent.Stat.Pzxid = zxid
	}
	if t.Nodes[path] != nil {
		return
	}
	e := t.newEntry()
	e.Data, e.ACL = data, acl
	e.Stat = Stat{
		Czxid: zxid, Mzxid: zxid, Pzxid: zxid,
		Ctime: time, Mtime: time,
		EphemeralOwner: owner,
	}
	t.insert(path, e, parent, name)
	t.Origins[path] = t.origin
	t.changes(path, OpCreate)
}

// changes notes that the transaction being applied changed path, when a
// replay is followed (DirOptions.Step).
func (t *DataTree) changes(path string, op int32) {
	if t.step != nil {
		t.changed = append(t.changed, Changed{Path: path, Op: op})
	}
}

// remove applies a delete as DataTree.deleteNode does: the parent's pzxid
// moves up even when the child is already gone; cversion does not change.
func (t *DataTree) remove(path string, zxid int64) {
	if !validPath(path) || path == "/" {
		return
	}
	pp, _ := parentOf(path)
	pn := t.Nodes[pp]
	if pn == nil {
		return
	}
	if zxid > pn.Stat.Pzxid {
		pn.Stat.Pzxid = zxid
	}
	n := t.Nodes[path]
	if n == nil {
		return
	}
	e := entryOf(n)
	if e.kids > 0 {
		// A well-formed log never deletes a node with children; drop the
		// whole subtree anyway so the map never holds orphans. Children
		// are not listed while the tree is built, hence the scan.
		var kids []string
		for p, c := range t.Nodes {
			if entryOf(c).parent == e {
				kids = append(kids, p)
			}
		}
		sort.Strings(kids)
		for _, k := range kids {
			t.remove(k, zxid)
		}
	}
	if e.parent != nil {
		e.parent.kids--
	}
	e.deleted = true
	e.Data, e.ACL = nil, nil
	delete(t.Nodes, path)
	delete(t.Origins, path)
	op := OpDelete
	if t.op == OpCloseSession {
		op = OpCloseSession
	}
	t.changes(path, op)
}

func (t *DataTree) setData(path string, data []byte, version int32, zxid, time int64) {
	n := t.Nodes[path]
	if n == nil {
		return
	}
	n.Data = data
	t.Origins[path] = t.origin
	n.Stat.Version = version
	n.Stat.Mzxid = zxid
	n.Stat.Mtime = time
	t.changes(path, OpSetData)
}

func (t *DataTree) setACL(path string, acl []ACL, version int32) {
	n := t.Nodes[path]
	if n == nil {
		return
	}
	n.ACL = acl
	n.Stat.Aversion = version
}

// killSession deletes the session's ephemerals: the listed paths when the
// txn carries a list, every node it owns otherwise.
func (t *DataTree) killSession(session int64, paths []string, hasList bool, zxid int64) {
	delete(t.Sessions, session)
	if hasList {
		for _, p := range paths {
			if n := t.Nodes[p]; n != nil && n.Stat.EphemeralOwner == session {
				t.remove(p, zxid)
			}
		}
		return
	}
	var owned []string
	for p, n := range t.Nodes {
		if n.Stat.EphemeralOwner == session {
			owned = append(owned, p)
		}
	}
	sort.Strings(owned)
	for _, p := range owned {
		t.remove(p, zxid)
	}
}
