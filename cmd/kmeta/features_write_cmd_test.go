package main

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/roll"
)

// The write commands refuse a malformed request before connecting
// (exit 2), and a connection that cannot be made is exit 2 with the
// address: nothing is sent in either case.
func TestFeaturesWriteUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1", "--release-version", "4.0", "--metadata", "4.0"}, "cannot be combined"},
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1"}, "nothing to upgrade"},
		{[]string{"features", "disable", "kafka://127.0.0.1:1", "--feature", "group.version=0"}, "disable takes --feature NAME"},
		{[]string{"features", "upgrade", "--metadata", "4.0"}, "missing the cluster"},
		{[]string{"features", "upgrade", "kraft:/tmp", "--metadata", "4.0"}, "writes to a live cluster"},
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1", "--bootstrap-server", "127.0.0.1:1", "--metadata", "4.0"}, "too many sources"},
		{[]string{"features", "upgrade", "kafka://127.0.0.1:1", "--metadata", "4.0", "--kafka-timeout", "2s"}, "127.0.0.1:1"},
	} {
		r := kmeta(tc.args...)
		if r.code != exitFailure || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// A kraft.version upgrade asked through the controllers
// (--bootstrap-controller) rolls every node's quorum config, but a
// controller lists no broker: the roll printed held the controllers and
// nothing said the brokers were left out. The output now says so, with the
// command that lists them and prints their gated roll through a broker,
// runnable as printed: the shell stops, saying what to set, until
// $BOOTSTRAP_SERVER names one; --command-config goes with it.
func TestFeaturesBrokersRollThroughAController(t *testing.T) {
	cmd := featuresChangeCommand(features.OpUpgrade, "")
	set := flag.NewFlagSet("upgrade", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range cmd.Flags {
		if err := f.Apply(set); err != nil {
			t.Fatal(err)
		}
	}
	if err := set.Parse([]string{"--bootstrap-controller", "c1:9093", "--command-config", "/etc/kafka/client props.properties", "--feature", "kraft.version=1"}); err != nil {
		t.Fatal(err)
	}
	c := cli.NewContext(&cli.App{}, set, nil)
	c.Command = cmd
	cat := features.Default()
	targets, err := cat.Targets(features.ChangeRequest{Op: features.OpUpgrade, Features: []string{"kraft.version=1"}})
	if err != nil {
		t.Fatal(err)
	}
	mv := cat.LatestProduction
	v := cat.Judge(features.ClusterFeatures{Finalized: map[string]int16{features.MetadataVersionFeature: mv},
		Nodes: []features.NodeSupport{{Kind: "controller", ID: 3000, Supported: map[string][2]int16{features.MetadataVersionFeature: {1, mv}, features.KRaftVersion: {0, 1}}}}},
		features.OpUpgrade, targets, features.CheckOptions{})
	if !v.Allowed || len(v.ConfigRoll) == 0 {
		t.Fatalf("kraft.version 0→1: %+v", v)
	}
	line := brokersRollLine(c, kafkaread.Config{Controllers: true}, v)
	want := `kmeta roll plan --bootstrap-server "${BOOTSTRAP_SERVER:?set it to a broker HOST:PORT}" --all-brokers --command-config '/etc/kafka/client props.properties'`
	if line != want {
		t.Errorf("brokers' roll line\n%s\nwant\n%s", line, want)
	}
	// Through a broker the roll lists the brokers; a change that rolls
	// no config needs no line.
	if l := brokersRollLine(c, kafkaread.Config{}, v); l != "" {
		t.Errorf("through a broker: %q", l)
	}
	if l := brokersRollLine(c, kafkaread.Config{Controllers: true}, features.ChangeVerdict{Allowed: true}); l != "" {
		t.Errorf("no config roll: %q", l)
	}
	// As a shell reads it: stopped, naming the variable, before kmeta
	// runs; with it set, the words roll plan takes.
	for _, sh := range []string{"sh", "bash"} {
		out, err := exec.Command(sh, "-c", strings.Replace(line, "kmeta ", `printf '%s\n' `, 1)).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "BOOTSTRAP_SERVER: set it to a broker HOST:PORT") {
			t.Errorf("%s, $BOOTSTRAP_SERVER unset: %v\n%s", sh, err, out)
		}
		run := exec.Command(sh, "-c", strings.Replace(line, "kmeta ", `printf '%s\n' `, 1))
		run.Env = append(os.Environ(), "BOOTSTRAP_SERVER=b1:9092,b2:9092")
		out, err = run.Output()
		words := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if err != nil || !slices.Equal(words, []string{"roll", "plan", "--bootstrap-server", "b1:9092,b2:9092", "--all-brokers", "--command-config", "/etc/kafka/client props.properties"}) {
			t.Errorf("%s: %v, words %q", sh, err, words)
		}
	}
	for _, f := range []string{"bootstrap-server", "all-brokers", "command-config", "kafka-timeout"} {
		if !hasFlagName(rollPlanCommand().Flags, []string{f}) {
			t.Errorf("roll plan has no --%s", f)
		}
	}

	// The report says it, after the controllers' gated steps (written),
	// and after the dry run's note.
	src := roll.Source{Words: []string{"--bootstrap-controller", "c1:9093"}}
	d := report.FeatureChange{Source: "kafka://c1:9093", Op: features.OpUpgrade, Verdict: v, Outcome: report.ChangeDone, Sent: true, Written: true,
		Before: map[string]int16{"kraft.version": 0}, After: map[string]int16{"kraft.version": 1},
		Roll:             []report.RollPlanStep{{Step: roll.Step{Node: 3000, Roles: []roll.Role{roll.RoleController}, Why: "the quorum's leader: last"}, Gates: roll.GatesFor(3000, src)}},
		BootstrapServers: "c1:9093", BrokersRoll: line,
		Validated: []report.KafkaAnswer{{Feature: "kraft.version"}}, Applied: []report.KafkaAnswer{{Feature: "kraft.version"}}}
	text := func(d report.FeatureChange) string {
		var b strings.Builder
		if err := printer.WriteDocument(&b, printer.Text, report.FeatureChangeReport(d).Document); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	head := "features upgrade on kafka://c1:9093 (" + v.Catalog + " catalog)\n" +
		"  kraft.version: 0 -> 1 (UPGRADE): kmeta allowed, Kafka "
	fs := "info    quorum-config-roll kraft.version: kraft.version 1 makes the quorum dynamic; roll the configs afterwards: controller.quorum.bootstrap.servers replaces controller.quorum.voters\n"
	brokers := "the brokers: not listed through a controller (--bootstrap-controller), so not in this roll; after the controllers, change each broker's file the same way, one at a time, in the order and between the gates this prints through a broker ($BOOTSTRAP_SERVER):\n"
	wantDone := head + "accepted\n" +
		"before: kraft.version=0\n" +
		"after:  kraft.version=1\n" +
		fs +
		"now roll the quorum configs:\n" +
		"  1. " + v.ConfigRoll[0] + "\n" +
		"  2. then one node at a time, in this order: set controller.quorum.bootstrap.servers=c1:9093, remove controller.quorum.voters, restart it:\n" +
		"     1. controller 3000 (the quorum's leader: last)\n" +
		"        kmeta roll check --node 3000 --bootstrap-controller c1:9093    # go on only when it exits 0\n" +
		"        change node 3000's file as above and restart it\n" +
		"        kmeta roll wait --node 3000 --bootstrap-controller c1:9093    # go on only when it exits 0\n" +
		"     2. " + brokers +
		"        " + want + "\n" +
		"  3. " + v.ConfigRoll[len(v.ConfigRoll)-1] + "\n" +
		"done: Kafka applied the change\n"
	if got := text(d); got != wantDone {
		t.Errorf("done:\n%s\nwant:\n%s", got, wantDone)
	}
	d.Written, d.After, d.Roll, d.Outcome = false, nil, nil, report.ChangeWouldDo
	d.DryRun, d.Applied = true, nil
	wantDry := head + "accepted (validate-only)\n" +
		"before: kraft.version=0\n" +
		fs +
		"after the upgrade, the quorum configs must be rolled: controller.quorum.bootstrap.servers replaces controller.quorum.voters\n" +
		"  " + brokers +
		"    " + want + "\n" +
		"would do: Kafka validated the change (--dry-run: nothing was written)\n"
	if got := text(d); got != wantDry {
		t.Errorf("dry run:\n%s\nwant:\n%s", got, wantDry)
	}
}
