package features

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

var updateKafka = flag.Bool("update-kafka", false, "rewrite testdata/features/kafka-<version>.json and the format checkpoints from real Kafka")

// toolRun is one run of a Kafka tool: the argument that varies, the exit
// status and what it printed on stdout (stderr for errors).
type toolRun struct {
	Arg    string `json:"arg"`
	Exit   int    `json:"exit"`
	Output string `json:"output"`
}

// kafkaFixture keeps real Kafka tool output so the unit tests can compare
// the tables with it without a JVM.
type kafkaFixture struct {
	Kafka               string    `json:"kafka"`
	VersionMapping      []toolRun `json:"versionMapping"`
	FeatureDependencies []toolRun `json:"featureDependencies"`
	Format              []toolRun `json:"format"`
}

func fixturePath(version string) string {
	return filepath.Join("..", "testdata", "features", "kafka-"+version+".json")
}

// mappingArgs are the --release-version values asked of version-mapping:
// every level name of the catalog, every major.minor release around it,
// patch releases and values Kafka must reject.
func mappingArgs(c *Catalog) []string {
	var out []string
	for _, l := range c.Levels {
		out = append(out, l.Name)
	}
	for _, r := range []string{"3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9",
		"4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "3.3.2", "3.7.2", "3.9.2", "4.2.0", "4.3.1", "2.8", "3.0-IV0"} {
		out = append(out, r)
	}
	return out
}

// dependencyArgs are the --feature values asked of feature-dependencies.
func dependencyArgs(c *Catalog) []string {
	var out []string
	for _, f := range c.Features {
		for l := int16(0); l <= f.MaxLevel()+1; l++ {
			out = append(out, fmt.Sprintf("%s=%d", f.Name, l))
		}
	}
	for _, l := range []int16{5, 7, 23, c.LatestProduction, c.Latest().Level} {
		out = append(out, fmt.Sprintf("%s=%d", MetadataVersionFeature, l))
	}
	return append(out, "no.such.feature=1")
}

// formatArgs are the production levels format is run with.
func formatArgs(c *Catalog) []string {
	var out []string
	for _, l := range c.Levels {
		if l.Production && l.Level >= c.MinimumBootstrap {
			out = append(out, l.Name)
		}
	}
	return append(out, "3.3", "3.9", "4.0", "4.4")
}

var (
	mvLine   = regexp.MustCompile(`^metadata\.version=(\d+) \((.+)\)$`)
	featLine = regexp.MustCompile(`^([a-z.]+)=(\d+)$`)
	depHead  = regexp.MustCompile(`^(\S+)=(\d+)(?: \(.*\))? (has no dependencies\.|requires:)$`)
	depLine  = regexp.MustCompile(`^\s+(\S+)=(\d+)(?: \((.+)\))?$`)
	fmtRec   = regexp.MustCompile(`FeatureLevelRecord\(name='([^']+)', featureLevel=(\d+)\)`)
)

// parseMapping reads version-mapping output into name → level.
func parseMapping(out string) (map[string]int16, error) {
	m := map[string]int16{}
	for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
		ln = strings.TrimSpace(ln)
		if g := mvLine.FindStringSubmatch(ln); g != nil {
			n, _ := strconv.Atoi(g[1])
			m[MetadataVersionFeature] = int16(n)
		} else if g := featLine.FindStringSubmatch(ln); g != nil {
			n, _ := strconv.Atoi(g[2])
			m[g[1]] = int16(n)
		} else {
			return nil, fmt.Errorf("unexpected version-mapping line %q", ln)
		}
	}
	return m, nil
}

// parseDependencies reads feature-dependencies output for one feature.
func parseDependencies(out string) ([]Dependency, error) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || depHead.FindStringSubmatch(lines[0]) == nil {
		return nil, fmt.Errorf("unexpected feature-dependencies output %q", out)
	}
	deps := []Dependency{}
	for _, ln := range lines[1:] {
		g := depLine.FindStringSubmatch(ln)
		if g == nil {
			return nil, fmt.Errorf("unexpected feature-dependencies line %q", ln)
		}
		n, _ := strconv.Atoi(g[2])
		deps = append(deps, Dependency{Feature: g[1], Level: int16(n)})
	}
	return deps, nil
}

func parseFormat(out string) []FeatureLevelRecord {
	var recs []FeatureLevelRecord
	for _, g := range fmtRec.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(g[2])
		recs = append(recs, FeatureLevelRecord{Name: g[1], Level: int16(n)})
	}
	return recs
}

// compareWithKafka checks the catalog against recorded or live tool output.
func compareWithKafka(t *testing.T, c *Catalog, fx *kafkaFixture) {
	t.Helper()
	if len(fx.VersionMapping) == 0 || len(fx.FeatureDependencies) == 0 || len(fx.Format) == 0 {
		t.Fatalf("fixture for Kafka %s is incomplete", fx.Kafka)
	}
	for _, r := range fx.VersionMapping {
		got, err := c.Bootstrap(r.Arg)
		if r.Exit != 0 {
			if err == nil {
				t.Errorf("version-mapping --release-version %s: Kafka refused it (%s) but Bootstrap gave %v", r.Arg, firstLine(r.Output), got)
			}
			continue
		}
		want, perr := parseMapping(r.Output)
		if perr != nil {
			t.Errorf("version-mapping %s: %v", r.Arg, perr)
			continue
		}
		if err != nil {
			t.Errorf("Bootstrap(%q): %v; Kafka printed %v", r.Arg, err, want)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Bootstrap(%q) = %v, Kafka version-mapping says %v", r.Arg, got, want)
		}
	}
	for _, r := range fx.FeatureDependencies {
		name, lvlText, _ := strings.Cut(r.Arg, "=")
		lvl, _ := strconv.Atoi(lvlText)
		got, err := c.Dependencies(name, int16(lvl))
		if r.Exit != 0 {
			if err == nil {
				t.Errorf("feature-dependencies %s: Kafka refused it (%s) but Dependencies gave %v", r.Arg, firstLine(r.Output), got)
			}
			continue
		}
		want, perr := parseDependencies(r.Output)
		if perr != nil {
			t.Errorf("feature-dependencies %s: %v", r.Arg, perr)
			continue
		}
		if err != nil {
			t.Errorf("Dependencies(%s): %v; Kafka printed %v", r.Arg, err, want)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Dependencies(%s) = %v, Kafka says %v", r.Arg, got, want)
		}
	}
	for _, r := range fx.Format {
		if r.Exit != 0 {
			t.Errorf("format --release-version %s failed: %s", r.Arg, firstLine(r.Output))
			continue
		}
		want := parseFormat(r.Output)
		got, err := c.BootstrapRecords(r.Arg)
		if err != nil {
			t.Errorf("BootstrapRecords(%q): %v", r.Arg, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("BootstrapRecords(%q) = %v, kafka-storage format wrote %v", r.Arg, got, want)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// TestKafkaFixture compares the tables with recorded Kafka tool output
// (no JVM).
func TestKafkaFixture(t *testing.T) {
	b, err := os.ReadFile(fixturePath(kafkatest.Latest4))
	if err != nil {
		t.Fatal(err)
	}
	var fx kafkaFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	if fx.Kafka != kafkatest.Latest4 {
		t.Fatalf("fixture is for Kafka %s, want %s", fx.Kafka, kafkatest.Latest4)
	}
	if fx.Kafka != Default().Software {
		t.Fatalf("default catalog is for Kafka %s, fixture for %s", Default().Software, fx.Kafka)
	}
	compareWithKafka(t, Default(), &fx)
}

func writeFileAtomic(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
