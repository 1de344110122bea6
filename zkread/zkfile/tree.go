package zkfile

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
// null, which ZooKeeper distinguishes from empty data. A DataTree hands
// out Nodes made on request (DataTree.Node): they share the tree's data
// bytes, which no one may change, and changing a Node changes nothing in
// the tree.
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

// Ref names a node of a DataTree: a number from 0 to Cap()-1, stable for
// the tree's life. NoRef names none.
type Ref int32

// NoRef is the Ref of no node.
const NoRef Ref = -1

// DataTree is ZooKeeper's in-memory tree. Once returned by
// ReadSnapshotFile or ReadDir its nodes hold what a client would read:
// sorted children, client cversion, dataLength and numChildren.
//
// Nodes are kept in blocks of a compact record each (no map keyed by
// path, no per-node heap object): the name, the data, the stat, the
// parent, the children as a run of a shared array sorted by name, the
// ACL as a number in a table, and where the data was read. A path is
// found by walking its components from the root; paths are made only
// when asked for. A million-partition cluster's two million znodes take
// a third of what a map of nodes by path did, and no rehashing.
type DataTree struct {
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

	blocks [][]cnode
	n      Ref // nodes made
	capN   Ref // nodes the blocks hold
	live   int // nodes in the tree
	root   Ref
	// kids lists every node's children (cnode.kids, cnode.nkids), each
	// run sorted by name: built after the snapshot (replay looks paths
	// up in it) and again by finish.
	kids []Ref
	// created holds the nodes a replay made, by path, until finish: the
	// runs of kids are the snapshot's.
	created map[string]Ref
	// byPath is made only when a snapshot lists a node whose parent is
	// not among its ancestors just read (ZooKeeper writes depth first;
	// other writers may not): every node read so far, by path.
	byPath map[string]Ref
	// acls is the ACL table cnode.acl numbers; files the origin files.
	acls  [][]ACL
	files []string
	// chunks hold the names and data the nodes refer to (bref): arenas
	// of 1 MiB that snapshot names and data are read into (a few large
	// allocations instead of millions of small ones), a value of more
	// than 128 KiB, or a transaction's data, each in a chunk of its own.
	chunks [][]byte
	arena  uint32 // the chunk being filled
	free   []byte // what it has left
	// owners holds the nodes' ephemeral owners, where not 0; given a
	// builder's DataLength and NumChildren by node; lens the DataLength
	// read of a node whose data SetData replaced after finish (see stat).
	owners map[Ref]int64
	given  [][2]int32
	lens   map[Ref]int32
	// bigOrg holds the origins cnode.org cannot.
	bigOrg map[Ref]bigOrigin
	// kidsOK: kids is up to date (no node was added or removed since).
	kidsOK   bool
	finished bool
	// aheadOK: the snapshot's read may make blocks and arenas ahead
	// (treeAhead), which it does once the tree is big; ahead is that
	// goroutine, until stopAhead.
	aheadOK bool
	ahead   *treeAhead
}

// makeAhead lets a snapshot's read make its blocks ahead (tests compare
// the trees read with and without).
var makeAhead = true

// arenaBytes is the size of the arenas snapshot names and data are read
// into.
const arenaBytes = 1 << 20

// stopAhead ends the making of blocks ahead, if it started.
func (t *DataTree) stopAhead() {
	t.aheadOK = false
	if t.ahead != nil {
		t.ahead.close()
		t.ahead = nil
	}
}

