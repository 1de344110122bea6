package lint

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// healthy is a KRaft image every rule passes: three brokers on three
// racks, three voters, topics of RF 3 with min ISR 2, leaders on their
// preferred replicas, metadata.version at the top of what nodes support.
func healthy() *model.Image {
	img := model.NewImage()
	img.Features["metadata.version"] = 27
	img.Features["eligible.leader.replicas.version"] = 1
	for _, id := range []int32{1, 2, 3} {
		rack := "r" + string(rune('0'+id))
		img.Brokers[id] = &model.Broker{ID: id, Rack: &rack, Features: []model.FeatureRange{{Name: "metadata.version", Min: 7, Max: 27}}}
	}
	img.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000}, {ID: 3001}, {ID: 3002}}, KRaftVersion: 1}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker}] = map[string]string{"min.insync.replicas": "2"}
	for _, name := range []string{"orders", "__consumer_offsets"} {
		t := &model.Topic{Name: name, Partitions: map[int32]*model.Partition{}}
		for p := int32(0); p < 3; p++ {
			r := []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
			t.Partitions[p] = &model.Partition{ID: p, Replicas: r, ISR: slices.Clone(r), Leader: r[0]}
		}
		img.Topics[name] = t
	}
	return img
}

// addTopic adds a topic of n partitions, each on replicas (in order, so
// the first is every partition's preferred leader), all in the ISR.
func addTopic(img *model.Image, name string, n int32, replicas ...int32) {
	t := &model.Topic{Name: name, Partitions: map[int32]*model.Partition{}}
	for p := range n {
		t.Partitions[p] = &model.Partition{ID: p, Replicas: slices.Clone(replicas), ISR: slices.Clone(replicas), Leader: replicas[0]}
	}
	img.Topics[name] = t
}

// healthyZK is what ZooKeeper holds of a ZooKeeper-mode controller that
// is fine: broker 1 is controller at epoch 5 (the znode's version, as
// Kafka writes both), and the states were written at epochs up to 5.
func healthyZK() *model.ZKState {
	return &model.ZKState{Chroot: "/kafka", ControllerID: 1, ControllerEpoch: 5, ControllerEpochZkVersion: 5,
		KRaftControllerEpoch: -1, MaxStateControllerEpoch: 5, BrokerSequenceID: -1, FeatureStatus: 1}
}

func run(t *testing.T, img *model.Image, opts Options) *Result {
	t.Helper()
	res, err := Run(img, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func codes(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Code+" "+f.Entity)
	}
	return out
}

func TestHealthyImageIsClean(t *testing.T) {
	res := run(t, healthy(), Options{})
	if len(res.Findings) > 0 {
		t.Fatalf("findings on a healthy image: %v", codes(res))
	}
	for _, rr := range res.Rules {
		if rr.Status == StatusNotRun {
			t.Errorf("%s not run on a full image: %s", rr.Code, rr.Why)
		}
	}
}

