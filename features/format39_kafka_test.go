package features_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
)

// formatCase is one `kafka-storage format` run of Kafka 3.9.2.
type formatCase struct {
	release  string   // --release-version; "" leaves Kafka's default
	feats    []string // --feature name=level
	unstable bool     // unstable.feature.versions.enable=true in the config
}

func (fc formatCase) String() string {
	var parts []string
	if fc.release != "" {
		parts = append(parts, "--release-version "+fc.release)
	}
	for _, f := range fc.feats {
		parts = append(parts, "--feature "+f)
	}
	if fc.unstable {
		parts = append(parts, "(unstable.feature.versions.enable)")
	}
	if len(parts) == 0 {
		return "(defaults)"
	}
	return strings.Join(parts, " ")
}

// formatPrediction is what kmeta says format does: refuse, or write these
// FeatureLevelRecords.
type formatPrediction struct {
	ok      bool
	why     string
	records []features.FeatureLevelRecord
}

// predictFormat composes kmeta's catalog the way format uses it: the
// release's Bootstrap levels (Kafka's default release when none is given),
// the --feature overrides on top, ValidateFeatures on the result, and
// non-production levels refused unless the config enables them. The records
// are metadata.version first, then the features above 0 that live in
// FeatureLevelRecords, by name (as BootstrapRecords orders them).
func predictFormat(cat *features.Catalog, fc formatCase) formatPrediction {
	opts := features.CheckOptions{AllowUnstable: fc.unstable}
	rel := fc.release
	if rel == "" {
		rel = cat.LatestProductionLevel().Name
		if fc.unstable {
			rel = cat.Latest().Name
		}
	}
	// --feature metadata.version=N replaces the release: the other
	// features then default from N.
	var rest []string
	for _, f := range fc.feats {
		if v, ok := strings.CutPrefix(f, features.MetadataVersionFeature+"="); ok {
			rel = v
		} else {
			rest = append(rest, f)
		}
	}
	lvl, err := cat.LevelFor(rel)
	if err != nil {
		return formatPrediction{why: err.Error()}
	}
	levels, err := cat.Bootstrap(rel)
	if err != nil {
		return formatPrediction{why: err.Error()}
	}
	if !lvl.Production && !opts.AllowUnstable {
		return formatPrediction{why: lvl.Name + " is not a production level"}
	}
	for _, f := range rest {
		name, v, _ := strings.Cut(f, "=")
		n, err := strconv.ParseInt(v, 10, 16)
		if err != nil {
			return formatPrediction{why: err.Error()}
		}
		levels[name] = int16(n)
	}
	if fs := cat.ValidateFeatures(levels, opts); len(fs) > 0 {
		return formatPrediction{why: fs[0].Message}
	}
	recs := []features.FeatureLevelRecord{{Name: features.MetadataVersionFeature, Level: levels[features.MetadataVersionFeature]}}
	for _, name := range slices.Sorted(maps.Keys(levels)) {
		f, ok := cat.Feature(name)
		if ok && f.InFeatureLevelRecord && levels[name] > 0 {
			recs = append(recs, features.FeatureLevelRecord{Name: name, Level: levels[name]})
		}
	}
	return formatPrediction{ok: true, records: recs}
}

