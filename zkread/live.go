package zkread

import (
	"context"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kmeta/kmeta/model"
)

// LiveOptions configures ReadLive.
type LiveOptions struct {
	// Servers are host:port addresses (no chroot: go-zookeeper would
	// dial the literal "host:port/chroot" forever).
	Servers []string
	// Chroot is the Kafka chroot ("/kafka/prod"), "" for none.
	Chroot string
	// SessionTimeout also bounds how long to wait for a first connection
	// (default 10 s).
	SessionTimeout time.Duration
	// Auth is "user:password" for ZooKeeper digest authentication.
	Auth string
	// TLS, when set, is used for every connection. See TLSConfig.
	TLS *tls.Config
	// InFlight bounds concurrent requests over all connections (default 64).
	InFlight int
	// Connections is the number of sessions to spread reads over (default 1).
	Connections int
	// ReadACLs also reads every znode's ACL (one more request per znode).
	ReadACLs bool
	// Consistent re-reads the tree until two consecutive checks of the
	// sentinel znodes agree (at most Retries+1 reads, default 3 retries).
	Consistent bool
	Retries    int
	// Progress, if set, is called with znodes read so far and znodes known
	// so far. It is called from one goroutine at a time.
	Progress func(done, known int)
}

// TLSConfig builds a client TLS config from PEM files: a CA bundle to trust
// (empty: the system pool) and an optional client certificate and key.
func TLSConfig(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: serverName, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("zkread: TLS CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("zkread: TLS CA %s holds no PEM certificate", caFile)
		}
		cfg.RootCAs = pool
	}
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("zkread: TLS client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// sentinels are the znodes whose stat moves with nearly every Kafka change:
// a new controller, topics created or deleted, broker registrations, config
// and ACL change notifications, ISR changes, pending deletions.
var sentinels = []string{"/controller_epoch", "/brokers/topics", "/brokers/ids", "/config/changes",
	"/admin/delete_topics", "/isr_change_notification", "/kafka-acl-changes", "/kafka-acl-extended-changes"}

// ReadLive reads the whole tree under the chroot from a live ensemble,
// strictly read-only (Get, Children, Exists, GetACL). It returns
// ErrUnreachable when no server answers within the session timeout, a
// *ZnodeError wrapping ErrNoNode when the chroot is missing, and a
// *NoAuthError (ErrNoAuth, plus ErrAuth when the password is evidently
// wrong) together with the readable part of the tree when znodes were
// refused.
func ReadLive(ctx context.Context, opts LiveOptions) (*Tree, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	chroot := NormalizeChroot(opts.Chroot)
	conns, err := connectAll(ctx, opts)
	if err != nil {
		return nil, err
	}
	// go-zookeeper's requests take no context and wait for as long as the
	// server keeps the session alive, so a cancelled read closes the
	// sessions: every request in flight then fails at once. Closing is
	// done once, whichever comes first.
	var closeOnce sync.Once
	closeAll := func() {
		closeOnce.Do(func() {
			var wg sync.WaitGroup
			for _, c := range conns {
				wg.Add(1)
				go func() { defer wg.Done(); c.Close() }()
			}
			wg.Wait()
		})
	}
	stop := context.AfterFunc(ctx, closeAll)
	defer func() {
		stop()
		closeAll()
	}()
	// After a cancel the requests fail as "connection closed"; report the
	// cancel instead.
	fail := func(err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	r := &liveReader{conns: conns, opts: opts, chroot: chroot}
	root := chroot
	if root == "" {
		root = "/"
	}
	ok, _, err := conns[0].Exists(root)
	if errors.Is(err, zk.ErrNoAuth) {
		// ZooKeeper 3.8 checks READ on exists too; the read below reports
		// the refused znodes with their ACLs.
		ok, err = true, nil
	}
	if err != nil {
		return nil, fail(r.zkErr(root, err))
	}
	if !ok {
		return nil, &ZnodeError{Path: root, Msg: "chroot does not exist", Err: ErrNoNode}
	}
	var changed []string
	for attempt := 0; ; attempt++ {
		before := r.sentinelStats()
		t, nerr, err := r.readTree(ctx)
		if err != nil {
			return nil, fail(err)
		}
		after := r.sentinelStats()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		changed = diffSentinels(before, after, t)
		if len(changed) == 0 || !opts.Consistent || attempt >= opts.Retries {
			t.Source = "zk://" + strings.Join(opts.Servers, ",") + chroot
			if len(changed) > 0 {
				t.Changed = true
				t.warnf(model.WarnTreeChanged, nil, "the tree changed while it was read (%s moved); the result may mix states", strings.Join(changed, ", "))
			}
			if nerr != nil {
				return t, nerr
			}
			return t, nil
		}
	}
}

func (opts LiveOptions) withDefaults() (LiveOptions, error) {
	if len(opts.Servers) == 0 {
		return opts, fmt.Errorf("%w: no ZooKeeper servers given", ErrSource)
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 10 * time.Second
	}
	if opts.InFlight <= 0 {
		opts.InFlight = 64
	}
	if opts.Connections <= 0 {
		opts.Connections = 1
	}
	if opts.Retries <= 0 {
		opts.Retries = 3
	}
	if opts.Auth != "" && !strings.Contains(opts.Auth, ":") {
		return opts, fmt.Errorf("%w: digest auth must be user:password", ErrAuth)
	}
	return opts, nil
}

// LiveSessions opens, established and authenticated, the sessions ReadLive
// reads over: the same dialer (TLS, write coalescing, read buffering),
// session timeout and digest auth. The caller closes them. It exists so
// that a measurement of what an ensemble serves (internal/bench's ceiling)
// goes through exactly the connections kmeta's read uses.
func LiveSessions(ctx context.Context, opts LiveOptions) ([]*zk.Conn, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return connectAll(ctx, opts)
}

// connectAll opens the sessions and waits for each to be established. The
// sessions are opened at once (creating a session is a transaction on the
// server, logged before it answers); the error of the first session that
// failed, in order, is returned, and every session is closed then.
func connectAll(ctx context.Context, opts LiveOptions) ([]*zk.Conn, error) {
	conns := make([]*zk.Conn, opts.Connections)
	errs := make([]error, opts.Connections)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() { conns[i], errs[i] = connectOne(ctx, opts) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	return conns, nil
}

// connectOne opens one session: TLS when configured, the batching
// connection, digest auth. On an error the session is closed.
func connectOne(ctx context.Context, opts LiveOptions) (*zk.Conn, error) {
	dialer := zk.Dialer(net.DialTimeout)
	if opts.TLS != nil {
		cfg := opts.TLS
		dialer = func(network, addr string, timeout time.Duration) (net.Conn, error) {
			c := cfg.Clone()
			if c.ServerName == "" {
				host, _, _ := net.SplitHostPort(addr)
				c.ServerName = host
			}
			return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, addr, c)
		}
	}
	base := dialer
	dialer = func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := base(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return newBatchingConn(c, opts.SessionTimeout), nil
	}
	conn, events, err := zk.Connect(opts.Servers, opts.SessionTimeout,
		zk.WithLogger(quietLogger{}), zk.WithLogInfo(false), zk.WithDialer(dialer))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if err := waitSession(ctx, events, opts); err != nil {
		conn.Close()
		return nil, err
	}
	if opts.Auth != "" {
		// go-zookeeper's AddAuth does not fail on a wrong password; a
		// wrong one shows up as NoAuth on reads (see NoAuthError).
		if err := conn.AddAuth("digest", []byte(opts.Auth)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%w: %v", ErrAuth, err)
		}
	}
	return conn, nil
}

func waitSession(ctx context.Context, events <-chan zk.Event, opts LiveOptions) error {
	timer := time.NewTimer(opts.SessionTimeout)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return fmt.Errorf("%w: connection closed", ErrUnreachable)
			}
			switch ev.State {
			case zk.StateHasSession:
				return nil
			case zk.StateAuthFailed:
				return fmt.Errorf("%w: the server rejected the session's authentication", ErrAuth)
			}
		case <-timer.C:
			return fmt.Errorf("%w: no ZooKeeper server among %s established a session within %s",
				ErrUnreachable, strings.Join(opts.Servers, ","), opts.SessionTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

type liveReader struct {
	conns  []*zk.Conn
	opts   LiveOptions
	chroot string
}

func (r *liveReader) abs(rel string) string {
	if r.chroot == "" {
		return rel
	}
	if rel == "/" {
		return r.chroot
	}
	return r.chroot + rel
}

func (r *liveReader) zkErr(path string, err error) error {
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		return &ZnodeError{Path: path, Err: ErrNoAuth}
	case errors.Is(err, zk.ErrAuthFailed):
		return &ZnodeError{Path: path, Err: ErrAuth}
	case errors.Is(err, zk.ErrNoServer), errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrSessionExpired), errors.Is(err, zk.ErrClosing):
		return &ZnodeError{Path: path, Err: fmt.Errorf("%w: %v", ErrUnreachable, err)}
	}
	return &ZnodeError{Path: path, Err: err}
}

// sentinelStats reads the sentinels' stats, all requests in flight at once
// (one round trip instead of one per sentinel).
func (r *liveReader) sentinelStats() map[string]*zk.Stat {
	stats := make([]*zk.Stat, len(sentinels))
	var wg sync.WaitGroup
	for i, p := range sentinels {
		wg.Go(func() {
			if ok, st, err := r.conns[0].Exists(r.abs(p)); err == nil && ok {
				stats[i] = st
			}
		})
	}
	wg.Wait()
	out := map[string]*zk.Stat{}
	for i, p := range sentinels {
		if stats[i] != nil {
			out[p] = stats[i]
		}
	}
	return out
}

// diffSentinels reports sentinels whose stat differs between the checks
// before and after the read, or from what the read itself saw.
func diffSentinels(before, after map[string]*zk.Stat, t *Tree) []string {
	var out []string
	for _, p := range sentinels {
		b, a := before[p], after[p]
		moved := (a == nil) != (b == nil) || (a != nil && (a.Mzxid != b.Mzxid || a.Pzxid != b.Pzxid || a.Cversion != b.Cversion))
		if n := t.Nodes[p]; !moved && a != nil && n != nil && (n.Stat.Mzxid != a.Mzxid || n.Stat.Pzxid != a.Pzxid) {
			moved = true
		}
		if moved {
			out = append(out, p)
		}
	}
	return out
}

// readTree reads level by level; within a level up to InFlight workers,
// spread over the connections, each read one znode at a time
// (go-zookeeper pipelines requests made from different goroutines on one
// connection), so up to InFlight requests are in flight.
func (r *liveReader) readTree(ctx context.Context) (*Tree, error, error) {
	t := NewTree()
	t.Chroot = r.chroot
	var (
		mu     sync.Mutex
		noAuth []string
		fatal  error
		done   int
		known  = 1
	)
	level := []string{"/"}
	for len(level) > 0 {
		var next []string
		var wg sync.WaitGroup
		var cursor atomic.Int64
		for w := range min(r.opts.InFlight, len(level)) {
			conn := r.conns[w%len(r.conns)]
			wg.Go(func() {
				for ctx.Err() == nil {
					i := int(cursor.Add(1)) - 1
					if i >= len(level) {
						return
					}
					rel := level[i]
					n, kids, err := r.readNode(conn, rel)
					mu.Lock()
					done++
					switch {
					case err == nil:
						t.Nodes[rel] = n
						for _, k := range kids {
							next = append(next, Child(rel, k))
						}
						known += len(kids)
						t.MaxZxid = max(t.MaxZxid, n.Stat.Czxid, n.Stat.Mzxid, n.Stat.Pzxid)
					case errors.Is(err, zk.ErrNoNode):
						// Deleted after its parent was listed: the parent's
						// pzxid moved, which the sentinel check may catch.
						where := model.NoLocation()
						where.Znode = rel
						t.warnf(model.WarnTreeChanged, &where, "znode %s disappeared while reading", quoteUnsafe(rel))
					case errors.Is(err, zk.ErrNoAuth):
						noAuth = append(noAuth, rel)
					default:
						if fatal == nil {
							fatal = r.zkErr(rel, err)
						}
					}
					if r.opts.Progress != nil {
						r.opts.Progress(done, known)
					}
					stop := fatal != nil
					mu.Unlock()
					if stop {
						return
					}
				}
			})
		}
		// On a cancel the workers stop (ReadLive closes the sessions, so
		// the requests in flight fail at once); waiting for them means no
		// goroutine touches the tree or calls Progress after the return.
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if fatal != nil {
			return nil, nil, fatal
		}
		sort.Strings(next)
		level = next
	}
	// A node whose child vanished keeps the stale name; drop such names so
	// Children always points at nodes of the tree.
	for p, n := range t.Nodes {
		kept := n.Children[:0]
		for _, c := range n.Children {
			if _, ok := t.Nodes[Child(p, c)]; ok {
				kept = append(kept, c)
			}
		}
		n.Children = kept
	}
	t.sortWarnings()
	if len(noAuth) > 0 {
		sort.Strings(noAuth)
		return t, r.noAuthError(noAuth), nil
	}
	return t, nil, nil
}

// likelyContainer says whether Kafka keeps a znode only to hold children
// (null data): topics' partitions/ and partitions/<p>. There is one per
// partition, so reading them with one getChildren2 (stat and children)
// instead of getData then getChildren removes a third of the requests of a
// big cluster. The guess only picks the order of requests: a node that
// turns out to have data is read with getData as well. The one thing a stat
// cannot tell is null data from empty data; such a node is recorded as
// null, which is what Kafka writes there.
func likelyContainer(rel string) bool {
	rest, ok := strings.CutPrefix(rel, "/brokers/topics/")
	if !ok {
		return false
	}
	_, sub, ok := strings.Cut(rest, "/")
	return ok && (sub == "partitions" || strings.HasPrefix(sub, "partitions/") && !strings.Contains(sub[len("partitions/"):], "/"))
}

func (r *liveReader) readNode(conn *zk.Conn, rel string) (*Node, []string, error) {
	p := r.abs(rel)
	var (
		data []byte
		st   *zk.Stat
		kids []string
		err  error
	)
	if likelyContainer(rel) {
		kids, st, err = conn.Children(p)
		if err != nil {
			return nil, nil, err
		}
		if st.DataLength > 0 {
			// Not a container after all. Re-read both, so data, stat and
			// children come from the same getData/getChildren pair as for
			// any other node.
			kids = nil
			data, st, err = conn.Get(p)
			if err != nil {
				return nil, nil, err
			}
			if st.NumChildren > 0 {
				if kids, _, err = conn.Children(p); err != nil {
					return nil, nil, err
				}
			}
		}
	} else {
		data, st, err = conn.Get(p)
		if err != nil {
			return nil, nil, err
		}
		if st.NumChildren > 0 {
			kids, _, err = conn.Children(p)
			if err != nil {
				return nil, nil, err
			}
		}
	}
	sort.Strings(kids)
	n := &Node{Data: data, Stat: statOf(st)}
	n.Children = append([]string{}, kids...)
	if r.opts.ReadACLs {
		acl, _, err := conn.GetACL(p)
		if err != nil {
			return nil, nil, err
		}
		n.ACL = make([]ACL, len(acl))
		for i, a := range acl {
			n.ACL[i] = ACL{Perms: a.Perms, Scheme: a.Scheme, ID: a.ID}
		}
	}
	return n, kids, nil
}

func statOf(s *zk.Stat) Stat {
	return Stat{Czxid: s.Czxid, Mzxid: s.Mzxid, Pzxid: s.Pzxid, Ctime: s.Ctime, Mtime: s.Mtime,
		Version: s.Version, Cversion: s.Cversion, Aversion: s.Aversion, EphemeralOwner: s.EphemeralOwner,
		DataLength: s.DataLength, NumChildren: s.NumChildren}
}

// noAuthError builds the error for refused znodes. With digest credentials
// it looks for proof that the password is wrong in the ACLs it can read: of
// the refused znodes (servers before 3.7 allow that), then of their
// parents. An entry for our digest user proves it when the server shows its
// hash and the hash is not ours, or when the server redacts it (we lack
// ADMIN there) although the entry grants our user ADMIN.
func (r *liveReader) noAuthError(paths []string) error {
	e := &NoAuthError{Paths: paths}
	if r.opts.Auth == "" {
		return e
	}
	user, _, _ := strings.Cut(r.opts.Auth, ":")
	e.User = user
	sum := sha1.Sum([]byte(r.opts.Auth))
	hash := base64.StdEncoding.EncodeToString(sum[:])
	cands := append([]string{}, paths...)
	seen := map[string]bool{}
	for _, p := range paths {
		if p != "/" {
			parent := p[:strings.LastIndexByte(p, '/')]
			if parent == "" {
				parent = "/"
			}
			cands = append(cands, parent)
		}
	}
	for _, p := range cands {
		if seen[p] || len(seen) >= 32 {
			continue
		}
		seen[p] = true
		acl, _, err := r.conns[0].GetACL(r.abs(p))
		if err != nil {
			continue
		}
		for _, a := range acl {
			u, h, _ := strings.Cut(a.ID, ":")
			if a.Scheme != "digest" || u != user {
				continue
			}
			if (h != "x" && h != hash) || (h == "x" && a.Perms&zk.PermAdmin != 0) {
				e.WrongCredentials = true
				return e
			}
		}
	}
	return e
}

// batchingConn coalesces writes and buffers reads. go-zookeeper writes
// every request with its own write(2) and reads every response with two
// read(2)s (length, then body), each under a fresh read deadline; with many
// requests in flight those syscalls and the server's wake-up per packet
// dominate a read. Here Write only queues the bytes and one goroutine
// writes whatever has queued, so requests issued while a write is under
// way leave together in the next one. Nothing waits for a timer: a lone
// request is written at once. A write error is returned by the next Write
// (go-zookeeper then reconnects), and the read side fails as well because
// the connection is closed. Reads are served from a buffer filled by one
// read(2) of whatever the server has sent; the read deadline go-zookeeper
// sets is remembered and applied to the socket only when the buffer is
// empty and a read(2) is due, so a response already buffered costs no
// syscall and no timer update, and a silent server still times out.
type batchingConn struct {
	net.Conn
	timeout time.Duration

	mu      sync.Mutex
	pending []byte
	spare   []byte
	err     error
	closed  bool
	wake    chan struct{}
	done    chan struct{}

	// Read side: used by go-zookeeper's one receiving goroutine only
	// (and by its handshake before that goroutine starts).
	rbuf         []byte
	rpos, rend   int
	readDeadline time.Time
	applied      time.Time // the deadline last set on the socket
}

// batchReadSize is the read buffer: room for a few hundred typical
// responses; a larger response is read through it in pieces.
const batchReadSize = 64 << 10

// maxFlushYields bounds how long a write waits for more requests: each
// yield lets every runnable goroutine run once, and the wait ends as soon
// as one yield queued nothing new. Measured on a 20,000-znode read, one to
// sixteen yields cut the writes from about one per request to one per two
// to four, and the read's CPU by a third.
const maxFlushYields = 4

func newBatchingConn(c net.Conn, timeout time.Duration) *batchingConn {
	b := &batchingConn{Conn: c, timeout: timeout, wake: make(chan struct{}, 1), done: make(chan struct{}),
		rbuf: make([]byte, batchReadSize)}
	go b.flushLoop()
	return b
}

func (b *batchingConn) Read(p []byte) (int, error) {
	if b.rpos == b.rend {
		if !b.readDeadline.Equal(b.applied) {
			if err := b.Conn.SetReadDeadline(b.readDeadline); err != nil {
				return 0, err
			}
			b.applied = b.readDeadline
		}
		n, err := b.Conn.Read(b.rbuf)
		b.rpos, b.rend = 0, n
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, b.rbuf[b.rpos:b.rend])
	b.rpos += n
	return n, nil
}

// SetReadDeadline is remembered; Read applies it before it reads from the
// socket.
func (b *batchingConn) SetReadDeadline(t time.Time) error {
	b.readDeadline = t
	return nil
}

func (b *batchingConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.err != nil {
		err := b.err
		b.mu.Unlock()
		return 0, err
	}
	if b.closed {
		b.mu.Unlock()
		return 0, net.ErrClosed
	}
	b.pending = append(b.pending, p...) // the caller reuses p
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	return len(p), nil
}

func (b *batchingConn) flushLoop() {
	for {
		select {
		case <-b.wake:
		case <-b.done:
			return
		}
		// Let the goroutines that are runnable now (the ones a burst of
		// responses just woke) queue their requests before writing: yield
		// while the queue still grows, a few times at most.
		for range maxFlushYields {
			b.mu.Lock()
			n := len(b.pending)
			b.mu.Unlock()
			runtime.Gosched()
			b.mu.Lock()
			grew := len(b.pending) > n
			b.mu.Unlock()
			if !grew {
				break
			}
		}
		b.mu.Lock()
		buf := b.pending
		b.pending, b.spare = b.spare[:0], nil
		b.mu.Unlock()
		if len(buf) == 0 {
			continue
		}
		_ = b.Conn.SetWriteDeadline(time.Now().Add(b.timeout))
		_, err := b.Conn.Write(buf)
		b.mu.Lock()
		b.spare = buf[:0]
		if err != nil && b.err == nil {
			b.err = err
		}
		b.mu.Unlock()
		if err != nil {
			b.Conn.Close()
			return
		}
	}
}

// SetWriteDeadline is ignored: writes happen in flushLoop, which sets its
// own deadline.
func (b *batchingConn) SetWriteDeadline(time.Time) error { return nil }

func (b *batchingConn) SetDeadline(t time.Time) error { return b.SetReadDeadline(t) }

func (b *batchingConn) Close() error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
	b.mu.Unlock()
	return b.Conn.Close()
}
