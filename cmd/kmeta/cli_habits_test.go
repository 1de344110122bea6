package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// Issue 18 §4: the CLI contract on every command. Tables keep the answer
// at any width; Kafka's spellings and the usual habits work; help is
// complete and honest.

var zkDataDir = "zkdata:" + filepath.Join(zkFixture, "datadir")

// TestTablesKeepTheAnswer: at 80 columns migrate plan left out MESSAGE and
// FIX (keeping an empty WHERE), image left out REPLICAS and ISR, diff left
// out AFTER. At 80 and 60 columns every line fits, notes included, and
// each table's essential columns are there.
func TestTablesKeepTheAnswer(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		want   []string // column headers that must be drawn
		absent []string // headers that must not be (empty columns)
	}{
		{[]string{"migrate", "plan", "--zk", zkDataDir, "--controllers", "1@127.0.0.1:9093"},
			[]string{"| SEVERITY", "CODE", "MESSAGE", "FIX"}, []string{"WHERE"}},
		{[]string{"image", fixture44}, []string{"REPLICAS", "ISR", "ENDPOINTS"}, nil},
		{[]string{"diff", "kraft:" + fixture44 + "@offset=21", "kraft:" + fixture44}, []string{"ENTITY", "FIELD", "BEFORE", "AFTER"}, nil},
		{[]string{"log", "check", fixture44}, []string{"PATH", "VERDICT", "LAST"}, nil},
	} {
		for _, width := range []int{80, 60} {
			t.Setenv("COLUMNS", strconv.Itoa(width))
			r := kmeta(append(tt.args, "-o", "table")...)
			if r.code > 1 || r.stdout == "" {
				t.Errorf("%v: exit %d %s", tt.args, r.code, r.stderr)
				continue
			}
			for i, ln := range strings.Split(r.stdout, "\n") {
				// Table lines and the notes under tables fit; prose
				// lines (a diff's heading naming its sources) are not
				// tables.
				table := ln != "" && strings.ContainsRune("+|(", rune(ln[0]))
				if n := utf8.RuneCountInString(ln); table && n > width {
					t.Errorf("%v at %d: line %d is %d columns: %s", tt.args, width, i+1, n, ln)
					break
				}
			}
			if width != 80 {
				continue
			}
			for _, h := range tt.want {
				if !strings.Contains(r.stdout, h) {
					t.Errorf("%v at 80: column %s left out:\n%s", tt.args, h, r.stdout)
				}
			}
			for _, h := range tt.absent {
				if strings.Contains(r.stdout, h) {
					t.Errorf("%v at 80: empty column %s kept:\n%s", tt.args, h, r.stdout)
				}
			}
		}
	}
}

// TestKafkaSpellings: the flags of Kafka's own tools work as kmeta's.
func TestKafkaSpellings(t *testing.T) {
	same := func(name string, a, b []string) {
		t.Helper()
		ra, rb := kmeta(a...), kmeta(b...)
		if ra.code != 0 || rb.code != 0 || ra.stdout != rb.stdout || ra.stdout == "" {
			t.Errorf("%s: %v exit %d, %v exit %d, same output %v\n%s%s", name, a, ra.code, b, rb.code, ra.stdout == rb.stdout, ra.stderr, rb.stderr)
		}
	}
	same("--release-version", []string{"features", "list", "--release", "3.7"}, []string{"features", "list", "--release-version", "3.7"})
	same("--feature", []string{"features", "deps", "metadata.version=17"}, []string{"features", "deps", "--feature", "metadata.version=17"})
	same("--files", []string{"log", "dump", fixture44}, []string{"log", "dump", "--files", fixture44, "--cluster-metadata-decoder"})
	same("-ojson", []string{"image", "-o", "json", fixture44}, []string{"image", "-ojson", fixture44})
	if r := kmeta("image", "-ojson", fixture44); !json.Valid([]byte(r.stdout)) {
		t.Error("-ojson did not print JSON")
	}
}