// formatCases39 are every --release-version Kafka 3.9.2 may be asked for
// (each level name of its catalog, every major.minor and patch form, and
// values it must refuse), then --feature variations.
func formatCases39(cat *features.Catalog) []formatCase {
	var out []formatCase
	for _, l := range cat.Levels {
		out = append(out, formatCase{release: l.Name})
	}
	for _, r := range []string{"3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9",
		"3.3.2", "3.7.2", "3.9.2", "4.0", "3.0-IV0", "2.8"} {
		out = append(out, formatCase{release: r})
	}
	return append(out,
		formatCase{},
		formatCase{unstable: true},
		formatCase{feats: []string{"transaction.version=0"}},
		formatCase{feats: []string{"transaction.version=1"}},
		formatCase{feats: []string{"transaction.version=2"}},
		formatCase{feats: []string{"transaction.version=3"}},
		formatCase{release: "3.3-IV0", feats: []string{"transaction.version=0"}},
		formatCase{feats: []string{"kraft.version=0"}},
		formatCase{feats: []string{"group.version=1"}},
		formatCase{feats: []string{"metadata.version=15"}},
		formatCase{feats: []string{"metadata.version=4"}},
		formatCase{feats: []string{"metadata.version=3"}},
		formatCase{feats: []string{"metadata.version=22"}},
		formatCase{release: "4.0-IV0", unstable: true},
		formatCase{release: "4.0-IV1", unstable: true},
		formatCase{feats: []string{"transaction.version=1"}, unstable: true},
		formatCase{release: "4.0-IV1", feats: []string{"transaction.version=2"}, unstable: true},
		formatCase{release: "3.9", feats: []string{"transaction.version=2"}, unstable: true},
		formatCase{release: "3.3-IV0", feats: []string{"transaction.version=1"}, unstable: true},
		formatCase{feats: []string{"metadata.version=22"}, unstable: true},
	)
}

var (
	formattedWith = regexp.MustCompile(`with metadata\.version (\S+)\.`)
	dumpFeature   = regexp.MustCompile(`"type":"FEATURE_LEVEL_RECORD","version":0,"data":\{"name":"([^"]+)","featureLevel":(\d+)\}`)
)

