package zkdeps

import (
	"cmp"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/kmeta/kmeta/model"
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
	for p, n := range j.in.Tree.Nodes {
		a := j.abs(p)
		g, code := j.place(a)
		owner := n.Stat.EphemeralOwner
		if code == "zookeeper" {
			j.zkZnodes++
			continue
		}
		if g == "" {
			j.kafkaZnodes++
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
	c := Checks.Must(g.code)
	switch g.code {
	case CodeOldConsumerOffsets:
		d.Fix = c.FillFix("GROUP", g.path[strings.LastIndexByte(g.path, '/')+1:], "PATH", g.path)
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

// writeGroups sorts a session's writes into groups: per group of a
// foreign path, per area of Kafka's tree.
func (j *judge) writeGroups(a *activity) (out []Writes, tools []string, owners []string, cleanup bool) {
	byKey := map[string]*Writes{}
	onlyCleanup := len(a.writes) > 0 && a.more.count == 0
	add := func(key, kind, area, path string, w *pathWrites) {
		g := byKey[key]
		if g == nil {
			g = &Writes{Path: key, Area: area, First: w.first, Last: w.last, kind: kind}
			byKey[key] = g
		}
		g.Count += w.count
		if w.first.Zxid < g.First.Zxid {
			g.First = w.first
		}
		if w.last.Zxid > g.Last.Zxid {
			g.Last = w.last
		}
		names := opNames(w.ops)
		for _, n := range names {
			if !slices.Contains(g.Ops, n) {
				g.Ops = append(g.Ops, n)
			}
		}
		if path != "" {
			g.Znodes = append(g.Znodes, path)
		}
	}
	written := 0
	for path, w := range a.writes {
		grp, code := j.place(path)
		if grp == "" && w.ops == wroteCreate && (path == j.in.Chroot || strings.HasPrefix(j.in.Chroot, path+"/")) {
			// The chroot and its parents, which Kafka's client makes
			// from a session of its own before it starts
			// (createChrootIfNecessary): Kafka's.
			continue
		}
		written++
		switch {
		case code == "zookeeper":
			onlyCleanup = false
			add("/zookeeper", "zookeeper", "ZooKeeper's own znodes (quotas, config)", path, w)
		case grp == "":
			r := rel(path, j.in.Chroot)
			if !under(path, j.in.Chroot) {
				r = path // an ancestor of the chroot
			}
			if !(w.ops == wroteDelete && (r == "/migration" || r == "/controller")) {
				onlyCleanup = false
			}
			area, t := kafkaArea(r)
			kind := "kafka"
			if strings.HasPrefix(r, "/consumers") {
				kind = "consumer"
			}
			if kind == "kafka" && !slices.Contains(tools, t) {
				tools = append(tools, t)
			}
			add(j.in.Chroot+areaPrefix(r), kind, area, path, w)
		default:
			onlyCleanup = false
			area, kind := "znodes Kafka does not define", "foreign"
			name := grp[strings.LastIndexByte(grp, '/')+1:]
			o, _ := ownerOf(name)
			if code == CodeOldConsumerOffsets {
				area, kind = "old consumer offsets and registrations", "consumer"
				o, _ = j.groupOwner(&group{code: code})
			}
			if o != "" {
				if kind == "foreign" {
					area = o + "'s znodes"
				}
				if !slices.Contains(owners, o) {
					owners = append(owners, o)
				}
			}
			add(grp, kind, area, path, w)
		}
	}
	if a.more.count > 0 {
		written++
		onlyCleanup = false
		add("(more)", "foreign", fmt.Sprintf("writes to more than %d other znodes", maxPaths), "", &a.more)
	}
	if written == 0 {
		onlyCleanup = false
	}
	for _, g := range byKey {
		slices.Sort(g.Znodes)
		if len(g.Znodes) > maxExamples {
			g.Znodes = g.Znodes[:maxExamples]
		}
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y Writes) int { return strings.Compare(x.Path, y.Path) })
	return out, tools, owners, onlyCleanup
}

// areaPrefix is the part of Kafka's tree a relative path is grouped by:
// its first segment (/kafka-acl, /isr_change_notification), or its first
// two under the containers of several kinds of znodes (/config/changes,
// /config/users, /admin/reassign_partitions, /brokers/topics).
func areaPrefix(r string) string {
	segs := strings.SplitN(strings.TrimPrefix(r, "/"), "/", 3)
	n := 1
	if slices.Contains([]string{"config", "admin", "brokers", "delegation_token", "consumers"}, segs[0]) {
		n = 2
	}
	return "/" + strings.Join(segs[:min(n, len(segs))], "/")
}

// sessionDependent makes a session's dependent; ok false when the
// session is not one (Kafka's, kmeta's own, closed without writes, the
// migration's cleanup).
func (j *judge) sessionDependent(s *session) (Dependent, bool, bool) {
	d := Dependent{Kind: "session", Session: hexID(s.id), Open: s.open}
	var writes []Writes
	var tools, owners []string
	cleanup := false
	if s.act != nil && (len(s.act.writes) > 0 || s.act.more.count > 0) {
		writes, tools, owners, cleanup = j.writeGroups(s.act)
	}
	if cleanup && !s.open {
		return d, false, true
	}
	if len(writes) == 0 && !s.open {
		return d, false, false
	}
	d.Writes = writes
	// What the session is.
	life := fmt.Sprintf("session %s", hexID(s.id))
	if a := s.act; a != nil {
		if a.timeout > 0 {
			life += fmt.Sprintf(" (timeout %d ms)", a.timeout)
		}
		if a.created.Zxid != 0 {
			life += ", opened at " + when(a.created)
		}
		if a.closed.Zxid != 0 {
			life += ", closed at " + when(a.closed)
		}
	}
	if s.open {
		life += ", open"
	}
	if s.act != nil && s.act.role != nil && s.act.role.root != j.in.Chroot {
		life += fmt.Sprintf("; it acted as %s of the Kafka cluster under %s", s.act.role, nonEmpty(s.act.role.root))
	}
	d.Evidence = append(d.Evidence, life)
	for _, w := range writes {
		span := "at " + when(w.First)
		if w.Last != w.First {
			span = fmt.Sprintf("from %s to %s", when(w.First), when(w.Last))
		}
		d.Evidence = append(d.Evidence, fmt.Sprintf("%s (%s) under %s (%s) %s: %s", plural(int(w.Count), "write", "writes"), strings.Join(w.Ops, ", "), w.Path, w.Area, span, strings.Join(w.Znodes, ", ")))
	}
	if len(s.ephemerals) > 0 {
		slices.Sort(s.ephemerals)
		d.Evidence = append(d.Evidence, fmt.Sprintf("holds %s: %s", plural(len(s.ephemerals), "ephemeral znode", "ephemeral znodes"), examples(s.ephemerals)))
		for _, e := range s.ephemerals {
			if g, _ := j.place(e); g != "" && j.groups[g] != nil {
				if o, _ := j.groupOwner(j.groups[g]); o != "" && !slices.Contains(owners, o) {
					owners = append(owners, o)
				}
			}
		}
	}
	slices.SortFunc(s.conns, func(a, b zkread.Connection) int {
		return cmp.Or(strings.Compare(a.Server, b.Server), strings.Compare(a.Address, b.Address))
	})
	for _, c := range s.conns {
		line := fmt.Sprintf("connected to %s from %s", c.Server, c.Address)
		if !c.Established.IsZero() {
			line += " since " + c.Established.Format(time.RFC3339)
		}
		if c.LastOp != "" {
			line += ", last operation " + c.LastOp
		}
		d.Addresses = append(d.Addresses, c.Address)
		d.Evidence = append(d.Evidence, line)
	}
	// The code: what it wrote says most.
	kafka, consumer := false, false
	for _, w := range writes {
		kafka = kafka || w.kind == "kafka"
		consumer = consumer || w.kind == "consumer"
	}
	var c *model.Check
	switch {
	case kafka:
		c = Checks.Must(CodeSessionKafkaWrites)
		ts := slices.DeleteFunc(tools, func(t string) bool { return t == "" })
		d.Fix = c.FillFix("TOOLS", strings.Join(ts, "; "))
	case consumer:
		c = Checks.Must(CodeSessionConsumerWrite)
		d.Fix = c.FillFix()
	case len(writes) > 0:
		c = Checks.Must(CodeSessionOtherWrites)
		o := strings.Join(owners, ", ")
		if o == "" {
			o = "the client"
		}
		d.Fix = c.FillFix("OWNER", o)
	default:
		c = Checks.Must(CodeSessionOpen)
		d.Fix = c.FillFix()
	}
	d.Code = c.Code
	d.Owner = strings.Join(owners, ", ")
	return d, true, false
}

func nonEmpty(root string) string {
	if root == "" {
		return "/"
	}
	return root
}

// damageCodes are the tree warnings that make a history partial.
var damageCodes = []string{model.WarnTornTail, model.WarnZKLogDamaged, model.WarnZKLogEntriesPastEnd, model.WarnCoverageHole}

func (j *judge) result() *Result {
	in := j.in
	r := &Result{Source: in.Source, Kind: in.Access.String(), Chroot: nonEmpty(in.Chroot), MaxZxid: in.Tree.MaxZxid,
		Dependents: []Dependent{}, Kafka: []KafkaSession{}, Checked: []string{}, NotChecked: []string{}, Findings: []model.Finding{}}
	for _, k := range slices.Sorted(mapKeys(j.groups)) {
		r.Dependents = append(r.Dependents, j.dataDependent(j.groups[k]))
	}
	for _, id := range sortedKeys(j.sessions) {
		s := j.sessions[id]
		if s.role != nil {
			r.Kafka = append(r.Kafka, KafkaSession{Session: hexID(id), Role: s.role.String(), Open: s.open})
			continue
		}
		d, ok, cleanup := j.sessionDependent(s)
		if cleanup {
			r.Cleanup = append(r.Cleanup, hexID(id))
		}
		if ok {
			r.Dependents = append(r.Dependents, d)
		}
	}
	for _, f := range in.Tree.Findings {
		if slices.Contains(damageCodes, f.Code) {
			r.Damaged = append(r.Damaged, f)
		}
	}
	for _, d := range r.Dependents {
		entity := d.Path
		if d.Kind == "session" {
			entity = "session " + d.Session
		}
		msg := d.Evidence[0]
		if len(d.Evidence) > 1 {
			msg += "; " + strings.Join(d.Evidence[1:], "; ")
		}
		f := Checks.Must(d.Code).Finding(entity, msg, d.Fix)
		r.Findings = append(r.Findings, f)
	}
	if len(r.Damaged) > 0 {
		var what []string
		for _, f := range r.Damaged {
			what = append(what, f.Message)
		}
		c := Checks.Must(CodeHistoryDamaged)
		f := c.Finding(in.Source, fmt.Sprintf("%s: %s", plural(len(r.Damaged), "damaged place", "damaged places"), strings.Join(what, "; ")), c.Fix)
		f.Where = r.Damaged[0].Where
		r.Findings = append(r.Findings, f)
	}
	var connected []string
	for _, k := range r.Kafka {
		if k.Open {
			connected = append(connected, k.Role+" ("+k.Session+")")
		}
	}
	if len(connected) > 0 {
		r.Findings = append(r.Findings, Checks.Must(CodeKafkaConnected).Findingf("cluster under "+r.Chroot,
			"%s of the cluster still open: %s", plural(len(connected), "session", "sessions"), strings.Join(connected, ", ")))
	}
	model.SortFindings(r.Findings)
	j.coverage(r)
	r.SafeToStop = len(r.Dependents) == 0 && len(r.Damaged) == 0 && len(connected) == 0
	if r.SafeToStop {
		r.Verdict = "safe to stop: nothing but Kafka uses this ensemble in what was checked"
		if len(r.NotChecked) > 0 {
			r.Verdict += fmt.Sprintf(" (%s could not be checked, listed)", plural(len(r.NotChecked), "thing", "things"))
		}
		return r
	}
	var why []string
	if len(r.Dependents) > 0 {
		var data, sess int
		for _, d := range r.Dependents {
			if d.Kind == "data" {
				data++
			} else {
				sess++
			}
		}
		var parts []string
		if data > 0 {
			parts = append(parts, plural(data, "tree of data that is not Kafka's", "trees of data that are not Kafka's"))
		}
		if sess > 0 {
			parts = append(parts, plural(sess, "session that is not Kafka's", "sessions that are not Kafka's"))
		}
		why = append(why, strings.Join(parts, " and ")+" still use this ensemble")
	}
	switch {
	case len(connected) > 0 && len(why) == 0:
		why = append(why, fmt.Sprintf("nothing but Kafka uses this ensemble, but Kafka itself still does (%s open)", plural(len(connected), "session", "sessions")))
	case len(connected) > 0:
		why = append(why, fmt.Sprintf("Kafka itself still does too (%s open)", plural(len(connected), "session", "sessions")))
	}
	if len(r.Damaged) > 0 {
		why = append(why, "the history is damaged, so what it hides is unknown")
	}
	r.Verdict = "not safe to stop: " + strings.Join(why, "; ")
	return r
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// coverage says what the verdict rests on, and what it could not check.
func (j *judge) coverage(r *Result) {
	in := j.in
	t := in.Tree
	var kafkaSess []string
	for _, k := range r.Kafka {
		kafkaSess = append(kafkaSess, k.Role)
	}
	switch in.Access {
	case zkread.AccessDump:
		if in.TreeRoot != "" {
			r.Checked = append(r.Checked, fmt.Sprintf("the dump's %s under %s (%d Kafka's)", plural(len(t.Nodes), "znode", "znodes"), in.TreeRoot, j.kafkaZnodes))
			r.NotChecked = append(r.NotChecked, fmt.Sprintf("znodes outside %s: the dump holds only Kafka's chroot (dump the ensemble's root, or read it live or from a data dir)", in.TreeRoot))
		} else {
			r.Checked = append(r.Checked, fmt.Sprintf("the dump's %s (%d Kafka's, %d ZooKeeper's own)", plural(len(t.Nodes), "znode", "znodes"), j.kafkaZnodes, j.zkZnodes))
		}
		r.Checked = append(r.Checked, "the sessions holding ephemeral znodes in the dump"+ownList(kafkaSess))
		r.NotChecked = append(r.NotChecked,
			"sessions without ephemeral znodes and who wrote what: a dump holds no session table and no history (read a data dir, zkdata:)",
			"connected clients: a dump holds no connections (read the ensemble live, zk://, with cons allowed)")
	case zkread.AccessDataDir:
		r.Checked = append(r.Checked, fmt.Sprintf("the data dir's %s at zxid 0x%x (%d Kafka's, %d ZooKeeper's own)", plural(len(t.Nodes), "znode", "znodes"), t.MaxZxid, j.kafkaZnodes, j.zkZnodes))
		r.Checked = append(r.Checked, fmt.Sprintf("the session table: %s open at the end", plural(len(t.Sessions), "session", "sessions"))+ownList(kafkaSess))
		if h := in.History; h.Started() {
			span := "no transaction after it"
			if h.Txns > 0 {
				span = fmt.Sprintf("%s from %s to %s", plural(int(h.Txns), "transaction", "transactions"), when(h.First), when(h.Last))
			}
			r.Checked = append(r.Checked, fmt.Sprintf("the transaction logs from snapshot %s (zxid 0x%x): %s", h.Snapshot, h.StartZxid, span))
			if h.StartZxid > 0 {
				r.NotChecked = append(r.NotChecked, fmt.Sprintf("writes before zxid 0x%x: the logs before that snapshot were purged (autopurge.purgeInterval), so sessions that ended before then are not seen", h.StartZxid))
			}
		}
		r.NotChecked = append(r.NotChecked, "clients' addresses: a data dir names sessions by id only (read the ensemble live, zk://, with cons allowed)")
	case zkread.AccessLive:
		r.Checked = append(r.Checked, fmt.Sprintf("the ensemble's %s (%d Kafka's, %d ZooKeeper's own)", plural(len(t.Nodes), "znode", "znodes"), j.kafkaZnodes, j.zkZnodes))
		r.Checked = append(r.Checked, "the sessions holding ephemeral znodes"+ownList(kafkaSess))
		for _, sc := range in.Clients {
			if sc.Why == "" {
				n := 0
				for _, c := range sc.Connections {
					if c.Session != 0 && !j.own(c.Session) {
						n++
					}
				}
				r.Checked = append(r.Checked, fmt.Sprintf("the clients connected to %s (%s): %s", sc.Server, sc.Via, plural(n, "session", "sessions")))
			} else {
				r.NotChecked = append(r.NotChecked, fmt.Sprintf("the clients connected to %s: %s", sc.Server, sc.Why))
			}
		}
		if in.Clients == nil {
			r.NotChecked = append(r.NotChecked, "connected clients: not asked")
		}
		r.NotChecked = append(r.NotChecked, "who wrote Kafka's znodes: a live ensemble keeps no record of which session wrote what, so writes by clients that are no longer connected (a kafka-configs --zookeeper run, an old consumer that stopped) are not seen; read a server's data dir (zkdata:) for its transaction logs")
		if t.Changed {
			r.NotChecked = append(r.NotChecked, "a stable view: the tree changed while it was read")
		}
	}
	if len(in.NoAuth) > 0 {
		ps := slices.Clone(in.NoAuth)
		slices.Sort(ps)
		r.NotChecked = append(r.NotChecked, fmt.Sprintf("%s refused to kmeta (NoAuth): their data, owners and children (%s; read with --zk-auth as a user allowed to read them)", plural(len(ps), "znode", "znodes"), examples(ps)))
	}
}

func ownList(roles []string) string {
	if len(roles) == 0 {
		return ""
	}
	return " (Kafka's: " + strings.Join(roles, ", ") + ")"
}

// authorizerWindow bounds how long after a broker registers its
// AclAuthorizer opens its session: KafkaServer.startup registers the
// broker, starts the controller and the coordinators (their loading is
// asynchronous), then configures the authorizer.
const authorizerWindow = 2 * time.Minute

// aclAreas are the parts of Kafka's tree AclAuthorizer writes.
var aclAreas = []string{"/kafka-acl", "/kafka-acl-extended", "/kafka-acl-changes", "/kafka-acl-extended-changes"}

// pairAuthorizers finds the brokers' AclAuthorizer sessions. A ZooKeeper-
// mode broker with AclAuthorizer talks to ZooKeeper over two sessions:
// its own (which owns /brokers/ids/N) and the authorizer's, which owns
// nothing and writes only ACLs and ACL change notifications (those
// CreateAcls and DeleteAcls requests make). Neither ephemerals nor
// /controller name the second, so it is paired with its broker, one to
// one: from the logs, a session that wrote nothing but ACLs, opened
// within authorizerWindow after the broker registered (or, both there
// before the first logged transaction, one of each); live, a session
// from the broker's host holding no ephemeral, the one established
// nearest to the broker's own, when the tree shows an authorizer's
// znodes (/kafka-acl). A tool that writes ACLs (kafka-acls
// --authorizer-properties zookeeper.connect=...) in that window, or
// from a broker's host, is taken for the authorizer.
func (j *judge) pairAuthorizers() {
	var brokers, cands []*session
	for _, id := range sortedKeys(j.sessions) {
		s := j.sessions[id]
		switch {
		case s.role != nil && s.role.kind == "broker" && s.role.id >= 0:
			brokers = append(brokers, s)
		case s.role == nil && len(s.ephemerals) == 0 && (s.open || s.wrote()) && j.aclOnly(s):
			// A closed session that wrote nothing is no dependent:
			// pairing it (a broker's short-lived session that makes the
			// chroot) would leave the authorizer's out.
			cands = append(cands, s)
		}
	}
	paired := map[*session]bool{}
	pair := func(b, a *session) {
		paired[a] = true
		b.role = &role{kind: "authorizer", id: a.role.id, root: a.role.root}
	}
	if j.in.History.Started() {
		slices.SortStableFunc(cands, func(x, y *session) int { return cmp.Compare(x.created().Zxid, y.created().Zxid) })
		for _, b := range cands {
			c := b.created()
			var best *session
			for _, a := range brokers {
				if paired[a] {
					continue
				}
				r := a.registeredAt()
				if c.Zxid == 0 {
					// Both there before the first logged transaction.
					if r.Zxid == 0 {
						best = a
						break
					}
					continue
				}
				// The most recent registration before it, in the window.
				if r.Zxid != 0 && r.Zxid < c.Zxid && c.Time-r.Time <= authorizerWindow.Milliseconds() &&
					(best == nil || r.Zxid > best.registeredAt().Zxid) {
					best = a
				}
			}
			if best != nil {
				pair(b, best)
			}
		}
		return
	}
	if j.in.Tree.Nodes[j.treePath("/kafka-acl")] == nil && j.in.Tree.Nodes[j.treePath("/kafka-acl-extended")] == nil {
		return
	}
	for _, a := range brokers {
		if len(a.conns) == 0 {
			continue
		}
		host := clientHost(a.conns[0].Address)
		var best *session
		var bestGap time.Duration
		for _, b := range cands {
			if b.role != nil || len(b.conns) == 0 || clientHost(b.conns[0].Address) != host {
				continue
			}
			gap := b.conns[0].Established.Sub(a.conns[0].Established).Abs()
			if best == nil || gap < bestGap {
				best, bestGap = b, gap
			}
		}
		if best != nil {
			pair(best, a)
		}
	}
}

// treePath is a path relative to Kafka's chroot as a path of the tree.
func (j *judge) treePath(r string) string {
	p := j.in.Chroot + r
	if j.in.TreeRoot != "" {
		p = strings.TrimPrefix(p, j.in.TreeRoot)
		if p == "" {
			p = "/"
		}
	}
	return p
}

// aclOnly says whether a session wrote nothing but ACL znodes of the
// cluster (or nothing at all, the chroot's creation aside).
func (j *judge) aclOnly(s *session) bool {
	if s.act == nil {
		return true
	}
	if s.act.more.count > 0 {
		return false
	}
	for path, w := range s.act.writes {
		if w.ops == wroteCreate && (path == j.in.Chroot || strings.HasPrefix(j.in.Chroot, path+"/")) {
			continue
		}
		if !under(path, j.in.Chroot) {
			return false
		}
		r := rel(path, j.in.Chroot)
		if !slices.ContainsFunc(aclAreas, func(a string) bool { return r == a || strings.HasPrefix(r, a+"/") }) {
			return false
		}
	}
	return true
}

func (s *session) wrote() bool {
	return s.act != nil && (len(s.act.writes) > 0 || s.act.more.count > 0)
}

func (s *session) created() Point {
	if s.act == nil {
		return Point{}
	}
	return s.act.created
}

func (s *session) registeredAt() Point {
	if s.act == nil {
		return Point{}
	}
	return s.act.registered
}

// clientHost is the host of a client address (host:port).
func clientHost(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// NotCheckedFinding is what could not be checked as one finding
// (zk-dependents-not-checked), for a caller that shows it beside the
// findings (migrate stage KRaft); false when everything was checked.
func (r *Result) NotCheckedFinding() (model.Finding, bool) {
	if len(r.NotChecked) == 0 {
		return model.Finding{}, false
	}
	c := Checks.Must(CodeNotChecked)
	return c.Finding(r.Source, "zk dependents could not check: "+strings.Join(r.NotChecked, "; "), c.Fix), true
}
