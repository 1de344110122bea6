package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/lint"
)

// lintFinding is what the tests read of a kmeta lint finding.
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

// key is a finding's (code, entity) as the tests name it: "CODE topic
// T", "CODE partition T-N", "CODE broker N", "CODE quorum", "CODE
// cluster NAME".
func (f lintFinding) key() string {
	for _, k := range []string{"topic", "partition", "broker"} {
		if n := f.names(k); len(n) > 0 {
			return f.Code + " " + k + " " + n[0]
		}
	}
	if len(f.Entities) > 0 {
		if e := f.Entities[0]; e.Kind == "quorum" {
			return f.Code + " quorum"
		} else if e.Kind == "cluster" {
			return f.Code + " cluster " + e.Name
		}
	}
	return f.Code
}

// lintRuleRun is one rule's outcome in kmeta lint's JSON.
type lintRuleRun struct {
	Code   string `json:"code"`
	Status string `json:"status"`
	Why    string `json:"why"`
}

// lintDoc is what the tests read of kmeta lint's JSON.
type lintDoc struct {
	Findings []lintFinding `json:"findings"`
	Rules    []lintRuleRun `json:"rules"`
}

func (d lintDoc) has(k string) bool {
	return slices.ContainsFunc(d.Findings, func(f lintFinding) bool { return f.key() == k })
}

func (d lintDoc) hasCode(code string) bool {
	return slices.ContainsFunc(d.Findings, func(f lintFinding) bool { return f.Code == code })
}

func (d lintDoc) keys() []string {
	var ks []string
	for _, f := range d.Findings {
		ks = append(ks, f.key())
	}
	return ks
}

// lintView is one way kmeta reads the cluster under test.
type lintView struct {
	col string // the rule-by-source table's column
	src string // the source kmeta lint reads
	// dumpOf, for zkdump:, is the live ZooKeeper source dumped to src
	// before each lint.
	dumpOf string
	// live: fixes are taken from this view (they name the cluster).
	live bool
}

// lintLab runs kmeta lint on every view of one real cluster and Kafka's
// tools against it, and keeps the rule-by-source table.
type lintLab struct {
	t      *testing.T
	c      *kafkatest.Cluster
	addr   string // a broker, for the tools and for BOOTSTRAP
	zkAddr string // the ensemble (ZooKeeper mode), for ZOOKEEPER
	shell  *kafkatest.Shell
	views  []*lintView
	// allowed are findings the cluster keeps on purpose (a 4.4.0
	// cluster of one controller: quorum-single-voter).
	allowed []string
	table   map[string]map[string]string
	// state is every finding the cluster's conditions make, as the
	// scenario made them (each derived from what it ran, or from Kafka's
	// tools): at each stable point every view must show exactly these,
	// those of rules it cannot run left out (waitExact).
	state map[string]bool
}

// expect records what an action makes and clears.
func (l *lintLab) expect(add []string, drop ...string) {
	if l.state == nil {
		l.state = map[string]bool{}
	}
	for _, k := range add {
		l.state[k] = true
	}
	for _, k := range drop {
		if !l.state[k] {
			l.t.Fatalf("expect: %s was not expected, so cannot clear", k)
		}
		delete(l.state, k)
	}
}

// dropCode clears every expected finding of code.
func (l *lintLab) dropCode(code string) {
	for k := range l.state {
		if strings.Fields(k)[0] == code {
			delete(l.state, k)
		}
	}
}

// waitExact lints every view until each shows exactly the expected
// findings (state, less the rules the view does not run; extra, per view,
// for what only the moment says), and returns that sweep: an extra
// finding fails as a missing one does.
func (l *lintLab) waitExact(what string, extra func(v *lintView) []string) map[*lintView]lintDoc {
	l.t.Helper()
	want := func(v *lintView, d lintDoc) []string {
		var ks []string
		for k := range l.state {
			if ran(d, strings.Fields(k)[0]) {
				ks = append(ks, k)
			}
		}
		if extra != nil {
			ks = append(ks, extra(v)...)
		}
		sort.Strings(ks)
		return ks
	}
	var last map[*lintView]lintDoc
	defer func() {
		if l.t.Failed() && last != nil {
			for _, v := range l.views {
				got := last[v].keys()
				sort.Strings(got)
				if w := want(v, last[v]); !slices.Equal(got, w) {
					l.t.Logf("%s @ %s: findings\n  %s\nwant exactly\n  %s", v.col, what, strings.Join(got, "\n  "), strings.Join(w, "\n  "))
				}
			}
		}
	}()
	last = l.waitAll(what+" (exactly)", func(v *lintView, d lintDoc) bool {
		got := d.keys()
		sort.Strings(got)
		return slices.Equal(got, want(v, d))
	})
	return last
}

func (l *lintLab) sh(cmdline string) string {
	l.t.Helper()
	return l.shell.OK(cmdline)
}

