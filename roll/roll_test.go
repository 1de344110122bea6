package roll

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// cluster builds an image: brokers 1..n registered and unfenced, the
// given topics (name → partitions as replicas/isr/leader).
type part struct {
	replicas, isr []int32
	leader        int32
}

func cluster(n int32, topics map[string][]part) *model.Image {
	img := model.NewImage()
	img.Provenance.Source = "test"
	for id := int32(1); id <= n; id++ {
		img.Brokers[id] = &model.Broker{ID: id}
	}
	for name, ps := range topics {
		t := &model.Topic{Name: name, Partitions: map[int32]*model.Partition{}}
		for i, p := range ps {
			t.Partitions[int32(i)] = &model.Partition{ID: int32(i), Replicas: p.replicas, ISR: p.isr, Leader: p.leader}
		}
		img.Topics[name] = t
	}
	return img
}

func setTopic(img *model.Image, topic, key, value string) {
	res := model.ConfigResource{Type: model.ConfigTopic, Name: topic}
	if img.Configs[res] == nil {
		img.Configs[res] = map[string]string{}
	}
	img.Configs[res][key] = value
}

func static(img *model.Image, kv map[string]string, ids ...int32) {
	for _, id := range ids {
		img.SetStaticConfigs(id, kv)
	}
}

func codes(fs []model.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Severity)+" "+f.Code+" "+f.Entity)
	}
	return out
}

