package zkread

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// TestPre28Kafka runs a real ZooKeeper-mode Kafka 2.7.2 broker (the last
// release before topic ids; it runs on Java 17) against a real ZooKeeper
// (3.8.4, from Kafka 3.9.2's classpath), creates topics with 2.7's own
// TopicCommand, and checks that the live read decodes to what Kafka's admin
// API reports, that 2.7 wrote what the reference says (topic znodes version
// 2 without topic_id, /controller v1, /feature v1), and that every topic's
// missing id is kept visible as the zero UUID: in the image and in
// `kmeta zk image` output, JSON and text.
func TestPre28Kafka(t *testing.T) {
	d27 := kafkatest.Dist(t, kafkatest.Kafka27)
	d39 := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartZooKeeper(t, d39, kafkatest.ZKOptions{})
	const chroot = "/kafka/old"
	c := kafkatest.StartZKCluster(t, d27, zks, kafkatest.ZKClusterOptions{Chroot: chroot, Props: map[string]string{
		"authorizer.class.name":          "kafka.security.authorizer.AclAuthorizer",
		"allow.everyone.if.no.acl.found": "true",
		"super.users":                    "User:ANONYMOUS",
	}})
	bs := c.BootstrapServers()
	run := func(tool string, args ...string) {
		t.Helper()
		d27.MustRun(t, tool, append([]string{"--bootstrap-server", bs}, args...)...)
	}
	run(d27.Tools.Topics, "--create", "--topic", "legacy.a", "--partitions", "3", "--replication-factor", "1", "--config", "retention.ms=1000000")
	run(d27.Tools.Topics, "--create", "--topic", "legacy_b", "--partitions", "1", "--replication-factor", "1")
	run(d27.Tools.Topics, "--alter", "--topic", "legacy_b", "--partitions", "2")
	run(d27.Tools.Configs, "--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.ms=604800000")
	run(d27.Tools.Configs, "--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config", "SCRAM-SHA-256=[iterations=4096,password=pw]")
	run(d27.Tools.Configs, "--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config", "consumer_byte_rate=10")
	run("kafka.admin.AclCommand", "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "legacy.a")

	ctx := context.Background()
	tree, err := ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: chroot, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	// What 2.7 writes: no topic_id, topic znode version 2 (2.4-2.7).
	for _, name := range []string{"legacy.a", "legacy_b"} {
		var v map[string]any
		if err := json.Unmarshal(tree.Get("/brokers/topics/"+name).Data, &v); err != nil {
			t.Fatal(err)
		}
		if _, ok := v["topic_id"]; ok || v["version"] != float64(2) {
			t.Errorf("%s znode is not a 2.7 one: %s", name, tree.Get("/brokers/topics/"+name).Data)
		}
	}
	img, err := Decode(tree, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	view, err := kafkatest.CaptureAdminView(ctx, c.Client(t), d27.Version)
	if err != nil {
		t.Fatal(err)
	}
	// 2.7's Metadata API has no topic ids either: the admin view carries
	// zero ids, so the comparison also checks that zkread keeps them zero.
	compareAdminView(t, img, view)
	if len(img.Topics) != 2 {
		t.Errorf("topics %v", img.Topics)
	}
	for name, tp := range img.Topics {
		if !tp.ID.IsZero() {
			t.Errorf("%s: id %s, want the zero UUID", name, tp.ID)
		}
	}
	if img.ZK.ControllerID != 1 || img.ZK.KRaftControllerEpoch != -1 || img.ZK.FeatureStatus != 1 {
		t.Errorf("controller %d kraft epoch %d feature status %d", img.ZK.ControllerID, img.ZK.KRaftControllerEpoch, img.ZK.FeatureStatus)
	}
	for p := range img.ZK.Raw {
		t.Errorf("znode %s not understood", p)
	}

	// The CLI shows the missing ids, not an omission.
	bin := filepath.Join(t.TempDir(), "kmeta")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kmeta/kmeta/cmd/kmeta").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src := "zk://" + zks.Addr() + chroot
	out, err := exec.Command(bin, "zk", "image", "-o", "json", src).Output()
	if err != nil {
		t.Fatalf("kmeta zk image -o json: %v", err)
	}
	var js struct {
		Topics []struct {
			Name string `json:"name"`
			ID   string `json:"id"`
		} `json:"topics"`
	}
	if err := json.Unmarshal(out, &js); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	zero := model.UUID{}.String()
	if len(js.Topics) != 2 {
		t.Errorf("json topics %+v\n%s", js.Topics, out)
	}
	for _, tp := range js.Topics {
		if tp.ID != zero {
			t.Errorf("json: topic %s id %q, want %q", tp.Name, tp.ID, zero)
		}
	}
	out, err = exec.Command(bin, "zk", "image", src).Output()
	if err != nil {
		t.Fatalf("kmeta zk image: %v", err)
	}
	// Text prints a topic without an id as none (JSON keeps Kafka's zero
	// UUID, above).
	for _, name := range []string{"legacy.a", "legacy_b"} {
		if !strings.Contains(string(out), name+": id=none") {
			t.Errorf("text output lacks %q:\n%s", name+": id=none", out)
		}
	}
}
