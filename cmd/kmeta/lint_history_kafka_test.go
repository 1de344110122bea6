package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// jsonRecord is a record of `kmeta log dump -o json` (JSON lines), with
// the time and base offset of the batch it is in.
type jsonRecord struct {
	Offset int64
	Time   int64
	Batch  int64
	Type   string
	Data   map[string]any
	// Last is the batch's last offset: the point at which its records'
	// state is published (no transaction in these logs).
	Last int64
}

// str is a string field of the record's data ("" when absent or null).
func (r jsonRecord) str(k string) string {
	s, _ := r.Data[k].(string)
	return s
}

// num is a number field of the record's data (def when absent).
func (r jsonRecord) num(k string, def int64) int64 {
	if f, ok := r.Data[k].(float64); ok {
		return int64(f)
	}
	return def
}

// dumpedSegments reads the records of the log segments (not the
// snapshots, whose records are numbered within the snapshot) of a
// metadata log dir with kmeta log dump -o json: the oracle of the
// history test, read apart from lint's replay.
func dumpedSegments(t *testing.T, dir string) []jsonRecord {
	t.Helper()
	r := kmeta("log", "dump", "-o", "json", dir)
	if r.code != 0 {
		t.Fatalf("log dump: exit %d: %s", r.code, r.stderr)
	}
	var recs []jsonRecord
	var batchTime, batchBase, batchLast int64
	for _, l := range strings.Split(r.stdout, "\n") {
		if l == "" {
			continue
		}
		var v struct {
			Kind       string         `json:"kind"`
			File       string         `json:"file"`
			Offset     int64          `json:"offset"`
			BaseOffset int64          `json:"baseOffset"`
			LastOffset int64          `json:"lastOffset"`
			Timestamp  int64          `json:"timestamp"`
			Type       string         `json:"type"`
			Data       map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log dump line %q: %v", l, err)
		}
		if !strings.HasSuffix(v.File, ".log") {
			continue
		}
		switch v.Kind {
		case "batch":
			batchTime, batchBase, batchLast = v.Timestamp, v.BaseOffset, v.LastOffset
		case "record":
			recs = append(recs, jsonRecord{v.Offset, batchTime, batchBase, v.Type, v.Data, batchLast})
		}
	}
	if len(recs) == 0 {
		t.Fatalf("log dump of %s printed no segment records", dir)
	}
	return recs
}

// finalRun returns the record that starts the last run of records after
// which holds is true, holds being asked after each record in order (it
// keeps its own state); false when the condition does not hold at the
// end. That is what "has held since" means, computed from the dump.
func finalRun(recs []jsonRecord, holds func(jsonRecord) (bool, bool)) (jsonRecord, bool) {
	var start *jsonRecord
	for i, r := range recs {
		h, relevant := holds(r)
		if !relevant {
			continue
		}
		switch {
		case !h:
			start = nil
		case start == nil:
			start = &recs[i]
		}
	}
	if start == nil {
		return jsonRecord{}, false
	}
	return *start, true
}

// topicID is the id of the topic the dump's TopicRecord names.
func topicID(t *testing.T, recs []jsonRecord, name string) string {
	t.Helper()
	for _, r := range recs {
		if r.Type == "TOPIC_RECORD" && r.str("name") == name {
			return r.str("topicId")
		}
	}
	t.Fatalf("log dump has no TopicRecord for %s", name)
	return ""
}

// creationEnd is the last record about topic name in the batch that
// created it: a topic's rules (replication factor) are checked once per
// batch, as of the batch's last record about the topic (lint.Tracker).
func creationEnd(t *testing.T, recs []jsonRecord, name string) jsonRecord {
	t.Helper()
	id := topicID(t, recs, name)
	var batch int64 = -1
	var end jsonRecord
	for _, r := range recs {
		if r.Type == "TOPIC_RECORD" && r.str("name") == name {
			batch = r.Batch
		}
		if batch >= 0 && r.Batch == batch && (r.str("topicId") == id || r.Type == "CONFIG_RECORD" && r.num("resourceType", 0) == 2 && r.str("resourceName") == name) {
			end = r
		}
	}
	return end
}