// TestEachRuleFires: one change per rule to the healthy image, and the
// rule reports exactly the entity changed, with a fix where Kafka has a
// command.
func TestEachRuleFires(t *testing.T) {
	part := func(img *model.Image, topic string, p int32) *model.Partition { return img.Topics[topic].Partitions[p] }
	cases := []struct {
		code, entity string
		change       func(*model.Image)
		fix          string // a part the fix must hold; "" none
	}{
		{CodeReplicationFactorOne, "topic orders", func(img *model.Image) {
			p := part(img, "orders", 1)
			p.Replicas, p.ISR = p.Replicas[:1], p.ISR[:1]
		}, `"partition":1,"replicas":[2,`},
		{CodeReplicationFactorBelow, "topic orders", func(img *model.Image) {
			p := part(img, "orders", 1)
			p.Replicas, p.ISR = p.Replicas[:2], p.ISR[:2]
		}, "kafka-reassign-partitions --bootstrap-server BOOTSTRAP --reassignment-json-file kmeta-reassign-orders.json --execute"},
		{CodeInternalTopicRF, "topic __consumer_offsets", func(img *model.Image) {
			p := part(img, "__consumer_offsets", 0)
			p.Replicas, p.ISR = p.Replicas[:1], p.ISR[:1]
		}, "kafka-reassign-partitions"},
		{CodeMinISRNotBelowRF, "topic orders", func(img *model.Image) {
			img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{"min.insync.replicas": "3"}
		}, "kafka-configs --bootstrap-server BOOTSTRAP --alter --entity-type topics --entity-name orders --add-config min.insync.replicas=2"},
		{CodeMinISROne, "topic orders", func(img *model.Image) {
			img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{"min.insync.replicas": "1"}
		}, "--add-config min.insync.replicas=2"},
		{CodeUncleanElection, "config BROKER <default>", func(img *model.Image) {
			img.Configs[model.ConfigResource{Type: model.ConfigBroker}]["unclean.leader.election.enable"] = "true"
		}, "kafka-configs --bootstrap-server BOOTSTRAP --alter --entity-type brokers --entity-default --add-config unclean.leader.election.enable=false"},
		{CodeELRUncleanPending, "partition orders-2", func(img *model.Image) {
			p := part(img, "orders", 2)
			p.Leader, p.ISR, p.LastKnownELR = -1, nil, []int32{3}
		}, "kafka-leader-election --bootstrap-server BOOTSTRAP --election-type unclean --topic orders --partition 2"},
		{CodePartitionUnderMinISR, "partition orders-0", func(img *model.Image) {
			part(img, "orders", 0).ISR = []int32{1}
		}, "--under-min-isr-partitions"},
		{CodeReplicasUnavailable, "partition orders-0", func(img *model.Image) {
			part(img, "orders", 0).Replicas = []int32{7, 8, 9}
		}, "start broker(s) 7,8,9"},
		{CodeBrokerFenced, "broker 2", func(img *model.Image) { img.Brokers[2].Fenced = true }, "start broker 2"},
		{CodeBrokerShuttingDown, "broker 2", func(img *model.Image) { img.Brokers[2].InControlledShutdown = true }, ""},
		{CodeLeaderRecovering, "partition orders-1", func(img *model.Image) {
			part(img, "orders", 1).LeaderRecoveryState = model.Recovering
		}, ""},
		{CodeBrokerNoRack, "broker 3", func(img *model.Image) { img.Brokers[3].Rack = nil }, "broker.rack"},
		{CodeBrokerNoReplicas, "broker 4", func(img *model.Image) { img.Brokers[4] = &model.Broker{ID: 4} }, ""},
		{CodeThrottleLeftSet, "config TOPIC orders", func(img *model.Image) {
			img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{"leader.replication.throttled.replicas": "0:1"}
		}, "kafka-configs --bootstrap-server BOOTSTRAP --alter --entity-type topics --entity-name orders --delete-config leader.replication.throttled.replicas"},
		{CodeReassignmentInFlight, "partition orders-0", func(img *model.Image) {
			part(img, "orders", 0).RemovingReplicas = []int32{3}
		}, "kafka-reassign-partitions --bootstrap-server BOOTSTRAP --list"},
		{CodeQuorumSingleVoter, "quorum", func(img *model.Image) { img.Quorum.Voters = img.Quorum.Voters[:1] }, "add-controller"},
		{CodeQuorumEvenVoters, "quorum", func(img *model.Image) {
			img.Quorum.Voters = img.Quorum.Voters[:2]
			img.Quorum.KRaftVersion = 0
		}, "kafka-features --bootstrap-server BOOTSTRAP upgrade --feature kraft.version=1 && kafka-metadata-quorum"},
		{CodeMetadataBehind, "cluster metadata.version", func(img *model.Image) { img.Features["metadata.version"] = 21 },
			"kafka-features --bootstrap-server BOOTSTRAP upgrade --metadata 4.1-IV1"},
		{CodeMigrationHalfDone, "cluster migration", func(img *model.Image) {
			img.Migration = &model.Migration{HasState: true, State: model.MigrationMigration}
		}, ""},
		{CodeReplicasUnbalanced, "broker 3", func(img *model.Image) {
			addTopic(img, "big", 6, 1, 2) // brokers 1 and 2 hold 12, broker 3 6; the mean is 10
		}, `"topic":"big","partition":0,"replicas":[3,2]`},
		{CodePreferredUnbalanced, "broker 1", func(img *model.Image) {
			addTopic(img, "lead", 6, 1, 2, 3) // broker 1 prefers 8, the mean is 4
		}, "kafka-leader-election --bootstrap-server BOOTSTRAP --election-type preferred --all-topic-partitions"},
		{CodeZKController, "cluster /controller_epoch", func(img *model.Image) {
			img.ZK = healthyZK()
			img.ZK.MaxStateControllerEpoch = 9
		}, "zookeeper-shell ZOOKEEPER/kafka set /controller_epoch 9 && zookeeper-shell ZOOKEEPER/kafka delete /controller"},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			img := healthy()
			tc.change(img)
			res := run(t, img, Options{})
			var hit []Finding
			for _, f := range res.Findings {
				if f.Code == tc.code {
					hit = append(hit, f)
				}
			}
			if len(hit) != 1 || hit[0].Entity != tc.entity {
				t.Fatalf("want one %s on %s, got %v", tc.code, tc.entity, codes(res))
			}
			f := hit[0]
			if f.Saw == "" || f.Why == "" || f.Severity != rule(tc.code).Severity || f.Class != string(rule(tc.code).Family) {
				t.Errorf("incomplete finding: %+v", f)
			}
			if tc.fix != "" && !strings.Contains(f.Fix, tc.fix) {
				t.Errorf("fix %q, want it to hold %q", f.Fix, tc.fix)
			}
		})
	}
}

func TestMetadataBehindNames(t *testing.T) {
	img := healthy()
	img.Features["metadata.version"] = 21
	res := run(t, img, Options{Only: []string{CodeMetadataBehind}})
	if len(res.Findings) != 1 {
		t.Fatalf("%v", codes(res))
	}
	t.Log(res.Findings[0].Fix)
}

func TestRackCollision(t *testing.T) {
	img := healthy()
	r1 := "r1"
	img.Brokers[2].Rack = &r1 // brokers 1 and 2 on r1, 3 on r3
	img.Brokers[4] = &model.Broker{ID: 4, Rack: new(string)}
	*img.Brokers[4].Rack = "r4"
	res := run(t, img, Options{Only: []string{CodeReplicasSameRack}})
	if len(res.Findings) != 2 { // orders and __consumer_offsets
		t.Fatalf("%v", codes(res))
	}
	f := res.Findings[1]
	if f.Entity != "topic orders" || !strings.Contains(f.Fix, `"replicas":[`) || !strings.Contains(f.Fix, "4") {
		t.Errorf("%+v", f)
	}
	// Fewer racks than replicas: a collision cannot be avoided, and is
	// not reported.
	delete(img.Brokers, 4)
	img.Brokers[3].Rack = &r1
	if res := run(t, img, Options{Only: []string{CodeReplicasSameRack}}); len(res.Findings) != 0 {
		t.Errorf("one rack: %v", codes(res))
	}
}

