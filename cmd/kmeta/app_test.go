package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// testCommands exercise the conventions without depending on readers.
func testCommands() []func() *cli.Command {
	return []func() *cli.Command{
		func() *cli.Command {
			return &cli.Command{Name: "ok", Action: func(c *cli.Context) error {
				fmt.Fprintln(stdout(c), "done")
				verbosef(c, "diagnostic %d", 1)
				return nil
			}}
		},
		func() *cli.Command {
			return &cli.Command{Name: "find", Action: func(c *cli.Context) error { return findingsf("%d differences", 3) }}
		},
		func() *cli.Command {
			return &cli.Command{Name: "quiet", Action: func(c *cli.Context) error { return errFindingsReported }}
		},
		func() *cli.Command {
			return &cli.Command{Name: "fail", Action: func(c *cli.Context) error {
				return fmt.Errorf("reading x: %w", errors.New("boom"))
			}}
		},
		func() *cli.Command {
			return &cli.Command{Name: "exit3", Action: func(c *cli.Context) error { return cli.Exit("odd", 3) }}
		},
		func() *cli.Command {
			return &cli.Command{Name: "group", Subcommands: []*cli.Command{{
				Name:  "leaf",
				Flags: []cli.Flag{&cli.IntFlag{Name: "n"}},
				Action: func(c *cli.Context) error {
					args, err := checkArgs(c, 0, 1, "[NAME]")
					if err != nil {
						return err
					}
					fmt.Fprintf(stdout(c), "format=%s secrets=%v verbose=%v n=%d args=%q\n",
						outputFormat(c), showSecrets(c), isVerbose(c), c.Int("n"), args)
					return nil
				},
			}}}
		},
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func runTest(t *testing.T, cmds []func() *cli.Command, args ...string) result {
	t.Helper()
	var out, errw bytes.Buffer
	code := runWith(context.Background(), cmds, append([]string{"kmeta"}, args...), &out, &errw)
	return result{code, out.String(), errw.String()}
}

func TestExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		code      int
		stdout    string // substring; "" = must be empty
		stderr    string // substring; "" = must be empty
		stdoutAny bool   // stdout not checked (help text)
	}{
		{args: []string{"ok"}, code: 0, stdout: "done\n"},
		{args: []string{"-v", "ok"}, code: 0, stdout: "done\n", stderr: "diagnostic 1\n"},
		{args: []string{"ok", "-v"}, code: 0, stdout: "done\n", stderr: "diagnostic 1\n"},
		{args: []string{"find"}, code: 1, stderr: "kmeta: 3 differences\n"},
		{args: []string{"quiet"}, code: 1},
		{args: []string{"fail"}, code: 2, stderr: "kmeta: reading x: boom\n"},
		{args: []string{"exit3"}, code: 2, stderr: "kmeta: odd\n"},
		{args: []string{"--help"}, code: 0, stdoutAny: true},
		{args: []string{"group", "leaf", "--help"}, code: 0, stdoutAny: true},
		{args: []string{"--version"}, code: 0, stdout: "kmeta dev (commit "},
		// Usage errors: exit 2, message and hint on stderr, nothing on stdout.
		{args: []string{"--bogus"}, code: 2, stderr: "kmeta: unknown flag --bogus for kmeta\nRun 'kmeta --help' for usage.\n"},
		// Unknown flags are echoed as typed, wherever they are.
		{args: []string{"group", "leaf", "a", "--bogus=1"}, code: 2, stderr: "kmeta: unknown flag --bogus for kmeta group leaf\nRun 'kmeta group leaf --help' for usage.\n"},
		{args: []string{"group", "leaf", "-x"}, code: 2, stderr: "kmeta: unknown flag -x for kmeta group leaf\n"},
		{args: []string{"group", "leaf", "--n", "x"}, code: 2,
			stderr: "kmeta: invalid value \"x\" for flag -n: parse error\nRun 'kmeta group leaf --help' for usage.\n"},
		{args: []string{"nope"}, code: 2, stderr: "kmeta: unknown command \"nope\" for \"kmeta\"\n"},
		{args: []string{"group", "nope"}, code: 2, stderr: "kmeta: unknown command \"nope\" for \"kmeta group\"\n"},
		{args: []string{"-o", "xml", "ok"}, code: 2, stderr: "kmeta: --output: unknown output format \"xml\""},
		{args: []string{"ok", "-o", "xml"}, code: 2, stderr: "kmeta: --output: unknown output format \"xml\""},
		{args: []string{"group", "leaf", "a", "b"}, code: 2, stderr: "kmeta: too many arguments (want [NAME])\n"},
		// Flags after the arguments are flags (reorderArgs).
		{args: []string{"group", "leaf", "a", "-o", "json"}, code: 0, stdout: "format=json secrets=false verbose=false n=0 args=[\"a\"]\n"},
		// A bare app or group shows its help and still exits 2.
		{args: nil, code: 2, stdoutAny: true, stderr: "kmeta: missing command\n"},
		{args: []string{"group"}, code: 2, stdoutAny: true, stderr: "kmeta: missing command\n"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runTest(t, testCommands(), tt.args...)
			if r.code != tt.code {
				t.Errorf("exit code %d, want %d (stdout %q, stderr %q)", r.code, tt.code, r.stdout, r.stderr)
			}
			if !tt.stdoutAny && (tt.stdout == "" && r.stdout != "" || !strings.Contains(r.stdout, tt.stdout)) {
				t.Errorf("stdout %q, want %q", r.stdout, tt.stdout)
			}
			if tt.stdoutAny && r.stdout == "" {
				t.Error("stdout empty, want help text")
			}
			if tt.stderr == "" && r.stderr != "" || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr %q, want %q", r.stderr, tt.stderr)
			}
		})
	}
}

