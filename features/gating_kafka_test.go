package features_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// gateStep is one metadata.version change tried on a live cluster: kmeta's
// verdict is computed from the cluster's metadata log, then Kafka's
// FeatureCommand is asked to do it.
type gateStep struct {
	// args are the FeatureCommand arguments after --bootstrap-server.
	args []string
	// target is the metadata.version the command asks for, as kmeta resolves
	// it in the cluster's catalog.
	target string
	// accept is what both kmeta and Kafka must say. It is stated so that
	// the test fails when both are wrong the same way (e.g. nothing ran).
	accept bool
	// lossContains, when set, must appear in one of kmeta's loss findings.
	lossContains string
	// kinds are finding kinds kmeta must report (block or loss).
	kinds []string
}

// gateRow is one line of the summary table in testdata/features/README.md.
type gateRow struct {
	Kafka, From, Command, Content, Kmeta, KafkaSays string
}

var (
	gateMu   sync.Mutex
	gateRows = map[string][]gateRow{}
)

func recordGate(scenario string, r gateRow) {
	gateMu.Lock()
	defer gateMu.Unlock()
	gateRows[scenario] = append(gateRows[scenario], r)
}

// gateCluster is a running single-node cluster with its catalog.
type gateCluster struct {
	t       *testing.T
	d       *kafkatest.Distribution
	c       *kafkatest.Cluster
	adm     *kadm.Client
	cat     *features.Catalog
	node    int
	content string // what the image holds that matters, for the table
	name    string
}

// image replays the node's metadata log dir while Kafka runs (metalog takes
// no lock).
func (g *gateCluster) image() *model.Image {
	g.t.Helper()
	res, err := metalog.LoadImage(g.c.MetadataLogDir(g.node), metalog.ImageOptions{AtOffset: -1})
	if err != nil {
		g.t.Fatalf("LoadImage %s: %v", g.c.MetadataLogDir(g.node), err)
	}
	return res.Image
}

// finalized returns the finalized features the broker reports in
// ApiVersions.
func (g *gateCluster) finalized() map[string]int16 {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	vs, err := g.adm.ApiVersions(ctx)
	if err != nil {
		g.t.Fatalf("ApiVersions: %v", err)
	}
	v, ok := vs[int32(g.node)]
	if !ok || v.Err != nil {
		g.t.Fatalf("ApiVersions of node %d: %v", g.node, v.Err)
	}
	out := map[string]int16{}
	for _, f := range v.Raw().FinalizedFeatures {
		out[f.Name] = f.MaxVersionLevel
	}
	return out
}

// waitLevel waits until both the broker (ApiVersions) and the replayed log
// show metadata.version at want, and returns both views.
func (g *gateCluster) waitLevel(want int16) (map[string]int16, *model.Image) {
	g.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		fin := g.finalized()
		img := g.image()
		if fin[features.MetadataVersionFeature] == want && img.MetadataVersion() == want {
			return fin, img
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("metadata.version: broker finalized %v, replayed log %d; want %d",
				fin[features.MetadataVersionFeature], img.MetadataVersion(), want)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// featureCommand runs kafka-features against the cluster and returns whether
// it succeeded and what it said.
func (g *gateCluster) featureCommand(args ...string) (bool, string) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{"--bootstrap-server", g.c.BootstrapServers()}, args...)
	out, errOut, err := g.d.Run(ctx, g.d.Tools.Features, all...)
	text := strings.TrimSpace(string(out) + "\n" + string(errOut))
	if err != nil {
		var ee interface{ ExitCode() int }
		if !errors.As(err, &ee) {
			g.t.Fatalf("kafka-features %v: %v", args, err)
		}
		return false, text
	}
	return true, text
}

// kafkaMessage keeps the line of FeatureCommand's output that says what
// happened to metadata.version, without stack traces.
func kafkaMessage(out string) string {
	var keep []string
	for _, ln := range strings.Split(out, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "at ") || strings.HasPrefix(ln, "...") {
			continue
		}
		keep = append(keep, ln)
	}
	for _, ln := range keep {
		if strings.Contains(ln, "metadata.version") {
			return ln
		}
	}
	if len(keep) > 0 {
		return keep[0]
	}
	return ""
}

// featureText prints finalized features other than metadata.version.
func featureText(m map[string]int16) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != features.MetadataVersionFeature {
			parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}

var kafkaNoise = regexp.MustCompile(`Could not (up|down)grade \S+ to \d+\. |The update failed for all features since the following feature had an error: |Invalid metadata\.version \d+\. |Invalid update version \d+ for feature \S+\. `)