// shAll runs commands two at a time (two cores; each is a JVM start).
func (l *lintLab) shAll(cmds ...string) {
	l.t.Helper()
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []string
	for _, cmdline := range cmds {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if out, err := l.shell.Run(cmdline); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%v\n%s", err, out))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		l.t.Fatal(strings.Join(errs, "\n"))
	}
}

func (l *lintLab) lint(v *lintView) lintDoc {
	l.t.Helper()
	if v.dumpOf != "" {
		path := strings.TrimPrefix(v.src, "zkdump:")
		if r := kmeta("zk", "dump", "--force", "--out", path, v.dumpOf); r.code != 0 {
			l.t.Fatalf("zk dump %s: exit %d\n%s", v.dumpOf, r.code, r.stderr)
		}
	}
	r := kmeta("lint", "-o", "json", v.src)
	if r.code != 0 && r.code != 1 {
		l.t.Fatalf("lint %s: exit %d\n%s", v.src, r.code, r.stderr)
	}
	var doc lintDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		l.t.Fatalf("lint %s: %v\n%s", v.src, err, r.stdout)
	}
	return doc
}

// waitAll lints every view until want holds on all of them in one sweep
// (so a view read last is no older than what the first showed), and
// returns that sweep.
func (l *lintLab) waitAll(what string, want func(v *lintView, d lintDoc) bool) map[*lintView]lintDoc {
	l.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got := map[*lintView]lintDoc{}
		var failed *lintView
		for _, v := range l.views {
			d := l.lint(v)
			if !want(v, d) {
				failed = v
				got[v] = d
				break
			}
			got[v] = d
		}
		if failed == nil {
			if os.Getenv("KMETA_LINT_DISCOVER") == "1" {
				for _, v := range l.views {
					ks := got[v].keys()
					sort.Strings(ks)
					l.t.Logf("DISCOVER %s @ %s:\n  %s", v.col, what, strings.Join(ks, "\n  "))
				}
			}
			return got
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("%s: %s: not reached; findings:\n%s", failed.src, what, strings.Join(got[failed].keys(), "\n"))
		}
		time.Sleep(time.Second)
	}
}

// hasAll: every finding of ks, on a view that runs its rule (the rules a
// view cannot run, and why, are checked by statuses).
func (l *lintLab) hasAll(ks ...string) func(*lintView, lintDoc) bool {
	return func(_ *lintView, d lintDoc) bool {
		return !slices.ContainsFunc(ks, func(k string) bool { return !d.has(k) && ran(d, strings.Fields(k)[0]) })
	}
}

func (l *lintLab) noneOf(ks ...string) func(*lintView, lintDoc) bool {
	return func(_ *lintView, d lintDoc) bool { return !slices.ContainsFunc(ks, d.has) }
}

// quiet: no finding of these codes, and no reassignment in flight (where
// the view shows reassignments), so that a fix that moves replicas has
// finished before its finding is said to be cleared.
func (l *lintLab) quiet(codes ...string) func(*lintView, lintDoc) bool {
	return func(_ *lintView, d lintDoc) bool {
		return !slices.ContainsFunc(append(codes, "reassignment-in-flight"), d.hasCode)
	}
}

// liveDoc is the live view's document in a sweep.
func (l *lintLab) liveDoc(sweep map[*lintView]lintDoc) lintDoc {
	for _, v := range l.views {
		if v.live {
			return sweep[v]
		}
	}
	l.t.Fatal("no live view")
	return lintDoc{}
}

// runnable is a fix as the operator runs it: the placeholders of a view
// read from files filled in with the cluster's addresses.
func (l *lintLab) runnable(fix string) string {
	fix = strings.ReplaceAll(fix, "BOOTSTRAP", l.addr)
	return strings.ReplaceAll(fix, "ZOOKEEPER", l.zkAddr)
}

// runFix runs a fix as printed (placeholders filled in); after a
// reassignment it waits until nothing moves: kafka-reassign-partitions
// refuses to start one while another is in flight.
func (l *lintLab) runFix(fix string) {
	l.t.Helper()
	l.sh(l.runnable(fix))
	if strings.Contains(fix, "kafka-reassign-partitions") {
		l.waitAll("the reassignment done", l.quiet())
	}
}

// fix runs, as printed, the live view's fix of every finding of code
// (each distinct command once) and returns how many ran.
func (l *lintLab) fix(sweep map[*lintView]lintDoc, code string) int {
	l.t.Helper()
	var fixes []string
	for _, f := range l.liveDoc(sweep).Findings {
		if f.Code == code && f.Fix != "" && !slices.Contains(fixes, f.Fix) {
			fixes = append(fixes, f.Fix)
		}
	}
	if len(fixes) == 0 {
		l.t.Fatalf("no fix for %s", code)
	}
	for _, fx := range fixes {
		l.runFix(fx)
	}
	return len(fixes)
}

