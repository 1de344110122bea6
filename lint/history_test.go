package lint

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/model"
)

// TestTrackerMatchesRun changes a healthy image step by step, telling the
// tracker what each step touched, as replay would: after every step the
// findings the tracker holds are exactly those a full Run reports (the
// incremental evaluation misses nothing and keeps nothing stale), and
// each holds since the step that made it so.
func TestTrackerMatchesRun(t *testing.T) {
	img := healthy()
	tr, err := NewTracker(Options{})
	if err != nil {
		t.Fatal(err)
	}
	orders := func() *model.Topic { return img.Topics["orders"] }
	steps := []struct {
		name string
		do   func()
		ch   Change
		// appears are findings this step must start.
		appears []string
	}{
		{"isr shrinks", func() { orders().Partitions[1].ISR = []int32{3} }, Change{Topic: "orders", Partition: 1},
			[]string{"partition-under-replicated partition orders-1", "partition-under-min-isr partition orders-1"}},
		{"topic min isr 3", func() {
			img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{"min.insync.replicas": "3"}
		}, Change{Topic: "orders", Partition: -1, Config: true},
			[]string{"min-isr-not-below-rf topic orders"}},
		{"unclean on", func() {
			img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}]["unclean.leader.election.enable"] = "true"
		}, Change{Topic: "orders", Partition: -1, Config: true}, []string{"unclean-leader-election-enabled config TOPIC orders"}},
		{"broker 2 fenced", func() { img.Brokers[2].Fenced = true }, Change{Inputs: InputBrokers}, []string{"broker-fenced broker 2"}},
		{"leaders off their preferred replica", func() {
			for _, p := range orders().Partitions {
				p.Leader = p.Replicas[1]
			}
		}, Change{Topic: "orders", Partition: -1}, nil},
		{"a reassignment to broker 4", func() {
			p := orders().Partitions[2]
			p.Replicas, p.AddingReplicas = append(slices.Clone(p.Replicas), 4), []int32{4}
		}, Change{Topic: "orders", Partition: 2}, nil},
		{"partition 0 led by its preferred replica again", func() { orders().Partitions[0].Leader = orders().Partitions[0].Replicas[0] }, Change{Topic: "orders", Partition: 0}, nil},
		{"the reassignment done", func() {
			p := orders().Partitions[2]
			p.Replicas, p.AddingReplicas = p.Replicas[1:], []int32{}
		}, Change{Topic: "orders", Partition: 2}, nil},
		{"isr back", func() { orders().Partitions[1].ISR = []int32{2, 3, 1} }, Change{Topic: "orders", Partition: 1}, nil},
		{"new RF 1 topic", func() {
			img.Topics["scratch"] = &model.Topic{Name: "scratch", Partitions: map[int32]*model.Partition{0: {ID: 0, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1}}}
		}, Change{Topic: "scratch", Partition: -1}, []string{"replication-factor-one topic scratch"}},
		{"orders removed", func() {
			delete(img.Topics, "orders")
			delete(img.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: "orders"})
		}, Change{Topic: "orders", Partition: -1, Removed: true}, nil},
		{"two voters", func() { img.Quorum.Voters = img.Quorum.Voters[:2] }, Change{Inputs: InputQuorum}, []string{"quorum-even-voters quorum"}},
		{"cluster min isr 1", func() {
			img.Configs[model.ConfigResource{Type: model.ConfigBroker}]["min.insync.replicas"] = "1"
		}, Change{Inputs: InputClusterConfig}, []string{"min-isr-one topic __consumer_offsets"}},
		// One record trades a partition's one finding for another of an
		// earlier rule: its list is replaced, not edited in place.
		{"a topic moving to broker 3", func() {
			img.Topics["moving"] = &model.Topic{Name: "moving", Partitions: map[int32]*model.Partition{0: {ID: 0, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, AddingReplicas: []int32{3}, Leader: 1}}}
		}, Change{Topic: "moving", Partition: -1}, []string{"reassignment-in-flight partition moving-0"}},
		{"the move ends, broker 3 out of the ISR", func() { img.Topics["moving"].Partitions[0].AddingReplicas = nil },
			Change{Topic: "moving", Partition: 0}, []string{"partition-under-replicated partition moving-0"}},
		// A KRaft controller has no leader imbalance threshold (only a
		// ZooKeeper-mode controller reads
		// leader.imbalance.per.broker.percentage): a partition led
		// elsewhere than by its preferred replica is the finding however
		// the brokers set the key.
		{"__consumer_offsets-0 led by its second replica", func() {
			p := img.Topics["__consumer_offsets"].Partitions[0]
			p.Leader = p.Replicas[1]
		}, Change{Topic: "__consumer_offsets", Partition: 0}, []string{"preferred-leader-imbalance broker 1"}},
		{"every broker's own leader imbalance threshold 100%", func() {
			for _, id := range []string{"1", "2", "3"} {
				img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: id}] = map[string]string{"leader.imbalance.per.broker.percentage": "100"}
			}
		}, Change{Inputs: InputClusterConfig}, nil},
		{"broker 0 registers", func() {
			rack := "r0"
			img.Brokers[0] = &model.Broker{ID: 0, Rack: &rack, Features: []model.FeatureRange{{Name: "metadata.version", Min: 7, Max: 27}}}
		}, Change{Inputs: InputBrokers}, []string{"broker-without-replicas broker 0"}},
		{"__consumer_offsets-1 led by its second replica", func() {
			p := img.Topics["__consumer_offsets"].Partitions[1]
			p.Leader = p.Replicas[1]
		}, Change{Topic: "__consumer_offsets", Partition: 1}, []string{"preferred-leader-imbalance broker 2"}},
	}
	for i, s := range steps {
		s.do()
		s.ch.Offset, s.ch.Time, s.ch.Record = int64(i), time.UnixMilli(int64(i)*1000).UTC(), s.name
		tr.Observe(img, s.ch)
		checkCounts(t, s.name, tr, img)
		res := run(t, img, Options{})
		tr.Annotate(res)
		want := codes(res)
		if tr.Tracked() != len(want) {
			t.Errorf("after %q: the tracker holds %d findings, Run reports %d: %v", s.name, tr.Tracked(), len(want), want)
		}
		for _, f := range res.Findings {
			k := f.Code + " " + f.Entity
			switch {
			case f.Since == nil:
				t.Errorf("after %q: %s has no since", s.name, k)
			case slices.Contains(s.appears, k) && f.Since.Offset != int64(i):
				t.Errorf("after %q: %s since %d (%s), want %d", s.name, k, f.Since.Offset, f.Since.Record, i)
			}
		}
		for _, a := range s.appears {
			if !slices.Contains(want, a) {
				t.Errorf("after %q: no %s in %v", s.name, a, want)
			}
		}
	}
}

