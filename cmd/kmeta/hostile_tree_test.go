package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/testkit/fakekafka"
)

// Issue 29's bounds, secret and html cases over the command tree: every
// command that reads a file of a kind (client settings, a node's
// server.properties, a plan, lint exceptions, ZooKeeper TLS files, and
// the TLS stores client settings name) is run with that file a FIFO,
// /dev/zero and a file larger than its kind ever is; client settings and
// server.properties that hold a malformed secret; and every report
// command reading a live cluster is run with -o html against a peer that
// lies. As TestSecretFlagsFromTheEnvironment does, the test walks the
// tree, so a command added later is covered, and it fails when it no
// longer sees the commands it knows.

// secret is a value that must appear in no output.
const secret = "Zq8xWv7Kp3"

// fileFlags are the flags that name a file kmeta reads, with the most
// bytes a file of the kind may hold.
var fileFlags = map[string]int64{
	"command-config":            1 << 20,
	"controller-command-config": 1 << 20,
	"config":                    1 << 20,
	"server-properties":         1 << 20,
	"plan":                      64 << 20,
	"exceptions":                4 << 20,
	"zk-tls-ca":                 16 << 20,
	"zk-tls-cert":               16 << 20,
	"zk-tls-key":                16 << 20,
}

// treeArgs makes a command line that reaches the reading of flag's file:
// the command's sources (a live ZooKeeper or cluster that is never
// reached: the file is read first) and the flags it requires.
func treeArgs(t *testing.T, path string, cmd *cli.Command, flag, file string) []string {
	args := strings.Fields(path)
	zk := "zk://127.0.0.1:1"
	src := "kafka://127.0.0.1:1"
	if strings.HasPrefix(flag, "zk-tls") {
		src = zk
	}
	has := func(name string) bool {
		return slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return f.Names()[0] == name })
	}
	if has("zk") {
		if strings.HasPrefix(flag, "zk-tls") {
			args = append(args, "--zk", zk)
		} else {
			args = append(args, "--zk", "zkdump:"+filepath.Join(zkFixture, "dump.json"))
		}
	}
	switch {
	case strings.Contains(cmd.ArgsUsage, "BEFORE AFTER"):
		args = append(args, src, src)
	case strings.Contains(cmd.ArgsUsage, "PHASE"):
		args = append(args, "KRaftMigration")
	case strings.Contains(cmd.ArgsUsage, "SOURCE") || strings.Contains(cmd.ArgsUsage, "kafka://"):
		args = append(args, src)
	}
	if has("zk") && !strings.HasPrefix(flag, "zk-tls") && flag != "plan" && has("bootstrap-controller") && path != "verify" {
		args = append(args, "--bootstrap-controller", "127.0.0.1:1")
	}
	if path == "verify" {
		if strings.HasSuffix(flag, "command-config") {
			args = append(args, "--bootstrap-server", "127.0.0.1:1")
		} else {
			args = append(args, "--kraft", "kraft:"+fixture44)
		}
	}
	switch path {
	case "features check":
		args = append(args, "--to", "4.0")
	case "features upgrade", "features downgrade":
		args = append(args, "--metadata", "3.9")
	case "features disable":
		args = append(args, "--feature", "group.version")
	case "migrate apply":
		args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
	case "migrate brokers":
		args = append(args, "--log-dirs", t.TempDir())
	case "migrate configs":
		args = append(args, "--controllers", "3000@127.0.0.1:9093", "--role", "broker")
		if flag != "server-properties" {
			args = append(args, "--server-properties", filepath.Join(t.TempDir(), "absent.properties"))
		}
	case "migrate stage":
		args = append(args, "--controllers", "3000@127.0.0.1:9093", "--metadata-dir", "/var/lib/kafka/ctl", "--out", filepath.Join(t.TempDir(), "out"))
	case "restore":
		args = append(args, "--to", "kraft:"+fixture44+"@offset=149")
	case "quorum rebuild":
		args = append(args, "--from", fixture44, "--controllers", "3000@127.0.0.1:9093", "--out", filepath.Join(t.TempDir(), "out"), "--dry-run")
	case "roll check", "roll wait", "roll plan":
		if flag == "controller-command-config" {
			// Read when the controllers are asked: the source is them.
			args = append(slices.DeleteFunc(args, func(a string) bool { return a == src }), "--bootstrap-controller", "127.0.0.1:1")
		}
		switch path {
		case "roll plan":
			args = append(args, "--nodes", "1")
		case "roll check":
			args = append(args, "--node", "1")
		default:
			// roll wait waits for a cluster that does not answer (it may
			// be restarting): bounded, so that a file read late fails
			// the test rather than hanging it.
			args = append(args, "--node", "1", "--timeout", "5s")
		}
	}
	switch flag {
	case "config":
		file = "1=" + file
	case "zk-tls-cert", "zk-tls-key":
		// The pair is read together: the other one is a regular file.
		other := filepath.Join(t.TempDir(), "other.pem")
		os.WriteFile(other, []byte("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"), 0o600)
		pair := map[string]string{"zk-tls-cert": "zk-tls-key", "zk-tls-key": "zk-tls-cert"}[flag]
		args = append(args, "--"+pair, other)
	}
	return append(args, "--"+flag, file)
}

