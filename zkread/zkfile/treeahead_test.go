package zkfile

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// bigSnapshot builds a snapshot of topics × partitions partition znodes
// (and their parents) with data of a few hundred bytes each: past the
// tree size at which blocks and arenas are made ahead (treeAhead), and
// over several arenas.
func bigSnapshot(topics, partitions int) []byte {
	w := newSnapWriter()
	zxid := int64(0)
	node := func(path string, data []byte) {
		zxid++
		w.node(path, data, zxid)
	}
	node("", nil)
	node("/brokers", nil)
	node("/brokers/topics", nil)
	for tp := range topics {
		topic := fmt.Sprintf("/brokers/topics/t%05d", tp)
		node(topic, fmt.Appendf(nil, `{"version":3,"topic_id":"%022d","partitions":{}}`, tp))
		node(topic+"/partitions", nil)
		for p := range partitions {
			part := fmt.Sprintf("%s/partitions/%d", topic, p)
			node(part, nil)
			node(part+"/state", fmt.Appendf(nil, `{"controller_epoch":1,"leader":%d,"version":1,"leader_epoch":%d,"isr":[1,2,3]}%s`, p%3+1, tp, bytes.Repeat([]byte{' '}, (tp*partitions+p)%1000)))
		}
	}
	return w.seal()
}

// A snapshot read with its blocks and arenas made ahead, on another
// goroutine, is the tree read without: every node's path, data and stat.
func TestTreeAheadSameTree(t *testing.T) {
	snap := bigSnapshot(100, 60) // 12,203 znodes, over 3 MB of data
	read := func(ahead bool) *DataTree {
		defer func(v bool) { makeAhead = v }(makeAhead)
		makeAhead = ahead
		s, err := DecodeSnapshot("snapshot.0", snap)
		if err != nil {
			t.Fatal(err)
		}
		if s.Tree.ahead != nil {
			t.Fatal("the read left its goroutine running")
		}
		return s.Tree
	}
	with, without := read(true), read(false)
	if with.Len() != 12203 || without.Len() != 12203 {
		t.Fatalf("%d and %d znodes, want 12203", with.Len(), without.Len())
	}
	type rec struct {
		path string
		data []byte
		stat Stat
	}
	all := func(tr *DataTree) []rec {
		var out []rec
		tr.Walk(tr.Root(), "/", func(p string, r Ref) bool {
			out = append(out, rec{p, tr.Data(r), tr.Stat(r)})
			return true
		})
		return out
	}
	a, b := all(with), all(without)
	if !slices.EqualFunc(a, b, func(x, y rec) bool {
		return x.path == y.path && bytes.Equal(x.data, y.data) && (x.data == nil) == (y.data == nil) && x.stat == y.stat
	}) {
		for i := range min(len(a), len(b)) {
			if a[i].path != b[i].path || !bytes.Equal(a[i].data, b[i].data) || a[i].stat != b[i].stat {
				t.Fatalf("node %d: %s %q %+v, without: %s %q %+v", i, a[i].path, a[i].data, a[i].stat, b[i].path, b[i].data, b[i].stat)
			}
		}
		t.Fatalf("%d znodes read with blocks made ahead, %d without", len(a), len(b))
	}
}

// A read that fails after the blocks ahead started stops their goroutine
// before it returns.
func TestTreeAheadStopsOnError(t *testing.T) {
	snap := bigSnapshot(100, 60)
	// Cut in the middle of the nodes: a torn snapshot.
	cut := snap[:len(snap)*3/4]
	before := runtime.NumGoroutine()
	for range 3 {
		if _, err := DecodeSnapshot("snapshot.0", cut); !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTornTail) {
			t.Fatalf("a torn snapshot: %v, want a corrupt or torn snapshot", err)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after three failed reads, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