// checkCounts fails when the counts a tracker keeps record by record are
// not those a recount of img gives.
func checkCounts(t *testing.T, step string, tr *Tracker, img *model.Image) {
	t.Helper()
	c := newContext(img, Options{})
	tr.counts.into(tr.c) // as before any rule reads them
	if !maps.Equal(tr.c.replicas, c.replicas) || !maps.Equal(tr.c.preferred, c.preferred) ||
		!maps.Equal(tr.c.notLeading, c.notLeading) || tr.c.moving != c.moving {
		t.Errorf("after %q: the tracker counts replicas %v, preferred %v, not leading %v, moving %v; a recount %v, %v, %v, %v",
			step, tr.c.replicas, tr.c.preferred, tr.c.notLeading, tr.c.moving, c.replicas, c.preferred, c.notLeading, c.moving)
	}
}

// TestTopicRulesReadOnlyTopicInputs: of a partition, a Topic rule reads
// only its replicas, how many of them a reassignment is removing and its
// leader (topicInputs), so the tracker runs the Topic rules only after a
// record changed one of those (most records change an ISR). Every Topic
// rule reports the same on topics whose partitions then differ in all
// the rest: ISR, ELRs, adding replicas, epochs, recovery state,
// directories, offline replicas.
func TestTopicRulesReadOnlyTopicInputs(t *testing.T) {
	img := healthy()
	addTopic(img, "rf1", 4, 1)
	addTopic(img, "rf2", 4, 1, 2)
	addTopic(img, "same-rack", 4, 1, 2, 3)
	addTopic(img, "__transaction_state", 3, 1, 2)
	addTopic(img, "min-isr", 3, 1, 2, 3)
	addTopic(img, "min-isr-one", 3, 2, 3, 1)
	img.Topics["rf2"].Partitions[1].RemovingReplicas = []int32{2}
	img.Topics["min-isr"].Partitions[2].Leader = 2
	four := "r1"
	img.Brokers[4] = &model.Broker{ID: 4, Rack: &four}
	img.Topics["same-rack"].Partitions[0].Replicas = []int32{1, 4, 2}
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "min-isr"}] = map[string]string{"min.insync.replicas": "3"}
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "min-isr-one"}] = map[string]string{"min.insync.replicas": "1"}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "2"}] = map[string]string{"min.insync.replicas": "4"}
	findings := func() map[string][]Finding {
		c := newContext(img, Options{})
		out := map[string][]Finding{}
		for _, r := range Rules() {
			if r.Topic == nil {
				continue
			}
			for _, tp := range c.topics {
				if fs := r.Topic(c, tp); len(fs) > 0 {
					out[r.Code+" "+tp.Name] = fs
				}
			}
		}
		return out
	}
	want := findings()
	for _, code := range []string{CodeReplicationFactorOne, CodeReplicationFactorBelow, CodeInternalTopicRF, CodeReplicasSameRack, CodeMinISRNotBelowRF, CodeMinISROne} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(k string) bool { return strings.HasPrefix(k, code+" ") }) {
			t.Errorf("no topic has %s: the image does not exercise it", code)
		}
	}
	for _, tp := range img.Topics {
		for _, p := range tp.Partitions {
			p.ISR = []int32{p.Replicas[len(p.Replicas)-1], 9}
			p.ELR, p.LastKnownELR = []int32{7}, []int32{8}
			p.AddingReplicas = []int32{9}
			p.LeaderEpoch, p.PartitionEpoch, p.LeaderRecoveryState = 77, 88, 1
			p.Directories = make([]model.UUID, len(p.Replicas)+1)
			p.OfflineReplicas = slices.Clone(p.Replicas)
		}
	}
	if d := cmp.Diff(want, findings()); d != "" {
		t.Errorf("a Topic rule reads more of a partition than topicInputs compares (-before +after):\n%s", d)
	}
	// Without a broker's own min.insync.replicas, the leader is not read
	// either (leadersCount).
	delete(img.Configs, model.ConfigResource{Type: model.ConfigBroker, Name: "2"})
	tr, err := NewTracker(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Observe(img, Change{Inputs: InputClusterConfig})
	if tr.leadersCount() {
		t.Fatal("leaders count without a broker's own min.insync.replicas")
	}
	want = findings()
	for _, tp := range img.Topics {
		for _, p := range tp.Partitions {
			p.Leader = p.Replicas[len(p.Replicas)-1]
		}
	}
	if d := cmp.Diff(want, findings()); d != "" {
		t.Errorf("a Topic rule reads a partition's leader where leadersCount says it does not (-before +after):\n%s", d)
	}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "3"}] = map[string]string{"min.insync.replicas": "1"}
	tr.Observe(img, Change{Inputs: InputClusterConfig})
	if !tr.leadersCount() {
		t.Error("leaders do not count with broker 3's own min.insync.replicas")
	}
}

