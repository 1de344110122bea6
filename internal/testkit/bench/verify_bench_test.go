package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
	"github.com/kmeta/kmeta/zkread"
)

// TestBenchVerify times `kmeta verify` end to end (ZooKeeper data dir
// read, KRaft snapshot replay, normalize and diff, JSON report) on one
// synthetic cluster written in both worlds, as Kafka's migration leaves
// it: topics of 100 partitions with RF 3 on 3 brokers, a topic config on
// every tenth topic, /migration and ZkMigrationStateRecord. Each size
// runs KMETA_BENCH_RUNS times, side by side with verify's floor (reading
// both inputs once, in this process: readBoth); zk image -o json of the
// data dir runs beside image -o json of the KRaft snapshot of the same
// cluster (its peer). The larger size's rows say the growth over the
// smaller's. Sizes in partitions come from KMETA_BENCH_VERIFY (comma
// separated, ascending; default 100000,1000000; KMETA_BENCH_SCALE=small:
// 10000,100000). It fails only if verify does not call the two views
// equal or an image lacks partitions.
func TestBenchVerify(t *testing.T) {
	bin := benchBin(t)
	sizes := []int{100_000, 1_000_000}
	if smallScale() {
		sizes = []int{10_000, 100_000}
	}
	if s := os.Getenv("KMETA_BENCH_VERIFY"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 100 {
				t.Fatalf("KMETA_BENCH_VERIFY: %q", f)
			}
			sizes = append(sizes, n)
		}
	}
	var rows, stageRows []string
	tb := &table{title: "kmeta verify and zk image of one cluster in both worlds (ZooKeeper data dir, KRaft snapshot)"}
	var prev [3]stat // the smaller size's verify, zk image, image
	var prevParts int
	for _, parts := range sizes {
		dir := t.TempDir()
		if d := os.Getenv("KMETA_BENCH_DIR"); d != "" { // kept after the run
			dir = filepath.Join(d, strconv.Itoa(parts))
		}
		start := time.Now()
		zkDir, kraftDir, znodes, recs := writeVerifyPair(t, dir, parts/100, 100)
		gen := time.Since(start)
		st, _ := os.Stat(filepath.Join(zkDir, "version-2", "snapshot.100"))
		sn, _ := os.Stat(filepath.Join(kraftDir, "__cluster_metadata-0", metalog.SnapshotID{EndOffset: int64(recs), Epoch: 1}.FileName()))

		// verify end to end, against its floor: reading both inputs once
		// in this process (the data dir's tree, the snapshot's replay).
		// Each row and its peer run in pairs, taking turns at going
		// first, and the ratio is the pairs' median (pairedRatio): this
		// VM's speed moves by a quarter between minutes.
		var vs []run
		var floor []stageCost
		for i := range benchRuns() {
			verify := func() {
				r := runProc(t, exec.Command(bin, "verify", "-o", "json", "--zk", "zkdata:"+zkDir, "--kraft", "kraft:"+kraftDir), `"result": "equal"`)
				if r.count != 1 {
					t.Fatalf("%d partitions: verify did not call the views equal", parts)
				}
				vs = append(vs, r)
			}
			read := func() { floor = append(floor, measure(t, func() error { return readBoth(zkDir, kraftDir) })) }
			inTurn(i, verify, read)
		}
		v, fl := stats(vs), costs(floor)
		v.paired = pairedRatio(stageRuns(floor), vs)
		// zk image of the data dir against image of the same cluster's
		// KRaft snapshot.
		image := func(who string, rs *[]run, args ...string) func() {
			return func() {
				r := runProcFile(t, exec.Command(bin, args...), `"partition":`)
				if r.count != int64(parts) {
					t.Fatalf("%s printed %d partitions, want %d", who, r.count, parts)
				}
				*rs = append(*rs, r)
			}
		}
		var zis, kis []run
		for i := range benchRuns() {
			inTurn(i, image("kmeta zk image -o json", &zis, "zk", "image", "-o", "json", "zkdata:"+zkDir),
				image("kmeta image -o json", &kis, "image", "-o", "json", "kraft:"+kraftDir))
		}
		zi, ki := stats(zis), stats(kis)
		zi.paired = pairedRatio(kis, zis)
		names := [3]string{fmt.Sprintf("kmeta verify -o json, %d partitions (end to end)", parts),
			fmt.Sprintf("kmeta zk image -o json, %d-partition data dir", parts),
			fmt.Sprintf("kmeta image -o json, the same cluster's KRaft snapshot (%d)", parts)}
		cur := [3]stat{v, zi, ki}
		peers := [3]string{"floor: read both inputs once (in process)", "kmeta image -o json of its KRaft snapshot", ""}
		peerStats := [3]*stat{&fl, &ki, nil}
		tb.add(peers[0]+fmt.Sprintf(", %d partitions", parts), fl, 0, "", nil, "")
		for i := range cur {
			if prevParts > 0 && parts > prevParts {
				tb.addGrowth(names[i], cur[i], 0, peers[i], peerStats[i], prev[i], parts/prevParts, "")
			} else {
				tb.add(names[i], cur[i], 0, peers[i], peerStats[i], "")
			}
		}
		prev, prevParts = cur, parts
		rows = append(rows, fmt.Sprintf("| %9d | %9d znodes, %4d MiB snapshot | %9d records, %4d MiB snapshot | (generated in %s)",
			parts, znodes, st.Size()>>20, recs, sn.Size()>>20, gen.Round(time.Second)))
		stageRows = append(stageRows, verifyStages(t, parts, zkDir, kraftDir))
	}
	t.Logf("\nthe inputs:\n| partitions | ZooKeeper side | KRaft side |\n%s", strings.Join(rows, "\n"))
	report(t, "KMETA_BENCH_REPORT_VERIFY", tb)
	t.Logf("\nthe same stages in this process, one after another (CPU user+sys incl. GC, wall, bytes allocated):\n| partitions | ZooKeeper read | ZooKeeper decode | KRaft replay | compare |\n%s",
		strings.Join(stageRows, "\n"))
}

