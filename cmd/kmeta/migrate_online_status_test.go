package main

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strconv"
	"testing"
)

var updateOnline = flag.Bool("update-online", false, "rewrite testdata/zk/migration/ from TestVerifyKafkaMigration's real Kafka 3.9.2 migration")

const onlineFixture = "../../testdata/zk/migration"

// statusDoc is what the tests read of migrate status -o json.
type statusDoc struct {
	Phase   string `json:"phase"`
	Healthy bool   `json:"healthy"`
	Agree   *bool  `json:"agree"`
	// Differences counts verify's differences where Agree is false.
	Differences int `json:"differences"`
	ZooKeeper   struct {
		ControllerID         int32 `json:"controllerId"`
		KRaftControllerEpoch int32 `json:"kraftControllerEpoch"`
	} `json:"zookeeper"`
	Brokers []struct {
		ID    int32  `json:"id"`
		KRaft string `json:"kraft"`
		Cause string `json:"cause"`
	} `json:"brokers"`
	WaitingFor []string `json:"waitingFor"`
	Findings   []struct {
		Code   string `json:"code"`
		Entity string `json:"entity"`
		Fix    string `json:"fix"`
	} `json:"findings"`
}

func migrateStatusJSON(t *testing.T, args ...string) (int, statusDoc, string) {
	t.Helper()
	code, out, stderr := runKmeta(t, append([]string{"migrate", "status", "-o", "json"}, args...)...)
	var d statusDoc
	if code != exitFailure {
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("migrate status %v: exit %d, not JSON (%v): %s\nstderr: %s", args, code, err, out, stderr)
		}
	}
	return code, d, stderr
}

// TestOnlineStatusFixtures: migrate status on every ZooKeeper state the
// project keeps. The data dir (a 3.9.2 ZooKeeper-mode cluster, at each
// zxid where a snapshot starts, and at the end), its dump and its
// compressed snapshots are a ZooKeeper-mode cluster: phase ZooKeeper;
// the dump taken during Kafka's own migration (a KRaft controller holds
// /controller and /migration) is in KRaftDualWriting, read from
// ZooKeeper alone.
func TestOnlineStatusFixtures(t *testing.T) {
	data := filepath.Join(zkFixture, "datadir")
	srcs := []string{"zkdata:" + data, "zkdump:" + filepath.Join(zkFixture, "dump.json")}
	for _, z := range []string{"56", "96", "e8", "10c"} {
		n, _ := strconv.ParseInt(z, 16, 64)
		srcs = append(srcs, "zkdata:"+data+"@zxid="+strconv.FormatInt(n, 10))
	}
	for _, src := range srcs {
		code, d, stderr := migrateStatusJSON(t, "--zk", src)
		if code != exitOK || d.Phase != "ZooKeeper" || !d.Healthy || d.ZooKeeper.KRaftControllerEpoch != -1 {
			t.Errorf("%s: exit %d, phase %s, healthy %v, /controller %+v; stderr %s", src, code, d.Phase, d.Healthy, d.ZooKeeper, stderr)
		}
	}
	dump := filepath.Join(onlineFixture, "dual-write.dump.json")
	code, d, stderr := migrateStatusJSON(t, "--zk", "zkdump:"+dump)
	if code != exitOK || d.Phase != "KRaftDualWriting" || d.ZooKeeper.KRaftControllerEpoch < 0 || d.ZooKeeper.ControllerID != 3000 {
		t.Fatalf("%s: exit %d, phase %s, /controller %+v, findings %+v; stderr %s", dump, code, d.Phase, d.ZooKeeper, d.Findings, stderr)
	}
	// The same ZooKeeper with its /controller gone (a rollback's first
	// cleanup done, /migration left): a stale /migration, phase ZooKeeper.
	rolled := dumpWith(t, dump, map[string]*string{"/controller": nil})
	code, d, _ = migrateStatusJSON(t, "--zk", "zkdump:"+rolled)
	if code != exitFindings || d.Phase != "ZooKeeper" || !hasCode(d, "stale-migration-znode") {
		t.Fatalf("rolled-back dump: exit %d, phase %s, findings %+v", code, d.Phase, d.Findings)
	}
}

func hasCode(d statusDoc, code string) bool {
	for _, f := range d.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}
