package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/kafkatest"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/migrate"
)

// TestMigrateLevelsStartOnKafka: a controller of Kafka 4.4.0 starts on
// what apply writes for the real ZooKeeper fixture at levels across the
// record-version boundaries: the lowest level 4.x accepts (3.3-IV3, no
// SCRAM or tokens), the last without metadata transactions (3.6-IV0, one
// atomic batch), the first with them (3.6-IV1), the first with directories
// (3.7-IV2, PartitionRecord v1) and 4.0-IV3 (the newest, 4.4-IV2 with
// PartitionRecord v2, is TestMigrateZKClusterToKRaft's). Its own log then holds the migrated records at
// that level: Kafka's DumpLogSegments shows the metadata.version record,
// every topic with its id and at least as many records of each type as
// the plan wrote, and kafka-features describes the level (from 3.7-IV0,
// where controllers answer it).
func TestMigrateLevelsStartOnKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	for _, level := range []string{"3.3-IV3", "3.6-IV0", "3.6-IV1", "3.7-IV2", "4.0-IV3"} {
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
				"--controllers", voters, "--metadata-dir", migrate.ControllerDir(work, 3000), "--out", conf); code != exitOK {
				t.Fatalf("configs: exit %d\n%s%s", code, out, serr)
			}
			c := kafkatest.NewCluster(t, d)
			n := c.AddNode(3000, "controller", readProps(t, conf))
			n.ControllerPort = port
			c.StartNodes(3000)
			p, err := readPlanFile(plan)
			if err != nil {
				t.Fatal(err)
			}
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
			logs, _ := filepath.Glob(filepath.Join(migrate.ControllerDir(work, 3000), "__cluster_metadata-0", "*.log"))
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