// TestDidYouMean: a mistyped command or flag names the one meant.
func TestDidYouMean(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"imag", fixture44}, `(did you mean "image"?)`},
		{[]string{"migrate", "pln"}, `(did you mean "plan"?)`},
		{[]string{"image", "--outptu", "json", fixture44}, "(did you mean --output?)"},
		{[]string{"log", "dump", "--from-ofset", "3", fixture44}, "(did you mean --from-offset?)"},
	} {
		r := kmeta(tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, want %q in:\n%s", tt.args, r.code, tt.want, r.stderr)
		}
	}
	if r := kmeta("zzzzzz"); strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a suggestion for nothing close: %s", r.stderr)
	}
}

// TestHelpCommandPath: "kmeta help migrate plan" is plan's help, not
// migrate's.
func TestHelpCommandPath(t *testing.T) {
	want := kmeta("migrate", "plan", "--help")
	for _, args := range [][]string{{"help", "migrate", "plan"}, {"migrate", "help", "plan"}} {
		r := kmeta(args...)
		if r.code != 0 || r.stdout != want.stdout || !strings.Contains(r.stdout, "kmeta migrate plan - ") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stdout)
		}
	}
}

// TestMissingRequiredFlag: one line naming the command and the flag, and a
// pointer to the help; never the whole help.
func TestMissingRequiredFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "plan"}, "kmeta: migrate plan: --zk is required\nRun 'kmeta migrate plan --help' for usage.\n"},
		{[]string{"migrate", "configs"}, "kmeta: migrate configs: --server-properties is required\nRun 'kmeta migrate configs --help' for usage.\n"},
	} {
		if r := kmeta(tt.args...); r.code != 2 || r.stderr != tt.want || r.stdout != "" {
			t.Errorf("%v: exit %d\nstderr %q\nstdout %q", tt.args, r.code, r.stderr, r.stdout)
		}
	}
}

// visitCommands calls f on every command of a fresh tree with its path.
func visitCommands(f func(path string, cmd *cli.Command)) *cli.App {
	app := newApp(constructors, io.Discard, io.Discard)
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := strings.TrimSpace(path + " " + c.Name)
			f(p, c)
			walk(p, c.Subcommands)
		}
	}
	walk("", app.Commands)
	return app
}

// TestHelpOverTheWholeTree: no flag's help says "value" (every flag names
// what it takes) or shows two defaults ("(default: everything)" beside
// urfave's "(default: 0)"); every command says what it does, and the
// migrate subcommands explain themselves.
func TestHelpOverTheWholeTree(t *testing.T) {
	app := visitCommands(func(path string, cmd *cli.Command) {
		if cmd.Usage == "" {
			t.Errorf("%s: no usage line", path)
		}
		if strings.HasPrefix(path, "migrate ") && cmd.Description == "" {
			t.Errorf("%s: no description", path)
		}
		for _, f := range cmd.Flags {
			s := cli.FlagStringer(f)
			if name, _, _ := strings.Cut(s, "\t"); strings.Contains(name, " value") {
				t.Errorf("%s: %q has no placeholder", path, s)
			}
			if strings.Count(s, "(default:") > 1 {
				t.Errorf("%s: %q shows two defaults", path, s)
			}
		}
	})
	for _, f := range app.Flags {
		if name, _, _ := strings.Cut(cli.FlagStringer(f), "\t"); strings.Contains(name, " value") {
			t.Errorf("kmeta: %q has no placeholder", name)
		}
	}
}

// TestFlagNamesAreUrfaves: flagNames, which reads the names of urfave's
// flag types without urfave's regular expression, gives exactly what
// urfave's Names does, for every flag of every command.
func TestFlagNamesAreUrfaves(t *testing.T) {
	n := 0
	check := func(path string, flags []cli.Flag) {
		for _, f := range flags {
			if got, want := flagNames(f), f.Names(); !slices.Equal(got, want) {
				t.Errorf("%s: flagNames %q, urfave's Names %q", path, got, want)
			}
			n++
		}
	}
	app := visitCommands(func(path string, cmd *cli.Command) { check(path, cmd.Flags) })
	check("kmeta", app.Flags)
	if n < 100 {
		t.Fatalf("only %d flags visited", n)
	}
}