func TestOfflineIsNotUnderReplicated(t *testing.T) {
	img := healthy()
	p := img.Topics["orders"].Partitions[0]
	p.Leader, p.ISR = model.NoLeader, []int32{1}
	got := codes(run(t, img, Options{}))
	if !slices.Contains(got, "critical partition-offline partition orders-0") && !slices.Contains(got, CodePartitionOffline+" partition orders-0") {
		t.Errorf("%v", got)
	}
	if slices.ContainsFunc(got, func(s string) bool {
		return strings.HasPrefix(s, CodePartitionUnderReplicated) || strings.HasPrefix(s, CodePartitionUnderMinISR)
	}) {
		t.Errorf("an offline partition reported as under-replicated too: %v", got)
	}
}

// TestMinISRResolution: topic, then (ELR off) the leader's broker config,
// then the cluster default, then 1; with ELR on a broker's value is not
// used.
func TestMinISRResolution(t *testing.T) {
	img := healthy()
	c := newContext(img, Options{})
	if n, _ := c.MinISR("orders", 1); n != 2 {
		t.Errorf("cluster default: %d", n)
	}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{"min.insync.replicas": "3"}
	if n, _ := c.MinISR("orders", 1); n != 2 {
		t.Errorf("ELR on: the broker's value is not used, got %d", n)
	}
	img.Features["eligible.leader.replicas.version"] = 0
	if n, src := c.MinISR("orders", 1); n != 3 || src.Source() != "broker 1 config" {
		t.Errorf("ELR off: %d %+v", n, src)
	}
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{"min.insync.replicas": "1"}
	if n, src := c.MinISR("orders", 1); n != 1 || src.Source() != "topic config" || !src.Known {
		t.Errorf("topic: %d %+v", n, src)
	}
	delete(img.Configs, model.ConfigResource{Type: model.ConfigBroker})
	// A view without static configs: Kafka's default is an assumption.
	if n, src := c.MinISR("other", 2); n != 1 || src.Source() != "Kafka's default" || src.Known ||
		source(src) != "Kafka's default; assumes no override in broker 2's server.properties (not in this source: pass --config 2=server.properties)" {
		t.Errorf("default: %d %s", n, source(src))
	}
	img.SetStaticConfigs(2, map[string]string{"min.insync.replicas": "2"})
	if n, src := c.MinISR("other", 2); n != 2 || source(src) != "broker 2 server.properties" {
		t.Errorf("static: %d %s", n, source(src))
	}
}

// TestNotReportedIsNotClean: a live view without leader recovery state
// or configs lists the rules as not run, with the field.
func TestNotReportedIsNotClean(t *testing.T) {
	img := healthy()
	img.MarkNotReported(model.FieldPartitionLeaderRecovery, model.FieldTopicConfigs)
	res := run(t, img, Options{})
	status := map[string]RuleRun{}
	for _, rr := range res.Rules {
		status[rr.Code] = rr
	}
	for _, code := range []string{CodeLeaderRecovering, CodeMinISRNotBelowRF, CodeUncleanElection, CodePartitionUnderMinISR} {
		if rr := status[code]; rr.Status != StatusNotRun || !strings.Contains(rr.Why, "not report") {
			t.Errorf("%s: %+v", code, rr)
		}
	}
	if got := res.NotRun(); len(got) < 4 {
		t.Errorf("NotRun %v", got)
	}
}

