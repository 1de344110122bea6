package lint

import (
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
	c := newContext(img, "")
	if n, _ := c.MinISR("orders", 1); n != 2 {
		t.Errorf("cluster default: %d", n)
	}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{"min.insync.replicas": "3"}
	if n, _ := c.MinISR("orders", 1); n != 2 {
		t.Errorf("ELR on: the broker's value is not used, got %d", n)
	}
	img.Features["eligible.leader.replicas.version"] = 0
	if n, src := c.MinISR("orders", 1); n != 3 || src != "broker 1 config" {
		t.Errorf("ELR off: %d %s", n, src)
	}
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{"min.insync.replicas": "1"}
	if n, src := c.MinISR("orders", 1); n != 1 || src != "topic config" {
		t.Errorf("topic: %d %s", n, src)
	}
	delete(img.Configs, model.ConfigResource{Type: model.ConfigBroker})
	if n, src := c.MinISR("other", 2); n != 1 || src != "Kafka's default" {
		t.Errorf("default: %d %s", n, src)
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
