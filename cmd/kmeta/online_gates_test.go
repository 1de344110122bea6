package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/migrate/online"
)

// TestOnlineGatesReadAsTheStageDid: the ZooKeeper roll gates migrate
// stage and rollback print carry every ZooKeeper read flag that was set
// (zkReadFlags, the list roll plan's gates and status's verify line take
// too), never the password; they carried only the session timeout and
// the TLS files, so a stage read with --lenient printed gates that
// stopped on the malformed znode it had read past.
func TestOnlineGatesReadAsTheStageDid(t *testing.T) {
	set := flag.NewFlagSet("stage", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	flags := onlineFlags(false)
	for _, f := range flags {
		if err := f.Apply(set); err != nil {
			t.Fatal(err)
		}
	}
	if err := set.Parse([]string{"--zk", "zkdump:x.json", "--bootstrap-controller", "c1:9093", "--lenient", "--zk-batch", "7",
		"--jute-maxbuffer", "2000000", "--zk-session-timeout", "30s", "--zk-auth", "u:secret", "--consistent", "--zk-in-flight", "9", "--zk-connections", "3",
		"--config", "1=/etc/kafka/server.properties"}); err != nil {
		t.Fatal(err)
	}
	c := cli.NewContext(&cli.App{}, set, nil)
	c.Command = &cli.Command{Name: "stage", Flags: flags}
	g, err := onlineGates(c, online.Input{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"zkdump:x.json", "--zk-session-timeout", "30s", "--zk-connections", "3", "--zk-in-flight", "9", "--zk-batch", "7",
		"--consistent", "--lenient", "--jute-maxbuffer", "2000000", "--config", "1=/etc/kafka/server.properties"}
	if !slices.Equal(g.ZooKeeper, want) {
		t.Errorf("ZooKeeper gate words %q\nwant %q", g.ZooKeeper, want)
	}
	if want := []string{"--bootstrap-controller", "c1:9093"}; !slices.Equal(g.Controllers, want) {
		t.Errorf("controllers' gate words %q, want %q", g.Controllers, want)
	}
}

// A stage and a rollback are about the cluster now, and --watch follows
// it: a point in time, on --zk or --kraft, is a usage error naming why,
// before anything is read (the sources named here do not exist, nor does
// the --config file), with roll's own check (refusePoint); the flags
// --at-offset and --at-zxid are not theirs. Before, stage accepted
// SOURCE@POINT and printed roll gates carrying it, which roll check and
// wait refuse. Status of a past point is a read, and keeps it: it prints
// no gate.
func TestOnlineRefusesAPointInTime(t *testing.T) {
	const gone = "/nonexistent/kmeta"
	stage := []string{"migrate", "stage", "KRaftMigration", "--controllers", "3000@127.0.0.1:9093", "--metadata-dir", "/var/lib/ctl", "--dry-run", "--config", "1=" + gone + "/server.properties"}
	why := map[string]string{
		"stage":    " is a point in the past, and a stage is about the cluster now (its entry checks, files and gated restarts would answer for what the cluster was then): give the source without it\n",
		"rollback": " is a point in the past, and a rollback is about the cluster now (its steps and gated restarts would answer for what the cluster was then): give the source without it\n",
		"watch":    " is a point in the past, and --watch follows the cluster now (a past point never changes): give the source without it\n",
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{append(slices.Clone(stage), "--zk", "zkdata:"+gone+"@zxid=232"),
			"kmeta: zkdata:" + gone + "@zxid=232: @zxid=0xe8" + why["stage"] + "Run 'kmeta migrate stage --help' for usage.\n"},
		{append(slices.Clone(stage), "--zk", "zkdump:"+gone+".json", "--kraft", "kraft:"+gone+"@offset=5"),
			"kmeta: kraft:" + gone + "@offset=5: @offset=5" + why["stage"] + "Run 'kmeta migrate stage --help' for usage.\n"},
		// A path without a scheme is looked at (what it holds says its
		// kind), and not read.
		{[]string{"migrate", "rollback", "--zk", "zkdump:" + gone + ".json", "--kraft", fixture39 + "@offset=5", "--dry-run"},
			"kmeta: " + fixture39 + "@offset=5: @offset=5" + why["rollback"] + "Run 'kmeta migrate rollback --help' for usage.\n"},
		{[]string{"migrate", "rollback", "--zk", "zkdata:" + gone + "@zxid=0x10", "--dry-run"},
			"kmeta: zkdata:" + gone + "@zxid=0x10: @zxid=0x10" + why["rollback"] + "Run 'kmeta migrate rollback --help' for usage.\n"},
		{[]string{"migrate", "status", "--watch", "--timeout", "1s", "--zk", "zkdata:" + gone + "@zxid=16"},
			"kmeta: zkdata:" + gone + "@zxid=16: @zxid=0x10" + why["watch"] + "Run 'kmeta migrate status --help' for usage.\n"},
		{[]string{"migrate", "status", "--watch", "--timeout", "1s", "--zk", "zkdata:" + gone, "--at-zxid", "16"},
			"kmeta: zkdata:" + gone + ": @zxid=0x10" + why["watch"] + "Run 'kmeta migrate status --help' for usage.\n"},
		{append(slices.Clone(stage), "--zk", "zkdata:"+gone, "--at-zxid", "16"),
			"kmeta: unknown flag --at-zxid for kmeta migrate stage\nRun 'kmeta migrate stage --help' for usage.\n"},
		{[]string{"migrate", "rollback", "--zk", "zkdata:" + gone, "--at-offset", "5"},
			"kmeta: unknown flag --at-offset for kmeta migrate rollback\nRun 'kmeta migrate rollback --help' for usage.\n"},
	} {
		r := kmeta(tc.args...)
		if r.code != exitFailure || r.stdout != "" || r.stderr != tc.stderr {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q\n  want %q", tc.args, r.code, r.stdout, r.stderr, tc.stderr)
		}
	}
	// Status of a past point: read, and no gate printed.
	props := filepath.Join(t.TempDir(), "server-1.properties")
	if err := os.WriteFile(props, []byte("broker.id=1\nzookeeper.connect=127.0.0.1:2181/kafka/prod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := kmeta("migrate", "status", "--zk", fixtureZK+"@zxid=232", "--config", "1="+props)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "phase: ZooKeeper (") || strings.Contains(r.stdout, "kmeta roll") {
		t.Errorf("status @zxid=232: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