func blocks(bs []Block) []string {
	var out []string
	for _, b := range bs {
		s := b.Rule
		if b.Partition != nil {
			s += fmt.Sprintf(" %s-%d isr=%v min=%d(%s)", b.Topic, *b.Partition, b.ISR, b.MinISR, b.MinISRFrom)
		}
		out = append(out, s)
	}
	return out
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

func TestCheckBroker(t *testing.T) {
	full := []part{{[]int32{1, 2, 3}, []int32{1, 2, 3}, 1}, {[]int32{2, 3, 1}, []int32{2, 3, 1}, 2}}
	noStatic := map[string]string{}
	t.Run("all in sync, topic config", func(t *testing.T) {
		img := cluster(3, map[string][]part{"orders": full})
		setTopic(img, "orders", "min.insync.replicas", "2")
		v := Check(Input{Image: img, Quorum: nil}, 1)
		eq(t, "answer", v.Answer, Unknown) // the quorum: is broker 1 also a controller?
		img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}}}
		v = Check(Input{Image: img}, 1)
		eq(t, "answer", v.Answer, Safe)
		eq(t, "safe", v.Safe, true)
		eq(t, "hosted", [2]int{v.Hosted, v.Leads}, [2]int{2, 1})
		eq(t, "findings", codes(v.Findings), []string(nil))
	})
	t.Run("another broker down", func(t *testing.T) {
		img := cluster(3, map[string][]part{"orders": {{[]int32{1, 2, 3}, []int32{1, 2}, 1}, {[]int32{2, 3, 1}, []int32{2, 1}, 2}},
			"__consumer_offsets": {{[]int32{1, 2, 3}, []int32{1, 2}, 2}}})
		delete(img.Brokers, 3)
		img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}}}
		setTopic(img, "orders", "min.insync.replicas", "2")
		v := Check(Input{Image: img}, 1)
		// min.insync.replicas of __consumer_offsets comes from the
		// brokers' server.properties, which the source lacks.
		eq(t, "answer", v.Answer, Unsafe)
		eq(t, "blocking", blocks(v.Blocking), []string{
			"roll-under-min-isr orders-0 isr=[1 2] min=2(topic config)",
			"roll-under-min-isr orders-1 isr=[2 1] min=2(topic config)",
		})
		eq(t, "undecided", blocks(v.Undecided), []string{"roll-cannot-tell __consumer_offsets-0 isr=[1 2] min=0()"})
		eq(t, "missing", v.Missing, []Missing{{"broker 2's server.properties (min.insync.replicas may be set there)", "pass it: --config 2=FILE"}})
		eq(t, "findings", codes(v.Findings), []string{
			"error roll-under-min-isr topic orders",
			"warning roll-cannot-tell broker 1",
			"warning roll-leads-out-of-sync topic orders",
		})
		static(img, map[string]string{"min.insync.replicas": "2"}, 1, 2)
		v = Check(Input{Image: img}, 1)
		eq(t, "blocking with static", blocks(v.Blocking), []string{
			"roll-under-min-isr __consumer_offsets-0 isr=[1 2] min=2(broker 2 server.properties)",
			"roll-under-min-isr orders-0 isr=[1 2] min=2(topic config)",
			"roll-under-min-isr orders-1 isr=[2 1] min=2(topic config)",
		})
		eq(t, "topics", v.Topics, []TopicCount{{"__consumer_offsets", CodeUnderMinISR, 1}, {"orders", CodeUnderMinISR, 2}})
		eq(t, "missing", v.Missing, []Missing{})
		// Broker 3, down, is not the question: broker 1 with min ISR 1
		// everywhere is safe.
		setTopic(img, "orders", "min.insync.replicas", "1")
		static(img, noStatic, 1, 2)
		v = Check(Input{Image: img}, 1)
		eq(t, "min isr 1", [2]any{v.Answer, blocks(v.Blocking)}, [2]any{Safe, []string(nil)})
	})
	t.Run("offline and already under", func(t *testing.T) {
		img := cluster(3, map[string][]part{
			"single":  {{[]int32{1}, []int32{1}, 1}},
			"lagging": {{[]int32{2, 1, 3}, []int32{2}, 2}}, // 1 holds a replica, out of sync
			"dead":    {{[]int32{3, 1}, []int32{3}, 3}},    // its only ISR member is down
		})
		img.Brokers[3].Fenced = true
		img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}}}
		static(img, map[string]string{"min.insync.replicas": "2"}, 1, 2, 3)
		v := Check(Input{Image: img}, 1)
		eq(t, "blocking", blocks(v.Blocking), []string{
			"roll-already-under-min-isr dead-0 isr=[] min=0()",
			"roll-already-under-min-isr lagging-0 isr=[2] min=2(broker 2 server.properties)",
			"roll-takes-offline single-0 isr=[1] min=0()",
		})
		eq(t, "findings", codes(v.Findings), []string{
			"error roll-already-under-min-isr topic dead",
			"error roll-already-under-min-isr topic lagging",
			"error roll-takes-offline topic single",
		})
	})
	t.Run("a stopped broker is said", func(t *testing.T) {
		img := cluster(3, map[string][]part{"orders": {{[]int32{1, 2, 3}, []int32{2, 3}, 2}}})
		delete(img.Brokers, 1)
		img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}}}
		setTopic(img, "orders", "min.insync.replicas", "2")
		v := Check(Input{Image: img}, 1)
		eq(t, "answer", v.Answer, Safe)
		eq(t, "findings", codes(v.Findings), []string{"info roll-not-registered broker 1"})
	})
	t.Run("a min.insync.replicas Kafka refuses", func(t *testing.T) {
		// Kafka refuses 0 (an integer of at least 1) and the broker
		// does not start with it: no number to judge a stop by, where
		// strconv read 0 and found the stop safe.
		img := cluster(3, map[string][]part{"orders": full})
		img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}}}
		static(img, map[string]string{"min.insync.replicas": "0"}, 1, 2, 3)
		v := Check(Input{Image: img}, 1)
		eq(t, "answer", v.Answer, Unknown)
		eq(t, "undecided", blocks(v.Undecided), []string{"roll-cannot-tell orders-0 isr=[1 2 3] min=0()", "roll-cannot-tell orders-1 isr=[2 3 1] min=0()"})
		eq(t, "missing", v.Missing, []Missing{{`a min.insync.replicas Kafka accepts: broker 2 server.properties sets "0", which Kafka refuses (an integer of at least 1)`,
			"set an integer of at least 1 there (a broker does not start with the value in its server.properties)"}})
		eq(t, "findings", codes(v.Findings), []string{"warning roll-cannot-tell broker 1"})
	})
	t.Run("controllers do not describe partitions", func(t *testing.T) {
		img := model.NewImage()
		img.MarkNotReported(model.FieldBrokers, model.FieldTopics)
		v := Check(Input{Image: img, Quorum: quorum3(0, -1)}, 1)
		eq(t, "answer", v.Answer, Unknown)
		eq(t, "missing", len(v.Missing), 1)
		if !strings.HasPrefix(v.Missing[0].Fact, "the brokers and partitions") {
			t.Errorf("missing: %v", v.Missing)
		}
	})
}