// treeFiles lists, for every command, the file flags it takes.
func treeFiles(t *testing.T) map[string][]string {
	out := map[string][]string{}
	visitCommands(func(path string, cmd *cli.Command) {
		if cmd.Action == nil {
			return
		}
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			if _, ok := fileFlags[name]; !ok {
				continue
			}
			switch {
			case strings.HasSuffix(name, "command-config") && slices.Contains([]string{"migrate plan", "migrate apply", "migrate brokers", "history"}, path):
				// A live cluster is never a migration source, nor a log
				// with a history: these refuse it before any client
				// setting is read.
				continue
			case strings.HasPrefix(name, "zk-tls") && slices.Contains([]string{"history", "restore"}, path):
				// They read no live ZooKeeper: history reads data dirs,
				// restore writes to a Kafka cluster.
				continue
			}
			out[path] = append(out[path], name)
		}
	})
	// The commands the issue names must be seen: the walk still works.
	for _, want := range []string{"image", "lint", "migrate status", "migrate stage", "migrate rollback", "migrate configs", "quorum describe", "zk dump", "verify", "diff"} {
		if len(out[want]) == 0 {
			t.Fatalf("the walk no longer sees %s's file flags", want)
		}
	}
	return out
}

func commandOf(path string) *cli.Command {
	var found *cli.Command
	visitCommands(func(p string, cmd *cli.Command) {
		if p == path {
			found = cmd
		}
	})
	return found
}

// kmetaWithin runs kmeta and fails the test when it takes longer than d.
func kmetaWithin(t *testing.T, d time.Duration, args ...string) cliResult {
	t.Helper()
	start := time.Now()
	r := kmeta(args...)
	if took := time.Since(start); took > d {
		t.Errorf("kmeta %s took %s (bound %s)", strings.Join(args, " "), took.Round(time.Millisecond), d)
	}
	return r
}

// TestTreeSpecialFiles: a FIFO, /dev/zero or a file larger than its kind
// as any file a command reads is refused at once (exit 2), naming the
// file and why; nothing hangs, nothing grows.
func TestTreeSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here")
	}
	n := 0
	for path, flags := range treeFiles(t) {
		cmd := commandOf(path)
		for _, flag := range flags {
			big := filepath.Join(t.TempDir(), "big")
			f, err := os.Create(big)
			if err != nil {
				t.Fatal(err)
			}
			f.Truncate(fileFlags[flag] + 1) // sparse: costs no disk
			f.Close()
			for _, c := range []struct{ file, says string }{
				{fifo, "not a regular file (a FIFO)"},
				{"/dev/zero", "not a regular file (a character device)"},
				{big, "too large"},
			} {
				n++
				r := kmetaWithin(t, 10*time.Second, treeArgs(t, path, cmd, flag, c.file)...)
				if r.code != exitFailure || !strings.Contains(r.stderr, c.file) || !strings.Contains(r.stderr, c.says) {
					t.Errorf("%s --%s %s: exit %d, want 2 saying %q\nstderr %s", path, flag, c.file, r.code, c.says, r.stderr)
				}
			}
		}
	}
	t.Logf("%d runs", n)
}

