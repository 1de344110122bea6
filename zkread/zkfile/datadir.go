package zkfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// DirOptions tunes ReadDir.
type DirOptions struct {
	// LogDir holds the log.* files when ZooKeeper's dataLogDir differs from
	// its dataDir. Empty: the same directory as the snapshots.
	LogDir string
	// AtZxid > 0 rebuilds the tree as of that zxid: the newest snapshot that
	// holds nothing newer, then transactions up to and including AtZxid.
	AtZxid int64
	// AtZxidSet makes AtZxid a point in time even when it is 0: zxid 0 is
	// the tree before any transaction (ZooKeeper's initial snapshot.0), a
	// point as real as offset 0 of a KRaft log. The zero value of the
	// options stays "the newest state".
	AtZxidSet bool
	// MaxBuffer is ZooKeeper's jute.maxbuffer: no buffer, string or log
	// entry longer than ZooKeeper would read is accepted (or allocated).
	// <= 0: ZooKeeper's default, DefaultJuteMaxBuffer.
	MaxBuffer int
	// Progress, if set, is called now and then with the bytes of snapshot
	// and log files read so far and the bytes of the files to read (the
	// snapshot tried and every log file), from the goroutine reading the
	// files (a snapshot's is one of its own), never from two at once.
	Progress func(done, total int64)
	// Base and Step, when set, follow the replay (zkread's history of a
	// data dir): Base is called once with the tree the snapshot holds,
	// before any transaction; Step after each transaction applied, with
	// the znodes it changed. Between the calls the tree is being built:
	// its Nodes map, the nodes' data and their stats' zxids, times and
	// versions are current, but children lists, Cversion, DataLength and
	// NumChildren are not (they are derived once, when the replay ends).
	// Neither may change the tree; changed is reused after Step returns.
	Base func(t *DataTree)
	Step func(t *DataTree, txn *Txn, changed []Changed)
	// Oldest starts from the oldest snapshot the logs go on from rather
	// than the newest: the same end state, with every transaction kept
	// replayed (a history wants them all). A snapshot qualifies when a
	// log starts at or before it (or right after it) and the last log
	// starts after the newest snapshot (ZooKeeper starts a log after
	// each snapshot, so the logs reach past it); when none does, the
	// newest is used as without Oldest.
	Oldest bool
}

// Changed is a znode one transaction changed.
type Changed struct {
	Path string
	// Op is OpCreate (for every kind of create), OpDelete, OpSetData, or
	// OpCloseSession for an ephemeral removed by its session's end.
	Op int32
}

// at is the point in time the options name, if any.
func (o DirOptions) at() (int64, bool) { return o.AtZxid, o.AtZxidSet || o.AtZxid > 0 }

// meter counts the bytes ReadDir reads from its files for
// DirOptions.Progress. A nil meter counts nothing.
type meter struct {
	fn          func(done, total int64)
	done, total int64
	reported    int64
}

// meterEvery is how many bytes pass between Progress calls.
var meterEvery int64 = 4 << 20 // a var so tests can see calls on small files

// fileSize is path's size for a progress total; 0 when it cannot be
// read (the read itself then reports why).
func fileSize(path string) int64 {
	if st, err := os.Stat(path); err == nil {
		return st.Size()
	}
	return 0
}

func newMeter(fn func(done, total int64)) *meter {
	if fn == nil {
		return nil
	}
	return &meter{fn: fn}
}

// reader counts what r hands out.
func (m *meter) reader(r io.Reader) io.Reader {
	if m == nil {
		return r
	}
	return &meteredReader{r: r, m: m}
}

func (m *meter) add(n int) {
	m.done += int64(n)
	if m.done-m.reported >= meterEvery {
		m.reported = m.done
		m.fn(m.done, max(m.total, m.done))
	}
}

func (m *meter) finish() {
	if m != nil {
		m.fn(m.done, max(m.total, m.done))
	}
}

type meteredReader struct {
	r io.Reader
	m *meter
}

func (mr *meteredReader) Read(p []byte) (int, error) {
	n, err := mr.r.Read(p)
	mr.m.add(n)
	return n, err
}

