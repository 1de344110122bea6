package zkread

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wireDir holds response bodies captured from a real ZooKeeper (see its
// README); FuzzWireDecode starts from them.
const wireDir = "testdata/zkwire"

// multiOps builds the reads of a multiRead from kinds ('d' getData, 'c'
// getChildren) and paths.
func multiOps(kinds string, paths ...string) []ReadOp {
	ops := make([]ReadOp, len(kinds))
	for i, k := range kinds {
		ops[i] = ReadOp{Path: paths[i%len(paths)], Children: k == 'c'}
	}
	return ops
}

// TestWireFixtures decodes the captured responses: what ZooKeeper 3.8.4
// sent is what the fixture's README says it holds.
func TestWireFixtures(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(wireDir, name+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r := newJute(read("getData"))
	data, st := r.dataResult()
	if err := r.done(); err != nil || !bytes.HasPrefix(data, []byte(`{"version":2`)) || st.DataLength != int32(len(data)) || st.NumChildren != 1 {
		t.Errorf("getData: %v %q %+v", err, data, st)
	}
	r = newJute(read("getData-null"))
	data, st = r.dataResult()
	if err := r.done(); err != nil || data != nil || st.DataLength != 0 || st.NumChildren != 2 {
		t.Errorf("getData of a null znode: %v %q %+v", err, data, st)
	}
	r = newJute(read("getChildren2"))
	kids := r.strings()
	st = r.stat()
	if err := r.done(); err != nil || len(kids) != 5 || st.NumChildren != 5 {
		t.Errorf("getChildren2: %v %v %+v", err, kids, st)
	}
	r = newJute(read("getACL"))
	acl := r.ACLs()
	r.stat()
	if err := r.done(); err != nil || len(acl) != 2 || acl[0].Scheme != "digest" || acl[0].ID != "kafka:x" || acl[1].ID != "anyone" {
		t.Errorf("getACL: %v %+v", err, acl)
	}
	res, err := decodeMulti(read("multiRead-dcddc"), multiOps("dcddc", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || !bytes.HasPrefix(res[0].Data, []byte(`{"version":2`)) || strings.Join(res[1].Children, ",") != "partitions" ||
		!errors.Is(res[2].Err, codeNoNode) || !errors.Is(res[3].Err, codeNoAuth) || len(res[4].Children) != 3 {
		t.Errorf("multiRead: %+v", res)
	}
	// A response for other reads than asked is refused.
	if _, err := decodeMulti(read("multiRead-dcddc"), multiOps("ddddc", "a")); !errors.Is(err, errBadResponse) {
		t.Errorf("multiRead decoded against the wrong reads: %v", err)
	}
	if _, err := decodeMulti(read("multiRead-dcddc"), multiOps("dcdd", "a")); !errors.Is(err, errBadResponse) {
		t.Errorf("multiRead decoded against fewer reads: %v", err)
	}
}

// FuzzWireDecode feeds arbitrary bytes to every response decoder and to a
// session's reader (seeded with the captured responses): no panic, and a
// multiRead that decodes answers every read with its kind.
func FuzzWireDecode(f *testing.F) {
	ents, _ := os.ReadDir(wireDir)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(wireDir, e.Name())); err == nil && strings.HasSuffix(e.Name(), ".bin") {
			kinds := "d"
			if _, k, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".bin"), "-"); ok && strings.Trim(k, "dc") == "" {
				kinds = k
			}
			f.Add(b, kinds)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, kinds string) {
		if len(kinds) == 0 || len(kinds) > 64 || strings.Trim(kinds, "dc") != "" {
			return
		}
		ops := multiOps(kinds, "/a")
		if res, err := decodeMulti(body, ops); err == nil {
			if len(res) != len(ops) {
				t.Fatalf("%d results for %d reads", len(res), len(ops))
			}
			for i, r := range res {
				if r.Err == nil && !ops[i].Children && r.Children != nil {
					t.Fatalf("result %d: children for a getData", i)
				}
			}
		} else if !errors.Is(err, errBadResponse) {
			t.Fatalf("error does not wrap errBadResponse: %v", err)
		}
		for _, dec := range []func(*juteReader){
			func(r *juteReader) { r.dataResult() },
			func(r *juteReader) { r.strings(); r.stat() },
			func(r *juteReader) { r.ACLs(); r.stat() },
		} {
			r := newJute(body)
			dec(r)
			if err := r.done(); err != nil && !errors.Is(err, errBadResponse) {
				t.Fatalf("error does not wrap errBadResponse: %v", err)
			}
		}
		// The same bytes as a server's stream after the handshake.
		s := &Session{nc: &bytesConn{r: bytes.NewReader(body)}, timeout: time.Second, pending: map[int32]*call{},
			wake: make(chan struct{}, 1), done: make(chan struct{})}
		s.br = bufioReader(s)
		var calls []*call
		for range 3 {
			c, err := s.send(0, opGetData, pathRequest("/a", true))
			if err != nil {
				t.Fatal(err)
			}
			calls = append(calls, c)
		}
		s.readLoop()
		for _, c := range calls {
			select {
			case <-c.done:
			default:
				t.Fatal("a request is still waiting after the connection ended")
			}
		}
	})
}

// bytesConn is a net.Conn that reads from r and discards writes.
type bytesConn struct {
	net.Conn
	r io.Reader
}

func (c *bytesConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *bytesConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *bytesConn) Close() error                     { return nil }
func (c *bytesConn) SetReadDeadline(time.Time) error  { return nil }
func (c *bytesConn) SetWriteDeadline(time.Time) error { return nil }
