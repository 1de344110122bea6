package zkread

import (
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeSnapshot writes nodes (path -> data, "\x00nil" for null; parents
// are made with null data) as a ZooKeeper snapshot in dir/version-2,
// depth first as ZooKeeper writes it.
func writeSnapshot(t *testing.T, dir string, nodes map[string]string) {
	t.Helper()
	kids := map[string][]string{}
	all := map[string]string{"/": "\x00nil"}
	var add func(p string)
	add = func(p string) {
		if _, ok := all[p]; ok || p == "/" {
			return
		}
		all[p] = "\x00nil"
		parent := p[:strings.LastIndexByte(p, '/')]
		if parent == "" {
			parent = "/"
		}
		add(parent)
		kids[parent] = append(kids[parent], p)
	}
	for p, d := range nodes {
		add(p)
		all[p] = d
	}
	var b []byte
	u32 := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	u64 := func(v uint64) { b = binary.BigEndian.AppendUint64(b, v) }
	str := func(s string) { u32(uint32(len(s))); b = append(b, s...) }
	u32(0x5A4B534E)
	u32(2)
	u64(0)
	u32(0) // sessions
	u32(0) // ACL cache
	var walk func(p string)
	walk = func(p string) {
		if p == "/" {
			str("")
		} else {
			str(p)
		}
		if d := all[p]; d == "\x00nil" {
			u32(^uint32(0))
		} else {
			str(d)
		}
		u64(^uint64(0)) // ACL -1
		for range 4 {
			u64(1) // czxid, mzxid, ctime, mtime
		}
		for range 3 {
			u32(0) // version, cversion, aversion
		}
		u64(0) // ephemeralOwner
		u64(1) // pzxid
		ks := kids[p]
		sort.Strings(ks)
		for _, k := range ks {
			walk(k)
		}
	}
	walk("/")
	str("/")
	u64(uint64(adler32.Checksum(b)))
	str("/")
	if err := os.MkdirAll(filepath.Join(dir, "version-2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "version-2", "snapshot.1"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTopicsParallelAsSequential: the topics of a large offline tree are
// decoded on every core, and the image, the malformed znodes of a
// lenient decode and the error of a strict one are those of decoding
// them one after the other: on a tree with malformed partition states,
// a malformed topic znode and missing states spread over its topics.
func TestTopicsParallelAsSequential(t *testing.T) {
	nodes := map[string]string{"/brokers/ids/1": `{"version":5,"host":"h","port":9092,"endpoints":["PLAINTEXT://h:9092"],"jmx_port":-1,"timestamp":"1"}`}
	const topics = 1000
	for i := range topics {
		tp := fmt.Sprintf("/brokers/topics/t%04d", i)
		nodes[tp] = `{"version":3,"partitions":{"0":[1],"1":[1],"2":[1]},"adding_replicas":{},"removing_replicas":{}}`
		if i == 911 {
			nodes[tp] = `{"version":3,"partitions":{"0":[1]`
		}
		for p := range 3 {
			st := fmt.Sprintf(`{"controller_epoch":%d,"leader":1,"version":1,"leader_epoch":%d,"isr":[1]}`, i%17, p)
			switch {
			case i%97 == 5 && p == 1:
				st = `{"leader":1,"isr":`
			case i%131 == 7 && p == 2:
				continue // no state znode
			}
			nodes[fmt.Sprintf("%s/partitions/%d/state", tp, p)] = st
		}
	}
	dir := t.TempDir()
	writeSnapshot(t, dir, nodes)
	decode := func(par int, lenient bool) (any, string) {
		old := parallelTopics
		parallelTopics = par
		defer func() { parallelTopics = old }()
		tr, err := ReadDataDir(dir, DataDirOptions{})
		if err != nil {
			t.Fatal(err)
		}
		img, err := Decode(tr, DecodeOptions{Lenient: lenient})
		return img, fmt.Sprint(err)
	}
	for _, lenient := range []bool{false, true} {
		seqImg, seqErr := decode(1<<30, lenient)
		parImg, parErr := decode(1, lenient)
		if seqErr != parErr {
			t.Errorf("lenient %v: error %q one by one, %q in parallel", lenient, seqErr, parErr)
		}
		if d := cmp.Diff(seqImg, parImg); d != "" {
			t.Errorf("lenient %v: images differ (-one by one +parallel):\n%s", lenient, d)
		}
		if !strings.Contains(seqErr, "t0005") || lenient && !strings.Contains(seqErr, "t0911") {
			t.Errorf("lenient %v: %s", lenient, seqErr)
		}
	}
}

// An offline tree's partition znodes are found by id from one walk of
// their container: the partitions, the missing states and the znodes
// left raw are those of a tree whose nodes are looked up by path, for a
// topic with ids 0..n-1, one with a partition znode missing, one without
// state, extra and oddly named ones, and one whose ids are sparse.
func TestOfflinePartitionsByID(t *testing.T) {
	st := `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1]}`
	nodes := map[string]string{
		"/brokers/topics/dense":                    `{"version":3,"partitions":{"0":[1],"1":[1],"2":[1]},"adding_replicas":{},"removing_replicas":{}}`,
		"/brokers/topics/dense/partitions/0/state": st,
		"/brokers/topics/dense/partitions/1/state": st,
		"/brokers/topics/dense/partitions/2/state": st,
		// 2 has no znode, 3 no state; 9 and 07 are no partition of the
		// assignment.
		"/brokers/topics/gaps":                        `{"version":3,"partitions":{"3":[1],"0":[1],"1":[1],"2":[1]},"adding_replicas":{},"removing_replicas":{}}`,
		"/brokers/topics/gaps/partitions/0/state":     st,
		"/brokers/topics/gaps/partitions/1/state":     st,
		"/brokers/topics/gaps/partitions/3":           "\x00nil",
		"/brokers/topics/gaps/partitions/9/state":     st,
		"/brokers/topics/gaps/partitions/07/state":    st,
		"/brokers/topics/sparse":                      `{"version":3,"partitions":{"0":[1],"500":[1]},"adding_replicas":{},"removing_replicas":{}}`,
		"/brokers/topics/sparse/partitions/0/state":   st,
		"/brokers/topics/sparse/partitions/500/state": st,
	}
	dir := t.TempDir()
	writeSnapshot(t, dir, nodes)
	off, err := ReadDataDir(dir, DataDirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(off, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decode(tree(nodes, nil, nil), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want.Topics, got.Topics); d != "" {
		t.Errorf("topics (-by path +offline):\n%s", d)
	}
	if d := cmp.Diff(want.ZK.MissingPartitionStates, got.ZK.MissingPartitionStates); d != "" {
		t.Errorf("missing states (-by path +offline):\n%s", d)
	}
	if d := cmp.Diff(want.ZK.Raw, got.ZK.Raw); d != "" {
		t.Errorf("raw znodes (-by path +offline):\n%s", d)
	}
	if len(got.ZK.MissingPartitionStates) != 2 || len(got.ZK.Raw) == 0 {
		t.Errorf("missing states %q, raw %v: the test lost its gaps", got.ZK.MissingPartitionStates, got.ZK.Raw)
	}
}
