package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// historyFinding is a finding of lint --history -o json.
type historyFinding struct {
	Code   string `json:"code"`
	Entity string `json:"entity"`
	Since  *struct {
		Offset       int64     `json:"offset"`
		RecordOffset int64     `json:"recordOffset"`
		Time         time.Time `json:"time"`
		Record       string    `json:"record"`
		Zxid         int64     `json:"zxid"`
		Znode        string    `json:"znode"`
	} `json:"since"`
}

func lintHistory(t *testing.T, src string) map[string]historyFinding {
	t.Helper()
	code, out, stderr := runKmeta(t, "lint", "--history", "-o", "json", src)
	if code == exitFailure {
		t.Fatalf("lint --history: exit %d: %s", code, stderr)
	}
	var doc struct {
		Findings []historyFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]historyFinding{}
	for _, f := range doc.Findings {
		got[f.Code+" "+f.Entity] = f
	}
	return got
}

// dumpRecord is a record as kmeta log dump prints it, with its batch's
// first and last offsets (a segment's; a snapshot's records restart at
// 0).
type dumpRecord struct {
	Offset     int64
	Time       int64
	Type       string
	Data       map[string]any
	Base, Last int64
}

var (
	dumpLine      = regexp.MustCompile(`^\| offset: (\d+) CreateTime: (\d+) .* payload: (\{.*\})$`)
	dumpBatchLine = regexp.MustCompile(`^baseOffset: (\d+) lastOffset: (\d+) `)
)

// dumpedRecords reads src's records back with kmeta log dump (Kafka's
// DumpLogSegments format), the oracle the history's offsets are checked
// against.
func dumpedRecords(t *testing.T, src string) []dumpRecord {
	t.Helper()
	code, out, stderr := runKmeta(t, "log", "dump", src)
	if code != 0 {
		t.Fatalf("log dump: exit %d: %s", code, stderr)
	}
	var recs []dumpRecord
	var base, last int64
	for _, l := range strings.Split(out, "\n") {
		if b := dumpBatchLine.FindStringSubmatch(l); b != nil {
			base, _ = strconv.ParseInt(b[1], 10, 64)
			last, _ = strconv.ParseInt(b[2], 10, 64)
			continue
		}
		m := dumpLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var p struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(m[3]), &p); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		off, _ := strconv.ParseInt(m[1], 10, 64)
		ts, _ := strconv.ParseInt(m[2], 10, 64)
		recs = append(recs, dumpRecord{off, ts, p.Type, p.Data, base, last})
	}
	if len(recs) == 0 {
		t.Fatalf("log dump printed no records:\n%s", out)
	}
	return recs
}

// lastDumped is the last record of type typ whose data has every field of
// want (compared as printed).
func lastDumped(t *testing.T, recs []dumpRecord, typ string, want map[string]string) dumpRecord {
	t.Helper()
	var hit *dumpRecord
	for i, r := range recs {
		if r.Type != typ {
			continue
		}
		ok := true
		for k, v := range want {
			b, _ := json.Marshal(r.Data[k])
			ok = ok && string(b) == v
		}
		if ok {
			hit = &recs[i]
		}
	}
	if hit == nil {
		t.Fatalf("log dump has no %s with %v", typ, want)
	}
	return *hit
}

// checkSince: the finding holds since the end of want's batch (the point
// at which Kafka publishes its state), made so by want, a record of type
// record.
func checkSince(t *testing.T, got map[string]historyFinding, key string, want dumpRecord, record string) {
	t.Helper()
	f, ok := got[key]
	switch {
	case !ok:
		t.Errorf("no finding %s", key)
	case f.Since == nil:
		t.Errorf("%s: no since", key)
	case f.Since.Offset != want.Last || f.Since.RecordOffset != want.Offset || f.Since.Record != record || !f.Since.Time.Equal(time.UnixMilli(want.Time)):
		t.Errorf("%s: since %+v, want offset %d (its batch's end), record offset %d, time %s, %s", key, *f.Since, want.Last, want.Offset, time.UnixMilli(want.Time).UTC(), record)
	}
}

