package online

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// withPhases runs the test on a copy of the phase table that edit
// changed; the table is restored when the test ends.
func withPhases(t *testing.T, edit func(rows []Spec)) {
	t.Helper()
	saved := Phases
	rows := slices.Clone(Phases)
	edit(rows)
	Phases = rows
	t.Cleanup(func() { Phases = saved })
}

// observed is what status says of a cluster, as lines to compare
// exactly: the phase, each wait, each finding.
func observed(st *Status) []string {
	out := []string{"phase " + st.Phase.String()}
	for _, w := range st.WaitingFor {
		out = append(out, "wait "+w)
	}
	for _, f := range st.Findings {
		out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.Code, f.Entity))
	}
	return out
}

func observe(t *testing.T, in Input) []string {
	t.Helper()
	st, err := Observe(in)
	if err != nil {
		t.Fatal(err)
	}
	return observed(st)
}

func TestPhaseRows(t *testing.T) {
	for i, r := range Phases {
		if r.Phase != Phase(i) || r.Reached == nil || r.ReachedText == "" || r.Summary == "" || r.Rollback == "" {
			t.Errorf("row %d: %+v", i, r)
		}
		// A rollback ends in ZooKeeper, or there is none.
		if end := r.Phase.rollbackEnd(); r.RollbackTo >= 0 && end != ZooKeeper || r.RollbackTo < 0 && end != r.Phase {
			t.Errorf("%s: rollback ends in %s", r.Phase, end)
		}
	}
}

// Facts to phase, by the rows, over the combinations status meets: the
// log's ZkMigrationState where reported, else ZooKeeper's claim and
// /migration, the controllers' flags and the brokers left.
func TestPhaseOfFacts(t *testing.T) {
	log := func(s model.ZkMigrationState) Facts {
		return Facts{KRaftView: true, StateReported: true, HasState: true, State: s, FlagsKnown: true}
	}
	claimed := Facts{KRaftClaimed: true, MigrationZNode: true, Migrated: true}
	with := func(f Facts, edit func(*Facts)) Facts { edit(&f); return f }
	for _, tc := range []struct {
		name  string
		facts Facts
		want  Phase
	}{
		{"zookeeper alone", Facts{ZKBrokers: 3, ZKBrokersLeft: 3}, ZooKeeper},
		{"a stale /migration at an offset", Facts{MigrationZNode: true, Migrated: true, ZKBrokers: 3}, ZooKeeper},
		{"a null /migration", Facts{MigrationZNode: true, MigrationNull: true, ZKBrokers: 3}, ZooKeeper},
		{"/migration with no offset yet", Facts{MigrationZNode: true, ZKBrokers: 3}, KRaftMigration},
		{"/controller claimed, no copy yet", Facts{KRaftClaimed: true, ZKBrokers: 3}, KRaftMigration},
		{"a log without a state", Facts{KRaftView: true, StateReported: true, ZKBrokers: 3}, KRaftMigration},
		{"a log at NONE", log(model.MigrationNone), KRaftMigration},
		{"a log at PRE_MIGRATION", log(model.MigrationPreMigration), KRaftMigration},
		{"a log at a state Kafka does not persist", log(4), ZooKeeper},
		{"a log at MIGRATION, brokers left", with(log(model.MigrationMigration), func(f *Facts) { f.ControllersMigrating, f.ZKBrokers, f.ZKBrokersLeft = 1, 1, 1 }), KRaftDualWriting},
		{"a log at MIGRATION, a migrating registration left", with(log(model.MigrationMigration), func(f *Facts) { f.ControllersMigrating, f.ZKBrokersLeft = 1, 1 }), KRaftDualWriting},
		{"a log at MIGRATION, no broker left", with(log(model.MigrationMigration), func(f *Facts) { f.ControllersMigrating = 1 }), KRaftPostMigration},
		{"a log at MIGRATION, a controller without the flag", with(log(model.MigrationMigration), func(f *Facts) { f.ControllersMigrating, f.ControllersWithout, f.ZKBrokersLeft = 1, 1, 2 }), PreKRaft},
		{"a log at POST_MIGRATION, ZooKeeper claimed", with(log(model.MigrationPostMigration), func(f *Facts) { f.KRaftClaimed, f.ControllersWithout = true, 1 }), PreKRaft},
		{"a log at POST_MIGRATION, /migration left", with(log(model.MigrationPostMigration), func(f *Facts) { f.MigrationZNode, f.ControllersWithout = true, 1 }), PreKRaft},
		{"a log at POST_MIGRATION, a controller with the flag", with(log(model.MigrationPostMigration), func(f *Facts) { f.ControllersMigrating, f.ControllersWithout = 1, 1 }), PreKRaft},
		{"a log at POST_MIGRATION, ZooKeeper let go", with(log(model.MigrationPostMigration), func(f *Facts) { f.ControllersWithout = 1 }), KRaft},
		{"claimed and copied, brokers in ZooKeeper", with(claimed, func(f *Facts) { f.ZKBrokers = 3 }), KRaftDualWriting},
		{"claimed and copied, no broker in ZooKeeper", claimed, KRaftPostMigration},
		{"claimed and copied, a controller file without the flag", with(claimed, func(f *Facts) { f.FlagsKnown, f.ControllersWithout, f.ZKBrokers = true, 1, 3 }), PreKRaft},
		{"live controllers with the flag, claimed and copied", with(claimed, func(f *Facts) { f.KRaftView, f.FlagsKnown, f.ControllersMigrating = true, true, 1 }), KRaftPostMigration},
		{"live controllers with the flag, nothing in ZooKeeper", Facts{KRaftView: true, FlagsKnown: true, ControllersMigrating: 1, ZKBrokers: 3}, KRaftMigration},
		{"live controllers without the flag, ZooKeeper let go", Facts{KRaftView: true, FlagsKnown: true, ControllersWithout: 1}, KRaft},
		{"live controllers without the flag, brokers in ZooKeeper", Facts{KRaftView: true, FlagsKnown: true, ControllersWithout: 1, ZKBrokers: 3}, KRaftMigration},
		{"live controllers without the flag, /controller claimed", Facts{KRaftView: true, FlagsKnown: true, ControllersWithout: 1, KRaftClaimed: true}, KRaftMigration},
		{"controller files without the flag, no KRaft view", Facts{FlagsKnown: true, ControllersWithout: 1}, ZooKeeper},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := phaseOf(Phases, tc.facts); got != tc.want {
				t.Errorf("%+v: %s, want %s", tc.facts, got, tc.want)
			}
		})
	}
}

