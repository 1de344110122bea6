package zkread

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kmeta/kmeta/zkread/zkfile"
)

// ZooKeeper opcodes (ZooDefs.OpCode) and the reserved xids of the client
// protocol. The package doc's "Wire protocol" section describes the
// records.
const (
	opExists       = 3
	opGetData      = 4
	opGetACL       = 6
	opGetChildren  = 8
	opPing         = 11
	opGetChildren2 = 12
	opMultiRead    = 22
	opCloseSession = -11
	opAuth         = 100
	opMultiError   = -1 // a MultiHeader's type for a failed sub-op

	xidNotification = -1
	xidPing         = -2
	xidAuth         = -4
)

// zkCode is a ZooKeeper error code (KeeperException.Code) as a reply
// header or a multiRead sub-result carries it.
type zkCode int32

const (
	codeMarshalling    zkCode = -5
	codeUnimplemented  zkCode = -6
	codeBadArguments   zkCode = -8
	codeNoNode         zkCode = -101
	codeNoAuth         zkCode = -102
	codeSessionExpired zkCode = -112
	codeAuthFailed     zkCode = -115
	codeSessionMoved   zkCode = -118
)

func (c zkCode) Error() string {
	switch c {
	case codeMarshalling:
		return "zookeeper: marshalling error"
	case codeUnimplemented:
		return "zookeeper: operation unimplemented"
	case codeBadArguments:
		return "zookeeper: bad arguments"
	case codeNoNode:
		return "zookeeper: node does not exist"
	case codeNoAuth:
		return "zookeeper: not authenticated"
	case codeSessionExpired:
		return "zookeeper: session expired"
	case codeAuthFailed:
		return "zookeeper: authentication failed"
	case codeSessionMoved:
		return "zookeeper: session moved"
	}
	return fmt.Sprintf("zookeeper: error code %d", int32(c))
}

var (
	// errConnClosed: the connection broke or was closed; every request
	// in flight on it fails with an error wrapping it.
	errConnClosed = errors.New("zookeeper connection closed")
	// errBadResponse: the server's bytes contradict the protocol.
	errBadResponse = errors.New("malformed zookeeper response")
	// errTooLarge: a response is larger than maxFrame; it was skipped.
	errTooLarge = errors.New("zookeeper response too large")
)

// maxFrame bounds one response. A znode holds at most the server's
// jute.maxbuffer (1 MiB by default), so a single read always fits; a
// multiRead response that does not is skipped unread and its reads are
// sent again one by one.
var maxFrame int64 = 32 << 20 // a variable for the tests

// Session is one established (and, with digest credentials, authenticated)
// ZooKeeper session of kmeta's own client: requests from any goroutine are
// pipelined on the connection, answered by xid. LiveSessions opens them.
type Session struct {
	nc      net.Conn
	br      *bufio.Reader
	timeout time.Duration // negotiated session timeout
	id      int64

	mu      sync.Mutex
	nextXid int32
	pending map[int32]*call
	err     error // sticky: set when the connection broke or was closed
	queue   []byte
	spare   []byte

	wake     chan struct{}
	done     chan struct{}
	lastSent atomic.Int64 // unix nanoseconds of the last write
}

// call is one request in flight. body is the response after the reply
// header; code its error code.
type call struct {
	done chan struct{}
	body []byte
	zxid int64
	code zkCode
	err  error
}

func (c *call) wait() error {
	<-c.done
	if c.err != nil {
		return c.err
	}
	if c.code != 0 {
		return c.code
	}
	return nil
}

// refusedGrace is how long servers that all refuse connections are
// retried before giving up: long enough for a server that is binding its
// port, short enough that nothing listening fails at once rather than
// after the whole session timeout.
var refusedGrace = 700 * time.Millisecond

