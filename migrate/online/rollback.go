package online

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
)

// RollbackResult is the rollback valid in the current phase: each node's
// file to restore and the steps in order, or a refusal.
type RollbackResult struct {
	Phase   Phase           `json:"phase"`
	Refused bool            `json:"refused"`
	Checks  []model.Finding `json:"checks"`
	Nodes   []NodePlan      `json:"nodes"`
	Steps   []Step          `json:"steps"`
	Status  *Status         `json:"-"`
}

// MigratingConfigName is the file a broker restarts on first when it goes
// back from KRaftPostMigration: a ZooKeeper-mode broker in migration mode.
func MigratingConfigName(id int32) string { return fmt.Sprintf("server-%d.migrating.properties", id) }

// Rollback returns the way back to ZooKeeper from the current phase, as
// Kafka's 3.9 docs give it (reference §6.9) and Strimzi runs it: from
// KRaftPostMigration the brokers first go back to migration mode (they
// must not meet a ZooKeeper-mode controller while they are KRaft
// brokers); then the controllers are stopped, /controller deleted (so a
// broker becomes ZooKeeper's controller at once) and /migration saved
// and deleted (a /migration left behind makes a later attempt skip the
// copy and can wipe ZooKeeper), and the brokers rolled onto their
// ZooKeeper-mode files. in.Nodes are those files (what stage
// KRaftMigration read), plus the controllers' current files when their
// metadata dirs are to be cleared. kmeta restarts nothing and never
// writes to ZooKeeper: the steps are for the operator.
func Rollback(in Input) (*RollbackResult, error) {
	st, err := Observe(in)
	if err != nil {
		return nil, err
	}
	r := &RollbackResult{Phase: st.Phase, Checks: []model.Finding{}, Nodes: []NodePlan{}, Steps: []Step{}, Status: st}
	refuse := func(msg string) (*RollbackResult, error) {
		r.Refused = true
		r.Checks = append(r.Checks, finding(CodeNoRollback, "phase "+st.Phase.String(), msg, ""))
		return r, nil
	}
	row := Phases[st.Phase]
	switch {
	case row.RollbackTo == st.Phase:
		// A row that goes back to itself: nothing to roll back.
		return r, nil
	case row.RollbackTo < 0:
		return refuse(fmt.Sprintf("no rollback from %s: %s", st.Phase, st.Phase.noRollback()))
	}
	end := st.Phase.rollbackEnd()
	if row.DualWrites && in.KRaft == nil {
		r.Checks = append(r.Checks, finding(CodeKRaftNeeded, "phase",
			"without the controllers' view kmeta cannot rule out PreKRaft, from which there is no rollback", "add --bootstrap-controller HOST:PORT or --kraft kraft:DIR"))
	}
	if st.Agree != nil && !*st.Agree {
		r.Checks = append(r.Checks, finding(CodeZKBehind, "zookeeper",
			fmt.Sprintf("ZooKeeper lacks what KRaft holds (%d differences): after the rollback the cluster has ZooKeeper's metadata, without those changes; redo them after the rollback, or wait until dual-write catches up (the fix lists them)", st.Differences),
			in.verifyCommand()))
	}
	brokers := map[int32]*Node{}
	controllers := map[int32]*Node{}
	for _, b := range st.Brokers {
		n := in.Nodes[b.ID]
		if n == nil || n.Role() != RoleBroker || n.Profile() == BrokerKRaft {
			r.Checks = append(r.Checks, finding(CodeNodeConfigMissing, fmt.Sprintf("broker %d", b.ID),
				"no ZooKeeper-mode file given for it: the rollback restores each broker's ZooKeeper-mode server.properties",
				fmt.Sprintf("add --config %d=FILE, the file stage KRaftMigration read", b.ID)))
			continue
		}
		brokers[b.ID] = n
	}
	for id, n := range in.Nodes {
		if n.Role() == RoleController {
			controllers[id] = n
		}
	}
	if slices.ContainsFunc(r.Checks, func(f model.Finding) bool { return f.Severity == model.SevError }) {
		r.Refused = true
		return r, nil
	}
	ids := slices.Sorted(maps.Keys(brokers))
	// The phase's row says where its rollback goes first: a phase that
	// goes back to one before the end (KRaftPostMigration to
	// KRaftDualWriting) rolls the brokers back to that phase's profile
	// (migration mode) before the rest.
	if back := row.RollbackTo; back != end {
		if Phases[back].Broker != BrokerMigrating {
			return nil, fmt.Errorf("%w: the rollback from %s goes through %s, whose %s brokers kmeta makes no files for", ErrBadInput, st.Phase, back, Phases[back].Broker)
		}
		q := quorum{controllers: (&observer{in: in}).voters(), protocol: ctlProtocolOf(in.Nodes)}
		if k := in.KRaft; k != nil {
			if mv := k.MetadataVersion(); mv > 0 {
				q.ibp = levelName(features.Catalog39(), mv)
			}
		}
		// The KRaft controller leads: its log dir orders and gates the
		// roll back to migration mode when given.
		view := in.ZK
		if k := in.KRaft; k != nil && k.Reports(model.FieldTopics) {
			view = k
		}
		src := in.Gates.brokerSource(true, func(f model.Finding) { r.Checks = append(r.Checks, f) })
		for _, id := range rollOrder(view, ids, -1) {
			orig := brokers[id].Props
			qq := q
			if v := orig[keyIBP]; v != "" {
				qq.ibp = v
			}
			if len(qq.controllers) == 0 || qq.ibp == "" {
				return nil, fmt.Errorf("%w: rolling broker %d back to migration mode needs the quorum and its metadata.version: give --kraft (a controller's log dir or --bootstrap-controller) and the controllers' --config files", ErrBadInput, id)
			}
			props := migratingBroker(orig, qq)
			r.Nodes = append(r.Nodes, NodePlan{ID: id, Role: RoleBroker, Profile: Phases[back].Broker, Config: MigratingConfigName(id), Changes: Diff(orig, props), Props: props})
			r.Steps = append(r.Steps, gated(Step{Action: ActRestart, Node: nodeRef(id), Config: MigratingConfigName(id),
				What: fmt.Sprintf("restart broker %d as a ZooKeeper-mode broker in migration mode (%s), keeping zookeeper.metadata.migration.enable", id, MigratingConfigName(id))}, src)...)
		}
		r.Steps = append(r.Steps, Step{Action: ActWait, What: "every broker registered with ZooKeeper again (in /brokers/ids) and with the KRaft controller as migrating (kmeta migrate status says " + back.String() + ")"})
	}
	var ctrlIDs []int32
	for _, c := range st.Controllers {
		ctrlIDs = append(ctrlIDs, c.ID)
	}
	for _, id := range ctrlIDs {
		r.Steps = append(r.Steps, Step{Action: ActStop, Node: nodeRef(id), What: fmt.Sprintf("stop controller %d (deprovision the KRaft quorum)", id)})
	}
	zk := zkCLIOf(in)
	for _, z := range []struct {
		args []string
		what string
	}{
		{[]string{"delete", "/controller"}, "delete /controller, so that a broker becomes ZooKeeper's controller at once (do it right after stopping the controllers, and roll the brokers soon: KAFKA-16101)"},
		{[]string{"get", "/migration"}, "save /migration's content (for a later look at what the attempt did)"},
		{[]string{"delete", "/migration"}, "delete /migration: a /migration left behind makes a later attempt skip the copy and can wipe ZooKeeper (KAFKA-17146)"},
	} {
		r.Steps = append(r.Steps, zk.step(z.what, z.args...))
	}
	for _, id := range ids {
		orig := brokers[id].Props
		r.Nodes = append(r.Nodes, NodePlan{ID: id, Role: RoleBroker, Profile: Phases[end].Broker, Config: ConfigName(id), Changes: []Change{}, Props: maps.Clone(orig), From: brokers[id].Path})
	}
	if src := in.Gates.brokerSource(false, nil); src.Words != nil {
		// ZooKeeper's next controller is elected once /controller is
		// deleted: roll plan orders the roll then (it last, as stage
		// orders the forward rolls), each broker between its gates.
		r.Steps = append(r.Steps, rollPlanStep(ids, src,
			"restart each broker on its ZooKeeper-mode file (server-ID.properties, a copy of the file stage KRaftMigration read), one at a time in the order this prints (ZooKeeper's controller, elected when /controller was deleted, last), each between the roll check and the roll wait it prints"))
	} else {
		for _, id := range ids {
			r.Steps = append(r.Steps, Step{Action: ActRestart, Node: nodeRef(id), Config: ConfigName(id),
				What: fmt.Sprintf("restart broker %d on its ZooKeeper-mode file (%s, a copy of %s)", id, ConfigName(id), brokers[id].Path)})
		}
	}
	for _, id := range ctrlIDs {
		n := controllers[id]
		if n == nil {
			continue
		}
		for _, d := range logDirs(n.Props) {
			r.Steps = append(r.Steps, Step{Action: ActDelete, Node: nodeRef(id), Path: d, Command: "rm -rf " + shellword.Quote(d),
				What: fmt.Sprintf("delete controller %d's metadata log dir %s, the dir itself and everything in it (a later attempt installs the freshly formatted dir stage KRaftMigration writes there)", id, d)})
		}
	}
	r.Steps = append(r.Steps, Step{Action: ActWait, What: "every broker registered in ZooKeeper, a broker is ZooKeeper's controller, no /migration (kmeta migrate status says " + end.String() + ")"})
	for i := range r.Steps {
		r.Steps[i].Step = i + 1
	}
	return r, nil
}

// Write writes the files the rollback restores into out (the same
// atomic, 0600, no-overwrite rules as stage).
func (r *RollbackResult) Write(o WriteOptions) ([]migrate.FileResult, error) {
	if r.Refused {
		return nil, fmt.Errorf("%w: no rollback", ErrRefused)
	}
	if o.Made == "" {
		o.Made = "migrate rollback from " + r.Phase.String()
	}
	sr := &StageResult{Ready: true, Phase: r.Phase, Nodes: r.Nodes}
	return sr.Write(o)
}
