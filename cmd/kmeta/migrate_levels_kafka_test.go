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
// what apply writes for the real ZooKeeper fixture at the lowest level 4.x
// accepts (3.3-IV3: no metadata transactions, one atomic batch, no SCRAM
// or tokens) and at 4.0-IV3, and its own log then holds the migrated
// topics at that level: kafka-features describes the level, and Kafka's
// DumpLogSegments shows every topic and ACL the plan wrote. (4.4-IV2 with
// brokers is TestMigrateZKClusterToKRaft.)
func TestMigrateLevelsStartOnKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	for _, level := range []string{"3.3-IV3", "4.0-IV3"} {
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
			feat := d.MustRun(t, d.Tools.Features, "--bootstrap-controller", c.BootstrapControllers(), "describe")
			if !strings.Contains(feat, "Feature: metadata.version\t") || !strings.Contains(feat, "FinalizedVersionLevel: "+level+"\t") {
				t.Fatalf("kafka-features describe on the migrated controller:\n%s", feat)
			}
			c.StopNode(3000)
			logs, _ := filepath.Glob(filepath.Join(migrate.ControllerDir(work, 3000), "__cluster_metadata-0", "*.log"))
			dump := d.DumpLog(t, logs)
			p, err := readPlanFile(plan)
			if err != nil {
				t.Fatal(err)
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