// cnode is a node: its Stat without what is derived or rare (see stat),
// and where it was read packed in one word (see org), 104 bytes, which at millions of nodes is most of what a read keeps.
// Until finish, cversion is ZooKeeper's stored count of child creations;
// finish makes it the client's. It holds no pointer, so the garbage
// collector never scans the blocks: a tree of millions of nodes costs it
// nothing after it is built.
type cnode struct {
	data, name                        bref
	czxid, mzxid, pzxid, ctime, mtime int64
	// org is where the data was read: file (in t.files, +2: fileGone
	// and -1 fit) above orgOffBits bits of offset; orgBig when either
	// does not fit, the origin then in t.bigOrg.
	org                         uint64
	version, cversion, aversion int32
	// parent is NoRef for the root; kids and nkids the run of t.kids
	// holding the children (the snapshot's until finish); nlive counts
	// the children in the tree.
	parent      Ref
	kids, nkids int32
	nlive       int32
	acl         int32 // in t.acls, -1 none
}

// A node's origin file: -1 none, fileGone the node was deleted.
const (
	orgOffBits = 40
	orgBig     = ^uint64(0)
)

// nodeOrigin returns node r's file (-1: none, fileGone: deleted) and the
// offset of its record there.
func (t *DataTree) nodeOrigin(r Ref, c *cnode) (file int32, off int64) {
	if c.org == orgBig {
		o := t.bigOrg[r]
		return o.file, o.off
	}
	return int32(c.org>>orgOffBits) - 2, int64(c.org & (1<<orgOffBits - 1))
}

// setOrigin records node r's file and offset; a deleted node's
// (fileGone) keeps no offset.
func (t *DataTree) setOrigin(r Ref, c *cnode, file int32, off int64) {
	if file == fileGone {
		off = 0
	}
	if off >= 0 && off < 1<<orgOffBits && file >= -2 && int64(file)+2 < 1<<(64-orgOffBits)-1 {
		c.org = uint64(file+2)<<orgOffBits | uint64(off)
		delete(t.bigOrg, r)
		return
	}
	if t.bigOrg == nil {
		t.bigOrg = map[Ref]bigOrigin{}
	}
	c.org = orgBig
	t.bigOrg[r] = bigOrigin{file, off}
}

// bigOrigin is a node's origin that does not fit in cnode.org: a file
// past a terabyte (or past 16 million files).
type bigOrigin struct {
	file int32
	off  int64
}

// off is the offset of node r's record (see origin).
func (t *DataTree) off(r Ref) int64 {
	_, off := t.nodeOrigin(r, t.at(r))
	return off
}

// setStat keeps st in c (its EphemeralOwner, DataLength and NumChildren
// are the tree's: see stat).
func (c *cnode) setStat(st Stat) {
	c.czxid, c.mzxid, c.pzxid, c.ctime, c.mtime = st.Czxid, st.Mzxid, st.Pzxid, st.Ctime, st.Mtime
	c.version, c.cversion, c.aversion = st.Version, st.Cversion, st.Aversion
}

// stat is node r's Stat. EphemeralOwner is kept aside (t.owners: most
// znodes have none); DataLength and NumChildren are what the node holds
// once the tree is finished (0 before, as the snapshot's StatPersisted
// has neither), unless a builder was given them (t.given) or the data
// was replaced after finish (t.lens: the stat read stays).
func (t *DataTree) stat(r Ref, c *cnode) Stat {
	st := Stat{Czxid: c.czxid, Mzxid: c.mzxid, Pzxid: c.pzxid, Ctime: c.ctime, Mtime: c.mtime,
		Version: c.version, Cversion: c.cversion, Aversion: c.aversion, EphemeralOwner: t.owners[r]}
	switch {
	case t.given != nil:
		st.DataLength, st.NumChildren = t.given[r][0], t.given[r][1]
	case t.finished:
		st.DataLength, st.NumChildren = max(c.data.n, 0), c.nkids
		if l, ok := t.lens[r]; ok {
			st.DataLength = l
		}
	}
	return st
}

// setOwner keeps r's ephemeral owner (0: none).
func (t *DataTree) setOwner(r Ref, owner int64) {
	if owner != 0 {
		if t.owners == nil {
			t.owners = map[Ref]int64{}
		}
		t.owners[r] = owner
	} else if t.owners != nil {
		delete(t.owners, r)
	}
}