// TestFlushPointResolvesSince: a finding holds since the point at which
// its record's state is first published (FlushPoint), not since the
// record's offset; one whose record comes after the point given (a
// record observed while a metadata transaction is open, whose point is
// before its Begin) waits for a later point, never one before its
// record; one that cleared and came back in the batch holds since the
// batch's point, from its last record.
func TestFlushPointResolvesSince(t *testing.T) {
	img := healthy()
	tr, err := NewTracker(Options{Only: []string{CodeBrokerFenced, CodePartitionUnderReplicated}})
	if err != nil {
		t.Fatal(err)
	}
	since := func(key string) (Since, bool) {
		res := run(t, img, Options{Only: []string{CodeBrokerFenced, CodePartitionUnderReplicated}})
		tr.Annotate(res)
		for _, f := range res.Findings {
			if f.Code+" "+f.Entity == key && f.Since != nil {
				return *f.Since, true
			}
		}
		return Since{}, false
	}
	// Batch 10-12: orders-1's ISR shrinks at 10.
	img.Topics["orders"].Partitions[1].ISR = []int32{2, 3}
	tr.Observe(img, Change{Offset: 10, Record: "PartitionChangeRecord", Topic: "orders", Partition: 1})
	tr.FlushPoint(12)
	if s, ok := since("partition-under-replicated partition orders-1"); !ok || s.Offset != 12 || s.RecordOffset != 10 {
		t.Errorf("orders-1: since %+v, want offset 12, record offset 10", s)
	}
	// Broker 2 fenced at 20 while a transaction begun at 15 is open: the
	// batch's point is 14, before the record: it waits.
	img.Brokers[2].Fenced = true
	tr.Observe(img, Change{Offset: 20, Record: "BrokerRegistrationChangeRecord", Inputs: InputBrokers})
	tr.FlushPoint(14)
	if s, ok := since("broker-fenced broker 2"); !ok || s.Offset != 20 || s.RecordOffset != 20 {
		t.Errorf("broker 2 before its point: since %+v, want offset 20 (not yet a point, never 14)", s)
	}
	tr.FlushPoint(25)
	if s, ok := since("broker-fenced broker 2"); !ok || s.Offset != 25 || s.RecordOffset != 20 {
		t.Errorf("broker 2: since %+v, want offset 25, record offset 20", s)
	}
	// Batch 30-33: orders-0 shrinks at 30, recovers at 31, shrinks again
	// at 32: it holds since 33, from its record at 32.
	p0 := img.Topics["orders"].Partitions[0]
	for _, step := range []struct {
		off int64
		isr []int32
	}{{30, []int32{1, 2}}, {31, []int32{1, 2, 3}}, {32, []int32{1, 3}}} {
		p0.ISR = step.isr
		tr.Observe(img, Change{Offset: step.off, Record: "PartitionChangeRecord", Topic: "orders", Partition: 0})
	}
	tr.FlushPoint(33)
	if s, ok := since("partition-under-replicated partition orders-0"); !ok || s.Offset != 33 || s.RecordOffset != 32 {
		t.Errorf("orders-0: since %+v, want offset 33, record offset 32", s)
	}
}