// mark notes what became of a rule on views (all when none given) in
// the table; a view that cannot run the rule keeps that.
func (l *lintLab) mark(code, what string, views ...*lintView) {
	if len(views) == 0 {
		views = l.views
	}
	for _, v := range views {
		if strings.HasPrefix(l.table[code][v.col], "cannot show") {
			continue
		}
		if l.table[code] == nil {
			l.table[code] = map[string]string{}
		}
		l.table[code][v.col] = what
	}
}

// fireAndFix waits until every key in ks is reported on every view, runs
// the live view's fixes of their codes as printed, and waits until no
// finding of those codes is left.
func (l *lintLab) fireAndFix(what string, ks ...string) {
	l.t.Helper()
	sweep := l.waitAll(what, l.hasAll(ks...))
	var codes []string
	for _, k := range ks {
		if c := strings.Fields(k)[0]; !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	for _, c := range codes {
		l.mark(c, "fired")
		l.dropCode(c)
		l.fix(sweep, c)
	}
	l.waitAll(what+" cleared", l.quiet(codes...))
	l.waitExact(what+" cleared", nil)
	for _, c := range codes {
		l.mark(c, "fired, cleared by its fix")
	}
}

// statuses checks, on every view, the rules that do not run there and
// why (want: code → status and a part of the reason, per view column);
// every other rule must run.
func (l *lintLab) statuses(sweep map[*lintView]lintDoc, want map[string]map[string][2]string) {
	l.t.Helper()
	for _, v := range l.views {
		for _, rr := range sweep[v].Rules {
			w, ok := want[v.col][rr.Code]
			switch {
			case ok && (rr.Status != w[0] || !strings.Contains(rr.Why, w[1])):
				l.t.Errorf("%s: %s is %s (%s), want %s (%s)", v.col, rr.Code, rr.Status, rr.Why, w[0], w[1])
			case !ok && rr.Status != "ran":
				l.t.Errorf("%s: %s is %s (%s), want it run", v.col, rr.Code, rr.Status, rr.Why)
			case rr.Status != "ran":
				l.mark(rr.Code, "cannot show: "+rr.Status+": "+rr.Why, v)
			}
		}
	}
}

// fixAll runs, as printed, every runnable fix the live view prints until
// it prints none (a fix may make another finding: raising a replication
// factor to 3 leaves min.insync.replicas 1 behind), then checks that
// every view lints clean (allowed findings aside), with exit 0.
func (l *lintLab) fixAll() {
	l.t.Helper()
	allowed := func(f lintFinding) bool { return slices.Contains(l.allowed, f.key()) }
	for round := 0; ; round++ {
		sweep := l.waitAll("no reassignment in flight", l.quiet())
		var fixes []string
		var left []string
		for _, f := range l.liveDoc(sweep).Findings {
			if allowed(f) {
				continue
			}
			left = append(left, f.key())
			// Kafka has no command for these: they say what to do.
			if f.Fix == "" || strings.HasPrefix(f.Fix, "start ") || strings.HasPrefix(f.Fix, "set ") || strings.HasPrefix(f.Fix, "restart ") {
				continue
			}
			if !slices.Contains(fixes, f.Fix) {
				fixes = append(fixes, f.Fix)
			}
		}
		if len(left) == 0 {
			break
		}
		if len(fixes) == 0 || round == 15 {
			l.t.Fatalf("findings left with no fix to run (round %d):\n%s", round, strings.Join(left, "\n"))
		}
		// One reassignment at a time (runFix waits for each), and one
		// per round: two findings' plans may move the same partition,
		// and the second is stale once the first ran.
		moving := false
		for _, fx := range fixes {
			if strings.Contains(fx, "kafka-reassign-partitions") {
				if moving {
					continue
				}
				moving = true
			}
			l.runFix(fx)
		}
	}
	l.waitAll("clean", func(v *lintView, d lintDoc) bool {
		return !slices.ContainsFunc(d.Findings, func(f lintFinding) bool { return !allowed(f) })
	})
	if len(l.allowed) > 0 {
		return
	}
	for _, v := range l.views {
		if r := kmeta("lint", v.src); r.code != 0 {
			l.t.Errorf("%s: a healthy cluster: exit %d\n%s%s", v.src, r.code, r.stdout, r.stderr)
		}
		l.mark("(healthy: every rule)", "clean, exit 0", v)
	}
}

// log prints the rule-by-source table of the run, every rule of the
// registry in it.
func (l *lintLab) log(cols ...string) {
	var rows []string
	for _, r := range lint.Rules() {
		if l.table[r.Code] == nil {
			l.table[r.Code] = map[string]string{}
		}
	}
	for _, code := range slices.Sorted(maps.Keys(l.table)) {
		row := fmt.Sprintf("%-30s", code)
		for _, c := range cols {
			what := l.table[code][c]
			if what == "" {
				what = "ran, no condition made here"
			}
			row += fmt.Sprintf(" | %s: %s", c, what)
		}
		rows = append(rows, row)
	}
	l.t.Logf("rule by source:\n%s", strings.Join(rows, "\n"))
}

// lintScenario puts a cluster of three brokers (1 on rack r1, 2 on r2, 3
// without a rack, auto.leader.rebalance.enable=false) into each rule's
// condition with Kafka's tools, waits for each finding on every view,
// runs the fix the live view prints, as printed, and waits for it to
// clear; at the end every fix left is run and the cluster lints clean.
func lintScenario(l *lintLab, zkMode bool) {
	t, c := l.t, l.c
	// Before any condition: broker 3 has no rack, and what the test's
	// cluster keeps on purpose.
	l.expect(append([]string{"broker-without-rack broker 3"}, l.allowed...))
	l.waitExact("before the conditions", nil)
	bs := "--bootstrap-server " + l.addr
	create := func(topic, assignment string, configs ...string) string {
		cmd := "kafka-topics " + bs + " --create --topic " + topic + " --replica-assignment " + assignment
		for _, kv := range configs {
			cmd += " --config " + kv
		}
		return cmd
	}
	// 1. Durability, balance and throttles. Assignments are explicit:
	// the test knows where each replica is (and ZooKeeper mode refuses
	// rack-aware placement while broker 3 has no rack).
	heavy := strings.TrimSuffix(strings.Repeat("1:2,", 10), ",")
	l.shAll(
		create("rf1", "1,2"),
		create("rf2", "1:2,2:3"),
		create("minisr", "1:2", "min.insync.replicas=2"),
		create("unclean", "1:2:3", "min.insync.replicas=2", "unclean.leader.election.enable=true"),
		create("rf3isr1", "2:3:1"),
		create("good", "1:2:3,2:3:1,3:1:2", "min.insync.replicas=2"),
		create("single", "3"),
		create("strict", "1:3", "min.insync.replicas=1"),
		create("heavy", heavy),
		create("moved", "1:2", "min.insync.replicas=2")+" && "+
			`echo '{"version":1,"partitions":[{"topic":"moved","partition":0,"replicas":[1,2,3]}]}' > moved.json && `+
			"kafka-reassign-partitions "+bs+" --reassignment-json-file moved.json --execute --throttle 50000000",
	)
	// What lint must say of the durability topics, derived from Kafka's
	// own describe (single, strict and heavy are the other conditions'
	// topics: their replication factors are findings too, fixed last).
	desc := l.sh("kafka-topics " + bs + " --describe --topic 'rf1|rf2|minisr|unclean|rf3isr1|good|single|strict|heavy'")
	rfRe := regexp.MustCompile(`(?m)^Topic: (\S+)\s+TopicId: \S+\s+PartitionCount: \d+\s+ReplicationFactor: (\d+)\s+Configs:\s*(.*)$`)
	var durability, others []string
	for _, m := range rfRe.FindAllStringSubmatch(desc, -1) {
		if m[1] == "single" || m[1] == "strict" || m[1] == "heavy" {
			switch m[2] {
			case "1":
				others = append(others, "replication-factor-one topic "+m[1])
			case "2":
				others = append(others, "replication-factor-below-3 topic "+m[1])
			}
			continue
		}
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
			durability = append(durability, "replication-factor-one topic "+topic)
		case rf == 2:
			durability = append(durability, "replication-factor-below-3 topic "+topic)
		}
		if rf >= 2 && minISR >= rf {
			durability = append(durability, "min-isr-not-below-rf topic "+topic)
		}
		if rf >= 3 && minISR == 1 {
			durability = append(durability, "min-isr-one topic "+topic)
		}
		if unclean {
			durability = append(durability, "unclean-leader-election-enabled topic "+topic)
		}
	}
	if len(durability) != 6 || len(others) != 3 {
		t.Fatalf("Kafka's describe gives %d and %d conditions, want 6 and 3:\n%s", len(durability), len(others), desc)
	}
	// Replicas: 1 and 2 hold 20 each, 3 holds 9 (mean 16.3: 3 is 7.3
	// below, beyond 25% of the mean and 3; 1 and 2 are 3.7 above, within
	// 25%); preferred leaders: 1 is first of 17 partitions, 2 of 4, 3 of
	// 2 (mean 7.7: all three beyond). The move of moved with --throttle
	// set the throttled replicas on the topic and the rates on every
	// broker, which the tool leaves until --verify.
	balance := []string{"replicas-unbalanced broker 3", "preferred-leaders-unbalanced broker 1",
		"preferred-leaders-unbalanced broker 2", "preferred-leaders-unbalanced broker 3"}
	throttles := []string{"throttle-left-set topic moved", "throttle-left-set broker 1", "throttle-left-set broker 2", "throttle-left-set broker 3"}
	l.expect(slices.Concat(durability, others, balance, throttles))
	sweep := l.waitExact("durability, placement, balance and throttle findings", nil)
	for _, v := range l.views {
		for _, f := range sweep[v].Findings {
			if slices.Contains(f.names("topic"), "good") {
				t.Errorf("%s: healthy topic good has a finding: %s", v.src, f.key())
			}
		}
	}
	l.mark("broker-without-rack", "fired")
	// The balance plans first (a reorder does not change where replicas
	// are; the replica plan may move a preferred leader), then the
	// throttles, then the durability fixes.
	l.fireAndFix("preferred leaders unbalanced", "preferred-leaders-unbalanced broker 1")
	l.fireAndFix("replicas unbalanced", "replicas-unbalanced broker 3")
	l.fireAndFix("throttles left", "throttle-left-set topic moved")
	sweep = l.waitAll("durability findings", l.hasAll(durability...))
	// Their fixes: rf1 and rf2 raised to 3 replicas and minisr too, with
	// minisr's min ISR lowered to 1 (min-isr-not-below-rf's fix, made
	// for 2 replicas), so that rf1, rf2 and minisr are then RF 3 with
	// min ISR 1, the cluster default: min-isr-one.
	l.expect([]string{"min-isr-one topic rf1", "min-isr-one topic rf2", "min-isr-one topic minisr"}, durability...)
	for _, k := range durability {
		l.runFix(fixOfKey(t, l.liveDoc(sweep), k))
	}
	l.waitAll("durability findings cleared", func(v *lintView, d lintDoc) bool {
		return l.noneOf(durability...)(v, d) && l.quiet()(v, d)
	})
	l.waitExact("durability findings cleared", nil)
	for _, k := range durability {
		l.mark(strings.Fields(k)[0], "fired, cleared by its fix")
	}

	// 2. Availability: broker 3 stopped; strict (on 1 and 3) gets min ISR
	// 2; on ZooKeeper, single (on 3 alone) is deleted while 3 is down.
	c.StopNode(3)
	l.sh("kafka-configs " + bs + " --alter --entity-type topics --entity-name strict --add-config min.insync.replicas=2")
	down := []string{"partition-offline partition single-0", "replicas-all-unavailable partition single-0"}
	underMinISR := "partition-under-min-isr partition strict-0"
	avail := l.waitAll("availability findings", func(v *lintView, d lintDoc) bool {
		// What a view cannot run it says (statuses checked why).
		ks := slices.DeleteFunc(slices.Clone(down), func(k string) bool { return !ran(d, strings.Fields(k)[0]) })
		if ran(d, "broker-fenced") {
			ks = append(ks, "broker-fenced broker 3")
		}
		// A live cluster cannot describe a stopped broker's configs
		// (Kafka answers a broker's DescribeConfigs from that broker
		// only): the rules that read min.insync.replicas do not run
		// there, and say so.
		if ran(d, "partition-under-min-isr") {
			ks = append(ks, underMinISR)
		} else if !strings.Contains(whyOf(d, "partition-under-min-isr"), "configs.broker") {
			return false
		}
		return l.hasAll(ks...)(v, d)
	})
	parts := func(out string) []string {
		var ps []string
		for _, m := range regexp.MustCompile(`(?m)Topic: (\S+)\s+Partition: (\d+)`).FindAllStringSubmatch(out, -1) {
			ps = append(ps, m[1]+"-"+m[2])
		}
		sort.Strings(ps)
		return ps
	}
	unavailable := parts(l.sh("kafka-topics " + bs + " --describe --unavailable-partitions"))
	underMin := parts(l.sh("kafka-topics " + bs + " --describe --under-min-isr-partitions"))
	underRepl := parts(l.sh("kafka-topics " + bs + " --describe --under-replicated-partitions"))
	without := func(ps, drop []string) []string {
		return slices.DeleteFunc(slices.Clone(ps), func(p string) bool { return slices.Contains(drop, p) })
	}
	// Exactly: what broker 3's stop makes (strict's min ISR 2 is its
	// replication factor), and the partitions Kafka's tools list.
	l.expect(slices.Concat(down, []string{underMinISR, "broker-fenced broker 3", "min-isr-not-below-rf topic strict"}))
	if zkMode {
		// A stopped ZooKeeper-mode broker's registration is gone: no
		// broker 3 to lack a rack.
		l.expect(nil, "broker-without-rack broker 3")
	}
	avail = l.waitExact("availability findings", func(*lintView) []string {
		var ks []string
		for _, p := range without(underRepl, unavailable) {
			ks = append(ks, "partition-under-replicated partition "+p)
		}
		return ks
	})
	for _, v := range l.views {
		byCode := map[string][]string{}
		for _, f := range avail[v].Findings {
			byCode[f.Code] = append(byCode[f.Code], f.names("partition")...)
		}
		// Kafka's tools list a partition without a leader as under min
		// ISR (and under-replicated when its ISR is short) too; lint
		// reports it once, as offline.
		for code, kafka := range map[string][]string{"partition-offline": unavailable,
			"partition-under-min-isr": without(underMin, unavailable), "partition-under-replicated": without(underRepl, unavailable)} {
			if !ran(avail[v], code) {
				l.mark(code, "cannot show: not-run: "+whyOf(avail[v], code)+" (broker 3 stopped)", v)
				continue
			}
			sort.Strings(byCode[code])
			if !slices.Equal(byCode[code], kafka) {
				t.Errorf("%s: %s on %v, Kafka's tools list %v", v.src, code, byCode[code], kafka)
			}
			l.mark(code, "fired", v)
		}
		for _, code := range []string{"replicas-all-unavailable", "broker-fenced"} {
			if ran(avail[v], code) {
				l.mark(code, "fired", v)
			}
		}
	}
	if zkMode {
		// The controller deletes a topic only when every replica's broker
		// is up: the deletion stays pending.
		l.sh("kafka-topics " + bs + " --delete --topic single")
		l.waitAll("deletion pending", l.hasAll("topic-deletion-pending topic single"))
		l.mark("topic-deletion-pending", "fired")
		l.expect([]string{"topic-deletion-pending topic single"})
	}

	// 3. Broker 3 back, now on rack r1 (broker-without-rack's fix: set
	// broker.rack and restart; r1 is broker 1's, so strict-0 has two
	// replicas on one rack). The fixes of the availability findings are
	// "start broker 3, then check: ...": the checks, as printed, list
	// nothing any more.
	c.Node(3).Props["broker.rack"] = "r1"
	c.StartNode(3)
	cleared := slices.Concat(down, []string{underMinISR, "broker-fenced broker 3", "broker-without-rack broker 3", "topic-deletion-pending topic single"})
	l.waitAll("availability findings cleared", l.noneOf(cleared...))
	// Broker 3 back on rack r1: strict (1:3) and the heavy partitions the
	// balance plan moved to 3 have two replicas on r1; the leaders its
	// stop moved stay away (auto.leader.rebalance.enable=false). On
	// ZooKeeper the controller deleted single once its broker was back.
	for _, k := range cleared {
		delete(l.state, k)
	}
	if zkMode {
		l.expect(nil, "replication-factor-one topic single")
	}
	l.expect([]string{"preferred-leader-imbalance broker 3", "replicas-same-rack topic strict", "replicas-same-rack topic heavy"})
	l.waitAll("broker 3 back in the ISRs", l.quiet("partition-under-replicated"))
	l.waitExact("broker 3 back", nil)
	for _, v := range l.views {
		for _, k := range cleared {
			code := strings.Fields(k)[0]
			what := "fired, cleared by its fix"
			if code == "topic-deletion-pending" {
				what = "fired, cleared once the replica's broker was back (no fix command)"
			}
			if strings.HasPrefix(l.table[code][v.col], "fired") {
				l.mark(code, what, v)
			}
		}
	}
	// Leaders moved off broker 3 while it was down and stay away
	// (auto.leader.rebalance.enable=false): once it is back in every ISR,
	// the preferred-leader imbalance, and the election that ends it.
	l.waitAll("broker 3 back in the ISRs", l.quiet("partition-under-replicated"))
	for _, v := range l.views {
		if strings.HasPrefix(l.table["partition-under-replicated"][v.col], "fired") {
			l.mark("partition-under-replicated", "fired, cleared by its fix", v)
		}
	}
	var underReplicated string
	for _, f := range l.liveDoc(avail).Findings {
		if f.Code == "partition-under-replicated" {
			underReplicated = f.key()
		}
	}
	for _, k := range []string{"partition-offline partition single-0", underMinISR, underReplicated} {
		if k == "" {
			t.Fatal("no partition under-replicated while broker 3 was down")
		}
		var fix string
		for _, v := range l.views {
			if d := avail[v]; d.has(k) {
				fix = l.runnable(fixOfKey(t, d, k))
			}
		}
		_, check, ok := strings.Cut(fix, "then check: ")
		if !ok {
			t.Fatalf("%s: fix %q has no check", k, fix)
		}
		if ps := parts(l.sh(check)); len(ps) > 0 {
			t.Errorf("%s: %s still lists %v", k, check, ps)
		}
	}
	l.fireAndFix("preferred-leader imbalance", "preferred-leader-imbalance broker 3")
	l.fireAndFix("rack collision", "replicas-same-rack topic strict")

	// 4. ZooKeeper's controller znodes, edited with zookeeper-shell as an
	// operator (or a half-done rollback) would: /controller_epoch gone,
	// then set below the epoch the partition states were written with.
	if zkMode {
		l.sh("zookeeper-shell " + l.zkAddr + "/kafka delete /controller_epoch")
		l.fireAndFix("controller epoch gone", "zk-controller-inconsistent cluster /controller_epoch")
		l.sh("zookeeper-shell " + l.zkAddr + "/kafka set /controller_epoch 0")
		l.fireAndFix("controller epoch behind the states", "zk-controller-inconsistent cluster /controller_epoch")
	}

	// 5. Every fix left, then a clean cluster on every view.
	l.fixAll()
}