// configSince: since when topic's config key has had a value for which
// ok holds, from the dump's ConfigRecords.
func configSince(recs []jsonRecord, topic, key string, ok func(v any) bool) (jsonRecord, bool) {
	return finalRun(recs, func(r jsonRecord) (bool, bool) {
		if r.Type != "CONFIG_RECORD" || r.num("resourceType", 0) != 2 || r.str("resourceName") != topic || r.str("name") != key {
			return false, false
		}
		return ok(r.Data["value"]), true
	})
}

// underReplicatedSince: since when partition p of topic id has had
// fewer in-sync replicas than replicas, following its PartitionRecord and
// PartitionChangeRecords (an absent isr or replicas field is unchanged).
func underReplicatedSince(recs []jsonRecord, id string, p int64) (jsonRecord, bool) {
	var replicas, isr int
	return finalRun(recs, func(r jsonRecord) (bool, bool) {
		if (r.Type != "PARTITION_RECORD" && r.Type != "PARTITION_CHANGE_RECORD") || r.str("topicId") != id || r.num("partitionId", -1) != p {
			return false, false
		}
		if v, ok := r.Data["replicas"].([]any); ok {
			replicas = len(v)
		}
		if v, ok := r.Data["isr"].([]any); ok {
			isr = len(v)
		}
		return isr < replicas, true
	})
}

// fencedSince: since when broker id has been fenced, following its
// registrations and registration changes.
func fencedSince(recs []jsonRecord, id int64) (jsonRecord, bool) {
	fenced := false
	return finalRun(recs, func(r jsonRecord) (bool, bool) {
		switch r.Type {
		case "REGISTER_BROKER_RECORD":
			if r.num("brokerId", -1) != id {
				return false, false
			}
			fenced = r.Data["fenced"] != false // true by default
		case "BROKER_REGISTRATION_CHANGE_RECORD":
			if r.num("brokerId", -1) != id {
				return false, false
			}
			switch r.num("fenced", 0) {
			case 1:
				fenced = true
			case -1:
				fenced = false
			}
		case "FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD":
			if r.num("id", -1) != id {
				return false, false
			}
			fenced = r.Type == "FENCE_BROKER_RECORD"
		default:
			return false, false
		}
		return fenced, true
	})
}

// historySteps makes the history tests' conditions with Kafka's own
// tools, run as a shell would, and notes each change's wall-clock window
// (to the millisecond, as batch times are).
type historySteps struct {
	t       *testing.T
	sh      *kafkatest.Shell
	bs      string
	windows map[string][2]time.Time
}

// batchEarly is how much earlier than the change that wrote it a KRaft
// record's batch time may be. The controller's raft BatchAccumulator
// stamps a batch with the clock when it opens it, and it opens the next
// one as soon as it drains one: a record goes into a batch stamped when
// the batch before it was written. With metadata.max.idle.interval.ms at
// Kafka's default (500 ms, which these tests' clusters keep) a NoOp batch
// is written at least that often (make test, 2026-12-07: broker 3's
// controlled shutdown in a batch stamped 14 ms before the test stopped it).
const batchEarly = 500 * time.Millisecond

// inKRaftWindow says whether batch time bt can belong to a change made
// within win.
func inKRaftWindow(bt time.Time, win [2]time.Time) bool {
	return !bt.Before(win[0].Add(-batchEarly)) && !bt.After(win[1])
}

func newHistorySteps(t *testing.T, d *kafkatest.Distribution, bs string) *historySteps {
	return &historySteps{t: t, sh: d.Shell(t), bs: bs, windows: map[string][2]time.Time{}}
}

func (h *historySteps) step(name string, cmdlines ...string) {
	h.t.Helper()
	start := time.Now().Truncate(time.Millisecond)
	for _, cl := range cmdlines {
		h.sh.OK(cl)
	}
	h.windows[name] = [2]time.Time{start, time.Now()}
}

