package kafkatest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunEachAsSeparateJVMs: RunEach's runs print and exit exactly as the
// same runs each in a JVM of its own (Run): a success, a refusal through
// Kafka's Exit, an exception main throws, and argparse4j's own
// System.exit, on the oldest and newest releases whose tools the tests
// batch.
func TestRunEachAsSeparateJVMs(t *testing.T) {
	for _, v := range []string{Kafka39, Latest4} {
		d := Dist(t, v)
		dir := t.TempDir()
		cfg := filepath.Join(dir, "server.properties")
		props := "process.roles=controller\nnode.id=1\ncontroller.quorum.voters=1@127.0.0.1:9093\n" +
			"controller.listener.names=CONTROLLER\nlisteners=CONTROLLER://127.0.0.1:9093\nlog.dirs=" + filepath.Join(dir, "meta") + "\n"
		if err := os.WriteFile(cfg, []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
		cases := [][]string{
			{"format", "-c", cfg, "--cluster-id", "AAAAAAAAAAAAAAAAAAAAAA", "--release-version", "3.0-IV1"}, // refused, or thrown
			{"format", "-c", cfg, "--cluster-id", "AAAAAAAAAAAAAAAAAAAAAA", "--release-version", "9.9"},     // thrown
			{"format", "-c", cfg, "--bogus-flag"}, // argparse4j
			{"random-uuid"},                       // success (a fresh id each run: compared by exit and length)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		runs, err := d.RunEach(ctx, d.Tools.Storage, cases)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for i, args := range cases {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			out, errOut, err := d.Run(ctx, d.Tools.Storage, args...)
			cancel()
			exit := 0
			var ee interface{ ExitCode() int }
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			got := runs[i]
			if args[0] == "random-uuid" {
				if got.Exit != 0 || exit != 0 || len(got.Stdout) != len(out) || len(got.Stdout) == 0 {
					t.Errorf("%s %v: one JVM exit %d %q, own JVM exit %d %q", v, args, got.Exit, got.Stdout, exit, out)
				}
				continue
			}
			// A stack trace differs below the tool's main (the launcher's
			// frames): its frames are left out.
			if got.Exit != exit || string(got.Stdout) != string(out) || noFrames(got.Stderr) != noFrames(errOut) {
				t.Errorf("%s %v:\none JVM: exit %d\n%s\n%s\nown JVM: exit %d\n%s\n%s", v, args,
					got.Exit, got.Stdout, got.Stderr, exit, out, errOut)
			}
			if exit == 0 {
				t.Errorf("%s %v: Kafka accepted a case meant to be refused", v, args)
			}
		}
		t.Logf("%s: %d runs in one JVM as in their own", v, len(cases))
	}
}

// noFrames is b without its stack frames ("\tat ..." and "\t... N more").
func noFrames(b []byte) string {
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "\tat ") && !strings.HasPrefix(l, "\t... ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
