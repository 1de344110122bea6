package zkdeps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
	"github.com/kmeta/kmeta/zkread"
)

// Input is what the judge reads: a tree, and what else the source holds.
type Input struct {
	// Source names the source as given.
	Source string
	// Access is the source's kind (live, data dir, dump).
	Access zkread.Access
	// Tree is the ensemble's tree read from its root, or, for a dump of
	// a chroot, the chroot's (TreeRoot names it).
	Tree     *zkread.Tree
	TreeRoot string
	// Chroot is Kafka's chroot, absolute ("" when Kafka is at the root).
	Chroot string
	// History is a data dir's transaction stream (nil otherwise).
	History *History
	// Clients are, for a live ensemble, each server's answer to the
	// question "who is connected" (nil: not asked).
	Clients []zkread.ServerConnections
	// NoAuth are znodes (absolute) a live read was refused: their data,
	// stat and children were not judged.
	NoAuth []string
}

// Result is the verdict.
type Result struct {
	Source  string `json:"source"`
	Kind    string `json:"kind"`
	Chroot  string `json:"chroot"`
	MaxZxid int64  `json:"maxZxid"`
	// SafeToStop: nothing depends on the ensemble in what could be
	// checked (NotChecked says what could not), and the history read is
	// whole.
	SafeToStop bool   `json:"safeToStop"`
	Verdict    string `json:"verdict"`
	// Dependents, data first (by path), then sessions (by id).
	Dependents []Dependent `json:"dependents"`
	// Kafka lists the sessions recognised as the cluster's own.
	Kafka []KafkaSession `json:"kafkaSessions"`
	// Cleanup lists sessions whose only writes were the migration's
	// cleanup (deleting /migration and /controller with ZooKeeper's CLI).
	Cleanup []string `json:"cleanup,omitempty"`
	// Checked and NotChecked say what the verdict rests on.
	Checked    []string `json:"checked"`
	NotChecked []string `json:"notChecked"`
	// Damaged are the tree's warnings that make the history partial
	// (torn or damaged logs, holes).
	Damaged []model.Finding `json:"damaged,omitempty"`
	// Findings: one per dependent, and one for a damaged history.
	Findings []model.Finding `json:"findings"`
}

// Dependent is one thing that still uses the ensemble.
type Dependent struct {
	Code string `json:"code"`
	// Kind is "data" (znodes that are not Kafka's) or "session".
	Kind string `json:"kind"`
	// Path is a data dependent's group: the top-level path outside
	// Kafka's chroot, or the first path Kafka does not define inside it.
	Path string `json:"path,omitempty"`
	// Session is a session's id, 0x-hex.
	Session string `json:"session,omitempty"`
	// Owner is the system known to use the path ("" when not known).
	Owner string `json:"owner,omitempty"`
	// Evidence says what shows the dependency, one fact per line.
	Evidence []string `json:"evidence"`
	Fix      string   `json:"fix"`

	// Data: the group's znodes, bytes of data, last change, ephemerals.
	Znodes       int       `json:"znodes,omitempty"`
	Bytes        int64     `json:"bytes,omitempty"`
	LastMzxid    int64     `json:"lastMzxid,omitempty"`
	LastModified time.Time `json:"lastModified,omitzero"`
	Ephemerals   int       `json:"ephemerals,omitempty"`

	// Session: open at the end of what was read, its addresses (live),
	// its writes.
	Open      bool     `json:"open,omitempty"`
	Addresses []string `json:"addresses,omitempty"`
	Writes    []Writes `json:"writes,omitempty"`
}

// Writes are a session's writes to one group of znodes.
type Writes struct {
	Path  string   `json:"path"`
	Area  string   `json:"area"`
	Count int64    `json:"count"`
	Ops   []string `json:"ops"`
	First Point    `json:"first"`
	Last  Point    `json:"last"`
	// Znodes are the znodes written (at most maxExamples).
	Znodes []string `json:"znodes"`

	// kind: "kafka" (Kafka's znodes), "consumer" (under /consumers),
	// "foreign" (znodes that are not Kafka's) or "zookeeper".
	kind string
}

// KafkaSession is a session of the cluster's own.
type KafkaSession struct {
	Session string `json:"session"`
	Role    string `json:"role"`
	Open    bool   `json:"open"`
}

const maxExamples = 5

