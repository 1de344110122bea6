package zkread

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stallZK is a ZooKeeper server that goes silent: it establishes sessions
// (the first bytes a client needs), then answers only what answer allows
// and never replies to anything else, as a server that stopped answering
// with its TCP connection still open. It records every opcode it receives.
type stallZK struct {
	ln     net.Listener
	answer func(op int32, path string) bool
	root   []string // children of "/"
	mu     sync.Mutex
	ops    map[int32]int
	conns  []net.Conn
	// pre36 answers multiRead as ZooKeeper before 3.6 does.
	pre36 bool
	// data holds the data getData answers for a path (null otherwise).
	data map[string][]byte
	// tree, when set, is the whole tree (path -> children) the server
	// holds in place of root's: a path not in it is NoNode.
	tree map[string][]string
	// dataKids, when it holds a path, is the numChildren of the stat
	// getData answers for it (the children changed after the getData).
	dataKids map[string]int32
	// stalled is closed when the first request went unanswered.
	stalled  chan struct{}
	stallOne sync.Once
}

func newStallZK(t *testing.T, children int, answer func(op int32, path string) bool) *stallZK {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stallZK{ln: ln, answer: answer, ops: map[int32]int{}, stalled: make(chan struct{})}
	for i := range children {
		s.root = append(s.root, fmt.Sprintf("c%03d", i))
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			go s.serve(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			c.Close()
		}
	})
	return s
}

func (s *stallZK) addr() string { return s.ln.Addr().String() }

func readFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(n[:]))
	_, err := io.ReadFull(r, b)
	return b, err
}

func writeFrame(w io.Writer, parts ...[]byte) {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	_, _ = w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(body))))
	_, _ = w.Write(body)
}

// stat encodes a ZooKeeper Stat with the given number of children.
func stat(children int32) []byte {
	b := make([]byte, 0, 68)
	for range 4 { // czxid, mzxid, ctime, mtime
		b = binary.BigEndian.AppendUint64(b, 1)
	}
	b = binary.BigEndian.AppendUint32(b, 0) // version
	b = binary.BigEndian.AppendUint32(b, 0) // cversion
	b = binary.BigEndian.AppendUint32(b, 0) // aversion
	b = binary.BigEndian.AppendUint64(b, 0) // ephemeralOwner
	b = binary.BigEndian.AppendUint32(b, 0) // dataLength
	b = binary.BigEndian.AppendUint32(b, uint32(children))
	return binary.BigEndian.AppendUint64(b, 1) // pzxid
}

func (s *stallZK) serve(c net.Conn) {
	req, err := readFrame(c)
	if err != nil || len(req) < 24 {
		return
	}
	// connectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId, passwd.
	resp := binary.BigEndian.AppendUint32(nil, 0)
	resp = append(resp, req[12:16]...) // the requested timeout
	resp = binary.BigEndian.AppendUint64(resp, 0x1234)
	resp = binary.BigEndian.AppendUint32(resp, 16)
	resp = append(resp, make([]byte, 16)...)
	writeFrame(c, resp)
	for {
		req, err := readFrame(c)
		if err != nil || len(req) < 8 {
			return
		}
		xid, op := req[:4], int32(binary.BigEndian.Uint32(req[4:8]))
		hdr := func(errCode int32) []byte {
			h := append([]byte{}, xid...)
			h = binary.BigEndian.AppendUint64(h, 1)
			return binary.BigEndian.AppendUint32(h, uint32(errCode))
		}
		if op == 22 { // multiRead: MultiHeader{type, done, err} + path, watch
			s.mu.Lock()
			s.ops[op]++
			old := s.pre36
			s.mu.Unlock()
			if old {
				// What ZooKeeper 3.5.9 does (see TestPre36MultiRead).
				writeFrame(c, hdr(-6))
				return
			}
			body := req[8:]
			var resp []byte
			answered := true
			for len(body) >= 9 && body[4] == 0 {
				sub := int32(binary.BigEndian.Uint32(body))
				n := int(binary.BigEndian.Uint32(body[9:13]))
				path := string(body[13 : 13+n])
				body = body[13+n+1:]
				if sub != 4 && sub != 8 {
					s.mu.Lock()
					s.ops[-1000-sub]++ // not a read: checkReadOnly reports it
					s.mu.Unlock()
				}
				if !s.answer(sub, path) {
					answered = false
					break
				}
				code, out := s.result(sub, path)
				if code != 0 {
					resp = binary.BigEndian.AppendUint32(resp, 0xFFFFFFFF)
					resp = append(resp, 0)
					resp = binary.BigEndian.AppendUint32(resp, uint32(code))
					resp = binary.BigEndian.AppendUint32(resp, uint32(code))
					continue
				}
				resp = binary.BigEndian.AppendUint32(resp, uint32(sub))
				resp = append(resp, 0)
				resp = binary.BigEndian.AppendUint32(resp, 0)
				resp = append(resp, out...)
			}
			if !answered {
				s.stallOne.Do(func() { close(s.stalled) })
				continue
			}
			resp = binary.BigEndian.AppendUint32(resp, 0xFFFFFFFF)
			resp = append(resp, 1)
			resp = binary.BigEndian.AppendUint32(resp, 0xFFFFFFFF)
			writeFrame(c, hdr(0), resp)
			continue
		}
		var path string
		if len(req) >= 12 {
			if n := int(binary.BigEndian.Uint32(req[8:12])); n >= 0 && 12+n <= len(req) {
				path = string(req[12 : 12+n])
			}
		}
		s.mu.Lock()
		s.ops[op]++
		s.mu.Unlock()
		if !s.answer(op, path) {
			s.stallOne.Do(func() { close(s.stalled) })
			continue
		}
		if op == -11 { // close
			writeFrame(c, hdr(0))
			return
		}
		code, out := s.result(op, path)
		writeFrame(c, hdr(code), out)
	}
}

