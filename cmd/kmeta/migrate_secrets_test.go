package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/migrate"
)

// TestMigrateFromRedactedDumpWritesNothing: a dump written without
// --show-secrets (the default) holds the fixture's SCRAM credentials
// without salt and keys. plan blocks on it (secrets-withheld, exit 1, the
// fix naming --show-secrets) with every override given, and apply writes
// nothing. Before, plan said "ready" and apply wrote every credential
// empty.
func TestMigrateFromRedactedDumpWritesNothing(t *testing.T) {
	work := t.TempDir()
	dump := filepath.Join(work, "dump.json")
	if out, serr, code := kmetaRun(t, "zk", "dump", fixtureZK, "--out", dump); code != exitOK {
		t.Fatalf("zk dump: exit %d\n%s%s", code, out, serr)
	}
	args := []string{"--zk", "zkdump:" + dump, "--controllers", "3000@127.0.0.1:9093"}
	for _, o := range migrate.Overrides {
		args = append(args, "--override", o)
	}
	out, serr, code := kmetaRun(t, append([]string{"migrate", "plan", "-o", "json"}, args...)...)
	if code != exitFindings || !strings.Contains(out, `"code": "`+migrate.CodeSecretsWithheld+`"`) || !strings.Contains(out, "--show-secrets") {
		t.Fatalf("plan: exit %d, want 1 with %s\n%s%s", code, migrate.CodeSecretsWithheld, out, serr)
	}
	dst := filepath.Join(work, "out")
	out, serr, code = kmetaRun(t, append([]string{"migrate", "apply", "--out", dst}, args...)...)
	if code == exitOK {
		t.Fatalf("apply: exit 0\n%s%s", out, serr)
	}
	if ents, err := os.ReadDir(dst); err == nil && len(ents) > 0 {
		t.Errorf("apply from a redacted dump wrote %d entries", len(ents))
	}
	// The same dump with --show-secrets migrates.
	full := filepath.Join(work, "full.json")
	if out, serr, code := kmetaRun(t, "zk", "dump", fixtureZK, "--show-secrets", "--out", full); code != exitOK {
		t.Fatalf("zk dump --show-secrets: exit %d\n%s%s", code, out, serr)
	}
	args[1] = "zkdump:" + full
	if out, serr, code := kmetaRun(t, append([]string{"migrate", "plan"}, args...)...); code != exitOK || strings.Contains(out, migrate.CodeSecretsWithheld) {
		t.Fatalf("plan from a --show-secrets dump: exit %d\n%s%s", code, out, serr)
	}
}

// TestMigrateConfigsRedacts: configs prints the node's passwords redacted
// in text, table and JSON, with and without --dry-run, unless
// --show-secrets; the file --out writes keeps them and is mode 0600; an
// --out naming the --server-properties file is a usage error (exit 2)
// that leaves it as it was.
func TestMigrateConfigsRedacts(t *testing.T) {
	work := t.TempDir()
	sp := filepath.Join(work, "server.properties")
	secrets := []string{"keystore-pw-1", "key-pw-2", "jaas-pw-3"}
	props := "broker.id=1\nzookeeper.connect=127.0.0.1:2181/kafka\nlisteners=SASL_SSL://127.0.0.1:9092\nlog.dirs=/var/lib/kafka\n" +
		"ssl.keystore.password=" + secrets[0] + "\nssl.key.password=" + secrets[1] + "\n" +
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="b" password="` + secrets[2] + "\";\n"
	if err := os.WriteFile(sp, []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"migrate", "configs", "--server-properties", sp, "--controllers", "3000@127.0.0.1:9093"}
	holds := func(s string) (n int) {
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				n++
			}
		}
		return n
	}
	for _, format := range []string{"text", "table", "json"} {
		for _, extra := range [][]string{nil, {"--dry-run"}} {
			args := append(append(slices.Clone(base), "-o", format), extra...)
			out, serr, code := kmetaRun(t, args...)
			if code != exitOK || holds(out+serr) != 0 || !strings.Contains(out, "[redacted sha256:") {
				t.Errorf("-o %s %v: exit %d, %d secrets printed\n%s%s", format, extra, code, holds(out+serr), out, serr)
			}
			out, serr, code = kmetaRun(t, append(args, "--show-secrets")...)
			if code != exitOK || holds(out) != len(secrets) {
				t.Errorf("-o %s %v --show-secrets: exit %d, %d of %d secrets printed\n%s%s", format, extra, code, holds(out), len(secrets), out, serr)
			}
		}
	}
	dst := filepath.Join(work, "kraft.properties")
	out, serr, code := kmetaRun(t, append(slices.Clone(base), "--out", dst)...)
	if code != exitOK || holds(out+serr) != 0 {
		t.Fatalf("--out: exit %d, %d secrets printed\n%s%s", code, holds(out+serr), out, serr)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if holds(string(b)) != len(secrets) {
		t.Errorf("the written file lacks the secrets:\n%s", b)
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("written mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	rel, _ := filepath.Rel(mustGetwd(t), sp)
	for _, same := range []string{sp, rel} {
		out, serr, code = kmetaRun(t, append(slices.Clone(base), "--out", same, "--force")...)
		if code != exitFailure || !strings.Contains(serr, "--server-properties file") {
			t.Errorf("--out %s (the input): exit %d, want 2\n%s%s", same, code, out, serr)
		}
		if b, _ := os.ReadFile(sp); string(b) != props {
			t.Errorf("--out %s overwrote the input", same)
		}
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