// ran says whether the rule ran in a lint document.
func ran(d lintDoc, code string) bool {
	return slices.ContainsFunc(d.Rules, func(r lintRuleRun) bool { return r.Code == code && r.Status == "ran" })
}

// whyOf is why a rule did not run ("" when it ran).
func whyOf(d lintDoc, code string) string {
	for _, r := range d.Rules {
		if r.Code == code && r.Status != "ran" {
			return r.Why
		}
	}
	return ""
}

func fixOfKey(t *testing.T, d lintDoc, k string) string {
	t.Helper()
	for _, f := range d.Findings {
		if f.key() == k {
			return f.Fix
		}
	}
	t.Fatalf("no finding %s", k)
	return ""
}

// kraftStatuses are the rules a KRaft view cannot run, and why: the
// ZooKeeper-only rules everywhere; on kafka:// what the admin API does
// not report (set per release below).
func kraftStatuses(liveCol string, live map[string][2]string) map[string]map[string][2]string {
	zkOnly := map[string][2]string{
		"topic-deletion-pending":     {"not-applicable", "only ZooKeeper keeps pending deletions"},
		"zk-stale-notifications":     {"not-applicable", "ZooKeeper only"},
		"zk-controller-inconsistent": {"not-applicable", "KRaft has no /controller"},
	}
	l := maps.Clone(zkOnly)
	maps.Copy(l, live)
	// kafka:// reads each broker's static configs (DescribeConfigs'
	// STATIC_BROKER_CONFIG); a log dir holds none.
	k := maps.Clone(zkOnly)
	k["static-config-invalid"] = noStaticConfigs
	return map[string]map[string][2]string{"kraft:": k, liveCol: l}
}

