package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestLiveWrongPassword: against a real 4.4.0 SASL_PLAINTEXT listener, a
// PLAIN login with a wrong password is an authentication failure (exit 2,
// named so, with the address), as Kafka's own kafka-topics says with the
// same client settings; the right password gets past authentication.
func TestLiveWrongPassword(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{SASL: true})
	addr := c.SASLBootstrapServers()
	dir := t.TempDir()
	settings := func(name, password string) string {
		p := filepath.Join(dir, name)
		text := "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="` + kafkatest.AdminUser + `" password="` + password + "\";\n"
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrong, right := settings("wrong.properties", "not-"+kafkatest.AdminPassword), settings("right.properties", kafkatest.AdminPassword)

	// The oracle: Kafka's own tool, the same settings.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	_, stderr, err := d.Run(ctx, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", addr, "--command-config", wrong, "--list")
	if err == nil || !strings.Contains(string(stderr), "SaslAuthenticationException") {
		t.Fatalf("kafka-topics with a wrong password: %v\n%s", err, stderr)
	}

	for _, args := range [][]string{
		{"image", "kafka://" + addr, "--command-config", wrong},
		{"image", "--command-config", wrong, "--bootstrap-server", addr, "-o", "json"},
		{"features", "describe", "--bootstrap-server", addr, "--command-config", wrong},
	} {
		r := kmeta(args...)
		if r.code != 2 || !strings.Contains(r.stderr, "authentication failed at "+addr+" with PLAIN") || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q", args, r.code, r.stderr, r.stdout)
		}
		if strings.Contains(r.stderr, kafkatest.AdminPassword) {
			t.Errorf("%q: the message shows a password: %q", args, r.stderr)
		}
	}
	if r := kmeta("image", "kafka://"+addr, "--command-config", right); strings.Contains(r.stderr, "authentication failed") {
		t.Errorf("the right password: exit %d, %q", r.code, r.stderr)
	}
}

// TestLiveZooKeeperModeBroker: a real 3.9.2 ZooKeeper-mode broker given
// as kafka:// is named as such (exit 2), pointing at zk://. Kafka's own
// kafka-broker-api-versions shows why: the broker lists LeaderAndIsr,
// an API only ZooKeeper-mode brokers have.
func TestLiveZooKeeperModeBroker(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	c := kafkatest.StartZKCluster(t, d, zk, kafkatest.ZKClusterOptions{})
	addr := c.BootstrapServers()
	out := d.MustRun(t, "kafka.admin.BrokerApiVersionsCommand", "--bootstrap-server", addr)
	if !strings.Contains(out, "LeaderAndIsr(4)") {
		t.Fatalf("kafka-broker-api-versions does not list LeaderAndIsr:\n%s", out)
	}
	r := kmeta("image", "kafka://"+addr)
	if r.code != 2 || !strings.Contains(r.stderr, addr+" answers as a ZooKeeper-mode broker") || !strings.Contains(r.stderr, "zk://") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