const fileGone = -2

// bref is bytes held by the tree: n bytes at off in chunk (n -1: null).
type bref struct {
	chunk, off uint32
	n          int32
}

var nullRef = bref{n: -1}

func (c *cnode) gone() bool { return c.org>>orgOffBits == 0 } // file fileGone

// Blocks of nodes grow from 64 to 4096: a small tree (a fuzz input)
// stays small, a big one is a few hundred allocations, and no block is
// ever copied.
const (
	minBlockBits = 6
	maxBlockBits = 12
	// smallNodes are the nodes of the growing blocks (64 + 128 + ... +
	// 2048).
	smallNodes = 1<<maxBlockBits - 1<<minBlockBits
)

// newDataTree returns an empty tree.
func newDataTree() *DataTree {
	return &DataTree{Sessions: map[int64]int32{}, root: NoRef}
}

// at returns node r's record.
func (t *DataTree) at(r Ref) *cnode {
	i := int(r)
	if i < smallNodes {
		k := bits.Len(uint(i+1<<minBlockBits)) - 1 - minBlockBits
		return &t.blocks[k][i+1<<minBlockBits-1<<(k+minBlockBits)]
	}
	i -= smallNodes
	return &t.blocks[maxBlockBits-minBlockBits+i>>maxBlockBits][i&(1<<maxBlockBits-1)]
}

// newNode makes a zeroed node.
func (t *DataTree) newNode() (Ref, *cnode) {
	r := t.n
	if int(r) == 1<<31-1 {
		panic("zkfile: more than 2^31 znodes") // unreachable: jute.maxbuffer and memory bound a tree long before
	}
	if r == t.capN {
		var b []cnode
		switch size := 1 << min(minBlockBits+len(t.blocks), maxBlockBits); {
		case size < 1<<maxBlockBits || !t.aheadOK:
			b = make([]cnode, size)
		default:
			// A tree this big is a big snapshot: its next blocks and
			// arenas are made on another goroutine from now on.
			if t.ahead == nil {
				t.ahead = startTreeAhead()
			}
			b = t.ahead.block()
		}
		t.blocks = append(t.blocks, b)
		t.capN += Ref(len(b))
	}
	t.n++
	c := t.at(r)
	c.parent, c.acl, c.org = NoRef, -1, 1<<orgOffBits // file -1, offset 0
	return r, c
}

// alloc returns n bytes held by the tree, to be filled by the caller
// before anyone reads them, and their bref.
func (t *DataTree) alloc(n int) ([]byte, bref) {
	const arena = arenaBytes
	if n > arena/8 {
		b := make([]byte, n)
		return b, t.hold(b)
	}
	if len(t.free) < n {
		var chunk []byte
		if t.ahead != nil {
			chunk = t.ahead.arena()
		} else {
			chunk = make([]byte, arena)
		}
		t.chunks = append(t.chunks, chunk)
		t.arena = uint32(len(t.chunks) - 1)
		t.free = t.chunks[t.arena]
	}
	off := arena - len(t.free)
	b := t.free[:n:n]
	t.free = t.free[n:]
	return b, bref{chunk: t.arena, off: uint32(off), n: int32(n)}
}

// hold keeps b (nil: null) as it is, in a chunk of its own.
func (t *DataTree) hold(b []byte) bref {
	if b == nil {
		return nullRef
	}
	if len(b) == 0 {
		return bref{}
	}
	t.chunks = append(t.chunks, b)
	return bref{chunk: uint32(len(t.chunks) - 1), n: int32(len(b))}
}

// bytes returns what b refers to (nil for null, empty for empty); its
// capacity is its length, so an append never runs into a neighbour.
func (t *DataTree) bytes(b bref) []byte {
	switch {
	case b.n < 0:
		return nil
	case b.n == 0:
		return []byte{}
	}
	end := b.off + uint32(b.n)
	return t.chunks[b.chunk][b.off:end:end]
}