// quorum3 is a status of voters 3000-3002, 3000 leading; down is the
// voter that stopped fetching (0 none), lagging one whose caught-up time
// is far behind.
func quorum3(down, lagging int32) *model.QuorumStatus {
	now := int64(1_000_000)
	st := &model.QuorumStatus{LeaderID: 3000, LeaderEpoch: 4, HighWatermark: 100}
	for _, id := range []int32{3000, 3001, 3002} {
		r := model.QuorumReplica{ID: id, LogEndOffset: 100, LastFetchTimestamp: now, LastCaughtUpTimestamp: now}
		if id == down {
			r.LastFetchTimestamp, r.LastCaughtUpTimestamp, r.LogEndOffset = now-60_000, now-60_000, 50
		}
		if id == lagging {
			r.LastCaughtUpTimestamp, r.LogEndOffset = now-10_000, 90
		}
		st.Voters = append(st.Voters, r)
	}
	return st
}

func TestCheckController(t *testing.T) {
	img := model.NewImage()
	img.MarkNotReported(model.FieldBrokers, model.FieldTopics) // --bootstrap-controller
	for _, c := range []struct {
		name   string
		st     *model.QuorumStatus
		node   int32
		answer Answer
		codes  []string
	}{
		{"all caught up, a follower", quorum3(0, -1), 3001, Safe, nil},
		{"all caught up, the leader", quorum3(0, -1), 3000, Safe, []string{"info roll-quorum-leader controller 3000"}},
		{"one down, another", quorum3(3002, -1), 3001, Unsafe, []string{"error roll-quorum-majority controller 3001"}},
		{"one down, the leader", quorum3(3002, -1), 3000, Unsafe, []string{"error roll-quorum-majority controller 3000", "info roll-quorum-leader controller 3000"}},
		{"one down, itself", quorum3(3002, -1), 3002, Safe, nil},
		{"one lagging, another", quorum3(0, 3001), 3002, Unsafe, []string{"error roll-quorum-majority controller 3002"}},
		{"no leader", func() *model.QuorumStatus { s := quorum3(0, -1); s.LeaderID = -1; return s }(), 3001, Unsafe,
			[]string{"error roll-quorum-no-leader controller 3001"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Check(Input{Image: img, Quorum: c.st}, c.node)
			eq(t, "answer", v.Answer, c.answer)
			eq(t, "findings", codes(v.Findings), c.codes)
			eq(t, "roles", v.Roles, []Role{RoleController})
			if c.answer == Unsafe && (len(v.Blocking) != 1 || v.Blocking[0].Reason == "" || v.Blocking[0].Partition != nil) {
				t.Errorf("blocking: %+v", v.Blocking)
			}
		})
	}
	t.Run("a log dir has no fetch times", func(t *testing.T) {
		img := model.NewImage()
		img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}, {ID: 3001}, {ID: 3002}}}
		v := Check(Input{Image: img, Quorum: QuorumFromImage(img)}, 3001)
		eq(t, "answer", v.Answer, Unknown)
		eq(t, "missing", v.Missing, []Missing{{timesMissing, timesHow}})
	})
	t.Run("combined node: both", func(t *testing.T) {
		img := cluster(3, map[string][]part{"orders": {{[]int32{1, 2, 3}, []int32{1, 2}, 1}}})
		setTopic(img, "orders", "min.insync.replicas", "2")
		st := quorum3(0, -1)
		for i, id := range []int32{1, 2, 3} {
			st.Voters[i].ID = id
		}
		st.LeaderID = 1
		st.Voters[2].LastFetchTimestamp -= 60_000
		st.Voters[2].LastCaughtUpTimestamp -= 60_000
		v := Check(Input{Image: img, Quorum: st}, 2)
		eq(t, "roles", v.Roles, []Role{RoleBroker, RoleController})
		eq(t, "findings", codes(v.Findings), []string{"error roll-quorum-majority node 2", "error roll-under-min-isr topic orders"})
	})
}