// noStaticConfigs: the labs pass no --config, so no node's
// server.properties is in any view (the rule's own tests give files).
var noStaticConfigs = [2]string{"not-applicable", "the source holds no node's server.properties (pass --config ID=server.properties)"}

// kafkaLiveNotReported are the rules kafka:// cannot run on any release:
// the admin API has no leader recovery state, migration state or
// controlled-shutdown flag.
var kafkaLiveNotReported = map[string][2]string{
	"partition-leader-recovering":   {"not-run", "partitions.leaderRecoveryState"},
	"migration-half-done":           {"not-run", "migration"},
	"broker-in-controlled-shutdown": {"not-run", "brokers.inControlledShutdown"},
}

// TestLintRulesOnRealKafka: a Kafka 4.4.0 cluster (a controller, three
// brokers) put into the conditions of lint's rules with Kafka's own
// tools (lintScenario), linted from kafka:// and from the controller's
// metadata log dir; every finding on the entities Kafka's tools describe,
// every fix run as printed and cleared on both views, and a clean
// cluster at the end but for its single voter.
func TestLintRulesOnRealKafka(t *testing.T) {
	kafkatest.Concurrently(t, 240*time.Second) // make test, 2026-12-06
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 1, Brokers: 3, IdleInterval: time.Hour,
		Props:     map[string]string{"auto.leader.rebalance.enable": "false"},
		NodeProps: map[int]map[string]string{1: {"broker.rack": "r1"}, 2: {"broker.rack": "r2"}}})
	addr := fmt.Sprintf("127.0.0.1:%d", c.Node(1).PlainPort)
	l := &lintLab{t: t, c: c, addr: addr, shell: d.Shell(t), table: map[string]map[string]string{},
		views: []*lintView{
			{col: "kraft:", src: "kraft:" + c.MetadataLogDir(c.Controllers()[0])},
			{col: "kafka:// (KRaft)", src: "kafka://" + addr, live: true},
		},
		allowed: []string{"quorum-single-voter quorum"}}
	l.statuses(l.waitAll("first read", func(*lintView, lintDoc) bool { return true }), kraftStatuses("kafka:// (KRaft)", kafkaLiveNotReported))
	l.mark("quorum-single-voter", "fired (one controller; its fix adds one)")
	lintScenario(l, false)
	l.log("kraft:", "kafka:// (KRaft)")
}

