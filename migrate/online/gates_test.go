package online

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

func stepList(steps []Step) []string {
	var out []string
	for _, s := range steps {
		n := "-"
		if s.Node != nil {
			n = strconv.Itoa(int(*s.Node))
		}
		out = append(out, s.Action+":"+n)
	}
	return out
}

var testGates = &Gates{
	ZooKeeper:   []string{"zk://zk:2181/kafka", "--config", "1=/etc/b1.properties"},
	KRaft:       []string{"kraft:/var/lib/meta", "--config", "1=/etc/b1.properties"},
	Controllers: []string{"--bootstrap-controller", "c1:9093"},
}

// Every restart stage prints is framed by its gates, in roll's order:
// ZooKeeper's controller last, fewer leaderships first.
func TestStageGates(t *testing.T) {
	zk := zkImage()
	// Broker 3 leads two partitions, broker 2 none: 2 before 3; broker 1
	// holds /controller: last.
	zk.Topics["orders"].Partitions[1] = &model.Partition{ID: 1, Replicas: []int32{3, 1, 2}, ISR: []int32{3, 1, 2}, Leader: 3}
	zk.Topics["orders"].Partitions[2] = &model.Partition{ID: 2, Replicas: []int32{3, 2, 1}, ISR: []int32{3, 2, 1}, Leader: 3}
	in := Input{ZK: zk, Nodes: files(1, 2, 3), Gates: testGates}
	r, err := Stage(in, StageOptions{Phase: KRaftMigration, Controllers: ctl, MetadataDir: "/var/lib/kafka/ctl-{id}"})
	if err != nil || !r.Ready {
		t.Fatalf("%v %v", err, codes(r.Checks))
	}
	want := []string{"install-metadata-dir:3000", "start:3000", "wait:-",
		"roll-check:2", "restart:2", "roll-wait:2", "roll-check:3", "restart:3", "roll-wait:3", "roll-check:1", "restart:1", "roll-wait:1", "wait:-"}
	if got := stepList(r.Steps); !reflect.DeepEqual(got, want) {
		t.Fatalf("steps\n got %v\nwant %v", got, want)
	}
	if c := r.Steps[3].Command; c != "kmeta roll check --node 2 zk://zk:2181/kafka --config 1=/etc/b1.properties" {
		t.Errorf("check command %q", c)
	}
	if a := r.Steps[5].Args; !reflect.DeepEqual(a, []string{"roll", "wait", "--node", "2", "zk://zk:2181/kafka", "--config", "1=/etc/b1.properties"}) {
		t.Errorf("wait args %q", a)
	}
}

// The roll onto KRaft reads the controller's log dir; without one it
// reads ZooKeeper and says so.
func TestStageGatesKRaftLeads(t *testing.T) {
	zk := zkImage()
	zk.ZK.ControllerID, zk.ZK.KRaftControllerEpoch = 3000, 2
	zk.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 2, KRaftMetadataOffset: 40}
	kr := zkImage()
	kr.ZK = nil
	kr.Migration = &model.Migration{HasState: true, State: model.MigrationMigration}
	kr.Features["metadata.version"] = 21
	for _, b := range kr.Brokers {
		b.IsMigratingZkBroker = true
	}
	kr.Controllers[3000] = &model.Controller{ID: 3000, ZkMigrationReady: true}
	kr.Quorum = &model.Quorum{LeaderID: 3000}
	nodes := files(1, 2, 3)
	for _, n := range nodes {
		n.Props["zookeeper.metadata.migration.enable"] = "true"
		n.Props["controller.quorum.voters"] = "3000@127.0.0.1:9093"
		n.Props["controller.listener.names"] = "CONTROLLER"
	}
	for _, g := range []struct {
		gates *Gates
		src   string
		warn  bool
	}{{testGates, "kraft:/var/lib/meta", false}, {&Gates{ZooKeeper: testGates.ZooKeeper, Controllers: testGates.Controllers}, "zk://zk:2181/kafka", true}} {
		in := Input{ZK: zk, KRaft: kr, Nodes: nodes, Gates: g.gates}
		r, err := Stage(in, StageOptions{Phase: KRaftPostMigration})
		if err != nil || !r.Ready {
			t.Fatalf("%v %v", err, codes(r.Checks))
		}
		var checks []string
		for _, s := range r.Steps {
			if s.Action == ActCheck {
				checks = append(checks, s.Command)
			}
		}
		if len(checks) != 3 || !strings.HasSuffix(strings.SplitN(checks[0], " --config", 2)[0], g.src) {
			t.Errorf("gates %v: checks %q", g.src, checks)
		}
		warned := false
		for _, c := range r.Checks {
			warned = warned || c.Code == CodeGatesReadZooKeeper
		}
		if warned != g.warn {
			t.Errorf("gates %v: checks %v", g.src, codes(r.Checks))
		}
	}
}