// str returns what b refers to as a string sharing the tree's bytes,
// which are never written again.
func (t *DataTree) str(b bref) string {
	if b.n <= 0 {
		return ""
	}
	return unsafe.String(&t.chunks[b.chunk][b.off], int(b.n))
}

// keep copies s into the tree.
func (t *DataTree) keep(s []byte) bref {
	if len(s) == 0 {
		return bref{}
	}
	b, r := t.alloc(len(s))
	copy(b, s)
	return r
}

// fileIndex numbers an origin file.
func (t *DataTree) fileIndex(f string) int32 {
	if n := len(t.files); n > 0 && t.files[n-1] == f {
		return int32(n - 1)
	}
	for i, g := range t.files {
		if g == f {
			return int32(i)
		}
	}
	t.files = append(t.files, f)
	return int32(len(t.files) - 1)
}

// aclIndex numbers an ACL list (a txn's; the snapshot's cache is
// numbered once).
func (t *DataTree) aclIndex(acl []ACL) int32 {
	if acl == nil {
		return -1
	}
	t.acls = append(t.acls, acl)
	return int32(len(t.acls) - 1)
}

// attach makes c (node r) a child of parent p.
func (t *DataTree) attach(r Ref, c *cnode, p Ref) {
	c.parent = p
	t.kidsOK = false
	if p != NoRef {
		t.at(p).nlive++
	}
	t.live++
}

// parallelSortNodes is the tree size from which sortKids sorts on every
// core; tests lower it.
var parallelSortNodes = Ref(1 << 16)

// sortKids sorts every node's run of children by name (stably: equal
// names keep their order) and returns the first duplicate, as buildKids
// says. ZooKeeper lists children in hash order, so at a million
// partitions this is most of the layout's time: the runs are independent,
// so a large tree sorts them on every core, each worker taking blocks of
// parents in turn, and the duplicates of the blocks are taken in block
// order (what one pass over the parents finds). A run's names are
// gathered once, so a comparison reads no node.
func (t *DataTree) sortKids() Ref {
	const block = 4096
	nblocks := int((t.n + block - 1) / block)
	workers := min(runtime.GOMAXPROCS(0), nblocks)
	if t.n < parallelSortNodes {
		workers = 1
	}
	dups := make([]Ref, nblocks)
	var next atomic.Int64
	work := func() {
		var names []kidName
		for {
			b := int(next.Add(1) - 1)
			if b >= nblocks {
				return
			}
			lo := Ref(b) * block
			dups[b] = t.sortRuns(lo, min(lo+block, t.n), &names)
		}
	}
	if workers <= 1 {
		work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(work)
		}
		wg.Wait()
	}
	dup := NoRef
	for _, d := range dups {
		if d != NoRef && (dup == NoRef || t.off(d) < t.off(dup)) {
			dup = d
		}
	}
	return dup
}

// kidName is a child and its name, for sorting a run.
type kidName struct {
	name string
	ref  Ref
}

func byName(a, b kidName) int { return strings.Compare(a.name, b.name) }

// sortRuns sorts the runs of parents [lo, hi) and returns their first
// duplicate (NoRef: none); names is scratch.
func (t *DataTree) sortRuns(lo, hi Ref, names *[]kidName) Ref {
	dup := NoRef
	for r := lo; r < hi; r++ {
		c := t.at(r)
		if c.nkids < 2 {
			continue
		}
		run := t.kids[c.kids : c.kids+c.nkids]
		s := (*names)[:0]
		for _, k := range run {
			s = append(s, kidName{t.str(t.at(k).name), k})
		}
		*names = s
		if !slices.IsSortedFunc(s, byName) {
			slices.SortStableFunc(s, byName)
			for i := range s {
				run[i] = s[i].ref
			}
		}
		for i := 1; i < len(s); i++ {
			if s[i-1].name != s[i].name {
				continue
			}
			later := s[i].ref
			if t.off(s[i-1].ref) > t.off(s[i].ref) {
				later = s[i-1].ref
			}
			if dup == NoRef || t.off(later) < t.off(dup) {
				dup = later
			}
		}
	}
	return dup
}

