package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// checkOnlineStatus is TestVerifyKafkaMigration's look at a real Kafka
// 3.9.2 cluster in dual-write (Kafka's own migration, three brokers in
// migration mode): migrate status names the phase from ZooKeeper alone,
// with the controller's metadata log dir and with the live controller
// (--bootstrap-controller), sees every broker registered as migrating,
// and finds ZooKeeper and KRaft in agreement; rollback is valid.
// -update-online keeps ZooKeeper's dump as a fixture.
func checkOnlineStatus(t *testing.T, c *kafkatest.Cluster, zkSrc string, ctrl int) {
	t.Helper()
	kraft := []string{"--kraft", "kraft:" + c.MetadataLogDir(ctrl)}
	live := []string{"--bootstrap-controller", c.BootstrapControllers()}
	for _, side := range [][]string{nil, kraft, live} {
		var d statusDoc
		var code int
		var stderr string
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, d, stderr = migrateStatusJSON(t, append([]string{"--zk", zkSrc}, side...)...)
			if code == exitOK || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Second)
		}
		// The live controllers report no topics: nothing to compare.
		wantAgree := side != nil && side[0] == "--kraft"
		if code != exitOK || d.Phase != "KRaftDualWriting" || wantAgree != (d.Agree != nil && *d.Agree) {
			t.Fatalf("migrate status %v: exit %d, phase %s, agree %v, waiting %v, findings %+v; stderr %s", side, code, d.Phase, d.Agree, d.WaitingFor, d.Findings, stderr)
		}
		if wantAgree {
			for _, b := range d.Brokers {
				if b.KRaft != "migrating" {
					t.Fatalf("migrate status %v: broker %d is %q in KRaft, want migrating", side, b.ID, b.KRaft)
				}
			}
		}
	}
	t.Logf("migrate status: KRaftDualWriting from ZooKeeper alone, with the controller's log dir and with --bootstrap-controller; ZooKeeper and KRaft agree")
	if *updateOnline {
		code, dump, stderr := runKmeta(t, "zk", "dump", zkSrc)
		if code != exitOK {
			t.Fatalf("zk dump: %d %s", code, stderr)
		}
		if err := os.MkdirAll(onlineFixture, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(onlineFixture, "dual-write.dump.json"), []byte(dump), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
