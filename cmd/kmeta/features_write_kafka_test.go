package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

// featureLevelOffsets lists the offsets of the FeatureLevelRecords in the
// node's metadata log segments, as kmeta log dump prints them (snapshots
// left out: they repeat records).
func featureLevelOffsets(t *testing.T, c *kafkatest.Cluster, node int) []string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(c.MetadataPartitionDir(node), "*.log"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segments in %s: %v", c.MetadataPartitionDir(node), err)
	}
	r := kmeta(append([]string{"log", "dump", "--records-only", "--type", "FeatureLevelRecord"}, segs...)...)
	var out []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if m := offsetRE.FindStringSubmatch(l); m != nil && strings.Contains(l, "FEATURE_LEVEL_RECORD") {
			out = append(out, m[1]+" "+l[strings.Index(l, `"data"`):])
		}
	}
	return out
}

var offsetRE = regexp.MustCompile(`offset: (\d+) `)

// kafkaDryRun asks Kafka's own kafka-features the same change with
// --dry-run (UpdateFeatures validate-only): the oracle.
func kafkaDryRun(t *testing.T, c *kafkatest.Cluster, args ...string) (bool, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{"--bootstrap-server", c.BootstrapServers()}, args...)
	out, errOut, err := c.Dist.Run(ctx, c.Dist.Tools.Features, append(all, "--dry-run")...)
	text := strings.TrimSpace(string(out) + "\n" + string(errOut))
	if err != nil {
		var ee interface{ ExitCode() int }
		if !errors.As(err, &ee) {
			t.Fatalf("kafka-features %v: %v", args, err)
		}
		return false, text
	}
	return true, text
}

