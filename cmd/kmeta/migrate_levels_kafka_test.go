package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// TestMigrateLevelsStartOnKafka: a controller of Kafka 4.4.0 starts on
// what apply writes for the real ZooKeeper fixture at levels across the
// record-version boundaries: the lowest level 4.x accepts (3.3-IV3: no
// SCRAM or tokens, no metadata transactions, so one atomic batch), the
// first with transactions and tokens (3.6-IV1), and the first with
// directories (3.7-IV2, PartitionRecord v1). (4.4-IV2, PartitionRecord v2,
// is in TestMigrateZKClusterToKRaft and TestMigrateManyRecordsStartOnKafka.)
// Its own log then holds the migrated records at that level: Kafka's
// DumpLogSegments shows the metadata.version record, every topic with its
// id and at least as many records of each type as the plan wrote, and
// kafka-features describes the level (from 3.7-IV0, where controllers
// answer it).
func TestMigrateLevelsStartOnKafka(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Latest4)
	for _, level := range []string{"3.3-IV3", "3.6-IV1", "3.7-IV2"} {
		t.Run(level, func(t *testing.T) {
			work := t.TempDir()
			port := freePort(t)
			voters := fmt.Sprintf("3000@127.0.0.1:%d", port)
			plan := filepath.Join(work, "plan.json")
			out, serr, code := kmetaRun(t, "migrate", "plan", "--zk", fixtureZK, "--metadata-version", level, "--controllers", voters,
				"--override", migrate.OverrideDropPendingDeletions, "--override", migrate.OverrideKeepReassignments,
				"--override", migrate.OverrideDropSCRAM, "--override", migrate.OverrideDropTokens, "--write", plan)
			if code != exitOK {
				t.Fatalf("plan: exit %d\n%s%s", code, out, serr)
			}
			if out, serr, code := kmetaRun(t, "migrate", "apply", "--plan", plan, "--out", work); code != exitOK {
				t.Fatalf("apply: exit %d\n%s%s", code, out, serr)
			}
			// The fixture's broker configs have no controller to start
			// from: a minimal ZooKeeper-mode file stands in.
			zkConf := filepath.Join(work, "zk-server.properties")
			os.WriteFile(zkConf, []byte("broker.id=1\nzookeeper.connect=127.0.0.1:2181/kafka/prod\n"), 0o644)
			conf := filepath.Join(work, "controller.properties")
			if out, serr, code := kmetaRun(t, "migrate", "configs", "--server-properties", zkConf, "--role", "controller", "--node-id", "3000",
				"--controllers", voters, "--metadata-dir", controllers.Dir(work, 3000), "--out", conf); code != exitOK {
				t.Fatalf("configs: exit %d\n%s%s", code, out, serr)
			}
			c := kafkatest.NewCluster(t, d)
			n := c.AddNode(3000, "controller", readProps(t, conf))
			n.ControllerPort = port
			c.StartNodes(3000)
			p, err := migrate.ReadPlan(plan)
			if err != nil {
				t.Fatal(err)
			}
			live := 0
			for _, tp := range p.Topics {
				if !tp.Skipped {
					live++
				}
			}
			waitAppended(t, controllers.Dir(work, 3000), live)
			// Controllers answer kafka-features directly only from
			// 3.7-IV0 (KIP-919).
			if p.MetadataVersion.Level >= 15 {
				feat := d.MustRun(t, d.Tools.Features, "--bootstrap-controller", c.BootstrapControllers(), "describe")
				ok := false
				for _, l := range strings.Split(feat, "\n") {
					if strings.HasPrefix(l, "Feature: metadata.version ") && strings.Contains(l, "FinalizedVersionLevel: "+level+" ") {
						ok = true
					}
				}
				if !ok {
					t.Fatalf("kafka-features describe on the migrated controller:\n%s", feat)
				}
			}
			c.StopNode(3000)
			logs, _ := filepath.Glob(filepath.Join(controllers.Dir(work, 3000), "__cluster_metadata-0", "*.log"))
			dump := d.DumpLog(t, logs)
			mv := fmt.Sprintf(`{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":%d}}`, p.MetadataVersion.Level)
			if !strings.Contains(dump, mv) {
				t.Errorf("Kafka's log has no %s", mv)
			}
			for _, tp := range p.Topics {
				has := strings.Contains(dump, `"name":"`+tp.Name+`","topicId":"`+tp.ID.String()+`"`)
				if has == tp.Skipped {
					t.Errorf("topic %s (skipped %v): in Kafka's log %v", tp.Name, tp.Skipped, has)
				}
			}
			for _, rt := range p.Records.ByType {
				if got := strings.Count(dump, "payload: {\"type\":\""+records.TypeName(rt.Name)+"\""); got < rt.Count {
					t.Errorf("%s: Kafka's log holds %d, the plan wrote %d", rt.Name, got, rt.Count)
				}
			}
			t.Logf("Kafka 4.4.0 controller started at %s and appended the %d migrated records", level, p.Records.Total)
		})
	}
}

