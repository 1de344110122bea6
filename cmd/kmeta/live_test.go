package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fakekafka"
)

// TestLiveSourceExits: every way a live cluster cannot be read is a
// could-not-run error, exit 2, whose message names the address, on every
// command that reads sources and in each of Kafka's spellings
// (kafka://, --bootstrap-server, --bootstrap-controller, flags anywhere
// on the line).
func TestLiveSourceExits(t *testing.T) {
	dir := t.TempDir()
	props := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gssapi := props("gssapi.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n")
	ssl := props("ssl.properties", "security.protocol=SSL\n")
	closed := fakekafka.Closed(t)
	silent := fakekafka.Silent(t)
	zkMode := fakekafka.Node(t, fakekafka.APIs{3: {0, 12}, 4: {0, 7}, 32: {0, 4}})
	old := fakekafka.Node(t, fakekafka.APIs{3: {0, 12}})
	selfSigned := fakekafka.SelfSigned(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"image", "kafka://" + closed}, "kmeta: connection refused by " + closed + ": nothing listens there\n"},
		{[]string{"image", "--bootstrap-server", closed}, "connection refused by " + closed},
		{[]string{"image", "-o", "json", "--bootstrap-controller", closed}, "connection refused by " + closed},
		{[]string{"features", "describe", "kafka://" + closed}, "connection refused by " + closed},
		{[]string{"features", "check", "--bootstrap-server", closed, "--to", "4.0"}, "connection refused by " + closed},
		{[]string{"diff", "kraft:" + fixture44, "--bootstrap-server", closed}, "connection refused by " + closed},
		{[]string{"verify", "--zk", "zkdump:" + filepath.Join("..", "..", "testdata", "zk", "dump.json"), "--bootstrap-server", closed}, "connection refused by " + closed},
		{[]string{"image", "kafka://" + silent.Addr, "--kafka-timeout", "300ms"}, "unreachable: " + silent.Addr + " did not answer within 300ms"},
		{[]string{"image", "kafka://" + zkMode.Addr}, zkMode.Addr + " answers as a ZooKeeper-mode broker"},
		{[]string{"image", "kafka://" + old.Addr}, "does not answer DescribeConfigs v0, which kmeta needs; Kafka 0.11 or newer has it"},
		{[]string{"image", "kafka://" + selfSigned.Addr, "--command-config", ssl}, "TLS handshake failed with " + selfSigned.Addr + ": x509: certificate signed by unknown authority"},
		{[]string{"image", "--command-config", gssapi, "kafka://" + closed}, gssapi + ": sasl.mechanism GSSAPI (Kerberos"},
		{[]string{"image", "--command-config", filepath.Join(dir, "nope.properties"), "kafka://" + closed}, "--command-config: client settings"},
		{[]string{"image", "kafka://" + closed, "--kafka-timeout", "0s"}, "--kafka-timeout 0s: want a positive duration"},
	} {
		start := time.Now()
		r := kmeta(tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 saying %q", tc.args, r.code, r.stderr, r.stdout, tc.want)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%q took %s", tc.args, took)
		}
	}
}