// TestFeaturesWriteKafka44 walks a Kafka 4.4.0 cluster, formatted at
// 3.9-IV0 with a static quorum, through feature changes with kmeta
// features upgrade/downgrade/disable. Every time kmeta's verdict must
// agree with Kafka's own kafka-features --dry-run, a refusal or --dry-run
// must leave no new FeatureLevelRecord in the controller's log, a real
// change must show in Kafka's finalized levels, and kraft.version 0→1
// must end in a dynamic quorum kafka-metadata-quorum reports.
func TestFeaturesWriteKafka44(t *testing.T) {
	kafkatest.Concurrently(t)
	recordTranscript(t, "metadata-version-upgrade")
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{ReleaseVersion: "3.9-IV0"})
	node := c.Controllers()[0]
	src := "kafka://" + c.BootstrapServers()

	steps := []featureStep{
		{name: "upgrade dry run", op: "upgrade", args: []string{"--metadata", "4.0-IV0"}, allow: true},
		{name: "safe downgrade 21 to 20", op: "downgrade", args: []string{"--metadata", "3.8-IV0"}, allow: true, write: true,
			finalized: map[string]int16{"metadata.version": 20}},
		{name: "downgrade across 3.7-IV2", op: "downgrade", args: []string{"--metadata", "3.7-IV1"}, codes: []string{"downgrade-metadata-changed"}},
		{name: "unsafe downgrade across 3.7-IV2", op: "downgrade", args: []string{"--metadata", "3.7-IV1", "--unsafe"}, codes: []string{"downgrade-metadata-changed"}},
		{name: "lower level as an upgrade", op: "upgrade", args: []string{"--metadata", "3.7-IV4"}, codes: []string{"wrong-upgrade-type"}},
		{name: "ELR before 4.0-IV1", op: "upgrade", args: []string{"--feature", "eligible.leader.replicas.version=1"}, codes: []string{"feature-dependency"}},
		{name: "upgrade to 4.0-IV3", op: "upgrade", args: []string{"--metadata", "4.0-IV3"}, allow: true, write: true,
			finalized: map[string]int16{"metadata.version": 25}},
		{name: "group.version up", op: "upgrade", args: []string{"--feature", "group.version=1"}, allow: true, write: true,
			finalized: map[string]int16{"group.version": 1}},
		{name: "group.version disabled", op: "disable", args: []string{"--feature", "group.version"}, allow: true, write: true,
			finalized: map[string]int16{"group.version": 0}},
		{name: "downgrade across 4.0-IV1", op: "downgrade", args: []string{"--metadata", "4.0-IV0"}, codes: []string{"downgrade-metadata-changed"}},
		{name: "unstable level", op: "upgrade", args: []string{"--metadata", "4.5-IV0"}, codes: []string{"unstable-level", "unsupported-by-node"}},
		{name: "release 4.1 with ELR", op: "upgrade", args: []string{"--metadata", "4.1", "--feature", "eligible.leader.replicas.version=1"}, allow: true, write: true,
			finalized: map[string]int16{"metadata.version": 27, "eligible.leader.replicas.version": 1}},
	}
	// What the metadata.version runbook shows
	// (docs/runbooks/upgrade-metadata-version.md), in text: the finalized
	// levels with every node's supported range (the software roll is
	// done when every node supports the target), then the gate.
	t.Run("runbook view", func(t *testing.T) {
		for _, args := range [][]string{
			{"features", "describe", src, "--bootstrap-controller", c.BootstrapControllers()},
			{"features", "upgrade", src, "--metadata", "4.0-IV0", "--dry-run"},
		} {
			if r := kmetaOf(t, args...); r.code != exitOK {
				t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
			}
		}
	})
	runFeatureSteps(t, c, node, src, steps)

	t.Run("no terminal without --yes", func(t *testing.T) {
		before := featureLevelOffsets(t, c, node)
		r := kmetaOf(t, "features", "upgrade", src, "--metadata", "4.1-IV1")
		if r.code != exitFailure || !strings.Contains(r.stderr, "--yes") {
			t.Errorf("exit %d, want 2 naming --yes: %s", r.code, r.stderr)
		}
		if after := featureLevelOffsets(t, c, node); !slices.Equal(before, after) {
			t.Errorf("written without confirmation: %v", after)
		}
	})

	t.Run("kraft.version 0 to 1", func(t *testing.T) {
		ctx := context.Background()
		q, err := c.DescribeQuorum(ctx)
		if err != nil || q.KRaftVersion != 0 {
			t.Fatalf("before: kraft.version %v, %v", q, err)
		}
		// quorum describe says the static quorum can become dynamic, and
		// its fix is the command that does it, on the cluster as read;
		// run as printed (--yes: no terminal to confirm on).
		r := kmetaOf(t, "quorum", "describe", src, "-o", "json")
		var qd struct {
			Findings []model.Finding `json:"findings"`
		}
		want := "kmeta features upgrade " + src + " --feature kraft.version=1"
		err = json.Unmarshal([]byte(r.stdout), &qd)
		var fixes []string
		for _, f := range qd.Findings {
			if f.Code == voters.CodeCanBeDynamic {
				fixes = append(fixes, f.Fix)
			}
		}
		if err != nil || !slices.Equal(fixes, []string{want}) {
			t.Fatalf("quorum describe: exit %d, %v, findings %+v; want the fix %q\n%s", r.code, err, qd.Findings, want, r.stderr)
		}
		liveFix := fixes[0]
		// From the controllers' log dirs (no connection given), the fix
		// names the brokers' listeners as they registered them; Kafka
		// accepts it (--dry-run: validate-only), so it runs as printed
		// there too. (Through --bootstrap-controller, which it named
		// before, kmeta features failed: a controller answers
		// DescribeCluster for brokers with MISMATCHED_ENDPOINT_TYPE.)
		var dirs []string
		for _, id := range c.Controllers() {
			dirs = append(dirs, "kraft:"+c.MetadataLogDir(id))
		}
		r = kmetaOf(t, append([]string{"quorum", "describe", "-o", "json"}, dirs...)...)
		qd.Findings, fixes = nil, nil
		err = json.Unmarshal([]byte(r.stdout), &qd)
		for _, f := range qd.Findings {
			if f.Code == voters.CodeCanBeDynamic {
				fixes = append(fixes, f.Fix)
			}
		}
		if want := "kmeta features upgrade --bootstrap-server " + c.BootstrapServers() + " --feature kraft.version=1"; err != nil || !slices.Equal(fixes, []string{want}) {
			t.Fatalf("quorum describe of the log dirs: exit %d, %v, findings %+v; want the fix %q\n%s", r.code, err, qd.Findings, want, r.stderr)
		}
		if r := kmetaOf(t, append(strings.Fields(strings.TrimPrefix(fixes[0], "kmeta ")), "--dry-run")...); r.code != exitOK {
			t.Fatalf("the log dirs' fix with --dry-run: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		// Through a controller the same request validates, the brokers
		// named as the one gap (a controller does not list them), and
		// the brokers' roll the upgrade needs is the line that lists
		// them through a broker.
		r = kmetaOf(t, "features", "upgrade", "--bootstrap-controller", c.BootstrapControllers(), "--feature", "kraft.version=1", "--dry-run", "-o", "json")
		var viaCtl struct {
			Outcome     string   `json:"outcome"`
			Gaps        []string `json:"gaps"`
			BrokersRoll string   `json:"brokersRoll"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &viaCtl); err != nil || r.code != exitOK || viaCtl.Outcome != report.ChangeWouldDo ||
			!slices.Equal(viaCtl.Gaps, []string{"brokers: not listed through a controller (--bootstrap-controller); Kafka's validation checks their ranges, kmeta's does not: --bootstrap-server reaches both"}) ||
			viaCtl.BrokersRoll != `kmeta roll plan --bootstrap-server "${BOOTSTRAP_SERVER:?set it to a broker HOST:PORT}" --all-brokers` {
			t.Fatalf("--bootstrap-controller --dry-run: exit %d, %v, %+v\n%s%s", r.code, err, viaCtl, r.stdout, r.stderr)
		}
		r = kmetaOf(t, append(strings.Fields(strings.TrimPrefix(liveFix, "kmeta ")), "--yes")...)
		if r.code != exitOK || !strings.Contains(r.stdout, "controller.quorum.bootstrap.servers") {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		t.Log(r.stdout)
		// The config roll is gated: each node between its roll check and
		// its roll wait, with the source given here.
		for _, id := range c.Controllers() {
			for _, verb := range []string{"check", "wait"} {
				if line := fmt.Sprintf("kmeta roll %s --node %d %s", verb, id, src); !strings.Contains(r.stdout, line) {
					t.Errorf("the kraft.version roll does not print %q", line)
				}
			}
		}
		q, err = c.DescribeQuorum(ctx)
		if err != nil || q.KRaftVersion != 1 {
			t.Fatalf("after: kafka-features says kraft.version %d (%v)\n%s", q.KRaftVersion, err, q.Raw)
		}
		// A dynamic quorum lists its voters' directory ids.
		for _, v := range q.Voters {
			if v.DirectoryID == "" || v.DirectoryID == "AAAAAAAAAAAAAAAAAAAAAA" {
				t.Errorf("voter %d without a directory id after the upgrade:\n%s", v.ID, q.Raw)
			}
		}
		// Back down: kmeta refuses, as Kafka does.
		r = kmetaOf(t, "features", "downgrade", src, "--feature", "kraft.version=0", "-o", "json", "--yes")
		ok, says := kafkaDryRun(t, c, "downgrade", "--feature", "kraft.version=0")
		if r.code != exitFindings || ok {
			t.Errorf("kraft.version 1→0: kmeta exit %d, Kafka dry run %v (%s)\n%s", r.code, ok, says, r.stdout)
		}
	})
}

// featureStep is one change tried with kmeta and with kafka-features --dry-run.
type featureStep struct {
	name string
	// op and args are kafka-features' command and flags (kmeta takes
	// the same).
	op   string
	args []string
	// allow is what both kmeta and Kafka must say.
	allow bool
	// stricter: kmeta refuses what Kafka accepts (a rule kmeta keeps on
	// purpose; the test shows why).
	stricter bool
	// write: send the real request (--yes); else --dry-run.
	write bool
	// codes kmeta must report.
	codes []string
	// finalized are levels Kafka must report after the step.
	finalized map[string]int16
}

// runFeatureSteps runs each step as a subtest against the cluster.
func runFeatureSteps(t *testing.T, c *kafkatest.Cluster, node int, src string, steps []featureStep) {
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := featureLevelOffsets(t, c, node)
			args := append([]string{"features", s.op, src, "-o", "json"}, s.args...)
			if s.write {
				args = append(args, "--yes")
			} else {
				args = append(args, "--dry-run")
			}
			r := kmetaOf(t, args...)
			var doc report.FeatureChange
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("exit %d, output not JSON: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
			}
			kafkaOK, kafkaSays := kafkaDryRun(t, c, append([]string{s.op}, s.args...)...)
			t.Logf("kmeta: %s (%v); Kafka --dry-run: %v: %s", doc.Outcome, doc.Findings, kafkaOK, kafkaSays)
			if s.stricter && !kafkaOK {
				t.Errorf("kmeta is stricter here on purpose, but Kafka refused too: %s", kafkaSays)
			}
			if doc.Verdict.Allowed != kafkaOK && !s.stricter {
				t.Errorf("DISAGREEMENT: kmeta allowed=%v, Kafka's dry run %v: %s", doc.Verdict.Allowed, kafkaOK, kafkaSays)
			}
			if doc.Verdict.Allowed != s.allow {
				t.Errorf("kmeta allowed=%v, want %v: %+v", doc.Verdict.Allowed, s.allow, doc.Findings)
			}
			for _, code := range s.codes {
				if !slices.ContainsFunc(doc.Findings, func(f model.Finding) bool { return f.Code == code }) {
					t.Errorf("no %s finding: %+v", code, doc.Findings)
				}
			}
			wantExit, wantOutcome := exitFindings, report.ChangeRefusedByKmeta
			switch {
			case s.allow && s.write:
				wantExit, wantOutcome = exitOK, report.ChangeDone
			case s.allow:
				wantExit, wantOutcome = exitOK, report.ChangeWouldDo
			}
			if r.code != wantExit || doc.Outcome != wantOutcome {
				t.Errorf("exit %d outcome %q, want %d %q\n%s", r.code, doc.Outcome, wantExit, wantOutcome, r.stderr)
			}
			if !s.allow && (doc.Sent || doc.Validated != nil) {
				t.Errorf("kmeta refused yet sent a request: %+v", doc)
			}
			if s.allow && !slices.ContainsFunc(doc.Validated, func(a report.KafkaAnswer) bool { return a.Error == "" }) {
				t.Errorf("Kafka's validate-only answer: %+v", doc.Validated)
			}
			after := featureLevelOffsets(t, c, node)
			if !s.write && !slices.Equal(before, after) {
				t.Errorf("nothing was to be written, yet the log's FeatureLevelRecords went from %v to %v", before, after)
			}
			if s.write && len(after) <= len(before) {
				t.Errorf("written, yet no new FeatureLevelRecord: %v", after)
			}
			for k, v := range s.finalized {
				if doc.After[k] != v {
					t.Errorf("after: %s=%d, want %d (%v)", k, doc.After[k], v, doc.After)
				}
			}
		})
	}

}

// TestFeaturesWriteKafka39 does the same on Kafka 3.9.2, formatted at
// 3.5-IV2: the 3.9 catalog's levels, transaction.version still unstable,
// and kraft.version that 3.9 cannot move online.
//
// The cluster has the live acceptance's listeners, and once it stands at
// 3.9's own metadata.version (3.9-IV0) it hosts the live acceptance on
// 3.9.2 with the rich metadata set (delegation tokens need 3.6-IV2, so
// not before): one 3.9.2 KRaft start for both.
func TestFeaturesWriteKafka39(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	c := kafkatest.StartKRaft(t, d, liveOptions(kafkatest.KRaftOptions{ReleaseVersion: "3.5-IV2"}))
	node := c.Controllers()[0]
	src := "kafka://" + c.BootstrapServers()
	runFeatureSteps(t, c, node, src, []featureStep{
		{name: "upgrade dry run", op: "upgrade", args: []string{"--metadata", "3.7-IV4"}, allow: true},
		{name: "upgrade to 3.9", op: "upgrade", args: []string{"--metadata", "3.9"}, allow: true, write: true,
			finalized: map[string]int16{"metadata.version": 21}},
	})
	t.Run("live acceptance", func(t *testing.T) {
		populateLive(t, c, 1)
		liveAcceptance(t, c, node)
	})
	runFeatureSteps(t, c, node, src, []featureStep{
		{name: "safe downgrade 21 to 17", op: "downgrade", args: []string{"--metadata", "3.7-IV2"}, allow: true, write: true,
			finalized: map[string]int16{"metadata.version": 17}},
		{name: "downgrade across 3.7-IV2", op: "downgrade", args: []string{"--metadata", "3.6-IV2"}, codes: []string{"downgrade-metadata-changed"}},
		{name: "unsafe downgrade across 3.7-IV2", op: "downgrade", args: []string{"--metadata", "3.6-IV2", "--unsafe"}, codes: []string{"downgrade-metadata-changed"}},
		{name: "transaction.version unstable in 3.9", op: "upgrade", args: []string{"--feature", "transaction.version=1"}, codes: []string{"unstable-level"}},
		{name: "4.0-IV0 unstable in 3.9", op: "upgrade", args: []string{"--metadata", "4.0-IV0"}, codes: []string{"unstable-level"}},
		{name: "kraft.version online needs 4.1", op: "upgrade", args: []string{"--feature", "kraft.version=1"}, stricter: true,
			codes: []string{"kraft-version-upgrade-unsupported"}},
	})
	// Why kmeta refuses what Kafka 3.9.2 accepts: Kafka finalizes
	// kraft.version 1, but its voters have no directory id.
	t.Run("kraft.version 1 on 3.9.2 is not a working dynamic quorum", func(t *testing.T) {
		ctx := context.Background()
		if _, _, err := c.Dist.Run(ctx, c.Dist.Tools.Features, "--bootstrap-server", c.BootstrapServers(), "upgrade", "--feature", "kraft.version=1"); err != nil {
			t.Fatalf("kafka-features upgrade --feature kraft.version=1: %v", err)
		}
		q, err := c.DescribeQuorum(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if q.KRaftVersion != 1 {
			t.Fatalf("kraft.version %d after Kafka accepted it:\n%s", q.KRaftVersion, q.Raw)
		}
		for _, v := range q.Voters {
			if v.DirectoryID != "" {
				t.Errorf("voter %d has directory id %q: Kafka 3.9.2 now upgrades properly; revisit kmeta's refusal\n%s", v.ID, v.DirectoryID, q.Raw)
			}
		}
	})
}