// DirResult is a rebuilt tree and what happened while rebuilding it.
type DirResult struct {
	Tree     *DataTree
	Snapshot string   // the snapshot file used
	Logs     []string // log files read
	// Later: the files hold state past DirOptions' point in time (a newer
	// snapshot, or a transaction after it), so a tree ending before the
	// point is a hole in the files, not a point past their end.
	Later bool
	// Warnings: snapshot fallbacks (model.WarnSnapshotFallback), torn
	// tails and zxid jumps (model.WarnTornTail), a log whose zxids go
	// back, where replay stopped (model.WarnZKLogDamaged), transactions
	// after a zero entry length (model.WarnZKLogEntriesPastEnd), each with
	// the file and byte position.
	Warnings []model.Finding
}

func (res *DirResult) warn(code, file string, pos, zxid int64, format string, args ...any) {
	where := model.At(file, pos, -1)
	where.Zxid = zxid
	res.Warnings = append(res.Warnings, model.Warning(code, &where, format, args...))
}

type numbered struct {
	path string
	zxid int64
}

// resolveDir accepts a dataDir (holding version-2/) or version-2 itself.
func resolveDir(dir string) string {
	if st, err := os.Stat(filepath.Join(dir, "version-2")); err == nil && st.IsDir() {
		return filepath.Join(dir, "version-2")
	}
	return dir
}

func list(dir, kind string) ([]numbered, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &FileError{File: dir, Msg: "list", Err: err}
	}
	var out []numbered
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		z, ok := ZxidFromName(e.Name())
		if !ok {
			continue
		}
		if (kind == "snapshot") != (len(e.Name()) > 9 && e.Name()[:9] == "snapshot.") {
			continue
		}
		out = append(out, numbered{filepath.Join(dir, e.Name()), z})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].zxid != out[j].zxid {
			return out[i].zxid < out[j].zxid
		}
		return out[i].path < out[j].path
	})
	return out, nil
}

// readBytes is the progress total of a ReadDir: every log file and the
// newest snapshot it may start from.
func readBytes(snaps, logs []numbered, atZxid int64, at bool) int64 {
	var n int64
	for _, l := range logs {
		n += fileSize(l.path)
	}
	for i := len(snaps) - 1; i >= 0; i-- {
		if !at || snaps[i].zxid <= atZxid {
			n += fileSize(snaps[i].path)
			break
		}
	}
	return n
}

// listDir lists a data dir's snapshots and logs.
func listDir(dir string, opts DirOptions) (snapDir string, snaps, logs []numbered, err error) {
	snapDir = resolveDir(dir)
	logDir := snapDir
	if opts.LogDir != "" {
		logDir = resolveDir(opts.LogDir)
	}
	if snaps, err = list(snapDir, "snapshot"); err != nil {
		return "", nil, nil, err
	}
	if logs, err = list(logDir, "log"); err != nil {
		return "", nil, nil, err
	}
	return snapDir, snaps, logs, nil
}

// DirBytes is the total ReadDir with these options reports to Progress:
// the bytes of the files it is to read, so a caller reading several dirs
// can show them as one.
func DirBytes(dir string, opts DirOptions) (int64, error) {
	_, snaps, logs, err := listDir(dir, opts)
	if err != nil {
		return 0, err
	}
	atZxid, at := opts.at()
	return readBytes(snaps, logs, atZxid, at), nil
}