// result is the answer to one read: an error code, or the response body.
func (s *stallZK) result(op int32, path string) (int32, []byte) {
	n := int32(0)
	if path == "/" {
		n = int32(len(s.root))
	}
	if s.tree != nil {
		kids, ok := s.tree[path]
		if !ok && op != -11 {
			return -101, nil // NoNode
		}
		n = int32(len(kids))
	}
	kids := func() []byte {
		var b []byte
		if s.tree != nil {
			b = binary.BigEndian.AppendUint32(b, uint32(len(s.tree[path])))
			for _, k := range s.tree[path] {
				b = binary.BigEndian.AppendUint32(b, uint32(len(k)))
				b = append(b, k...)
			}
			return b
		}
		if path == "/" {
			b = binary.BigEndian.AppendUint32(b, uint32(len(s.root)))
			for _, k := range s.root {
				b = binary.BigEndian.AppendUint32(b, uint32(len(k)))
				b = append(b, k...)
			}
			return b
		}
		return binary.BigEndian.AppendUint32(b, 0)
	}
	switch op {
	case 3: // exists
		if path != "/" && s.tree == nil {
			return -101, nil // NoNode
		}
		return 0, stat(n)
	case 4: // getData: null data unless s.data holds some
		if k, ok := s.dataKids[path]; ok {
			n = k
		}
		if d, ok := s.data[path]; ok {
			b := binary.BigEndian.AppendUint32(nil, uint32(len(d)))
			return 0, append(append(b, d...), stat(n)...)
		}
		return 0, append(binary.BigEndian.AppendUint32(nil, 0xFFFFFFFF), stat(n)...)
	case 8: // getChildren
		return 0, kids()
	case 12: // getChildren2
		return 0, append(kids(), stat(n)...)
	}
	return 0, nil
}

// readOnlyOps are the opcodes a read may send: exists, getData, getACL,
// getChildren, ping, getChildren2, multiRead (of getData and getChildren:
// the server would refuse writes in one), closeSession, setAuth.
var readOnlyOps = map[int32]bool{3: true, 4: true, 6: true, 8: true, 11: true, 12: true, 22: true, -11: true, 100: true}

func (s *stallZK) checkReadOnly(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for op, n := range s.ops {
		if !readOnlyOps[op] {
			t.Errorf("the reader sent %d requests with opcode %d, which is not a read", n, op)
		}
	}
}

