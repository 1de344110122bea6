package online

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/shellword"
)

// TestZKCommandsReachTLSZooKeeper runs the ZooKeeper commands stage and
// rollback print, as printed, by a POSIX shell, with zookeeper-shell.sh as
// Kafka 3.9.2 ships it (ZooKeeperMainWithTlsSupportForKafka -server "$@"),
// against a ZooKeeper that takes clients only on its TLS port and only
// with a certificate (ssl.clientAuth=need), as the brokers' file
// configures them: the file's path holds a blank, so the words must be
// quoted too. The commands save /migration's content and delete it.
func TestZKCommandsReachTLSZooKeeper(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	dir := t.TempDir()
	tf := kafkatest.MakeTLS(t, d, filepath.Join(dir, "tls"), "")
	ports, err := kafkatest.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	secure := "127.0.0.1:" + strconv.Itoa(ports[0])
	kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{
		"secureClientPort":        strconv.Itoa(ports[0]),
		"secureClientPortAddress": "127.0.0.1",
		"serverCnxnFactory":       "org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location":   tf.ServerKeyStore,
		"ssl.keyStore.type":       tf.ServerKeyStoreType,
		"ssl.keyStore.password":   kafkatest.TLSPassword,
		"ssl.trustStore.location": tf.TrustPKCS12,
		"ssl.trustStore.type":     "PKCS12",
		"ssl.trustStore.password": kafkatest.TLSPassword,
		"ssl.clientAuth":          "need",
	}})

	// A broker's file as Kafka's docs configure ZooKeeper over TLS.
	props := map[string]string{
		"broker.id":                         "1",
		"zookeeper.connect":                 secure + "/kafka",
		"zookeeper.ssl.client.enable":       "true",
		"zookeeper.clientCnxnSocket":        "org.apache.zookeeper.ClientCnxnSocketNetty",
		"zookeeper.ssl.keystore.location":   tf.ClientKeyPKCS12,
		"zookeeper.ssl.keystore.type":       "PKCS12",
		"zookeeper.ssl.keystore.password":   kafkatest.TLSPassword,
		"zookeeper.ssl.truststore.location": tf.TrustPKCS12,
		"zookeeper.ssl.truststore.type":     "PKCS12",
		"zookeeper.ssl.truststore.password": kafkatest.TLSPassword,
	}
	confDir := filepath.Join(dir, "broker 1")
	if err := os.Mkdir(confDir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(confDir, "server.properties")
	if err := os.WriteFile(path, javaprops.Format("broker 1", props), 0o644); err != nil {
		t.Fatal(err)
	}
	zk := zkCLIOf(Input{Nodes: map[int32]*Node{1: {ID: 1, Path: path, Props: props}}})

	// zookeeper-shell.sh as Kafka's bin/ has it, on PATH.
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	java := d.Command(context.Background(), d.Tools.ZooKeeperShell).Args
	words := make([]string, len(java))
	for i, w := range java {
		words[i] = shellword.Quote(w)
	}
	script := "#!/bin/sh\nexec " + strings.Join(words, " ") + " -server \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "zookeeper-shell.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(line string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		return string(out)
	}

	// The chroot and a /migration as a migration leaves it, written
	// through the same CLI.
	run(zkCLI{connect: secure, tlsFile: path}.command("create", "/kafka", ""))
	data := `{"version":0,"kraft_metadata_offset":42,"kraft_controller_id":3000,"kraft_metadata_epoch":1,"kraft_controller_epoch":1}`
	run(zk.command("create", "/migration", data))

	get, del := zk.command("get", "/migration"), zk.command("delete", "/migration")
	want := "zookeeper-shell.sh " + secure + "/kafka -zk-tls-config-file '" + path + "' "
	if !strings.HasPrefix(get, want) || get != want+"get /migration" || del != want+"delete /migration" {
		t.Fatalf("commands:\n%s\n%s\nwant them after %q", get, del, want)
	}
	if out := run(get); !strings.Contains(out, data) {
		t.Fatalf("%s printed no /migration content:\n%s", get, out)
	}
	run(del)
	if out := run(zk.command("ls", "/")); !strings.Contains(out, "[]") {
		t.Fatalf("after %s, the chroot still holds:\n%s", del, out)
	}
}
