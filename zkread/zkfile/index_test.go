package zkfile

import (
	"testing"
	"unsafe"
)

// TestIndexNumbers: every node of a tree rebuilt from the fixture has its
// own number below Len, and a node the tree did not make (one made by
// hand, an address inside a node) has none: zkread's decoder keeps its
// per-node marks in a bitset by these numbers.
func TestIndexNumbers(t *testing.T) {
	res, err := ReadDir(dataDir, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Tree
	x := tr.Index()
	if x == nil {
		t.Fatal("no index")
	}
	seen := map[int]string{}
	for p, n := range tr.Nodes {
		i, ok := x.Number(n)
		if !ok || i < 0 || i >= x.Len() {
			t.Fatalf("%s: number %d, %v (Len %d)", p, i, ok, x.Len())
		}
		if q, dup := seen[i]; dup {
			t.Fatalf("%s and %s both number %d", p, q, i)
		}
		seen[i] = p
	}
	if _, ok := x.Number(new(Node)); ok {
		t.Error("a node made by hand has a number")
	}
	inside := (*Node)(unsafe.Add(unsafe.Pointer(tr.Nodes["/"]), 8))
	if _, ok := x.Number(inside); ok {
		t.Error("an address inside a node has a number")
	}
}