// TestLintHistory writes a small log with metalog's writer: three
// brokers, a topic of RF 3; later partition 0's ISR shrinks (and a
// second change keeps it shrunk), min.insync.replicas is set to 3 (and
// an unrelated config follows), partition 1 goes under-replicated,
// recovers and goes under-replicated again. --history names the record
// of each condition, found in kmeta log dump's output: a finding holds
// since the record that made it so, not since a later one that kept it,
// and one that came back since its last appearance.
func TestLintHistory(t *testing.T) {
	dir, batch, isr, commit := ordersLog(t)
	config := func(key, value string) *records.ConfigRecord {
		return &records.ConfigRecord{ResourceType: int8(model.ConfigTopic), ResourceName: "orders", Name: key, Value: &value}
	}
	batch(isr(0, 1, 2)) // partition 0 under-replicated
	batch(config("min.insync.replicas", "3"))
	batch(isr(1, 1, 2))                  // partition 1 under-replicated...
	batch(isr(0, 2, 1), isr(1, 1, 2, 3)) // ... partition 0 stays so, 1 recovers...
	batch(config("retention.ms", "1000"))
	batch(isr(1, 1, 3)) // ... and goes under-replicated again
	commit()

	recs := dumpedRecords(t, dir)
	got := lintHistory(t, "kraft:"+dir)
	checkSince(t, got, "partition-under-replicated partition orders-0",
		lastDumped(t, recs, "PARTITION_CHANGE_RECORD", map[string]string{"partitionId": "0", "isr": "[1,2]"}), "PartitionChangeRecord")
	checkSince(t, got, "min-isr-not-below-rf topic orders",
		lastDumped(t, recs, "CONFIG_RECORD", map[string]string{"name": `"min.insync.replicas"`}), "ConfigRecord")
	checkSince(t, got, "partition-under-replicated partition orders-1",
		lastDumped(t, recs, "PARTITION_CHANGE_RECORD", map[string]string{"partitionId": "1", "isr": "[1,3]"}), "PartitionChangeRecord")
	// A topic config re-evaluates the topic's partitions: orders-0, two
	// in its ISR, is under min ISR since min.insync.replicas=3.
	checkSince(t, got, "partition-under-min-isr partition orders-0",
		lastDumped(t, recs, "CONFIG_RECORD", map[string]string{"name": `"min.insync.replicas"`}), "ConfigRecord")
	if f, ok := got["partition-under-replicated partition orders-1"]; ok && f.Since != nil {
		first := lastDumped(t, recs, "PARTITION_CHANGE_RECORD", map[string]string{"partitionId": "1", "isr": "[1,2]"})
		if f.Since.Offset <= first.Offset {
			t.Errorf("orders-1 holds since %d, its first appearance (it cleared after it)", f.Since.Offset)
		}
	}

	// --history at an earlier offset: partition 1's first appearance.
	first := lastDumped(t, recs, "PARTITION_CHANGE_RECORD", map[string]string{"partitionId": "1", "isr": "[1,2]"})
	early := lintHistory(t, "kraft:"+dir+"@offset="+strconv.FormatInt(first.Offset, 10))
	checkSince(t, early, "partition-under-replicated partition orders-1", first, "PartitionChangeRecord")

	// Text and table name the offsets too.
	if code, out, _ := runKmeta(t, "lint", "--history", dir); code != 1 || !strings.Contains(out, "since offset ") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	if code, out, _ := runKmeta(t, "lint", "--history", "-o", "table", dir); code != 1 || !strings.Contains(out, "SINCE OFFSET") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
}

