package main

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/migrate/online"
	"github.com/kmeta/kmeta/model"
)

// TestZKDeleteSchemesReadWhereUsed: the chroot's ACL is read (one getACL
// on the live ensemble) only where the ZooKeeper commands stage and
// rollback print take their login from it: stage and rollback, a live
// source, no node's file naming ZooKeeper. Against a real ZooKeeper whose
// chroot only a digest user may change: stage and rollback read
// [digest]; status, a dump of the same ensemble, and a node's file
// holding zookeeper.connect (its settings say how to log in) read
// nothing.
func TestZKDeleteSchemesReadWhereUsed(t *testing.T) {
	kafkatest.Concurrently(t, 5*time.Second) // make test, 2026-12-07: one ZooKeeper
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	conn, _, err := zk.Connect([]string{zks.Addr()}, 10*time.Second, zk.WithLogger(quietZK{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const auth = "admin:s3cret"
	sum := sha1.Sum([]byte(auth))
	if err := conn.AddAuth("digest", []byte(auth)); err != nil {
		t.Fatal(err)
	}
	acl := append(zk.WorldACL(zk.PermRead), zk.ACL{Perms: zk.PermAll, Scheme: "digest", ID: "admin:" + base64.StdEncoding.EncodeToString(sum[:])})
	if _, err := conn.Create("/kafka", nil, 0, acl); err != nil {
		t.Fatal(err)
	}
	live := "zk://" + zks.Addr() + "/kafka"
	zkFile := map[int32]*online.Node{1: {ID: 1, Path: "/etc/kafka/server-1.properties", Props: map[string]string{"zookeeper.connect": zks.Addr() + "/kafka"}}}
	noZK := map[int32]*online.Node{3000: {ID: 3000, Path: "/etc/kafka/server-3000.properties", Props: map[string]string{"process.roles": "controller"}}}
	for _, tc := range []struct {
		line  []string
		src   string
		nodes map[int32]*online.Node
		want  []string
	}{
		{[]string{"migrate", "stage", "KRaft", "--zk", live}, live, noZK, []string{"digest"}},
		{[]string{"migrate", "rollback", "--zk", live}, live, nil, []string{"digest"}},
		{[]string{"migrate", "status", "--zk", live}, live, noZK, nil},
		{[]string{"migrate", "stage", "KRaft", "--zk", live}, live, zkFile, nil},
		{[]string{"migrate", "stage", "KRaft", "--zk", "zkdump:" + zkFixture + "/dump.json"}, "zkdump:" + zkFixture + "/dump.json", noZK, nil},
	} {
		spec, err := source.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		in := online.Input{ZK: &model.Image{ZK: &model.ZKState{Chroot: "/kafka"}}, Nodes: tc.nodes}
		var got []string
		ran := false
		app := parsingApp(func(c *cli.Context) error {
			got, ran = zkDeleteSchemes(c, spec, in), true
			return errParsed
		})
		args, err := reorderArgs(app, append([]string{"kmeta"}, tc.line...))
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Run(args); !errors.Is(err, errParsed) || !ran {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q, nodes %v: the schemes read %q, want %q", tc.line, slices.Sorted(maps.Keys(tc.nodes)), got, tc.want)
		}
	}
}