func TestSelectionAndExceptions(t *testing.T) {
	img := healthy()
	p := img.Topics["orders"].Partitions[0]
	p.Replicas, p.ISR = p.Replicas[:1], p.ISR[:1]
	if _, err := Run(img, Options{Only: []string{"no-such-rule"}}); err == nil {
		t.Error("an unknown code is refused")
	}
	res := run(t, img, Options{Skip: []string{CodeReplicationFactorOne}})
	if slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Code == CodeReplicationFactorOne }) {
		t.Error("--skip")
	}
	ex, err := ParseExceptions([]byte(`{"exceptions":[{"rule":"replication-factor-one","topics":"ord*","reason":"scratch"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res = run(t, img, Options{Only: []string{CodeReplicationFactorOne}, Exceptions: ex})
	if len(res.Findings) != 1 || res.Findings[0].Excepted != "scratch" || res.Failing(model.SevInfo) {
		t.Errorf("exception: %+v", res.Findings)
	}
	for _, bad := range []string{`{"exceptions":[{"rule":"x","reason":"r"}]}`, `{"exceptions":[{"rule":"replication-factor-one"}]}`,
		`{"exceptions":[{"rule":"replication-factor-one","topics":"[","reason":"r"}]}`, `{"rules":[]}`} {
		if _, err := ParseExceptions([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestFailOn(t *testing.T) {
	img := healthy()
	img.Brokers[2].InControlledShutdown = true // a warning
	res := run(t, img, Options{})
	if res.Failing(model.SevError) || !res.Failing(model.SevWarning) || !res.Failing(model.SevInfo) || res.Failing(model.SevCritical) {
		t.Errorf("fail-on thresholds wrong")
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		n := 0
		for _, f := range []bool{r.Partition != nil, r.Topic != nil, r.Cluster != nil} {
			if f {
				n++
			}
		}
		if n != 1 || seen[r.Code] || r.Title == "" || r.Family == "" {
			t.Errorf("rule %s: one scope, a unique code, a title and a family", r.Code)
		}
		seen[r.Code] = true
	}
}

// only is the findings of one code, as "entity: saw".
func only(res *Result, code string) []string {
	var out []string
	for _, f := range res.Findings {
		if f.Code == code {
			out = append(out, f.Entity+": "+f.Saw)
		}
	}
	return out
}

// TestZKControllerGuard: each way /controller and /controller_epoch can
// disagree with what Kafka checks them against, and the states that are
// fine (a migration's KRaft claim, its raft epochs in the states).
func TestZKControllerGuard(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*model.Image)
		want   string // entity and part of the saw; "" quiet
		fix    string
	}{
		{"healthy", func(*model.Image) {}, "", ""},
		{"no controller", func(img *model.Image) { img.ZK.ControllerID = -1 }, "", ""},
		{"kraft claim without migration", func(img *model.Image) { img.ZK.ControllerID, img.ZK.KRaftControllerEpoch = 3000, 4 },
			"cluster /controller: /controller names KRaft controller 3000 (kraftControllerEpoch 4) and no /migration exists", "zookeeper-shell ZOOKEEPER/kafka delete /controller"},
		{"kraft claim during a migration", func(img *model.Image) {
			img.ZK.ControllerID, img.ZK.KRaftControllerEpoch, img.ZK.MaxStateControllerEpoch = 3000, 7, 7
			img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 7}
		}, "", ""},
		{"controller not registered", func(img *model.Image) { img.ZK.ControllerID = 9 },
			"cluster /controller: /controller names broker 9, which is not registered", "zookeeper-shell ZOOKEEPER/kafka delete /controller"},
		{"epoch znode missing", func(img *model.Image) { img.ZK.ControllerEpoch, img.ZK.ControllerEpochZkVersion = 0, -1 },
			"cluster /controller_epoch: /controller names controller 1 and /controller_epoch does not exist",
			"zookeeper-shell ZOOKEEPER/kafka create /controller_epoch 5 && zookeeper-shell ZOOKEEPER/kafka delete /controller"},
		{"no controller, no epoch", func(img *model.Image) {
			img.ZK.ControllerID, img.ZK.ControllerEpoch, img.ZK.ControllerEpochZkVersion, img.ZK.MaxStateControllerEpoch = -1, 0, -1, -1
		}, "", ""},
		{"states above the epoch", func(img *model.Image) { img.ZK.ControllerEpoch = 2 },
			"cluster /controller_epoch: partition states were written by controller epoch 5, above /controller_epoch 2",
			"zookeeper-shell ZOOKEEPER/kafka set /controller_epoch 5 && zookeeper-shell ZOOKEEPER/kafka delete /controller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := healthy()
			img.Quorum, img.Features = nil, map[string]int16{}
			img.ZK = healthyZK()
			tc.change(img)
			res := run(t, img, Options{})
			got := only(res, CodeZKController)
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("quiet expected: %v", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
				t.Fatalf("want %q, got %v", tc.want, got)
			}
			for _, f := range res.Findings {
				if f.Code == CodeZKController && f.Fix != tc.fix {
					t.Errorf("fix %q, want %q", f.Fix, tc.fix)
				}
			}
		})
	}
	// The live ensemble's address, when the source names it.
	img := healthy()
	img.ZK = healthyZK()
	img.ZK.ControllerID = 9
	res := run(t, img, Options{ZooKeeper: "zk1:2181,zk2:2181"})
	if f := res.Findings[len(res.Findings)-1]; f.Code != CodeZKController || f.Fix != "zookeeper-shell zk1:2181,zk2:2181/kafka delete /controller" {
		t.Errorf("%+v", f)
	}
	// Read over TLS with digest credentials: two commands, each its own
	// logged-in session, the chain still stopping at the first failure.
	img = healthy()
	img.ZK = healthyZK()
	img.ZK.ControllerEpoch = 2
	res = run(t, img, Options{ZooKeeper: "zk1:2281", ZooKeeperTLS: true, ZooKeeperDigest: true})
	shell := `zookeeper-shell zk1:2281/kafka -zk-tls-config-file "${ZK_TLS_CONFIG_FILE:?set it to a file of the zookeeper.ssl.* settings the brokers reach ZooKeeper with}"`
	login := `: "${KMETA_ZK_AUTH:?set it to the USER:PASSWORD kmeta read ZooKeeper with}" && printf '%s\n' "addauth digest $KMETA_ZK_AUTH" `
	if f := res.Findings[len(res.Findings)-1]; f.Code != CodeZKController ||
		f.Fix != login+"'set /controller_epoch 5' | "+shell+" && "+login+"'delete /controller' | "+shell {
		t.Errorf("%+v", f)
	}
	// On KRaft the rule does not apply.
	res = run(t, healthy(), Options{Only: []string{CodeZKController}})
	if rr := res.Rules[slices.IndexFunc(res.Rules, func(r RuleRun) bool { return r.Code == CodeZKController })]; rr.Status != StatusNotApplicable {
		t.Errorf("KRaft: %+v", rr)
	}
}

// TestMigrationHalfDone: each state short of POST_MIGRATION is reported
// with the step that is left; POST_MIGRATION is reported only for a
// broker still in ZooKeeper mode; NONE, and POST_MIGRATION with
// controllers still migration-enabled (Kafka ignores the setting then),
// are quiet.
func TestMigrationHalfDone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*model.Image)
		want   []string
	}{
		{"none", func(img *model.Image) { img.Migration = &model.Migration{HasState: true, State: model.MigrationNone} }, nil},
		{"pre-migration", func(img *model.Image) {
			img.Migration = &model.Migration{HasState: true, State: model.MigrationPreMigration}
		}, []string{"cluster migration: ZkMigrationState is PRE_MIGRATION"}},
		{"dual-write, brokers in ZooKeeper mode", func(img *model.Image) {
			img.Migration = &model.Migration{HasState: true, State: model.MigrationMigration}
			img.Brokers[1].IsMigratingZkBroker, img.Brokers[3].IsMigratingZkBroker = true, true
		}, []string{"cluster migration: ZkMigrationState is MIGRATION; broker(s) 1,3 still in ZooKeeper mode"}},
		{"dual-write, only the controllers left", func(img *model.Image) {
			img.Migration = &model.Migration{HasState: true, State: model.MigrationMigration}
			img.Controllers = map[int32]*model.Controller{3000: {ID: 3000, ZkMigrationReady: true}, 3001: {ID: 3001}}
		}, []string{"cluster migration: ZkMigrationState is MIGRATION; every broker in KRaft mode, controller(s) 3000 still with zookeeper.metadata.migration.enable"}},
		{"finalized", func(img *model.Image) {
			img.Migration = &model.Migration{HasState: true, State: model.MigrationPostMigration}
			img.Controllers = map[int32]*model.Controller{3000: {ID: 3000, ZkMigrationReady: true}}
		}, nil},
		{"finalized with a broker in ZooKeeper mode", func(img *model.Image) {
			img.Migration = &model.Migration{HasState: true, State: model.MigrationPostMigration}
			img.Brokers[2].IsMigratingZkBroker = true
		}, []string{"broker 2: ZkMigrationState is POST_MIGRATION and broker 2 is still registered as a ZooKeeper-mode broker"}},
		{"a /migration znode", func(img *model.Image) {
			img.ZK = healthyZK()
			img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 2, KRaftMetadataOffset: 40}
		}, []string{"cluster /migration: /migration exists (KRaft controller 3000, epoch 2, metadata offset 40)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := healthy()
			tc.change(img)
			if got := only(run(t, img, Options{}), CodeMigrationHalfDone); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestBalance: what the balance rules leave alone (a few replicas apart,
// a reassignment moving, one broker), and that the plan a finding prints,
// applied, leaves no broker far from the mean (nor puts two replicas of
// a partition on one rack).
func TestBalance(t *testing.T) {
	codes := []string{CodeReplicasUnbalanced, CodePreferredUnbalanced}
	quiet := func(t *testing.T, img *model.Image) {
		t.Helper()
		res := run(t, img, Options{Only: codes})
		if len(res.Findings) > 0 {
			t.Errorf("quiet expected: %v %v", only(res, CodeReplicasUnbalanced), only(res, CodePreferredUnbalanced))
		}
	}
	t.Run("two apart", func(t *testing.T) {
		img := healthy()
		addTopic(img, "small", 2, 1, 2) // 8, 8, 6: two from the mean is no imbalance
		quiet(t, img)
	})
	t.Run("reassignment moving", func(t *testing.T) {
		img := healthy()
		addTopic(img, "big", 6, 1, 2)
		img.Topics["big"].Partitions[0].AddingReplicas = []int32{3}
		quiet(t, img)
	})
	t.Run("one broker", func(t *testing.T) {
		img := healthy()
		delete(img.Brokers, 2)
		delete(img.Brokers, 3)
		quiet(t, img)
	})
	t.Run("fenced brokers do not count", func(t *testing.T) {
		img := healthy()
		addTopic(img, "big", 6, 1, 2)
		img.Brokers[3].Fenced = true // 1 and 2 hold 12 each: balanced between them
		if res := run(t, img, Options{Only: []string{CodeReplicasUnbalanced}}); len(res.Findings) > 0 {
			t.Errorf("%v", only(res, CodeReplicasUnbalanced))
		}
	})
	for _, tc := range []struct {
		code   string
		change func(*model.Image)
	}{
		{CodeReplicasUnbalanced, func(img *model.Image) {
			addTopic(img, "big", 20, 1, 2)
			img.Brokers[4] = &model.Broker{ID: 4, Rack: img.Brokers[1].Rack} // an empty broker on broker 1's rack
		}},
		{CodePreferredUnbalanced, func(img *model.Image) { addTopic(img, "lead", 12, 2, 3, 1) }},
	} {
		t.Run("plan clears "+tc.code, func(t *testing.T) {
			img := healthy()
			tc.change(img)
			res := run(t, img, Options{Only: []string{tc.code}})
			if len(res.Findings) == 0 {
				t.Fatal("no finding")
			}
			fix := res.Findings[0].Fix
			applyPlan(t, img, fix)
			if res := run(t, img, Options{Only: []string{tc.code}}); len(res.Findings) > 0 {
				t.Errorf("after the plan %s: %v", fix, only(res, tc.code))
			}
			if res := run(t, img, Options{Only: []string{CodeReplicasSameRack}}); len(res.Findings) > 0 {
				t.Errorf("the plan put replicas on one rack: %v", only(res, CodeReplicasSameRack))
			}
		})
	}
}

// applyPlan applies the reassignment plan a fix echoes, as Kafka would
// once it completes.
func applyPlan(t *testing.T, img *model.Image, fix string) {
	t.Helper()
	_, rest, ok := strings.Cut(fix, "echo '")
	plan, _, ok2 := strings.Cut(rest, "' >")
	if !ok || !ok2 {
		t.Fatalf("no plan in %q", fix)
	}
	var doc struct {
		Partitions []struct {
			Topic     string  `json:"topic"`
			Partition int32   `json:"partition"`
			Replicas  []int32 `json:"replicas"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal([]byte(plan), &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.Partitions {
		p := img.Topics[m.Topic].Partitions[m.Partition]
		p.Replicas, p.ISR, p.Leader = m.Replicas, slices.Clone(m.Replicas), m.Replicas[0]
	}
}

// TestUnderReplicatedAsKafka: kafka-topics counts a partition under-
// replicated when its ISR is smaller than its replicas less those being
// added, so a replica being added that joined the ISR makes up for one
// that left it (seen on Kafka 3.9.2: [2,3] reassigned to [2,3,1] while
// broker 3 was down).
func TestUnderReplicatedAsKafka(t *testing.T) {
	img := healthy()
	p := img.Topics["orders"].Partitions[0] // replicas 1,2,3
	p.Replicas, p.AddingReplicas, p.ISR = []int32{2, 3, 1}, []int32{1}, []int32{2, 1}
	if got := only(run(t, img, Options{}), CodePartitionUnderReplicated); len(got) > 0 {
		t.Errorf("ISR 2 of 2 replicas not being added: %v", got)
	}
	p.ISR = []int32{2}
	if got := only(run(t, img, Options{}), CodePartitionUnderReplicated); len(got) != 1 || !strings.HasPrefix(got[0], "partition orders-0: orders-0 has replicas 2,3,1, ISR 2") {
		t.Errorf("%v", got)
	}
}

// TestInternalTopicsAnyClusterSize: an internal topic below RF 3 is named
// on a one-broker cluster too (with no reassignment to print: there are
// no brokers to add), as a user topic below 3 is.
func TestInternalTopicsAnyClusterSize(t *testing.T) {
	img := model.NewImage()
	img.Features["metadata.version"] = 27
	img.Brokers[1] = &model.Broker{ID: 1}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker}] = map[string]string{"min.insync.replicas": "1"}
	addTopic(img, "__consumer_offsets", 3, 1)
	addTopic(img, "__transaction_state", 1, 1)
	res := run(t, img, Options{Only: []string{CodeInternalTopicRF}})
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Entity)
		if f.Fix != "" || !strings.Contains(f.Why, "add brokers first") {
			t.Errorf("%s: fix %q, why %q: want no fix, and brokers to add", f.Entity, f.Fix, f.Why)
		}
	}
	if want := []string{"topic __consumer_offsets", "topic __transaction_state"}; !slices.Equal(got, want) {
		t.Errorf("findings on %v, want %v", got, want)
	}
}

