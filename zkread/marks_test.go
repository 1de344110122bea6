package zkread

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMarksBitsetMatchesMap: the decoder's per-node marks (a bitset by
// Ref over a data-dir read's compact tree, a map for a tree of nodes by
// path) decide what stays raw. On the ZooKeeper-written fixture read from
// the root (the chroot's znodes are then raw) the raw znodes are the same
// from the compact tree and from a copy of it as nodes by path (the map
// path).
func TestMarksBitsetMatchesMap(t *testing.T) {
	tr, err := ReadDataDir(filepath.Join(fixtureDir, "datadir"), DataDirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.dt == nil {
		t.Fatal("a data-dir read is not a compact tree")
	}
	want, err := Decode(tr, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.ZK.Raw) < 50 {
		t.Fatalf("the fixture read from the root decodes to %d raw znodes", len(want.ZK.Raw))
	}
	copied := func() *Tree {
		out := Subtree(tr, "/")
		out.own()
		return out
	}
	got, err := Decode(copied(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want.ZK.Raw, got.ZK.Raw); d != "" {
		t.Errorf("raw znodes differ (-bitset +map):\n%s", d)
	}
	// Under the chroot everything is consumed; a container the decoder
	// consumes only without data is raw with some, on both paths, and
	// nothing else is.
	for name, tree := range map[string]*Tree{"bitset": Subtree(tr, fixtureChroot), "map": Subtree(copied(), fixtureChroot)} {
		old := tree.Get("/brokers/topics").Data
		tree.SetData("/brokers/topics", []byte("x"))
		img, err := Decode(tree, DecodeOptions{})
		tree.SetData("/brokers/topics", old)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := img.ZK.Raw["/brokers/topics"]; !ok || len(img.ZK.Raw) != 1 || len(img.Topics) < 3 {
			t.Errorf("%s: %d raw znodes (want only /brokers/topics), %d topics", name, len(img.ZK.Raw), len(img.Topics))
		}
	}
}