// TestTreeStoresInClientSettings: the TLS stores client settings name
// (ssl.truststore.location, ssl.keystore.location) are refused the same
// way, by every command that reads client settings.
func TestTreeStoresInClientSettings(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here")
	}
	for path, flags := range treeFiles(t) {
		cmd := commandOf(path)
		for _, flag := range flags {
			if !strings.HasSuffix(flag, "command-config") {
				continue
			}
			for _, key := range []string{"ssl.truststore.location", "ssl.keystore.location"} {
				for _, store := range []string{fifo, "/dev/zero"} {
					props := filepath.Join(t.TempDir(), "client.properties")
					body := "security.protocol=SSL\nssl.truststore.type=PKCS12\nssl.keystore.type=PKCS12\n" + key + "=" + store + "\n"
					os.WriteFile(props, []byte(body), 0o600)
					args := treeArgs(t, path, cmd, flag, props)
					if flag == "controller-command-config" {
						// The controllers' settings are used when a
						// controller is asked: ask one.
						if strings.Contains(cmd.ArgsUsage, "BEFORE AFTER") || strings.Contains(cmd.ArgsUsage, "TARGET") ||
							!hasFlagName(cmd.Flags, []string{"bootstrap-controller"}) {
							continue
						}
						args = slices.DeleteFunc(args, func(a string) bool { return a == "kafka://127.0.0.1:1" })
						if i := slices.Index(args, "--bootstrap-server"); i >= 0 {
							args[i] = "--bootstrap-controller"
						} else if !slices.Contains(args, "--bootstrap-controller") {
							args = append(args, "--bootstrap-controller", "127.0.0.1:1")
						}
					}
					r := kmetaWithin(t, 10*time.Second, args...)
					if r.code != exitFailure || !strings.Contains(r.stderr, key) || !strings.Contains(r.stderr, "not a regular file") {
						t.Errorf("%s --%s, %s=%s: exit %d\nstderr %s", path, flag, key, store, r.code, r.stderr)
					}
				}
			}
		}
	}
}