// TestAssumptionsSaid: without the brokers' static configs a min ISR
// rule judges by Kafka's default and says so, in its run and in a
// finding; with them (--config) it judges by the file and assumes
// nothing; a stopped broker's configs (a live view) are named.
func TestAssumptionsSaid(t *testing.T) {
	img := healthy()
	delete(img.Configs, model.ConfigResource{Type: model.ConfigBroker})
	img.Features["eligible.leader.replicas.version"] = 0
	addTopic(img, "pair", 1, 1, 2)
	res := run(t, img, Options{Only: []string{CodeMinISRNotBelowRF, CodeMinISROne}})
	for _, rr := range res.Rules {
		if rr.Status == StatusRan && !strings.Contains(rr.Assumes, "pass --config ID=server.properties for broker(s) 1,2,3") {
			t.Errorf("%s assumes %q", rr.Code, rr.Assumes)
		}
	}
	// min-isr-one fires on the assumed default, and says it is one.
	var one *Finding
	for i, f := range res.Findings {
		if f.Code == CodeMinISROne && f.Entity == "topic orders" {
			one = &res.Findings[i]
		}
	}
	if one == nil || !strings.Contains(one.Saw, "Kafka's default; assumes no override in broker 1's server.properties") {
		t.Fatalf("min-isr-one on orders: %+v", one)
	}
	for id := int32(1); id <= 3; id++ {
		img.SetStaticConfigs(id, map[string]string{"min.insync.replicas": "2"})
	}
	res = run(t, img, Options{Only: []string{CodeMinISRNotBelowRF, CodeMinISROne}})
	var keys []string
	for _, f := range res.Findings {
		keys = append(keys, f.Code+" "+f.Entity)
		if !strings.Contains(f.Saw, "server.properties") || strings.Contains(f.Saw, "assumes") {
			t.Errorf("%s: %s", f.Entity, f.Saw)
		}
	}
	if want := []string{"min-isr-not-below-rf topic pair"}; !slices.Equal(keys, want) {
		t.Errorf("with the files: %v, want %v", keys, want)
	}
	for _, rr := range res.Rules {
		if rr.Assumes != "" {
			t.Errorf("with every file: %s assumes %q", rr.Code, rr.Assumes)
		}
	}
	// A live view whose broker 2 did not answer: broker 2 is named.
	img.MarkConfigsUnreported(model.ConfigResource{Type: model.ConfigBroker, Name: "2"})
	delete(img.StaticConfigs, 2)
	res = run(t, img, Options{Only: []string{CodeMinISRNotBelowRF}})
	if rr := res.Rules[slices.IndexFunc(res.Rules, func(r RuleRun) bool { return r.Code == CodeMinISRNotBelowRF })]; !strings.Contains(rr.Assumes, "the dynamic configs of broker 2 (not answered)") {
		t.Errorf("broker 2 not answering: %q", rr.Assumes)
	}
}

