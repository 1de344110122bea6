package zkread

import (
	"context"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
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
	// InFlight bounds the requests in flight over all connections
	// (default 64); a multiRead of Batch reads is one request.
	InFlight int
	// Batch is the number of reads sent in one multiRead request
	// (default 128); 1 sends every read as its own request. Servers before
	// ZooKeeper 3.6 have no multiRead and are read one request per read
	// whatever Batch says.
	Batch int
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
	// MaxBuffer is jute.maxbuffer (<= 0: ZooKeeper's default): a znode
	// longer than a data dir read accepts (zkfile.LengthLimit) fails the
	// read, as it fails ZooKeeper's Java client ("Packet len is out of
	// range"). A server sends one only with its own jute.maxbuffer raised;
	// kmeta's client takes frames up to maxFrame whatever this says.
	MaxBuffer int
}

// TLSConfig builds a client TLS config from PEM files: a CA bundle to trust
// (empty: the system pool) and an optional client certificate and key.
func TLSConfig(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: serverName, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := model.ReadInput(caFile, model.InputKeyStore)
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
		certPEM, err := model.ReadInput(certFile, model.InputKeyStore)
		if err != nil {
			return nil, fmt.Errorf("zkread: TLS client certificate: %w", err)
		}
		keyPEM, err := model.ReadInput(keyFile, model.InputKeyStore)
		if err != nil {
			return nil, fmt.Errorf("zkread: TLS client key: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("zkread: TLS client certificate %s and key %s: %w", certFile, keyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// sentinels are the znodes whose stat moves with nearly every Kafka change:
// a new controller, topics created or deleted, broker registrations, config
// and ACL change notifications, ISR changes, pending deletions.
var sentinels = []string{"/controller_epoch", "/brokers/topics", "/brokers/ids", "/config/changes",
	"/admin/delete_topics", "/isr_change_notification", "/kafka-acl-changes", "/kafka-acl-extended-changes"}

// ReadLive reads the whole tree under the chroot from a live ensemble,
// strictly read-only (getData, getChildren, getChildren2, multiRead of
// those, exists, getACL). It returns
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
	// Requests wait for as long as the server keeps the session alive,
	// so a cancelled read closes the sessions: every request in flight
	// then fails at once. Closing is done once, whichever comes first.
	// A cancel aborts the sessions; a read that ends closes them.
	var closeOnce sync.Once
	closeAll := func(abort bool) {
		closeOnce.Do(func() {
			var wg sync.WaitGroup
			for _, c := range conns {
				wg.Go(func() {
					if abort {
						c.abort()
					} else {
						c.Close()
					}
				})
			}
			wg.Wait()
		})
	}
	r := &liveReader{conns: conns, opts: opts, chroot: chroot}
	stop := context.AfterFunc(ctx, func() { closeAll(true) })
	defer func() {
		stop()
		closeAll(ctx.Err() != nil)
	}()
	// After a cancel the requests fail as "connection closed"; report the
	// cancel instead.
	fail := func(err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	root := chroot
	if root == "" {
		root = "/"
	}
	if err := r.probeMultiRead(ctx, root); err != nil {
		return nil, fail(err)
	}
	ok, _, err := r.conns[0].Exists(root)
	if errors.Is(err, codeNoAuth) {
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
			t.Origin, t.Servers = t.Source, slices.Clone(opts.Servers)
			t.ReaderSessions = r.sessionIDs()
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
	if opts.Batch <= 0 {
		opts.Batch = 128
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
// reads over: the same client (TLS, write coalescing, read buffering),
// session timeout and digest auth. The caller closes them. It exists so
// that a measurement of what an ensemble serves (internal/testkit/bench's ceiling)
// goes through exactly the connections kmeta's read uses.
func LiveSessions(ctx context.Context, opts LiveOptions) ([]*Session, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return connectAll(ctx, opts)
}

// permDelete is ZooKeeper's DELETE permission bit: deleting a znode is
// allowed by its parent's ACL.
const permDelete = 8

// DeleteSchemes reads the ACL of path (the chroot, say) over one session
// of opts and returns the schemes of the entries that allow deleting its
// children ("world", "sasl", "digest", "ip", "x509", ...), sorted: what a
// client must log in as to delete /controller or /migration under it.
func DeleteSchemes(ctx context.Context, opts LiveOptions, path string) ([]string, error) {
	opts.Connections = 1
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	cs, err := connectAll(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer cs[0].Close()
	acl, err := cs[0].GetACL(path)
	if err != nil {
		return nil, fmt.Errorf("zkread: ACL of %s: %w", model.Shown(path), err)
	}
	var out []string
	for _, a := range acl {
		if a.Perms&permDelete != 0 && !slices.Contains(out, a.Scheme) {
			out = append(out, a.Scheme)
		}
	}
	slices.Sort(out)
	return out, nil
}

// connectAll opens the sessions and waits for each to be established. The
// sessions are opened at once (creating a session is a transaction on the
// server, logged before it answers); the error of the first session that
// failed, in order, is returned, and every session is closed then.
func connectAll(ctx context.Context, opts LiveOptions) ([]*Session, error) {
	conns := make([]*Session, opts.Connections)
	errs := make([]error, opts.Connections)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() { conns[i], errs[i] = dialSession(ctx, opts, i) })
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

type liveReader struct {
	conns  []*Session
	opts   LiveOptions
	chroot string
	// multi: the server answers multiRead (ZooKeeper 3.6+).
	multi bool
	// replaced are the ids of sessions the read opened and replaced (the
	// multiRead probe's, closed by a server without multiRead).
	replaced []int64
}

// sessionIDs are the ids of every session the read opened, sorted.
func (r *liveReader) sessionIDs() []int64 {
	ids := slices.Clone(r.replaced)
	for _, c := range r.conns {
		ids = append(ids, c.id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
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

// rel is the tree's path of abs, a path under the chroot.
func (r *liveReader) rel(abs string) string {
	switch {
	case r.chroot == "":
		return abs
	case len(abs) == len(r.chroot):
		return "/"
	}
	return abs[len(r.chroot):]
}

func (r *liveReader) zkErr(path string, err error) error {
	switch {
	case errors.Is(err, codeNoAuth):
		return &ZnodeError{Path: path, Err: ErrNoAuth}
	case errors.Is(err, codeAuthFailed):
		return &ZnodeError{Path: path, Err: ErrAuth}
	case errors.Is(err, errConnClosed), errors.Is(err, codeSessionExpired):
		return &ZnodeError{Path: path, Err: fmt.Errorf("%w: %v", ErrUnreachable, err)}
	}
	return &ZnodeError{Path: path, Err: err}
}

// sentinelStats reads the sentinels' stats, all requests in flight at once
// (one round trip instead of one per sentinel).
func (r *liveReader) sentinelStats() map[string]*Stat {
	calls := make([]*call, len(sentinels))
	for i, p := range sentinels {
		calls[i], _ = r.conns[0].send(0, opExists, pathRequest(r.abs(p), true))
	}
	out := map[string]*Stat{}
	for i, p := range sentinels {
		if calls[i] == nil || calls[i].wait() != nil {
			continue
		}
		rd := newJute(calls[i].body)
		if st := rd.stat(); rd.done() == nil {
			out[p] = &st
		}
	}
	return out
}

// diffSentinels reports sentinels whose stat differs between the checks
// before and after the read, or from what the read itself saw.
func diffSentinels(before, after map[string]*Stat, t *Tree) []string {
	var out []string
	for _, p := range sentinels {
		b, a := before[p], after[p]
		moved := (a == nil) != (b == nil) || (a != nil && (a.Mzxid != b.Mzxid || a.Pzxid != b.Pzxid || a.Cversion != b.Cversion))
		if n := t.Get(p); !moved && a != nil && n != nil && (n.Stat.Mzxid != a.Mzxid || n.Stat.Pzxid != a.Pzxid) {
			moved = true
		}
		if moved {
			out = append(out, p)
		}
	}
	return out
}

// permAdmin is ZooDefs.Perms.ADMIN.
const permAdmin = 16

// probeMultiRead finds out whether the server answers multiRead with one
// getData of the root. ZooKeeper before 3.6 does not know the opcode: it
// answers Unimplemented and closes the connection (see the package doc),
// so the probing session is replaced by a new one and the read goes one
// request per read. With Batch 1 nothing is probed.
func (r *liveReader) probeMultiRead(ctx context.Context, root string) error {
	if r.opts.Batch <= 1 {
		return nil
	}
	_, err := r.conns[0].MultiRead([]ReadOp{{Path: root}})
	if err == nil {
		r.multi = true
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !errors.Is(err, codeUnimplemented) && !errors.Is(err, errConnClosed) {
		return r.zkErr(root, err)
	}
	r.conns[0].abort() // the server closed it
	r.replaced = append(r.replaced, r.conns[0].id)
	s, err := dialSession(ctx, r.opts, 0)
	if err != nil {
		return err
	}
	r.conns[0] = s
	return nil
}

// nodeRead is one znode of a level being read: its reads are answered in
// any order, and it is complete when none is outstanding.
type nodeRead struct {
	// abs is the znode's path on the server (rel is the tree's).
	abs string
	// parent is the node of the tree being built the znode goes under
	// (NoRef for the root).
	parent zkfile.Ref

	data      []byte
	stat      Stat
	kids      []string
	acl       []ACL
	kidsAsked bool
	pending   int
	err       error
	// spec is the read of the child a partition znode always has in
	// Kafka's layout ("state"), asked with its own data (see
	// partitionState); adopted when the znode's stat says it is its one
	// child.
	spec    ReadResult
	hasSpec bool
	// state is that child, read: it goes into the tree with the znode,
	// not into the next level.
	state *ReadResult
}

// readItem is one read of a znode: opGetData, opGetChildren,
// opGetChildren2 or opGetACL. solo sends it as its own request even when
// multiRead batching is on (after a batch's response was too large).
// spec: the getData is of the znode's child "state" (nodeRead.spec).
type readItem struct {
	n    *nodeRead
	op   int32
	solo bool
	spec bool
}

// packet is one request in flight: a multiRead of items, or one item.
type packet struct {
	c     *call
	items []readItem
	multi bool
	err   error
}

// readTree reads the tree with one goroutine per connection, each keeping
// a window of requests in flight: multiRead batches of up to Batch reads
// (getData, and getChildren for nodes expected to have children) when the
// server has multiRead, single requests otherwise. Follow-up reads (the
// children of a node whose stat shows some) go out on the same connection
// with the next requests. A znode's children are read as soon as it is
// complete, not when its whole level is: the read never waits with the
// server idle between two levels. The order reads are made in shows
// nowhere: the tree sorts every node's children.
func (r *liveReader) readTree(ctx context.Context) (*Tree, error, error) {
	t := NewTree()
	t.Chroot = r.chroot
	// The znodes go into a compact tree as their reads complete, each
	// under its parent (complete before it): what an offline read
	// holds, and decodes from as fast.
	b := zkfile.NewBuilder()
	var (
		noAuth []string
		fatal  error
		done   int
		known  = 1
	)
	// The data limit is checked as each znode is read: the first path in
	// order over the limit fails the read (tooLargeError).
	limit := zkfile.LengthLimit(r.opts.MaxBuffer)
	tooLarge, tooLargeSize := "", 0
	checkLimit := func(rel string, data []byte) {
		if len(data) > limit && (tooLarge == "" || rel < tooLarge) {
			tooLarge, tooLargeSize = rel, len(data)
		}
	}
	q := &workQueue{nodes: []levelNode{{abs: r.abs("/"), parent: zkfile.NoRef}}}
	q.cond = sync.NewCond(&q.mu)
	finish := func(n *nodeRead) {
		rel := r.rel(n.abs)
		q.mu.Lock()
		defer q.mu.Unlock()
		q.open--
		done++
		added := len(q.nodes)
		switch {
		case n.err == nil:
			name := n.abs[strings.LastIndexByte(n.abs, '/')+1:]
			ref := b.Add(n.parent, name, n.data, n.stat, n.acl)
			checkLimit(rel, n.data)
			if int64(len(n.kids)) != int64(n.stat.NumChildren) {
				// The stat (getData) and the listing (getChildren) are
				// two reads: children were created or deleted between
				// them. The tree (and a dump of it) keeps both as read.
				where := model.NoLocation()
				where.Znode = rel
				t.warnf(model.WarnTreeChanged, &where, "znode %s: its stat counts %d child(ren), %d were listed: it changed while it was read", model.Shown(rel), n.stat.NumChildren, len(n.kids))
			}
			known += len(n.kids)
			t.MaxZxid = max(t.MaxZxid, n.stat.Czxid, n.stat.Mzxid, n.stat.Pzxid)
			if st := n.state; st != nil {
				// Read with its parent: it is in the tree now, and
				// Progress hears of each (one call per znode).
				b.Add(ref, stateChild, st.Data, st.Stat, nil)
				if len(st.Data) > limit {
					checkLimit(Child(rel, stateChild), st.Data)
				}
				t.MaxZxid = max(t.MaxZxid, st.Stat.Czxid, st.Stat.Mzxid, st.Stat.Pzxid)
				if r.opts.Progress != nil {
					r.opts.Progress(done, known)
				}
				done++
				break
			}
			for _, k := range n.kids {
				q.nodes = append(q.nodes, levelNode{abs: Child(n.abs, k), parent: ref})
			}
		case errors.Is(n.err, codeNoNode):
			// Deleted after its parent was listed: the parent's
			// pzxid moved, which the sentinel check may catch.
			where := model.NoLocation()
			where.Znode = rel
			t.warnf(model.WarnTreeChanged, &where, "znode %s disappeared while reading", model.Shown(rel))
		case errors.Is(n.err, codeNoAuth):
			noAuth = append(noAuth, rel)
		default:
			if fatal == nil {
				fatal = r.zkErr(rel, n.err)
			}
			q.stop.Store(true)
		}
		if r.opts.Progress != nil {
			r.opts.Progress(done, known)
		}
		// Idle workers look again: there are new znodes, or none will
		// come (the read is over or stopped).
		if len(q.nodes) > added || q.open == 0 || q.stop.Load() {
			q.cond.Broadcast()
		}
	}
	// A cancel wakes idle workers too (ReadLive closes the sessions, so
	// the requests in flight fail at once).
	stopWake := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.stop.Store(true)
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stopWake()
	window := max(1, r.opts.InFlight/len(r.conns))
	var wg sync.WaitGroup
	for _, conn := range r.conns {
		wg.Go(func() {
			w := levelWorker{r: r, conn: conn, q: q, finish: finish}
			w.run(ctx, window)
		})
	}
	// On a cancel the workers stop; waiting for them means no goroutine
	// touches the tree or calls Progress after the return.
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if fatal != nil {
		return nil, nil, fatal
	}
	if tooLarge != "" {
		return nil, nil, tooLargeError(tooLarge, tooLargeSize, limit)
	}
	// A node whose child vanished is not listed as its parent: the tree
	// lists the children it holds.
	t.adopt(b.Finish())
	t.sortWarnings()
	if len(noAuth) > 0 {
		sort.Strings(noAuth)
		return t, r.noAuthError(noAuth), nil
	}
	return t, nil, nil
}

// levelNode is a znode to read, with the node its parent became in the
// tree.
type levelNode struct {
	abs    string // the path on the server
	parent zkfile.Ref
}

// workQueue holds the znodes known and not yet claimed by a worker, in
// the order they became known.
type workQueue struct {
	mu    sync.Mutex
	cond  *sync.Cond // signalled when nodes are added, open reaches 0, or stop is set
	nodes []levelNode
	head  int // nodes[:head] are claimed
	open  int // znodes claimed and not finished
	stop  atomic.Bool
}

// take claims the next known znode, waiting while there is none yet and
// znodes are being read that may list some (wait false: only when idle is
// not set). ok is false when the read is over or stopped.
func (q *workQueue) take(wait bool) (levelNode, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.stop.Load() {
			return levelNode{}, false
		}
		if q.head < len(q.nodes) {
			n := q.nodes[q.head]
			q.nodes[q.head] = levelNode{}
			q.head++
			q.open++
			if q.head == len(q.nodes) {
				q.nodes, q.head = q.nodes[:0], 0
			}
			return n, true
		}
		if !wait || q.open == 0 {
			return levelNode{}, false
		}
		q.cond.Wait()
	}
}

// levelWorker reads znodes over one connection: it claims znodes from the
// shared queue and keeps its follow-up reads.
type levelWorker struct {
	r      *liveReader
	conn   *Session
	q      *workQueue
	finish func(*nodeRead)
	queue  []readItem // follow-ups, sent before new znodes: queue[head:]
	head   int
	// idle: nothing in flight, so claim may wait for znodes.
	idle bool
	// results is the array the last multiRead's results were decoded
	// into; free holds nodes finished, for claim to reuse: a big
	// cluster's read allocates neither per znode.
	results []ReadResult
	free    []*nodeRead
}

// claim takes the next known znode and queues its first reads. With
// nothing in flight on the connection it waits for one.
func (w *levelWorker) claim() bool {
	ln, ok := w.q.take(w.idle)
	if !ok {
		return false
	}
	w.idle = false
	var n *nodeRead
	if k := len(w.free); k > 0 {
		n, w.free = w.free[k-1], w.free[:k-1]
		*n = nodeRead{abs: ln.abs, parent: ln.parent}
	} else {
		n = &nodeRead{abs: ln.abs, parent: ln.parent}
	}
	rel := w.r.rel(n.abs)
	switch {
	case w.r.multi && !w.r.opts.ReadACLs && isPartition(rel):
		// Its data, and its child "state" read at once, in place of
		// asking its children: a third of a big cluster's reads fewer.
		n.kidsAsked = true
		w.add(n, opGetData, false)
		n.pending++
		w.queue = append(w.queue, readItem{n: n, op: opGetData, spec: true})
	case w.r.multi && expectsChildren(rel):
		n.kidsAsked = true
		w.add(n, opGetData, false)
		w.add(n, opGetChildren, false)
	case !w.r.multi && likelyContainer(rel):
		n.kidsAsked = true
		w.add(n, opGetChildren2, false)
	default:
		w.add(n, opGetData, false)
	}
	if w.r.opts.ReadACLs {
		w.add(n, opGetACL, false)
	}
	return true
}

func (w *levelWorker) add(n *nodeRead, op int32, solo bool) {
	n.pending++
	w.queue = append(w.queue, readItem{n: n, op: op, solo: solo})
}

// batchable says whether an item can go in a multiRead.
func (w *levelWorker) batchable(it readItem) bool {
	return w.r.multi && !it.solo && (it.op == opGetData || it.op == opGetChildren)
}

// nextPackets sends the next requests: the queued follow-ups first, then
// reads of newly claimed znodes, up to Batch reads in one multiRead; a
// read a multiRead cannot carry (getACL, or one whose batch was too
// large) met on the way goes out as its own request, and counts towards
// the Batch reads taken.
func (w *levelWorker) nextPackets() []*packet {
	var out []*packet
	var items []readItem
	if w.r.multi {
		items = make([]readItem, 0, w.r.opts.Batch)
	}
	for taken := 0; taken < w.r.opts.Batch; taken++ {
		if w.head == len(w.queue) && !w.claim() {
			break
		}
		it := w.queue[w.head]
		w.head++
		if w.head == len(w.queue) {
			// Emptied: the next reads reuse the array.
			w.queue, w.head = w.queue[:0], 0
		}
		w.idle = false // a request goes out: claim must not wait now
		if !w.batchable(it) {
			p := &packet{items: []readItem{it}}
			p.c, p.err = w.conn.send(0, it.op, pathRequest(it.path(), it.op != opGetACL))
			out = append(out, p)
			if !w.r.multi {
				return out
			}
			continue
		}
		items = append(items, it)
	}
	if len(items) > 0 {
		p := &packet{items: items, multi: true}
		p.c, p.err = w.conn.send(0, opMultiRead, encodeItems(items))
		out = append(out, p)
	}
	return out
}

func (w *levelWorker) run(ctx context.Context, window int) {
	var inflight []*packet
	for {
		for len(inflight) < window && ctx.Err() == nil && !w.q.stop.Load() {
			w.idle = len(inflight) == 0
			ps := w.nextPackets()
			if len(ps) == 0 {
				break
			}
			inflight = append(inflight, ps...)
		}
		if len(inflight) == 0 {
			return
		}
		p := inflight[0]
		inflight = inflight[1:]
		w.complete(p)
	}
}

// complete waits for a request's answer and applies it to its znodes.
func (w *levelWorker) complete(p *packet) {
	err := p.err
	if err == nil {
		err = p.c.wait()
	}
	if p.multi {
		var res []ReadResult
		if err == nil {
			// apply copies what it keeps of a result: one array serves
			// every multiRead of the connection.
			res, err = decodeItems(w.results, p.c.body, p.items)
			w.results = res[:0]
		}
		if errors.Is(err, errTooLarge) {
			// Too large as one response: read each on its own.
			for _, it := range p.items {
				it.solo = true
				w.queue = append(w.queue, it)
			}
			return
		}
		for i, it := range p.items {
			if err != nil {
				w.apply(it, ReadResult{Err: err}, nil)
			} else {
				w.apply(it, res[i], nil)
			}
		}
		return
	}
	it := p.items[0]
	if err != nil {
		w.apply(it, ReadResult{Err: err}, nil)
		return
	}
	rd := newJute(p.c.body)
	var res ReadResult
	var acl []ACL
	switch it.op {
	case opGetData:
		res.Data, res.Stat = rd.dataResult()
	case opGetChildren:
		res.Children = rd.strings()
	case opGetChildren2:
		res.Children = rd.strings()
		res.Stat = rd.stat()
	case opGetACL:
		acl = rd.ACLs()
		rd.stat()
	}
	if err := rd.done(); err != nil {
		res = ReadResult{Err: err}
	}
	w.apply(it, res, acl)
}

// encodeItems is startMulti's encoding of items, each path written
// straight into the request (a partition's "state" with no string made
// for its path).
func encodeItems(items []readItem) func([]byte) []byte {
	return multiRequest(len(items), func(i int) int32 { return items[i].op }, func(b []byte, i int) []byte {
		it := items[i]
		if !it.spec {
			return appendString(b, it.n.abs)
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(it.n.abs)+1+len(stateChild)))
		b = append(b, it.n.abs...)
		b = append(b, '/')
		return append(b, stateChild...)
	})
}

// decodeItems is decodeMulti for items, except that the data it returns
// alias body (the tree copies what it keeps).
func decodeItems(out []ReadResult, body []byte, items []readItem) ([]ReadResult, error) {
	return decodeResults(out, body, len(items), func(i int) bool { return items[i].op == opGetChildren },
		func(i int) string { return items[i].path() }, true)
}

// apply records one read's result and queues the reads it calls for: the
// children of a node whose stat shows some, and the data of a presumed
// container that has data after all (read again with getData, so that
// data, stat and children come from the same getData/getChildren pair as
// for any other node).
func (w *levelWorker) apply(it readItem, res ReadResult, acl []ACL) {
	n := it.n
	n.pending--
	switch {
	case it.spec:
		// Kept in the node: a pointer to res would move every call's
		// res to the heap.
		n.spec, n.hasSpec = res, true
	case res.Err != nil:
		if n.err == nil {
			n.err = res.Err
		}
	case it.op == opGetData:
		n.data, n.stat = res.Data, res.Stat
		if n.stat.NumChildren > 0 && !n.kidsAsked {
			n.kidsAsked = true
			w.add(n, opGetChildren, false)
		}
	case it.op == opGetChildren:
		n.kids = res.Children
	case it.op == opGetChildren2:
		n.stat = res.Stat
		if res.Stat.DataLength > 0 {
			n.kidsAsked = false
			w.add(n, opGetData, false)
		} else {
			n.kids = res.Children
		}
	case it.op == opGetACL:
		n.acl = acl
	}
	if n.pending == 0 && n.hasSpec && n.err == nil {
		// The partition's reads are in: its stat says whether "state" was
		// all its children.
		n.hasSpec = false
		spec := &n.spec
		switch {
		case n.stat.NumChildren == 0:
			n.kids = nil
		case n.stat.NumChildren == 1 && spec.Err == nil && spec.Stat.NumChildren == 0:
			n.kids, n.state = stateKids, spec
		default:
			// Something else: its children, listed; "state" is read with
			// the next level, as any child.
			w.add(n, opGetChildren, false)
			return
		}
	}
	if n.pending == 0 {
		// finish has put what it keeps of n into the tree and the queue,
		// and no read of n is left: claim may reuse it.
		w.finish(n)
		w.free = append(w.free, n)
	}
}

// stateChild is the child every partition znode has in Kafka's layout.
const stateChild = "state"

// stateKids is the children of a partition read with its state: one slice
// for all of them, never written to.
var stateKids = []string{stateChild}

// path is the znode the item reads.
func (it readItem) path() string {
	if it.spec {
		return it.n.abs + "/" + stateChild
	}
	return it.n.abs
}

// isPartition says whether rel is a partition znode of Kafka's layout,
// /brokers/topics/<topic>/partitions/<n>.
func isPartition(rel string) bool {
	rest, ok := strings.CutPrefix(rel, "/brokers/topics/")
	if !ok {
		return false
	}
	_, sub, ok := strings.Cut(rest, "/")
	p, ok2 := strings.CutPrefix(sub, "partitions/")
	return ok && ok2 && p != "" && !strings.Contains(p, "/")
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

// expectsChildren says whether a multiRead asks a znode's children in the
// same request as its data: Kafka's containers and the topic znodes (each
// has partitions/). Any other znode's children are asked for once its stat
// shows some.
func expectsChildren(rel string) bool {
	if likelyContainer(rel) {
		return true
	}
	rest, ok := strings.CutPrefix(rel, "/brokers/topics/")
	return ok && rest != "" && !strings.Contains(rest, "/")
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
		acl, err := r.conns[0].GetACL(r.abs(p))
		if err != nil {
			continue
		}
		for _, a := range acl {
			u, h, _ := strings.Cut(a.ID, ":")
			if a.Scheme != "digest" || u != user {
				continue
			}
			if (h != "x" && h != hash) || (h == "x" && a.Perms&permAdmin != 0) {
				e.WrongCredentials = true
				return e
			}
		}
	}
	return e
}