// readBoth reads verify's two inputs once, as verify does before it
// decodes or compares anything: the data dir's tree, then the snapshot's
// replay (verify's floor).
func readBoth(zkDir, kraftDir string) error {
	if _, err := zkread.ReadDataDir(zkDir, zkread.DataDirOptions{}); err != nil {
		return err
	}
	spec, err := source.Parse("kraft:" + kraftDir)
	if err != nil {
		return err
	}
	_, err = source.Load(context.Background(), spec, source.Options{})
	return err
}

// verifyStages runs what verify runs, stage by stage in this process, and
// returns a table row of each stage's CPU time, wall time and allocation:
// where a change of the end-to-end figure comes from.
func verifyStages(t *testing.T, parts int, zkDir, kraftDir string) string {
	t.Helper()
	cells := []string{fmt.Sprintf("%9d", parts)}
	stage := func(f func() error) { cells = append(cells, measure(t, f).String()) }
	var tree *zkread.Tree
	var zk, kr *model.Image
	stage(func() (err error) { tree, err = zkread.ReadDataDir(zkDir, zkread.DataDirOptions{}); return err })
	stage(func() (err error) { zk, err = zkread.Decode(tree, zkread.DecodeOptions{}); tree = nil; return err })
	stage(func() (err error) { kr, err = loadSource("kraft:" + kraftDir); return err })
	stage(func() error {
		rep, err := verify.Compare(zk, kr, verify.Options{Left: verify.Side{World: model.WorldZooKeeper, Name: "zk"}, Right: verify.Side{World: model.WorldKRaft, Name: "kraft"}})
		if err == nil && rep.Differ() {
			err = fmt.Errorf("%d partitions: the views differ in process", parts)
		}
		return err
	})
	return "| " + strings.Join(cells, " | ") + " |"
}

// stageCost is what one stage run in the bench process cost.
type stageCost struct {
	cpu, wall time.Duration
	alloc     uint64 // bytes allocated
	heap      uint64 // bytes of live heap after it (after a GC)
}

func (c stageCost) String() string {
	return fmt.Sprintf("%5.2f s CPU, %5.2f s, %5d MiB", c.cpu.Seconds(), c.wall.Seconds(), c.alloc>>20)
}

// inTurn runs a pair: a then b on even turns, b then a on odd ones.
func inTurn(i int, a, b func()) {
	if i%2 == 1 {
		a, b = b, a
	}
	a()
	b()
}

