package kafkatest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestKRaftCombined starts one combined 4.x node, creates a topic through the
// admin API and reads it back from the metadata Kafka serves.
func TestKRaftCombined(t *testing.T) {
	d := Dist(t, Latest4)
	c := StartKRaft(t, d, KRaftOptions{})
	adm := c.Admin(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	const topic = "kmeta.harness_test"
	resp, err := adm.CreateTopic(ctx, 3, 1, map[string]*string{"retention.ms": kadm.StringPtr("3600000")}, topic)
	if err != nil || resp.Err != nil {
		t.Fatalf("create topic: %v / %v", err, resp.Err)
	}
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := td[topic]
	if !ok || got.Err != nil {
		t.Fatalf("topic %s not listed: %+v", topic, td)
	}
	if got.ID != resp.ID {
		t.Errorf("topic id: listed %s, created %s", got.ID, resp.ID)
	}
	if n := len(got.Partitions); n != 3 {
		t.Errorf("partitions: got %d, want 3", n)
	}
	for _, p := range got.Partitions {
		if !slices.Equal(p.Replicas, []int32{FirstBrokerID}) || p.Leader != FirstBrokerID {
			t.Errorf("partition %d: replicas %v leader %d", p.Partition, p.Replicas, p.Leader)
		}
	}
	rc, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := rc.On(topic, nil)
	if err != nil {
		t.Fatal(err)
	}
	var retention string
	for _, e := range cfg.Configs {
		if e.Key == "retention.ms" {
			retention = e.MaybeValue()
		}
	}
	if retention != "3600000" {
		t.Errorf("retention.ms: got %q", retention)
	}

	// The node's metadata log must now hold the topic; Kafka's own dump
	// tool is the oracle for that.
	c.Stop()
	out := d.DumpLog(t, []string{c.MetadataPartitionDir(FirstBrokerID) + "/00000000000000000000.log"})
	if !containsAll(out, `"type":"TOPIC_RECORD"`, `"name":"`+topic+`"`) {
		t.Errorf("dump of the metadata log lacks the topic record:\n%s", tail([]byte(out), 20))
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestZooKeeperModeChroot starts ZooKeeper and one 3.9 ZooKeeper-mode broker
// under a chroot, creates a topic, and checks that Kafka put its znodes under
// the chroot (asked through Kafka's own ZooKeeper client, zookeeper-shell).
func TestZooKeeperModeChroot(t *testing.T) {
	d := Dist(t, Kafka39)
	zk := StartZooKeeper(t, d, ZKOptions{})
	c := StartZKCluster(t, d, zk, ZKClusterOptions{Chroot: "/kmeta/test"})
	adm := c.Admin(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	const topic = "zk.mode_topic"
	resp, err := adm.CreateTopic(ctx, 2, 1, nil, topic)
	if err != nil || resp.Err != nil {
		t.Fatalf("create topic: %v / %v", err, resp.Err)
	}
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if got := td[topic]; got.Err != nil || len(got.Partitions) != 2 {
		t.Fatalf("topic %s: %+v", topic, got)
	}
	out := d.MustRun(t, "org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka",
		"-server", zk.Connect("/kmeta/test"), "ls", "/brokers/topics")
	if !strings.Contains(out, topic) {
		t.Errorf("zookeeper-shell ls /brokers/topics under the chroot: %q lacks %s", out, topic)
	}
	out = d.MustRun(t, "org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka",
		"-server", zk.Addr(), "ls", "/")
	if !strings.Contains(out, "kmeta") || strings.Contains(out, "brokers") {
		t.Errorf("root of ZooKeeper should hold only the chroot: %q", out)
	}

	// A ZooKeeper restart keeps its data, and the broker's session survives.
	zk.Restart()
	resp, err = adm.CreateTopic(ctx, 1, 1, nil, "after.zk_restart")
	if err != nil || resp.Err != nil {
		t.Fatalf("create topic after ZooKeeper restart: %v / %v", err, resp.Err)
	}
	out = d.MustRun(t, "org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka",
		"-server", zk.Connect("/kmeta/test"), "ls", "/brokers/topics")
	if !strings.Contains(out, topic) || !strings.Contains(out, "after.zk_restart") {
		t.Errorf("topics after ZooKeeper restart: %q", out)
	}
}
