package shellword

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestZKShellLines pins the line of each way of reaching an ensemble.
func TestZKShellLines(t *testing.T) {
	for _, tc := range []struct {
		sh   ZKShell
		want string
		args []string
	}{
		{ZKShell{Name: "zookeeper-shell.sh", Connect: "zk1:2181,zk2:2181/kafka"},
			"zookeeper-shell.sh zk1:2181,zk2:2181/kafka delete /controller", []string{"delete", "/controller"}},
		{ZKShell{Name: "zookeeper-shell.sh", Connect: "[::1]:2182/kafka", TLSFile: "/etc/kafka/broker 1.properties"},
			"zookeeper-shell.sh '[::1]:2182/kafka' -zk-tls-config-file '/etc/kafka/broker 1.properties' delete /controller",
			[]string{"-zk-tls-config-file", "/etc/kafka/broker 1.properties", "delete", "/controller"}},
		{ZKShell{Name: "zookeeper-shell.sh", Connect: "zk:2181/kafka", JAAS: true},
			`KAFKA_OPTS="$KAFKA_OPTS -Djava.security.auth.login.config=${ZK_CLIENT_JAAS:?set it to the JAAS file the brokers log in to ZooKeeper with}" zookeeper-shell.sh zk:2181/kafka delete /controller`,
			[]string{"delete", "/controller"}},
		{ZKShell{Name: "zookeeper-shell", Connect: "zk:2281/kafka", TLSVar: true, Digest: true},
			`: "${KMETA_ZK_AUTH:?set it to the USER:PASSWORD kmeta read ZooKeeper with}" && printf '%s\n' "addauth digest $KMETA_ZK_AUTH" 'delete /controller' | ` +
				`zookeeper-shell zk:2281/kafka -zk-tls-config-file "${ZK_TLS_CONFIG_FILE:?set it to a file of the zookeeper.ssl.* settings the brokers reach ZooKeeper with}"`,
			[]string{"-zk-tls-config-file", "$ZK_TLS_CONFIG_FILE", "delete", "/controller"}},
	} {
		if got := tc.sh.Line("delete", "/controller"); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.sh, got, tc.want)
		}
		if got := tc.sh.Args("delete", "/controller"); !slices.Equal(got, tc.args) {
			t.Errorf("%+v: args %q, want %q", tc.sh, got, tc.args)
		}
	}
}

// TestZKShellLinesRunInShell runs the lines with sh, a stand-in CLI recording
// its arguments and its stdin: each gives the CLI exactly the words and
// the session's commands meant, a chain stops at the first failure, and
// an unset variable stops the shell before the CLI runs.
func TestZKShellLinesRunInShell(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	// The stand-in: one line per call, its arguments then its stdin
	// (only when fed one), each word in brackets; it fails when asked to
	// ("fail" as the last argument or line).
	stub := `#!/bin/sh
{ printf 'args'; for a in "$@"; do printf ' [%s]' "$a"; done
  if [ ! -t 0 ] && [ "$STUB_STDIN" = 1 ]; then printf ' stdin'; while IFS= read -r l; do printf ' [%s]' "$l"; last=$l; done; fi
  printf '\n'; } >> "$STUB_LOG"
for a in "$@"; do last=$a; done
[ "$last" = fail ] && exit 1
exit 0
`
	if err := os.WriteFile(filepath.Join(dir, "zookeeper-shell"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(line string, env ...string) (string, []string, error) {
		os.Remove(log)
		cmd := exec.Command("sh", "-c", line) // stdin: /dev/null, but for the pipes
		cmd.Env = append(append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "STUB_LOG="+log), env...)
		out, err := cmd.CombinedOutput()
		b, _ := os.ReadFile(log)
		var calls []string
		if s := strings.TrimSpace(string(b)); s != "" {
			calls = strings.Split(s, "\n")
		}
		return string(out), calls, err
	}
	sh := ZKShell{Name: "zookeeper-shell", Connect: "zk:2181/k", TLSVar: true}
	tlsEnv := ZKTLSVar + "=/etc/kafka/my server.properties"
	_, calls, err := run(sh.Chain([]string{"set", "/controller_epoch", "5"}, []string{"delete", "/controller"}), tlsEnv)
	want := []string{
		"args [zk:2181/k] [-zk-tls-config-file] [/etc/kafka/my server.properties] [set] [/controller_epoch] [5]",
		"args [zk:2181/k] [-zk-tls-config-file] [/etc/kafka/my server.properties] [delete] [/controller]",
	}
	if err != nil || !slices.Equal(calls, want) {
		t.Errorf("TLS chain: %v\n%q\nwant %q", err, calls, want)
	}
	if _, calls, err = run(sh.Chain([]string{"fail"}, []string{"delete", "/controller"}), tlsEnv); err == nil || len(calls) != 1 {
		t.Errorf("a chain after a failure: %v, calls %q", err, calls)
	}
	if out, calls, err := run(sh.Line("delete", "/controller")); err == nil || len(calls) != 0 || !strings.Contains(out, ZKTLSVar) {
		t.Errorf("%s unset: %v, calls %q\n%s", ZKTLSVar, err, calls, out)
	}

	dg := ZKShell{Name: "zookeeper-shell", Connect: "zk:2181/k", Digest: true}
	_, calls, err = run(dg.Chain([]string{"create", "/controller_epoch", "5"}, []string{"delete", "/controller"}), ZKDigestVar+"=admin:pa ss", "STUB_STDIN=1")
	want = []string{
		"args [zk:2181/k] stdin [addauth digest admin:pa ss] [create /controller_epoch 5]",
		"args [zk:2181/k] stdin [addauth digest admin:pa ss] [delete /controller]",
	}
	if err != nil || !slices.Equal(calls, want) {
		t.Errorf("digest chain: %v\n%q\nwant %q", err, calls, want)
	}
	if out, calls, err := run(dg.Line("delete", "/controller"), "STUB_STDIN=1"); err == nil || len(calls) != 0 || !strings.Contains(out, ZKDigestVar) {
		t.Errorf("%s unset: %v, calls %q\n%s", ZKDigestVar, err, calls, out)
	}

	ja := ZKShell{Name: "zookeeper-shell", Connect: "zk:2181/k", JAAS: true}
	if out, calls, err := run(ja.Line("delete", "/controller")); err == nil || len(calls) != 0 || !strings.Contains(out, ZKJAASVar) {
		t.Errorf("%s unset: %v, calls %q\n%s", ZKJAASVar, err, calls, out)
	}
}