// TestCompletionCoversEveryCommand: the scripts are generated from the
// command tree, so each names every visible command and flag.
func TestCompletionCoversEveryCommand(t *testing.T) {
	scripts := map[string]string{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := kmeta("completion", sh)
		if r.code != 0 {
			t.Fatalf("completion %s: exit %d %s", sh, r.code, r.stderr)
		}
		scripts[sh] = r.stdout
	}
	if !strings.Contains(scripts["bash"], "complete -o default -F _kmeta kmeta") || !strings.HasPrefix(scripts["zsh"], "#compdef kmeta") {
		t.Error("bash or zsh script does not register itself")
	}
	visitCommands(func(path string, cmd *cli.Command) {
		if cmd.Hidden || cmd.Name == "help" {
			return
		}
		if !strings.Contains(scripts["bash"], `"`+path+`"`) {
			t.Errorf("bash completion lacks command %q", path)
		}
		if !strings.Contains(scripts["fish"], " -a "+cmd.Name+" ") {
			t.Errorf("fish completion lacks command %q", path)
		}
		for _, f := range cmd.Flags {
			if !strings.Contains(scripts["bash"], "--"+f.Names()[0]) {
				t.Errorf("bash completion lacks %s --%s", path, f.Names()[0])
			}
		}
	})
	if r := kmeta("completion", "tcsh"); r.code != 2 {
		t.Errorf("unknown shell: exit %d", r.code)
	}
}

// TestManPageInSync: man/kmeta.1 is what the command tree generates; after
// changing a command or flag, run `make man`.
func TestManPageInSync(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "man", "kmeta.1"))
	if err != nil {
		t.Fatal(err)
	}
	r := kmeta("man")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if r.stdout != string(want) {
		t.Error("man/kmeta.1 is out of date: run `make man`")
	}
	visitCommands(func(path string, cmd *cli.Command) {
		if !cmd.Hidden && cmd.Name != "help" && !strings.Contains(r.stdout, ".SS kmeta "+roff(path)) {
			t.Errorf("man page lacks %q", path)
		}
	})
}