// Applying is where the transaction being applied was read (its log
// file and the offset of its entry), for DirOptions.Step.
func (t *DataTree) Applying() Origin { return t.origin }

// buildKids lays out every node's children in t.kids, sorted by name,
// and returns the first duplicate: two children of one parent with the
// same name (the later of the two in file order, the earliest such).
func (t *DataTree) buildKids() (dup Ref) {
	if t.kidsOK {
		return NoRef
	}
	t.kidsOK = true
	// One pass lays the runs out: a parent is always made before its
	// children (a lower Ref), so its run starts before they are placed,
	// and nlive is how long it is.
	total := 0
	for r := Ref(0); r < t.n; r++ {
		if c := t.at(r); !c.gone() {
			total += int(c.nlive)
		}
	}
	if cap(t.kids) >= total {
		t.kids = t.kids[:total]
	} else {
		t.kids = make([]Ref, total)
	}
	next := int32(0)
	for r := Ref(0); r < t.n; r++ {
		c := t.at(r)
		c.kids, c.nkids = next, 0
		if c.gone() {
			continue
		}
		next += c.nlive
		if c.parent != NoRef {
			p := t.at(c.parent)
			t.kids[p.kids+p.nkids] = r
			p.nkids++
		}
	}
	return t.sortKids()
}

// child returns p's child named name, NoRef when it has none: a binary
// search of p's run of kids (the snapshot's before finish, the tree's
// after).
func (t *DataTree) child(p Ref, name string) Ref {
	c := t.at(p)
	run := t.kids[c.kids : c.kids+c.nkids]
	lo, hi := 0, len(run)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.str(t.at(run[m]).name) < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(run) {
		if k := t.at(run[lo]); t.str(k.name) == name && !k.gone() {
			return run[lo]
		}
	}
	return NoRef
}

// Lookup returns the node at path, NoRef when there is none.
func (t *DataTree) Lookup(path string) Ref {
	if t.created != nil {
		if r, ok := t.created[path]; ok {
			return r
		}
	}
	if t.byPath != nil {
		return t.byPathRef(path)
	}
	return t.walk(t.root, path)
}

// Under returns the node at rel ("/" or "/a/b") below from, whose path is
// fromPath: Lookup(fromPath+rel) without making that path once the tree
// is finished.
func (t *DataTree) Under(from Ref, fromPath, rel string) Ref {
	if t.created != nil || t.byPath != nil {
		if rel == "/" {
			return t.Lookup(fromPath)
		}
		if fromPath == "/" {
			return t.Lookup(rel)
		}
		return t.Lookup(fromPath + rel)
	}
	return t.walk(from, rel)
}

// walk finds rel ("/" or "/a/b") below from among the laid out children.
func (t *DataTree) walk(from Ref, rel string) Ref {
	if from == NoRef || len(rel) == 0 || rel[0] != '/' || t.at(from).gone() {
		return NoRef
	}
	r := from
	for rest := rel[1:]; rest != ""; {
		name := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			name, rest = rest[:i], rest[i+1:]
			if rest == "" {
				return NoRef // a trailing slash
			}
		} else {
			rest = ""
		}
		if r = t.child(r, name); r == NoRef {
			return NoRef
		}
	}
	return r
}

// readLookup finds a parent off the stack while a snapshot is read: the
// first time, every node read so far goes into byPath, and each one read
// after joins it.
func (t *DataTree) readLookup(path string) Ref {
	if t.byPath == nil {
		t.byPath = make(map[string]Ref, t.live)
		t.Range(nil, func(p string, r Ref) bool {
			t.byPath[p] = r
			return true
		})
	}
	return t.byPathRef(path)
}

