package main

import (
	"flag"
	"io"
	"slices"
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
	flags := onlineFlags()
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