// TestLintRulesOnKafka39KRaft: lintScenario on Kafka 3.9.2 in KRaft mode
// (three combined nodes: three voters), from node 1's metadata log dir
// and kafka://, formatted at metadata.version 3.8-IV0 (one level behind:
// metadata-version-behind, and its kafka-features fix); the cluster ends
// clean on both. 3.9's DescribeCluster
// predates fenced brokers (KIP-1073, 4.0): broker-fenced does not run on
// kafka://, and says why.
func TestLintRulesOnKafka39KRaft(t *testing.T) {
	// make test's budget keeps 4.4.0 KRaft and 3.9.2 ZooKeeper mode; this
	// third run (3.9.2 KRaft, with metadata-version-behind on a 3.8-IV0
	// cluster) is one of make drill's.
	drillOnly(t)
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Brokers: 3, IdleInterval: time.Hour, ReleaseVersion: "3.8-IV0",
		Props:     map[string]string{"auto.leader.rebalance.enable": "false"},
		NodeProps: map[int]map[string]string{1: {"broker.rack": "r1"}, 2: {"broker.rack": "r2"}}})
	addr := fmt.Sprintf("127.0.0.1:%d", c.Node(1).PlainPort)
	l := &lintLab{t: t, c: c, addr: addr, shell: d.Shell(t), table: map[string]map[string]string{},
		views: []*lintView{
			{col: "kraft:", src: "kraft:" + c.MetadataLogDir(1)},
			{col: "kafka:// (KRaft)", src: "kafka://" + addr, live: true},
		}}
	live := maps.Clone(kafkaLiveNotReported)
	live["broker-fenced"] = [2]string{"not-run", "brokers.fenced"}
	live["replicas-all-unavailable"] = [2]string{"not-run", "brokers.fenced"}
	l.statuses(l.waitAll("first read", func(*lintView, lintDoc) bool { return true }), kraftStatuses("kafka:// (KRaft)", live))
	// Formatted at 3.8-IV0: every node supports 3.9-IV0.
	l.expect([]string{"broker-without-rack broker 3", "metadata-version-behind cluster metadata.version"})
	l.fireAndFix("metadata.version behind", "metadata-version-behind cluster metadata.version")
	lintScenario(l, false)
	l.log("kraft:", "kafka:// (KRaft)")
}