// TestLintHistoryFixture: on the committed 4.4.0 fixture (a stopped
// cluster), broker 2 has been fenced since the BrokerRegistrationChange
// that fenced it, as kmeta log dump reads it; every finding has a since.
func TestLintHistoryFixture(t *testing.T) {
	got := lintHistory(t, fixture44)
	recs := dumpedRecords(t, fixture44)
	checkSince(t, got, "broker-fenced broker 2",
		lastDumped(t, recs, "BROKER_REGISTRATION_CHANGE_RECORD", map[string]string{"brokerId": "2", "fenced": "1"}), "BrokerRegistrationChangeRecord")
	for k, f := range got {
		if f.Since == nil {
			t.Errorf("%s: no since", k)
		}
	}
}

// TestLintHistorySinceInTransactions: a batch that opens a metadata
// transaction publishes its records before the BeginTransactionRecord
// just before it (Kafka's loader publishes there; the batch's end is
// inside the transaction), and a transaction's records are published at
// the end of the batch that holds its End. since.offset is that point
// for each, accepted by image --at-offset, with the finding there and
// not at the point before.
func TestLintHistorySinceInTransactions(t *testing.T) {
	dir, batch, isr, commit := ordersLog(t)                              // 0-2 the brokers, 3-5 the topic
	batch(isr(0, 1, 2), &records.BeginTransactionRecord{}, isr(1, 1, 3)) // 6-8: orders-0 at 6, published at 6
	retention := "1000"
	batch(&records.EndTransactionRecord{}, &records.ConfigRecord{ResourceType: int8(model.ConfigTopic), ResourceName: "orders", Name: "retention.ms", Value: &retention}) // 9-10
	batch(isr(0, 1, 2, 3))                                                                                                                                                // 11: a later batch, so 10 is a point
	commit()
	got := lintHistory(t, "kraft:"+dir)
	for key, want := range map[string][2]int64{
		// {since.offset, since.recordOffset}
		"partition-under-replicated partition orders-1": {10, 8},
	} {
		f := got[key]
		if f.Since == nil || f.Since.Offset != want[0] || f.Since.RecordOffset != want[1] {
			t.Errorf("%s: since %+v, want offset %d, record offset %d", key, f.Since, want[0], want[1])
		}
	}
	// Text names the point, and the record at its own offset.
	_, out, _ := runKmeta(t, "lint", "--history", "kraft:"+dir)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "since ") {
			lines = append(lines, l)
		}
	}
	if want := []string{
		"since offset 10 (2026-01-01T00:03:00Z, PartitionChangeRecord at offset 8): partition-under-replicated partition orders-1",
		"since offset 5 (2026-01-01T00:02:00Z, PartitionRecord): min-isr-one topic orders",
	}; !slices.Equal(lines, want) {
		t.Errorf("text:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// orders-0 was under-replicated from 6 (published at 6, before the
	// Begin) until 11: its history at 10 says since 6.
	early := lintHistory(t, "kraft:"+dir+"@offset=10")
	if f := early["partition-under-replicated partition orders-0"]; f.Since == nil || f.Since.Offset != 6 || f.Since.RecordOffset != 6 {
		t.Errorf("orders-0 at 10: since %+v, want offset 6 (before the transaction's Begin at 7), record offset 6", f.Since)
	}
	for _, c := range []struct {
		key           string
		point, before int64
	}{
		{"partition-under-replicated partition orders-0", 6, 5},
		// A transaction's point before is before its Begin (metalog's
		// Replayer.PointBefore).
		{"partition-under-replicated partition orders-1", 10, 6},
	} {
		if code, _, stderr := runKmeta(t, "image", "--at-offset", strconv.FormatInt(c.point, 10), dir); code != 0 {
			t.Errorf("image --at-offset %d: exit %d: %s", c.point, code, stderr)
		}
		if _, ok := lintHistory(t, "kraft:"+dir+"@offset="+strconv.FormatInt(c.point, 10))[c.key]; !ok {
			t.Errorf("%s: not at %d", c.key, c.point)
		}
		if _, ok := lintHistory(t, "kraft:"+dir+"@offset="+strconv.FormatInt(c.before, 10))[c.key]; ok {
			t.Errorf("%s: already at %d", c.key, c.before)
		}
	}
}

// TestLintHistorySinceIsAPoint: on the committed 4.4.0 fixture, each
// finding's since.offset is a point kmeta accepts (image --at-offset
// exits 0) whose image holds the finding (lint there reports it): the
// end of the batch that holds since.recordOffset, as log dump shows the
// batches. The point before that batch (its first offset less one) does
// not hold it, where the replay saw it appear (after the snapshot it
// starts from). Where the record is not its batch's last, the record's
// own offset, which since.offset was before, is refused: it is inside a
// batch, a state the cluster never had.
func TestLintHistorySinceIsAPoint(t *testing.T) {
	got := lintHistory(t, fixture44)
	recs := dumpedRecords(t, fixture44)
	// The replay starts at the newest snapshot, whose records are at its
	// end offset less one (the point a snapshot is).
	code, out, _ := runKmeta(t, "log", "dump", fixture44)
	if code != 0 {
		t.Fatalf("log dump: exit %d", code)
	}
	var start int64 = -1
	for _, m := range regexp.MustCompile(`(?m)^Snapshot end offset: (\d+),`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		start = max(start, n-1)
	}
	batchOf := func(off int64) (dumpRecord, bool) {
		for _, r := range recs {
			if r.Offset == off && r.Base <= off && off <= r.Last && r.Last >= start {
				return r, true
			}
		}
		return dumpRecord{}, false
	}
	at := map[int64]map[string]historyFinding{}
	findingsAt := func(point int64) map[string]historyFinding {
		if at[point] == nil {
			if code, _, stderr := runKmeta(t, "image", "--at-offset", strconv.FormatInt(point, 10), "-o", "json", fixture44); code != 0 {
				t.Fatalf("image --at-offset %d: exit %d: %s", point, code, stderr)
			}
			at[point] = lintHistory(t, fixture44+"@offset="+strconv.FormatInt(point, 10))
		}
		return at[point]
	}
	checked, before, refused := 0, 0, 0
	for _, key := range slices.Sorted(maps.Keys(got)) {
		s := got[key].Since
		if s == nil {
			t.Errorf("%s: no since", key)
			continue
		}
		if s.RecordOffset == start {
			// Held since the snapshot: the replay starts there.
			if s.Offset != start {
				t.Errorf("%s: since %+v, want offset %d (the snapshot)", key, *s, start)
			}
			continue
		}
		b, ok := batchOf(s.RecordOffset)
		if !ok {
			t.Errorf("%s: record offset %d is in no batch log dump shows", key, s.RecordOffset)
			continue
		}
		if s.Offset != b.Last {
			t.Errorf("%s: since offset %d, want %d, the end of the batch %d-%d holding its record", key, s.Offset, b.Last, b.Base, b.Last)
			continue
		}
		if _, ok := findingsAt(s.Offset)[key]; !ok {
			t.Errorf("%s: not at its since offset %d", key, s.Offset)
		}
		checked++
		if b.Base-1 >= start {
			if _, ok := findingsAt(b.Base - 1)[key]; ok {
				t.Errorf("%s: already at %d, the point before its batch %d-%d", key, b.Base-1, b.Base, b.Last)
			}
			before++
		}
		if s.RecordOffset != s.Offset {
			code, _, stderr := runKmeta(t, "image", "--at-offset", strconv.FormatInt(s.RecordOffset, 10), fixture44)
			if code != exitFailure || !strings.Contains(stderr, fmt.Sprintf("offset %d is inside the batch of offsets %d-%d", s.RecordOffset, b.Base, b.Last)) {
				t.Errorf("%s: image --at-offset %d (its record, inside the batch): exit %d: %s", key, s.RecordOffset, code, stderr)
			}
			refused++
		}
	}
	// The fixture's stop fences brokers and takes partitions offline in
	// batches of several records: most findings are of those.
	t.Logf("checked %d, before %d, refused %d", checked, before, refused)
	if checked < 20 || before < 20 || refused < 10 {
		t.Errorf("checked %d findings at their point, %d at the point before, %d record offsets refused", checked, before, refused)
	}
}

// --history refuses sources that hold no history (a dump, several data
// dirs): exit 2, saying why.
func TestLintHistoryRefusesNoHistory(t *testing.T) {
	dir := filepath.Join(zkFixture, "datadir")
	for _, src := range []string{"zkdump:" + filepath.Join(zkFixture, "dump.json"), "zkdata:" + dir + "," + dir} {
		code, _, stderr := runKmeta(t, "lint", "--history", src)
		if code != exitFailure || !strings.Contains(stderr, "holds no history") {
			t.Errorf("%s: exit %d: %s", src, code, stderr)
		}
	}
}

// TestLintHistoryZooKeeperFixture: on the committed ZooKeeper data dir
// (written by a real ZooKeeper under Kafka 3.9.2, chroot /kafka/prod),
// each finding holds since a transaction and names its znode; the zxid
// is the znode's czxid (a topic or a pending deletion created) or mzxid
// (a partition state set) as kmeta zk dump reads the data dir's stats,
// and the time its ctime or mtime. With @zxid, the history of an earlier
// point.
func TestLintHistoryZooKeeperFixture(t *testing.T) {
	dir := filepath.Join(zkFixture, "datadir")
	code, out, stderr := runKmeta(t, "zk", "dump", "zkdata:"+dir)
	if code != 0 {
		t.Fatalf("zk dump: exit %d: %s", code, stderr)
	}
	var dump struct {
		Znodes []struct {
			Path string `json:"path"`
			Stat struct {
				Czxid int64 `json:"czxid"`
				Mzxid int64 `json:"mzxid"`
				Ctime int64 `json:"ctime"`
				Mtime int64 `json:"mtime"`
			} `json:"stat"`
		} `json:"znodes"`
	}
	if err := json.Unmarshal([]byte(out), &dump); err != nil {
		t.Fatal(err)
	}
	type stat struct{ zxid, ms int64 }
	created, set := map[string]stat{}, map[string]stat{}
	for _, z := range dump.Znodes {
		created[z.Path] = stat{z.Stat.Czxid, z.Stat.Ctime}
		set[z.Path] = stat{z.Stat.Mzxid, z.Stat.Mtime}
	}
	got := lintHistory(t, "zkdata:"+dir)
	for _, c := range []struct {
		key, znode, record string
		want               map[string]stat
	}{
		{"replication-factor-one topic user_events", "/brokers/topics/user_events", "create", created},
		{"replication-factor-below-3 topic orders.v1", "/brokers/topics/orders.v1", "create", created},
		{"topic-deletion-pending topic doomed", "/admin/delete_topics/doomed", "create", created},
		{"partition-under-replicated partition orders.v1-1", "/brokers/topics/orders.v1/partitions/1/state", "setData", set},
		{"partition-offline partition doomed-0", "/brokers/topics/doomed/partitions/0/state", "setData", set},
	} {
		f, ok := got[c.key]
		w := c.want[c.znode]
		switch {
		case !ok || f.Since == nil:
			t.Errorf("%s: no finding or no since", c.key)
		case f.Since.Zxid != w.zxid || f.Since.Offset != w.zxid || f.Since.Znode != c.znode || f.Since.Record != c.record || !f.Since.Time.Equal(time.UnixMilli(w.ms)):
			t.Errorf("%s: since %+v; zk dump: %s zxid %#x at %s (%s)", c.key, *f.Since, c.znode, w.zxid, time.UnixMilli(w.ms).UTC(), c.record)
		}
	}
	for k, f := range got {
		if f.Since == nil || f.Since.Znode == "" || f.Since.Zxid == 0 {
			t.Errorf("%s: since %+v", k, f.Since)
		}
	}
	// As of the transaction before orders.v1-1's state was set, that
	// finding is not there; the others created earlier are, with the
	// same since.
	early := lintHistory(t, "zkdata:"+dir+"@zxid="+strconv.FormatInt(set["/brokers/topics/orders.v1/partitions/1/state"].zxid-1, 10))
	if _, ok := early["partition-under-replicated partition orders.v1-1"]; ok {
		t.Errorf("@zxid before its state was set: orders.v1-1 already under-replicated")
	}
	if f := early["replication-factor-one topic user_events"]; f.Since == nil || f.Since.Zxid != created["/brokers/topics/user_events"].zxid {
		t.Errorf("@zxid: user_events since %+v", f.Since)
	}
}

// Text and table name a ZooKeeper history by zxid, as ZooKeeper's own
// tools print it, with the znode the transaction changed.
func TestLintHistoryZooKeeperText(t *testing.T) {
	src := "zkdata:" + filepath.Join(zkFixture, "datadir")
	if code, out, _ := runKmeta(t, "lint", "--history", src); code != 1 || !strings.Contains(out, "since zxid 0x104 (") || !strings.Contains(out, "closeSession /brokers/ids/3): replicas-all-unavailable partition doomed-0") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, out, _ := runKmeta(t, "lint", "--history", "-o", "table", src); code != 1 || !strings.Contains(out, "zxid 0x104") {
		t.Fatalf("table: exit %d:\n%s", code, out)
	}
}

// ordersLog starts a KRaft log in a temporary dir: brokers 1-3
// registered (offsets 0-2), then topic orders with partitions 0 and 1 on
// all three, in sync, led by 1 (3-5). batch appends a batch a minute
// after the one before, isr makes an ISR change of an orders partition,
// and commit writes the segment.
func ordersLog(t *testing.T) (dir string, batch func(...records.Metadata), isr func(p int32, isr ...int32) *records.PartitionChangeRecord, commit func()) {
	t.Helper()
	dir = t.TempDir()
	w, err := metalog.CreateSegment(dir, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	topicID := model.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	ts := int64(1767225600000) // 2026-01-01T00:00:00Z
	batch = func(recs ...records.Metadata) {
		t.Helper()
		var vals [][]byte
		for _, r := range recs {
			b, err := records.EncodeMetadata(nil, r, 0)
			if err != nil {
				t.Fatal(err)
			}
			vals = append(vals, b)
		}
		ts += 60_000
		if err := w.AppendData(1, ts, vals); err != nil {
			t.Fatal(err)
		}
	}
	isr = func(p int32, isr ...int32) *records.PartitionChangeRecord {
		m := &records.PartitionChangeRecord{}
		m.SetDefaults()
		m.TopicId, m.PartitionId, m.Isr = topicID, p, isr
		return m
	}
	var brokers []records.Metadata
	for id := int32(1); id <= 3; id++ {
		b := &records.RegisterBrokerRecord{}
		b.SetDefaults()
		b.BrokerId, b.BrokerEpoch, b.Fenced = id, 10, false
		brokers = append(brokers, b)
	}
	batch(brokers...)
	parts := []records.Metadata{&records.TopicRecord{Name: "orders", TopicId: topicID}}
	for p := int32(0); p < 2; p++ {
		pr := &records.PartitionRecord{}
		pr.SetDefaults()
		pr.TopicId, pr.PartitionId, pr.Replicas, pr.Isr, pr.Leader = topicID, p, []int32{1, 2, 3}, []int32{1, 2, 3}, 1
		parts = append(parts, pr)
	}
	batch(parts...)
	commit = func() {
		t.Helper()
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	return dir, batch, isr, commit
}