// group is a data dependent being counted.
type group struct {
	path   string
	code   string
	znodes int
	bytes  int64
	last   zkread.Stat
	// ephemeral znodes by owner.
	ephemerals map[int64][]string
	// kafkaRoot is set when the group holds another Kafka cluster
	// (brokers/ids or cluster/id below it).
	kafkaRoot string
	// offsets: an old consumer group's committed offsets
	// (offsets/TOPIC/PARTITION holding the offset in decimal).
	offsets []consumerOffset
}

// consumerOffset is one partition's offset an old consumer committed to
// ZooKeeper: the offset of the next message to consume, as Kafka's
// committed offsets are.
type consumerOffset struct {
	topic     string
	partition int
	offset    int64
}

// session is a session being judged.
type session struct {
	id         int64
	role       *role
	open       bool
	ephemerals []string
	conns      []zkread.Connection
	act        *activity
}

// Judge decides whether anything but Kafka uses the ensemble.
func Judge(in Input) *Result {
	j := &judge{in: in, groups: map[string]*group{}, sessions: map[int64]*session{}}
	j.tree()
	j.history()
	j.clients()
	j.pairAuthorizers()
	return j.result()
}

type judge struct {
	in       Input
	groups   map[string]*group
	sessions map[int64]*session
	// kafkaZnodes, zkZnodes count the znodes that are Kafka's and
	// ZooKeeper's own.
	kafkaZnodes, zkZnodes int
	// meta counts the cluster's own metadata the tree holds.
	meta kafkaMeta
}

func (j *judge) session(id int64) *session {
	s := j.sessions[id]
	if s == nil {
		s = &session{id: id}
		j.sessions[id] = s
	}
	return s
}

// abs is a tree path as an absolute path of the ensemble.
func (j *judge) abs(p string) string {
	if j.in.TreeRoot == "" {
		return p
	}
	if p == "/" {
		return j.in.TreeRoot
	}
	return j.in.TreeRoot + p
}

// place says where an absolute path belongs: "" for Kafka's, ZooKeeper's
// own or the ensemble's root; otherwise its group and the group's code.
func (j *judge) place(p string) (grp, code string) {
	chroot := j.in.Chroot
	switch {
	case p == "/":
		return "", ""
	case p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/"):
		return "", "zookeeper"
	case chroot != "" && strings.HasPrefix(chroot, p+"/"):
		// An ancestor of the chroot: Kafka made it.
		return "", ""
	case under(p, chroot):
		r, foreign := foreignPrefix(rel(p, chroot))
		if !foreign {
			return "", ""
		}
		g := chroot + r
		if strings.HasPrefix(r, "/consumers/") {
			return g, CodeOldConsumerOffsets
		}
		return g, CodeForeignData
	}
	// Outside the chroot: the path up to its first segment off the
	// chroot's own path.
	end := 0
	for {
		start := end + 1
		k := strings.IndexByte(p[start:], '/')
		if k < 0 {
			end = len(p)
		} else {
			end = start + k
		}
		if end == len(p) || !strings.HasPrefix(chroot+"/", p[:end]+"/") {
			return p[:end], CodeForeignData
		}
	}
}

// tree counts the tree's znodes into groups and finds the ephemerals'
// owners.
func (j *judge) tree() {
	for p, n := range j.in.Tree.All() {
		a := j.abs(p)
		g, code := j.place(a)
		owner := n.Stat.EphemeralOwner
		if code == "zookeeper" {
			j.zkZnodes++
			continue
		}
		if g == "" {
			j.kafkaZnodes++
			if under(a, j.in.Chroot) {
				j.meta.count(rel(a, j.in.Chroot), n.Data)
			}
			if owner != 0 && !specialOwner(owner) {
				s := j.session(owner)
				s.ephemerals = append(s.ephemerals, a)
				if r := ephemeralRole(a, n.Data); r != nil && r.root == j.in.Chroot {
					s.role = r
				}
			}
			continue
		}
		gr := j.groups[g]
		if gr == nil {
			gr = &group{path: g, code: code, ephemerals: map[int64][]string{}}
			j.groups[g] = gr
		}
		gr.znodes++
		gr.bytes += int64(len(n.Data))
		if code == CodeOldConsumerOffsets {
			gr.offset(strings.TrimPrefix(a, g), n.Data)
		}
		if n.Stat.Mzxid > gr.last.Mzxid {
			gr.last = n.Stat
		}
		if owner != 0 && !specialOwner(owner) {
			gr.ephemerals[owner] = append(gr.ephemerals[owner], a)
			s := j.session(owner)
			s.ephemerals = append(s.ephemerals, a)
		}
		for _, suffix := range []string{"/brokers/ids", "/cluster/id"} {
			if root, ok := strings.CutSuffix(a, suffix); ok && root != "" {
				gr.kafkaRoot = root
			}
		}
	}
	// Every session holding an ephemeral is open.
	for _, s := range j.sessions {
		s.open = true
	}
}