// measure runs f as one stage: its CPU time (user+sys, GC included),
// wall time, allocation, and the live heap once it is done.
func measure(t *testing.T, f func() error) stageCost {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	alloc := ms.TotalAlloc
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	start := time.Now()
	if err := f(); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	runtime.ReadMemStats(&ms)
	c := stageCost{cpu: time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()), wall: wall, alloc: ms.TotalAlloc - alloc}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	c.heap = ms.HeapAlloc
	return c
}

// writeVerifyPair writes the same cluster as a ZooKeeper data dir (one
// snapshot file in ZooKeeper's format) and as a KRaft metadata dir (one
// .checkpoint written by kmeta's writer).
func writeVerifyPair(t *testing.T, dir string, topics, parts int) (zkDir, kraftDir string, znodes, nrec int) {
	t.Helper()
	const clusterID = "Y_M1NY68Tu2c3nV89agwIw"
	zkDir, kraftDir = filepath.Join(dir, "zk"), filepath.Join(dir, "kraft")
	part := filepath.Join(kraftDir, "__cluster_metadata-0")
	if err := os.MkdirAll(filepath.Join(zkDir, "version-2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kraftDir, "meta.properties"),
		[]byte("version=1\ncluster.id="+clusterID+"\nnode.id=3000\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAQ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	zs := newZKSnapshot()
	zs.node("", nil, 0)
	for _, p := range []string{"/brokers", "/brokers/ids", "/brokers/topics", "/config", "/config/topics", "/cluster", "/admin", "/admin/delete_topics"} {
		zs.node(p, nil, 0)
	}
	zs.node("/cluster/id", []byte(`{"version":"1","id":"`+clusterID+`"}`), 0)
	zs.node("/migration", []byte(`{"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":1,"kraft_metadata_offset":1,"kraft_metadata_epoch":1}`), 3)

	var vals [][]byte
	// Version 0, as the migration writes; broker registrations at v2, the
	// first with IsMigratingZkBroker.
	add := func(m records.Metadata) {
		ver := int16(0)
		if _, ok := m.(*records.RegisterBrokerRecord); ok {
			ver = 2
		}
		v, err := records.EncodeMetadata(nil, m, ver)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	add(&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21})
	add(&records.ZkMigrationStateRecord{ZkMigrationState: int8(model.MigrationMigration)})
	for b := int32(1); b <= 3; b++ {
		port := 9090 + b
		zs.node("/brokers/ids/"+strconv.Itoa(int(b)), fmt.Appendf(nil,
			`{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://127.0.0.1:%d"],"jmx_port":-1,"features":{},"host":"127.0.0.1","timestamp":"1","port":%d,"version":5}`, port, port), 0)
		add(&records.RegisterBrokerRecord{BrokerId: b, IsMigratingZkBroker: true, IncarnationId: model.UUID{byte(b), 1}, BrokerEpoch: int64(b),
			EndPoints: []records.RegisterBrokerRecordBrokerEndpoint{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: uint16(port), SecurityProtocol: 0}},
			Features:  []records.RegisterBrokerRecordBrokerFeature{{Name: "metadata.version", MinSupportedVersion: 21, MaxSupportedVersion: 21}}})
	}
	for i := range topics {
		name := fmt.Sprintf("topic-%06d", i)
		id := model.UUID{1, byte(i >> 16), byte(i >> 8), byte(i), 7}
		assign := make([]string, parts)
		for p := range parts {
			r := []int32{int32(1 + (i+p)%3), int32(1 + (i+p+1)%3), int32(1 + (i+p+2)%3)}
			assign[p] = fmt.Sprintf(`"%d":[%d,%d,%d]`, p, r[0], r[1], r[2])
		}
		zs.node("/brokers/topics/"+name, []byte(`{"version":3,"partitions":{`+strings.Join(assign, ",")+`},"topic_id":"`+id.String()+`","adding_replicas":{},"removing_replicas":{}}`), 0)
		zs.node("/brokers/topics/"+name+"/partitions", nil, 0)
		add(&records.TopicRecord{Name: name, TopicId: id})
		if i%10 == 0 {
			zs.node("/config/topics/"+name, []byte(`{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}`), 0)
			add(&records.ConfigRecord{ResourceType: int8(model.ConfigTopic), ResourceName: name, Name: "retention.ms", Value: ptr("86400000")})
			add(&records.ConfigRecord{ResourceType: int8(model.ConfigTopic), ResourceName: name, Name: "cleanup.policy", Value: ptr("compact")})
		}
		for p := range parts {
			r := []int32{int32(1 + (i+p)%3), int32(1 + (i+p+1)%3), int32(1 + (i+p+2)%3)}
			base := "/brokers/topics/" + name + "/partitions/" + strconv.Itoa(p)
			zs.node(base, nil, 0)
			zs.node(base+"/state", fmt.Appendf(nil, `{"controller_epoch":1,"leader":%d,"version":1,"leader_epoch":2,"isr":[%d,%d,%d]}`, r[0], r[0], r[1], r[2]), 4)
			add(&records.PartitionRecord{PartitionId: int32(p), TopicId: id, Replicas: r, Isr: slices.Clone(r), Leader: r[0], LeaderEpoch: 2, PartitionEpoch: 4})
		}
	}
	zs.write(t, filepath.Join(zkDir, "version-2", "snapshot.100"))
	snap := filepath.Join(part, metalog.SnapshotID{EndOffset: int64(len(vals)), Epoch: 1}.FileName())
	if err := metalog.WriteSnapshotFile(snap, vals, metalog.SnapshotOptions{Epoch: 1, Timestamp: 1700000000000}); err != nil {
		t.Fatal(err)
	}
	return zkDir, kraftDir, zs.n, len(vals)
}

func ptr[T any](v T) *T { return &v }

// zkSnapshot writes a ZooKeeper snapshot file (version 2, "ZKSN"): no
// sessions, an empty ACL cache (every node has ACL id -1, world:anyone),
// the nodes depth first as ZooKeeper's DataTree.serialize writes them (a
// node, then each child's subtree, children in the order they were
// made), the "/" terminator, then the Adler32 seal.
type zkSnapshot struct {
	recs map[string][]byte   // path -> node record ("" is the root)
	kids map[string][]string // path -> children's paths
	n    int
}

func newZKSnapshot() *zkSnapshot {
	return &zkSnapshot{recs: map[string][]byte{}, kids: map[string][]string{}}
}

func appendStr(b []byte, v string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

func (s *zkSnapshot) node(path string, data []byte, version int32) {
	b := appendStr(nil, path)
	if data == nil {
		b = binary.BigEndian.AppendUint32(b, ^uint32(0)) // null
	} else {
		b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
		b = append(b, data...)
	}
	b = binary.BigEndian.AppendUint64(b, ^uint64(0)) // ACL id -1
	for _, v := range []int64{2, 2 + int64(version), 1700000000000, 1700000000000} {
		b = binary.BigEndian.AppendUint64(b, uint64(v)) // czxid, mzxid, ctime, mtime
	}
	for _, v := range []int32{version, 0, 0} {
		b = binary.BigEndian.AppendUint32(b, uint32(v)) // version, cversion, aversion
	}
	b = binary.BigEndian.AppendUint64(b, 0) // ephemeralOwner
	b = binary.BigEndian.AppendUint64(b, 2) // pzxid
	s.recs[path] = b
	if path != "" {
		parent := path[:strings.LastIndexByte(path, '/')]
		s.kids[parent] = append(s.kids[parent], path)
		s.n++
	}
}

func (s *zkSnapshot) write(t *testing.T, path string) {
	t.Helper()
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0x5A4B534E)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint64(b, 0) // dbid
	b = binary.BigEndian.AppendUint32(b, 0) // sessions
	b = binary.BigEndian.AppendUint32(b, 0) // ACL cache
	var walk func(p string)
	walk = func(p string) {
		b = append(b, s.recs[p]...)
		for _, k := range s.kids[p] {
			walk(k)
		}
	}
	walk("")
	b = appendStr(b, "/")
	b = binary.BigEndian.AppendUint64(b, uint64(adler32.Checksum(b)))
	b = appendStr(b, "/")
	// Synced before any row is timed: left dirty, the file's 318 MiB (at
	// 1,000,000 partitions) were written back about 30 s later
	// (dirty_expire_centisecs), inside whichever runs were then timed;
	// one verify run in five took 4 s where the others took 1 s.
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
