package zkfile

import (
	"errors"
	"strings"
	"testing"
)

// snapshotOf builds a snapshot holding the given node records, in order,
// without data ("" is the root record).
func snapshotOf(paths ...string) []byte {
	w := newSnapWriter()
	for _, p := range paths {
		w.node(p, nil, 1)
	}
	return w.seal()
}

// TestDuplicateNode: a node recorded twice is corruption, also when a
// second root record came in between (the duplicate check looks in the
// parent's children, which a replaced root no longer lists).
func TestDuplicateNode(t *testing.T) {
	for name, paths := range map[string][]string{
		"plain":              {"", "/a", "/a"},
		"child":              {"", "/a", "/a/b", "/a/b"},
		"after another root": {"", "/a", "", "/a"},
	} {
		_, err := DecodeSnapshot("x", snapshotOf(paths...))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "duplicate node") {
			t.Errorf("%s: %v, want a duplicate node", name, err)
		}
	}
	if _, err := DecodeSnapshot("x", snapshotOf("", "/a", "/a/b", "/c")); err != nil {
		t.Errorf("no duplicate: %v", err)
	}
}

// TestNodesNotDepthFirst: ZooKeeper writes a snapshot depth first, and
// the decoder finds parents on the stack of ancestors; any order with
// parents before children is as valid (the format only needs that), and
// gives the same tree, children sorted and counted.
func TestNodesNotDepthFirst(t *testing.T) {
	dfs, err := DecodeSnapshot("x", snapshotOf("", "/a", "/a/y", "/a/y/z", "/a/x", "/b", "/b/w"))
	if err != nil {
		t.Fatal(err)
	}
	bfs, err := DecodeSnapshot("x", snapshotOf("", "/b", "/a", "/a/y", "/b/w", "/a/x", "/a/y/z"))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(dfs.Tree, bfs.Tree); d != "" {
		t.Errorf("breadth first differs from depth first:\n%s", d)
	}
	a := bfs.Tree.Get("/a")
	if a == nil || strings.Join(a.Children, ",") != "x,y" || a.Stat.NumChildren != 2 || bfs.Tree.Len() != 7 {
		t.Errorf("/a: %+v, %d nodes", a, bfs.Tree.Len())
	}
	if _, err := DecodeSnapshot("x", snapshotOf("", "/a/y", "/a")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("child before its parent: %v", err)
	}
}
