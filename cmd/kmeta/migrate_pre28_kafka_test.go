package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// TestMigrateFromKafka27: a Kafka 2.7.2 ZooKeeper-mode cluster (before
// topic ids, which Kafka's own migration cannot take) is migrated offline
// and started as Kafka 4.4.0 KRaft: the brokers use the topic ids kmeta
// assigned (Metadata and their partition.metadata agree with the plan) and
// every message is read back at its offset, also from a topic kept at
// record format v1 (message.format.version=0.10.2, magic-1 batches on
// disk), which plan and brokers report. The target is a static quorum of
// three controllers (kraft.version 0): Kafka's kafka-metadata-quorum
// reports them as the voters, one Leader and two Followers.
func TestMigrateFromKafka27(t *testing.T) {
	kafkatest.Concurrently(t)
	d27 := kafkatest.Dist(t, kafkatest.Kafka27)
	d39 := kafkatest.Dist(t, kafkatest.Kafka39)
	d4 := kafkatest.Dist(t, kafkatest.Latest4)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	zk := kafkatest.StartZooKeeper(t, d39, kafkatest.ZKOptions{})
	zc := kafkatest.StartZKCluster(t, d27, zk, kafkatest.ZKClusterOptions{Brokers: 1, Chroot: "/legacy"})
	adm := zc.Admin(t)
	v1 := "0.10.2"
	for _, tp := range []struct {
		name    string
		parts   int32
		configs map[string]*string
	}{{"legacy.a", 3, nil}, {"legacy_b", 2, nil}, {"legacy.v1", 2, map[string]*string{"message.format.version": &v1}}} {
		if r, err := adm.CreateTopic(ctx, tp.parts, 1, tp.configs, tp.name); err != nil || r.Err != nil {
			t.Fatalf("create %s: %v %v", tp.name, err, r.Err)
		}
	}
	// Not idempotent: 2.7 refuses idempotent writes to a topic kept at
	// record format v1 (legacy.v1, which gets magic-1 batches).
	cl := zc.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.GzipCompression()), kgo.DisableIdempotentWrite())
	var recs []*kgo.Record
	for i := range 60 {
		topic, parts := "legacy.a", 3
		switch i % 3 {
		case 1:
			topic, parts = "legacy_b", 2
		case 2:
			topic, parts = "legacy.v1", 2
		}
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % parts), Key: []byte(fmt.Sprint("k", i)), Value: []byte(fmt.Sprint("2.7 value ", i))})
	}
	if err := retryUnknown(func() error { return cl.ProduceSync(ctx, recs...).FirstErr() }); err != nil {
		t.Fatal(err)
	}
	topics := []string{"legacy.a", "legacy_b", "legacy.v1"}
	before, err := kafkatest.ConsumeAll(ctx, zc, topics, len(recs))
	if err != nil {
		t.Fatal(err)
	}
	zc.Stop()
	zk.Stop()

	work := t.TempDir()
	// Three controllers in a static quorum (kraft.version 0).
	ctrlIDs := []int{3000, 3001, 3002}
	port := map[int]int{}
	var vs []string
	for _, id := range ctrlIDs {
		port[id] = freePort(t)
		vs = append(vs, fmt.Sprintf("%d@127.0.0.1:%d", id, port[id]))
	}
	voters := strings.Join(vs, ",")
	planFile := filepath.Join(work, "plan.json")
	if out, serr, code := kmetaRun(t, "migrate", "plan", "--zk", "zkdata:"+zk.DataDir, "--controllers", voters, "--write", planFile); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, serr)
	} else if !strings.Contains(out, migrate.CodeConfigRemoved) {
		t.Errorf("plan does not report legacy.v1's message.format.version (%s):\n%s", migrate.CodeConfigRemoved, out)
	} else {
		t.Logf("plan:\n%s", out)
	}
	p, err := migrate.ReadPlan(planFile)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, tp := range p.Topics {
		ids[tp.Name] = tp.ID.String()
	}
	if out, serr, code := kmetaRun(t, "migrate", "apply", "--plan", planFile, "--out", work); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, serr)
	}
	// kmeta verify between the ZooKeeper state and kmeta's migration of
	// it: the ids the plan assigned are checked, not just explained.
	verifyPlan(t, "zkdata:"+zk.DataDir, "kraft:"+controllers.Dir(work, 3000), planFile, topics)
	kc := kafkatest.NewCluster(t, d4)
	for _, id := range ctrlIDs {
		ctrlConf := filepath.Join(work, fmt.Sprintf("controller-%d.properties", id))
		if out, serr, code := kmetaRun(t, "migrate", "configs", "--server-properties", zc.Node(1).Config, "--role", "controller", "--node-id", fmt.Sprint(id),
			"--controllers", voters, "--metadata-dir", controllers.Dir(work, int32(id)), "--out", ctrlConf); code != exitOK {
			t.Fatalf("configs: exit %d\n%s%s", code, out, serr)
		}
		kc.AddNode(id, "controller", readProps(t, ctrlConf)).ControllerPort = port[id]
	}
	for _, id := range zc.Brokers() {
		dir := zc.Node(id).DataDir
		out, serr, code := kmetaRun(t, "migrate", "brokers", "--plan", planFile, "--log-dirs", dir)
		if code != exitOK {
			t.Fatalf("brokers %d: exit %d\n%s%s", id, code, out, serr)
		}
		if !strings.Contains(out, migrate.CodeOldRecordFormat) {
			t.Errorf("brokers %d: legacy.v1's magic-1 segments not reported (%s):\n%s", id, migrate.CodeOldRecordFormat, out)
		}
		conf := filepath.Join(work, fmt.Sprintf("broker-%d.properties", id))
		if out, serr, code := kmetaRun(t, "migrate", "configs", "--server-properties", zc.Node(id).Config, "--controllers", voters, "--out", conf); code != exitOK {
			t.Fatalf("configs %d: exit %d\n%s%s", id, code, out, serr)
		}
		kc.AddNode(id, "broker", readProps(t, conf)).PlainPort = zc.Node(id).PlainPort
	}
	kc.StartNodes(ctrlIDs...)
	kc.StartNodes(zc.Brokers()...)
	kc.WaitBrokers(t, 2*time.Minute, zc.Brokers()...)
	checkQuorum(t, ctx, kc, planFile, ctrlIDs, 0)

	md, err := kadm.NewClient(kc.Client(t)).Metadata(ctx, topics...)
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range md.Topics {
		if got := model.UUID(td.ID).String(); td.Err != nil || got != ids[td.Topic] {
			t.Errorf("topic %s: Kafka 4.4 reports id %s (%v), kmeta assigned %s", td.Topic, got, td.Err, ids[td.Topic])
		}
	}
	for _, id := range zc.Brokers() {
		for _, tp := range p.Topics {
			for _, pp := range tp.Partitions {
				if !containsID(pp.Replicas, int32(id)) {
					continue
				}
				pm, err := metalog.ReadPartitionMetadata(filepath.Join(zc.Node(id).DataDir, fmt.Sprintf("%s-%d", tp.Name, pp.ID), "partition.metadata"))
				if err != nil || pm.TopicID != tp.ID {
					t.Errorf("broker %d %s-%d partition.metadata: %+v %v, want %s", id, tp.Name, pp.ID, pm, err, tp.ID)
				}
			}
		}
	}
	after, err := kafkatest.ConsumeAll(ctx, kc, topics, len(before))
	if err != nil {
		t.Fatalf("%v; %s", err, countsByPartition(before, after))
	}
	if d := kafkatest.DiffMessages(before, after); len(d) > 0 {
		t.Fatalf("%d records differ after migration, e.g. %v", len(d), d[:min(5, len(d))])
	}
	t.Logf("Kafka 2.7.2 -> 4.4.0: topic ids kmeta assigned are the brokers' ids; all %d records read back at their offsets, record format v1 ones included", len(after))

	// The same against the log Kafka 4.4.0 wrote from kmeta's bootstrap,
	// at the end of its bootstrap transaction (before any broker
	// registered).
	kc.Stop()
	ctrlDir := controllers.Dir(work, 3000)
	out, serr, code := kmetaRun(t, "log", "dump", "kraft:"+ctrlDir, "--type", "EndTransactionRecord", "--records-only", "-o", "json")
	var end struct {
		Offset int64 `json:"offset"`
	}
	if code != exitOK || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &end) != nil || end.Offset <= 0 {
		t.Fatalf("no EndTransactionRecord of the bootstrap transaction in %s: exit %d\n%s%s", ctrlDir, code, out, serr)
	}
	verifyPlan(t, "zkdata:"+zk.DataDir, fmt.Sprintf("kraft:%s@offset=%d", ctrlDir, end.Offset), planFile, topics)
}

// verifyPlan runs kmeta verify --plan between a ZooKeeper state whose
// topics have no ids and a KRaft view of kmeta's migration of it: exit 0,
// each topic's id explained as the one the plan assigned.
func verifyPlan(t *testing.T, zkSrc, kraftSrc, planFile string, topics []string) {
	t.Helper()
	step(t, "kmeta verify --zk %s --kraft %s --plan %s", zkSrc, kraftSrc, planFile)
	code, v, serr := runVerify(t, "--zk", zkSrc, "--kraft", kraftSrc, "--plan", planFile)
	t.Logf("exit %d, result %s, explained: %q", code, v.Result, explained(v))
	if code != exitOK || v.Result != "equal" {
		t.Fatalf("verify --plan: exit %d (%s), findings:%s\n%s", code, v.Result, showFindings(v.Findings), serr)
	}
	for _, tp := range topics {
		if want := "expected-assigned-topic-id topic " + tp + " id"; !slices.Contains(explained(v), want) {
			t.Errorf("verify --plan does not explain %s's assigned id (%q)", tp, want)
		}
	}
}
