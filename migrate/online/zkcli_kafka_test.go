package online

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/shellword"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/zkread"
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
	zks := kafkatest.StartTLSZooKeeper(t, d, kafkatest.ZKOptions{})
	secure := zks.TLSAddr

	// A broker's file as Kafka's docs configure ZooKeeper over TLS.
	props := zks.ClientProps()
	props["broker.id"] = "1"
	props["zookeeper.connect"] = secure + "/kafka"
	confDir := filepath.Join(dir, "broker 1")
	mustDo(t, os.Mkdir(confDir, 0o755))
	path := filepath.Join(confDir, "server.properties")
	mustDo(t, os.WriteFile(path, javaprops.Format("broker 1", props), 0o644))
	zk := zkCLIOf(Input{Nodes: map[int32]*Node{1: {ID: 1, Path: path, Props: props}}})

	sh := d.Shell(t)

	// The chroot and a /migration as a migration leaves it, written
	// through the same CLI (one run, its commands on stdin).
	data := `{"version":0,"kraft_metadata_offset":42,"kraft_controller_id":3000,"kraft_metadata_epoch":1,"kraft_controller_epoch":1}`
	sh.OK(shellword.ZKShell{Name: "zookeeper-shell.sh", Connect: secure, TLSFile: path}.Line() + " <<'EOF'\ncreate /kafka ''\ncreate /kafka/migration '" + data + "'\nEOF")

	get, del := zk.Line("get", "/migration"), zk.Line("delete", "/migration")
	want := "zookeeper-shell.sh " + secure + "/kafka -zk-tls-config-file '" + path + "' "
	if !strings.HasPrefix(get, want) || get != want+"get /migration" || del != want+"delete /migration" {
		t.Fatalf("commands:\n%s\n%s\nwant them after %q", get, del, want)
	}
	if out := sh.OK(get); !strings.Contains(out, data) {
		t.Fatalf("%s printed no /migration content:\n%s", get, out)
	}
	sh.OK(del)
	if out, err := sh.Run(get); err == nil || !strings.Contains(out, "does not exist") {
		t.Fatalf("after %s, %s: %v\n%s", del, get, err, out)
	}
}

