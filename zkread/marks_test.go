package zkread

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMarksBitsetMatchesMap: the decoder's per-node marks (a bitset over
// the numbered nodes of a data-dir read, a map for any other node) decide
// what stays raw. On the ZooKeeper-written fixture read from the root
// (the chroot's znodes are then raw) the raw znodes are the same as from
// a copy of the tree whose nodes have no numbering (the map path), and as
// from the tree with one numbered node replaced by a hand-made copy (both
// paths at once).
func TestMarksBitsetMatchesMap(t *testing.T) {
	tr, err := ReadDataDir(filepath.Join(fixtureDir, "datadir"), DataDirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.index == nil {
		t.Fatal("a data-dir read has no node numbering")
	}
	want, err := Decode(tr, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.ZK.Raw) < 50 {
		t.Fatalf("the fixture read from the root decodes to %d raw znodes", len(want.ZK.Raw))
	}
	copied := func(replace string) *Tree {
		out := Subtree(tr, "/")
		if replace == "" {
			out.index = nil
		}
		for p, n := range out.Nodes {
			if replace == "" || p == replace {
				c := *n
				out.Nodes[p] = &c
			}
		}
		return out
	}
	for name, tree := range map[string]*Tree{"map only": copied(""), "one node by hand": copied(fixtureChroot + "/brokers/topics")} {
		got, err := Decode(tree, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.ZK.Raw, got.ZK.Raw); d != "" {
			t.Errorf("%s: raw znodes differ (-bitset +%s):\n%s", name, name, d)
		}
	}
	// Under the chroot everything is consumed; a container the decoder
	// consumes only without data is raw with some, on both paths, and
	// nothing else is.
	for name, tree := range map[string]*Tree{"bitset": Subtree(tr, fixtureChroot), "map": Subtree(copied(""), fixtureChroot)} {
		n := tree.Nodes["/brokers/topics"]
		old := n.Data
		n.Data = []byte("x")
		img, err := Decode(tree, DecodeOptions{})
		n.Data = old
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := img.ZK.Raw["/brokers/topics"]; !ok || len(img.ZK.Raw) != 1 || len(img.Topics) < 3 {
			t.Errorf("%s: %d raw znodes (want only /brokers/topics), %d topics", name, len(img.ZK.Raw), len(img.Topics))
		}
	}
}