// shortKafka drops the parts of a FeatureCommand error that repeat the
// command, keeping Kafka's reason.
func shortKafka(msg string) string { return strings.TrimSpace(kafkaNoise.ReplaceAllString(msg, "")) }

// verdictText summarises a verdict for the table.
func verdictText(v features.Verdict) string {
	var kinds []string
	for _, f := range v.Findings {
		if f.Severity == model.SevError {
			kinds = append(kinds, f.Code)
		}
	}
	s := "allowed"
	if !v.Allowed {
		s = "refused"
	}
	if v.Lossy {
		s += ", lossy"
	}
	if len(kinds) > 0 {
		s += " (" + strings.Join(kinds, ", ") + ")"
	}
	return s
}

// step checks one change: kmeta's verdict on the replayed image, then Kafka,
// then (when refused and a downgrade) Kafka again with --unsafe, then the
// finalized level.
func (g *gateCluster) step(s gateStep) {
	g.t.Helper()
	before := g.finalized()
	cur := before[features.MetadataVersionFeature]
	img := g.image()
	if img.MetadataVersion() != cur {
		g.t.Fatalf("replayed metadata.version %d, broker finalized %d", img.MetadataVersion(), cur)
	}
	target, err := g.cat.LevelFor(s.target)
	if err != nil {
		g.t.Fatalf("LevelFor(%q): %v", s.target, err)
	}
	v := g.cat.Check(img, target, features.CheckOptions{})
	from, _ := g.cat.ByLevel(cur)
	label := fmt.Sprintf("%s (%d) → %s (%d): kafka-features %s", from.Name, cur, target.Name, target.Level, strings.Join(s.args, " "))

	if v.Allowed != s.accept {
		g.t.Errorf("%s: kmeta allowed=%v, want %v; findings %+v", label, v.Allowed, s.accept, v.Findings)
	}
	for _, k := range s.kinds {
		if !slices.ContainsFunc(v.Findings, func(f features.Finding) bool { return f.Code == k }) {
			g.t.Errorf("%s: kmeta reported no %s finding: %+v", label, k, v.Findings)
		}
	}
	if s.lossContains != "" {
		if !v.Lossy || !slices.ContainsFunc(v.Findings, func(f features.Finding) bool {
			return features.IsLoss(f) && strings.Contains(f.Message, s.lossContains)
		}) {
			g.t.Errorf("%s: kmeta reported no loss %q: lossy=%v %+v", label, s.lossContains, v.Lossy, v.Findings)
		}
	}

	ok, out := g.featureCommand(s.args...)
	msg := kafkaMessage(out)
	kafkaSays := "accepted"
	if !ok {
		kafkaSays = "refused"
	}
	if ok != s.accept {
		g.t.Errorf("%s: Kafka %s, want accepted=%v:\n%s", label, kafkaSays, s.accept, out)
	}
	if ok != v.Allowed {
		g.t.Errorf("%s: DISAGREEMENT: kmeta %s, Kafka %s: %s", label, verdictText(v), kafkaSays, msg)
	}
	kafkaSays += ": " + shortKafka(msg)
	if !ok && s.args[0] == "downgrade" {
		uok, uout := g.featureCommand(append(slices.Clone(s.args), "--unsafe")...)
		if uok {
			g.t.Errorf("%s --unsafe: Kafka accepted it; kmeta says Kafka has no unsafe downgrade", label)
		}
		kafkaSays += "; --unsafe: "
		if uok {
			kafkaSays += "accepted"
		} else {
			kafkaSays += "refused: " + shortKafka(kafkaMessage(uout))
		}
	}

	after := cur
	if ok {
		after = target.Level
	}
	fin, img2 := g.waitLevel(after)
	if !ok && !maps.Equal(fin, before) {
		g.t.Errorf("%s: refused, yet finalized features changed from %v to %v", label, before, fin)
	}
	// kmeta reads the same finalized features from the log as the broker
	// serves. kraft.version lives in raft control records (KRaftVersion),
	// not in a FeatureLevelRecord; features at 0 may or may not be listed.
	imgFeat := maps.Clone(img2.Features)
	if img2.Quorum != nil {
		imgFeat[features.KRaftVersion] = img2.Quorum.KRaftVersion
	}
	finFeat := maps.Clone(fin)
	for _, m := range []map[string]int16{imgFeat, finFeat} {
		maps.DeleteFunc(m, func(k string, v int16) bool { return v == 0 })
	}
	if !maps.Equal(imgFeat, finFeat) {
		g.t.Errorf("%s: replayed features %v, broker finalized %v", label, img2.Features, fin)
	}
	// --release-version moves every feature to its default for the
	// release: the finalized set must be what Bootstrap computes.
	if ok && slices.Contains(s.args, "--release-version") {
		want, err := g.cat.Bootstrap(s.target)
		if err != nil {
			g.t.Fatalf("Bootstrap(%q): %v", s.target, err)
		}
		maps.DeleteFunc(want, func(k string, v int16) bool { return v == 0 })
		if !maps.Equal(finFeat, want) {
			g.t.Errorf("%s: finalized %v, Bootstrap(%q) says %v", label, fin, s.target, want)
		}
		kafkaSays += fmt.Sprintf(" Finalized: %s.", featureText(fin))
	}
	g.t.Logf("%s: kmeta %s; Kafka %s", label, verdictText(v), kafkaSays)
	recordGate(g.name, gateRow{
		Kafka: g.d.Version, From: fmt.Sprintf("%s (%d)", from.Name, cur),
		Command: "`" + strings.Join(s.args, " ") + "`", Content: g.content,
		Kmeta: verdictText(v), KafkaSays: kafkaSays,
	})
}

