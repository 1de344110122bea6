package history

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
)

// step runs one step through j: touches read before, change applied to
// img, then After.
func step(j *Judge, img *model.Image, p Point, touches []Touch, change func()) {
	j.Before(img, p, touches)
	change()
	j.After(img, p)
}

func lines(t *testing.T, opts Options, run func(j *Judge)) []string {
	t.Helper()
	var out []string
	j := New(opts, func(c *Change) error {
		b := AppendJSON(nil, c)
		if !json.Valid(b) {
			t.Fatalf("invalid JSON: %s", b)
		}
		out = append(out, string(b))
		return nil
	})
	run(j)
	return out
}

func TestJudge(t *testing.T) {
	at := func(off int64) Point {
		return Point{World: model.WorldKRaft, Offset: off, Before: off - 1, Time: time.UnixMilli(1700000000000 + off).UTC()}
	}
	// Offsets 1 and 2 in one batch: the point before 2 is 0.
	at2 := at(2)
	at2.Before = 0
	topicCfg := model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}
	cfgRef := Touch{Ref: model.EntityRef{Kind: model.EntityConfig, Config: topicCfg}, Record: "ConfigRecord"}
	partRef := Touch{Ref: model.EntityRef{Kind: model.EntityPartition, Name: "orders", ID: 0}, Record: "PartitionChangeRecord"}
	aclRef := func(id model.UUID) Touch {
		return Touch{Ref: model.EntityRef{Kind: model.EntityACL, ACL: id}, Record: "AccessControlEntryRecord"}
	}
	run := func(j *Judge) {
		img := model.NewImage()
		img.Topics["orders"] = &model.Topic{Name: "orders", Partitions: map[int32]*model.Partition{
			0: {ID: 0, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1}}}
		step(j, img, at(1), []Touch{cfgRef}, func() { img.Configs[topicCfg] = map[string]string{"retention.ms": "1000"} })
		step(j, img, at2, []Touch{cfgRef}, func() { img.Configs[topicCfg]["retention.ms"] = "2000" })
		step(j, img, at(3), []Touch{partRef}, func() {
			p := *img.Topics["orders"].Partitions[0]
			p.ISR, p.LeaderEpoch, p.PartitionEpoch = []int32{1}, 1, 1
			img.Topics["orders"].Partitions[0] = &p
		})
		// A record Kafka refuses: Before, no After; the next Before
		// forgets it.
		j.Before(img, at(4), []Touch{cfgRef})
		a := &model.ACL{ID: model.UUID{9}, ResourceType: 2, ResourceName: "orders", PatternType: 3, Principal: "User:a\"b", Host: "*", Operation: 3, PermissionType: 3}
		step(j, img, at(5), []Touch{aclRef(a.ID)}, func() { img.ACLs[a.ID] = a })
		step(j, img, at(6), []Touch{aclRef(a.ID)}, func() { delete(img.ACLs, a.ID) })
		step(j, img, at(7), []Touch{cfgRef}, func() { delete(img.Configs, topicCfg) })
		// A sensitive broker config: its hash, not its value.
		bc := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
		step(j, img, at(8), []Touch{{Ref: model.EntityRef{Kind: model.EntityConfig, Config: bc}, Record: "ConfigRecord"}},
			func() { img.Configs[bc] = map[string]string{"ssl.key.password": "s3cret"} })
	}
	ts := func(off int64) string { return at(off).Time.Format(time.RFC3339Nano) }
	got := lines(t, Options{}, run)
	want := []string{
		`{"offset":1,"pointBefore":0,"time":"` + ts(1) + `","record":"ConfigRecord","kind":"config","entity":"config TOPIC orders","action":"created","after":{"retention.ms":"1000"}}`,
		`{"offset":2,"pointBefore":0,"time":"` + ts(2) + `","record":"ConfigRecord","kind":"config","entity":"config TOPIC orders","action":"changed","before":{"retention.ms":"1000"},"after":{"retention.ms":"2000"}}`,
		`{"offset":3,"pointBefore":2,"time":"` + ts(3) + `","record":"PartitionChangeRecord","kind":"partition","entity":"partition orders-0","action":"changed","before":{"isr":"[1,2]","leaderEpoch":"0","partitionEpoch":"0"},"after":{"isr":"[1]","leaderEpoch":"1","partitionEpoch":"1"}}`,
		`{"offset":5,"pointBefore":4,"time":"` + ts(5) + `","record":"AccessControlEntryRecord","kind":"acl","entity":"acl TOPIC:LITERAL:orders User:a\"b@* READ ALLOW","action":"created","after":{"host":"*","operation":"READ","patternType":"LITERAL","permissionType":"ALLOW","principal":"User:a\"b","resourceName":"orders","resourceType":"TOPIC"}}`,
		`{"offset":6,"pointBefore":5,"time":"` + ts(6) + `","record":"AccessControlEntryRecord","kind":"acl","entity":"acl TOPIC:LITERAL:orders User:a\"b@* READ ALLOW","action":"deleted","before":{"host":"*","operation":"READ","patternType":"LITERAL","permissionType":"ALLOW","principal":"User:a\"b","resourceName":"orders","resourceType":"TOPIC"}}`,
		`{"offset":7,"pointBefore":6,"time":"` + ts(7) + `","record":"ConfigRecord","kind":"config","entity":"config TOPIC orders","action":"deleted","before":{"retention.ms":"2000"}}`,
		`{"offset":8,"pointBefore":7,"time":"` + ts(8) + `","record":"ConfigRecord","kind":"config","entity":"config BROKER 1","action":"created","after":{"ssl.key.password":"` + model.RedactedValue("s3cret") + `"}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := lines(t, Options{ShowSecrets: true, Entities: []verify.Selector{{Kind: model.EntityConfig, Glob: "BROKER *"}}}, run); len(got) != 1 || !strings.Contains(got[0], `"ssl.key.password":"s3cret"`) {
		t.Errorf("--show-secrets --entity config:'BROKER *': %q", got)
	}
	// Selectors: a topic takes its partitions and config along.
	sel, _ := verify.ParseSelector("topic:ord*")
	if got := lines(t, Options{Entities: []verify.Selector{sel}}, run); len(got) != 4 {
		t.Errorf("--entity topic:ord*: %d changes, want the config's 3 and the partition's 1:\n%s", len(got), strings.Join(got, "\n"))
	}
	if got := lines(t, Options{Fields: []string{"isr"}}, run); len(got) != 1 || !strings.Contains(got[0], `"before":{"isr":"[1,2]"},"after":{"isr":"[1]"}`) {
		t.Errorf("--field isr: %q", got)
	}
	w := Options{Since: Bound{Position: 2, HasPosition: true}, Until: Bound{Time: at(5).Time}}
	if got := lines(t, w, run); len(got) != 3 {
		t.Errorf("--since 2 --until <time of 5>: %d changes, want 3 (offsets 2, 3, 5):\n%s", len(got), strings.Join(got, "\n"))
	}
}

func TestAppendJSONStrings(t *testing.T) {
	for _, s := range []string{"plain", "quote\" back\\slash", "tab\tnl\n", "\x00\x1f", "é ü 日本", "bad \xff utf8", "line\u2028sep", "<html>&"} {
		c := &Change{Point: Point{World: model.WorldZooKeeper, Zxid: 0x1f}, Record: "setData", Znode: s, Kind: model.EntityTopic, Entity: s, Action: ActionChanged,
			Fields: []verify.FieldChange{{Name: s, Before: s, After: s, In: true, Out: true}}}
		b := AppendJSON(nil, c)
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%q: %v: %s", s, err, b)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if v["entity"] != want || v["znode"] != want || v["zxid"] != float64(0x1f) || v["time"] != nil {
			t.Errorf("%q: decoded %v", s, v)
		}
	}
}

// TestJudgeZooKeeperTransaction: one ZooKeeper transaction that writes an
// entity's znode twice (Kafka registers a broker with a multi that
// creates /brokers/ids/N and sets its data: KafkaZkClient's
// CheckedEphemeral) is one change of it, and a broker or a partition
// created in ZooKeeper shows only the fields ZooKeeper holds (no
// fencing, incarnation id, log dirs, directories or ELR: the reader's
// zeros are not values).
func TestJudgeZooKeeperTransaction(t *testing.T) {
	at := func(zxid int64) Point {
		return Point{World: model.WorldZooKeeper, Offset: -1, Zxid: zxid, Time: time.UnixMilli(1700000000000 + zxid).UTC()}
	}
	broker := model.EntityRef{Kind: model.EntityBroker, ID: 1}
	run := func(j *Judge) {
		img := model.NewImage()
		rack := "r1"
		step(j, img, at(0x1e), []Touch{{Ref: broker, Record: "create", Znode: "/brokers/ids/1"}, {Ref: broker, Record: "setData", Znode: "/brokers/ids/1"}},
			func() {
				img.Brokers[1] = &model.Broker{ID: 1, Epoch: 0x1e, Rack: &rack, Endpoints: []model.Endpoint{{Name: "PLAINTEXT", Host: "h1", Port: 9092, SecurityProtocol: 0}}}
			})
		// The assignment and a partition's state in one multi: the
		// partition is one change.
		step(j, img, at(0x20), []Touch{
			{Ref: model.EntityRef{Kind: model.EntityTopic, Name: "t"}, Record: "create", Znode: "/brokers/topics/t"},
			{Ref: model.EntityRef{Kind: model.EntityPartition, Name: "t", ID: model.AllIDs}, Record: "create", Znode: "/brokers/topics/t"},
			{Ref: model.EntityRef{Kind: model.EntityPartition, Name: "t", ID: 0}, Record: "create", Znode: "/brokers/topics/t/partitions/0/state"},
		}, func() {
			img.Topics["t"] = &model.Topic{Name: "t", ID: model.UUID{1}, Partitions: map[int32]*model.Partition{
				0: {ID: 0, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, Directories: []model.UUID{{}}}}}
		})
		// A reassignment: the directories ZooKeeper does not hold follow
		// the replicas in the reader's image, and are no change.
		step(j, img, at(0x21), []Touch{{Ref: model.EntityRef{Kind: model.EntityPartition, Name: "t", ID: 0}, Record: "setData", Znode: "/brokers/topics/t/partitions/0/state"}},
			func() {
				p := *img.Topics["t"].Partitions[0]
				p.Directories = []model.UUID{{}, {}}
				img.Topics["t"].Partitions[0] = &p
			})
	}
	ts := func(zxid int64) string { return at(zxid).Time.Format(time.RFC3339Nano) }
	got := lines(t, Options{}, run)
	want := []string{
		`{"zxid":30,"time":"` + ts(0x1e) + `","record":"create","znode":"/brokers/ids/1","kind":"broker","entity":"broker 1","action":"created","after":{"endpoints":"[PLAINTEXT://h1:9092(PLAINTEXT)]","epoch":"30","features":"[]","rack":"r1"}}`,
		`{"zxid":32,"time":"` + ts(0x20) + `","record":"create","znode":"/brokers/topics/t","kind":"topic","entity":"topic t","action":"created","after":{"id":"AQAAAAAAAAAAAAAAAAAAAA","partitions":"1"}}`,
		`{"zxid":32,"time":"` + ts(0x20) + `","record":"create","znode":"/brokers/topics/t","kind":"partition","entity":"partition t-0","action":"created","after":{"addingReplicas":"[]","isr":"[1]","leader":"1","leaderEpoch":"0","leaderRecoveryState":"0","partitionEpoch":"0","removingReplicas":"[]","replicas":"[1]"}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestJudgeZooKeeperOnlyFields: in a ZooKeeper history, what only
// ZooKeeper holds of a topic or partition is a field of it, named as
// diff's zookeeper class names it: a legacy reassignment
// (/admin/reassign_partitions, which names every topic's partitions),
// a missing state znode (by the partition's own touch, the fast path),
// a pending deletion. A KRaft image has none of them.
func TestJudgeZooKeeperOnlyFields(t *testing.T) {
	at := func(z int64) Point {
		return Point{World: model.WorldZooKeeper, Zxid: z, Time: time.UnixMilli(1700000000000 + z).UTC()}
	}
	all := Touch{Ref: model.EntityRef{Kind: model.EntityPartition, Name: "orders", ID: model.AllIDs}, Znode: "/admin/reassign_partitions"}
	state := Touch{Ref: model.EntityRef{Kind: model.EntityPartition, Name: "orders", ID: 0}, Znode: "/brokers/topics/orders/partitions/0/state"}
	topic := Touch{Ref: model.EntityRef{Kind: model.EntityTopic, Name: "orders"}, Znode: "/admin/delete_topics/orders"}
	got := lines(t, Options{}, func(j *Judge) {
		img := model.NewImage()
		img.ZK = &model.ZKState{MissingPartitionStates: []string{"orders-0"}}
		img.Topics["orders"] = &model.Topic{Name: "orders", Partitions: map[int32]*model.Partition{
			0: {ID: 0, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1}}}
		step(j, img, at(1), []Touch{all}, func() { img.ZK.LegacyReassignments = map[string][]int32{"orders-0": {1, 3}} })
		step(j, img, at(2), []Touch{state}, func() { img.ZK.MissingPartitionStates = nil })
		step(j, img, at(3), []Touch{topic}, func() { img.ZK.PendingTopicDeletions = []string{"orders"} })
	})
	want := []string{
		`{"zxid":1,"time":"2023-11-14T22:13:20.001Z","record":"","znode":"/admin/reassign_partitions","kind":"partition","entity":"partition orders-0","action":"changed","before":{},"after":{"legacyReassignment":"[1,3]"}}`,
		`{"zxid":2,"time":"2023-11-14T22:13:20.002Z","record":"","znode":"/brokers/topics/orders/partitions/0/state","kind":"partition","entity":"partition orders-0","action":"changed","before":{"stateZnodeMissing":"true"},"after":{}}`,
		`{"zxid":3,"time":"2023-11-14T22:13:20.003Z","record":"","znode":"/admin/delete_topics/orders","kind":"topic","entity":"topic orders","action":"changed","before":{},"after":{"pendingDeletion":"true"}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