func (h *historySteps) alter(topic, what string) string {
	return "kafka-configs " + h.bs + " --alter --entity-type topics --entity-name " + topic + " " + what
}

func (h *historySteps) create(topic string, parts, rf int) string {
	return fmt.Sprintf("kafka-topics %s --create --topic %s --partitions %d --replication-factor %d", h.bs, topic, parts, rf)
}

// TestLintHistoryOnRealKafka: a Kafka 4.4.0 cluster (a controller, three
// brokers) is put into lint's conditions with Kafka's own tools, one
// change at a time, each inside a wall-clock window the test notes: a
// topic of replication factor 1, min.insync.replicas set to the
// replication factor, unclean election enabled, the same min ISR
// condition set, removed and set again, and a broker stopped so that a
// topic's partitions go under-replicated and the broker fenced. kmeta
// lint --history on the controller's metadata log dir names for each
// finding the record since which it has held; the test finds that record
// on its own in `kmeta log dump -o json` of the same log (following each
// entity's records: ISR against replicas, a config's values, a broker's
// fencing) and checks the offset, the record type, the batch time, and
// that the batch time falls in the window of the test's change. The
// condition that came back holds since its second appearance.
func TestLintHistoryOnRealKafka(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 1, Brokers: 3})
	ctl := c.Controllers()[0]
	addr := fmt.Sprintf("127.0.0.1:%d", c.Node(1).PlainPort)
	bs := "--bootstrap-server " + addr
	h := newHistorySteps(t, d, bs)
	windows, step, alter, create := h.windows, h.step, h.alter, h.create

	step("rf1", create("rf1", 1, 1))
	step("rf2", create("rf2", 1, 2))
	step("minisr", alter("rf2", "--add-config min.insync.replicas=2"))
	step("unclean-topic", create("unclean", 1, 3))
	step("unclean", alter("unclean", "--add-config unclean.leader.election.enable=true"))
	step("again-topic", create("again", 1, 2))
	step("again-first", alter("again", "--add-config min.insync.replicas=2"))
	step("again-fixed", alter("again", "--delete-config min.insync.replicas"))
	step("again", alter("again", "--add-config min.insync.replicas=2"))
	step("urp-topic", create("urp", 3, 3))
	start := time.Now().Truncate(time.Millisecond)
	c.StopNode(3)
	// The stop's changes are the controller's, made once it sees the
	// broker go: the window ends when the test has seen them (below),
	// not when the process ended.

	src := "kraft:" + c.MetadataLogDir(ctl)
	// The controller fences the broker as its controlled shutdown ends;
	// wait until the log says so.
	var got map[string]historyFinding
	deadline := time.Now().Add(60 * time.Second)
	for {
		got = lintHistory(t, src)
		if _, ok := got["broker-fenced broker 3"]; ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker 3 not fenced in the log after 60 s; findings: %v", slices.Sorted(maps.Keys(got)))
		}
		time.Sleep(time.Second)
	}
	windows["stop"] = [2]time.Time{start, time.Now()}
	recs := dumpedSegments(t, filepath.Join(c.MetadataLogDir(ctl), "__cluster_metadata-0"))

	type want struct {
		key, window string
		rec         jsonRecord
		ok          bool
	}
	var wants []want
	add := func(key, window string, rec jsonRecord, ok bool) {
		wants = append(wants, want{key, window, rec, ok})
	}
	add("replication-factor-one topic rf1", "rf1", creationEnd(t, recs, "rf1"), true)
	add("replication-factor-below-3 topic rf2", "rf2", creationEnd(t, recs, "rf2"), true)
	minISR2 := func(v any) bool { return v == "2" }
	r, ok := configSince(recs, "rf2", "min.insync.replicas", minISR2)
	add("min-isr-not-below-rf topic rf2", "minisr", r, ok)
	r, ok = configSince(recs, "unclean", "unclean.leader.election.enable", func(v any) bool { return v == "true" })
	add("unclean-leader-election-enabled config TOPIC unclean", "unclean", r, ok)
	again, ok := configSince(recs, "again", "min.insync.replicas", minISR2)
	add("min-isr-not-below-rf topic again", "again", again, ok)
	urp := topicID(t, recs, "urp")
	for p := int64(0); p < 3; p++ {
		r, ok := underReplicatedSince(recs, urp, p)
		add(fmt.Sprintf("partition-under-replicated partition urp-%d", p), "stop", r, ok)
	}
	r, ok = fencedSince(recs, 3)
	add("broker-fenced broker 3", "stop", r, ok)

	for _, w := range wants {
		if !w.ok {
			t.Errorf("%s: the log dump does not show the condition holding at the end", w.key)
			continue
		}
		f, found := got[w.key]
		win := windows[w.window]
		bt := time.UnixMilli(w.rec.Time)
		switch {
		case !found:
			t.Errorf("no finding %s", w.key)
		case f.Since == nil:
			t.Errorf("%s: no since", w.key)
		case f.Since.Offset != w.rec.Last || f.Since.RecordOffset != w.rec.Offset || strings.ToUpper(recordSnake(f.Since.Record)) != w.rec.Type || !f.Since.Time.Equal(bt):
			t.Errorf("%s: since offset %d (%s at offset %d, %s); the log dump's record is offset %d (%s, batch %d-%d, batch time %s)",
				w.key, f.Since.Offset, f.Since.Record, f.Since.RecordOffset, f.Since.Time, w.rec.Offset, w.rec.Type, w.rec.Batch, w.rec.Last, bt.UTC())
		case !inKRaftWindow(bt, win):
			t.Errorf("%s: batch time %s is outside the change's window [%s, %s] (less %s)", w.key, bt.UTC(), win[0].UTC(), win[1].UTC(), batchEarly)
		default:
			t.Logf("%-52s since offset %5d %-32s %s", w.key, f.Since.Offset, f.Since.Record, f.Since.Time.Format(time.RFC3339Nano))
		}
	}
	// The condition set, removed and set again holds since its second
	// setting, a later record than the first.
	var firstSet int64 = -1
	for _, r := range recs {
		if r.Type == "CONFIG_RECORD" && r.str("resourceName") == "again" && r.str("name") == "min.insync.replicas" {
			firstSet = r.Offset
			break
		}
	}
	if f := got["min-isr-not-below-rf topic again"]; f.Since == nil || firstSet < 0 || f.Since.Offset <= firstSet {
		t.Errorf("again: holds since %+v; first set at offset %d", f.Since, firstSet)
	}
}