func TestCheckZooKeeper(t *testing.T) {
	img := cluster(3, map[string][]part{"orders": {{[]int32{1, 2, 3}, []int32{1, 2, 3}, 1}}})
	img.ZK = &model.ZKState{ControllerID: 2, ControllerEpoch: 7}
	v := Check(Input{Image: img}, 2)
	eq(t, "answer", v.Answer, Unknown)
	eq(t, "missing", v.Missing, []Missing{{"broker 1's server.properties (min.insync.replicas may be set there)", "pass it: --config 1=FILE"}})
	static(img, map[string]string{"min.insync.replicas": "2"}, 1)
	v = Check(Input{Image: img}, 2)
	eq(t, "answer", v.Answer, Safe)
	eq(t, "findings", codes(v.Findings), []string{"info roll-zk-controller broker 2"})
	eq(t, "zk controller", v.ZKController, true)
	// The next leader after 1 is 2: its file is what counts.
	v = Check(Input{Image: img}, 1)
	eq(t, "answer", v.Answer, Unknown)
	eq(t, "missing", v.Missing, []Missing{{"broker 2's server.properties (min.insync.replicas may be set there)", "pass it: --config 2=FILE"}})
	// A node no source names.
	v = Check(Input{Image: img}, 9)
	eq(t, "unknown node", [2]any{v.Answer, len(v.Missing)}, [2]any{Unknown, 1})
	// Mid-migration ZooKeeper still judges its brokers (none votes), and
	// says it cannot see the KRaft controllers.
	img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftMetadataOffset: -1}
	static(img, map[string]string{"min.insync.replicas": "2"}, 2)
	v = Check(Input{Image: img}, 1)
	eq(t, "migrating broker", [2]any{v.Answer, v.Missing}, [2]any{Safe, []Missing{}})
	v = Check(Input{Image: img}, 3000)
	eq(t, "a controller ZooKeeper cannot see", [2]any{v.Answer, v.Missing[0].Fact}, [2]any{Unknown, "whether node 3000 is a KRaft controller (ZooKeeper does not list them)"})
}

func TestBack(t *testing.T) {
	img := cluster(3, map[string][]part{"orders": {
		{[]int32{1, 2, 3}, []int32{2, 3}, 2},
		{[]int32{3, 1, 2}, []int32{3, 2, 1}, 3},
		{[]int32{1, 3}, []int32{1}, -1}, // offline: 1 cannot rejoin a partition without a leader... it is the ISR
	}})
	img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}}}
	p := Back(Input{Image: img}, 1)
	eq(t, "back", p.Back, false)
	eq(t, "waiting", p.Waiting, []string{"broker 1 back in the ISR of 1 partition (orders-0)"})
	img.Topics["orders"].Partitions[0].ISR = []int32{2, 3, 1}
	p = Back(Input{Image: img}, 1)
	eq(t, "back", [2]any{p.Back, p.Waiting}, [2]any{true, []string{}})
	img.Topics["orders"].Partitions[2].ISR = []int32{3}
	img.Topics["orders"].Partitions[2].Leader = 3
	img.Brokers[3].Fenced = true
	p = Back(Input{Image: img}, 1)
	eq(t, "leaderless", [3]any{p.Back, p.NotWaited, p.Behind}, [3]any{true, []string{"orders-2"}, []string{}})
	// Back in every ISR but one, with the cluster no shorter than roll
	// check saw it before the stop: back with --under-replicated-at-most.
	img.Topics["orders"].Partitions[0].ISR = []int32{2, 3}
	p = BackWith(Input{Image: img}, 1, WaitOptions{MaxUnderReplicated: 0})
	eq(t, "short", [2]any{p.Back, p.UnderReplicated}, [2]any{false, 2})
	p = BackWith(Input{Image: img}, 1, WaitOptions{MaxUnderReplicated: 2})
	eq(t, "no shorter than before", [3]any{p.Back, p.NotWaited, p.Behind}, [3]any{true, []string{"orders-2", "orders-0"}, []string{}})
	img.Topics["orders"].Partitions[0].ISR = []int32{2, 3, 1}
	delete(img.Brokers, 1)
	p = Back(Input{Image: img}, 1)
	eq(t, "not registered", p.Waiting, []string{"broker 1 to register"})
	img.ZK = &model.ZKState{ControllerID: 2, KRaftControllerEpoch: -1}
	p = Back(Input{Image: img}, 1)
	eq(t, "zk", p.Waiting, []string{"broker 1 in /brokers/ids"})
	img.ZK = &model.ZKState{ControllerID: 3000, KRaftControllerEpoch: 4}
	p = Back(Input{Image: img}, 1)
	eq(t, "zk, KRaft leads", p.Waiting, []string{"broker 1 in /brokers/ids (a KRaft broker never appears there: while the KRaft controller leads, read its metadata log dir, kraft:DIR)"})

	ctl := model.NewImage()
	ctl.MarkNotReported(model.FieldBrokers, model.FieldTopics)
	p = Back(Input{Image: ctl, Quorum: quorum3(3001, -1)}, 3001)
	eq(t, "controller down", p.Waiting, []string{"controller 3001 to fetch from the quorum's leader"})
	p = Back(Input{Image: ctl, Quorum: quorum3(0, 3001)}, 3001)
	eq(t, "controller lagging", p.Waiting, []string{"controller 3001 to catch up with the quorum's leader 3000 (10 records behind)"})
	p = Back(Input{Image: ctl, Quorum: quorum3(0, -1)}, 3001)
	eq(t, "controller back", p.Back, true)
	lg := model.NewImage()
	lg.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}, {ID: 3001}}}
	p = Back(Input{Image: lg, Quorum: QuorumFromImage(lg)}, 3001)
	eq(t, "log dir", [2]any{p.Unknown, p.Back}, [2]any{true, false})
	p = Back(Input{Image: lg, Quorum: QuorumFromImage(lg)}, 3000)
	eq(t, "log dir, its leader", [2]any{p.Unknown, p.Back}, [2]any{true, false})
}