// dialSession opens a session on one of the servers, trying them in turn
// from first (so that sessions spread over an ensemble) until one
// establishes a session or the session timeout passes. When every server
// refuses the connection (nothing listens there) it gives up after
// refusedGrace; a server that does not answer is waited for until the
// session timeout.
func dialSession(ctx context.Context, opts LiveOptions, first int) (*Session, error) {
	start := time.Now()
	deadline := start.Add(opts.SessionTimeout)
	var last error
	refused := make([]bool, len(opts.Servers))
	for attempt := 0; ; attempt++ {
		i := (first + attempt) % len(opts.Servers)
		addr := opts.Servers[i]
		s, err := openSession(ctx, opts, addr, deadline)
		if err == nil {
			return s, nil
		}
		if errors.Is(err, ErrAuth) || ctx.Err() != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, err
		}
		last = err
		refused[i] = errors.Is(err, syscall.ECONNREFUSED)
		if !slices.Contains(refused, false) && time.Since(start) >= refusedGrace {
			return nil, fmt.Errorf("%w: every ZooKeeper server refused the connection (%s): nothing listens there",
				ErrUnreachable, strings.Join(opts.Servers, ", "))
		}
		// A server that is starting closes connections before its request
		// processors run; try again shortly.
		pause := 100 * time.Millisecond
		if time.Until(deadline) < pause {
			return nil, fmt.Errorf("%w: no ZooKeeper server among %s established a session within %s (last: %v)",
				ErrUnreachable, strings.Join(opts.Servers, ","), opts.SessionTimeout, last)
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func openSession(ctx context.Context, opts LiveOptions, addr string, deadline time.Time) (*Session, error) {
	d := &net.Dialer{Deadline: deadline}
	var nc net.Conn
	var err error
	if opts.TLS != nil {
		cfg := opts.TLS.Clone()
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cfg.ServerName = host
		}
		nc, err = (&tls.Dialer{NetDialer: d, Config: cfg}).DialContext(ctx, "tcp", addr)
	} else {
		nc, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	// The handshake must not outlive the context or the deadline.
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	_ = nc.SetDeadline(deadline)
	s := &Session{nc: nc, timeout: opts.SessionTimeout, pending: map[int32]*call{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.br = bufioReader(s)
	// ConnectRequest: protocolVersion, lastZxidSeen, timeOut (ms),
	// sessionId, passwd (16 bytes), readOnly (false: never read from a
	// server cut off from its quorum).
	req := make([]byte, 4, 48)
	req = binary.BigEndian.AppendUint32(req, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, uint32(opts.SessionTimeout.Milliseconds()))
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 16)
	req = append(req, make([]byte, 16)...)
	req = append(req, 0)
	binary.BigEndian.PutUint32(req, uint32(len(req)-4))
	if _, err := nc.Write(req); err != nil {
		nc.Close()
		return nil, err
	}
	resp, err := s.readFrame(20)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("connect response from %s: %w", addr, err)
	}
	// ConnectResponse: protocolVersion, timeOut, sessionId, passwd and,
	// from servers that know read-only mode, readOnly.
	r := newJute(resp)
	r.I32()
	timeout := r.I32()
	s.id = r.I64()
	r.Buffer()
	if r.err() != nil {
		nc.Close()
		return nil, fmt.Errorf("connect response from %s: %w", addr, r.err())
	}
	if timeout <= 0 {
		nc.Close()
		return nil, fmt.Errorf("%s refused the session", addr)
	}
	s.timeout = time.Duration(timeout) * time.Millisecond
	_ = nc.SetDeadline(time.Time{})
	s.lastSent.Store(time.Now().UnixNano())
	go s.readLoop()
	go s.writeLoop()
	go s.pingLoop()
	if opts.Auth != "" {
		// AuthPacket: type 0, scheme, auth. ZooKeeper's digest provider
		// accepts any password here (a wrong one shows as NoAuth on
		// reads); AuthFailed closes the session.
		c, err := s.send(xidAuth, opAuth, func(b []byte) []byte {
			b = binary.BigEndian.AppendUint32(b, 0)
			b = appendString(b, "digest")
			return appendString(b, opts.Auth)
		})
		if err == nil {
			err = c.wait()
		}
		if err != nil {
			s.Close()
			if errors.Is(err, codeAuthFailed) {
				return nil, fmt.Errorf("%w: the server rejected the session's authentication", ErrAuth)
			}
			return nil, fmt.Errorf("%w: %v", ErrAuth, err)
		}
	}
	return s, nil
}

// bufioReader buffers the session's reads: one read(2) takes whatever the
// server has sent, many responses.
func bufioReader(s *Session) *bufio.Reader { return bufio.NewReaderSize(deadlineReader{s}, 64<<10) }

// deadlineReader arms the read deadline before every read from the
// socket, which bufio does only when its buffer is empty: a silent server
// fails the session after the session timeout, and responses already
// buffered cost no syscall.
type deadlineReader struct{ s *Session }

func (d deadlineReader) Read(p []byte) (int, error) {
	_ = d.s.nc.SetReadDeadline(time.Now().Add(d.s.timeout))
	return d.s.nc.Read(p)
}

// readFrame reads one length-prefixed frame of at least min bytes.
func (s *Session) readFrame(min int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(hdr[:]))
	if n < int32(min) || int64(n) > maxFrame {
		return nil, fmt.Errorf("%w: frame length %d", errBadResponse, n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(s.br, b)
	return b, err
}

// readLoop is the one reader of the connection: it matches responses to
// requests by xid and ignores pings' answers and watch notifications (no
// watch is ever set, but a server may still send one).
func (s *Session) readLoop() {
	var hdr [20]byte
	for {
		if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
			s.fail(err)
			return
		}
		n := int64(int32(binary.BigEndian.Uint32(hdr[:4]))) - 16
		xid := int32(binary.BigEndian.Uint32(hdr[4:8]))
		zxid := int64(binary.BigEndian.Uint64(hdr[8:16]))
		code := zkCode(binary.BigEndian.Uint32(hdr[16:20]))
		if n < 0 {
			s.fail(fmt.Errorf("%w: frame length %d", errBadResponse, n+16))
			return
		}
		var c *call
		if xid != xidNotification && xid != xidPing {
			s.mu.Lock()
			c = s.pending[xid]
			delete(s.pending, xid)
			s.mu.Unlock()
			if c == nil {
				s.fail(fmt.Errorf("%w: answer to xid %d, which is not in flight", errBadResponse, xid))
				return
			}
		}
		if c == nil || n > maxFrame {
			_, err := s.br.Discard(int(n))
			if c != nil {
				// c is no longer pending: answer it here.
				c.err = fmt.Errorf("%w: %d bytes", errTooLarge, n)
				if err != nil {
					c.err = fmt.Errorf("%w: %v", errConnClosed, err)
				}
				close(c.done)
			}
			if err != nil {
				s.fail(err)
				return
			}
			continue
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(s.br, body); err != nil {
			// c is no longer pending: fail it here.
			c.err = fmt.Errorf("%w: %v", errConnClosed, err)
			close(c.done)
			s.fail(err)
			return
		}
		c.body, c.zxid, c.code = body, zxid, code
		close(c.done)
	}
}

// fail breaks the session once: the socket is closed and every request in
// flight fails.
func (s *Session) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = fmt.Errorf("%w: %v", errConnClosed, err)
		close(s.done)
	}
	pending := s.pending
	s.pending = map[int32]*call{}
	err = s.err
	s.mu.Unlock()
	s.nc.Close()
	for _, c := range pending {
		c.err = err
		close(c.done)
	}
}

// Close ends the session: closeSession, so that the server forgets it at
// once instead of after its timeout, waiting at most a second for the
// answer; then the connection is closed and any request still in flight
// fails.
func (s *Session) Close() error {
	if c, err := s.send(0, opCloseSession, nil); err == nil {
		select {
		case <-c.done:
		case <-time.After(time.Second):
		}
	}
	s.abort()
	return nil
}

// abort closes the connection at once: every request in flight fails now
// (a cancelled read); the server expires the session after its timeout.
func (s *Session) abort() { s.fail(net.ErrClosed) }

// send queues a request: RequestHeader{xid, type} and the body enc
// appends. xid 0 picks the next one.
func (s *Session) send(xid, op int32, enc func([]byte) []byte) (*call, error) {
	c := &call{done: make(chan struct{})}
	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		return nil, err
	}
	if xid == 0 {
		s.nextXid++
		if s.nextXid <= 0 {
			s.nextXid = 1
		}
		xid = s.nextXid
	}
	start := len(s.queue)
	s.queue = append(s.queue, 0, 0, 0, 0)
	s.queue = binary.BigEndian.AppendUint32(s.queue, uint32(xid))
	s.queue = binary.BigEndian.AppendUint32(s.queue, uint32(op))
	if enc != nil {
		s.queue = enc(s.queue)
	}
	binary.BigEndian.PutUint32(s.queue[start:], uint32(len(s.queue)-start-4))
	if xid != xidPing {
		s.pending[xid] = c
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	return c, nil
}

// maxFlushYields bounds how long a write waits for more requests: each
// yield lets every runnable goroutine run once, and the wait ends as soon
// as one yield queued nothing new. Measured on a 20,000-znode read with
// single requests, one to sixteen yields cut the writes from about one per
// request to one per two to four, and the read's CPU by a third.
const maxFlushYields = 4

// writeLoop is the one writer: requests queued while a write is under way
// leave together in the next one. Nothing waits for a timer; a lone
// request is written at once.
func (s *Session) writeLoop() {
	for {
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
		for range maxFlushYields {
			s.mu.Lock()
			n := len(s.queue)
			s.mu.Unlock()
			runtime.Gosched()
			s.mu.Lock()
			grew := len(s.queue) > n
			s.mu.Unlock()
			if !grew {
				break
			}
		}
		s.mu.Lock()
		buf := s.queue
		s.queue, s.spare = s.spare[:0], nil
		s.mu.Unlock()
		if len(buf) == 0 {
			continue
		}
		_ = s.nc.SetWriteDeadline(time.Now().Add(s.timeout))
		_, err := s.nc.Write(buf)
		s.lastSent.Store(time.Now().UnixNano())
		if err != nil {
			s.fail(err)
			return
		}
		s.mu.Lock()
		s.spare = buf[:0]
		s.mu.Unlock()
	}
}

// pingLoop keeps the session alive while nothing else is sent: a ping
// when a third of the session timeout passed since the last write.
func (s *Session) pingLoop() {
	every := max(s.timeout/3, 10*time.Millisecond)
	t := time.NewTicker(every / 2)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			if now.Sub(time.Unix(0, s.lastSent.Load())) >= every {
				if _, err := s.send(xidPing, opPing, nil); err != nil {
					return
				}
			}
		}
	}
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// pathRequest is the body of getData, getChildren, getChildren2 and exists
// (path, watch=false: withWatch) and of getACL (path alone).
func pathRequest(path string, withWatch bool) func([]byte) []byte {
	return func(b []byte) []byte {
		b = appendString(b, path)
		if withWatch {
			return append(b, 0)
		}
		return b
	}
}