// TestMigrateManyRecordsStartOnKafka: more records than the controller
// appends at once (10,000, QuorumController.MAX_RECORDS_PER_BATCH): a
// Kafka 4.4.0 controller started on apply's bootstrap.checkpoint for
// 30,000 partitions appends them all in its bootstrap transaction.
func TestMigrateManyRecordsStartOnKafka(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Latest4)
	work := t.TempDir()
	port := freePort(t)
	img := model.NewImage()
	img.ClusterID = "bWFueS1yZWNvcmRzLXRlcw"
	img.ZK = &model.ZKState{}
	for i := range 300 {
		name := fmt.Sprintf("many-%03d", i)
		tp := &model.Topic{Name: name, ID: model.UUID{byte(i>>8) + 1, byte(i), 0xee}, Partitions: map[int32]*model.Partition{}}
		for p := range int32(100) {
			r := []int32{1 + p%3, 1 + (p+1)%3}
			tp.Partitions[p] = &model.Partition{ID: p, Replicas: r, ISR: r, Leader: r[0], LeaderEpoch: 1, PartitionEpoch: 1,
				AddingReplicas: []int32{}, RemovingReplicas: []int32{}}
		}
		img.Topics[name] = tp
	}
	cs := []controllers.Spec{{ID: 3000, Host: "127.0.0.1", Port: port}}
	p, err := migrate.NewPlan(img, migrate.Options{Source: "synthetic", MetadataVersion: "4.4", Controllers: cs})
	if err != nil || p.Blocked {
		t.Fatalf("%v %v", err, p.Blockers())
	}
	if _, err := migrate.Apply(p, migrate.ApplyOptions{Out: work}); err != nil {
		t.Fatal(err)
	}
	props, _, err := migrate.KRaftConfig(map[string]string{"broker.id": "1"}, migrate.ConfigOptions{Role: migrate.RoleController, NodeID: 3000,
		Controllers: cs, MetadataDir: controllers.Dir(work, 3000)})
	if err != nil {
		t.Fatal(err)
	}
	c := kafkatest.NewCluster(t, d)
	c.AddNode(3000, "controller", props).ControllerPort = port
	c.StartNodes(3000)
	waitAppended(t, controllers.Dir(work, 3000), len(img.Topics))
	c.StopNode(3000)
	logs, _ := filepath.Glob(filepath.Join(controllers.Dir(work, 3000), "__cluster_metadata-0", "*.log"))
	dump := d.DumpLog(t, logs)
	if got := strings.Count(dump, `payload: {"type":"PARTITION_RECORD"`); got != 30000 {
		t.Fatalf("Kafka's log holds %d partition records, want 30000", got)
	}
	if !strings.Contains(dump, `"type":"END_TRANSACTION_RECORD"`) {
		t.Fatal("the bootstrap transaction did not end")
	}
	t.Logf("Kafka 4.4.0 appended %d records (30,000 partitions) from kmeta's bootstrap.checkpoint", p.Records.Total)
}

// waitAppended waits until the controller's own log holds the migrated
// topics: the bootstrap records are appended once the controller becomes
// active, which can be after it logs that it started. (Only the wait reads
// the log with kmeta; the checks use Kafka's DumpLogSegments.)
func waitAppended(t *testing.T, metaDir string, topics int) {
	t.Helper()
	dir := filepath.Join(metaDir, "__cluster_metadata-0")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		r, err := metalog.LoadImage(dir, metalog.ImageOptions{AtOffset: -1})
		if err == nil && len(r.Image.Topics) >= topics {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the controller's log holds no %d topics after 2 minutes (%v)", topics, err)
		}
	}
}
