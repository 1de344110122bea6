package zkread

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/google/go-cmp/cmp"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestPre36MultiRead runs a real ZooKeeper 3.5.9 (Kafka 2.7.2's own),
// which predates multiRead, and checks what it answers to one (the package
// doc's protocol notes say so), that ReadLive detects it and falls back to
// single requests, and that the tree it reads equals what an independent
// client (go-zookeeper) reads.
func TestPre36MultiRead(t *testing.T) {
	d := *kafkatest.Dist(t, kafkatest.Kafka27)
	d.Tools.ZooKeeper = "org.apache.zookeeper.server.ZooKeeperServerMain"
	zks := kafkatest.StartZooKeeper(t, &d, kafkatest.ZKOptions{})
	const chroot = "/kafka"
	writeSmallLayout(t, zks.Addr(), chroot)
	ctx := context.Background()
	opts := LiveOptions{Servers: []string{zks.Addr()}, SessionTimeout: 10 * time.Second}

	s, err := dialSession(ctx, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.MultiRead([]ReadOp{{Path: chroot}})
	t.Logf("ZooKeeper 3.5.9 answers multiRead with: %v", err)
	if !errors.Is(err, codeUnimplemented) {
		t.Errorf("multiRead on 3.5.9: %v, want Unimplemented", err)
	}
	// ... and closes the connection.
	if _, _, err := s.Get(chroot); !errors.Is(err, errConnClosed) {
		t.Errorf("getData after the multiRead: %v, want the connection closed", err)
	}

	opts.Chroot = chroot
	tree, err := ReadLive(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	compareOracle(t, tree, zks.Addr(), chroot)
}

// writeSmallLayout writes, with go-zookeeper, a few Kafka-shaped znodes
// under chroot: topics with partitions/<p>/state, configs, a null and an
// empty data znode, and a sequential notification.
func writeSmallLayout(t *testing.T, addr, chroot string) {
	t.Helper()
	conn := oracleConn(t, addr)
	acl := zk.WorldACL(zk.PermAll)
	mk := func(p string, data []byte) {
		t.Helper()
		if _, err := conn.Create(chroot+p, data, 0, acl); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	if _, err := conn.Create(chroot, nil, 0, acl); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/brokers", "/brokers/topics", "/brokers/ids", "/config", "/config/topics", "/config/changes", "/admin"} {
		mk(p, nil)
	}
	mk("/controller_epoch", []byte("3"))
	mk("/admin/empty", []byte{})
	for i := range 5 {
		name := fmt.Sprintf("t%d", i)
		mk("/brokers/topics/"+name, fmt.Appendf(nil, `{"version":2,"partitions":{"0":[1],"1":[1],"2":[1]}}`))
		mk("/brokers/topics/"+name+"/partitions", nil)
		for p := range 3 {
			pp := fmt.Sprintf("/brokers/topics/%s/partitions/%d", name, p)
			var data []byte
			if i == 1 && p == 1 {
				data = []byte("x") // a container that holds data: read with getData after all
			}
			mk(pp, data)
			mk(pp+"/state", fmt.Appendf(nil, `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":%d,"isr":[1]}`, p))
		}
		mk("/config/topics/"+name, []byte(`{"version":1,"config":{}}`))
	}
	mk("/brokers/topics/t0/partitions/0/extra", []byte("x"))
	if _, err := conn.Create(chroot+"/config/changes/config_change_", []byte(`{"version":2,"entity_path":"topics/t0"}`), zk.FlagSequence, acl); err != nil {
		t.Fatal(err)
	}
}

// compareOracle reads every znode under chroot with go-zookeeper (an
// independent client: getData and getChildren2 per znode) and compares
// data (null and empty kept apart), stat and children with tree.
func compareOracle(t *testing.T, tree *Tree, addr, chroot string) {
	t.Helper()
	conn := oracleConn(t, addr)
	want := map[string]*Node{}
	queue := []string{"/"}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		abs := chroot + rel
		if rel == "/" {
			abs = chroot
		}
		data, st, err := conn.Get(abs)
		if err != nil {
			t.Fatalf("oracle getData %s: %v", abs, err)
		}
		kids, _, err := conn.Children(abs)
		if err != nil {
			t.Fatalf("oracle getChildren %s: %v", abs, err)
		}
		if len(kids) == 0 {
			kids = nil
		}
		n := &Node{Data: data, Stat: Stat{Czxid: st.Czxid, Mzxid: st.Mzxid, Pzxid: st.Pzxid, Ctime: st.Ctime, Mtime: st.Mtime,
			Version: st.Version, Cversion: st.Cversion, Aversion: st.Aversion, EphemeralOwner: st.EphemeralOwner,
			DataLength: st.DataLength, NumChildren: st.NumChildren}}
		for _, k := range kids {
			n.Children = append(n.Children, k)
			queue = append(queue, Child(rel, k))
		}
		sort.Strings(n.Children)
		want[rel] = n
	}
	got := map[string]*Node{}
	for p, n := range tree.Map() {
		c := *n
		if len(c.Children) == 0 {
			c.Children = nil
		}
		got[p] = &c
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("live read differs from go-zookeeper's (-go-zookeeper +kmeta):\n%s", d)
	}
	if n := got["/admin/empty"]; n != nil && (n.Data == nil || len(n.Data) != 0) {
		t.Errorf("empty data read as %v", n.Data)
	}
}

// oracleConn is a go-zookeeper session, established (ZooKeeper answers
// ruok before its request processors run).
func oracleConn(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	conn, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return conn
			}
		case <-timeout:
			t.Fatal("no go-zookeeper session within 30s")
		}
	}
}