// TestLiveCancelStalledServer: a server that stops answering right after
// the session is established must not hold a cancelled read for the
// session timeout.
func TestLiveCancelStalledServer(t *testing.T) {
	s := newStallZK(t, 0, func(op int32, path string) bool { return false })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stalled
		cancel()
	}()
	start := time.Now()
	_, err := ReadLive(ctx, LiveOptions{Servers: []string{s.addr()}, SessionTimeout: 9 * time.Second, Connections: 2})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("ReadLive returned %s after the cancel", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	s.checkReadOnly(t)
}

// TestLiveCancelMidRead: cancelling while requests of a level are in
// flight (the server answers the root and then stops) returns promptly,
// and no reader goroutine reports progress after ReadLive returned.
func TestLiveCancelMidRead(t *testing.T) {
	s := newStallZK(t, 200, func(op int32, path string) bool { return op != 4 || path == "/" })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stalled
		time.Sleep(50 * time.Millisecond) // let the level's requests pile up
		cancel()
	}()
	var returned, late atomic.Bool
	opts := LiveOptions{Servers: []string{s.addr()}, SessionTimeout: 9 * time.Second, Connections: 2, InFlight: 64,
		Progress: func(done, known int) {
			if returned.Load() {
				late.Store(true)
			}
		}}
	start := time.Now()
	_, err := ReadLive(ctx, opts)
	returned.Store(true)
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("ReadLive returned %s after the read started", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	time.Sleep(500 * time.Millisecond)
	if late.Load() {
		t.Error("Progress was called after ReadLive returned")
	}
	s.checkReadOnly(t)
}

