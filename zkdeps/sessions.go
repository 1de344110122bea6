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
		c = checks.Must(CodeSessionKafkaWrites)
		ts := slices.DeleteFunc(tools, func(t string) bool { return t == "" })
		d.Fix = c.FillFix("TOOLS", strings.Join(ts, "; "))
	case consumer:
		c = checks.Must(CodeSessionConsumerWrite)
		d.Fix = c.FillFix()
	case len(writes) > 0:
		c = checks.Must(CodeSessionOtherWrites)
		o := strings.Join(owners, ", ")
		if o == "" {
			o = "the client"
		}
		d.Fix = c.FillFix("OWNER", o)
	default:
		c = checks.Must(CodeSessionOpen)
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
	if !j.in.Tree.Has(j.treePath("/kafka-acl")) && !j.in.Tree.Has(j.treePath("/kafka-acl-extended")) {
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
