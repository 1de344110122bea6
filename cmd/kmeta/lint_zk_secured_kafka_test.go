package main

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/shellword"
)

// TestLintZooKeeperFixOnSecuredEnsemble: the zookeeper-shell fix of
// zk-controller-inconsistent, read from an ensemble that takes clients
// only over TLS with a certificate, whose chroot only a digest user may
// change (as an ensemble whose znodes Kafka secured lets only its own
// login and the super user change them), runs as printed: sh runs it
// with Kafka 3.9.2's zookeeper-shell, the brokers' TLS settings file in
// $ZK_TLS_CONFIG_FILE and kmeta's digest credentials in $KMETA_ZK_AUTH,
// and the finding clears. Without the variables the shell stops before
// the CLI runs; without the login ZooKeeper refuses the delete.
func TestLintZooKeeperFixOnSecuredEnsemble(t *testing.T) {
	kafkatest.Concurrently(t, 5*time.Second) // make test, 2026-12-07: one ZooKeeper, three CLI runs
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartTLSZooKeeper(t, d, kafkatest.ZKOptions{})
	dir := t.TempDir()
	confDir := filepath.Join(dir, "broker 1")
	tlsFile := filepath.Join(confDir, "server.properties")
	for _, err := range []error{os.Mkdir(confDir, 0o755),
		os.WriteFile(tlsFile, javaprops.Format("broker 1", zks.ClientProps()), 0o600)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	sh := d.Shell(t).Run
	const auth = "admin:s3cret"
	sum := sha1.Sum([]byte(auth))
	acl := "digest:admin:" + base64.StdEncoding.EncodeToString(sum[:]) + ":cdrwa,world:anyone:r"

	// /controller names broker 7, which is not registered: a controller
	// that died with its session kept alive, say. The chroot is the
	// digest user's to change.
	setup := "zookeeper-shell " + zks.TLSAddr + " -zk-tls-config-file '" + tlsFile + "' <<'EOF'\n" +
		"create /kafka ''\ncreate /kafka/brokers ''\ncreate /kafka/brokers/ids ''\n" +
		`create /kafka/brokers/ids/1 '{"version":5,"host":"b1","port":9092,"endpoints":["PLAINTEXT://b1:9092"],"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"jmx_port":-1,"timestamp":"1700000000000"}'` + "\n" +
		`create /kafka/controller '{"version":2,"brokerid":7,"timestamp":"1700000000000"}'` + "\n" +
		"create /kafka/controller_epoch 3\nsetAcl /kafka " + acl + "\nEOF"
	if out, err := sh(setup); err != nil || strings.Contains(out, "Insufficient permission") {
		t.Fatalf("setup: %v\n%s", err, out)
	}

	src := "zk://" + zks.TLSAddr + "/kafka"
	args := []string{"lint", "-o", "json", "--zk-tls-ca", zks.CA, "--zk-tls-cert", zks.ClientCert, "--zk-tls-key", zks.ClientKey, "--zk-auth", auth, src}
	fixOf := func() (string, bool) {
		t.Helper()
		r := kmetaOf(t, args...)
		var doc struct {
			Findings []struct{ Code, Fix string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("lint: exit %d: %v\n%s", r.code, err, r.stderr)
		}
		for _, f := range doc.Findings {
			if f.Code == "zk-controller-inconsistent" {
				return f.Fix, true
			}
		}
		return "", false
	}
	fix, ok := fixOf()
	want := `: "${KMETA_ZK_AUTH:?set it to the USER:PASSWORD kmeta read ZooKeeper with}" && printf '%s\n' "addauth digest $KMETA_ZK_AUTH" 'delete /controller' | ` +
		`zookeeper-shell ` + zks.TLSAddr + `/kafka -zk-tls-config-file "${ZK_TLS_CONFIG_FILE:?set it to a file of the zookeeper.ssl.* settings the brokers reach ZooKeeper with}"`
	if !ok || fix != want {
		t.Fatalf("fix %q (found %v), want %q", fix, ok, want)
	}
	tlsEnv, authEnv := "ZK_TLS_CONFIG_FILE="+tlsFile, "KMETA_ZK_AUTH="+auth
	for _, env := range [][]string{{tlsEnv}, {authEnv}} {
		if out, err := sh(fix, env...); err == nil || !strings.Contains(out, "set it to") {
			t.Errorf("with only %s, the fix did not stop in the shell: %v\n%s", env, err, out)
		}
	}
	// The same command without the login: ZooKeeper refuses, exit 1.
	noLogin := "zookeeper-shell " + zks.TLSAddr + `/kafka -zk-tls-config-file "$ZK_TLS_CONFIG_FILE" delete /controller`
	if out, err := sh(noLogin, tlsEnv); err == nil || !strings.Contains(out, "Insufficient permission") {
		t.Errorf("without the login, the delete was not refused: %v\n%s", err, out)
	}
	if _, still := fixOf(); !still {
		t.Fatalf("the finding cleared before its fix ran")
	}
	if out, err := sh(fix, tlsEnv, authEnv); err != nil {
		t.Fatalf("%s: %v\n%s", fix, err, out)
	}
	if fix, still := fixOf(); still {
		t.Errorf("the finding holds after its fix ran (fix now %q)", fix)
	}

	// roll plan's gates read the ensemble as kmeta did: the password from
	// $KMETA_ZK_AUTH, checked before kmeta runs, never on the line.
	r := kmetaOf(t, "roll", "plan", "-o", "json", "--nodes", "1", "--zk-tls-ca", zks.CA, "--zk-tls-cert", zks.ClientCert, "--zk-tls-key", zks.ClientKey, "--zk-auth", auth, src)
	var plan struct {
		Steps []struct {
			Check     string
			CheckArgs []string
			Env       []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || r.code != 0 || len(plan.Steps) != 1 {
		t.Fatalf("roll plan: exit %d, %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	step := plan.Steps[0]
	wantArgs := []string{"roll", "check", "--node", "1", src, "--zk-tls-ca", zks.CA, "--zk-tls-cert", zks.ClientCert, "--zk-tls-key", zks.ClientKey}
	if !slices.Equal(step.Env, []string{"KMETA_ZK_AUTH"}) || !slices.Equal(step.CheckArgs, wantArgs) ||
		step.Check != `: "${KMETA_ZK_AUTH:?set it to the USER:PASSWORD kmeta read ZooKeeper with}" && kmeta `+shellword.Join(wantArgs) {
		t.Errorf("roll plan's gate: %+v", step)
	}
}