// TestMinISRRefusedValue: a min.insync.replicas Kafka refuses (not an
// integer of at least 1; its ConfigDefs define it INT, atLeast(1)) is
// judged by nothing: broker 1's server.properties setting "abc" is
// static-config-invalid's error (Kafka does not start the node), the
// min ISR rules judge no partition by it (no default made up in its
// place: min-isr-one would fire on orders-0, led by broker 1) and say
// where it is set and why they did not judge; a topic's "0" is not
// judged either. No text says "assumes no override in " with nothing
// after it.
func TestMinISRRefusedValue(t *testing.T) {
	img := healthy()
	delete(img.Configs, model.ConfigResource{Type: model.ConfigBroker})
	img.Features["eligible.leader.replicas.version"] = 0
	img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "abc"})
	img.SetStaticConfigs(2, map[string]string{"min.insync.replicas": "2"})
	img.SetStaticConfigs(3, map[string]string{"min.insync.replicas": "1"})
	delete(img.Topics, "__consumer_offsets")
	// mixed-1, led by broker 3, is min-isr-one's; mixed-0, led by
	// broker 1, is not judged, so not in that finding either.
	addTopic(img, "mixed", 2, 1, 2, 3)
	img.Topics["mixed"].Partitions[1].Leader = 3
	// A partition without a leader is judged for no broker in
	// particular: the brokers disagree, and broker 1's (the first) is
	// refused.
	img.Topics["orders"].Partitions[2].Leader = model.NoLeader
	addTopic(img, "zero", 1, 2, 3, 1)
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "zero"}] = map[string]string{"min.insync.replicas": "0"}
	only := []string{CodeStaticConfigInvalid, CodeMinISROne, CodeMinISRNotBelowRF, CodePartitionUnderMinISR}
	res := run(t, img, Options{Only: only, StaticFiles: map[int32]string{1: "/etc/kafka/1.properties"}})
	if got, want := codes(res), []string{CodeStaticConfigInvalid + " broker 1", CodeMinISROne + " topic mixed"}; !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	if got, want := res.Findings[1].Saw, "topic mixed: min.insync.replicas 1 (broker 3 server.properties), replication factor 3 (1 of 2 partitions)"; got != want {
		t.Errorf("min-isr-one: %q, want %q", got, want)
	}
	f := res.Findings[0]
	if want := `node 1's server.properties (/etc/kafka/1.properties) sets min.insync.replicas="abc"`; f.Saw != want {
		t.Errorf("saw %q, want %q", f.Saw, want)
	}
	if want := "Kafka refuses the value (min.insync.replicas is an integer of at least 1) and the node does not start with it; kmeta judges nothing by it"; f.Why != want {
		t.Errorf("why %q", f.Why)
	}
	if want := "set min.insync.replicas in node 1's server.properties (/etc/kafka/1.properties) to an integer of at least 1 (or remove it: Kafka's default is 1), then start the node"; f.Fix != want || f.Severity != model.SevError {
		t.Errorf("fix %q, severity %s", f.Fix, f.Severity)
	}
	static := `not judged where node 1's server.properties (/etc/kafka/1.properties) sets min.insync.replicas="abc", which Kafka refuses (min.insync.replicas is an integer of at least 1)`
	topic := `not judged where topic zero's config sets min.insync.replicas="0", which Kafka refuses (min.insync.replicas is an integer of at least 1)`
	want := map[string]string{
		CodeStaticConfigInvalid:  "",
		CodeMinISROne:            static + "; " + topic,
		CodeMinISRNotBelowRF:     static + "; " + topic,
		CodePartitionUnderMinISR: static + "; " + topic,
	}
	for _, rr := range res.Rules {
		if w, ok := want[rr.Code]; ok && (rr.Status != StatusRan || rr.Assumes != w) {
			t.Errorf("%s: %s, assumes %q\nwant %q", rr.Code, rr.Status, rr.Assumes, w)
		}
	}
	// Without the file's name, the finding says server.properties.
	res = run(t, img, Options{Only: []string{CodeStaticConfigInvalid}})
	if len(res.Findings) != 1 || res.Findings[0].Saw != `node 1's server.properties sets min.insync.replicas="abc"` {
		t.Errorf("no file: %+v", res.Findings)
	}
	// A source without any server.properties: nothing to judge.
	img.StaticConfigs = nil
	res = run(t, img, Options{Only: []string{CodeStaticConfigInvalid}})
	if rr := res.Rules[slices.IndexFunc(res.Rules, func(r RuleRun) bool { return r.Code == CodeStaticConfigInvalid })]; rr.Status != StatusNotApplicable ||
		rr.Why != "the source holds no node's server.properties (pass --config ID=server.properties)" {
		t.Errorf("no files: %+v", rr)
	}
}