// do sends one request and waits for its answer.
func (s *Session) do(op int32, enc func([]byte) []byte) (*call, error) {
	c, err := s.send(0, op, enc)
	if err != nil {
		return nil, err
	}
	return c, c.wait()
}

// Get reads a znode's data and stat (getData).
func (s *Session) Get(path string) ([]byte, Stat, error) {
	c, err := s.do(opGetData, pathRequest(path, true))
	if err != nil {
		return nil, Stat{}, err
	}
	r := newJute(c.body)
	data, st := r.dataResult()
	return data, st, r.done()
}

// Exists reports whether a znode exists and its stat.
func (s *Session) Exists(path string) (bool, Stat, error) {
	c, err := s.do(opExists, pathRequest(path, true))
	if errors.Is(err, codeNoNode) {
		return false, Stat{}, nil
	}
	if err != nil {
		return false, Stat{}, err
	}
	r := newJute(c.body)
	st := r.stat()
	return true, st, r.done()
}

// GetACL reads a znode's ACL.
func (s *Session) GetACL(path string) ([]ACL, error) {
	c, err := s.do(opGetACL, pathRequest(path, false))
	if err != nil {
		return nil, err
	}
	r := newJute(c.body)
	acl := r.ACLs()
	r.stat()
	return acl, r.done()
}