// specialOwner tells the ephemeral-owner values ZooKeeper uses to mark
// container and TTL znodes (the top byte 0x80 or 0xFF), which no session
// owns.
func specialOwner(o int64) bool {
	top := uint64(o) >> 56
	return top == 0x80 || top == 0xff
}

// history adds the data dir's session table and transaction stream.
func (j *judge) history() {
	if j.in.Tree.Sessions != nil {
		for id := range j.in.Tree.Sessions {
			j.session(id).open = true
		}
	}
	h := j.in.History
	if !h.Started() {
		return
	}
	for id, a := range h.sessions {
		s := j.session(id)
		s.act = a
		if a.role != nil && a.role.root == j.in.Chroot && s.role == nil {
			s.role = a.role
		}
	}
}

// clients adds the live ensemble's connections.
func (j *judge) clients() {
	for _, sc := range j.in.Clients {
		for _, c := range sc.Connections {
			if c.Session == 0 || j.own(c.Session) {
				continue
			}
			s := j.session(c.Session)
			s.open = true
			s.conns = append(s.conns, c)
		}
	}
}

// own says whether a session is one of kmeta's own live read.
func (j *judge) own(id int64) bool { return slices.Contains(j.in.Tree.ReaderSessions, id) }

func hexID(id int64) string { return fmt.Sprintf("0x%x", uint64(id)) }

func (r *role) String() string {
	switch r.kind {
	case "authorizer":
		return fmt.Sprintf("broker %d's authorizer", r.id)
	case "kraft":
		if r.id >= 0 {
			return fmt.Sprintf("KRaft controller %d", r.id)
		}
		return "KRaft controller"
	}
	if r.id >= 0 {
		return fmt.Sprintf("broker %d", r.id)
	}
	return "broker (ZooKeeper-mode controller)"
}

// when prints a point as zxid and UTC time.
func when(p Point) string {
	if p.Time == 0 {
		return fmt.Sprintf("zxid 0x%x", p.Zxid)
	}
	return fmt.Sprintf("zxid 0x%x (%s)", p.Zxid, time.UnixMilli(p.Time).UTC().Format(time.RFC3339))
}

// size prints a byte count.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// groupOwner names the system known to own a group, and where it is set.
func (j *judge) groupOwner(g *group) (string, string) {
	if g.code == CodeOldConsumerOffsets {
		return "an old ZooKeeper-based consumer (Kafka's Scala consumer, removed in Kafka 2.0)", "the consumer's zookeeper.connect"
	}
	if g.kafkaRoot != "" {
		return fmt.Sprintf("another Kafka cluster (chroot %s)", g.kafkaRoot), "that cluster's zookeeper.connect (it needs a migration of its own)"
	}
	name := g.path[strings.LastIndexByte(g.path, '/')+1:]
	return ownerOf(name)
}

// offset records the offset at r (relative to the group's path), when r
// is offsets/TOPIC/PARTITION and holds one.
func (g *group) offset(r string, data []byte) {
	segs := strings.Split(r, "/")
	if len(segs) != 4 || segs[0] != "" || segs[1] != "offsets" {
		return
	}
	p, err := strconv.Atoi(segs[3])
	o, err2 := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || err2 != nil || p < 0 || o < 0 {
		return
	}
	g.offsets = append(g.offsets, consumerOffset{segs[2], p, o})
}

// resetPlan is the --from-file CSV of kafka-consumer-groups --reset-offsets
// for one group (topic,partition,offset per line), as printf's words;
// the placeholder line when none was read.
func (g *group) resetPlan() string {
	if len(g.offsets) == 0 {
		return "TOPIC,PARTITION,OFFSET"
	}
	os := slices.Clone(g.offsets)
	slices.SortFunc(os, func(a, b consumerOffset) int {
		if c := strings.Compare(a.topic, b.topic); c != 0 {
			return c
		}
		return a.partition - b.partition
	})
	words := make([]string, len(os))
	for i, o := range os {
		words[i] = shellword.Quote(fmt.Sprintf("%s,%d,%d", o.topic, o.partition, o.offset))
	}
	return strings.Join(words, " ")
}

