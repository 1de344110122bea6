package zkfile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefs: every node of a tree rebuilt from the fixture has its own
// Ref below Cap, found again from its path, and the node Lookup finds is
// the one walking the tree reaches: zkread's decoder keeps its per-node
// marks in a bitset by Ref.
func TestRefs(t *testing.T) {
	res, err := ReadDir(dataDir, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Tree
	seen := map[Ref]string{}
	tr.Walk(tr.Root(), "/", func(p string, r Ref) bool {
		if r < 0 || int(r) >= tr.Cap() {
			t.Fatalf("%s: Ref %d (Cap %d)", p, r, tr.Cap())
		}
		if q, dup := seen[r]; dup {
			t.Fatalf("%s and %s are both Ref %d", p, q, r)
		}
		seen[r] = p
		if got := tr.Lookup(p); got != r || tr.Path(r) != p {
			t.Fatalf("%s: Ref %d, Lookup %d, Path %q", p, r, got, tr.Path(r))
		}
		if d := cmp.Diff(tr.Node(r), tr.Get(p)); d != "" {
			t.Fatal(d)
		}
		return true
	})
	if len(seen) != tr.Len() || len(seen) < 100 {
		t.Errorf("walked %d nodes, Len %d", len(seen), tr.Len())
	}
	for _, p := range []string{"", "x", "//", "/zookeeper/", "/nosuch", "/zookeeper//quota"} {
		if r := tr.Lookup(p); r != NoRef {
			t.Errorf("Lookup(%q) = %d", p, r)
		}
	}
}
