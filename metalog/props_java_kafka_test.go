package metalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/javaprops"
)

// TestJavaValuesMatchKafka requires javaprops.Parse (the parser
// ParseMetaProperties uses) to read the values Java's Properties.load
// reads (surrogate pairs combined), and
// ParseQuorumState to accept exactly the repeated-key files Kafka 4.4.0's
// FileQuorumStateStore accepts, with the values it reads, and to report
// the repetition as a warning (QuorumState.Problem).
//
// The files javaprops.Format writes (formatCases) must read in Java as
// exactly the keys and values Format was given, whatever its comment
// holds.
func TestJavaValuesMatchKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	dir := t.TempDir()
	cases := slices.Clone(javaValueCases)
	for _, c := range formatCases {
		cases = append(cases, struct{ kind, name, text string }{"props", c.name, string(javaprops.Format(c.comment, c.props))})
	}
	lines := runFileOracle(t, d, dir, "JavaValues", javaValuesJava, cases)
	for i, c := range formatCases {
		if want, got := javaLine(c.props), lines[len(javaValueCases)+i]; got != want {
			t.Errorf("Format %q: Java reads %q, want what Format was given: %q", c.name, got, want)
		}
	}
	for i, c := range cases {
		p := filepath.Join(dir, fmt.Sprintf("case%02d", i))
		var got string
		switch c.kind {
		case "props":
			m, err := javaprops.Parse([]byte(c.text))
			if err != nil {
				got = "error " + err.Error()
				break
			}
			got = javaLine(m)
		case "quorum":
			qs, err := ReadQuorumState(p)
			if err != nil {
				got = "error"
				if strings.HasPrefix(lines[i], "error") {
					lines[i] = "error"
				}
				break
			}
			got = fmt.Sprintf("ok leaderId=%d epoch=%d", qs.LeaderID, qs.LeaderEpoch)
			var pe *PropsError
			if !strings.HasPrefix(c.name, "repeated") {
				break
			}
			if !errors.As(qs.Problem, &pe) || !strings.Contains(pe.Error(), "repeated") || pe.Position <= 0 {
				t.Errorf("%s: Problem = %v, want a placed warning about the repeated key", c.name, qs.Problem)
			}
		}
		if got != lines[i] {
			t.Errorf("%s %q: Java reads %q, kmeta %q", c.kind, c.name, lines[i], got)
		}
	}
}

// runFileOracle writes each case's text to dir/caseNN, runs the Java
// program class (source java) on "kind path" pairs with Kafka d's
// classpath, and returns its output lines, one per case.
func runFileOracle(t *testing.T, d *kafkatest.Distribution, dir, class, java string, cases []struct{ kind, name, text string }) []string {
	t.Helper()
	src := filepath.Join(dir, class+".java")
	must(t, os.WriteFile(src, []byte(java), 0o644))
	var args []string
	for i, c := range cases {
		p := filepath.Join(dir, fmt.Sprintf("case%02d", i))
		must(t, os.WriteFile(p, []byte(c.text), 0o644))
		args = append(args, c.kind, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, stderr, err := d.Run(ctx, src, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("oracle printed %d lines for %d cases:\n%s", len(lines), len(cases), out)
	}
	return lines
}
