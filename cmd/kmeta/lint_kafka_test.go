package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// lintFinding is what the test reads of kmeta lint's JSON.
type lintFinding struct {
	Code     string `json:"code"`
	Fix      string `json:"fix"`
	Entities []struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"entities"`
}

// names are the finding's entity names of one kind.
func (f lintFinding) names(kind string) []string {
	var out []string
	for _, e := range f.Entities {
		if e.Kind == kind {
			out = append(out, e.Name)
		}
	}
	return out
}

// kafkaTools writes a directory of scripts named as Kafka's distribution
// names its tools (kafka-configs, kafka-topics, ...), each running the
// tool's class through the harness's java command line, so that a fix is
// run exactly as kmeta printed it, by a shell.
func kafkaTools(t *testing.T, d *kafkatest.Distribution) string {
	t.Helper()
	dir := t.TempDir()
	for name, class := range map[string]string{
		"kafka-configs":             d.Tools.Configs,
		"kafka-topics":              d.Tools.Topics,
		"kafka-features":            d.Tools.Features,
		"kafka-metadata-quorum":     d.Tools.MetadataQuorum,
		"kafka-reassign-partitions": "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
		"kafka-leader-election":     "org.apache.kafka.tools.LeaderElectionCommand",
		"kafka-broker-api-versions": "org.apache.kafka.tools.BrokerApiVersionsCommand",
	} {
		cmd := d.Command(context.Background(), class)
		var b strings.Builder
		b.WriteString("#!/bin/sh\nexec")
		for _, a := range cmd.Args {
			b.WriteString(" '" + strings.ReplaceAll(a, "'", `'\''`) + "'")
		}
		b.WriteString(" \"$@\"\n")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLintRulesOnRealKafka: one Kafka 4.4.0 cluster (a controller, three
// brokers, racks on two) is put into the conditions of lint's rules with
// Kafka's own tools; kmeta lint on kafka:// and on the controller's
// metadata log dir reports each, on the entities Kafka's tools describe;
// the fix each finding prints is run as printed (by a shell, the tools
// being Kafka's classes) and the finding clears on both views.
func TestLintRulesOnRealKafka(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 1, Brokers: 3, IdleInterval: time.Hour})
	ctl := c.Controllers()[0]
	// Racks on brokers 1 and 2 (a restart each: the harness gives every
	// broker the same properties).
	for _, id := range []int{1, 2} {
		c.StopNode(id)
		c.Node(id).Props["broker.rack"] = "r" + strconv.Itoa(id)
	}
	c.StartNodes(1, 2)
	addr := fmt.Sprintf("127.0.0.1:%d", c.Node(1).PlainPort)
	live, logDir := "kafka://"+addr, "kraft:"+c.MetadataLogDir(ctl)
	sources := []string{live, logDir}
	tools := kafkaTools(t, d)
	sh := func(cmdline string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", cmdline)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "PATH="+tools+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmdline, err, out)
		}
		return string(out)
	}
	lintOf := func(src string) []lintFinding {
		t.Helper()
		r := kmeta("lint", "-o", "json", src)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("lint %s: exit %d\n%s", src, r.code, r.stderr)
		}
		var doc struct {
			Findings []lintFinding `json:"findings"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("lint %s: %v\n%s", src, err, r.stdout)
		}
		return doc.Findings
	}
	// key is a finding's (code, entity) as the table shows it.
	key := func(f lintFinding) string {
		for _, k := range []string{"topic", "partition", "broker", "quorum"} {
			if n := f.names(k); len(n) > 0 || (k == "quorum" && len(f.Entities) > 0 && f.Entities[0].Kind == k) {
				if k == "quorum" {
					return f.Code + " quorum"
				}
				return f.Code + " " + k + " " + n[0]
			}
		}
		return f.Code
	}
	// table: rule → source → what happened ("fired", "cleared").
	table := map[string]map[string]string{}
	mark := func(code, src, what string) {
		if table[code] == nil {
			table[code] = map[string]string{}
		}
		table[code][src] = what
	}
	// waitForSrc lints every source until want(source, findings) holds
	// on each.
	var waitForSrc func(what string, want func(string, []lintFinding) bool) map[string][]lintFinding
	waitForSrc = func(what string, want func(string, []lintFinding) bool) map[string][]lintFinding {
		t.Helper()
		got := map[string][]lintFinding{}
		deadline := time.Now().Add(90 * time.Second)
		for _, src := range sources {
			for {
				fs := lintOf(src)
				if want(src, fs) {
					got[src] = fs
					break
				}
				if time.Now().After(deadline) {
					var ks []string
					for _, f := range fs {
						ks = append(ks, key(f))
					}
					t.Fatalf("%s: %s: not reached; findings:\n%s", src, what, strings.Join(ks, "\n"))
				}
				time.Sleep(2 * time.Second)
			}
		}
		return got
	}
	// waitFor lints every source until want(findings) holds on each.
	waitFor := func(what string, want func([]lintFinding) bool) map[string][]lintFinding {
		return waitForSrc(what, func(_ string, fs []lintFinding) bool { return want(fs) })
	}
	has := func(fs []lintFinding, k string) bool {
		return slices.ContainsFunc(fs, func(f lintFinding) bool { return key(f) == k })
	}
	hasAll := func(ks []string) func([]lintFinding) bool {
		return func(fs []lintFinding) bool {
			for _, k := range ks {
				if !has(fs, k) {
					return false
				}
			}
			return true
		}
	}
	noneOf := func(ks []string) func([]lintFinding) bool {
		return func(fs []lintFinding) bool {
			for _, k := range ks {
				if has(fs, k) {
					return false
				}
			}
			return true
		}
	}
	// fixOf is the live finding's fix (it names the cluster's address).
	fixOf := func(fs []lintFinding, k string) string {
		for _, f := range fs {
			if key(f) == k {
				return f.Fix
			}
		}
		t.Fatalf("no finding %s", k)
		return ""
	}

	// 1. Durability and placement, with Kafka's tools.
	bs := "--bootstrap-server " + addr
	sh("kafka-topics " + bs + " --create --topic rf1 --partitions 2 --replication-factor 1")
	sh("kafka-topics " + bs + " --create --topic rf2 --partitions 2 --replication-factor 2")
	sh("kafka-topics " + bs + " --create --topic minisr --partitions 1 --replication-factor 2")
	sh("kafka-configs " + bs + " --alter --entity-type topics --entity-name minisr --add-config min.insync.replicas=2")
	sh("kafka-topics " + bs + " --create --topic unclean --partitions 1 --replication-factor 3 --config min.insync.replicas=2")
	sh("kafka-configs " + bs + " --alter --entity-type topics --entity-name unclean --add-config unclean.leader.election.enable=true")
	sh("kafka-topics " + bs + " --create --topic rf3isr1 --partitions 1 --replication-factor 3")
	sh("kafka-topics " + bs + " --create --topic good --partitions 3 --replication-factor 3 --config min.insync.replicas=2")

	// What lint must say, derived from Kafka's own describe.
	desc := sh("kafka-topics " + bs + " --describe --topic 'rf1|rf2|minisr|unclean|rf3isr1|good'")
	rfRe := regexp.MustCompile(`(?m)^Topic: (\S+)\s+TopicId: \S+\s+PartitionCount: \d+\s+ReplicationFactor: (\d+)\s+Configs:\s*(.*)$`)
	var want []string
	for _, m := range rfRe.FindAllStringSubmatch(desc, -1) {
		topic, rf := m[1], atoiT(t, m[2])
		minISR, unclean := 1, false
		for _, kv := range strings.Split(m[3], ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "min.insync.replicas":
				minISR = atoiT(t, v)
			case "unclean.leader.election.enable":
				unclean = v == "true"
			}
		}
		switch {
		case rf == 1:
			want = append(want, "replication-factor-one topic "+topic)
		case rf == 2:
			want = append(want, "replication-factor-below-3 topic "+topic)
		}
		if rf >= 2 && minISR >= rf {
			want = append(want, "min-isr-not-below-rf topic "+topic)
		}
		if rf >= 3 && minISR == 1 {
			want = append(want, "min-isr-one topic "+topic)
		}
		if unclean {
			want = append(want, "unclean-leader-election-enabled topic "+topic)
		}
	}
	if len(want) != 6 {
		t.Fatalf("Kafka's describe gives %d conditions, want 6:\n%s", len(want), desc)
	}
	want = append(want, "broker-without-rack broker 3", "quorum-single-voter quorum")
	got := waitFor("durability and placement findings", hasAll(want))
	for _, src := range sources {
		for _, k := range want {
			mark(strings.Fields(k)[0], src, "fired")
		}
		for _, f := range got[src] {
			if slices.Contains(f.names("topic"), "good") {
				t.Errorf("%s: healthy topic good has a finding: %s", src, key(f))
			}
		}
	}
	// Run every fix of the topic findings as printed.
	var fixed []string
	for _, k := range want {
		if strings.Contains(k, " topic ") {
			sh(fixOf(got[live], k))
			fixed = append(fixed, k)
		}
	}
	waitFor("durability findings cleared", noneOf(fixed))
	for _, k := range fixed {
		for _, src := range sources {
			mark(strings.Fields(k)[0], src, "fired, cleared by its fix")
		}
	}

	// 2. Availability: a topic on broker 3 alone, one with min ISR 2 on
	// brokers 1 and 3, then broker 3 stopped.
	sh("kafka-topics " + bs + " --create --topic single --replica-assignment 3")
	sh("kafka-topics " + bs + " --create --topic strict --replica-assignment 1:3 --config min.insync.replicas=1")
	c.StopNode(3)
	// Kafka's lists of what is down, once the controller has fenced 3.
	var unavailable, underMinISR, underReplicated []string
	parts := func(out string) []string {
		var ps []string
		for _, m := range regexp.MustCompile(`(?m)Topic: (\S+)\s+Partition: (\d+)`).FindAllStringSubmatch(out, -1) {
			ps = append(ps, m[1]+"-"+m[2])
		}
		sort.Strings(ps)
		return ps
	}
	sh("kafka-configs " + bs + " --alter --entity-type topics --entity-name strict --add-config min.insync.replicas=2")
	// A live cluster cannot describe a stopped broker's configs (Kafka
	// answers a broker's DescribeConfigs from that broker only): the
	// rules that read min.insync.replicas do not run there, and say so.
	down := []string{"broker-fenced broker 3", "partition-offline partition single-0", "replicas-all-unavailable partition single-0"}
	avail := waitForSrc("availability findings", func(src string, fs []lintFinding) bool {
		if src == live {
			return hasAll(down)(fs) && strings.Contains(kmeta("lint", "--rule", "partition-under-min-isr", live).stdout, "not run: partition-under-min-isr: the source does not report configs.broker")
		}
		return hasAll(append(slices.Clone(down), "partition-under-min-isr partition strict-0"))(fs)
	})
	unavailable = parts(sh("kafka-topics " + bs + " --describe --unavailable-partitions"))
	underMinISR = parts(sh("kafka-topics " + bs + " --describe --under-min-isr-partitions"))
	underReplicated = parts(sh("kafka-topics " + bs + " --describe --under-replicated-partitions"))
	for _, src := range sources {
		byCode := map[string][]string{}
		for _, f := range avail[src] {
			byCode[f.Code] = append(byCode[f.Code], f.names("partition")...)
		}
		// Kafka's tools list a partition without a leader as under min
		// ISR (and under-replicated when its ISR is short) too; lint
		// reports it once, as offline.
		without := func(ps, drop []string) []string {
			return slices.DeleteFunc(slices.Clone(ps), func(p string) bool { return slices.Contains(drop, p) })
		}
		for code, kafka := range map[string][]string{"partition-offline": unavailable,
			"partition-under-min-isr": without(underMinISR, unavailable), "partition-under-replicated": without(underReplicated, unavailable)} {
			if src == live && code == "partition-under-min-isr" {
				mark(code, src, "not run (stopped broker's configs unreported)")
				continue
			}
			sort.Strings(byCode[code])
			if !slices.Equal(byCode[code], kafka) {
				t.Errorf("%s: %s on %v, Kafka's tools list %v", src, code, byCode[code], kafka)
			}
			mark(code, src, "fired")
		}
		mark("broker-fenced", src, "fired")
		mark("replicas-all-unavailable", src, "fired")
	}
	// The fix: start broker 3 (broker-without-rack's fix first: give it
	// rack r1, so it shares broker 1's rack), then the checks the
	// findings print, as printed: they list nothing any more.
	c.Node(3).Props["broker.rack"] = "r1"
	c.StartNode(3)
	cleared := []string{"broker-fenced broker 3", "partition-offline partition single-0", "partition-under-min-isr partition strict-0",
		"replicas-all-unavailable partition single-0", "broker-without-rack broker 3"}
	waitFor("availability findings cleared", noneOf(cleared))
	for _, k := range []string{"partition-offline partition single-0", "partition-under-min-isr partition strict-0"} {
		// Under min ISR is reported from the log dir only (above): its fix
		// names BOOTSTRAP, the placeholder the operator fills in.
		fix := strings.ReplaceAll(fixOf(avail[logDir], k), "BOOTSTRAP", addr)
		_, check, ok := strings.Cut(fix, "then check: ")
		if !ok {
			t.Fatalf("%s: fix %q has no check", k, fix)
		}
		if ps := parts(sh(check)); len(ps) > 0 {
			t.Errorf("%s: %s still lists %v", k, check, ps)
		}
	}
	for _, k := range cleared {
		for _, src := range sources {
			if src == live && strings.HasPrefix(k, "partition-under-min-isr") {
				continue
			}
			mark(strings.Fields(k)[0], src, "fired, cleared by its fix")
		}
	}

	// 3. Placement: strict-0 now has two replicas on rack r1 (brokers 1
	// and 3) while r2 has room.
	rack := waitFor("rack collision", hasAll([]string{"replicas-same-rack topic strict"}))
	sh(fixOf(rack[live], "replicas-same-rack topic strict"))
	waitFor("rack collision cleared", noneOf([]string{"replicas-same-rack topic strict"}))
	for _, src := range sources {
		mark("replicas-same-rack", src, "fired, cleared by its fix")
	}

	var rows []string
	for _, code := range slices.Sorted(maps.Keys(table)) {
		rows = append(rows, fmt.Sprintf("%-34s kafka://: %-26s log dir: %s", code, table[code][live], table[code][logDir]))
	}
	t.Logf("rule by source:\n%s", strings.Join(rows, "\n"))
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