// TestVersion: --version names the release, the commit and the Go
// toolchain.
func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if code := runWith(context.Background(), constructors, []string{"kmeta", "--version"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s := out.String()
	if !strings.HasPrefix(s, "kmeta "+version+" (commit ") || !strings.Contains(s, runtime.Version()) {
		t.Errorf("--version printed %q", s)
	}
}

// TestSecretFlagsFromTheEnvironment: a secret given on the command line is
// visible to every user of the host (ps, /proc), so every flag that takes
// one can also be read from the environment.
func TestSecretFlagsFromTheEnvironment(t *testing.T) {
	n := 0
	visitCommands(func(path string, cmd *cli.Command) {
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			if !strings.Contains(name, "secret") && !strings.Contains(name, "auth") && !strings.Contains(name, "password") {
				continue
			}
			if name == "show-secrets" {
				continue
			}
			n++
			sf, ok := f.(*cli.StringFlag)
			if !ok || len(sf.EnvVars) == 0 {
				t.Errorf("%s: --%s takes a secret and has no environment variable", path, name)
			}
		}
	})
	if n == 0 {
		t.Fatal("no secret flag seen: the test no longer looks at the command tree")
	}
	// The value from the environment reaches the reader, which refuses a
	// malformed one before it connects.
	t.Setenv("KMETA_ZK_AUTH", "no-colon")
	r := kmeta("zk", "image", "zk://127.0.0.1:1", "--zk-session-timeout", "2s")
	if r.code != 2 || !strings.Contains(r.stderr, "digest auth must be user:password") {
		t.Errorf("zk image with KMETA_ZK_AUTH=no-colon: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestSourceCredentialsNeverEchoed: credentials typed into a source as a
// URL carries them (kafka://USER:PASSWORD@HOST:PORT, the habit of other
// tools) are refused before anything connects, exit 2, and the password
// shows nowhere in what kmeta prints (it did in the "is not HOST:PORT"
// error).
func TestSourceCredentialsNeverEchoed(t *testing.T) {
	const pw = "Sup3rS3cret"
	for _, args := range [][]string{
		{"image", "kafka://bob:" + pw + "@127.0.0.1:1"},
		{"image", "zk://bob:" + pw + "@127.0.0.1:1/kafka"},
		{"image", "--bootstrap-server", "bob:" + pw + "@127.0.0.1:1"},
		{"verify", "--zk", "zk://bob:" + pw + "@127.0.0.1:1/kafka", "--kraft", "kafka://alice:" + pw + "@127.0.0.1:1"},
		{"lint", "kafka://bob:" + pw + "@127.0.0.1:1", "-o", "json"},
		{"roll", "check", "--node", "1", "kafka://bob:" + pw + "@127.0.0.1:1"},
	} {
		r := kmeta(args...)
		if r.code != 2 || !strings.Contains(r.stderr, "never carries credentials") || strings.Contains(r.stdout+r.stderr, pw) {
			t.Errorf("kmeta %s: exit %d\nstdout %q\nstderr %q", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// TestKafkaZooKeeperSpelling: Kafka's ZooKeeper-mode tools' --zookeeper
// HOST:PORT[/CHROOT] is --zk zk://... where a command has --zk, the last
// SOURCE argument elsewhere, anywhere on the line; a command that reads
// no ZooKeeper refuses it as any unknown flag.
func TestKafkaZooKeeperSpelling(t *testing.T) {
	app := newApp(constructors, io.Discard, io.Discard)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"kmeta", "image", "--zookeeper", "zk1:2181,zk2:2181/kafka", "-o", "json"},
			[]string{"kmeta", "image", "-o", "json", "zk://zk1:2181,zk2:2181/kafka"}},
		{[]string{"kmeta", "--zookeeper=zk1:2181/kafka", "diff", "kraft:/d"},
			[]string{"kmeta", "diff", "kraft:/d", "zk://zk1:2181/kafka"}},
		{[]string{"kmeta", "verify", "--kraft", "kraft:/d", "--zookeeper", "zk://zk1:2181/kafka"},
			[]string{"kmeta", "verify", "--kraft", "kraft:/d", "--zk", "zk://zk1:2181/kafka"}},
		{[]string{"kmeta", "migrate", "status", "--zookeeper", "zk1:2181/kafka", "--watch"},
			[]string{"kmeta", "migrate", "status", "--watch", "--zk", "zk://zk1:2181/kafka"}},
	} {
		got, err := reorderArgs(app, tc.args)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	for _, args := range [][]string{{"log", "check", "--zookeeper", "zk1:2181", "d"}, {"migrate", "--zookeeper", "zk1:2181"}, {"image", "--zookeeper"}} {
		if r := kmeta(args...); r.code != 2 || !strings.Contains(r.stderr, "--zookeeper") || !strings.Contains(r.stderr, "--help' for usage") {
			t.Errorf("%q: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	// Read as the ensemble it names.
	for _, args := range [][]string{
		{"zk", "image", "--zookeeper", "127.0.0.1:1/kafka", "--zk-session-timeout", "1s"},
		{"verify", "--kraft", fixture44, "--zookeeper", "127.0.0.1:1/kafka", "--zk-session-timeout", "1s"},
	} {
		if r := kmeta(args...); r.code != 2 || !strings.Contains(r.stderr, "zk://127.0.0.1:1/kafka: zkread: zookeeper unreachable") {
			t.Errorf("%q: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}