func (t *DataTree) byPathRef(path string) Ref {
	if r, ok := t.byPath[path]; ok && !t.at(r).gone() {
		return r
	}
	return NoRef
}

// Child returns the child of p named name (NoRef: none). The tree must
// be finished.
func (t *DataTree) Child(p Ref, name string) Ref {
	if p == NoRef {
		return NoRef
	}
	return t.child(p, name)
}

// Finished says whether the tree is complete (children laid out, stats
// as a client reads them), not a replay still being applied.
func (t *DataTree) Finished() bool { return t.finished }

// Root is the root node.
func (t *DataTree) Root() Ref { return t.root }

// Len is the number of nodes in the tree.
func (t *DataTree) Len() int { return t.live }

// Cap is one more than the highest Ref the tree has made: a bitset of
// Cap bits holds a mark per node.
func (t *DataTree) Cap() int { return int(t.n) }

// Data returns r's data (nil: null). The bytes are the tree's: never
// change them.
func (t *DataTree) Data(r Ref) []byte { return t.bytes(t.at(r).data) }

// Stat returns r's stat.
func (t *DataTree) Stat(r Ref) Stat { return t.stat(r, t.at(r)) }

// Name returns r's name ("" for the root).
func (t *DataTree) Name(r Ref) string { return t.str(t.at(r).name) }

// Parent returns r's parent (NoRef for the root).
func (t *DataTree) Parent(r Ref) Ref { return t.at(r).parent }

// Kids returns r's children in name order, the tree's own slice: never
// change it. The tree must be finished.
func (t *DataTree) Kids(r Ref) []Ref {
	c := t.at(r)
	return t.kids[c.kids : c.kids+c.nkids : c.kids+c.nkids]
}

// ACL returns r's ACL list (nil when none was read).
func (t *DataTree) ACL(r Ref) []ACL {
	if i := t.at(r).acl; i >= 0 {
		return t.acls[i]
	}
	return nil
}

// Node returns r as a client sees it, made for the caller: its Data is
// the tree's (never change it; a copy to keep it past the tree), its
// Children names copies. Before the tree is finished (DirOptions.Step)
// its Children are not known and left empty.
func (t *DataTree) Node(r Ref) *Node {
	if r == NoRef {
		return nil
	}
	c := t.at(r)
	n := &Node{Data: t.bytes(c.data), Stat: t.stat(r, c), ACL: t.ACL(r), Children: []string{}}
	if t.finished && c.nkids > 0 {
		n.Children = make([]string, c.nkids)
		for i, k := range t.kids[c.kids : c.kids+c.nkids] {
			// A copy: a name kept (a topic's, in an image) must not
			// keep the tree's arena alive.
			n.Children[i] = strings.Clone(t.Name(k))
		}
	}
	return n
}

// Get returns the node at path as Node does; nil when there is none.
func (t *DataTree) Get(path string) *Node { return t.Node(t.Lookup(path)) }

// Path returns r's absolute path.
func (t *DataTree) Path(r Ref) string {
	if r == t.root {
		return "/"
	}
	var names []string
	n := 0
	for ; r != NoRef && r != t.root; r = t.at(r).parent {
		names = append(names, t.Name(r))
		n += 1 + len(names[len(names)-1])
	}
	b := make([]byte, 0, n)
	for i := len(names) - 1; i >= 0; i-- {
		b = append(b, '/')
		b = append(b, names[i]...)
	}
	return string(b)
}

// Origin returns where r's data was read: its record in the snapshot,
// or the log entry that created it or last set its data.
func (t *DataTree) Origin(r Ref) (Origin, bool) {
	file, off := t.nodeOrigin(r, t.at(r))
	if file < 0 {
		return Origin{}, false
	}
	return Origin{File: t.files[file], Offset: off}, true
}

