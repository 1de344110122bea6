package features

import (
	"context"
	"encoding/json"
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

// TestRealKafkaFeatures runs Kafka 4.4.0's kafka-features version-mapping
// and feature-dependencies and kafka-storage format for every release it
// knows and compares them with the tables.
func TestRealKafkaFeatures(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := Default()
	fx := kafkaFixture{Kafka: d.Version}
	// Each tool's questions in one JVM (kafkatest.RunEach: the tool's own
	// main, once per question).
	runs := func(mainClass string, argss [][]string) []toolRun {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		rs, err := d.RunEach(ctx, mainClass, argss)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]toolRun, len(rs))
		for i, r := range rs {
			out[i] = toolRun{Output: string(r.Stdout), Exit: r.Exit}
			if r.Exit != 0 {
				out[i].Output = strings.TrimSpace(string(r.Stdout) + string(r.Stderr))
			}
		}
		return out
	}
	var featureArgs [][]string
	mappings, deps := mappingArgs(c), dependencyArgs(c)
	for _, a := range mappings {
		featureArgs = append(featureArgs, []string{"version-mapping", "--release-version", a})
	}
	for _, a := range deps {
		featureArgs = append(featureArgs, []string{"feature-dependencies", "--feature", a})
	}
	for i, r := range runs(d.Tools.Features, featureArgs) {
		if i < len(mappings) {
			r.Arg = mappings[i]
			fx.VersionMapping = append(fx.VersionMapping, r)
		} else {
			r.Arg = deps[i-len(mappings)]
			fx.FeatureDependencies = append(fx.FeatureDependencies, r)
		}
	}
	checkpoints := map[string]string{}
	var formats [][]string
	releases := formatArgs(c)
	for i, a := range releases {
		dir := t.TempDir()
		meta := filepath.Join(dir, "meta")
		cfg := filepath.Join(dir, "server.properties")
		props := fmt.Sprintf("process.roles=controller\nnode.id=1\ncontroller.quorum.voters=1@127.0.0.1:%d\n"+
			"controller.listener.names=CONTROLLER\nlisteners=CONTROLLER://127.0.0.1:%d\nlog.dirs=%s\n", 19000+i, 19000+i, meta)
		if err := os.WriteFile(cfg, []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
		formats = append(formats, []string{"format", "-c", cfg, "--cluster-id", "AAAAAAAAAAAAAAAAAAAAAA", "--release-version", a})
		checkpoints[a] = filepath.Join(meta, "__cluster_metadata-0", "00000000000000000000-0000000000.checkpoint")
	}
	for i, r := range runs(d.Tools.Storage, formats) {
		r.Arg = releases[i]
		// Keep only the line that lists the records: the rest names temp dirs.
		for _, ln := range strings.Split(r.Output, "\n") {
			if strings.HasPrefix(ln, "Bootstrap metadata:") {
				r.Output = ln
			}
		}
		fx.Format = append(fx.Format, r)
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