// recordSnake turns a record name (PartitionChangeRecord) into log
// dump's type (PARTITION_CHANGE_RECORD), upper-cased by the caller.
func recordSnake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// zkStat is a znode's stat as ZooKeeper's own shell prints it.
type zkStat struct {
	czxid, mzxid, pzxid int64
	mtime               time.Time
	version             int
}

// zkShellStat asks ZooKeeper for path's stat with its own client
// (zookeeper-shell's class, from Kafka 3.9's classpath): the oracle of
// the ZooKeeper history test, apart from kmeta's readers.
func zkShellStat(t *testing.T, d *kafkatest.Distribution, zk *kafkatest.ZooKeeper, path string) zkStat {
	t.Helper()
	out := d.MustRun(t, "org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka", "-server", zk.Addr(), "stat", path)
	var st zkStat
	seen := 0
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(l, " = ")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		var err error
		switch k {
		case "cZxid":
			st.czxid, err = strconv.ParseInt(v, 0, 64)
		case "mZxid":
			st.mzxid, err = strconv.ParseInt(v, 0, 64)
		case "pZxid":
			st.pzxid, err = strconv.ParseInt(v, 0, 64)
		case "mtime":
			st.mtime, err = time.Parse("Mon Jan 02 15:04:05 MST 2006", v)
		case "dataVersion":
			st.version, err = strconv.Atoi(v)
		default:
			continue
		}
		if err != nil {
			t.Fatalf("stat %s: %s: %v\n%s", path, l, err, out)
		}
		seen++
	}
	if seen != 5 {
		t.Fatalf("stat %s: not a stat:\n%s", path, out)
	}
	return st
}