// ReadDir rebuilds the DataTree from a ZooKeeper data directory as a server
// would at startup: the newest snapshot that decodes (older ones when it does
// not, with a warning), then every logged transaction after it.
// DirOptions.Oldest starts from an older snapshot instead.
func ReadDir(dir string, opts DirOptions) (*DirResult, error) {
	snapDir, snaps, logs, err := listDir(dir, opts)
	if err != nil {
		return nil, err
	}
	atZxid, at := opts.at()
	m := newMeter(opts.Progress)
	if m != nil {
		m.total = readBytes(snaps, logs, atZxid, at)
	}
	var note *model.Finding
	if opts.Oldest {
		if from := continuous(snaps, logs); len(from) > 0 {
			res, err := readFrom(snapDir, from, logs, opts, m, "a newer one")
			// The replay must reach what the newest snapshot (at or
			// before the point) holds; logs that stop short of it
			// (damaged, or a hole) make the newest the start after all.
			newest := int64(-1)
			for _, s := range snaps {
				if !at || s.zxid <= atZxid {
					newest = s.zxid
				}
			}
			if err == nil && res.Tree.LastZxid >= newest {
				res.Tree.finish()
				m.finish()
				return res, nil
			}
			if err == nil {
				where := model.At(res.Snapshot, -1, -1)
				where.Zxid = res.Tree.LastZxid
				w := model.Warning(model.WarnCoverageHole, &where, "the logs after snapshot %s stop at zxid %#x, before the newest snapshot's %#x: read from the newest snapshot instead", filepath.Base(res.Snapshot), res.Tree.LastZxid, newest)
				note = &w
			}
		}
	}
	order := slices.Clone(snaps)
	slices.Reverse(order) // newest first
	res, err := readFrom(snapDir, order, logs, opts, m, "an older one")
	if note != nil {
		res.Warnings = append([]model.Finding{*note}, res.Warnings...)
	}
	if res.Tree != nil {
		res.Tree.finish()
	}
	m.finish()
	return res, err
}

// readFrom reads the first snapshot of order that decodes (and holds
// nothing past the point) and replays the logs after it, leaving the
// tree unfinished. fallback names the next snapshot tried, for warnings.
func readFrom(snapDir string, order, logs []numbered, opts DirOptions, m *meter, fallback string) (*DirResult, error) {
	res := &DirResult{}
	atZxid, at := opts.at()
	var lastErr error
	for _, s := range order {
		if at && s.zxid > atZxid {
			res.Later = true
			continue
		}
		snap, err := readSnapshotFile(s.path, opts.MaxBuffer, m)
		if err != nil {
			pos := int64(-1)
			var fe *FileError
			if errors.As(err, &fe) {
				pos = fe.Offset
			}
			res.warn(model.WarnSnapshotFallback, s.path, pos, 0, "snapshot %s is unusable, falling back to %s: %v", filepath.Base(s.path), fallback, err)
			lastErr = err
			continue
		}
		if at {
			if m := maxStatZxid(snap.Tree); m > atZxid {
				res.warn(model.WarnSnapshotFallback, s.path, -1, m, "snapshot %s already holds zxid %#x, past %#x; using an older one", filepath.Base(s.path), m, atZxid)
				res.Later = true
				continue
			}
		}
		res.Tree, res.Snapshot = snap.Tree, s.path
		res.Tree.SnapshotFile = s.path
		break
	}
	if res.Tree == nil {
		if lastErr != nil {
			return res, fmt.Errorf("%w in %s: newest failure: %w", ErrNoSnapshot, snapDir, lastErr)
		}
		if at && res.Later {
			return res, &FileError{File: snapDir, Msg: fmt.Sprintf("snapshots: none at or before zxid %#x", atZxid), Err: ErrNoSnapshot}
		}
		return res, &FileError{File: snapDir, Msg: "snapshots", Err: ErrNoSnapshot}
	}
	res.Tree.startReplay()
	if opts.Base != nil {
		opts.Base(res.Tree)
	}
	res.Tree.step = opts.Step
	err := replay(res, logs, atZxid, at, opts.MaxBuffer, m)
	res.Tree.step = nil
	return res, err
}

// continuous lists, oldest first, the snapshots DirOptions.Oldest may
// start from: the logs go on from them (one starts at or before the
// snapshot's zxid, or right after it).
func continuous(snaps, logs []numbered) []numbered {
	if len(logs) == 0 {
		return nil
	}
	var out []numbered
	for _, s := range snaps {
		if logs[0].zxid <= s.zxid+1 {
			out = append(out, s)
		}
	}
	return out
}