func TestOrder(t *testing.T) {
	img := cluster(4, map[string][]part{"t": {
		{[]int32{1, 2}, []int32{1, 2}, 1}, {[]int32{1, 2}, []int32{1, 2}, 1}, {[]int32{2, 1}, []int32{1, 2}, 2},
		{[]int32{3, 1}, []int32{3, 1}, 3}, {[]int32{3, 1}, []int32{3, 1}, 3}, {[]int32{3, 1}, []int32{3, 1}, 3},
	}})
	img.ZK = &model.ZKState{ControllerID: 2}
	steps, err := Order(Input{Image: img}, []int32{3, 1, 2, 4, 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []int32
	for _, s := range steps {
		got = append(got, s.Node)
	}
	eq(t, "zk order", got, []int32{4, 1, 3, 2})
	eq(t, "why", steps[3].Why, "holds ZooKeeper's /controller: last; leads 1 partition")
	if _, err := Order(Input{Image: img}, []int32{9}); err == nil {
		t.Error("unknown node: no error")
	}

	kr := cluster(3, map[string][]part{"t": {{[]int32{1, 2}, []int32{1, 2}, 1}}})
	st := quorum3(0, -1)
	st.LeaderID = 3001
	kr.Controllers[3000] = &model.Controller{ID: 3000}
	steps, err = Order(Input{Image: kr, Quorum: st}, slices.Concat(Brokers(Input{Image: kr}), []int32{3000, 3001, 3002}))
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, s := range steps {
		got = append(got, s.Node)
	}
	eq(t, "kraft order", got, []int32{3000, 3002, 3001, 2, 3, 1})
	ids, ok := Controllers(Input{Image: kr, Quorum: st})
	eq(t, "controllers", [2]any{ids, ok}, [2]any{[]int32{3000, 3001, 3002}, true})
}

// The table is complete: every code a call site names is declared once.
func TestChecksTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		if seen[c.Code] || c.Room != "roll" || c.Class != Class || c.Title == "" || len(c.Commands) == 0 {
			t.Errorf("check %+v", c)
		}
		seen[c.Code] = true
	}
}

func TestQuorumFromFiles(t *testing.T) {
	img := cluster(2, map[string][]part{"t": {{[]int32{1, 2}, []int32{1, 2}, 1}}})
	img.Quorum = &model.Quorum{LeaderID: 3001, LeaderEpoch: 3}
	st := QuorumFromFiles(img, map[int32]map[string]string{1: {"process.roles": "broker", "controller.quorum.voters": "3000@c1:9093, 3001@c2:9093,3002@c3:9093"}})
	if st == nil || st.LeaderID != 3001 || len(st.Voters) != 3 || st.Voters[2].ID != 3002 || st.Reports(model.QuorumFieldLastFetch) {
		t.Fatalf("%+v", st)
	}
	v := Check(Input{Image: img, Quorum: st}, 1)
	eq(t, "broker, voters from its file", [2]any{v.Roles, v.Missing}, [2]any{[]Role{RoleBroker}, []Missing{{"broker 2's server.properties (min.insync.replicas may be set there)", "pass it: --config 2=FILE"}}})
	if QuorumFromFiles(img, map[int32]map[string]string{1: {"process.roles": "broker"}}) != nil {
		t.Error("voters from a file without controller.quorum.voters")
	}
}