// What status says, exactly, in each state it meets: the phase, what it
// waits for, and the findings the phase's facts carry.
func TestObservePhaseFindings(t *testing.T) {
	claimed := func(img *model.Image) *model.Image {
		img.ZK.ControllerID, img.ZK.KRaftControllerEpoch = 3000, 1
		img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 1, KRaftMetadataOffset: 42}
		return img
	}
	migration := func(m model.Migration) func(*model.Image) *model.Image {
		return func(img *model.Image) *model.Image { m.HasZNode = true; img.Migration = &m; return img }
	}
	noZKBrokers := func(img *model.Image) *model.Image { img.Brokers = map[int32]*model.Broker{}; return img }
	// withTopics is a log that holds ZooKeeper's topic, as the copy
	// leaves it.
	withTopics := func(k *model.Image) *model.Image { k.Topics = zkImage().Topics; return k }
	all := func(m bool) map[int32]bool { return map[int32]bool{1: m, 2: m, 3: m} }
	bootstrap := func() *model.Image {
		k := model.NewImage()
		k.ClusterID = zkImage().ClusterID
		k.Features["metadata.version"] = 21
		return k
	}
	for _, tc := range []struct {
		name      string
		zk, kraft *model.Image
		want      []string
	}{
		{"zookeeper alone", zkImage(), nil, []string{"phase ZooKeeper"}},
		{"a stale /migration", migration(model.Migration{KRaftControllerID: 3000, KRaftControllerEpoch: 5, KRaftMetadataOffset: 120})(zkImage()), nil,
			[]string{"phase ZooKeeper", "error stale-migration-znode znode /migration"}},
		{"a null /migration", migration(model.Migration{ZNodeNull: true, KRaftMetadataOffset: -1})(zkImage()), nil,
			[]string{"phase ZooKeeper", "error migration-znode-null znode /migration"}},
		{"/migration with no offset yet", migration(model.Migration{KRaftMetadataOffset: -1})(zkImage()), nil,
			[]string{"phase KRaftMigration", "wait every broker to register with the KRaft controllers (give --kraft or --bootstrap-controller to see which have)"}},
		{"a log of the bootstrap only", zkImage(), bootstrap(),
			[]string{"phase KRaftMigration", "wait the controllers to start: their metadata log holds only the bootstrap records",
				"wait broker 1 to register with the KRaft controller as a migrating ZooKeeper broker: not restarted in migration mode yet? (give its --config to know)",
				"wait broker 2 to register with the KRaft controller as a migrating ZooKeeper broker: not restarted in migration mode yet? (give its --config to know)",
				"wait broker 3 to register with the KRaft controller as a migrating ZooKeeper broker: not restarted in migration mode yet? (give its --config to know)",
				"warning broker-not-registered broker 1", "warning broker-not-registered broker 2", "warning broker-not-registered broker 3"}},
		{"controllers formatted without migration", zkImage(), kraftImage(model.MigrationNone, all(true), false),
			[]string{"phase KRaftMigration", "wait the controller to copy the metadata (every broker is registered; it logs \"Completed migration of metadata from ZooKeeper to KRaft\")",
				"error controller-formatted-without-migration controllers"}},
		{"brokers registering", zkImage(), kraftImage(model.MigrationPreMigration, map[int32]bool{1: true, 2: true}, true),
			[]string{"phase KRaftMigration", "wait broker 3 to register with the KRaft controller as a migrating ZooKeeper broker: not restarted in migration mode yet? (give its --config to know)",
				"warning broker-not-registered broker 3"}},
		{"dual-write", claimed(zkImage()), withTopics(kraftImage(model.MigrationMigration, all(true), true)), []string{"phase KRaftDualWriting"}},
		{"dual-write, ZooKeeper behind", claimed(zkImage()), kraftImage(model.MigrationMigration, all(true), true),
			[]string{"phase KRaftDualWriting", "warning zookeeper-disagrees zookeeper"}},
		{"dual-write, zookeeper alone", claimed(zkImage()), nil, []string{"phase KRaftDualWriting"}},
		{"brokers moved", noZKBrokers(claimed(zkImage())), withTopics(kraftImage(model.MigrationMigration, all(false), true)), []string{"phase KRaftPostMigration"}},
		{"brokers moved, zookeeper alone", noZKBrokers(claimed(zkImage())), nil,
			[]string{"phase KRaftPostMigration", "info kraft-source-needed phase"}},
		{"a controller finalized, brokers left", claimed(zkImage()), withTopics(kraftImage(model.MigrationMigration, all(true), false)),
			[]string{"phase PreKRaft", "error broker-still-zookeeper broker 1", "error broker-still-zookeeper broker 2", "error broker-still-zookeeper broker 3"}},
		{"finalized, zookeeper not let go", noZKBrokers(claimed(zkImage())), kraftImage(model.MigrationPostMigration, all(false), false), []string{"phase PreKRaft"}},
		{"finalized, a controller with the flag", noZKBrokers(claimed(zkImage())), kraftImage(model.MigrationPostMigration, all(false), true),
			[]string{"phase PreKRaft", "wait controller 3000 to restart without the migration flag"}},
		{"kraft", letGo(noZKBrokers(claimed(zkImage()))), kraftImage(model.MigrationPostMigration, all(false), false), []string{"phase KRaft"}},
		{"a log at a state Kafka does not persist", zkImage(), kraftImage(4, all(true), true), []string{"phase ZooKeeper"}},
		{"live controllers, dual-write", claimed(zkImage()), live(kraftImage(model.MigrationMigration, all(true), true)),
			[]string{"phase KRaftDualWriting", "info kraft-source-needed kraft"}},
		{"live controllers, finalizing", noZKBrokers(claimed(zkImage())), live(kraftImage(model.MigrationPostMigration, all(false), false)),
			[]string{"phase PreKRaft", "info kraft-source-needed kraft"}},
		{"live controllers, kraft", letGo(noZKBrokers(claimed(zkImage()))), live(kraftImage(model.MigrationPostMigration, all(false), false)),
			[]string{"phase KRaft", "info kraft-source-needed kraft"}},
		{"live controllers without migration, brokers up", zkImage(), live(kraftImage(model.MigrationNone, nil, false)),
			[]string{"phase KRaftMigration", "wait every broker to register and the controller to copy the metadata (the live controllers do not report broker registrations; --kraft kraft:DIR of a controller does)",
				"error controller-formatted-without-migration controllers", "info kraft-source-needed kraft"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := observe(t, Input{ZK: tc.zk, KRaft: tc.kraft}); !slices.Equal(got, tc.want) {
				t.Errorf("status says\n\t%q\nwant\n\t%q", got, tc.want)
			}
		})
	}
}