// Walk calls fn with every node of the tree under from (from itself
// first) and its path, parents before their children, children in name
// order, until fn returns false. prefix is from's path. The tree must be
// finished, or a snapshot's before any transaction is replayed.
func (t *DataTree) Walk(from Ref, prefix string, fn func(path string, r Ref) bool) {
	if from == NoRef {
		return
	}
	buf := []byte(prefix)
	var walk func(r Ref, l int) bool
	walk = func(r Ref, l int) bool {
		if !fn(string(buf[:l]), r) {
			return false
		}
		c := t.at(r)
		for _, k := range t.kids[c.kids : c.kids+c.nkids] {
			if t.at(k).gone() {
				continue
			}
			buf = buf[:l]
			if l != 1 || buf[0] != '/' {
				buf = append(buf, '/')
			}
			buf = append(buf, t.Name(k)...)
			if !walk(k, len(buf)) {
				return false
			}
		}
		return true
	}
	walk(from, len(buf))
}

// Range calls fn with every node in the tree (in no set order) until fn
// returns false. Paths are made only for the nodes want says yes to (nil:
// every node); the others get "". It works on an unfinished tree too.
func (t *DataTree) Range(want func(r Ref) bool, fn func(path string, r Ref) bool) {
	for r := Ref(0); r < t.n; r++ {
		c := t.at(r)
		if c.gone() || (c.parent == NoRef && r != t.root) {
			continue
		}
		p := ""
		if want == nil || want(r) {
			p = t.Path(r)
		}
		if !fn(p, r) {
			return
		}
	}
}

// SetData replaces r's data (a caller's redaction, say); the tree keeps
// data, so no one else may change it afterwards.
//
// A redaction hands most nodes' data back as it was (MapData): those stay
// as they are, and only a length that changes is kept aside (t.lens).
func (t *DataTree) SetData(r Ref, data []byte) {
	c := t.at(r)
	if old := t.bytes(c.data); len(old) == len(data) && (old == nil) == (data == nil) &&
		(len(data) == 0 || &old[0] == &data[0]) {
		return
	}
	if t.finished && t.given == nil && max(c.data.n, 0) != int32(len(data)) {
		if _, ok := t.lens[r]; !ok {
			if t.lens == nil {
				t.lens = map[Ref]int32{}
			}
			t.lens[r] = max(c.data.n, 0)
		}
	}
	c.data = t.hold(data)
}

// finish turns the built nodes into what a client reads: children lists
// (sorted, one array for all), client cversion, dataLength,
// numChildren.
func (t *DataTree) finish() {
	t.buildKids()
	for r := Ref(0); r < t.n; r++ {
		c := t.at(r)
		c.cversion = c.cversion*2 - c.nkids
	}
	t.created, t.byPath = nil, nil
	t.finished = true
}

// startReplay readies a snapshot's tree for transactions: its children
// laid out to look paths up in, created for what the replay makes.
func (t *DataTree) startReplay() {
	t.buildKids()
	t.byPath = nil
	t.created = map[string]Ref{}
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
	pr := t.Lookup(pp)
	if pr == NoRef {
		return
	}
	parent := t.at(pr)
	if parentCVersion == -1 {
		parentCVersion = parent.cversion + 1
	}
	if parentCVersion > parent.cversion {
		parent.cversion = parentCVersion
		parent.pzxid = zxid
	}
	if t.Lookup(path) != NoRef {
		return
	}
	r, c := t.newNode()
	c.data, c.acl, c.name = t.hold(data), t.aclIndex(acl), t.keep([]byte(name))
	c.czxid, c.mzxid, c.pzxid, c.ctime, c.mtime = zxid, zxid, zxid, time, time
	t.setOwner(r, owner)
	t.attach(r, c, pr)
	t.setOrigin(r, c, t.fileIndex(t.origin.File), t.origin.Offset)
	t.created[path] = r
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
	pr := t.Lookup(pp)
	if pr == NoRef {
		return
	}
	if pn := t.at(pr); zxid > pn.pzxid {
		pn.pzxid = zxid
	}
	r := t.Lookup(path)
	if r == NoRef {
		return
	}
	c := t.at(r)
	if c.nlive > 0 {
		// A well-formed log never deletes a node with children; drop the
		// whole subtree anyway so the tree never holds orphans.
		var kids []string
		for _, k := range t.kids[c.kids : c.kids+c.nkids] {
			if !t.at(k).gone() {
				kids = append(kids, path+"/"+t.Name(k))
			}
		}
		for p, k := range t.created {
			if t.at(k).parent == r && !t.at(k).gone() {
				kids = append(kids, p)
			}
		}
		sort.Strings(kids)
		for _, k := range kids {
			t.remove(k, zxid)
		}
	}
	if c.parent != NoRef {
		t.at(c.parent).nlive--
	}
	t.live--
	t.kidsOK = false
	t.setOrigin(r, c, fileGone, 0)
	c.data, c.acl = nullRef, -1
	delete(t.created, path)
	op := OpDelete
	if t.op == OpCloseSession {
		op = OpCloseSession
	}
	t.changes(path, op)
}

