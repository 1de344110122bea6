package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fixtureDump is a committed real-Kafka data file and the DumpLogSegments
// output the same Kafka printed for it.
type fixtureDump struct{ data, dump string }

// fixtureDumps lists testdata/kraft/**/metadata/**/<file> that have Kafka's
// own output in the sibling dumps/<file>.txt (see testdata/kraft/README.md).
func fixtureDumps(t *testing.T) []fixtureDump {
	t.Helper()
	var out []fixtureDump
	filepath.WalkDir(filepath.Join("..", "..", "testdata", "kraft"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(p)) != "dumps" || strings.HasSuffix(p, ".stderr.txt") {
			return nil
		}
		name := strings.TrimSuffix(filepath.Base(p), ".txt")
		root := filepath.Join(filepath.Dir(filepath.Dir(p)), "metadata")
		for _, cand := range []string{filepath.Join(root, name), filepath.Join(root, "__cluster_metadata-0", name)} {
			if _, err := os.Stat(cand); err == nil {
				out = append(out, fixtureDump{data: cand, dump: p})
				return nil
			}
		}
		t.Errorf("%s: no data file %s under %s", p, name, root)
		return nil
	})
	if len(out) == 0 {
		t.Fatal("no real-Kafka fixtures with DumpLogSegments output under testdata/kraft")
	}
	return out
}

func kmetaDump(t *testing.T, file string) string {
	t.Helper()
	return kmetaDumpExit(t, file, 0)
}

// kmetaDumpExit is kmetaDump for input log check fails (exit 1): the text
// is still Kafka's.
func kmetaDumpExit(t *testing.T, file string, want int) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"kmeta", "log", "dump", "--show-secrets", file}, &out, &errb); code != want {
		// Keep going: the line-by-line comparison shows what went wrong.
		t.Errorf("kmeta log dump %s: exit %d: %s", file, code, errb.String())
	}
	return out.String()
}

var (
	dumpingLine = regexp.MustCompile(`(?m)^Dumping .*$`)
	// Kafka before 4.1 prints LeaderChange control records by type only.
	leaderChangeJSON = regexp.MustCompile(`(?m) LeaderChange: \{.*\}$`)
)

// normalize drops what legitimately differs between two runs over the same
// bytes: the path in "Dumping <path>". When Kafka's output uses the pre-4.1
// LeaderChange form, kmeta's 4.1+ form is mapped to it.
func normalize(kafka, kmeta string) (string, string) {
	kafka = dumpingLine.ReplaceAllString(kafka, "Dumping FILE")
	kmeta = dumpingLine.ReplaceAllString(kmeta, "Dumping FILE")
	if strings.Contains(kafka, "controlType: LEADER_CHANGE(2)") {
		kmeta = leaderChangeJSON.ReplaceAllString(kmeta, " controlType: LEADER_CHANGE(2)")
	}
	return kafka, kmeta
}

func compareDumps(t *testing.T, file, kafka, kmeta string) {
	t.Helper()
	kafka, kmeta = normalize(kafka, kmeta)
	kl, ml := strings.Split(kafka, "\n"), strings.Split(kmeta, "\n")
	for i := 0; i < len(kl) || i < len(ml); i++ {
		var a, b string
		if i < len(kl) {
			a = kl[i]
		}
		if i < len(ml) {
			b = ml[i]
		}
		if a != b {
			t.Errorf("%s: line %d differs\nkafka: %s\nkmeta: %s", file, i+1, a, b)
			return
		}
	}
	records := strings.Count(kafka, "\n| offset:")
	t.Logf("%s: %d lines, %d records identical", filepath.Base(file), len(kl), records)
}

// TestDumpMatchesCommittedKafkaOutput compares kmeta's text dump of every
// fixture with the DumpLogSegments output that the same Kafka jars printed
// when the fixture was made. No JVM needed.
func TestDumpMatchesCommittedKafkaOutput(t *testing.T) {
	for _, f := range fixtureDumps(t) {
		want, err := os.ReadFile(f.dump)
		if err != nil {
			t.Fatal(err)
		}
		compareDumps(t, f.data, string(want), kmetaDump(t, f.data))
	}
}