// walk is a cluster staged through the phases with the files stage
// writes: each phase's status input and the nodes' files to enter the
// next phase with.
type walk struct{ t *testing.T }

func (w walk) claimed(brokers bool) *model.Image {
	zk := zkImage()
	zk.ZK.ControllerID, zk.ZK.KRaftControllerEpoch = 3000, 1
	zk.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 1, KRaftMetadataOffset: 42}
	if !brokers {
		zk.Brokers = map[int32]*model.Broker{}
	}
	return zk
}

func (w walk) log(state model.ZkMigrationState, migrating, ctlReady bool) *model.Image {
	k := kraftImage(state, map[int32]bool{1: migrating, 2: migrating, 3: migrating}, ctlReady)
	k.Topics = zkImage().Topics
	return k
}

// files are the nodes' files of stage phase's result.
func (w walk) files(in Input, phase Phase, o StageOptions) map[int32]*Node {
	w.t.Helper()
	o.Phase = phase
	r, err := Stage(in, o)
	if err != nil || !r.Ready {
		w.t.Fatalf("stage %s: %v %v", phase, err, r.Checks)
	}
	out := map[int32]*Node{}
	for id, n := range in.Nodes {
		out[id] = n
	}
	for _, n := range r.Nodes {
		out[n.ID] = &Node{ID: n.ID, Path: "/etc/kafka/" + n.Config, Props: n.Props}
	}
	return out
}

