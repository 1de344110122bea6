package kafkatest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/shellword"
)

// WriteTools writes into the directory bin a script for each of d's
// command-line tools that kmeta's printed commands name (kafka-configs,
// kafka-topics, kafka-acls, kafka-features, kafka-metadata-quorum,
// kafka-reassign-partitions, kafka-leader-election,
// kafka-broker-api-versions, and zookeeper-shell for a release with
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