// TestZKCommandsLogInToSASLZooKeeper: the brokers log in to ZooKeeper
// with SASL and set zookeeper.set.acl=true, so what Kafka creates is
// owned by sasl:kafka and only readable by others (the ACLs
// zkread's TestFixtureZnodeACLs reads from real brokers). The commands
// stage and rollback print, run by sh as printed with ZK_CLIENT_JAAS
// naming the brokers' JAAS file, save /migration and delete it and
// /controller; the same commands without the login are refused.
func TestZKCommandsLogInToSASLZooKeeper(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	dir := t.TempDir()
	serverJAAS, clientJAAS := filepath.Join(dir, "zk-jaas.conf"), filepath.Join(dir, "broker-jaas.conf")
	mustDo(t, os.WriteFile(serverJAAS, []byte("Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required user_kafka=\"kafka-zk-secret\";\n};\n"), 0o644))
	mustDo(t, os.WriteFile(clientJAAS, []byte("Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required username=\"kafka\" password=\"kafka-zk-secret\";\n};\n"), 0o644))
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{
		Props: map[string]string{"authProvider.sasl": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"},
		JVM:   []string{"-Djava.security.auth.login.config=" + serverJAAS},
	})
	props := map[string]string{"broker.id": "1", "zookeeper.connect": zks.Addr() + "/kafka", "zookeeper.set.acl": "true"}
	zk := zkCLIOf(Input{Nodes: map[int32]*Node{1: {ID: 1, Path: "/etc/kafka/server-1.properties", Props: props}}})
	sh := d.Shell(t)
	jaas := []string{"ZK_CLIENT_JAAS=" + clientJAAS}

	// Kafka's znodes as its brokers leave them: creator (sasl:kafka) all,
	// world read; written through the CLI (one run, its commands on
	// stdin).
	const acl = "sasl:kafka:cdrwa,world:anyone:r"
	data := `{"version":0,"kraft_metadata_offset":42,"kraft_controller_id":3000,"kraft_metadata_epoch":1,"kraft_controller_epoch":1}`
	sh.OK(shellword.ZKShell{Name: "zookeeper-shell.sh", Connect: zks.Addr(), JAAS: true}.Line()+" <<'EOF'\ncreate /kafka '' "+acl+"\ncreate /kafka/migration '"+data+"' "+acl+
		"\ncreate /kafka/controller '{\"version\":2,\"brokerid\":3000}' "+acl+"\nEOF", jaas...)

	want := "KAFKA_OPTS=\"$KAFKA_OPTS -Djava.security.auth.login.config=${ZK_CLIENT_JAAS:?set it to the JAAS file the brokers log in to ZooKeeper with}\" zookeeper-shell.sh " + zks.Addr() + "/kafka "
	lines := []string{zk.Line("get", "/migration"), zk.Line("delete", "/migration"), zk.Line("delete", "/controller")}
	// At stage KRaft no file names ZooKeeper: the chroot's ACL, read by
	// kmeta, says the same login is needed.
	schemes, err := zkread.DeleteSchemes(context.Background(), zkread.LiveOptions{Servers: []string{zks.Addr()}}, "/kafka")
	if err != nil || !slices.Equal(schemes, []string{"sasl"}) {
		t.Fatalf("the chroot's delete schemes: %q, %v", schemes, err)
	}
	fromSource := zkCLIOf(Input{ZKSource: "zk://" + zks.Addr() + "/kafka", ZKDeleteSchemes: schemes})
	for i, args := range []string{"get /migration", "delete /migration", "delete /controller"} {
		if lines[i] != want+args {
			t.Fatalf("command %q, want %q", lines[i], want+args)
		}
		if l := fromSource.Line(strings.Fields(args)...); l != lines[i] {
			t.Fatalf("from the source: %q, want %q", l, lines[i])
		}
	}
	// What the chroot holds, read by kmeta's own reader (the znodes are
	// world-readable).
	holds := func() map[string]string {
		tree, err := zkread.ReadLive(context.Background(), zkread.LiveOptions{Servers: []string{zks.Addr()}, Chroot: "/kafka"})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, p := range []string{"/migration", "/controller"} {
			if n := tree.Get(p); n != nil {
				m[p] = string(n.Data)
			}
		}
		return m
	}
	// Without the login ZooKeeper refuses a delete and a write (a
	// controller started without it could not write either: stage says
	// so); the CLI exits 1 on each. Its deleteall would exit 0 all the
	// same: the printed commands delete with delete.
	anon := shellword.ZKShell{Name: "zookeeper-shell.sh", Connect: zk.Connect}
	if out, err := sh.Run(anon.Line("delete", "/migration")); err == nil || !strings.Contains(out, "Insufficient permission") {
		t.Fatalf("a delete without the login: %v\n%s", err, out)
	}
	sh.OK(anon.Line("deleteall", "/migration"))
	if out, err := sh.Run(anon.Line("set", "/migration", "{}")); err == nil || !strings.Contains(out, "Insufficient permission") {
		t.Fatalf("a write without the login: %v\n%s", err, out)
	}
	if got := holds(); got["/migration"] != data || got["/controller"] == "" {
		t.Fatalf("without the login the delete or the write went through: %q", got)
	}
	// As printed without ZK_CLIENT_JAAS set: the shell stops before the
	// CLI runs, saying what to set.
	if out, err := sh.Run(lines[1]); err == nil || !strings.Contains(out, "ZK_CLIENT_JAAS: set it to the JAAS file the brokers log in to ZooKeeper with") {
		t.Fatalf("%s without ZK_CLIENT_JAAS: %v\n%s", lines[1], err, out)
	}
	// As printed, with the login.
	if out := sh.OK(lines[0], jaas...); !strings.Contains(out, data) {
		t.Fatalf("%s printed no /migration content:\n%s", lines[0], out)
	}
	for _, l := range lines[1:] {
		sh.OK(l, jaas...)
	}
	if got := holds(); len(got) != 0 {
		t.Fatalf("after the deletes, the chroot still holds %q", got)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
