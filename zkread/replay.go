package zkread

import (
	"sort"

	"github.com/kmeta/kmeta/zkread/zkfile"
)

// Replay follows a data dir's transaction stream as it is replayed, for
// a judge of who wrote what (zkdeps): the state the replay starts from,
// then every transaction with its session, zxid, time and operations.
// Paths are absolute (as the files hold them), whatever chroot the tree
// is read under. With a Replay the read starts from the oldest snapshot
// the logs go on from (zkfile.DirOptions.Oldest), so that every logged
// transaction is seen.
type Replay struct {
	// Start is called with the snapshot the replay starts from. It is
	// called again if the replay starts over from another snapshot (the
	// logs after the oldest stop short of the newest): whatever came
	// before is then to be forgotten.
	Start func(ReplayStart)
	// Txn is called after each transaction is applied. The value and
	// its slices are reused after Txn returns; Data is the tree's and
	// must not be changed.
	Txn func(*ReplayTxn)
}

// ReplayStart is the state a replay starts from.
type ReplayStart struct {
	// Snapshot is the snapshot file and Zxid the zxid in its name.
	Snapshot string
	Zxid     int64
	// Sessions is the snapshot's session table (id → timeout in ms).
	Sessions map[int64]int32
	// Ephemerals are the snapshot's ephemeral znodes: path → owning
	// session.
	Ephemerals map[string]int64
}

// ReplayTxn is one logged transaction.
type ReplayTxn struct {
	Zxid    int64
	Time    int64 // ms since the epoch
	Session int64
	// File and Offset are where the transaction's entry starts.
	File   string
	Offset int64
	// Ops are the transaction's operations (several for a multi).
	Ops []ReplayOp
}

// ReplayOp is one operation of a transaction. Kind is what it does:
//
//	"create"         a znode created (any kind of create); Ephemeral when
//	                 the session owns it
//	"delete"         a znode deleted
//	"setData"        a znode's data set (a reconfig sets /zookeeper/config)
//	"setACL"         a znode's ACL set
//	"check"          a version check inside a multi (changes nothing)
//	"createSession"  the transaction's session opened (Timeout)
//	"closeSession"   the session closed (its ephemerals deleted)
//	"error"          a request that failed: it changed nothing
type ReplayOp struct {
	Kind      string
	Path      string
	Ephemeral bool
	Data      []byte
	Timeout   int32
}

// replayer adapts zkfile's Base and Step to a Replay.
type replayer struct {
	r   *Replay
	txn ReplayTxn
}

func (p *replayer) base(dt *zkfile.DataTree) {
	if p.r.Start == nil {
		return
	}
	eph := map[string]int64{}
	owner := func(r zkfile.Ref) bool {
		o := dt.Stat(r).EphemeralOwner
		return o != 0 && !specialOwner(o)
	}
	dt.Range(owner, func(path string, r zkfile.Ref) bool {
		if owner(r) {
			eph[path] = dt.Stat(r).EphemeralOwner
		}
		return true
	})
	sessions := make(map[int64]int32, len(dt.Sessions))
	for id, to := range dt.Sessions {
		sessions[id] = to
	}
	p.r.Start(ReplayStart{Snapshot: dt.SnapshotFile, Zxid: dt.SnapshotZxid, Sessions: sessions, Ephemerals: eph})
}

// specialOwner tells the ephemeral-owner values ZooKeeper uses to mark
// container and TTL znodes (EphemeralType: the top byte 0x80 or 0xFF),
// which no session owns.
func specialOwner(o int64) bool {
	top := uint64(o) >> 56
	return top == 0x80 || top == 0xff
}

func (p *replayer) step(dt *zkfile.DataTree, txn *zkfile.Txn) {
	if p.r.Txn == nil {
		return
	}
	t := &p.txn
	t.Zxid, t.Time, t.Session = txn.Zxid, txn.Time, txn.Session
	o := dt.Applying()
	t.File, t.Offset = o.File, o.Offset
	t.Ops = t.Ops[:0]
	for _, op := range txn.Ops {
		t.Ops = append(t.Ops, replayOp(op))
	}
	p.r.Txn(t)
}

// replayOp names one operation (see ReplayOp).
func replayOp(op zkfile.Op) ReplayOp {
	out := ReplayOp{Path: op.Path}
	switch op.Type {
	case zkfile.OpCreate, zkfile.OpCreate2, zkfile.OpCreateContainer, zkfile.OpCreateTTL:
		out.Kind, out.Data, out.Ephemeral = "create", op.Data, op.Ephemeral
	case zkfile.OpDelete, zkfile.OpDeleteContainer:
		out.Kind = "delete"
	case zkfile.OpSetData, zkfile.OpReconfig:
		out.Kind, out.Data = "setData", op.Data
		if op.Type == zkfile.OpReconfig {
			out.Path = "/zookeeper/config"
		}
	case zkfile.OpSetACL:
		out.Kind = "setACL"
	case zkfile.OpCheck:
		out.Kind = "check"
	case zkfile.OpCreateSession:
		out.Kind, out.Timeout = "createSession", op.Timeout
	case zkfile.OpCloseSession:
		out.Kind = "closeSession"
	default:
		out.Kind = "error"
	}
	return out
}

// SessionIDs returns the ids of a session table, sorted.
func SessionIDs(sessions map[int64]int32) []int64 {
	out := make([]int64, 0, len(sessions))
	for id := range sessions {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