// featureStep changes one finalized feature other than metadata.version.
// kmeta's prediction is ValidateFeatures over the finalized features
// replayed from the log, with the change applied.
func (g *gateCluster) featureStep(verb, feature string, level int16, accept bool, kind string) {
	g.t.Helper()
	before := g.finalized()
	img := g.image()
	levels := maps.Clone(img.Features)
	if img.Quorum != nil {
		levels[features.KRaftVersion] = img.Quorum.KRaftVersion
	}
	levels[feature] = level
	found := g.cat.ValidateFeatures(levels, features.CheckOptions{})
	var kinds []string
	for _, f := range found {
		kinds = append(kinds, f.Code)
	}
	allowed := len(found) == 0
	kmeta := "allowed"
	if !allowed {
		kmeta = "refused (" + strings.Join(kinds, ", ") + ")"
	}
	arg := fmt.Sprintf("%s=%d", feature, level)
	mv := before[features.MetadataVersionFeature]
	from, _ := g.cat.ByLevel(mv)
	label := fmt.Sprintf("%s (%d): kafka-features %s --feature %s", from.Name, mv, verb, arg)
	if allowed != accept {
		g.t.Errorf("%s: kmeta %s, want allowed=%v: %+v", label, kmeta, accept, found)
	}
	if kind != "" && !slices.Contains(kinds, kind) {
		g.t.Errorf("%s: kmeta reported no %s finding: %+v", label, kind, found)
	}
	ok, out := g.featureCommand(verb, "--feature", arg)
	kafkaSays := "accepted"
	if !ok {
		kafkaSays = "refused"
	}
	if ok != accept {
		g.t.Errorf("%s: Kafka %s, want accepted=%v:\n%s", label, kafkaSays, accept, out)
	}
	if ok != allowed {
		g.t.Errorf("%s: DISAGREEMENT: kmeta %s, Kafka %s: %s", label, kmeta, kafkaSays, kafkaMessage(out))
	}
	kafkaSays += ": " + shortKafka(featureMessage(out, feature))
	want := maps.Clone(before)
	if ok {
		want[feature] = level
	}
	deadline := time.Now().Add(30 * time.Second)
	for fin := g.finalized(); fin[feature] != want[feature]; fin = g.finalized() {
		if time.Now().After(deadline) {
			g.t.Fatalf("%s: finalized %s=%d, want %d", label, feature, fin[feature], want[feature])
		}
		time.Sleep(300 * time.Millisecond)
	}
	deadline = time.Now().Add(30 * time.Second)
	for img := g.image(); img.Features[feature] != want[feature]; img = g.image() {
		if time.Now().After(deadline) {
			g.t.Fatalf("%s: replayed %s=%d, want %d", label, feature, img.Features[feature], want[feature])
		}
		time.Sleep(300 * time.Millisecond)
	}
	g.t.Logf("%s: kmeta %s; Kafka %s", label, kmeta, kafkaSays)
	recordGate(g.name, gateRow{
		Kafka: g.d.Version, From: fmt.Sprintf("%s (%d)", from.Name, mv),
		Command: "`" + verb + " --feature " + arg + "`", Content: g.content,
		Kmeta: kmeta + " [ValidateFeatures]", KafkaSays: kafkaSays,
	})
}

// featureMessage keeps the line of FeatureCommand's output about feature.
func featureMessage(out, feature string) string {
	for _, ln := range strings.Split(out, "\n") {
		if ln = strings.TrimSpace(ln); strings.Contains(ln, feature) {
			return ln
		}
	}
	return kafkaMessage(out)
}

