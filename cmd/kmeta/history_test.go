package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
)

// historyChange is one line of kmeta history -o json.
type historyChange struct {
	Offset *int64 `json:"offset"`
	Zxid   *int64 `json:"zxid"`
	// PointBefore (KRaft) is where a replay stops for the state without
	// the change.
	PointBefore *int64            `json:"pointBefore"`
	Time        string            `json:"time"`
	Record      string            `json:"record"`
	Znode       string            `json:"znode"`
	Kind        string            `json:"kind"`
	Entity      string            `json:"entity"`
	Action      string            `json:"action"`
	Before      map[string]string `json:"before"`
	After       map[string]string `json:"after"`
}

// pos is the change's offset or zxid.
func (c historyChange) pos() int64 {
	if c.Zxid != nil {
		return *c.Zxid
	}
	return *c.Offset
}

// historyJSON runs kmeta history -o json and reads its lines.
func historyJSON(t *testing.T, args ...string) []historyChange {
	t.Helper()
	r := kmeta(append([]string{"history", "-o", "json"}, args...)...)
	if r.code != exitOK {
		t.Fatalf("kmeta history %v: exit %d\n%s", args, r.code, r.stderr)
	}
	var out []historyChange
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if l == "" {
			continue
		}
		var c historyChange
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("history line %q: %v", l, err)
		}
		if (c.Offset == nil) == (c.Zxid == nil) || (c.Offset == nil) != (c.PointBefore == nil) {
			t.Fatalf("history line %q: want one of offset (with pointBefore) and zxid", l)
		}
		out = append(out, c)
	}
	return out
}