// TestKafka39Format formats a metadata directory with Kafka 3.9.2 for every
// release it knows and --feature variations, and checks that kmeta predicts
// which runs Kafka refuses and that the bootstrap.checkpoint Kafka wrote
// holds exactly the levels kmeta computes, as Kafka's DumpLogSegments and
// kmeta's replay (metalog.LoadImage) both read them.
func TestKafka39Format(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	cat := features.Catalog39()
	if cat.Software != d.Version {
		t.Fatalf("catalog 3.9 is for Kafka %s, testing %s", cat.Software, d.Version)
	}
	root := t.TempDir()
	type result struct {
		fc      formatCase
		dir     string
		ok      bool
		out     string
		written []features.FeatureLevelRecord
	}
	var results []*result
	var argss [][]string
	for i, fc := range formatCases39(cat) {
		dir := filepath.Join(root, fmt.Sprintf("case-%02d", i))
		meta := filepath.Join(dir, "meta")
		cfg := filepath.Join(dir, "server.properties")
		props := "process.roles=controller\nnode.id=1\ncontroller.quorum.voters=1@127.0.0.1:9093\n" +
			"controller.listener.names=CONTROLLER\nlisteners=CONTROLLER://127.0.0.1:9093\nlog.dirs=" + meta + "\n"
		if fc.unstable {
			props += "unstable.feature.versions.enable=true\n"
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"format", "-c", cfg, "--cluster-id", "AAAAAAAAAAAAAAAAAAAAAA"}
		if fc.release != "" {
			args = append(args, "--release-version", fc.release)
		}
		for _, f := range fc.feats {
			args = append(args, "--feature", f)
		}
		argss = append(argss, args)
		results = append(results, &result{fc: fc, dir: meta})
	}
	// Every format in one JVM (kafkatest.RunEach: the tool's own main,
	// once per case).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	runs, err := d.RunEach(ctx, d.Tools.Storage, argss)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		results[i].ok = r.Exit == 0
		results[i].out = strings.TrimSpace(string(r.Stdout) + "\n" + string(r.Stderr))
	}

	// One DumpLogSegments run decodes every bootstrap.checkpoint written.
	var files []string
	byFile := map[string]*result{}
	for _, r := range results {
		if r.ok {
			f := filepath.Join(r.dir, "bootstrap.checkpoint")
			files = append(files, f)
			byFile[f] = r
		}
	}
	if len(files) == 0 {
		t.Fatal("format succeeded for no case")
	}
	var cur *result
	for _, ln := range strings.Split(d.DumpLog(t, files), "\n") {
		if f, ok := strings.CutPrefix(ln, "Dumping "); ok {
			cur = byFile[strings.TrimSpace(f)]
			if cur == nil {
				t.Fatalf("DumpLogSegments dumped an unexpected file %q", f)
			}
			continue
		}
		if g := dumpFeature.FindStringSubmatch(ln); g != nil && cur != nil {
			n, _ := strconv.Atoi(g[2])
			cur.written = append(cur.written, features.FeatureLevelRecord{Name: g[1], Level: int16(n)})
		}
	}

	accepted := 0
	var table strings.Builder
	table.WriteString("| kafka-storage format (3.9.2) | Kafka | kmeta |\n|---|---|---|\n")
	for _, r := range results {
		p := predictFormat(cat, r.fc)
		if r.ok {
			fmt.Fprintf(&table, "| `%s` | wrote %s | same records and replayed levels |\n", r.fc, recordsText(r.written))
		} else {
			fmt.Fprintf(&table, "| `%s` | refused: %s | refused: %s |\n", r.fc, javaMessage(r.out), strings.TrimPrefix(p.why, "features: "))
		}
		if p.ok != r.ok {
			t.Errorf("format %s: DISAGREEMENT: Kafka ok=%v (%s), kmeta ok=%v (%s)", r.fc, r.ok, firstLineOf(r.out), p.ok, p.why)
			continue
		}
		if !r.ok {
			t.Logf("format %s: refused by both: Kafka %q; kmeta %q", r.fc, firstLineOf(r.out), p.why)
			continue
		}
		accepted++
		if fmt.Sprint(r.written) != fmt.Sprint(p.records) {
			t.Errorf("format %s: Kafka wrote %v (DumpLogSegments), kmeta predicts %v", r.fc, r.written, p.records)
		}
		if len(r.fc.feats) == 0 && r.fc.release != "" {
			if want, err := cat.BootstrapRecords(r.fc.release); err != nil || fmt.Sprint(want) != fmt.Sprint(r.written) {
				t.Errorf("format %s: BootstrapRecords = %v, %v; Kafka wrote %v", r.fc, want, err, r.written)
			}
		}
		res, err := metalog.LoadImage(r.dir, metalog.ImageOptions{AtOffset: -1})
		if err != nil {
			t.Errorf("format %s: LoadImage: %v", r.fc, err)
			continue
		}
		want := map[string]int16{}
		for _, rec := range r.written {
			want[rec.Name] = rec.Level
		}
		if !maps.Equal(res.Image.Features, want) {
			t.Errorf("format %s: kmeta replayed %v, Kafka wrote %v", r.fc, res.Image.Features, want)
		}
		mv := res.Image.MetadataVersion()
		lvl, _ := cat.ByLevel(mv)
		if g := formattedWith.FindStringSubmatch(r.out); g == nil || g[1] != lvl.Name {
			t.Errorf("format %s: Kafka said %q, kmeta names level %d %q", r.fc, firstLineOf(r.out), mv, lvl.Name)
		}
		t.Logf("format %s: %v", r.fc, r.written)
	}
	if accepted < 25 {
		t.Errorf("only %d format runs succeeded; the release list should give at least 25", accepted)
	}
	if !t.Failed() {
		readmeSection(t, "TestKafka39Format", table.String())
	}
}

// recordsText prints FeatureLevelRecords as name=level.
func recordsText(recs []features.FeatureLevelRecord) string {
	var parts []string
	for _, r := range recs {
		parts = append(parts, fmt.Sprintf("%s=%d", r.Name, r.Level))
	}
	return strings.Join(parts, ", ")
}

// javaMessage is the first line of a tool's error without the exception
// preamble.
func javaMessage(out string) string {
	ln := firstLineOf(out)
	if _, rest, ok := strings.Cut(ln, "Exception in thread \"main\" "); ok {
		if _, msg, ok := strings.Cut(rest, ": "); ok {
			return msg
		}
		return rest
	}
	return strings.ReplaceAll(ln, "|", `\|`)
}

func firstLineOf(s string) string {
	for _, ln := range strings.Split(s, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			return ln
		}
	}
	return ""
}