// TestTreeSecretsNeverEchoed: malformed client settings and
// server.properties holding a secret are refused without printing it,
// whatever the key and however the value is broken.
func TestTreeSecretsNeverEchoed(t *testing.T) {
	client := []string{
		// A value where a key=value option belongs, a bare word, a
		// module name that is a value, an unclosed quote.
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password:` + secret + `;`,
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ` + secret + `;`,
		`sasl.jaas.config=` + secret + ` required username="u" password="p";`,
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="` + secret,
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="` + secret + `";`,
		// A bad \u escape in the properties file itself.
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="\u` + secret[:4] + `";`,
		`ssl.truststore.password=\uZq8x` + secret,
	}
	server := []string{
		`ssl.keystore.password=\u` + secret[:4] + secret,
		`listener.name.internal.plain.sasl.jaas.config=x required password="\u` + secret[:4] + `";`,
	}
	n := 0
	for path, flags := range treeFiles(t) {
		cmd := commandOf(path)
		for _, flag := range flags {
			var bodies []string
			switch flag {
			case "command-config", "controller-command-config":
				for _, b := range client {
					bodies = append(bodies, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+b+"\n")
				}
			case "config", "server-properties":
				for _, b := range server {
					bodies = append(bodies, "broker.id=1\n"+b+"\n")
				}
			default:
				continue
			}
			for _, body := range bodies {
				n++
				f := filepath.Join(t.TempDir(), "settings.properties")
				os.WriteFile(f, []byte(body), 0o600)
				r := kmetaWithin(t, 10*time.Second, treeArgs(t, path, cmd, flag, f)...)
				if r.code != exitFailure || strings.Contains(r.stdout+r.stderr, secret) || strings.Contains(r.stdout+r.stderr, secret[:4]) {
					t.Errorf("%s --%s %q: exit %d\nstdout %s\nstderr %s", path, flag, body, r.code, r.stdout, r.stderr)
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d runs: the walk no longer reaches the settings readers", n)
	}
}

// TestTreeHTMLFromALyingPeer: every report command that reads a live
// cluster, with -o html, against a peer that names a topic with markup
// (escaped in the page) and one that reports 100,000 voters (refused:
// no page of tens of megabytes), within the timeout.
func TestTreeHTMLFromALyingPeer(t *testing.T) {
	const markupText = `</script><script>alert("kmeta")</script>`
	markup := fakekafka.Broker(t, fakekafka.Cluster{Topics: 1, Edit: func(resp kmsg.Response) { markupPeer(resp, markupText) }})
	badName := fakekafka.Broker(t, fakekafka.Cluster{Topics: 1, Edit: func(resp kmsg.Response) { renameTopics(resp, markupText) }})
	voters := fakekafka.Broker(t, fakekafka.Cluster{Voters: 100_000})
	n := 0
	visitCommands(func(path string, cmd *cli.Command) {
		if cmd.Action == nil || !isReportCommand(cmd) || !hasFlagName(cmd.Flags, []string{"bootstrap-server"}) {
			return
		}
		if strings.HasPrefix(path, "migrate ") {
			return // a live cluster is never a migration source
		}
		src := func(addr string) []string {
			args := []string{"-o", "html", "--report-time", "2026-01-02T15:04:05Z", "--kafka-timeout", "5s"}
			switch {
			case path == "diff":
				return append(append(args, "kraft:"+fixture44), "kafka://"+addr)
			case path == "verify":
				return append(args, "--zk", "zkdump:"+filepath.Join(zkFixture, "dump.json"), "--bootstrap-server", addr)
			}
			return append(args, "kafka://"+addr)
		}
		n++
		r := kmetaWithin(t, 8*time.Second, append(strings.Fields(path), src(markup.Addr)...)...)
		if strings.Contains(r.stdout, "<script>alert(") || !strings.HasPrefix(r.stdout, "<!DOCTYPE html>") {
			t.Errorf("%s -o html: a peer's markup reached the page unescaped, or no page (exit %d)\nstderr %s", path, r.code, r.stderr)
		}
		// A topic name no Kafka accepts is a lie, not a name to render.
		if r = kmetaWithin(t, 8*time.Second, append(strings.Fields(path), src(badName.Addr)...)...); (r.code != exitFailure || strings.Contains(r.stdout, "<script>alert(")) && path != "quorum describe" {
			t.Errorf("%s -o html, a topic named with markup: exit %d\nstderr %s", path, r.code, r.stderr)
		}
		r = kmetaWithin(t, 8*time.Second, append(strings.Fields(path), src(voters.Addr)...)...)
		if r.code != exitFailure || len(r.stdout) > 1<<20 || !strings.Contains(r.stderr, "100000 voters") {
			t.Errorf("%s -o html, 100,000 voters: exit %d, %d bytes\nstderr %s", path, r.code, len(r.stdout), r.stderr)
		}
	})
	if n < 3 {
		t.Fatalf("%d report commands read a live cluster: the walk no longer sees them", n)
	}
}

// markupPeer edits a fake broker's DescribeCluster answer: the cluster id
// and every broker's rack hold markup (a rack is the operator's free
// text; a lying peer may send anything).
func markupPeer(resp kmsg.Response, markup string) {
	if r, ok := resp.(*kmsg.DescribeClusterResponse); ok {
		r.ClusterID = markup
		for i := range r.Brokers {
			r.Brokers[i].Rack = &markup
		}
	}
}

// renameTopics gives every topic of a Metadata or DescribeTopicPartitions
// answer the name given (a peer that lies: Kafka's topic names are
// [a-zA-Z0-9._-]).
func renameTopics(resp kmsg.Response, name string) {
	switch r := resp.(type) {
	case *kmsg.MetadataResponse:
		for i := range r.Topics {
			r.Topics[i].Topic = &name
		}
	case *kmsg.DescribeTopicPartitionsResponse:
		for i := range r.Topics {
			r.Topics[i].Topic = &name
		}
	}
}