// TestLintRulesOnKafka39ZooKeeper: lintScenario on Kafka 3.9.2 in
// ZooKeeper mode (chroot /kafka), from the live ensemble, its data dir
// and a dump of it; kafka:// refuses the ZooKeeper-mode brokers (read
// zk:// instead), and the ZooKeeper views say which rules they cannot
// run. Besides the shared conditions: a topic deletion left pending, and
// /controller_epoch deleted, then set below the partition states' epoch,
// with zookeeper-shell; their fixes are zookeeper-shell commands, run as
// printed.
func TestLintRulesOnKafka39ZooKeeper(t *testing.T) {
	kafkatest.Concurrently(t, 180*time.Second) // make test, 2026-12-06
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	c := kafkatest.StartZKCluster(t, d, zk, kafkatest.ZKClusterOptions{Brokers: 3, Chroot: "/kafka",
		Props:     map[string]string{"auto.leader.rebalance.enable": "false"},
		NodeProps: map[int]map[string]string{1: {"broker.rack": "r1"}, 2: {"broker.rack": "r2"}}})
	addr := fmt.Sprintf("127.0.0.1:%d", c.Node(1).PlainPort)
	live := "zk://" + zk.Connect("/kafka")
	l := &lintLab{t: t, c: c, addr: addr, zkAddr: zk.Addr(), shell: d.Shell(t), table: map[string]map[string]string{},
		views: []*lintView{
			{col: "zkdata:", src: "zkdata:" + zk.DataDir},
			{col: "zkdump:", src: "zkdump:" + filepath.Join(t.TempDir(), "dump.json"), dumpOf: live},
			{col: "zk://", src: live, live: true},
		}}
	// kafka:// refuses a ZooKeeper-mode broker: it cannot show any rule.
	r := kmeta("lint", "kafka://"+addr)
	if r.code != 2 || !strings.Contains(r.stderr, "ZooKeeper-mode broker") || !strings.Contains(r.stderr, "zk://") {
		t.Errorf("kafka:// on ZooKeeper-mode brokers: exit %d\n%s", r.code, r.stderr)
	}
	zkNA := map[string][2]string{
		"broker-fenced":                {"not-applicable", "ZooKeeper mode has no fencing"},
		"quorum-single-voter":          {"not-applicable", "a ZooKeeper source has no controller quorum"},
		"quorum-even-voters":           {"not-applicable", "a ZooKeeper source has no controller quorum"},
		"metadata-version-behind":      {"not-applicable", "ZooKeeper mode has no metadata.version"},
		"elr-unclean-recovery-pending": {"not-applicable", "ZooKeeper mode has no eligible leader replicas"},
		"static-config-invalid":        noStaticConfigs,
	}
	l.statuses(l.waitAll("first read", func(*lintView, lintDoc) bool { return true }),
		map[string]map[string][2]string{"zkdata:": zkNA, "zkdump:": zkNA, "zk://": zkNA})
	lintScenario(l, true)
	for _, r := range lint.Rules() {
		if l.table[r.Code] == nil {
			l.table[r.Code] = map[string]string{}
		}
		l.table[r.Code]["kafka:// (ZK mode)"] = "cannot show: kmeta refuses ZooKeeper-mode brokers (ErrZooKeeperMode)"
	}
	l.log("zk://", "zkdata:", "zkdump:", "kafka:// (ZK mode)")
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
