package lint

import (
	"slices"
	"testing"
	"time"

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
	}
	for i, s := range steps {
		s.do()
		s.ch.Offset, s.ch.Time, s.ch.Record = int64(i), time.UnixMilli(int64(i)*1000).UTC(), s.name
		tr.Observe(img, s.ch)
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
