package kafkatest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/shellword"
)

// WriteTools writes into the directory bin a script for each of d's
// command-line tools that kmeta's printed commands name (kafka-configs,
// kafka-topics, kafka-acls, kafka-features, kafka-metadata-quorum,
// kafka-reassign-partitions, kafka-leader-election,
// kafka-broker-api-versions, kafka-consumer-groups, and zookeeper-shell for a release with
// ZooKeeper), each under its name with and without ".sh", as Kafka's
// tarball and package managers name them. A test puts bin first on the
// PATH of the printed lines it runs with sh, so that each runs as an
// operator would run it: the tool's class on the harness's java command
// line, KAFKA_OPTS passed to the JVM unquoted, as kafka-run-class.sh
// passes it, and zookeeper-shell's address given -server, as its script
// gives it.
func (d *Distribution) WriteTools(t testing.TB, bin string) {
	t.Helper()
	tools := map[string]string{
		"kafka-configs":             d.Tools.Configs,
		"kafka-topics":              d.Tools.Topics,
		"kafka-acls":                d.Tools.Acls,
		"kafka-features":            d.Tools.Features,
		"kafka-metadata-quorum":     d.Tools.MetadataQuorum,
		"kafka-reassign-partitions": d.Tools.Reassign,
		"kafka-leader-election":     d.Tools.LeaderElection,
		"kafka-broker-api-versions": d.Tools.APIVersions,
		"kafka-consumer-groups":     d.Tools.ConsumerGroups,
		"zookeeper-shell":           d.Tools.ZooKeeperShell,
	}
	for name, class := range tools {
		if class == "" {
			continue // not in this release
		}
		java := d.Command(context.Background(), class).Args
		words := make([]string, len(java))
		for i, w := range java {
			words[i] = shellword.Quote(w)
		}
		// The class comes last: KAFKA_OPTS goes before it.
		words = append(words[:len(words)-1], "$KAFKA_OPTS", words[len(words)-1])
		if name == "zookeeper-shell" {
			words = append(words, "-server")
		}
		script := "#!/bin/sh\nexec " + strings.Join(words, " ") + " \"$@\"\n"
		for _, n := range []string{name, name + ".sh"} {
			if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Shell runs command lines as an operator pastes kmeta's printed ones:
// with sh, d's tools (WriteTools) first on the PATH, each line in a fresh
// working directory (a line that writes a file writes it there), bounded
// by a deadline so that a tool waiting on a server cannot hang the test.
type Shell struct {
	t testing.TB
	// Bin is the directory of the tools.
	Bin string
}

// ShellTimeout bounds one line: a tool's JVM start and its requests.
const ShellTimeout = 90 * time.Second

// Shell writes d's tools into a directory of t's and returns a Shell
// whose lines find them first.
func (d *Distribution) Shell(t testing.TB) *Shell {
	t.Helper()
	bin := t.TempDir()
	d.WriteTools(t, bin)
	return &Shell{t: t, Bin: bin}
}

// Run runs line, env (NAME=VALUE) added to the environment; the output
// is stdout and stderr together, the error names the line.
func (s *Shell) Run(line string, env ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), ShellTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = s.t.TempDir()
	cmd.Env = append(append(os.Environ(), "PATH="+s.Bin+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%s: %w", line, err)
	}
	return string(out), err
}

// OK is Run that fails the test when line fails.
func (s *Shell) OK(line string, env ...string) string {
	s.t.Helper()
	out, err := s.Run(line, env...)
	if err != nil {
		s.t.Fatalf("%v\n%s", err, out)
	}
	return out
}
