package kafkatest

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStageRunnerMigration proves the pieces the online-migration walk
// (cmd/kmeta) is built from, with hand-written steps in the shape kmeta
// migrate stage and rollback print, on real Kafka 3.9.2: ZooKeeper and
// three ZooKeeper-mode brokers with Traffic running throughout; a
// controller dir formatted by Kafka's own storage tool into an --out
// directory, installed, started from a file (Node.ConfigSource), the
// brokers rolled into migration mode and the migration completed; then
// Kafka's documented rollback from that phase (stop and delete the
// quorum, ZooKeeper's CLI removing /controller and /migration, the brokers
// rolled back to their ZooKeeper-mode files). At the end every
// acknowledged record was consumed and the group committed up to the end.
//
// make drill runs it (KMETA_DRILL=1): cmd/kmeta's online-migration walk
// exercises the same pieces in make test.
func TestStageRunnerMigration(t *testing.T) {
	SkipIfUnitOnly(t)
	if os.Getenv("KMETA_DRILL") != "1" {
		t.Skip("run with `make drill` (KMETA_DRILL=1)")
	}
	d := Dist(t, Kafka39)
	zk := StartZooKeeper(t, d, ZKOptions{})
	const chroot = "/kafka"
	c := StartZKCluster(t, d, zk, ZKClusterOptions{Brokers: 3, Chroot: chroot})
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	tr, err := StartTraffic(ctx, t, c, TrafficOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Advance(ctx, 50, time.Minute); err != nil {
		t.Fatal(err)
	}
	meta, err := c.Admin(t).BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.ClusterID = meta.Cluster

	// The --out directory of a stage: the controller's formatted dir and
	// every node's new file.
	out := t.TempDir()
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	const ctrl = FirstControllerID
	voters := fmt.Sprintf("%d@127.0.0.1:%d", ctrl, ports[0])
	metaDir := filepath.Join(c.Dir, "kraft-3000", "metadata")
	cp := smallServerProps("1")
	maps.Copy(cp, map[string]string{
		"process.roles":                       "controller",
		"node.id":                             strconv.Itoa(ctrl),
		"controller.quorum.voters":            voters,
		"controller.listener.names":           "CONTROLLER",
		"listeners":                           fmt.Sprintf("CONTROLLER://127.0.0.1:%d", ports[0]),
		"listener.security.protocol.map":      "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"inter.broker.listener.name":          "PLAINTEXT",
		"zookeeper.metadata.migration.enable": "true",
		"zookeeper.connect":                   zk.Connect(chroot),
		"log.dirs":                            filepath.Join(out, "controller-3000"),
	})
	writeProps(t, filepath.Join(out, "format-3000.properties"), cp)
	d.Format(t, filepath.Join(out, "format-3000.properties"), "--cluster-id", c.ClusterID, "--release-version", "3.9")
	cp["log.dirs"] = metaDir
	writeProps(t, filepath.Join(out, "server-3000.properties"), cp)
	zkFiles := map[int]string{}
	for _, id := range c.Brokers() {
		n := c.Node(id)
		zkFiles[id] = filepath.Join(out, fmt.Sprintf("zk-server-%d.properties", id))
		writeProps(t, zkFiles[id], n.Props)
		bp := maps.Clone(n.Props)
		maps.Copy(bp, map[string]string{
			"zookeeper.metadata.migration.enable": "true",
			"controller.quorum.voters":            voters,
			"controller.listener.names":           "CONTROLLER",
			"inter.broker.protocol.version":       "3.9",
			"listener.security.protocol.map":      n.Props["listener.security.protocol.map"] + ",CONTROLLER:PLAINTEXT",
		})
		writeProps(t, filepath.Join(out, fmt.Sprintf("server-%d.properties", id)), bp)
	}

	r := &StageRunner{Cluster: c, ReadProps: readPropsForTest, Logf: t.Logf,
		Wait: func(ctx context.Context, s StageStep) error {
			wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			defer cancel()
			return waitAnyLog(wctx, []*process{c.Node(ctrl).proc}, MigrationCompleted, dualWriteMarker)
		}}
	steps := []StageStep{
		{Action: "install-metadata-dir", Node: ctrl, From: "controller-3000", To: metaDir},
		{Action: "start", Node: ctrl, Config: "server-3000.properties"},
		{Action: "restart", Node: 1, Config: "server-1.properties"},
		{Action: "restart", Node: 2, Config: "server-2.properties"},
		{Action: "restart", Node: 3, Config: "server-3.properties"},
		{Action: "wait", What: "migration completed"},
	}
	number(steps)
	if err := r.Run(ctx, out, steps); err != nil {
		t.Fatal(err)
	}
	if got := c.Node(ctrl).Props["log.dirs"]; got != metaDir || c.MetadataLogDir(ctrl) != metaDir {
		t.Errorf("controller's metadata dir: %q, want %q", got, metaDir)
	}
	if b, err := os.ReadFile(c.Node(ctrl).Config); err != nil || string(b) != string(mustRead(t, filepath.Join(out, "server-3000.properties"))) {
		t.Errorf("the controller does not run the staged file byte for byte (%v)", err)
	}
	if err := tr.Advance(ctx, 50, time.Minute); err != nil {
		t.Fatal(err)
	}

	// Rollback from "brokers in migration mode" (the 3.9 docs' table).
	for id, f := range zkFiles {
		if err := os.Rename(f, filepath.Join(out, fmt.Sprintf("rollback-%d.properties", id))); err != nil {
			t.Fatal(err)
		}
	}
	connect := zk.Connect(chroot)
	rollback := []StageStep{
		{Action: "stop", Node: ctrl},
		{Action: "delete-metadata-dir", Node: ctrl, Path: metaDir},
		{Action: "zookeeper", Args: []string{"get", "/migration"}, Command: "zookeeper-shell.sh " + connect + " get /migration"},
		{Action: "zookeeper", Args: []string{"delete", "/controller"}, Command: "zookeeper-shell.sh " + connect + " delete /controller"},
		{Action: "zookeeper", Args: []string{"delete", "/migration"}, Command: "zookeeper-shell.sh " + connect + " delete /migration"},
		{Action: "restart", Node: 1, Config: "rollback-1.properties"},
		{Action: "restart", Node: 2, Config: "rollback-2.properties"},
		{Action: "restart", Node: 3, Config: "rollback-3.properties"},
	}
	number(rollback)
	if err := r.Run(ctx, out, rollback); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(metaDir); !os.IsNotExist(err) {
		t.Errorf("metadata dir still there: %v", err)
	}
	// ZooKeeper's CLI again, as the oracle: /migration is gone and a
	// ZooKeeper-mode broker is the controller.
	ls, _, err := d.Run(ctx, d.Tools.ZooKeeperShell, "-server", connect, "ls", "/")
	if err != nil || strings.Contains(string(ls), "migration") {
		t.Errorf("ls / after the rollback: %s (%v)", ls, err)
	}
	ctl := waitZKController(ctx, t, d, connect)
	// A 3.9 ZooKeeper-mode controller writes version 2 with
	// kraftControllerEpoch -1; a KRaft controller writes its raft epoch.
	if !strings.Contains(ctl, `"brokerid":`) || !strings.Contains(ctl, `"kraftControllerEpoch":-1`) {
		t.Errorf("/controller after the rollback: %s", ctl)
	}
	c.WaitBrokers(t, time.Minute, 1, 2, 3)
	if err := tr.Advance(ctx, 50, time.Minute); err != nil {
		t.Fatal(err)
	}
	res, err := tr.Stop(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Problems(); len(p) > 0 {
		t.Errorf("traffic: %s; problems:\n%s", res, strings.Join(p[:min(len(p), 20)], "\n"))
	}
	t.Logf("traffic through migration and rollback: %s, committed %v, end %v", res, res.Committed, res.End)
}

func number(steps []StageStep) {
	for i := range steps {
		steps[i].Step = i + 1
	}
}

// waitZKController reads /controller with ZooKeeper's CLI until a broker
// holds it.
func waitZKController(ctx context.Context, t *testing.T, d *Distribution, connect string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out, _, err := d.Run(ctx, d.Tools.ZooKeeperShell, "-server", connect, "get", "/controller")
		if err == nil && strings.Contains(string(out), "brokerid") {
			for l := range strings.Lines(string(out)) {
				if strings.HasPrefix(l, "{") {
					return strings.TrimSpace(l)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /controller after a minute: %s %v", out, err)
		}
		time.Sleep(time.Second)
	}
}

func writeProps(t *testing.T, path string, props map[string]string) {
	t.Helper()
	if err := os.WriteFile(path, renderProps(props), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readPropsForTest reads the simple key=value files writeProps writes (no
// continuation lines, no escapes but a doubled backslash): kmeta's own
// parser cannot be imported here (metalog's tests import this package).
func readPropsForTest(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	props := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return nil, fmt.Errorf("%s: no '=' in %q", path, l)
		}
		props[k] = strings.ReplaceAll(v, `\\`, `\`)
	}
	return props, sc.Err()
}
