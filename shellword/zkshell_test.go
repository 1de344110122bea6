package shellword

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/toolstub"
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

// TestZKShellLinesRunInShell runs the lines with sh and the test kit's
// stand-in for the CLI: each gives the CLI exactly the words and the
// session's commands meant, a chain stops at the first failure, and an
// unset variable stops the shell before the CLI runs.
func TestZKShellLinesRunInShell(t *testing.T) {
	stub := toolstub.New(t, "zookeeper-shell")
	// run gives each call as one line: its arguments, then the lines
	// piped to it (when any), each in brackets.
	run := func(line string, env ...string) (string, []string, error) {
		out, calls, err := stub.Run(t, "", line, append(env, "KMETA_STUB_FAIL=fail")...)
		var got []string
		for _, c := range calls {
			l := "args"
			for _, a := range c.Args {
				l += " [" + a + "]"
			}
			if c.Stdin != "" {
				l += " stdin"
				for _, in := range strings.Split(strings.TrimSuffix(c.Stdin, "\n"), "\n") {
					l += " [" + in + "]"
				}
			}
			got = append(got, l)
		}
		return out, got, err
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
	_, calls, err = run(dg.Chain([]string{"create", "/controller_epoch", "5"}, []string{"delete", "/controller"}), ZKDigestVar+"=admin:pa ss")
	want = []string{
		"args [zk:2181/k] stdin [addauth digest admin:pa ss] [create /controller_epoch 5]",
		"args [zk:2181/k] stdin [addauth digest admin:pa ss] [delete /controller]",
	}
	if err != nil || !slices.Equal(calls, want) {
		t.Errorf("digest chain: %v\n%q\nwant %q", err, calls, want)
	}
	if out, calls, err := run(dg.Line("delete", "/controller")); err == nil || len(calls) != 0 || !strings.Contains(out, ZKDigestVar) {
		t.Errorf("%s unset: %v, calls %q\n%s", ZKDigestVar, err, calls, out)
	}

	ja := ZKShell{Name: "zookeeper-shell", Connect: "zk:2181/k", JAAS: true}
	if out, calls, err := run(ja.Line("delete", "/controller")); err == nil || len(calls) != 0 || !strings.Contains(out, ZKJAASVar) {
		t.Errorf("%s unset: %v, calls %q\n%s", ZKJAASVar, err, calls, out)
	}
}