// stopAndRecheck stops the node and checks that the log it leaves behind
// replays to the level the broker last finalized and gives the same verdict
// for target as the running node's log did.
func (g *gateCluster) stopAndRecheck(target string) {
	g.t.Helper()
	fin := g.finalized()
	lvl, err := g.cat.LevelFor(target)
	if err != nil {
		g.t.Fatal(err)
	}
	live := g.cat.Check(g.image(), lvl, features.CheckOptions{})
	g.c.StopNode(g.node)
	img := g.image()
	if img.MetadataVersion() != fin[features.MetadataVersionFeature] {
		g.t.Errorf("stopped node's log replays metadata.version %d, broker finalized %d", img.MetadataVersion(), fin[features.MetadataVersionFeature])
	}
	stopped := g.cat.Check(img, lvl, features.CheckOptions{})
	if verdictText(live) != verdictText(stopped) || live.Allowed != stopped.Allowed {
		g.t.Errorf("verdict for %s: running node's log %s, stopped node's log %s", target, verdictText(live), verdictText(stopped))
	}
}

// TestKafkaGating runs metadata.version upgrades and downgrades on real
// KRaft clusters (Kafka 4.4.0 and 3.9.2) and checks that features.Check,
// run on the replayed metadata log, predicts what Kafka's controller does.
func TestKafkaGating(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	gateMu.Lock()
	gateRows = map[string][]gateRow{}
	gateMu.Unlock()
	t.Run("4.4.0", func(t *testing.T) {
		t.Parallel()
		gating44(t)
	})
	t.Run("3.9.2", func(t *testing.T) {
		t.Parallel()
		gating39(t)
	})
	t.Cleanup(func() {
		gateMu.Lock()
		defer gateMu.Unlock()
		// Only a full, passing run describes the table.
		if t.Failed() || len(gateRows[kafkatest.Latest4]) == 0 || len(gateRows[kafkatest.Kafka39]) == 0 {
			return
		}
		readmeSection(t, "TestKafkaGating", gatingTable())
	})
}

// gating44: Kafka 4.4.0 formatted at 3.5-IV2 with two SCRAM credentials.
func gating44(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{
		ReleaseVersion: "3.5-IV2",
		AddSCRAM: []string{
			"SCRAM-SHA-256=[name=alice,password=alice-secret]",
			"SCRAM-SHA-512=[name=bob,password=bob-secret]",
		},
	})
	g := &gateCluster{t: t, d: d, c: c, adm: c.Admin(t), cat: features.Default(), node: kafkatest.FirstBrokerID, name: d.Version}
	img := g.image()
	if len(img.SCRAM) != 2 {
		t.Fatalf("replayed %d SCRAM credentials, want the 2 format added", len(img.SCRAM))
	}
	g.content = "2 SCRAM credentials"
	scramLoss := "2 SCRAM credentials need at least 3.5-IV2"
	for _, s := range []gateStep{
		// Below 3.5-IV2 the SCRAM credentials cannot be written.
		{args: []string{"downgrade", "--metadata", "3.4-IV0"}, target: "3.4-IV0", lossContains: scramLoss,
			kinds: []string{features.KindMetadataChanged}},
		{args: []string{"downgrade", "--release-version", "3.5-IV1"}, target: "3.5-IV1", lossContains: scramLoss,
			kinds: []string{features.KindMetadataChanged}},
		{args: []string{"upgrade", "--metadata", "3.6-IV0"}, target: "3.6-IV0", accept: true},
		// 3.6-IV0 did not change the metadata format.
		{args: []string{"downgrade", "--metadata", "3.5-IV2"}, target: "3.5-IV2", accept: true},
	} {
		g.step(s)
	}
	// eligible.leader.replicas.version 1 depends on metadata.version 4.0-IV1;
	// group.version 1 depends on nothing.
	g.featureStep("upgrade", features.ELRVersion, 1, false, features.KindFeatureDependency)
	g.featureStep("upgrade", features.GroupVersion, 1, true, "")
	g.featureStep("downgrade", features.GroupVersion, 0, true, "")
	for _, s := range []gateStep{
		{args: []string{"upgrade", "--release-version", "4.4-IV0"}, target: "4.4-IV0", accept: true},
		// 4.4-IV0 did not change the metadata format; 4.3-IV0 did, but it
		// is the target.
		{args: []string{"downgrade", "--metadata", "4.3-IV0"}, target: "4.3-IV0", accept: true},
		{args: []string{"downgrade", "--release-version", "4.2"}, target: "4.2", kinds: []string{features.KindMetadataChanged}},
		{args: []string{"upgrade", "--release-version", "4.4"}, target: "4.4", accept: true},
		{args: []string{"upgrade", "--metadata", "4.5-IV0"}, target: "4.5-IV0", kinds: []string{features.KindUnstableLevel}},
		{args: []string{"downgrade", "--metadata", "4.4-IV1"}, target: "4.4-IV1", kinds: []string{features.KindMetadataChanged}},
	} {
		g.step(s)
	}
	// ELR needs 4.0-IV1 and the level is 4.4-IV2 now.
	g.featureStep("downgrade", features.ELRVersion, 0, true, "")
	g.featureStep("upgrade", features.ELRVersion, 1, true, "")
	g.stopAndRecheck("3.5-IV1")
}

