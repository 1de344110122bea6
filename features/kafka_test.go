package features

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestRealKafkaFeatures runs Kafka 4.4.0's kafka-features version-mapping
// and feature-dependencies and kafka-storage format for every release it
// knows and compares them with the tables.
func TestRealKafkaFeatures(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := Default()
	fx := kafkaFixture{Kafka: d.Version}
	run := func(mainClass string, args ...string) toolRun {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		out, errOut, err := d.Run(ctx, mainClass, args...)
		r := toolRun{Output: string(out)}
		if err != nil {
			var ee interface{ ExitCode() int }
			if !errors.As(err, &ee) {
				t.Fatalf("%s %v: %v", mainClass, args, err)
			}
			r.Exit = ee.ExitCode()
			r.Output = strings.TrimSpace(string(out) + string(errOut))
		}
		return r
	}
	for _, a := range mappingArgs(c) {
		r := run(d.Tools.Features, "version-mapping", "--release-version", a)
		r.Arg = a
		fx.VersionMapping = append(fx.VersionMapping, r)
	}
	for _, a := range dependencyArgs(c) {
		r := run(d.Tools.Features, "feature-dependencies", "--feature", a)
		r.Arg = a
		fx.FeatureDependencies = append(fx.FeatureDependencies, r)
	}
	checkpoints := map[string]string{}
	for i, a := range formatArgs(c) {
		dir := t.TempDir()
		meta := filepath.Join(dir, "meta")
		cfg := filepath.Join(dir, "server.properties")
		props := fmt.Sprintf("process.roles=controller\nnode.id=1\ncontroller.quorum.voters=1@127.0.0.1:%d\n"+
			"controller.listener.names=CONTROLLER\nlisteners=CONTROLLER://127.0.0.1:%d\nlog.dirs=%s\n", 19000+i, 19000+i, meta)
		if err := os.WriteFile(cfg, []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(d.Tools.Storage, "format", "-c", cfg, "--cluster-id", "AAAAAAAAAAAAAAAAAAAAAA", "--release-version", a)
		r.Arg = a
		// Keep only the line that lists the records: the rest names temp dirs.
		for _, ln := range strings.Split(r.Output, "\n") {
			if strings.HasPrefix(ln, "Bootstrap metadata:") {
				r.Output = ln
			}
		}
		fx.Format = append(fx.Format, r)
		checkpoints[a] = filepath.Join(meta, "__cluster_metadata-0", "00000000000000000000-0000000000.checkpoint")
	}
	sortRuns := func(rs []toolRun) { sort.SliceStable(rs, func(i, j int) bool { return rs[i].Arg < rs[j].Arg }) }
	sortRuns(fx.VersionMapping)
	sortRuns(fx.FeatureDependencies)
	sortRuns(fx.Format)

	compareWithKafka(t, c, &fx)

	// The snapshot format writes must hold exactly BootstrapRecords, as
	// Kafka's own dump-log decodes it.
	for _, a := range []string{"3.3-IV3", "3.9", "4.0", "4.4"} {
		dump := d.DumpLog(t, []string{checkpoints[a]})
		var got []FeatureLevelRecord
		for _, g := range regexp.MustCompile(`"name":"([^"]+)","featureLevel":(\d+)`).FindAllStringSubmatch(dump, -1) {
			n, _ := strconv.Atoi(g[2])
			got = append(got, FeatureLevelRecord{Name: g[1], Level: int16(n)})
		}
		want, _ := c.BootstrapRecords(a)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("format --release-version %s wrote %v (dump-log), want %v", a, got, want)
		}
		if *updateKafka {
			b, err := os.ReadFile(checkpoints[a])
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join("..", "testdata", "features", "format-"+d.Version, a+".checkpoint")
			writeFileAtomic(t, dst, b)
		}
	}

	if *updateKafka {
		b, err := json.MarshalIndent(fx, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		writeFileAtomic(t, fixturePath(d.Version), append(b, '\n'))
		return
	}
	// The committed fixture must still be what Kafka prints.
	b, err := os.ReadFile(fixturePath(d.Version))
	if err != nil {
		t.Fatal(err)
	}
	live, _ := json.MarshalIndent(fx, "", "  ")
	if string(b) != string(append(live, '\n')) {
		t.Errorf("%s differs from live Kafka output; rerun with -update-kafka", fixturePath(d.Version))
	}
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
