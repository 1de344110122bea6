package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMigrateNeverPrintsSecrets: every migrate command, in every output
// format, with and without --dry-run, ready or refused, prints none of
// the passwords, keys and JAAS secrets the nodes' files hold, unless
// --show-secrets; the files stage writes keep them (mode 0600), and its
// stage.json and diffs do not. Non-secret settings of the authorizer
// (super.users, allow.everyone.if.no.acl.found) stay readable in the
// diffs. The ZooKeeper source is the real 3.9.2 fixture (SCRAM
// credentials, a delegation token).
func TestMigrateNeverPrintsSecrets(t *testing.T) {
	work := t.TempDir()
	secrets := []string{"ks-pw-31337", "key-pw-4242", "ts-pw-1717", "jaas-pw-777", "token-secret-9191", "encoder-secret-5353", "zkks-pw-6464"}
	files := map[int]string{}
	var configArgs []string
	for id := 1; id <= 3; id++ {
		props := fmt.Sprintf("broker.id=%d\nzookeeper.connect=127.0.0.1:2181/kafka/prod\nlog.dirs=%s\n", id, filepath.Join(work, fmt.Sprintf("logs-%d", id))) +
			fmt.Sprintf("listeners=SASL_SSL://127.0.0.1:909%d\ninter.broker.listener.name=SASL_SSL\nsasl.enabled.mechanisms=SCRAM-SHA-512\n", id) +
			"sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512\n" +
			"ssl.keystore.location=/etc/kafka/broker.p12\nssl.keystore.type=PKCS12\nssl.keystore.password=" + secrets[0] + "\nssl.key.password=" + secrets[1] + "\n" +
			"ssl.truststore.location=/etc/kafka/trust.p12\nssl.truststore.type=PKCS12\nssl.truststore.password=" + secrets[2] + "\n" +
			`listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="kafka" password="` + secrets[3] + "\";\n" +
			"delegation.token.secret.key=" + secrets[4] + "\npassword.encoder.secret=" + secrets[5] + "\n" +
			"zookeeper.ssl.keystore.password=" + secrets[6] + "\n" +
			"authorizer.class.name=kafka.security.authorizer.AclAuthorizer\nsuper.users=User:kafka\nallow.everyone.if.no.acl.found=false\n"
		f := filepath.Join(work, fmt.Sprintf("server-%d.properties", id))
		if err := os.WriteFile(f, []byte(props), 0o600); err != nil {
			t.Fatal(err)
		}
		files[id] = f
		configArgs = append(configArgs, "--config", fmt.Sprintf("%d=%s", id, f))
		if err := os.MkdirAll(filepath.Join(work, fmt.Sprintf("logs-%d", id)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	holds := func(s string) []string {
		var out []string
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				out = append(out, sec)
			}
		}
		return out
	}
	zk := []string{"--zk", fixtureZK}
	plan := filepath.Join(work, "plan.json")
	if out, serr, code := kmetaRun(t, "migrate", "plan", "--zk", fixtureZK, "--controllers", "3000@127.0.0.1:9093",
		"--override=keep-reassignments,drop-pending-deletions", "--write", plan); code == exitFailure {
		t.Fatalf("plan --write: exit %d\n%s%s", code, out, serr)
	}
	stageOut := filepath.Join(work, "stage")
	// The fixture's data dir when its three brokers were up, as a dump
	// (secrets kept): stage refuses a point in time.
	up := filepath.Join(work, "up.json")
	if out, serr, code := kmetaRun(t, "zk", "dump", fixtureZK+"@zxid=232", "--show-secrets", "--out", up); code != exitOK {
		t.Fatalf("zk dump @zxid=232: exit %d\n%s%s", code, out, serr)
	}
	zkUp := []string{"--zk", "zkdump:" + up}
	stage := append(append([]string{"migrate", "stage", "KRaftMigration", "--controllers", "3000@127.0.0.1:9093",
		"--metadata-dir", "/var/lib/kafka/ctl-{id}", "--metadata-version", "3.9", "--out", stageOut, "--force"}, zkUp...), configArgs...)
	commands := map[string][]string{
		"plan":    {"migrate", "plan", "--zk", fixtureZK, "--controllers", "3000@127.0.0.1:9093", "--override=keep-reassignments,drop-pending-deletions"},
		"apply":   {"migrate", "apply", "--plan", plan, "--out", filepath.Join(work, "apply"), "--dry-run"},
		"brokers": {"migrate", "brokers", "--plan", plan, "--log-dirs", filepath.Join(work, "logs-1"), "--dry-run"},
		"configs": {"migrate", "configs", "--server-properties", files[1], "--controllers", "3000@127.0.0.1:9093", "--role", "controller", "--node-id", "3000", "--metadata-dir", "/var/lib/kafka/ctl"},
		"stage":   stage,
		// Refused: no --metadata-version, and no file sets the IBP.
		"stage refused": append(append([]string{"migrate", "stage", "KRaftMigration", "--controllers", "3000@127.0.0.1:9093",
			"--metadata-dir", "/var/lib/kafka/ctl-{id}", "--out", filepath.Join(work, "refused")}, zk...), configArgs...),
		"stage out of order": append(append([]string{"migrate", "stage", "PreKRaft", "--out", filepath.Join(work, "pre")}, zk...), configArgs...),
		"status":             append(append([]string{"migrate", "status"}, zk...), configArgs...),
		"rollback":           append(append([]string{"migrate", "rollback", "--out", filepath.Join(work, "rollback"), "--force"}, zk...), configArgs...),
	}
	ran := 0
	for name, args := range commands {
		for _, format := range []string{"text", "table", "json"} {
			for _, dry := range [][]string{nil, {"--dry-run"}} {
				if dry != nil && (slices.Contains(args, "--dry-run") || name == "plan" || name == "status") {
					continue
				}
				a := append(append(slices.Clone(args), "-o", format), dry...)
				out, serr, code := kmetaRun(t, a...)
				ran++
				if code == exitFailure {
					t.Errorf("%s -o %s %v: exit 2\n%s", name, format, dry, serr)
					continue
				}
				if got := holds(out + serr); len(got) > 0 {
					t.Errorf("%s -o %s %v: printed %v\n%s%s", name, format, dry, got, out, serr)
				}
				if name == "stage" && format == "text" && dry == nil {
					// The authorizer's settings are shown; the secrets as
					// their hash.
					for _, want := range []string{"+super.users=User:kafka", "+allow.everyone.if.no.acl.found=false", "+ssl.keystore.password=[redacted sha256:"} {
						if !strings.Contains(out, want) {
							t.Errorf("stage's diff lacks %q:\n%s", want, out)
						}
					}
				}
			}
		}
	}
	t.Logf("%d runs", ran)
	// --show-secrets shows them.
	if out, _, _ := kmetaRun(t, append(slices.Clone(stage), "--show-secrets")...); len(holds(out)) < 4 {
		t.Errorf("stage --show-secrets printed %v", holds(out))
	}
	// What stage wrote: the files keep every value at 0600; stage.json and
	// the diffs hold none.
	ents, err := os.ReadDir(stageOut)
	if err != nil || len(ents) == 0 {
		t.Fatalf("stage wrote nothing: %v", err)
	}
	for _, e := range ents {
		p := filepath.Join(stageOut, e.Name())
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(e.Name(), ".properties"):
			if got := holds(string(b)); len(got) < 3 {
				t.Errorf("%s keeps %v", e.Name(), got)
			}
			if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v", e.Name(), st.Mode().Perm())
			}
		default:
			if got := holds(string(b)); len(got) > 0 {
				t.Errorf("%s holds %v", e.Name(), got)
			}
		}
	}
}