// dataDependent makes a group's dependent.
func (j *judge) dataDependent(g *group) Dependent {
	owner, where := j.groupOwner(g)
	d := Dependent{Code: g.code, Kind: "data", Path: g.path, Owner: owner,
		Znodes: g.znodes, Bytes: g.bytes, LastMzxid: g.last.Mzxid}
	if g.last.Mtime > 0 {
		d.LastModified = time.UnixMilli(g.last.Mtime).UTC()
	}
	place := "outside Kafka's chroot"
	if j.in.Chroot == "" || under(g.path, j.in.Chroot) {
		place = "a path Kafka 3.9 never writes"
	}
	if g.code == CodeOldConsumerOffsets {
		place = "old consumer offsets"
	}
	d.Evidence = append(d.Evidence, fmt.Sprintf("%s, %s (%s), last changed at %s", plural(g.znodes, "znode", "znodes"), size(g.bytes), place, when(Point{Zxid: g.last.Mzxid, Time: g.last.Mtime})))
	if owner != "" {
		d.Evidence = append(d.Evidence, "known owner: "+owner)
	}
	for _, id := range sortedKeys(g.ephemerals) {
		ps := g.ephemerals[id]
		slices.Sort(ps)
		d.Ephemerals += len(ps)
		d.Evidence = append(d.Evidence, fmt.Sprintf("session %s holds %s (%s): its client is connected", hexID(id), plural(len(ps), "ephemeral znode", "ephemeral znodes"), examples(ps)))
	}
	c := checks.Must(g.code)
	switch g.code {
	case CodeOldConsumerOffsets:
		name := g.path[strings.LastIndexByte(g.path, '/')+1:]
		d.Fix = c.FillFix("GROUP", name, "PATH", g.path, "GROUPWORD", shellword.Quote(name),
			"FILE", shellword.Quote(name+".offsets.csv"), "CSV", g.resetPlan())
	default:
		if owner == "" {
			owner, where = "the system that wrote it", "its connect string"
		}
		d.Fix = c.FillFix("OWNER", owner, "PATH", g.path, "WHERE", where)
	}
	return d
}

func examples(ps []string) string {
	if len(ps) <= maxExamples {
		return strings.Join(ps, ", ")
	}
	return strings.Join(ps[:maxExamples], ", ") + fmt.Sprintf(", … %d more", len(ps)-maxExamples)
}

func sortedKeys[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// kafkaMeta is the cluster's own metadata a tree holds, by kind: what
// the ensemble is the only record of unless Kafka's migration (or an
// offline one) copied it to KRaft.
type kafkaMeta struct {
	topics, configs, scram, acls, tokens int
	// migrated: /migration records a finished copy (a KRaft metadata
	// offset >= 0), at offset.
	migrated bool
	offset   int64
}

// count adds the znode at r (relative to Kafka's chroot) holding data.
func (m *kafkaMeta) count(r string, data []byte) {
	segs := strings.Split(strings.TrimPrefix(r, "/"), "/")
	switch {
	case r == "/migration":
		var v struct {
			Offset *int64 `json:"kraft_metadata_offset"`
		}
		if json.Unmarshal(data, &v) == nil && v.Offset != nil && *v.Offset >= 0 {
			m.migrated, m.offset = true, *v.Offset
		}
	case len(segs) == 3 && segs[0] == "brokers" && segs[1] == "topics":
		m.topics++
	case len(segs) == 3 && segs[0] == "config" && slices.Contains([]string{"topics", "brokers", "users", "clients", "ips"}, segs[1]),
		len(segs) == 5 && segs[0] == "config" && segs[1] == "users" && segs[3] == "clients":
		var v struct {
			Config map[string]json.RawMessage `json:"config"`
		}
		if json.Unmarshal(data, &v) == nil && len(v.Config) > 0 {
			m.configs++
			if segs[1] == "users" && len(segs) == 3 && bytes.Contains(data, []byte(`"SCRAM-SHA-`)) {
				m.scram++
			}
		}
	case len(segs) == 3 && segs[0] == "kafka-acl",
		len(segs) == 4 && segs[0] == "kafka-acl-extended" && segs[1] == "prefixed":
		m.acls++
	case len(segs) == 3 && segs[0] == "delegation_token" && segs[1] == "tokens":
		m.tokens++
	}
}

// String lists what m holds ("" when nothing).
func (m *kafkaMeta) String() string {
	var parts []string
	add := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, plural(n, one, many))
		}
	}
	add(m.topics, "topic", "topics")
	add(m.configs, "config or quota entity", "config or quota entities")
	add(m.scram, "user with SCRAM credentials", "users with SCRAM credentials")
	add(m.acls, "ACL resource", "ACL resources")
	add(m.tokens, "delegation token", "delegation tokens")
	return strings.Join(parts, ", ")
}