// ReadOp is one read of a multiRead: getData (Children false) or
// getChildren of Path.
type ReadOp struct {
	Path     string
	Children bool
}

// ReadResult is one sub-result of a multiRead: Err is nil, or a
// ZooKeeper error of that read alone (NoNode, NoAuth...: a multiRead is
// not atomic, every read is answered on its own).
type ReadResult struct {
	Data     []byte
	Stat     Stat
	Children []string
	Err      error
}

// startMulti sends a multiRead of ops.
func (s *Session) startMulti(ops []ReadOp) (*call, error) {
	return s.send(0, opMultiRead, multiRequest(len(ops), func(i int) int32 {
		if ops[i].Children {
			return opGetChildren
		}
		return opGetData
	}, func(b []byte, i int) []byte { return appendString(b, ops[i].Path) }))
}

// multiRequest encodes a MultiRequest of n reads: per read a
// MultiHeader{type op(i), done=false, err=-1} and its request (the path
// appendPath writes as a jute string, watch false), then a header with
// done set.
func multiRequest(n int, op func(int) int32, appendPath func([]byte, int) []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		for i := range n {
			b = binary.BigEndian.AppendUint32(b, uint32(op(i)))
			b = append(b, 0)
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			b = appendPath(b, i)
			b = append(b, 0)
		}
		b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
		b = append(b, 1)
		return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
	}
}

// MultiRead reads ops in one request (OpCode multiRead, ZooKeeper 3.6+).
// An error is returned for the request as a whole (connection, an old
// server's Unimplemented, a malformed response); each read's own error is
// in its result.
func (s *Session) MultiRead(ops []ReadOp) ([]ReadResult, error) {
	c, err := s.startMulti(ops)
	if err != nil {
		return nil, err
	}
	if err := c.wait(); err != nil {
		return nil, err
	}
	return decodeMulti(c.body, ops)
}

