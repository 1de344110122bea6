package zkread

import (
	"fmt"
	"testing"
)

// TestDiffTrees: two trees differ by znode path and data bytes only (null
// against empty is a difference, stats are not), sorted by path, and
// ZooKeeper's own /zookeeper subtree counts only under a chroot, where it
// would be Kafka's.
func TestDiffTrees(t *testing.T) {
	tree := func(chroot string, nodes map[string][]byte) *Tree {
		tr := NewTree()
		tr.Chroot = chroot
		for p, d := range nodes {
			tr.nodes[p] = &Node{Data: d}
		}
		return tr
	}
	a := tree("", map[string][]byte{"/": nil, "/a": []byte("1"), "/b": []byte("x"), "/n": nil, "/gone": {}, "/zookeeper/config": []byte("server.1=0.0.0.0")})
	b := tree("", map[string][]byte{"/": nil, "/a": []byte("1"), "/b": []byte("y"), "/n": {}, "/new": nil, "/zookeeper/config": []byte("server.1=zk1")})
	b.nodes["/a"].Stat.Cversion = 7
	if got, want := fmt.Sprint(DiffTrees(a, b)), "[{/b changed} {/gone removed} {/n changed} {/new added}]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if d := DiffTrees(a, a); d != nil {
		t.Fatalf("a tree against itself: %v", d)
	}
	a.Chroot, b.Chroot = "/kafka", "/kafka"
	if got, want := fmt.Sprint(DiffTrees(a, b)), "[{/b changed} {/gone removed} {/n changed} {/new added} {/zookeeper/config changed}]"; got != want {
		t.Fatalf("under a chroot: got %s, want %s", got, want)
	}
}