// netEntities is what the changes in (from, to] did to each entity, in
// the names kmeta diff gives them: an entity that changed and changed
// back is not there. Partitions and configs of topics created or
// deleted, and the topic's partition count, go with the topic, as diff
// rolls them up; features are diff's one "finalized features" entity;
// the quorum and controllers, which diff does not compare, are left
// out.
func netEntities(changes []historyChange, from, to int64) []string {
	type state struct {
		existed, exists bool
		first           map[string]*string // a field's value before the first change
		last            map[string]*string
	}
	net := map[string]*state{}
	var order []string
	for _, c := range changes {
		if c.pos() <= from || c.pos() > to || c.Kind == "quorum" || c.Kind == "controller" {
			continue
		}
		name := c.Entity
		if c.Kind == "feature" {
			name = "finalized features"
		}
		s := net[name]
		if s == nil {
			s = &state{existed: c.Action != "created", first: map[string]*string{}, last: map[string]*string{}}
			if c.Kind == "feature" {
				s.existed = true // one entity, always there
			}
			net[name] = s
			order = append(order, name)
		}
		s.exists = c.Action != "deleted" || c.Kind == "feature"
		fields := map[string]bool{}
		for k := range c.Before {
			fields[k] = true
		}
		for k := range c.After {
			fields[k] = true
		}
		for f := range fields {
			key := f
			if c.Kind == "feature" {
				key = strings.TrimPrefix(c.Entity, "feature ")
			}
			if _, seen := s.first[key]; !seen {
				if v, ok := c.Before[f]; ok {
					s.first[key] = &v
				} else {
					s.first[key] = nil
				}
			}
			if v, ok := c.After[f]; ok {
				s.last[key] = &v
			} else {
				s.last[key] = nil
			}
		}
	}
	gone := map[string]bool{} // topics created or deleted
	for name, s := range net {
		if t, ok := strings.CutPrefix(name, "topic "); ok && s.existed != s.exists {
			gone[t] = true
		}
	}
	netChanged := func(s *state, f string) bool {
		v, w := s.first[f], s.last[f]
		return (v == nil) != (w == nil) || v != nil && *v != *w
	}
	var out []string
	for _, name := range order {
		s := net[name]
		changed := s.existed != s.exists
		if !changed && s.exists {
			for f := range s.first {
				if strings.HasPrefix(name, "topic ") && f == "partitions" {
					continue // diff names the partitions
				}
				if netChanged(s, f) {
					changed = true
				}
			}
		}
		if !changed {
			continue
		}
		// A partition of a topic created or deleted goes with the topic,
		// except for what only ZooKeeper holds of it (a missing state
		// znode, a legacy reassignment), which diff's zookeeper class
		// names by partition.
		if p, ok := strings.CutPrefix(name, "partition "); ok && gone[p[:strings.LastIndexByte(p, '-')]] &&
			!netChanged(s, "stateZnodeMissing") && !netChanged(s, "legacyReassignment") {
			continue
		}
		if t, ok := strings.CutPrefix(name, "config TOPIC "); ok && gone[t] {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// diffEntities are the entities kmeta diff reports between two points.
func diffEntities(t *testing.T, a, b string) []string {
	t.Helper()
	code, out, stderr := runKmeta(t, "diff", "-o", "json", a, b)
	var rep verifyOutput
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("diff %s %s: exit %d, %v\n%s", a, b, code, err, stderr)
	}
	var got []string
	for _, f := range rep.Findings {
		// A comparison of two ZooKeeper views also compares the state
		// only ZooKeeper holds (its zookeeper class: pending deletions,
		// missing partition states, legacy reassignments): history
		// reports those as fields of the topic or partition too.
		if !slices.Contains(got, f.Entity) {
			got = append(got, f.Entity)
		}
	}
	sort.Strings(got)
	return got
}

// TestHistoryMatchesDiff: on the real fixture logs (written by Kafka
// 3.9.2 and 4.4.0) and the ZooKeeper data dir (Kafka 3.9.2's ZooKeeper),
// what kmeta history lists between two points, taken together, is what
// kmeta diff of the two points reports, entity for entity (diff is
// proven against Kafka's own replay in TestDiffMatchesKafkaReplay). And
// each KRaft change sits at the offset and batch time where kmeta log
// dump shows a record of its type.
func TestHistoryMatchesDiff(t *testing.T) {
	for _, v := range []string{"3.9.2", "4.4.0"} {
		t.Run(v, func(t *testing.T) {
			dir := filepath.Join("..", "..", "testdata", "kraft", v, "metadata")
			changes := historyJSON(t, "kraft:"+dir)
			if len(changes) < 50 {
				t.Fatalf("%d changes: the fixture holds more", len(changes))
			}
			dump := dumpedSegments(t, dir)
			byOffset := map[int64]jsonRecord{}
			for _, r := range dump {
				byOffset[r.Offset] = r
			}
			norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
			// The control records, as log dump and the record's schema
			// name them.
			control := map[string]string{"LEADER_CHANGE": "LeaderChangeMessage", "KRAFT_VERSION": "KRaftVersionRecord", "KRAFT_VOTERS": "VotersRecord"}
			for _, c := range changes {
				r, ok := byOffset[*c.Offset]
				if !ok {
					t.Errorf("change at offset %d (%s %s): log dump has no record there", *c.Offset, c.Record, c.Entity)
					continue
				}
				if norm(r.Type) != norm(c.Record) && control[r.Type] != c.Record {
					t.Errorf("offset %d: history says %s, log dump %s", *c.Offset, c.Record, r.Type)
				}
				if want := time.UnixMilli(r.Time).UTC().Format(time.RFC3339Nano); c.Time != want {
					t.Errorf("offset %d: history time %s, the batch's %s", *c.Offset, c.Time, want)
				}
			}
			ends := batchEnds(t, dir)
			// Each change's point before is a point (diff takes it), and
			// from there to the end of the change's batch diff sees what
			// history lists in between: the change among it.
			pairs := map[[2]int64]bool{}
			for _, c := range changes {
				if c.Kind == "quorum" || c.Kind == "controller" || *c.PointBefore < 0 {
					continue
				}
				k, _ := slices.BinarySearch(ends, *c.Offset)
				pair := [2]int64{*c.PointBefore, ends[k]}
				if pairs[pair] {
					continue
				}
				pairs[pair] = true
				want := diffEntities(t, fmt.Sprintf("kraft:%s@offset=%d", dir, pair[0]), fmt.Sprintf("kraft:%s@offset=%d", dir, pair[1]))
				if got := netEntities(changes, pair[0], pair[1]); len(want) == 0 || !slices.Equal(got, want) {
					t.Errorf("offset %d (%s), point before %d, batch end %d:\n history %q\n diff    %q", *c.Offset, c.Entity, pair[0], pair[1], got, want)
				}
			}
			t.Logf("%d changes' points before checked with diff", len(pairs))
			points := []int64{-1, ends[len(ends)/4], ends[len(ends)/2], ends[3*len(ends)/4], ends[len(ends)-1]}
			for i := 1; i+1 < len(points); i++ {
				a, b := points[i], points[i+1]
				want := diffEntities(t, fmt.Sprintf("kraft:%s@offset=%d", dir, a), fmt.Sprintf("kraft:%s@offset=%d", dir, b))
				got := netEntities(changes, a, b)
				if !slices.Equal(got, want) {
					t.Errorf("offsets %d→%d:\n history %q\n diff    %q", a, b, got, want)
				}
				t.Logf("offsets %d→%d: %d entities changed, as diff says", a, b, len(got))
			}
		})
	}
	t.Run("zookeeper", func(t *testing.T) {
		dir := filepath.Join(zkFixture, "datadir")
		changes := historyJSON(t, "zkdata:"+dir)
		var zxids []int64
		for _, c := range changes {
			if len(zxids) == 0 || zxids[len(zxids)-1] != *c.Zxid {
				zxids = append(zxids, *c.Zxid)
			}
		}
		if len(zxids) < 20 {
			t.Fatalf("%d transactions with changes: the fixture holds more", len(zxids))
		}
		points := []int64{zxids[0] - 1, zxids[len(zxids)/3], zxids[2*len(zxids)/3], zxids[len(zxids)-1]}
		for i := 0; i+1 < len(points); i++ {
			a, b := points[i], points[i+1]
			want := diffEntities(t, fmt.Sprintf("zkdata:%s@zxid=%d", dir, a), fmt.Sprintf("zkdata:%s@zxid=%d", dir, b))
			got := netEntities(changes, a, b)
			if !slices.Equal(got, want) {
				t.Errorf("zxids %#x→%#x:\n history %q\n diff    %q", a, b, got, want)
			}
			t.Logf("zxids %#x→%#x: %d entities changed, as diff says", a, b, len(got))
		}
		// Transaction by transaction, from the first change to the end
		// of the logs: each one's changes are what diff sees between
		// the zxid before it and its own, and a transaction history
		// passes over changes nothing diff compares (the controller's
		// write of a state znode, a topic marked for deletion, are
		// changes).
		last := int64(0x10c) // the newest snapshot's zxid: the logs end there
		var checked int
		for z := zxids[0]; z <= last; z++ {
			want := diffEntities(t, fmt.Sprintf("zkdata:%s@zxid=%d", dir, z-1), fmt.Sprintf("zkdata:%s@zxid=%d", dir, z))
			got := netEntities(changes, z-1, z)
			if !slices.Equal(got, want) {
				t.Errorf("zxid %#x:\n history %q\n diff    %q", z, got, want)
			}
			if len(want) > 0 {
				checked++
			}
		}
		// Diff does not compare the quorum (/controller).
		compared := map[int64]bool{}
		for _, c := range changes {
			if c.Kind != "quorum" {
				compared[*c.Zxid] = true
			}
		}
		if checked != len(compared) {
			t.Errorf("diff saw changes at %d transactions, history at %d", checked, len(compared))
		}
		t.Logf("%d transactions compared with diff one by one, %d with changes", last-zxids[0]+1, checked)
	})
}

// TestHistorySeveralDataDirs: several data dirs of one ensemble are one
// history, the newest's (here two copies of one dir).
func TestHistorySeveralDataDirs(t *testing.T) {
	dir := filepath.Join(zkFixture, "datadir")
	one := historyJSON(t, "zkdata:"+dir)
	two := historyJSON(t, "zkdata:"+dir+","+fstree.Copy(t, dir))
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if len(one) == 0 || js(one) != js(two) {
		t.Errorf("zkdata:A,B lists %d changes, zkdata:A %d", len(two), len(one))
	}
	// A source that holds no history is refused by name.
	if r := kmeta("history", "zkdump:"+filepath.Join(zkFixture, "dump.json")); r.code != exitFailure || !strings.Contains(r.stderr, "holds no history") {
		t.Errorf("history of a dump: exit %d: %s", r.code, r.stderr)
	}
}

// TestRestoreRefusesPartialViews: a point read from a damaged log (replay
// stopped at a bad CRC) is never planned from: what the damage hid would
// be "restored" away.
func TestRestoreRefusesPartialViews(t *testing.T) {
	dir := copyFixture(t, "4.4.0")
	seg := filepath.Join(dir, "__cluster_metadata-0", "00000000000000000086.log")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := kmeta("restore", "--to", "kraft:"+dir, "kraft:"+fixture44, "--print")
	if r.code != exitFindings || r.stdout != "" || !strings.Contains(r.stderr, "partial input") {
		t.Errorf("restore from a damaged log: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The intact log plans (the same log: nothing to do).
	if r := kmeta("restore", "--to", "kraft:"+fixture44, "kraft:"+fixture44, "--print"); r.code != exitOK || !strings.Contains(r.stdout, "nothing to restore") {
		t.Errorf("restore of a log onto itself: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestHistoryWindowBeforeItsStart: a window that begins before the
// snapshot the history starts from (Kafka deleted the segments before
// it, as log cleaning does) asks for changes the snapshot folds into its
// state: the history says so and exits 1, by offset and by time, rather
// than list what follows as if it were all. A window the log covers, or
// no window, is whole.
func TestHistoryWindowBeforeItsStart(t *testing.T) {
	dir := fstree.Copy(t, filepath.Join("..", "..", "testdata", "kraft", "3.9.2", "metadata"))
	if err := os.Remove(filepath.Join(dir, "__cluster_metadata-0", "00000000000000000000.log")); err != nil {
		t.Fatal(err)
	}
	// The first record after the snapshot at 89 is offset 90, at
	// 2026-11-30T07:39:23.100Z (dumps/00000000000000000087.log.txt).
	folded := "the history starts from the snapshot at offset 89: the changes up to it"
	for _, c := range []struct {
		since string
		code  int
		msg   string
	}{
		{"10", exitFindings, "the window starts at offset 10, but " + folded + " are its state, not listed (an older copy of the log holds them)"},
		{"89", exitFindings, "the window starts at offset 89, but " + folded + " are its state, not listed (an older copy of the log holds them)"},
		{"2026-11-30T07:39:23Z", exitFindings, "the window starts at 2026-11-30T07:39:23Z, but " + folded + ", which may be later, are its state, not listed (an older copy of the log holds them)"},
		{"90", exitOK, ""},
		{"2026-11-30T07:39:23.100Z", exitOK, ""},
		{"", exitOK, ""},
	} {
		args := []string{"history", "kraft:" + dir}
		if c.since != "" {
			args = append(args, "--since", c.since)
		}
		code, out, stderr := runKmeta(t, args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		last := lines[len(lines)-1]
		want := ""
		if c.msg != "" {
			want = "kmeta: kraft:" + dir + ": not covered: " + c.msg + "\n"
			if last != "not covered: "+c.msg {
				t.Errorf("--since %s: last line %q", c.since, last)
			}
		} else if strings.HasPrefix(last, "not covered") {
			t.Errorf("--since %s: %q", c.since, last)
		}
		if code != c.code || stderr != want {
			t.Errorf("--since %q: exit %d, stderr %q; want exit %d, %q", c.since, code, stderr, c.code, want)
		}
	}
}

// TestHistoryWindowBeforeItsStartZooKeeper: the same for a data dir whose
// older snapshots and logs were purged (autopurge; here snapshot.96, whose
// next transaction 0x97 was in the purged log.58, cannot start it): a
// window before its oldest usable snapshot is not covered. The fixture's whole data dir starts at
// the transaction that created Kafka's chroot, before which Kafka had no
// change to fold: any window is covered.
func TestHistoryWindowBeforeItsStartZooKeeper(t *testing.T) {
	whole := filepath.Join(zkFixture, "datadir")
	if code, _, stderr := runKmeta(t, "history", "zkdata:"+whole, "--since", "1"); code != exitOK || strings.Contains(stderr, "not covered") {
		t.Errorf("whole data dir --since 1: exit %d, %s", code, stderr)
	}
	dir := t.TempDir()
	for _, f := range []string{"log.98", "snapshot.e8", "log.ea", "snapshot.10c"} {
		b, err := os.ReadFile(filepath.Join(whole, "version-2", f))
		if err == nil {
			err = os.MkdirAll(filepath.Join(dir, "version-2"), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "version-2", f), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	msg := "kmeta: zkdata:" + dir + ": not covered: the window starts at zxid 0xe8, but the history starts from the snapshot at zxid 0xe8: " +
		"the changes up to it are its state, not listed (a data dir whose transaction logs go back further holds them)\n"
	code, _, stderr := runKmeta(t, "history", "zkdata:"+dir, "--since", "0xe8")
	if code != exitFindings || !strings.HasSuffix(stderr, msg) {
		t.Errorf("purged data dir --since 0xe8: exit %d, stderr %q, want it to end with %q", code, stderr, msg)
	}
	if code, _, stderr := runKmeta(t, "history", "zkdata:"+dir, "--since", "0xe9"); code != exitOK || strings.Contains(stderr, "not covered") {
		t.Errorf("purged data dir --since 0xe9: exit %d, %s", code, stderr)
	}
}

// TestHistoryZooKeeperOnlyState: on the ZooKeeper fixture, a topic marked
// for deletion (/admin/delete_topics/doomed, written by
// TopicCommand's deleteTopic through AdminZkClient) is a change of the
// topic, and the controller's creation of a partition's state znode
// (KafkaController.onNewPartitionCreation, after the topic znode) is a
// change of the partition: until then the partition has no state znode,
// and the leader and ISR shown are the reader's fill-in (Kafka's
// migration's, ZkMigrationClient), which stateZnodeMissing marks, as
// diff's zookeeper class does. A broker registered without a rack (broker
// 3, in both worlds) has no rack field, as image prints no rack for it,
// rather than an empty rack.
func TestHistoryZooKeeperOnlyState(t *testing.T) {
	zk := "zkdata:" + filepath.Join(zkFixture, "datadir")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{zk, "--entity", "topic:doomed"}, `2026-11-30T08:04:59.742Z zxid 0xa6 create /brokers/topics/doomed: topic doomed created: id=5oDHTk6JT8i64aXN4HXmIQ, partitions=1
2026-11-30T08:04:59.742Z zxid 0xa6 create /brokers/topics/doomed: partition doomed-0 created: addingReplicas=[], isr=[3], leader=3, leaderEpoch=0, leaderRecoveryState=0, partitionEpoch=0, removingReplicas=[], replicas=[3], stateZnodeMissing=true
2026-11-30T08:04:59.750Z zxid 0xa9 create /brokers/topics/doomed/partitions/0/state: partition doomed-0 changed: stateZnodeMissing true → (unset)
2026-11-30T08:06:19.925Z zxid 0x105 setData /brokers/topics/doomed/partitions/0/state: partition doomed-0 changed: leader 3 → -1, leaderEpoch 0 → 1, partitionEpoch 0 → 1
2026-11-30T08:06:20.568Z zxid 0x106 create /admin/delete_topics/doomed: topic doomed changed: pendingDeletion (unset) → true
`},
		{[]string{zk, "--entity", "broker:3"}, `2026-11-30T08:04:53.577Z zxid 0x74 create /brokers/ids/3: broker 3 created: endpoints=[INTERNAL://127.0.0.1:53747(PLAINTEXT),PLAINTEXT://127.0.0.1:35877(PLAINTEXT),SASL_PLAINTEXT://127.0.0.1:39763(SASL_PLAINTEXT)], epoch=116, features=[]
2026-11-30T08:06:19.899Z zxid 0x104 closeSession /brokers/ids/3: broker 3 deleted: endpoints=[INTERNAL://127.0.0.1:53747(PLAINTEXT),PLAINTEXT://127.0.0.1:35877(PLAINTEXT),SASL_PLAINTEXT://127.0.0.1:39763(SASL_PLAINTEXT)], epoch=116, features=[]
`},
		{[]string{"kraft:" + filepath.Join("..", "..", "testdata", "kraft", "3.9.2", "metadata"), "--entity", "broker:3", "--until", "10"}, `2026-11-30T07:39:13.295Z offset 10 RegisterBrokerRecord: broker 3 created: cordonedLogDirs=[], endpoints=[PLAINTEXT://127.0.0.1:41495(PLAINTEXT),SASL_PLAINTEXT://127.0.0.1:35411(SASL_PLAINTEXT)], epoch=10, features=[kraft.version[0,1],metadata.version[1,21]], fenced=true, inControlledShutdown=false, incarnationId=OzUpsziqTOOn-kBA9kcyPA, isMigratingZkBroker=false, logDirs=[Og25plt3nu0fSd0vZyaceQ]
`},
	} {
		code, out, stderr := runKmeta(t, append([]string{"history"}, c.args...)...)
		changes, _, _ := strings.Cut(out, "\n\n") // the summary follows a blank line
		if code != exitOK || changes+"\n" != c.want {
			t.Errorf("history %v: exit %d\n%s\nwant\n%s\n%s", c.args, code, changes, c.want, stderr)
		}
	}
}