// decodeMulti decodes a MultiResponse to ops: per op a MultiHeader{type,
// done, err} and the op's response (getData: GetDataResponse, getChildren:
// GetChildrenResponse, error: ErrorResponse{err}), then a header with
// done set. A result must answer its op (same type, or an error).
func decodeMulti(body []byte, ops []ReadOp) ([]ReadResult, error) {
	return decodeResults(nil, body, len(ops), func(i int) bool { return ops[i].Children }, func(i int) string { return ops[i].Path }, false)
}

// decodeResults is decodeMulti for n reads, the i-th a getChildren when
// children(i), named path(i) in errors; with view, a getData's data
// aliases body instead of being copied (for a caller that copies what it
// keeps anyway). The results go into out when it has room for them (a
// caller done with the previous ones reuses their array).
func decodeResults(out []ReadResult, body []byte, n int, children func(int) bool, path func(int) string, view bool) ([]ReadResult, error) {
	r := newJute(body)
	if cap(out) < n {
		out = make([]ReadResult, n)
	} else {
		out = out[:n]
		clear(out)
	}
	for i := 0; ; i++ {
		typ := r.I32()
		doneFlag := r.Bool()
		herr := r.I32()
		if r.err() != nil {
			break
		}
		if doneFlag {
			if i != n {
				r.failf("%d results for %d reads", i, n)
			}
			break
		}
		if i >= n {
			r.failf("more results than the %d reads", n)
			break
		}
		kids := children(i)
		switch {
		case typ == opMultiError:
			code := zkCode(r.I32())
			if code == 0 || zkCode(herr) != code {
				r.failf("result %d: error %d in a header saying %d", i, code, herr)
			}
			out[i].Err = code
		case typ == opGetData && !kids && view:
			out[i].Data = r.BufferView()
			out[i].Stat = r.stat()
		case typ == opGetData && !kids:
			out[i].Data, out[i].Stat = r.dataResult()
		case typ == opGetChildren && kids:
			out[i].Children = r.strings()
		default:
			r.failf("result %d has type %d for a read of type %v", i, typ, kids)
		}
		if r.err() != nil {
			return nil, fmt.Errorf("%s: %w", path(i), r.err())
		}
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return out, nil
}

// juteReader decodes a response with zkfile's jute reader (the client
// protocol's records are jute, as ZooKeeper's files are) and adds the
// protocol's composite records. Its error wraps errBadResponse and names
// the byte position.
type juteReader struct{ zkfile.Jute }

func newJute(b []byte) *juteReader { return &juteReader{zkfile.NewJute(b)} }

func (r *juteReader) failf(format string, args ...any) { r.Fail(fmt.Errorf(format, args...)) }

// err is the first failure, nil when there is none.
func (r *juteReader) err() error {
	err, at := r.Err()
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: byte %d: %v", errBadResponse, at, err)
}

func (r *juteReader) strings() []string {
	n := max(r.Count(4), 0)
	out := make([]string, 0, n)
	for range n {
		out = append(out, r.Str())
	}
	return out
}

// stat decodes a Stat: czxid, mzxid, ctime, mtime, version, cversion,
// aversion, ephemeralOwner, dataLength, numChildren, pzxid.
func (r *juteReader) stat() Stat {
	b := r.Take(68)
	if b == nil {
		return Stat{}
	}
	u64 := func(i int) int64 { return int64(binary.BigEndian.Uint64(b[i:])) }
	u32 := func(i int) int32 { return int32(binary.BigEndian.Uint32(b[i:])) }
	return Stat{Czxid: u64(0), Mzxid: u64(8), Ctime: u64(16), Mtime: u64(24), Version: u32(32), Cversion: u32(36),
		Aversion: u32(40), EphemeralOwner: u64(44), DataLength: u32(52), NumChildren: u32(56), Pzxid: u64(60)}
}

// dataResult decodes a GetDataResponse (data, stat); the data is a copy,
// so that it does not pin the response.
func (r *juteReader) dataResult() ([]byte, Stat) {
	data := r.Buffer()
	return data, r.stat()
}

// done reports the sticky error, or trailing bytes.
func (r *juteReader) done() error {
	if err, _ := r.Err(); err == nil && r.Remaining() != 0 {
		r.failf("%d trailing bytes", r.Remaining())
	}
	return r.err()
}