func maxStatZxid(t *DataTree) int64 {
	var m int64
	for r := Ref(0); r < t.n; r++ {
		if c := t.at(r); !c.gone() {
			m = max(m, c.czxid, c.mzxid, c.pzxid)
		}
	}
	return m
}

// replay applies the logged transactions after the snapshot. ZooKeeper
// starts from the last log whose first zxid is at or before the snapshot's.
func replay(res *DirResult, logs []numbered, atZxid int64, at bool, maxBuffer int, m *meter) error {
	t := res.Tree
	from := -1
	for i, l := range logs {
		if l.zxid <= t.SnapshotZxid {
			from = i
		}
	}
	if from < 0 {
		if len(logs) == 0 {
			return nil
		}
		if logs[0].zxid > t.SnapshotZxid+1 {
			return &FileError{File: logs[0].path, Msg: "first log", Err: fmt.Errorf("%w: snapshot %s ends at zxid %#x, the oldest log starts at %#x", ErrGap, filepath.Base(res.Snapshot), t.SnapshotZxid, logs[0].zxid)}
		}
		from = 0
	}
	r := &replayer{res: res, prev: t.SnapshotZxid, atZxid: atZxid, at: at, maxBuffer: maxBuffer, meter: m}
	for i := from; i < len(logs); i++ {
		done, err := r.log(logs[i].path, i == len(logs)-1)
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	t.LastZxid = max(t.SnapshotZxid, r.prev)
	return nil
}

// replayer carries the replay's position across log files.
type replayer struct {
	res       *DirResult
	prev      int64 // the last zxid applied (the snapshot's at first)
	started   bool  // a transaction past the snapshot was seen
	atZxid    int64
	at        bool // atZxid is a point in time
	maxBuffer int
	meter     *meter
}

// log replays one file; done: stop reading further files.
//
// Order: ZooKeeper's FileTxnIterator starts at the first transaction past
// the snapshot (earlier ones in the first file are skipped). From there
// on, zxids only grow: a zxid that repeats or goes back means the logs
// were damaged or mixed up. ZooKeeper 3.8's FileTxnSnapLog only logs an
// error ("highestZxid > next log") and applies the transaction anyway, so
// its answer depends on replaying stale state over newer state; kmeta
// stops there instead (model.WarnZKLogDamaged, naming the file and byte
// position): the tree up to the last good transaction is all that the
// files say for certain.
func (r *replayer) log(path string, last bool) (bool, error) {
	res, t := r.res, r.res.Tree
	l, err := openTxnLog(path, r.maxBuffer, r.meter)
	if err != nil {
		return false, err
	}
	defer l.Close()
	res.Logs = append(res.Logs, path)
	prev := &r.prev
	for {
		txn, err := l.Next()
		if err == io.EOF {
			r.pastEnd(l, path, nil)
			return false, nil
		}
		if errors.Is(err, ErrTornTail) {
			pos := int64(-1)
			var fe *FileError
			if errors.As(err, &fe) {
				pos = fe.Offset
			}
			// Well-formed entries after it: damage, not a torn tail.
			if r.pastEnd(l, path, fe) {
				return false, nil
			}
			where := "the last log"
			if !last {
				where = "a log that is not the last"
			}
			res.warn(model.WarnTornTail, path, pos, 0, "ignored a torn transaction at the end of %s: %v", where, err)
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !r.started && txn.Zxid <= t.SnapshotZxid {
			continue
		}
		if r.started && txn.Zxid <= *prev {
			verb := "goes back"
			if txn.Zxid == *prev {
				verb = "repeats"
			}
			res.warn(model.WarnZKLogDamaged, path, txn.Offset, txn.Zxid, "%s: offset %d: zxid %s (%#x after %#x); replay stopped at the last transaction before it", path, txn.Offset, verb, txn.Zxid, *prev)
			return true, nil
		}
		r.started = true
		if r.at && txn.Zxid > r.atZxid {
			res.Later = true
			return true, nil
		}
		if *prev>>32 == txn.Zxid>>32 && txn.Zxid != *prev+1 {
			res.warn(model.WarnZKLogDamaged, path, txn.Offset, txn.Zxid, "%s: offset %d: zxid jumps from %#x to %#x", path, txn.Offset, *prev, txn.Zxid)
		}
		t.origin = Origin{File: path, Offset: txn.Offset}
		t.apply(txn)
		t.Applied++
		if t.step != nil {
			t.step(t, txn, t.changed)
			t.changed = t.changed[:0]
		}
		*prev = txn.Zxid
	}
}

// pastEnd warns (model.WarnZKLogEntriesPastEnd) when well-formed
// transactions follow the entry that ended a log: a zero entry length, or
// an entry cut short (torn, a non-nil FileError; then the warning replaces
// the torn-tail one: a crash cuts the last entry written, and nothing
// written after it can be whole, so entries after a torn one mean the
// bytes were damaged in the middle of the file). Replay still stops
// there, as ZooKeeper's does: the tree is what ZooKeeper would load, and
// the warning says what the files hold beyond it. Entries all past AtZxid
// change nothing in the view asked for when the replay reached the point;
// when it stopped short of it, the files hold later state than the tree
// (Later: zkread's coverage hole). handled: the entries were found, and
// no torn-tail warning is due.
func (r *replayer) pastEnd(l *TxnLog, path string, torn *FileError) (handled bool) {
	pe, ok := l.PastEnd()
	if !ok || pe.Count == 0 {
		return false
	}
	if r.at && pe.MinZxid > r.atZxid {
		r.res.Later = true
		return true
	}
	n := fmt.Sprint(pe.Count)
	if pe.Capped {
		n = "at least " + n
	}
	if torn == nil {
		r.res.warn(model.WarnZKLogEntriesPastEnd, path, pe.At, 0,
			"%s: offset %d: an entry length of zero ends the log here (for ZooKeeper as for kmeta), but %s well-formed transaction(s) follow it (offsets %d to %d, zxids %#x to %#x); they are not in the tree",
			path, pe.At, n, pe.First, pe.Last, pe.MinZxid, pe.MaxZxid)
		return true
	}
	r.res.warn(model.WarnZKLogEntriesPastEnd, path, torn.Offset, 0,
		"%s: offset %d: the entry at offset %d looks torn (%s: %s), which ends the log here (for ZooKeeper as for kmeta), but %s well-formed transaction(s) follow it (offsets %d to %d, zxids %#x to %#x); they are not in the tree: the log is damaged, not torn by a crash",
		path, torn.Offset, pe.At, torn.Msg, strings.TrimPrefix(torn.Err.Error(), ErrTornTail.Error()+": "), n, pe.First, pe.Last, pe.MinZxid, pe.MaxZxid)
	return true
}

// apply replays one transaction idempotently.
func (t *DataTree) apply(txn *Txn) {
	for _, op := range txn.Ops {
		t.op = op.Type
		switch op.Type {
		case OpCreate, OpCreate2:
			var owner int64
			if op.Ephemeral {
				owner = txn.Session
			}
			t.create(op.Path, op.Data, op.ACL, owner, op.ParentCVersion, txn.Zxid, txn.Time)
		case OpCreateContainer:
			t.create(op.Path, op.Data, op.ACL, containerOwner, op.ParentCVersion, txn.Zxid, txn.Time)
		case OpCreateTTL:
			t.create(op.Path, op.Data, op.ACL, ttlOwnerMask|op.TTL, op.ParentCVersion, txn.Zxid, txn.Time)
		case OpDelete, OpDeleteContainer:
			t.remove(op.Path, txn.Zxid)
		case OpSetData, OpReconfig:
			path := op.Path
			if op.Type == OpReconfig {
				path = "/zookeeper/config"
			}
			t.setData(path, op.Data, op.Version, txn.Zxid, txn.Time)
		case OpSetACL:
			t.setACL(op.Path, op.ACL, op.Version)
		case OpCreateSession:
			t.Sessions[txn.Session] = op.Timeout
		case OpCloseSession:
			t.killSession(txn.Session, op.Paths, op.HasPaths, txn.Zxid)
		}
	}
}