// Rollback's last roll is ordered when it runs: ZooKeeper's next
// controller is elected once /controller is deleted.
func TestRollbackGates(t *testing.T) {
	zk := zkImage()
	zk.ZK.ControllerID, zk.ZK.KRaftControllerEpoch = 3000, 2
	zk.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 2, KRaftMetadataOffset: 40}
	in := Input{ZK: zk, Nodes: files(1, 2, 3), Gates: testGates}
	r, err := Rollback(in)
	if err != nil || r.Refused {
		t.Fatalf("%v %v", err, codes(r.Checks))
	}
	last := r.Steps[len(r.Steps)-2]
	if last.Action != ActRollPlan || !reflect.DeepEqual(last.Nodes, []int32{1, 2, 3}) || last.Config != "server-{id}.properties" ||
		last.Command != "kmeta roll plan zk://zk:2181/kafka --config 1=/etc/b1.properties --nodes 1,2,3" {
		t.Errorf("the last roll: %+v", last)
	}
}

// Staging KRaft with a controller still in migration mode names every
// ZooKeeper key its file sets, and the stage that drops them.
func TestZooKeeperSettingsLeft(t *testing.T) {
	n := &Node{ID: 3000, Props: map[string]string{"process.roles": "controller", "node.id": "3000",
		"zookeeper.metadata.migration.enable": "true", "zookeeper.connect": "zk:2181", "zookeeper.session.timeout.ms": "18000"}}
	f, ok := zookeeperSettingsLeft(3000, n)
	if !ok || f.Code != CodeZKSettingsLeft || f.Entity != "controller 3000" ||
		f.Message != "its file still sets zookeeper.connect, zookeeper.metadata.migration.enable, zookeeper.session.timeout.ms: ZooKeeper is about to be let go" ||
		f.Fix != "stage PreKRaft and restart controller 3000 on the file it writes (without the ZooKeeper settings), then stage KRaft" {
		t.Errorf("%+v", f)
	}
	if _, ok := zookeeperSettingsLeft(1, &Node{ID: 1, Props: map[string]string{"process.roles": "broker"}}); ok {
		t.Error("a file without ZooKeeper settings")
	}
}

// The phase table drives stage: a phase rolls exactly the roles its row
// lists. With a row's roll list emptied, stage prints no restart for it
// (and the walk of the real migration follows stage's steps, so the table
// is what the cluster goes through).
func TestStageRollsWhatThePhaseRowSays(t *testing.T) {
	zk := zkImage()
	in := Input{ZK: zk, Nodes: files(1, 2, 3), Gates: testGates}
	opts := StageOptions{Phase: KRaftMigration, Controllers: ctl, MetadataDir: "/var/lib/kafka/ctl-{id}"}
	roles := func() []string {
		r, err := Stage(in, opts)
		if err != nil || !r.Ready {
			t.Fatalf("%v %v", err, codes(r.Checks))
		}
		var got []string
		for _, st := range r.Steps {
			if st.Action == ActStart || st.Action == ActRestart {
				got = append(got, fmt.Sprintf("%s:%d", st.Action, *st.Node))
			}
		}
		return got
	}
	saved := Phases[KRaftMigration].Rolls
	defer func() { Phases[KRaftMigration].Rolls = saved }()
	for _, tc := range []struct {
		rolls []string
		want  []string
	}{
		{[]string{RoleController, RoleBroker}, []string{"start:3000", "restart:2", "restart:3", "restart:1"}},
		{[]string{RoleController}, []string{"start:3000"}},
		{[]string{RoleBroker}, []string{"restart:2", "restart:3", "restart:1"}},
		{nil, nil},
	} {
		Phases[KRaftMigration].Rolls = tc.rolls
		if got := roles(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("rolls %v: stage starts and restarts %v, want %v", tc.rolls, got, tc.want)
		}
	}
}

// A ZooKeeper read with digest credentials: every command that reads
// ZooKeeper stops first, saying what to set, when $KMETA_ZK_AUTH is
// unset (the password is in no command line), and only those: the
// controllers' log dir and quorum need no ZooKeeper login.
func TestGatesTakeZooKeeperDigestFromTheEnvironment(t *testing.T) {
	digest := *testGates
	digest.ZKDigest = true
	zk := zkImage()
	zk.ZK.ControllerID, zk.ZK.KRaftControllerEpoch = 3000, 2
	zk.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 2, KRaftMetadataOffset: 40}
	r, err := Rollback(Input{ZK: zk, Nodes: files(1, 2, 3), Gates: &digest})
	if err != nil || r.Refused {
		t.Fatalf("%v %v", err, codes(r.Checks))
	}
	last := r.Steps[len(r.Steps)-2]
	want := `: "${KMETA_ZK_AUTH:?set it to the USER:PASSWORD kmeta read ZooKeeper with}" && kmeta roll plan zk://zk:2181/kafka --config 1=/etc/b1.properties --nodes 1,2,3`
	if last.Action != ActRollPlan || last.Command != want {
		t.Errorf("the last roll: %q\nwant %q", last.Command, want)
	}
	if got := digest.brokerSource(false, nil); !got.ZKDigest {
		t.Errorf("ZooKeeper's gates: %+v", got)
	}
	if got := digest.brokerSource(true, nil); got.ZKDigest || got.Words[0] != "kraft:/var/lib/meta" {
		t.Errorf("the log dir's gates: %+v", got)
	}
	if got := digest.controllerSource(); got.ZKDigest {
		t.Errorf("the quorum's gates: %+v", got)
	}
}