// dualWriting is KRaftDualWriting with the files stage KRaftMigration
// wrote; postMigration KRaftPostMigration with stage
// KRaftPostMigration's.
func (w walk) dualWriting() Input {
	nodes := w.files(Input{ZK: zkImage(), Nodes: files(1, 2, 3)}, KRaftMigration, StageOptions{Controllers: ctl, MetadataDir: "/d"})
	return Input{ZK: w.claimed(true), KRaft: w.log(model.MigrationMigration, true, true), Nodes: nodes}
}

func (w walk) postMigration() Input {
	in := w.dualWriting()
	return Input{ZK: w.claimed(false), KRaft: w.log(model.MigrationMigration, false, true), Nodes: w.files(in, KRaftPostMigration, StageOptions{})}
}

// stageSteps are a stage's steps as ACTION:NODE:CONFIG, and its nodes'
// profiles as ID=PROFILE.
func stageSteps(t *testing.T, in Input, phase Phase) []string {
	t.Helper()
	r, err := Stage(in, StageOptions{Phase: phase})
	if err != nil || !r.Ready {
		t.Fatalf("stage %s: %v %v", phase, err, r.Checks)
	}
	var out []string
	for _, n := range r.Nodes {
		out = append(out, fmt.Sprintf("%d=%s", n.ID, n.Profile))
	}
	for _, s := range r.Steps {
		node := "-"
		if s.Node != nil {
			node = fmt.Sprint(*s.Node)
		}
		out = append(out, s.Action+":"+node+":"+s.Config)
	}
	return out
}