// gating39: Kafka 3.9.2 formatted at 3.3-IV0, SCRAM users created through
// the admin API once the level allows them.
func gating39(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{ReleaseVersion: "3.3-IV0"})
	g := &gateCluster{t: t, d: d, c: c, adm: c.Admin(t), cat: features.Catalog39(), node: kafkatest.FirstBrokerID, name: d.Version}
	g.content = "none"
	g.step(gateStep{args: []string{"upgrade", "--metadata", "3.5-IV2"}, target: "3.5-IV2", accept: true})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := g.adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "alice-secret"},
		{User: "bob", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "bob-secret"},
		{User: "carol", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "carol-secret"},
	})
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Fatalf("AlterUserSCRAMs: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(g.image().SCRAM) != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("replayed %d SCRAM credentials, want 3", len(g.image().SCRAM))
		}
		time.Sleep(300 * time.Millisecond)
	}
	g.content = "3 SCRAM credentials"
	scramLoss := "3 SCRAM credentials need at least 3.5-IV2"
	for _, s := range []gateStep{
		{args: []string{"downgrade", "--metadata", "3.5-IV1"}, target: "3.5-IV1", lossContains: scramLoss,
			kinds: []string{features.KindMetadataChanged}},
		{args: []string{"upgrade", "--metadata", "3.9"}, target: "3.9", accept: true},
		// 3.7-IV3 … 3.9-IV0 did not change the metadata format.
		{args: []string{"downgrade", "--metadata", "3.7-IV2"}, target: "3.7-IV2", accept: true},
		{args: []string{"downgrade", "--metadata", "3.6-IV2"}, target: "3.6-IV2", kinds: []string{features.KindMetadataChanged}},
		{args: []string{"downgrade", "--metadata", "3.2-IV0"}, target: "3.2-IV0", lossContains: scramLoss,
			kinds: []string{features.KindMetadataChanged, features.KindBelowMinimum}},
		{args: []string{"upgrade", "--metadata", "4.0-IV0"}, target: "4.0-IV0", kinds: []string{features.KindUnstableLevel}},
	} {
		g.step(s)
	}
	// transaction.version 1 is unstable in 3.9.
	g.featureStep("upgrade", features.TransactionVersion, 1, false, features.KindUnstableLevel)
	g.stopAndRecheck("3.5-IV1")
}

func updateKafkaFlag() bool {
	f := flag.Lookup("update-kafka")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// readmeSection keeps a table produced by a real-Kafka test in
// testdata/features/README.md, between markers named after the test. With
// -update-kafka it (re)writes the section; otherwise the committed section
// must still be what this run produced.
func readmeSection(t *testing.T, name, body string) {
	t.Helper()
	begin := "<!-- " + name + ": written by go test ./features -run " + name + " -update-kafka -->"
	end := "<!-- end of " + name + " -->"
	section := begin + "\n\n" + body + "\n" + end
	re := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(begin) + `.*?` + regexp.QuoteMeta(end))
	path := filepath.Join("..", "testdata", "features", "README.md")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cur := re.Find(old)
	if !updateKafkaFlag() {
		if string(cur) != section {
			t.Errorf("the %s table in %s differs from this run; rerun with -update-kafka and review the diff", name, path)
		}
		return
	}
	var out string
	if cur != nil {
		out = re.ReplaceAllLiteralString(string(old), section)
	} else {
		out = strings.TrimRight(string(old), "\n") + "\n\n" + section + "\n"
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// gatingTable renders the rows of this run.
func gatingTable() string {
	var b strings.Builder
	b.WriteString("| Kafka | from | kafka-features | content | kmeta | Kafka |\n|---|---|---|---|---|---|\n")
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, name := range []string{kafkatest.Latest4, kafkatest.Kafka39} {
		for _, r := range gateRows[name] {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Kafka, r.From, esc(r.Command), r.Content, esc(r.Kmeta), esc(r.KafkaSays))
		}
	}
	return b.String()
}