func (t *DataTree) setData(path string, data []byte, version int32, zxid, time int64) {
	r := t.Lookup(path)
	if r == NoRef {
		return
	}
	c := t.at(r)
	c.data = t.hold(data)
	t.setOrigin(r, c, t.fileIndex(t.origin.File), t.origin.Offset)
	c.version, c.mzxid, c.mtime = version, zxid, time
	t.changes(path, OpSetData)
}

func (t *DataTree) setACL(path string, acl []ACL, version int32) {
	r := t.Lookup(path)
	if r == NoRef {
		return
	}
	c := t.at(r)
	c.acl = t.aclIndex(acl)
	c.aversion = version
}

// killSession deletes the session's ephemerals: the listed paths when the
// txn carries a list, every node it owns otherwise.
func (t *DataTree) killSession(session int64, paths []string, hasList bool, zxid int64) {
	delete(t.Sessions, session)
	if hasList {
		for _, p := range paths {
			if r := t.Lookup(p); r != NoRef && t.owners[r] == session {
				t.remove(p, zxid)
			}
		}
		return
	}
	var owned []string
	t.Range(func(r Ref) bool { return t.owners[r] == session }, func(p string, r Ref) bool {
		if t.owners[r] == session {
			owned = append(owned, p)
		}
		return true
	})
	sort.Strings(owned)
	for _, p := range owned {
		t.remove(p, zxid)
	}
}

// errDuplicate is the error of a node recorded twice.
func errDuplicate(name string, off int64, path string) error {
	return &FileError{File: name, Offset: off, Msg: "node " + path, Err: fmt.Errorf("%w: duplicate node", ErrCorrupt)}
}

// Builder makes a DataTree node by node, each parent before its children
// (a live read's tree, level by level), with the stats as a client reads
// them: they are kept as given.
type Builder struct{ t *DataTree }

// NewBuilder starts an empty tree.
func NewBuilder() *Builder { return &Builder{t: newDataTree()} }

// Add adds a node: the root when parent is NoRef (first, and once), else
// the child name of parent. data nil is null; the tree keeps a copy.
func (b *Builder) Add(parent Ref, name string, data []byte, st Stat, acl []ACL) Ref {
	t := b.t
	r, c := t.newNode()
	if data == nil {
		c.data = nullRef
	} else {
		c.data = t.keep(data)
	}
	c.name, c.acl = t.keep([]byte(name)), t.aclIndex(acl)
	c.setStat(st)
	t.setOwner(r, st.EphemeralOwner)
	t.given = append(t.given, [2]int32{st.DataLength, st.NumChildren})
	t.attach(r, c, parent)
	if parent == NoRef {
		t.root = r
	}
	return r
}

// Finish lays the children out and returns the tree.
func (b *Builder) Finish() *DataTree {
	b.t.buildKids()
	b.t.finished = true
	return b.t
}
