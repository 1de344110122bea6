package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPointsInTime pins the contract of --at-offset and --at-zxid (README
// "Sources"): a point past the end, on a source holding one point, or
// contradicting the source's own @ is a usage error (exit 2), never
// silently the end state; verify applies each flag to the side of its
// kind; 0 is a point of either kind.
func TestPointsInTime(t *testing.T) {
	zkdata := "zkdata:" + filepath.Join(zkFixture, "datadir")
	dump := "zkdump:" + filepath.Join(zkFixture, "dump.json")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"image", zkdata, "--at-zxid", "0x10c"}, 0, ""},
		{[]string{"image", zkdata, "--at-zxid", "0x10d"}, 2, "zxid 0x10d is past the end of the data dir: its last transaction is zxid 0x10c"},
		{[]string{"image", zkdata + "@zxid=0x99999"}, 2, "past the end"},
		{[]string{"zk", "dump", zkdata, "--at-zxid", "0x99999"}, 2, "past the end"},
		{[]string{"image", dump, "--at-zxid", "5"}, 2, "a dump holds one point in time"},
		{[]string{"zk", "dump", dump, "--at-zxid", "0"}, 2, "a dump holds one point in time"},
		{[]string{"image", fixture44 + "@offset=5", "--at-offset", "7"}, 2, "names offset 5 and --at-offset 7: give one"},
		{[]string{"image", fixture44 + "@offset=7", "--at-offset", "7"}, 0, ""},
		// Inside a batch: Kafka applies a batch whole (150-153 creates
		// late.topic_x and its partitions), so there is no state there.
		{[]string{"image", fixture44 + "@offset=150"}, 2, "offset 150 is inside the batch of offsets 150-153, which Kafka applies whole (the image there is a state the cluster never had): give 153, its last offset, or an offset before 150"},
		{[]string{"diff", fixture44 + "@offset=151", fixture44}, 2, "give 153, its last offset, or an offset before 150"},
		{[]string{"image", fixture44 + "@offset=149"}, 0, ""},
		{[]string{"image", fixture44 + "@offset=153"}, 0, ""},
		{[]string{"image", zkdata + "@zxid=0x56", "--at-zxid", "0x57"}, 2, "names zxid 0x56 and --at-zxid 0x57"},
		// verify: each flag to the side of its kind.
		{[]string{"verify", "--zk", zkdata, "--kraft", fixture44, "--at-offset", "7"}, 1, ""},
		{[]string{"verify", "--zk", zkdata, "--kraft", fixture44, "--at-zxid", "0x56"}, 1, ""},
		{[]string{"verify", "--zk", zkdata, "--kraft", fixture44, "--at-offset", "500"}, 2, "past the end of the log"},
		{[]string{"verify", "--zk", dump, "--kraft", fixture44, "--at-zxid", "5"}, 2, "a dump holds one point in time"},
		{[]string{"diff", fixture44, fixture44, "--at-zxid", "5"}, 2, "--at-zxid applies to ZooKeeper data dirs, and none is given"},
		// 0 is a point: offset 0 the first record, zxid 0 the tree before
		// any transaction (no Kafka znodes yet), never "everything".
		{[]string{"zk", "dump", zkdata, "--at-zxid", "0"}, 2, "no Kafka znodes"},
		{[]string{"image", zkdata, "--at-zxid", "0"}, 2, "no Kafka znodes"},
		{[]string{"image", zkdata + "@zxid=0"}, 2, "no Kafka znodes"},
	} {
		r := kmeta(tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("kmeta %s: exit %d, want %d; stderr %q, want it to contain %q", strings.Join(tc.args, " "), r.code, tc.code, r.stderr, tc.stderr)
		}
	}
	// --at-offset 0 is offset 0, not everything.
	all, first := kmeta("image", "-o", "json", fixture44), kmeta("image", "-o", "json", "--at-offset", "0", fixture44)
	if all.code != 0 || first.code != 0 || all.stdout == first.stdout {
		t.Errorf("--at-offset 0 read the same as no point: exit %d/%d", all.code, first.code)
	}
}

// TestWrongKindsExit2: a quorum-state file, JSON that is no dump and an
// ordinary topic's partition log are named and refused (exit 2) by image
// and the log commands, never read as a damaged metadata log.
func TestWrongKindsExit2(t *testing.T) {
	dir := t.TempDir()
	seg, _ := os.ReadFile(filepath.Join(fixture44, firstSeg))
	os.MkdirAll(filepath.Join(dir, "orders-0"), 0o755)
	segPath := filepath.Join(dir, "orders-0", "00000000000000000000.log")
	os.WriteFile(segPath, seg, 0o644)
	os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"a":1}`), 0o644)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"image", filepath.Join(fixture44, "__cluster_metadata-0", "quorum-state")}, "a KRaft quorum-state file"},
		{[]string{"image", "zkdump:" + filepath.Join(fixture44, "__cluster_metadata-0", "quorum-state")}, "a KRaft quorum-state file"},
		{[]string{"image", filepath.Join(dir, "other.json")}, "not a dump written by 'kmeta zk dump'"},
		{[]string{"image", filepath.Join(dir, "orders-0")}, "a partition log of topic orders, not the metadata log"},
		{[]string{"log", "check", segPath}, "a partition log of topic orders, not the metadata log"},
		{[]string{"log", "dump", filepath.Join(dir, "orders-0")}, "a partition log of topic orders, not the metadata log"},
	} {
		r := kmeta(tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.stderr) || r.stdout != "" {
			t.Errorf("kmeta %s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", strings.Join(tc.args, " "), r.code, r.stdout, r.stderr, tc.stderr)
		}
	}
}