// TestMinISRValue: Kafka's INT parsing (Integer.parseInt of the trimmed
// text) and atLeast(1), as Kafka 3.9.2's and 4.4.0's KafkaConfig.fromProps
// answered for each value.
func TestMinISRValue(t *testing.T) {
	for v, want := range map[string]int{"2": 2, " 2 ": 2, "+2": 2, "1": 1, "2147483647": 2147483647,
		"abc": 0, "0": 0, "-1": 0, "": 0, "1.5": 0, "2147483648": 0} {
		if n, ok := model.MinISRValue(v); n != want || ok != (want > 0) {
			t.Errorf("%q: %d %v, want %d", v, n, ok, want)
		}
	}
}

// TestAssumesSaysEachGap: a value the brokers disagree on says so, not
// "assumes no override in the brokers apply different values".
func TestAssumesSaysEachGap(t *testing.T) {
	e := &model.EffectiveConfig{Key: "min.insync.replicas", Value: "2", Layer: model.LayerStatic, Broker: model.AnyBroker,
		Gaps: []model.ConfigGap{{Layer: model.LayerStatic, Broker: 3, Reason: model.GapNotReported}, {Layer: model.LayerStatic, Broker: model.AnyBroker, Reason: model.GapDisagree}}}
	if got, want := source(e), "every broker's server.properties; assumes no override in broker 3's server.properties (not in this source: pass --config 3=server.properties); the brokers apply different values, and this is the first broker's"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.Gaps = e.Gaps[1:]
	if got, want := source(e), "every broker's server.properties; the brokers apply different values, and this is the first broker's"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.Layer, e.Gaps = model.LayerDefault, []model.ConfigGap{{Layer: model.LayerDefault, Broker: model.AnyBroker, Reason: model.GapUnknownDefault}}
	if got, want := source(e), "Kafka's default; Kafka's default of min.insync.replicas is not known to kmeta"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Not Known without a gap (no resolver answer is): said as such,
	// never "assumes no override in ".
	e.Gaps = nil
	if got, want := source(e), "Kafka's default; not known"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestLowRFFixRunsAsPrinted: the reassignment replication-factor-one
// and -below-3 print names only available brokers
// (kafka-reassign-partitions --execute refuses any other: "Unknown
// broker id N"): a replica on an unregistered or fenced broker is
// replaced by a live one. A partition without a leader on an available
// broker gets no plan (nothing to copy from: the broker must come
// back), nor does a topic marked for deletion (Kafka's controller skips
// its reassignment). Before, the plan kept the dead broker (4) in the
// list and was printed for both.
func TestLowRFFixRunsAsPrinted(t *testing.T) {
	img := healthy()
	delete(img.Topics, "__consumer_offsets")
	addTopic(img, "gone", 1, 4, 1) // broker 4 is not registered
	img.Topics["gone"].Partitions[0].Leader = 1
	img.Topics["gone"].Partitions[0].ISR = []int32{1}
	addTopic(img, "fenced", 1, 2, 1)
	img.Topics["fenced"].Partitions[0].Leader = 1
	img.Topics["fenced"].Partitions[0].ISR = []int32{1}
	addTopic(img, "dead", 1, 4)
	img.Topics["dead"].Partitions[0].Leader = model.NoLeader
	addTopic(img, "solo", 1, 1)
	img.Brokers[2].Fenced = true
	res := run(t, img, Options{Only: []string{CodeReplicationFactorOne, CodeReplicationFactorBelow}})
	got := map[string][2]string{}
	for _, f := range res.Findings {
		got[f.Code+" "+f.Entity] = [2]string{f.Why, f.Fix}
	}
	plan := func(topic, replicas string) string {
		return `echo '{"version":1,"partitions":[{"topic":"` + topic + `","partition":0,"replicas":[` + replicas + `]}]}' > kmeta-reassign-` + topic +
			`.json && kafka-reassign-partitions --bootstrap-server BOOTSTRAP --reassignment-json-file kmeta-reassign-` + topic + `.json --execute`
	}
	one := "every write has one copy: losing that broker's disk loses the partition's data"
	below := "with one broker down, a second failure loses data or availability; 3 replicas is the usual floor"
	want := map[string][2]string{
		"replication-factor-one topic dead": {one + " (no reassignment: dead-0 has no leader on an available broker, its replicas on broker(s) 4, fenced or not registered: a reassignment cannot complete without a leader to copy from; start broker(s) 4 first)", ""},
		"replication-factor-one topic solo": {one, plan("solo", "1,3")},
		// Two available brokers (1, 3): a plan of two, on them.
		"replication-factor-below-3 topic gone":   {below, plan("gone", "1,3")},
		"replication-factor-below-3 topic fenced": {below, plan("fenced", "1,3")},
	}
	if !maps.Equal(got, want) {
		for k, v := range got {
			if want[k] != v {
				t.Errorf("%s:\n got %q\nwant %q", k, v, want[k])
			}
		}
		t.Fatalf("findings %v", slices.Sorted(maps.Keys(got)))
	}
	// ZooKeeper: a topic marked for deletion gets no plan.
	img.ZK = healthyZK()
	img.ZK.PendingTopicDeletions = []string{"solo"}
	res = run(t, img, Options{Only: []string{CodeReplicationFactorOne}})
	i := slices.IndexFunc(res.Findings, func(f Finding) bool { return f.Entity == "topic solo" })
	if i < 0 || res.Findings[i].Fix != "" ||
		res.Findings[i].Why != one+" (no reassignment: the topic is marked for deletion (/admin/delete_topics), and Kafka's controller does not reassign a topic being deleted; see topic-deletion-pending)" {
		t.Errorf("pending deletion: %+v", res.Findings)
	}
}

// TestAssumptionSaysDisagreement: a rule's run judged by a value the
// brokers disagree on says so, not "assumes no override of
// min.insync.replicas in the brokers apply different values".
func TestAssumptionSaysDisagreement(t *testing.T) {
	img := healthy()
	delete(img.Configs, model.ConfigResource{Type: model.ConfigBroker})
	img.Features["eligible.leader.replicas.version"] = 0
	for id, v := range map[int32]string{1: "2", 2: "3", 3: "2"} {
		img.SetStaticConfigs(id, map[string]string{"min.insync.replicas": v})
	}
	img.Topics["orders"].Partitions[0].Leader = model.NoLeader // judged for every broker
	res := run(t, img, Options{Only: []string{CodeMinISROne}})
	rr := res.Rules[slices.IndexFunc(res.Rules, func(r RuleRun) bool { return r.Code == CodeMinISROne })]
	if want := "the brokers apply different values of min.insync.replicas (judged by the first broker's)"; rr.Assumes != want {
		t.Errorf("assumes %q, want %q", rr.Assumes, want)
	}
}