// TestLiveFallbackFake: against a server that answers multiRead as
// ZooKeeper 3.5.9 does (Unimplemented, then the connection closed), the
// read probes once, replaces the probing session and reads every znode
// with single requests, retries of a consistent read included.
func TestLiveFallbackFake(t *testing.T) {
	s := newStallZK(t, 200, func(op int32, path string) bool { return true })
	s.pre36 = true
	tree, err := ReadLive(context.Background(), LiveOptions{Servers: []string{s.addr()}, Connections: 2, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Len() != 201 {
		t.Errorf("read %d znodes, want 201", tree.Len())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ops[22] != 1 || s.ops[4] < 201 || len(s.conns) != 3 {
		t.Errorf("%d multiReads, %d getData, %d connections; want 1, >= 201, 3", s.ops[22], s.ops[4], len(s.conns))
	}
}

// TestMultiReadTooLarge: a multiRead whose response exceeds the frame
// limit is skipped unread and its reads are sent one by one.
func TestMultiReadTooLarge(t *testing.T) {
	s := newStallZK(t, 200, func(op int32, path string) bool { return true })
	old := maxFrame
	maxFrame = 2000 // a batch of 32 getData answers (81 bytes each) no longer fits; the 200 names do
	defer func() { maxFrame = old }()
	tree, err := ReadLive(context.Background(), LiveOptions{Servers: []string{s.addr()}, Batch: 32})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Len() != 201 {
		t.Errorf("read %d znodes, want 201", tree.Len())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The probe, the root's getData and getChildren, seven batches of the
	// children (6 x 32 + 8): the six full ones are read again one by one.
	if s.ops[22] != 10 || s.ops[4] != 192 {
		t.Errorf("%d multiReads, %d single getData; want 10 and 192", s.ops[22], s.ops[4])
	}
}

// TestSessionPings: an idle session pings within its timeout and stays
// usable; the read deadline does not fire while the server answers pings.
func TestSessionPings(t *testing.T) {
	s := newStallZK(t, 0, func(op int32, path string) bool { return true })
	sess, err := dialSession(context.Background(), LiveOptions{Servers: []string{s.addr()}, SessionTimeout: 300 * time.Millisecond}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	time.Sleep(time.Second)
	if ok, _, err := sess.Exists("/"); !ok || err != nil {
		t.Errorf("exists after a second idle: %v, %v", ok, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ops[11] < 3 {
		t.Errorf("%d pings in a second with a 300ms session timeout", s.ops[11])
	}
}

// TestLiveZnodeLargerThanMaxBuffer: a live read holds znodes to the limit
// a data dir read does (jute.maxbuffer plus its extra size): a larger one
// fails the read with its path and size, and a raised MaxBuffer lets it
// through.
func TestLiveZnodeLargerThanMaxBuffer(t *testing.T) {
	s := newStallZK(t, 20, func(op int32, path string) bool { return true })
	s.data = map[string][]byte{"/c007": bytes.Repeat([]byte("x"), 3000)}
	_, err := ReadLive(context.Background(), LiveOptions{Servers: []string{s.addr()}, MaxBuffer: 1000})
	var ze *ZnodeError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &ze) || ze.Path != "/c007" || !strings.Contains(err.Error(), "3000 bytes") {
		t.Fatalf("err = %v", err)
	}
	tree, err := ReadLive(context.Background(), LiveOptions{Servers: []string{s.addr()}, MaxBuffer: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if n := tree.Get("/c007"); n == nil || len(n.Data) != 3000 {
		t.Errorf("znode /c007: %+v", n)
	}
}

// TestLivePartitionStateRead: a partition znode's child "state" is read
// with the partition's own data, not found by listing its children,
// whenever the partition's stat says it is its only child; a partition
// with no child, with another child or more, or whose state has children
// of its own, is listed and read as any znode. The tree read is the
// server's either way.
func TestLivePartitionStateRead(t *testing.T) {
	var lmu sync.Mutex
	var listed []string
	s := newStallZK(t, 0, func(op int32, path string) bool {
		if op == 8 || op == 12 { // getChildren, getChildren2
			lmu.Lock()
			listed = append(listed, path)
			lmu.Unlock()
		}
		return true
	})
	s.tree = map[string][]string{"/": {"brokers"}, "/brokers": {"topics"}, "/brokers/topics": {"t"},
		"/brokers/topics/t": {"partitions"}, "/brokers/topics/t/partitions": {"0", "1", "2", "3", "4"}}
	s.data = map[string][]byte{"/brokers/topics/t": []byte(`{"partitions":{}}`)}
	for p, kids := range map[string][]string{"0": {"state"}, "1": {}, "2": {"state", "x"}, "3": {"other"}, "4": {"state"}} {
		base := "/brokers/topics/t/partitions/" + p
		s.tree[base] = kids
		for _, k := range kids {
			s.tree[base+"/"+k] = []string{}
			s.data[base+"/"+k] = []byte(p + k)
		}
	}
	s.tree["/brokers/topics/t/partitions/4/state"] = []string{"deep"}
	s.tree["/brokers/topics/t/partitions/4/state/deep"] = []string{}
	tree, err := ReadLive(context.Background(), LiveOptions{Servers: []string{s.addr()}, Connections: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for p, n := range tree.All() {
		got[p] = fmt.Sprintf("%q %v %d", n.Data, n.Children, n.Stat.NumChildren)
	}
	want := map[string]string{}
	for p, kids := range s.tree {
		d, ok := s.data[p]
		if !ok {
			d = nil
		}
		if kids == nil {
			kids = []string{}
		}
		ks := append([]string{}, kids...)
		sort.Strings(ks)
		want[p] = fmt.Sprintf("%q %v %d", d, ks, len(kids))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tree read (-server +read):\n%s", d)
	}
	// Listed: the znodes with children, but for partition 0 whose stat
	// showed "state" as its one child. 4's state has a child of its own,
	// so 4 is listed, and its state is read as any znode.
	lmu.Lock()
	defer lmu.Unlock()
	sort.Strings(listed)
	wantListed := []string{"/", "/brokers", "/brokers/topics", "/brokers/topics/t", "/brokers/topics/t/partitions",
		"/brokers/topics/t/partitions/2", "/brokers/topics/t/partitions/3", "/brokers/topics/t/partitions/4",
		"/brokers/topics/t/partitions/4/state"}
	if d := cmp.Diff(wantListed, listed); d != "" {
		t.Errorf("children listed (-want +got):\n%s", d)
	}
	s.checkReadOnly(t)
}

// TestLiveZnodeGoneWhileRead: a znode listed by its parent and gone when
// read (NoNode) is left out of the tree with one warning naming it, and
// the read goes on: over one session or two, with multiRead or one
// request per read, a partition's "state" included (its stat still
// counts it).
func TestLiveZnodeGoneWhileRead(t *testing.T) {
	s := newStallZK(t, 0, func(op int32, path string) bool { return true })
	s.tree = map[string][]string{"/": {"a", "gone", "brokers"}, "/a": {"x", "gone2"}, "/a/x": {},
		"/brokers": {"topics"}, "/brokers/topics": {"t"}, "/brokers/topics/t": {"partitions"},
		"/brokers/topics/t/partitions": {"0", "1"}, "/brokers/topics/t/partitions/0": {"state"},
		"/brokers/topics/t/partitions/1": {"state"}, "/brokers/topics/t/partitions/1/state": {}}
	want := []string{"/", "/a", "/a/x", "/brokers", "/brokers/topics", "/brokers/topics/t", "/brokers/topics/t/partitions",
		"/brokers/topics/t/partitions/0", "/brokers/topics/t/partitions/1", "/brokers/topics/t/partitions/1/state"}
	wantWarn := []string{"znode /a/gone2 disappeared while reading", "znode /brokers/topics/t/partitions/0/state disappeared while reading",
		"znode /gone disappeared while reading"}
	for _, o := range []LiveOptions{{Connections: 1}, {Connections: 2}, {Connections: 2, Batch: 1}} {
		o.Servers = []string{s.addr()}
		tree, err := ReadLive(context.Background(), o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		var got []string
		for p := range tree.All() {
			got = append(got, p)
		}
		sort.Strings(got)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("connections %d, batch %d: znodes read (-want +got):\n%s", o.Connections, o.Batch, d)
		}
		if d := cmp.Diff(wantWarn, tree.Warnings); d != "" {
			t.Errorf("connections %d, batch %d: warnings (-want +got):\n%s", o.Connections, o.Batch, d)
		}
	}
	s.checkReadOnly(t)
}

// TestLiveChildrenMovedWhileRead: a znode whose stat (getData) counts
// other children than its listing (getChildren) holds changed between the
// two reads; each is a tree-changed warning naming the znode, with
// multiRead or without, so that a dump of the read says why its stats
// disagree with its znodes (ReadDump refuses a dump where they disagree
// with no such warning).
func TestLiveChildrenMovedWhileRead(t *testing.T) {
	s := newStallZK(t, 0, func(op int32, path string) bool { return true })
	s.tree = map[string][]string{"/": {"a", "b"}, "/a": {"x", "y"}, "/a/x": {}, "/a/y": {}, "/b": {}}
	// /a/y was created after /a's getData, /b's only child deleted.
	s.dataKids = map[string]int32{"/a": 1, "/b": 1}
	wantWarn := []string{"znode /a: its stat counts 1 child(ren), 2 were listed: it changed while it was read",
		"znode /b: its stat counts 1 child(ren), 0 were listed: it changed while it was read"}
	for _, pre36 := range []bool{false, true} {
		s.mu.Lock()
		s.pre36 = pre36
		s.mu.Unlock()
		checkChildrenMoved(t, s, wantWarn, pre36)
	}
	s.checkReadOnly(t)
}

func checkChildrenMoved(t *testing.T, s *stallZK, wantWarn []string, pre36 bool) {
	t.Helper()
	for _, o := range []LiveOptions{{Connections: 1}, {Connections: 2, Batch: 1}} {
		o.Servers = []string{s.addr()}
		tree, err := ReadLive(context.Background(), o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if d := cmp.Diff(wantWarn, tree.Warnings); d != "" {
			t.Errorf("pre-3.6 %v, connections %d, batch %d: warnings (-want +got):\n%s", pre36, o.Connections, o.Batch, d)
		}
		for i, f := range tree.Findings {
			if want := []string{"/a", "/b"}[i]; f.Code != "tree-changed" || f.Where == nil || f.Where.Znode != want {
				t.Errorf("finding %+v at %+v, want tree-changed at %s", f, f.Where, want)
			}
		}
		// Its dump reads back, the warnings with it.
		var buf bytes.Buffer
		if err := WriteDump(&buf, tree); err != nil {
			t.Fatal(err)
		}
		back, err := ReadDump(&buf, "d.json", 0)
		if err != nil {
			t.Fatalf("the dump of the read: %v", err)
		}
		if d := cmp.Diff(wantWarn, back.Warnings); d != "" {
			t.Errorf("the dump's warnings (-want +got):\n%s", d)
		}
	}
}
