package zkfile

import (
	"sort"
	"strings"
)

// StatPersisted is the stat ZooKeeper stores per node. Cversion is the stored
// count of child creations, not the client-visible value (see ClientCversion).
type StatPersisted struct {
	Czxid          int64
	Mzxid          int64
	Ctime          int64
	Mtime          int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
	Pzxid          int64
}

// Node is one znode of a DataTree.
type Node struct {
	Data []byte
	ACL  []ACL
	Stat StatPersisted
	// Children is nil until the node has a child: most znodes of a big
	// cluster are leaves, and an empty map per node costs an allocation.
	Children map[string]struct{}
	// Origin is where the node's data was read: its record in the
	// snapshot, or the log entry that created it or last set its data.
	Origin Origin
}

// Origin is a file and the byte offset of a record in it.
type Origin struct {
	File   string
	Offset int64
}

// ClientCversion is the cversion a client sees: ZooKeeper stores the number
// of child creations and reports creations+deletions, which is
// 2*stored - current children (DataNode.copyStat).
func (n *Node) ClientCversion() int32 {
	return n.Stat.Cversion*2 - int32(len(n.Children))
}

func (n *Node) addChild(name string) {
	if n.Children == nil {
		n.Children = map[string]struct{}{}
	}
	n.Children[name] = struct{}{}
}

// SortedChildren returns the child names in byte order.
func (n *Node) SortedChildren() []string {
	out := make([]string, 0, len(n.Children))
	for k := range n.Children {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DataTree is ZooKeeper's in-memory tree: absolute path -> node, the root
// keyed "/".
type DataTree struct {
	Nodes map[string]*Node
	// Sessions maps session id -> timeout (ms) as of the snapshot plus
	// replayed createSession/closeSession txns.
	Sessions map[int64]int32
	// LastZxid is the highest zxid applied (snapshot name or last txn).
	LastZxid int64
	// SnapshotZxid is the zxid in the snapshot's file name.
	SnapshotZxid int64
	// Applied counts the transactions replayed after the snapshot.
	Applied int

	// origin is the log entry being applied.
	origin Origin
}

func newDataTree() *DataTree {
	return &DataTree{Nodes: map[string]*Node{}, Sessions: map[int64]int32{}}
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
	parent := t.Nodes[pp]
	if parent == nil {
		return
	}
	if parentCVersion == -1 {
		parentCVersion = parent.Stat.Cversion + 1
	}
	if parentCVersion > parent.Stat.Cversion {
		parent.Stat.Cversion = parentCVersion
		parent.Stat.Pzxid = zxid
	}
	if _, ok := parent.Children[name]; ok {
		return
	}
	parent.addChild(name)
	t.Nodes[path] = &Node{
		Data: data,
		ACL:  acl,
		Stat: StatPersisted{
			Czxid: zxid, Mzxid: zxid, Pzxid: zxid,
			Ctime: time, Mtime: time,
			EphemeralOwner: owner,
		},
		Origin: t.origin,
	}
}

// remove applies a delete as DataTree.deleteNode does: the parent's pzxid
// moves up even when the child is already gone; cversion does not change.
func (t *DataTree) remove(path string, zxid int64) {
	if !validPath(path) || path == "/" {
		return
	}
	pp, name := parentOf(path)
	parent := t.Nodes[pp]
	if parent == nil {
		return
	}
	delete(parent.Children, name)
	if zxid > parent.Stat.Pzxid {
		parent.Stat.Pzxid = zxid
	}
	if n := t.Nodes[path]; n != nil {
		// A well-formed log never deletes a node with children; drop the
		// whole subtree anyway so the map never holds orphans.
		for c := range n.Children {
			t.remove(path+"/"+c, zxid)
		}
		delete(t.Nodes, path)
	}
}

func (t *DataTree) setData(path string, data []byte, version int32, zxid, time int64) {
	n := t.Nodes[path]
	if n == nil {
		return
	}
	n.Data = data
	n.Origin = t.origin
	n.Stat.Version = version
	n.Stat.Mzxid = zxid
	n.Stat.Mtime = time
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