// TestLintHistoryOnRealZooKeeper: a Kafka 3.9.2 cluster in ZooKeeper
// mode (three brokers under the chroot /kafka) is put into lint's
// conditions with Kafka's own tools, as TestLintHistoryOnRealKafka does
// on KRaft, plus a topic whose only replica is on the broker stopped.
// kmeta lint --history on ZooKeeper's data dir (snapshot.0, the empty
// tree, and the transaction log: the chroot appears in a transaction)
// names for each finding the transaction since which it has held and the
// znode whose change made it so; ZooKeeper's own shell, asked on the
// live ensemble, gives that znode's czxid (a topic created), mzxid (a
// config or partition state set) or, for a broker's registration gone,
// the pzxid of /brokers/ids (its last child change); the zxids must be
// the same, the transaction time the znode's mtime (to the second the
// shell prints) and inside the wall-clock window of the test's change.
// The condition set, removed and set again holds since its last setting
// (the config znode's mzxid, at data version 3).
func TestLintHistoryOnRealZooKeeper(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	c := kafkatest.StartZKCluster(t, d, zk, kafkatest.ZKClusterOptions{Brokers: 3, Chroot: "/kafka"})
	addr := fmt.Sprintf("127.0.0.1:%d", c.Node(1).PlainPort)
	bs := "--bootstrap-server " + addr
	h := newHistorySteps(t, d, bs)
	windows, step, alter, create := h.windows, h.step, h.alter, h.create
	step("rf1", create("rf1", 1, 1))
	step("rf2", create("rf2", 1, 2))
	step("minisr", alter("rf2", "--add-config min.insync.replicas=2"))
	step("unclean-topic", create("unclean", 1, 3))
	step("unclean", alter("unclean", "--add-config unclean.leader.election.enable=true"))
	step("again-topic", create("again", 1, 2))
	step("again-first", alter("again", "--add-config min.insync.replicas=2"))
	step("again-fixed", alter("again", "--delete-config min.insync.replicas"))
	step("again", alter("again", "--add-config min.insync.replicas=2"))
	step("gone", create("gone", 1, 1), "kafka-topics "+bs+" --delete --topic gone")
	step("urp-topic", create("urp", 3, 3), "kafka-topics "+bs+" --create --topic single --replica-assignment 3")
	start := time.Now().Truncate(time.Millisecond)
	c.StopNode(3)
	// The stop's changes are the controller's, made once it sees the
	// broker go: the window ends when the test has seen them (below),
	// not when the process ended.

	src := "zkdata:" + zk.DataDir
	down := []string{"partition-offline partition single-0", "replicas-all-unavailable partition single-0",
		"partition-under-replicated partition urp-0", "partition-under-replicated partition urp-1", "partition-under-replicated partition urp-2"}
	var got map[string]historyFinding
	deadline := time.Now().Add(60 * time.Second)
	for {
		got = lintHistory(t, src)
		if !slices.ContainsFunc(down, func(k string) bool { _, ok := got[k]; return !ok }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker 3's partitions not down in the data dir after 60 s; findings: %v", slices.Sorted(maps.Keys(got)))
		}
		time.Sleep(time.Second)
	}
	windows["stop"] = [2]time.Time{start, time.Now()}

	type want struct {
		key, window, znode, record string
		zxid                       func(zkStat) int64
		mtime                      bool // the znode's mtime is the transaction's time
	}
	czxid := func(s zkStat) int64 { return s.czxid }
	mzxid := func(s zkStat) int64 { return s.mzxid }
	pzxid := func(s zkStat) int64 { return s.pzxid }
	wants := []want{
		{"replication-factor-one topic rf1", "rf1", "/brokers/topics/rf1", "create", czxid, true},
		{"replication-factor-below-3 topic rf2", "rf2", "/brokers/topics/rf2", "create", czxid, true},
		{"min-isr-not-below-rf topic rf2", "minisr", "/config/topics/rf2", "setData", mzxid, true},
		{"unclean-leader-election-enabled config TOPIC unclean", "unclean", "/config/topics/unclean", "setData", mzxid, true},
		{"min-isr-not-below-rf topic again", "again", "/config/topics/again", "setData", mzxid, true},
		{"partition-offline partition single-0", "stop", "/brokers/topics/single/partitions/0/state", "setData", mzxid, true},
		// The registration is gone: its parent's pzxid is the zxid of
		// its last child change, the registration's end.
		{"replicas-all-unavailable partition single-0", "stop", "/brokers/ids/3", "closeSession", nil, false},
	}
	for p := range 3 {
		wants = append(wants, want{fmt.Sprintf("partition-under-replicated partition urp-%d", p), "stop",
			fmt.Sprintf("/brokers/topics/urp/partitions/%d/state", p), "setData", mzxid, true})
	}
	for _, w := range wants {
		f, found := got[w.key]
		if !found || f.Since == nil {
			t.Errorf("%s: no finding or no since: %+v", w.key, f)
			continue
		}
		var st zkStat
		var zxid int64
		if w.zxid != nil {
			st = zkShellStat(t, d, zk, "/kafka"+w.znode)
			zxid = w.zxid(st)
		} else {
			st = zkShellStat(t, d, zk, "/kafka/brokers/ids")
			zxid = pzxid(st)
		}
		win := windows[w.window]
		s := f.Since
		switch {
		case s.Zxid != zxid || s.Offset != zxid || s.Znode != w.znode || s.Record != w.record:
			t.Errorf("%s: since zxid %#x (offset %d) %s %s; ZooKeeper's stat gives %#x for %s, %s wanted", w.key, s.Zxid, s.Offset, s.Record, s.Znode, zxid, w.znode, w.record)
		case s.Time.Before(win[0]) || s.Time.After(win[1]):
			t.Errorf("%s: transaction time %s is outside the change's window [%s, %s]", w.key, s.Time, win[0].UTC(), win[1].UTC())
		case w.mtime && !s.Time.Truncate(time.Second).Equal(st.mtime):
			t.Errorf("%s: transaction time %s, ZooKeeper's mtime of %s is %s", w.key, s.Time, w.znode, st.mtime.UTC())
		default:
			t.Logf("%-44s since zxid %#x %-12s %-42s %s", w.key, s.Zxid, s.Record, s.Znode, s.Time.Format(time.RFC3339Nano))
		}
	}
	// Set, removed and set again: three writes after the create.
	if st := zkShellStat(t, d, zk, "/kafka/config/topics/again"); st.version != 3 {
		t.Errorf("/config/topics/again: data version %d, want 3 (set, removed, set again)", st.version)
	}
	// The topic created and deleted left nothing behind.
	for k := range got {
		if strings.HasSuffix(k, " gone") || strings.Contains(k, " gone-") {
			t.Errorf("finding of the deleted topic: %s", k)
		}
	}
	// At every zxid of the data dir from the creation of Kafka's znodes
	// to broker 3's end, the history holds every finding a
	// plain lint of that point reports (each has a since, at or before
	// the point): the replay's image never lags the tree.
	ids := zkShellStat(t, d, zk, "/kafka/brokers/ids")
	for z := ids.czxid; z <= ids.pzxid; z++ {
		at := src + "@zxid=" + strconv.FormatInt(z, 10)
		for k, f := range lintHistory(t, at) {
			if f.Since == nil || f.Since.Zxid > z {
				t.Errorf("@zxid=%#x: %s since %+v", z, k, f.Since)
			}
		}
	}
}
