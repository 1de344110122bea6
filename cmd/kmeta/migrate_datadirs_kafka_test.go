package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/migrate"
)

// TestMigrateSeveralZKDataDirs: several data dirs of one ensemble stopped
// at different zxids, from a real ZooKeeper server whose data dir is
// copied at two points in time (stopped, copied, restarted, written to,
// stopped): zkdata:OLD,NEW reads NEW, whichever order they are given in,
// and migrate plan says which it used. A third dir that shares OLD's
// history and then took other writes (a server that diverged: ZooKeeper
// started on a copy of OLD) is not a prefix of NEW's: source.Load fails
// with ErrDataDirsDiverge and migrate plan is blocked with
// zk-data-dirs-diverge, naming the dir and the differences.
func TestMigrateSeveralZKDataDirs(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const clusterID = "c2V2ZXJhbC1kYXRhLWRpcg"
	topic := func(id string) []byte {
		return []byte(`{"version":3,"topic_id":"` + id + `","partitions":{"0":[1],"1":[1]},"adding_replicas":{},"removing_replicas":{}}`)
	}
	write := func(z *kafkatest.ZooKeeper, nodes [][2]string) {
		t.Helper()
		conn, _, err := zk.Connect([]string{z.Addr()}, 10*time.Second, zk.WithLogger(quietZK{}))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// "ruok" answers before the server serves sessions: wait for one.
		for deadline := time.Now().Add(30 * time.Second); conn.State() != zk.StateHasSession; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no ZooKeeper session: %v", conn.State())
			}
		}
		for _, n := range nodes {
			if _, err := conn.Create(n[0], []byte(n[1]), 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatalf("create %s: %v", n[0], err)
			}
		}
	}
	partitions := func(name string) [][2]string {
		state := `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}`
		return [][2]string{{"/brokers/topics/" + name + "/partitions", ""},
			{"/brokers/topics/" + name + "/partitions/0", ""}, {"/brokers/topics/" + name + "/partitions/0/state", state},
			{"/brokers/topics/" + name + "/partitions/1", ""}, {"/brokers/topics/" + name + "/partitions/1/state", state}}
	}

	z := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	write(z, append([][2]string{{"/cluster", ""}, {"/cluster/id", `{"version":"1","id":"` + clusterID + `"}`},
		{"/brokers", ""}, {"/brokers/ids", ""}, {"/brokers/topics", ""}, {"/brokers/topics/early", string(topic("ZWFybHktdG9waWMtaWQtMA"))},
		{"/config", ""}, {"/config/topics", ""}, {"/config/topics/early", `{"version":1,"config":{"retention.ms":"1000"}}`}},
		partitions("early")...))
	z.Stop()
	old := fstree.Copy(t, z.DataDir)
	z.Restart()
	write(z, append([][2]string{{"/brokers/topics/late", string(topic("bGF0ZS10b3BpYy1pZC0wMA"))}}, partitions("late")...))
	z.Stop()
	newest := z.DataDir

	// A server that diverged: ZooKeeper on a copy of OLD took other writes.
	fork := fstree.Copy(t, old)
	zf := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{"dataDir": fork}})
	write(zf, [][2]string{{"/config/changes", ""}, {"/brokers/topics/other", string(topic("b3RoZXItdG9waWMtaWQtMA"))}})
	zf.Stop()

	for _, order := range [][]string{{old, newest}, {newest, old}} {
		spec, err := source.Parse("zkdata:" + strings.Join(order, ","))
		if err != nil {
			t.Fatal(err)
		}
		res, err := source.Load(ctx, spec, source.Options{})
		if err != nil {
			t.Fatalf("load %v: %v", order, err)
		}
		if len(res.DataDirs) != 2 || res.Image.Topics["late"] == nil || res.Image.Topics["early"] == nil {
			t.Fatalf("load %v: %+v, topics %d", order, res.DataDirs, len(res.Image.Topics))
		}
		for _, dd := range res.DataDirs {
			if dd.Used != (dd.Path == newest) || dd.Diverged != "" {
				t.Errorf("load %v: %+v (want %s used, none diverged)", order, dd, newest)
			}
		}
		if res.DataDirs[0].MaxZxid == res.DataDirs[1].MaxZxid {
			t.Fatalf("the two copies are at the same zxid %#x", res.DataDirs[0].MaxZxid)
		}
	}
	t.Logf("zkdata:OLD,NEW reads NEW (zxid above OLD's); OLD is NEW's state at OLD's zxid")

	out, serr, code := kmetaRun(t, "migrate", "plan", "--zk", "zkdata:"+old+","+newest, "--controllers", "3000@127.0.0.1:9093")
	if code != exitOK || !strings.Contains(out, migrate.CodeZKDataDirUsed) || !strings.Contains(out, newest) {
		t.Fatalf("plan over two data dirs: exit %d, want 0 naming %s and %s\n%s%s", code, migrate.CodeZKDataDirUsed, newest, out, serr)
	}

	spec, err := source.Parse("zkdata:" + old + "," + newest + "," + fork)
	if err != nil {
		t.Fatal(err)
	}
	res, err := source.Load(ctx, spec, source.Options{})
	if !errors.Is(err, source.ErrDataDirsDiverge) || res == nil {
		t.Fatalf("load with a diverged dir: %v, want ErrDataDirsDiverge with the dirs", err)
	}
	t.Logf("diverged: %v", err)
	out, serr, code = kmetaRun(t, "migrate", "plan", "--zk", "zkdata:"+old+","+newest+","+fork, "--controllers", "3000@127.0.0.1:9093")
	if code != exitFindings || !strings.Contains(out, migrate.CodeZKDataDirsDiverge) || !strings.Contains(out, fork) {
		t.Fatalf("plan with a diverged dir: exit %d, want 1 with %s naming %s\n%s%s", code, migrate.CodeZKDataDirsDiverge, fork, out, serr)
	}
	if _, _, code := kmetaRun(t, "image", "zkdata:"+newest+","+fork); code != exitFailure {
		t.Errorf("image over diverged data dirs: exit %d, want %d", code, exitFailure)
	}
}
