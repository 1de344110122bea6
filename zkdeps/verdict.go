package zkdeps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
	"github.com/kmeta/kmeta/zkread"
)

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
		f := checks.Must(d.Code).Finding(entity, msg, d.Fix)
		r.Findings = append(r.Findings, f)
	}
	if len(r.Damaged) > 0 {
		var what []string
		for _, f := range r.Damaged {
			what = append(what, f.Message)
		}
		c := checks.Must(CodeHistoryDamaged)
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
		c := checks.Must(CodeKafkaConnected)
		r.Findings = append(r.Findings, c.Finding("cluster under "+r.Chroot,
			fmt.Sprintf("%s of the cluster still open: %s", plural(len(connected), "session", "sessions"), strings.Join(connected, ", ")),
			c.FillFix("SOURCE", shellword.Quote(in.Source))))
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
		verb := " still use this ensemble"
		if len(r.Dependents) == 1 {
			verb = " still uses this ensemble"
		}
		why = append(why, strings.Join(parts, " and ")+verb)
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
			r.Checked = append(r.Checked, fmt.Sprintf("the dump's %s under %s (%d Kafka's)", plural(t.Len(), "znode", "znodes"), in.TreeRoot, j.kafkaZnodes))
			r.NotChecked = append(r.NotChecked, fmt.Sprintf("znodes outside %s: the dump holds only Kafka's chroot (dump the ensemble's root, or read it live or from a data dir)", in.TreeRoot))
		} else {
			r.Checked = append(r.Checked, fmt.Sprintf("the dump's %s (%d Kafka's, %d ZooKeeper's own)", plural(t.Len(), "znode", "znodes"), j.kafkaZnodes, j.zkZnodes))
		}
		r.Checked = append(r.Checked, "the sessions holding ephemeral znodes in the dump"+ownList(kafkaSess))
		r.NotChecked = append(r.NotChecked,
			"sessions without ephemeral znodes and who wrote what: a dump holds no session table and no history (read a data dir, zkdata:)",
			"connected clients: a dump holds no connections (read the ensemble live, zk://, with cons allowed)")
	case zkread.AccessDataDir:
		r.Checked = append(r.Checked, fmt.Sprintf("the data dir's %s at zxid 0x%x (%d Kafka's, %d ZooKeeper's own)", plural(t.Len(), "znode", "znodes"), t.MaxZxid, j.kafkaZnodes, j.zkZnodes))
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
		r.Checked = append(r.Checked, fmt.Sprintf("the ensemble's %s (%d Kafka's, %d ZooKeeper's own)", plural(t.Len(), "znode", "znodes"), j.kafkaZnodes, j.zkZnodes))
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
	// Kafka's own metadata: ZooKeeper alone cannot say whether KRaft
	// holds it, unless Kafka's migration recorded its copy in /migration
	// (an offline migration writes nothing to ZooKeeper, and kmeta
	// migrate stage KRaft deletes /migration). While the cluster's
	// sessions are open, zk-kafka-connected already says it still uses
	// the ensemble; once none is, the ensemble may be the only record of
	// a cluster that is merely stopped.
	kafkaOpen := slices.ContainsFunc(r.Kafka, func(k KafkaSession) bool { return k.Open })
	if what := j.meta.String(); what != "" && !kafkaOpen {
		if j.meta.migrated {
			r.Checked = append(r.Checked, fmt.Sprintf("the cluster's metadata kept here (%s): /migration records Kafka's migration copying it to KRaft (KRaft metadata offset %d)", what, j.meta.offset))
		} else {
			r.NotChecked = append(r.NotChecked, fmt.Sprintf("that KRaft holds the cluster's metadata kept here (%s): no /migration records a copy by Kafka's migration (an offline migration, and kmeta migrate stage KRaft's cleanup, leave none), and a ZooKeeper-mode cluster whose brokers are stopped holds no session; prove it before deleting this data: kmeta verify --zk %s --kraft kraft:DIR (DIR: a controller's metadata.log.dir)", what, shellword.Quote(in.Source)))
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

// NotCheckedFinding is what could not be checked as one finding
// (zk-dependents-not-checked), for a caller that shows it beside the
// findings (migrate stage KRaft); false when everything was checked.
func (r *Result) NotCheckedFinding() (model.Finding, bool) {
	if len(r.NotChecked) == 0 {
		return model.Finding{}, false
	}
	c := checks.Must(CodeNotChecked)
	return c.Finding(r.Source, "zk dependents could not check: "+strings.Join(r.NotChecked, "; "), c.Fix), true
}
