package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/migrate"
)

// configsFixture writes a ZooKeeper-mode broker's server.properties.
func configsFixture(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "server.properties")
	props := "broker.id=1\nzookeeper.connect=127.0.0.1:2181/kafka\nlisteners=PLAINTEXT://127.0.0.1:9092\nlog.dirs=/var/lib/kafka\n"
	if err := os.WriteFile(p, []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMigrateConfigsPlan: with --plan, configs writes for a broker and
// for a controller exactly what it writes when given the plan's
// --controllers and --quorum by hand, for a static and a dynamic plan;
// flags that agree with the plan (the controllers in another order, the
// same quorum) change nothing. Before --plan existed every case failed
// (unknown flag).
func TestMigrateConfigsPlan(t *testing.T) {
	const controllers = "3000@127.0.0.1:9093,3001@127.0.0.1:9094"
	const reordered = "3001@127.0.0.1:9094,3000@127.0.0.1:9093"
	for _, quorum := range []string{migrate.QuorumStatic, migrate.QuorumDynamic} {
		t.Run(quorum, func(t *testing.T) {
			work := t.TempDir()
			plan := fixturePlan(t, work, "--quorum", quorum)
			sp := configsFixture(t, work)
			for _, role := range [][]string{
				{"--role", "broker"},
				{"--role", "controller", "--node-id", "3001", "--metadata-dir", "/var/lib/kafka-meta/controller-3001"},
			} {
				base := append([]string{"migrate", "configs", "--server-properties", sp}, role...)
				want, serr, code := kmetaRun(t, append(base, "--controllers", controllers, "--quorum", quorum)...)
				if code != exitOK {
					t.Fatalf("%v with flags: exit %d\n%s", role, code, serr)
				}
				for _, extra := range [][]string{nil, {"--controllers", reordered}, {"--quorum", quorum}, {"--controllers", controllers, "--quorum", quorum}} {
					got, serr, code := kmetaRun(t, append(append(base, "--plan", plan), extra...)...)
					if code != exitOK || got != want {
						t.Fatalf("%v --plan %v: exit %d\n%s\ngot:\n%s\nwant (from flags):\n%s", role, extra, code, serr, got, want)
					}
				}
				props, err := javaprops.Parse([]byte(want))
				if err != nil {
					t.Fatal(err)
				}
				key, other := "controller.quorum.voters", "controller.quorum.bootstrap.servers"
				if quorum == migrate.QuorumDynamic {
					key, other = other, key
				}
				if props[key] == "" || props[other] != "" {
					t.Fatalf("%v %s quorum: %s=%q, %s=%q", role, quorum, key, props[key], other, props[other])
				}
			}
		})
	}
}

// TestMigrateConfigsPlanContradicted: a flag that contradicts the plan,
// a controller id among none of the plan's voters, a broker given a
// voter's id and a plan made without controllers are usage errors (exit
// 2) that name what was given and what the plan says; nothing is written.
func TestMigrateConfigsPlanContradicted(t *testing.T) {
	work := t.TempDir()
	dynamic := fixturePlan(t, work, "--quorum", migrate.QuorumDynamic)
	noCtl := filepath.Join(work, "no-controllers.json")
	if out, serr, code := kmetaRun(t, "migrate", "plan", "--zk", fixtureZK, "--override", migrate.OverrideDropPendingDeletions,
		"--override", migrate.OverrideKeepReassignments, "--write", noCtl); code != exitFindings {
		t.Fatalf("plan without controllers: exit %d, want 1 (blocked)\n%s%s", code, out, serr)
	}
	sp := configsFixture(t, work)
	ctl := []string{"--role", "controller", "--metadata-dir", "/m"}
	for _, tc := range []struct {
		name string
		args []string
		want []string // each in the error
	}{
		{"static quorum on a dynamic plan", []string{"--plan", dynamic, "--quorum", "static"}, []string{"--quorum static", "quorum dynamic"}},
		{"another port", []string{"--plan", dynamic, "--controllers", "3000@127.0.0.1:9093,3001@127.0.0.1:9999"},
			[]string{"3001@127.0.0.1:9999", "3001@127.0.0.1:9094"}},
		{"a controller fewer", []string{"--plan", dynamic, "--controllers", "3000@127.0.0.1:9093"}, []string{"--controllers 3000@127.0.0.1:9093 contradicts", "3000@127.0.0.1:9093,3001@127.0.0.1:9094"}},
		{"another directory id", []string{"--plan", dynamic, "--controllers", "3000@127.0.0.1:9093:MvDxzVmcRsaTz33bUuRU6A,3001@127.0.0.1:9094"},
			[]string{"3000@127.0.0.1:9093:MvDxzVmcRsaTz33bUuRU6A", "contradicts the plan's controllers 3000@127.0.0.1:9093:"}},
		{"controller not a voter", append([]string{"--plan", dynamic, "--node-id", "3002"}, ctl...), []string{"node 3002", "3000@127.0.0.1:9093,3001@127.0.0.1:9094"}},
		{"controller id from broker.id", append([]string{"--plan", dynamic}, ctl...), []string{"node 1 is not one of the plan's voters"}},
		{"broker with a voter's id", []string{"--plan", dynamic, "--node-id", "3000"}, []string{"node 3000 is one of the plan's voters"}},
		{"plan without controllers", []string{"--plan", noCtl}, []string{"the plan names no controllers"}},
		{"plan without controllers, flags given", []string{"--plan", noCtl, "--controllers", "3000@127.0.0.1:9093"}, []string{"the plan names no controllers"}},
		{"no plan file", []string{"--plan", filepath.Join(work, "missing.json")}, []string{"missing.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(work, "out.properties")
			args := append([]string{"migrate", "configs", "--server-properties", sp, "--out", out}, tc.args...)
			stdout, serr, code := kmetaRun(t, args...)
			if code != exitFailure {
				t.Fatalf("exit %d, want 2\n%s%s", code, stdout, serr)
			}
			for _, w := range tc.want {
				if !strings.Contains(serr, w) {
					t.Errorf("error does not name %q:\n%s", w, serr)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s written (%v)", out, err)
			}
		})
	}
}

// TestMigrateConfigsSetTakesValuesWhole: --set KEY=VALUE keeps a value's
// commas (listeners, a JAAS line); each --set is one setting, and two of
// them make two. A StringSliceFlag split the listeners into a usage
// error and cut a JAAS line into a second, made-up setting.
func TestMigrateConfigsSetTakesValuesWhole(t *testing.T) {
	work := t.TempDir()
	sp := configsFixture(t, work)
	const jaas = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="abc,num.io.threads=42";`
	out := filepath.Join(work, "out.properties")
	stdout, serr, code := kmetaRun(t, "migrate", "configs", "--server-properties", sp, "--controllers", "3000@127.0.0.1:9093",
		"--set", "listeners=PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9094", "--set", "sasl.jaas.config="+jaas, "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, serr)
	}
	props := readProps(t, out)
	if got := props["listeners"]; got != "PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9094" {
		t.Errorf("listeners=%q", got)
	}
	if got := props["sasl.jaas.config"]; got != jaas {
		t.Errorf("sasl.jaas.config=%q", got)
	}
	if v, ok := props["num.io.threads"]; ok {
		t.Errorf("a setting made from a piece of the JAAS line: num.io.threads=%q", v)
	}
	// The printed form redacts the line whole: no piece of it in clear.
	stdout, serr, code = kmetaRun(t, "migrate", "configs", "--server-properties", sp, "--controllers", "3000@127.0.0.1:9093", "--set", "sasl.jaas.config="+jaas)
	if code != exitOK || strings.Contains(stdout, "abc") || strings.Contains(stdout, "num.io.threads") {
		t.Errorf("printed: exit %d\n%s%s", code, stdout, serr)
	}
}
