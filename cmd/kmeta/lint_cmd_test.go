package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLintFixtures: lint on the committed real-Kafka fixtures. The KRaft
// ones are logs of stopped clusters (every broker fenced, its partitions
// offline), the ZooKeeper one holds RF 1 topics, a reassignment in flight
// and a pending deletion: each says so, with exit 1 at the default
// --fail-on, and exit 0 with the findings accepted or below --fail-on.
func TestLintFixtures(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"kraft:../../testdata/kraft/4.4.0/metadata", []string{"broker-fenced broker 1", "partition-offline partition orders.v1-0", "min-isr-not-below-rf topic payments_v2.eu", "quorum-single-voter quorum"}},
		{"kraft:../../testdata/kraft/3.9.2/metadata", []string{"broker-fenced broker 3", "replication-factor-below-3 topic orders.v1", "quorum-single-voter quorum"}},
		{"zkdata:../../testdata/zk/datadir", []string{"replication-factor-one topic user_events", "reassignment-in-flight partition orders.v1-0", "topic-deletion-pending topic doomed", "partition-under-replicated partition orders.v1-1"}},
		{"zkdump:../../testdata/zk/dump.json", []string{"replication-factor-one topic doomed", "min-isr-not-below-rf topic compacted"}},
	} {
		r := kmeta("lint", "-o", "json", tc.src)
		if r.code != 1 {
			t.Fatalf("%s: exit %d %s", tc.src, r.code, r.stderr)
		}
		var doc struct {
			Findings []struct{ Code, Entity string } `json:"findings"`
			Failing  bool                            `json:"failing"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, f := range doc.Findings {
			got[f.Code+" "+f.Entity] = true
		}
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("%s: no %s", tc.src, w)
			}
		}
	}
	// A static quorum's voters come from quorum-state (replay from a
	// snapshot meets no LeaderChange): the quorum rules run on the 3.9.2
	// log as quorum describe judges it, and the fix says that a quorum of
	// 3.9 controllers becomes dynamic only once they run 4.1. The rules
	// were not-applicable, and lint exited 0 with "0 of 1 rules ran: clean".
	r := kmeta("lint", "-o", "json", "--rule", "quorum-single-voter", "kraft:../../testdata/kraft/3.9.2/metadata")
	var one struct {
		Findings []struct{ Code, Entity, Fix string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &one); err != nil || r.code != 1 || len(one.Findings) != 1 ||
		one.Findings[0].Fix != "upgrade every controller to Kafka 4.1 or later, then kafka-features --bootstrap-server BOOTSTRAP upgrade --feature kraft.version=1 && kafka-metadata-quorum --bootstrap-server BOOTSTRAP --command-config NEW_CONTROLLER.properties add-controller" {
		t.Errorf("3.9.2 quorum-single-voter: exit %d, %v, %+v\n%s", r.code, err, one.Findings, r.stderr)
	}
	// Text and table print; --fail-on critical with every critical rule
	// skipped exits 0; --rule picks one.
	src := "zkdata:../../testdata/zk/datadir"
	if r := kmeta("lint", "-o", "table", src); r.code != 1 || !strings.Contains(r.stdout, "FIX") || !strings.Contains(r.stdout, "not-applicable") {
		t.Errorf("table: %d\n%s", r.code, r.stdout)
	}
	r = kmeta("lint", "--fail-on", "critical", "--skip", "partition-offline", "--skip", "replicas-all-unavailable", src)
	if r.code != 0 || !strings.Contains(r.stdout, "of 28 rules ran") {
		t.Errorf("--fail-on critical: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := kmeta("lint", "--rule", "topic-deletion-pending", src); r.code != 0 || !strings.Contains(r.stdout, "1 of 1 rules ran: 1 warning") {
		t.Errorf("--rule: %d\n%s", r.code, r.stdout)
	}
	// An exceptions file accepts what it names.
	ex := filepath.Join(t.TempDir(), "ex.json")
	if err := os.WriteFile(ex, []byte(`{"exceptions":[{"rule":"topic-deletion-pending","topics":"doom*","reason":"being deleted"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := kmeta("lint", "--rule", "topic-deletion-pending", "--fail-on", "info", "--exceptions", ex, src); r.code != 0 || !strings.Contains(r.stdout, "accepted topic-deletion-pending topic doomed: being deleted") {
		t.Errorf("exceptions: %d\n%s", r.code, r.stdout)
	}
	// Usage errors and a source that cannot be read: exit 2.
	for _, args := range [][]string{{"lint", "--rule", "nope", src}, {"lint", "--fail-on", "bad", src}, {"lint", "kraft:/no/such/dir"}} {
		if r := kmeta(args...); r.code != 2 {
			t.Errorf("%v: exit %d", args, r.code)
		}
	}
	// A rule that does not apply is no failure.
	if r := kmeta("lint", "--rule", "quorum-single-voter", src); r.code != 0 || !strings.Contains(r.stdout, "0 of 1 rules ran: clean") {
		t.Errorf("not applicable only: exit %d\n%s", r.code, r.stdout)
	}
}

// TestLintRefusedStaticMinISR: --config 1=FILE whose min.insync.replicas
// is "abc" (Kafka 3.9.2 and 4.4.0 refuse to start the node:
// ConfigException "Not a number of type INT") is static-config-invalid's
// error on broker 1, naming the file, the key and the value; the min ISR
// rules judge no partition by it (before, min-isr-one fired on
// late.topic_x and user_events by a made-up 1, its source reading
// "assumes no override in " with nothing after it) and say why.
func TestLintRefusedStaticMinISR(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for id, v := range map[int]string{1: "abc", 2: "2", 3: "2"} {
		f := filepath.Join(dir, fmt.Sprintf("%d.properties", id))
		if err := os.WriteFile(f, []byte(fmt.Sprintf("node.id=%d\nmin.insync.replicas=%s\n", id, v)), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", fmt.Sprintf("%d=%s", id, f))
	}
	file := filepath.Join(dir, "1.properties")
	r := kmeta(append([]string{"lint", "-o", "json", "--rule", "static-config-invalid", "--rule", "min-isr-one", "--rule", "min-isr-not-below-rf",
		"kraft:../../testdata/kraft/3.9.2/metadata"}, args...)...)
	var doc struct {
		Rules    []struct{ Code, Status, Assumes string }  `json:"rules"`
		Findings []struct{ Code, Entity, Saw, Fix string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 1 {
		t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.Code+" "+f.Entity+": "+f.Saw)
	}
	want := []string{
		`static-config-invalid broker 1: node 1's server.properties (` + file + `) sets min.insync.replicas="abc"`,
		"min-isr-not-below-rf topic payments_v2.eu: topic payments_v2.eu: min.insync.replicas 2 (topic config), replication factor 2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	unjudged := "not judged where node 1's server.properties (" + file + `) sets min.insync.replicas="abc", which Kafka refuses (min.insync.replicas is an integer of at least 1)`
	for _, rr := range doc.Rules {
		if rr.Status == "skipped" {
			continue
		}
		if w := map[string]string{"min-isr-one": unjudged, "min-isr-not-below-rf": unjudged}[rr.Code]; rr.Status != "ran" || rr.Assumes != w {
			t.Errorf("%s: %s, assumes %q, want %q", rr.Code, rr.Status, rr.Assumes, w)
		}
	}
}

// TestLintRefusedStaticValues: --config files whose
// unclean.leader.election.enable is "yes" and whose
// leader.imbalance.per.broker.percentage is "abc" (Kafka 3.9.2 refuses
// both: "Expected value to be either true or false", "Not a number of
// type INT"; the fixture's brokers run 3.9) are static-config-invalid's
// one error on node 1, naming the file, both keys and values;
// unclean-leader-election-enabled does not read "yes" as false but says
// it did not judge it, and reports node 2's "true".
func TestLintRefusedStaticValues(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for id, props := range map[int]string{
		1: "unclean.leader.election.enable=yes\nleader.imbalance.per.broker.percentage=abc\n",
		2: "unclean.leader.election.enable=true\nleader.imbalance.per.broker.percentage=abc\n",
		3: "leader.imbalance.per.broker.percentage=abc\n",
	} {
		f := filepath.Join(dir, fmt.Sprintf("%d.properties", id))
		if err := os.WriteFile(f, []byte(fmt.Sprintf("node.id=%d\n%s", id, props)), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", fmt.Sprintf("%d=%s", id, f))
	}
	file := func(id int) string { return filepath.Join(dir, fmt.Sprintf("%d.properties", id)) }
	r := kmeta(append([]string{"lint", "-o", "json", "--rule", "static-config-invalid", "--rule", "unclean-leader-election-enabled", "--rule", "preferred-leader-imbalance",
		"kraft:../../testdata/kraft/3.9.2/metadata"}, args...)...)
	var doc struct {
		Rules    []struct{ Code, Status, Assumes string }       `json:"rules"`
		Findings []struct{ Code, Entity, Saw, Why, Fix string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 1 {
		t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.Code+" "+f.Entity+": "+f.Saw)
	}
	want := []string{
		"static-config-invalid broker 1: node 1's server.properties (" + file(1) + `) sets leader.imbalance.per.broker.percentage="abc", unclean.leader.election.enable="yes"`,
		"static-config-invalid broker 2: node 2's server.properties (" + file(2) + `) sets leader.imbalance.per.broker.percentage="abc"`,
		"static-config-invalid broker 3: node 3's server.properties (" + file(3) + `) sets leader.imbalance.per.broker.percentage="abc"`,
		"unclean-leader-election-enabled broker 2: broker 2's server.properties sets unclean.leader.election.enable=true, which no dynamic config overrides",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f := doc.Findings[0]; f.Fix != "in node 1's server.properties ("+file(1)+"), set leader.imbalance.per.broker.percentage to an integer (or remove it: Kafka's default is 10) and unclean.leader.election.enable to true or false (or remove it: Kafka's default is false), then start the node" {
		t.Errorf("fix %q", f.Fix)
	}
	wantRuns := map[string]string{
		"static-config-invalid":           "",
		"unclean-leader-election-enabled": "not judged where node 1's server.properties (" + file(1) + `) sets unclean.leader.election.enable="yes", which Kafka refuses (unclean.leader.election.enable is true or false)`,
		// Every preferred leader of the fixture leads: no threshold
		// is needed, none is left unjudged (TestLeaderImbalanceRefusedValue
		// has one that is).
		"preferred-leader-imbalance": "",
	}
	for _, rr := range doc.Rules {
		if w, ok := wantRuns[rr.Code]; ok && (rr.Status != "ran" || rr.Assumes != w) {
			t.Errorf("%s: %s, assumes %q\nwant %q", rr.Code, rr.Status, rr.Assumes, w)
		}
	}
}
