package zkdeps

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/zkread"
)

// History follows a data dir's transaction stream (zkread.Replay) and
// keeps, per session, what the judge needs: when it opened and closed,
// whether it showed itself as a Kafka broker or controller, and what it
// wrote. Memory is bounded by sessions, not by transactions: writes are
// kept per znode (maxPaths per session, the rest counted), and a
// session's writes under the chroot it is Kafka's for are not kept.
type History struct {
	// Snapshot and StartZxid: where the replay started.
	Snapshot  string
	StartZxid int64
	// First and Last are the first and last transactions replayed; Txns
	// counts them.
	First, Last Point
	Txns        int64

	startSessions map[int64]int32
	sessions      map[int64]*activity
	replay        zkread.Replay
}

// Point is a transaction's zxid and time (ms since the epoch).
type Point struct {
	Zxid int64 `json:"zxid"`
	Time int64 `json:"time"`
}

// maxPaths bounds the znodes whose writes are kept per session.
const maxPaths = 4096

// role is what a session showed itself to be by what it did.
type role struct {
	// kind: "broker" (it registered /brokers/ids/N or held /controller
	// as a ZooKeeper-mode controller), "kraft" (a KRaft controller: it
	// claimed /controller with a kraftControllerEpoch or wrote
	// /migration) or "authorizer" (a broker's AclAuthorizer, which has a
	// session of its own: see judge.pairAuthorizers).
	kind string
	id   int64 // -1 when unknown
	// root is the chroot (absolute, "" for the root) it did it under.
	root string
}

// activity is one session's part of the history.
type activity struct {
	// registered is when it claimed its role in the logs (zero when it
	// held it at the snapshot already).
	created, closed, registered Point
	timeout                     int32
	role                        *role
	writes                      map[string]*pathWrites
	more                        pathWrites // writes past maxPaths
}

// pathWrites are one session's writes to one znode.
type pathWrites struct {
	ops         uint8
	ephemeral   bool
	count       int64
	first, last Point
}

// The bits of pathWrites.ops.
const (
	wroteCreate uint8 = 1 << iota
	wroteDelete
	wroteSetData
	wroteSetACL
)

var opBits = map[string]uint8{"create": wroteCreate, "delete": wroteDelete, "setData": wroteSetData, "setACL": wroteSetACL}

// opNames names the bits set, in a fixed order.
func opNames(ops uint8) []string {
	var out []string
	for _, n := range []string{"create", "setData", "setACL", "delete"} {
		if ops&opBits[n] != 0 {
			out = append(out, n)
		}
	}
	return out
}

// NewHistory returns an empty history; Replay is what a data dir read
// feeds it through (zkread.ReadOptions.Replay).
func NewHistory() *History {
	h := &History{sessions: map[int64]*activity{}}
	h.replay = zkread.Replay{Start: h.start, Txn: h.txn}
	return h
}

// Replay is the observer to read a data dir with.
func (h *History) Replay() *zkread.Replay { return &h.replay }

// Started says whether a replay fed the history (a data dir was read).
func (h *History) Started() bool { return h != nil && h.Snapshot != "" }

func (h *History) start(s zkread.ReplayStart) {
	*h = History{Snapshot: s.Snapshot, StartZxid: s.Zxid, startSessions: s.Sessions, sessions: map[int64]*activity{}, replay: h.replay}
	// The snapshot's ephemerals say which sessions were Kafka's before
	// the first logged transaction.
	for path, owner := range s.Ephemerals {
		if r := ephemeralRole(path, nil); r != nil {
			h.session(owner).claim(r)
		}
	}
}

func (h *History) session(id int64) *activity {
	a := h.sessions[id]
	if a == nil {
		a = &activity{}
		h.sessions[id] = a
	}
	return a
}

// claim records a role; a broker's id wins over an unknown one.
func (a *activity) claim(r *role) {
	if a.role == nil || (a.role.id < 0 && r.id >= 0) {
		a.role = r
	}
}

