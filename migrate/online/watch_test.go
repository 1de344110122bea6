package online

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/kmeta/kmeta/model"
)

func watchStatus(phase Phase, agree *bool, brokers ...BrokerState) *Status {
	return &Status{Phase: phase, Agree: agree, Brokers: brokers,
		ZooKeeper: ZooKeeperSide{Migration: &model.Migration{HasZNode: true, KRaftMetadataOffset: 40}}}
}

func TestWatch(t *testing.T) {
	yes, no := true, false
	zk := func(id int32) BrokerState { return BrokerState{ID: id, InZooKeeper: true, KRaft: "migrating"} }
	gone := func(id int32) BrokerState { return BrokerState{ID: id, KRaft: "migrating", Fenced: true} }
	kr := func(id int32) BrokerState { return BrokerState{ID: id, KRaft: "kraft"} }
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w := NewWatch(WatchOptions{Until: PreKRaft, HasUntil: true, Grace: time.Minute, MaxBehind: 30 * time.Second})
	type step struct {
		st      *Status
		at      time.Duration
		changes []string
		failed  bool
		reached bool
	}
	for i, s := range []step{
		{st: watchStatus(KRaftMigration, nil, zk(1), zk(2)), changes: []string{"watching: KRaftMigration"}},
		{st: watchStatus(KRaftMigration, nil, zk(1), zk(2)), at: 2 * time.Second}, // nothing changed: no line
		{st: watchStatus(KRaftDualWriting, &yes, zk(1), zk(2)), at: 4 * time.Second, changes: []string{"phase KRaftMigration → KRaftDualWriting"}},
		{st: watchStatus(KRaftDualWriting, &yes, zk(1), gone(2)), at: 6 * time.Second, changes: []string{"broker 2 out: not in /brokers/ids, not registered (unfenced) with KRaft"}},
		{st: watchStatus(KRaftDualWriting, &yes, zk(1), kr(2)), at: 20 * time.Second, changes: []string{"migrating brokers [1]", "broker 2 back after 14s"}},
		{st: watchStatus(KRaftDualWriting, &no, zk(1), kr(2)), at: 22 * time.Second, changes: []string{"rollback no longer safe: ZooKeeper lacks what KRaft holds (0 differences)"}},
		{st: watchStatus(KRaftDualWriting, &yes, zk(1), kr(2)), at: 24 * time.Second, changes: []string{"rollback safe again: ZooKeeper agrees with KRaft"}},
		{st: watchStatus(PreKRaft, nil, kr(1), kr(2)), at: 30 * time.Second, reached: true, changes: []string{
			"phase KRaftDualWriting → PreKRaft",
			"rollback no longer possible: PreKRaft (once a controller without the migration flag took over, ZooKeeper is no longer written (Kafka has no revert after finalizing))",
			"migrating brokers []", "reached PreKRaft"}},
	} {
		ev := w.Next(Point(s.st, 50), t0.Add(s.at))
		if s.changes == nil {
			if ev != nil {
				t.Errorf("step %d: a line %q for no change", i, ev.Line())
			}
			continue
		}
		if ev == nil {
			t.Fatalf("step %d: no line, want %v", i, s.changes)
		}
		if !reflect.DeepEqual(ev.Changes, s.changes) || (ev.Failed != "") != s.failed || ev.Reached != s.reached {
			t.Errorf("step %d:\n got %q failed=%q reached=%v\nwant %q", i, ev.Changes, ev.Failed, ev.Reached, s.changes)
		}
	}

	// A broker out past the grace, ZooKeeper behind past --max-behind.
	w = NewWatch(WatchOptions{Grace: time.Minute, MaxBehind: 30 * time.Second})
	w.Next(Point(watchStatus(KRaftDualWriting, &yes, zk(1), zk(2)), 50), t0)
	w.Next(Point(watchStatus(KRaftDualWriting, &yes, zk(1), gone(2)), 50), t0.Add(time.Second))
	ev := w.Next(Point(watchStatus(KRaftDualWriting, &yes, zk(1), gone(2)), 50), t0.Add(62*time.Second))
	if ev == nil || ev.Failed != "broker 2 has been out for 1m1s (more than --grace 1m0s): not in /brokers/ids, not registered (unfenced) with KRaft" {
		t.Errorf("grace: %+v", ev)
	}
	w = NewWatch(WatchOptions{Grace: time.Minute, MaxBehind: 30 * time.Second})
	w.Next(Point(watchStatus(KRaftDualWriting, &no, zk(1)), 50), t0)
	if ev := w.Next(Point(watchStatus(KRaftDualWriting, &no, zk(1)), 50), t0.Add(20*time.Second)); ev != nil {
		t.Errorf("behind within the limit: %+v", ev)
	}
	if ev := w.Next(Point(watchStatus(KRaftDualWriting, &no, zk(1)), 50), t0.Add(31*time.Second)); ev == nil || ev.Failed == "" {
		t.Errorf("behind past the limit: %+v", ev)
	}
	// Without a KRaft source that reports registrations, a broker that
	// leaves ZooKeeper in dual-write may have become a KRaft broker: not
	// called out.
	w = NewWatch(WatchOptions{Grace: time.Second})
	nr := func(id int32, inZK bool) BrokerState {
		return BrokerState{ID: id, InZooKeeper: inZK, KRaft: "not-reported"}
	}
	w.Next(Point(watchStatus(KRaftDualWriting, nil, nr(1, true), nr(2, true)), -1), t0)
	if ev := w.Next(Point(watchStatus(KRaftDualWriting, nil, nr(1, true)), -1), t0.Add(time.Minute)); ev != nil {
		t.Errorf("a broker unseen by a live quorum called out: %+v", ev)
	}
}

// A watch line read back is the event printed (-o json is one event a
// line, read by scripts and by the walk's test).
func TestWatchEventJSON(t *testing.T) {
	yes := true
	ev := NewWatch(WatchOptions{}).Next(Point(watchStatus(KRaftDualWriting, &yes, BrokerState{ID: 1, InZooKeeper: true, KRaft: "migrating"}), 50), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var back WatchEvent
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(&back, ev) {
		t.Errorf("read back %+v (%v), want %+v", back, err, ev)
	}
}