// Every field of a row is read by code: a row changed in a copy of the
// table changes what status, stage, rollback or watch say.
func TestPhaseRowFieldsAreRead(t *testing.T) {
	w := walk{t}
	t.Run("Reached", func(t *testing.T) {
		in := w.postMigration()
		in.Nodes = nil
		if got := observe(t, in); !slices.Equal(got, []string{"phase KRaftPostMigration"}) {
			t.Fatalf("status %q", got)
		}
		withPhases(t, func(rows []Spec) { rows[KRaftPostMigration].Reached = func(Facts) bool { return false } })
		if got := observe(t, in); !slices.Equal(got, []string{"phase KRaftDualWriting"}) {
			t.Errorf("KRaftPostMigration never reached: status %q, want KRaftDualWriting", got)
		}
	})
	t.Run("Rolls", func(t *testing.T) {
		in := w.postMigration()
		want := []string{"3000=kraft-controller", "restart:3000:server-3000.properties", "wait:-:"}
		if got := stageSteps(t, in, PreKRaft); !slices.Equal(got, want) {
			t.Fatalf("stage PreKRaft %q, want %q", got, want)
		}
		withPhases(t, func(rows []Spec) { rows[PreKRaft].Rolls = nil })
		if got := stageSteps(t, in, PreKRaft); len(got) != 0 {
			t.Errorf("PreKRaft rolls nothing: stage %q", got)
		}
	})
	t.Run("Broker", func(t *testing.T) {
		in := w.dualWriting()
		want := []string{"2=kraft-broker", "3=kraft-broker", "1=kraft-broker", "restart:2:server-2.properties", "restart:3:server-3.properties", "restart:1:server-1.properties", "wait:-:"}
		if got := stageSteps(t, in, KRaftPostMigration); !slices.Equal(got, want) {
			t.Fatalf("stage KRaftPostMigration %q, want %q", got, want)
		}
		// The profiles stage makes the files of are the row's.
		withPhases(t, func(rows []Spec) { rows[KRaftPostMigration].Broker = BrokerMigrating })
		r, err := Stage(in, StageOptions{Phase: KRaftPostMigration})
		if err != nil || len(r.Nodes) != 3 || r.Nodes[0].Profile != BrokerMigrating {
			t.Errorf("KRaftPostMigration with migrating brokers: stage %v %+v", err, r.Nodes)
		}
	})
	t.Run("Controller", func(t *testing.T) {
		in := w.postMigration()
		withPhases(t, func(rows []Spec) { rows[PreKRaft].Controller = ControllerMigrating })
		r, err := Stage(in, StageOptions{Phase: PreKRaft})
		if err != nil || len(r.Nodes) != 1 || r.Nodes[0].Profile != ControllerMigrating {
			t.Errorf("PreKRaft with migrating controllers: stage %v %+v", err, r.Nodes)
		}
	})
	t.Run("ReachedText", func(t *testing.T) {
		withPhases(t, func(rows []Spec) { rows[KRaftPostMigration].ReachedText = "the brokers are KRaft brokers" })
		r, err := Stage(w.dualWriting(), StageOptions{Phase: KRaftPostMigration})
		if err != nil || len(r.Steps) == 0 {
			t.Fatalf("%v %v", err, r.Checks)
		}
		if got := r.Steps[len(r.Steps)-1].What; got != "the brokers are KRaft brokers (kmeta migrate status says KRaftPostMigration)" {
			t.Errorf("the wait step says %q", got)
		}
	})
	rollback := func(t *testing.T, in Input) (refusal string, steps []string) {
		t.Helper()
		in.Nodes = files(1, 2, 3)
		for id, n := range w.postMigration().Nodes {
			if n.Role() == RoleController {
				in.Nodes[id] = n
			}
		}
		r, err := Rollback(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Checks {
			if c.Code == CodeNoRollback {
				refusal = c.Message
			}
			if c.Code == CodeKRaftNeeded {
				steps = append(steps, "check "+c.Code)
			}
		}
		for _, s := range r.Steps {
			steps = append(steps, s.Action+":"+s.Config)
		}
		return refusal, steps
	}
	t.Run("RollbackTo and Rollback", func(t *testing.T) {
		in := w.postMigration()
		_, steps := rollback(t, in)
		if len(steps) == 0 || steps[0] != "restart:server-2.migrating.properties" {
			t.Fatalf("rollback from KRaftPostMigration: %q", steps)
		}
		withPhases(t, func(rows []Spec) { rows[KRaftPostMigration].RollbackTo = ZooKeeper })
		if _, steps = rollback(t, in); len(steps) == 0 || steps[0] != "stop:" {
			t.Errorf("KRaftPostMigration back to ZooKeeper at once: rollback %q", steps)
		}
		withPhases(t, func(rows []Spec) {
			rows[KRaftDualWriting].RollbackTo, rows[KRaftDualWriting].Rollback = -1, "none: a test says so"
		})
		if refusal, steps := rollback(t, w.dualWriting()); refusal != "no rollback from KRaftDualWriting: a test says so" || len(steps) != 0 {
			t.Errorf("no rollback from KRaftDualWriting: refusal %q, steps %q", refusal, steps)
		}
	})
	t.Run("DualWrites", func(t *testing.T) {
		behind := w.dualWriting()
		behind.KRaft.Topics = map[string]*model.Topic{}
		behind.Nodes = nil
		zkAlone := Input{ZK: w.claimed(true)}
		st, err := Observe(behind)
		if err != nil || st.Agree == nil || *st.Agree || Point(st, -1).Rollback != RollbackUnsafe {
			t.Fatalf("dual-write behind: %v %v", err, observed(st))
		}
		if _, steps := rollback(t, zkAlone); !slices.Contains(steps, "check "+CodeKRaftNeeded) {
			t.Fatalf("rollback from ZooKeeper alone: %q", steps)
		}
		withPhases(t, func(rows []Spec) { rows[KRaftDualWriting].DualWrites = false })
		st, err = Observe(behind)
		if err != nil || st.Agree != nil || Point(st, -1).Rollback != RollbackSafe || !slices.Equal(observed(st), []string{"phase KRaftDualWriting"}) {
			t.Errorf("KRaftDualWriting not dual-writing: status %q, agree %v", observed(st), st.Agree)
		}
		if _, steps := rollback(t, zkAlone); slices.Contains(steps, "check "+CodeKRaftNeeded) {
			t.Errorf("KRaftDualWriting not dual-writing: rollback from ZooKeeper alone still wants the controllers: %q", steps)
		}
	})
}