func (h *History) txn(t *zkread.ReplayTxn) {
	p := Point{Zxid: t.Zxid, Time: t.Time}
	if h.Txns == 0 {
		h.First = p
	}
	h.Last = p
	h.Txns++
	if t.Session == 0 {
		// The server's own requests (container and TTL cleanup).
		return
	}
	a := h.session(t.Session)
	for _, op := range t.Ops {
		switch op.Kind {
		case "createSession":
			a.created, a.timeout = p, op.Timeout
			continue
		case "closeSession":
			a.closed = p
			continue
		case "error":
			continue
		case "check":
			if r := kraftRole(op); r != nil {
				a.claim(r)
			}
			continue
		}
		if op.Kind == "create" && op.Ephemeral {
			if r := ephemeralRole(op.Path, op.Data); r != nil {
				if a.role == nil {
					a.registered = p
				}
				a.claim(r)
			}
		}
		if r := kraftRole(op); r != nil {
			a.claim(r)
		}
		if a.role != nil && kafkaDefined(op.Path, a.role.root) {
			// Its cluster's own znodes: Kafka's writes, not kept (a
			// broker writes every partition state).
			continue
		}
		a.wrote(op.Path, opBits[op.Kind], op.Ephemeral, p)
	}
}

func (a *activity) wrote(path string, bit uint8, ephemeral bool, p Point) {
	w := a.writes[path]
	if w == nil {
		if len(a.writes) >= maxPaths {
			w = &a.more
		} else {
			if a.writes == nil {
				a.writes = map[string]*pathWrites{}
			}
			w = &pathWrites{}
			a.writes[strings.Clone(path)] = w
		}
	}
	if w.count == 0 {
		w.first = p
	}
	w.ops |= bit
	w.ephemeral = w.ephemeral || ephemeral
	w.count++
	w.last = p
}

// ephemeralRole is the role an ephemeral znode shows its owner has:
// ROOT/brokers/ids/N is broker N's registration, ROOT/controller a
// ZooKeeper-mode controller's (a broker; its id is in the data when
// known).
func ephemeralRole(path string, data []byte) *role {
	if root, id, ok := brokerRegistration(path); ok {
		return &role{kind: "broker", id: id, root: root}
	}
	if root, ok := strings.CutSuffix(path, "/controller"); ok {
		id := int64(-1)
		if c, ok := controllerData(data); ok {
			id = c.BrokerID
		}
		return &role{kind: "broker", id: id, root: root}
	}
	return nil
}

// brokerRegistration splits ROOT/brokers/ids/N.
func brokerRegistration(path string) (root string, id int64, ok bool) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", 0, false
	}
	root, ok = strings.CutSuffix(path[:i], "/brokers/ids")
	if !ok {
		return "", 0, false
	}
	id, err := strconv.ParseInt(path[i+1:], 10, 32)
	return root, id, err == nil
}

// controllerJSON is /controller's data (ControllerZNode).
type controllerJSON struct {
	BrokerID             int64  `json:"brokerid"`
	KRaftControllerEpoch *int64 `json:"kraftControllerEpoch"`
}

func controllerData(b []byte) (controllerJSON, bool) {
	var c controllerJSON
	if len(b) == 0 || json.Unmarshal(b, &c) != nil {
		return c, false
	}
	return c, true
}

// kraftRole is the role of a KRaft controller in a migration, shown by
// its claim (ROOT/controller created with a kraftControllerEpoch >= 0)
// or by its fenced writes of ROOT/migration (created, set, or checked
// inside the multi that carries a dual write). Deleting /migration is
// not a controller's act: it is the cleanup after the migration or a
// rollback, done with ZooKeeper's CLI.
func kraftRole(op zkread.ReplayOp) *role {
	switch op.Kind {
	case "create":
		if root, ok := strings.CutSuffix(op.Path, "/controller"); ok && !op.Ephemeral {
			if c, ok := controllerData(op.Data); ok && c.KRaftControllerEpoch != nil && *c.KRaftControllerEpoch >= 0 {
				return &role{kind: "kraft", id: c.BrokerID, root: root}
			}
		}
		fallthrough
	case "setData", "check":
		if root, ok := strings.CutSuffix(op.Path, "/migration"); ok {
			id := int64(-1)
			if op.Kind != "check" {
				var m struct {
					ID *int64 `json:"kraft_controller_id"`
				}
				if json.Unmarshal(op.Data, &m) == nil && m.ID != nil {
					id = *m.ID
				}
			}
			return &role{kind: "kraft", id: id, root: root}
		}
	}
	return nil
}

// under says whether path is root or below it ("" is the whole tree).
func under(path, root string) bool {
	return root == "" || path == root || strings.HasPrefix(path, root+"/")
}

// rel is path relative to root (which it is under).
func rel(path, root string) string {
	if root == "" {
		return path
	}
	if path == root {
		return "/"
	}
	return path[len(root):]
}

// kafkaDefined says whether path is a znode Kafka defines for a cluster
// under root (absolute paths; "" for the root).
func kafkaDefined(path, root string) bool {
	if !under(path, root) {
		return false
	}
	_, foreign := foreignPrefix(rel(path, root))
	return !foreign
}