func TestCommonFlagsAnyPosition(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"group", "leaf"}, "format=text secrets=false verbose=false n=0 args=[]\n"},
		{[]string{"-o", "json", "group", "leaf"}, "format=json secrets=false verbose=false n=0 args=[]\n"},
		{[]string{"group", "-o", "table", "leaf"}, "format=table secrets=false verbose=false n=0 args=[]\n"},
		{[]string{"group", "leaf", "--output=json", "--show-secrets", "-v", "--n", "3", "x"},
			"format=json secrets=true verbose=true n=3 args=[\"x\"]\n"},
		// The flag closest to the command wins.
		{[]string{"-o", "table", "group", "leaf", "-o", "json"}, "format=json secrets=false verbose=false n=0 args=[]\n"},
		{[]string{"--show-secrets", "group", "leaf"}, "format=text secrets=true verbose=false n=0 args=[]\n"},
		{[]string{"group", "leaf", "--", "-1"}, "format=text secrets=false verbose=false n=0 args=[\"-1\"]\n"},
		// Flags after positional arguments: a flag keeps its value, a bool
		// flag takes none, "--" ends the flags, a negative number that is
		// no flag stays an argument.
		{[]string{"group", "leaf", "x", "--n", "3", "-o", "json"}, "format=json secrets=false verbose=false n=3 args=[\"x\"]\n"},
		{[]string{"group", "leaf", "x", "--n=4"}, "format=text secrets=false verbose=false n=4 args=[\"x\"]\n"},
		{[]string{"group", "leaf", "--show-secrets", "x"}, "format=text secrets=true verbose=false n=0 args=[\"x\"]\n"},
		{[]string{"group", "leaf", "x", "--show-secrets"}, "format=text secrets=true verbose=false n=0 args=[\"x\"]\n"},
		{[]string{"group", "leaf", "-o", "json", "--", "-o"}, "format=json secrets=false verbose=false n=0 args=[\"-o\"]\n"},
		{[]string{"group", "leaf", "-5", "-o", "json"}, "format=json secrets=false verbose=false n=0 args=[\"-5\"]\n"},
		{[]string{"group", "leaf", "--n", "-5"}, "format=text secrets=false verbose=false n=-5 args=[]\n"},
	} {
		r := runTest(t, testCommands(), tt.args...)
		if r.code != 0 || r.stdout != tt.want {
			t.Errorf("%v: code %d stdout %q stderr %q, want %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestRegisteredCommands runs the real command tree: every registered
// command builds, names are unique, and help lists them.
func TestRegisteredCommands(t *testing.T) {
	r := runTest(t, constructors, "--help")
	if r.code != 0 {
		t.Fatalf("--help: exit %d, stderr %q", r.code, r.stderr)
	}
	seen := map[string]bool{}
	for _, newCommand := range constructors {
		cmd := newCommand()
		if seen[cmd.Name] {
			t.Errorf("command %q registered twice", cmd.Name)
		}
		seen[cmd.Name] = true
		if !cmd.Hidden && !strings.Contains(r.stdout, cmd.Name) {
			t.Errorf("help does not list %q", cmd.Name)
		}
	}
	if !seen["image"] {
		t.Error("image command not registered")
	}
	// Running twice works: commands are built fresh per run.
	if r2 := runTest(t, constructors, "--help"); r2.stdout != r.stdout {
		t.Error("second run's help differs")
	}
}

func TestImageShow(t *testing.T) {
	img := model.NewImage()
	img.ClusterID = "abc"
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{"ssl.key.password": "hunter2"}
	var gotSource string
	load := func(c *cli.Context, source string) (*model.Image, error) {
		gotSource = source
		if source == "missing" {
			return nil, errors.New("no such file")
		}
		return img, nil
	}
	cmds := []func() *cli.Command{func() *cli.Command {
		return imageCommand(func(c *cli.Context, source string, _ *metalog.Timeline) (*model.Image, error) { return load(c, source) })
	}}

	var want bytes.Buffer
	if err := printer.WriteImage(&want, printer.JSON, img, printer.ImageOptions{}); err != nil {
		t.Fatal(err)
	}
	r := runTest(t, cmds, "-o", "json", "image", "kraft:/x")
	if r.code != 0 || r.stdout != want.String() || gotSource != "kraft:/x" {
		t.Errorf("json: code %d source %q stdout\n%s\nwant\n%s", r.code, gotSource, r.stdout, want.String())
	}
	if strings.Contains(r.stdout, "hunter2") {
		t.Error("secret printed without --show-secrets")
	}
	r = runTest(t, cmds, "image", "--show-secrets", "kraft:/x")
	if r.code != 0 || !strings.Contains(r.stdout, "ssl.key.password=hunter2") || !strings.HasPrefix(r.stdout, "cluster id: abc\n") {
		t.Errorf("text --show-secrets: code %d stdout %q", r.code, r.stdout)
	}
	r = runTest(t, cmds, "image", "missing")
	if r.code != 2 || r.stderr != "kmeta: no such file\n" || r.stdout != "" {
		t.Errorf("load error: %+v", r)
	}
	r = runTest(t, cmds, "image")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "kmeta: missing SOURCE\n") {
		t.Errorf("missing source: %+v", r)
	}
}

func TestExitCodeMapping(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{findings(errors.New("x")), 1},
		{fmt.Errorf("wrapped: %w", findings(errors.New("x"))), 1},
		{errFindingsReported, 1},
		{errors.New("x"), 2},
		{cli.Exit("", 0), 0},
		{cli.Exit("", 1), 1},
		{cli.Exit("", 5), 2},
	} {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
	if findings(nil) != nil {
		t.Error("findings(nil) != nil")
	}
	inner := errors.New("inner")
	if !errors.Is(findings(inner), inner) {
		t.Error("findings does not wrap its error")
	}
}
