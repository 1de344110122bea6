package bench

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/peakrss"
	"github.com/kmeta/kmeta/zkread"
)

// Shape of the synthetic cluster: 1,000 topics x 100 partitions.
const (
	zkBenchTopics     = 1000
	zkBenchPartitions = 100
	zkBenchChroot     = "/kafka"
	// The one real ZooKeeper-mode broker; every replica is on it, because
	// Kafka's migration waits until every broker id a partition names has
	// registered with the KRaft controller.
	zkBenchBroker = 1
	// The KRaft controller of the migration.
	zkBenchController = 3000
)

func benchEnvInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

type zkQuietLogger struct{}

func (zkQuietLogger) Printf(string, ...any) {}

// writeZKLayout writes a Kafka 3.x ZooKeeper layout with multi ops: the
// paths Kafka pre-creates, /cluster/id, /controller_epoch, topics with
// topic_id and their partition state znodes, and topic configs. /controller
// is written as a persistent v1 registration of a broker id that does not
// exist, so that the real ZK-mode broker started later does not become the
// ZooKeeper controller (it would load and create every partition) and the
// KRaft controller takes /controller over as in any migration. It returns
// the cluster id and the number of znodes under the chroot.
func writeZKLayout(t *testing.T, addr string, topics, parts int) (string, int) {
	t.Helper()
	conn, events, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogger(zkQuietLogger{}), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// ZooKeeper answers ruok before its request processors run; wait for a
	// session (the client reconnects by itself).
	timeout := time.After(time.Minute)
	for connected := false; !connected; {
		select {
		case ev := <-events:
			connected = ev.State == zk.StateHasSession
		case <-timeout:
			t.Fatal("no ZooKeeper session within a minute")
		}
	}
	acl := zk.WorldACL(zk.PermAll)
	mk := func(p string, data []byte) *zk.CreateRequest {
		return &zk.CreateRequest{Path: zkBenchChroot + p, Data: data, Acl: acl}
	}
	clusterID := base64.RawURLEncoding.EncodeToString([]byte("kmeta-zk-bench-1"))
	base := []any{&zk.CreateRequest{Path: zkBenchChroot, Acl: acl}}
	for _, p := range []string{"/brokers", "/brokers/ids", "/brokers/topics", "/brokers/seqid", "/config",
		"/config/topics", "/config/clients", "/config/users", "/config/brokers", "/config/ips", "/config/changes",
		"/admin", "/admin/delete_topics", "/isr_change_notification", "/log_dir_event_notification",
		"/latest_producer_id_block", "/consumers", "/cluster"} {
		base = append(base, mk(p, nil))
	}
	base = append(base,
		mk("/cluster/id", fmt.Appendf(nil, `{"version":"1","id":"%s"}`, clusterID)),
		mk("/controller_epoch", []byte("1")),
		mk("/controller", fmt.Appendf(nil, `{"version":1,"brokerid":%d,"timestamp":"%d"}`, 999, time.Now().UnixMilli())),
		mk("/config/brokers/<default>", []byte(`{"version":1,"config":{"log.retention.ms":"604800000"}}`)))
	if _, err := conn.Multi(base...); err != nil {
		t.Fatalf("base layout: %v", err)
	}
	n := len(base)

	topicOps := func(i int) []any {
		name := fmt.Sprintf("bench.topic-%04d", i)
		var pm strings.Builder
		pm.WriteByte('{')
		for p := range parts {
			if p > 0 {
				pm.WriteByte(',')
			}
			fmt.Fprintf(&pm, `"%d":[%d]`, p, zkBenchBroker)
		}
		pm.WriteByte('}')
		var id [16]byte
		copy(id[:], fmt.Sprintf("topic-id-%07d", i))
		tp := "/brokers/topics/" + name
		ops := []any{
			mk(tp, fmt.Appendf(nil, `{"version":3,"partitions":%s,"topic_id":"%s","adding_replicas":{},"removing_replicas":{}}`,
				pm.String(), base64.RawURLEncoding.EncodeToString(id[:]))),
			mk(tp+"/partitions", nil),
		}
		for p := range parts {
			pp := fmt.Sprintf("%s/partitions/%d", tp, p)
			ops = append(ops, mk(pp, nil), mk(pp+"/state",
				fmt.Appendf(nil, `{"controller_epoch":1,"leader":%d,"version":1,"leader_epoch":%d,"isr":[%d]}`, zkBenchBroker, p%7, zkBenchBroker)))
		}
		cfg := `{"version":1,"config":{}}`
		if i%10 == 0 {
			cfg = `{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}`
		}
		return append(ops, mk("/config/topics/"+name, []byte(cfg)))
	}
	// About 30 KiB per topic; ten topics a multi stays well under
	// ZooKeeper's 1 MiB request limit (jute.maxbuffer). Four writers keep
	// the server busy without starving the machine.
	const perMulti = 10
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 4 {
		wg.Go(func() {
			for start := range work {
				var ops []any
				for i := start; i < min(start+perMulti, topics); i++ {
					ops = append(ops, topicOps(i)...)
				}
				_, err := conn.Multi(ops...)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("topics from %d: %w", start, err)
				}
				n += len(ops)
				mu.Unlock()
			}
		})
	}
	for start := 0; start < topics; start += perMulti {
		work <- start
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	return clusterID, n
}

type zkRun struct {
	name   string
	wall   time.Duration
	maxRSS int64 // KiB
	cpu    time.Duration
	topics int
	parts  int
	out    string // the JSON image
}

// zkSetting is one way to run kmeta's live read: requests in flight,
// connections, reads per multiRead.
type zkSetting struct{ inFlight, conns, batch int }

// zkPairs is how many runs of kmeta's live read and of the multiRead
// ceiling the bench makes for each run of the other rows.
const zkPairs = 3

// zkDefaults are kmeta's defaults (cmd/kmeta's flags).
var zkDefaults = zkSetting{64, 2, 128}

func (s zkSetting) String() string {
	return fmt.Sprintf("in-flight %d, connections %d, batch %d", s.inFlight, s.conns, s.batch)
}

// runKmetaZK runs `kmeta zk image -o json` on the live ZooKeeper, keeps its
// output in a file and checks it holds the whole layout.
func runKmetaZK(t *testing.T, bin, dir, src string, set zkSetting) zkRun {
	t.Helper()
	out := filepath.Join(dir, fmt.Sprintf("image-%d-%d-%d.json", set.inFlight, set.conns, set.batch))
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, "zk", "image", "-o", "json", "--zk-in-flight", strconv.Itoa(set.inFlight),
		"--zk-connections", strconv.Itoa(set.conns), "--zk-batch", strconv.Itoa(set.batch), "--zk-session-timeout", "30s", src)
	cmd.Stdout = f
	m := measureProc(t, cmd, 0, nil)
	r := zkRun{name: fmt.Sprintf("kmeta zk image (%s)", set), wall: m.wall, cpu: m.cpu, maxRSS: m.maxRSS, out: out}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var img struct {
		Topics []struct {
			Partitions []json.RawMessage `json:"partitions"`
		} `json:"topics"`
	}
	if err := json.Unmarshal(b, &img); err != nil {
		t.Fatalf("kmeta output: %v", err)
	}
	r.topics = len(img.Topics)
	for _, tp := range img.Topics {
		r.parts += len(tp.Partitions)
	}
	return r
}

var migrationDoneRE = regexp.MustCompile(`Completed migration of metadata from ZooKeeper to KRaft\. (\d+) records were generated in (\d+) ms across (\d+) batches`)

// TestBenchSideBySideZK reads a ZooKeeper holding a 100,000-partition
// Kafka layout with kmeta (live, a few pipelining settings) and with Kafka
// 3.9.2's own ZooKeeper to KRaft migration, and prints wall time, znodes/s
// and peak memory (znodes/s is the layout's znode count over the time, for
// both tools; Kafka's migration skips the partitions/<p> containers, kmeta
// reads every znode). Kafka's figure is the one its controller logs ("N
// records were generated in M ms"): reading ZooKeeper and writing the
// records to the KRaft log. Timings are reported, never asserted; the test
// fails only when a tool does not read the whole layout.
//
// KMETA_BENCH_ZK_TOPICS and KMETA_BENCH_ZK_PARTITIONS change the shape;
// KMETA_BENCH_SCALE=small reads 100 topics; KMETA_BENCH_ZK_ROWS selects
// rows (see zkRow), KMETA_BENCH_ZK_SETTINGS the settings rows (see
// zkSettings); KMETA_BENCH_ZK_REFERENCE names another kmeta binary whose
// `zk image -o json` and `zk dump` of the same tree must be byte for byte
// kmeta's. KMETA_BENCH_ZK_HOLD=FILE writes the ensemble's zk:// source to
// FILE once the layout is written and keeps ZooKeeper up until FILE is
// removed, for profiling and by-hand runs against the same tree.
func TestBenchSideBySideZK(t *testing.T) {
	if os.Getenv("KMETA_BENCH") == "" {
		t.Skip("benchmark: run with `make bench` (KMETA_BENCH=1)")
	}
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	bin := kmetaBin(t)
	defTopics := zkBenchTopics
	if smallScale() {
		defTopics = zkBenchTopics / 10
	}
	topics := benchEnvInt("KMETA_BENCH_ZK_TOPICS", defTopics)
	parts := benchEnvInt("KMETA_BENCH_ZK_PARTITIONS", zkBenchPartitions)
	dir := outDir(t) // kmeta's outputs

	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{
		"forceSync": "no", // the layout is written once; fsync per multi only slows the setup
	}, JVMOpts: zkScriptJVMOpts})
	start := time.Now()
	clusterID, nodes := writeZKLayout(t, zks.Addr(), topics, parts)
	t.Logf("wrote %d znodes (%d topics x %d partitions) in %s", nodes, topics, parts, time.Since(start).Round(time.Millisecond))

	src := "zk://" + zks.Addr() + zkBenchChroot
	if hold := os.Getenv("KMETA_BENCH_ZK_HOLD"); hold != "" {
		holdZK(t, hold, src)
	}
	tb := &table{title: fmt.Sprintf("kmeta make bench, ZooKeeper: %d znodes under %s (%d topics x %d partitions)", nodes, zkBenchChroot, topics, parts)}
	wantAll := func(r zkRun) {
		if r.topics != topics || r.parts != topics*parts {
			t.Fatalf("%s read %d topics, %d partitions; want %d, %d", r.name, r.topics, r.parts, topics, topics*parts)
		}
	}
	// A first read warms ZooKeeper (its JIT and page cache) for everyone.
	first := runKmetaZK(t, bin, dir, src, zkDefaults)
	if ref := os.Getenv("KMETA_BENCH_ZK_REFERENCE"); ref != "" {
		// Another kmeta binary (main's, say) must print the same bytes.
		compareZKOutput(t, ref, bin, src, first.out)
	}
	var kst stat
	if getData := zkRow("read"); getData || zkRow("multiread") {
		// The ceilings: every znode's data read by a plain loop over the
		// sessions kmeta reads with (zkread.LiveSessions: same client,
		// write coalescing and read buffering, kmeta's default
		// connections): pipelined getData, 64 in flight, and pipelined
		// multiRead batches of getData, kmeta's default batch and
		// requests in flight. Their runs and kmeta's alternate, so that
		// all see the same machine load, and the multiRead ceiling and
		// kmeta swap places from one run to the next.
		paths := zkPaths(t, zks.Addr())
		zkPID := procOf(zks.Config)
		var ceil, mceil, def []run
		var ceilCPU, ceilZK, mCPU, mZK, kmCPU, kmZK []time.Duration
		for i := range benchRuns() {
			z0 := procCPU(zkPID)
			if getData {
				c, cpu := zkGetAll(t, zks.Addr(), paths, zkSetting{inFlight: 64, conns: zkDefaults.conns, batch: 1})
				ceil, ceilCPU = append(ceil, run{wall: c}), append(ceilCPU, cpu)
			}
			ceilZK = append(ceilZK, procCPU(zkPID)-z0)
			// The multiRead ceiling and kmeta take turns at going first
			// (a read right after another one meets the ZooKeeper JVM
			// still collecting the first one's garbage), and run
			// zkPairs times for each getData ceiling: a pair takes about
			// a second, and on this VM three of them could read 0.82
			// where nine read 0.66.
			for j := range zkPairs {
				var mc, mcpu time.Duration
				var r zkRun
				var zMulti, zKmeta time.Duration // ZooKeeper's CPU during each
				z1 := procCPU(zkPID)
				if (i*zkPairs+j)%2 == 0 {
					mc, mcpu = zkGetAll(t, zks.Addr(), paths, zkDefaults)
					z2 := procCPU(zkPID)
					r = runKmetaZK(t, bin, dir, src, zkDefaults)
					zMulti, zKmeta = z2-z1, procCPU(zkPID)-z2
				} else {
					r = runKmetaZK(t, bin, dir, src, zkDefaults)
					z2 := procCPU(zkPID)
					mc, mcpu = zkGetAll(t, zks.Addr(), paths, zkDefaults)
					zKmeta, zMulti = z2-z1, procCPU(zkPID)-z2
				}
				wantAll(r)
				mceil = append(mceil, run{wall: mc})
				def = append(def, run{wall: r.wall, maxRSS: r.maxRSS})
				mCPU, mZK = append(mCPU, mcpu), append(mZK, zMulti)
				kmCPU, kmZK = append(kmCPU, r.cpu), append(kmZK, zKmeta)
			}
		}
		var ceiling stat
		if getData {
			ceiling = stats(ceil)
			tb.add(fmt.Sprintf("ceiling: pipelined getData of all %d znodes (64 in flight, %d connections)", len(paths), zkDefaults.conns), ceiling, 0, "", nil,
				fmt.Sprintf("one request per znode over zkread.LiveSessions in the bench process; CPU median: client %s, ZooKeeper %s", medianDur(ceilCPU), medianDur(ceilZK)))
		}
		mceiling := stats(mceil)
		tb.add(fmt.Sprintf("ceiling: pipelined multiRead getData of all %d znodes (%s)", len(paths), zkDefaults), mceiling, 0, "", nil,
			fmt.Sprintf("same sessions; CPU median: client %s, ZooKeeper %s", medianDur(mCPU), medianDur(mZK)))
		kst = stats(def)
		if getData {
			tb.add(fmt.Sprintf("kmeta zk image -o json (defaults: %s)", zkDefaults), kst, 0, "pipelined getData ceiling", &ceiling,
				fmt.Sprintf("ratio = fraction of the getData ceiling; CPU median: kmeta %s, ZooKeeper %s", medianDur(kmCPU), medianDur(kmZK)))
		} else {
			tb.add(fmt.Sprintf("kmeta zk image -o json (defaults: %s)", zkDefaults), kst, 0, "", nil,
				fmt.Sprintf("CPU median: kmeta %s, ZooKeeper %s", medianDur(kmCPU), medianDur(kmZK)))
		}
		// What bounds the row: the client and ZooKeeper share the two
		// cores, so their CPU together over the cores is the least wall
		// either read can take.
		floorOf := func(client, server []time.Duration) string {
			c, z := durs(client).med, durs(server).med
			return fmt.Sprintf("%.2fs + %.2fs of CPU, at least %.2fs on %d cores", c.Seconds(), z.Seconds(), (c+z).Seconds()/float64(numCPU()), numCPU())
		}
		tb.add("kmeta zk image vs the multiRead ceiling", kst, 0, "multiRead getData ceiling", &mceiling,
			fmt.Sprintf("bound: client + ZooKeeper CPU; kmeta %s; the ceiling %s", floorOf(kmCPU, kmZK), floorOf(mCPU, mZK)))
	}
	if zkRow("settings") {
		for _, s := range zkSettings(t) {
			z0 := procCPU(procOf(zks.Config))
			r := runKmetaZK(t, bin, dir, src, s)
			z1 := procCPU(procOf(zks.Config))
			wantAll(r)
			tb.add(r.name, stats([]run{{wall: r.wall, maxRSS: r.maxRSS}}), 0, "", nil,
				fmt.Sprintf("kmeta CPU %.2fs, ZooKeeper CPU %.2fs", r.cpu.Seconds(), (z1-z0).Seconds()))
		}
	}
	if !zkRow("kafka") {
		report(t, "KMETA_BENCH_REPORT_ZK", tb)
		return
	}
	if kst.n == 0 {
		var def []run
		for range benchRuns() {
			r := runKmetaZK(t, bin, dir, src, zkDefaults)
			wantAll(r)
			def = append(def, run{wall: r.wall, maxRSS: r.maxRSS})
		}
		kst = stats(def)
	}

	km := kafkaMigrateZK(t, d, zks, clusterID, topics, parts)
	kafka := stat{min: km.wall, med: km.wall, max: km.wall, rss: km.rss, n: 1}
	tb.add("Kafka 3.9.2 ZK→KRaft migration read (controller's \"generated in M ms\")", kafka, 0, "", nil,
		fmt.Sprintf("%d records in %d batches; one run (a cluster per run); RSS: the controller JVM's peak (-Xmx1G -Xms1G, whole life)", km.records, km.batches))
	tb.add("kmeta zk image vs Kafka's migration read", kst, 0, "Kafka 3.9.2 migration", &kafka, "")
	report(t, "KMETA_BENCH_REPORT_ZK", tb)
}

// holdZK writes src to file and waits until file is removed (or the test
// times out).
func holdZK(t *testing.T, file, src string) {
	if err := os.WriteFile(file, []byte(src+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("holding ZooKeeper at %s until %s is removed", src, file)
	for {
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			return
		}
		select {
		case <-t.Context().Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// zkPaths lists every znode under the chroot (children first, as kmeta
// reads them), outside the timed part.
func zkPaths(t *testing.T, addr string) []string {
	conn, _, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogger(zkQuietLogger{}), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out []string
	queue := []string{zkBenchChroot}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		kids, _, err := conn.Children(p)
		if err != nil {
			t.Fatalf("children of %s: %v", p, err)
		}
		for _, k := range kids {
			queue = append(queue, p+"/"+k)
		}
	}
	return out
}

// zkGetAll reads the data of every path over set.conns of the sessions
// kmeta reads with, set.inFlight requests in flight: one getData per path
// when set.batch is 1, else multiRead batches of set.batch getData. It
// returns the time it took and the CPU time (user+sys) this process spent
// meanwhile.
func zkGetAll(t *testing.T, addr string, paths []string, set zkSetting) (time.Duration, time.Duration) {
	cs, err := zkread.LiveSessions(t.Context(), zkread.LiveOptions{Servers: []string{addr}, Connections: set.conns, SessionTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	var next atomic.Int64
	var failed atomic.Value
	// The garbage of what ran before (kmeta's output read and decoded) is
	// collected before the ceiling is timed, not during it.
	debug.FreeOSMemory()
	cpu0 := selfCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range set.inFlight {
		c := cs[w%set.conns]
		wg.Go(func() {
			ops := make([]zkread.ReadOp, 0, set.batch)
			for {
				i := int(next.Add(int64(set.batch))) - set.batch
				if i >= len(paths) {
					return
				}
				var err error
				if set.batch == 1 {
					_, _, err = c.Get(paths[i])
				} else {
					ops = ops[:0]
					for _, p := range paths[i:min(i+set.batch, len(paths))] {
						ops = append(ops, zkread.ReadOp{Path: p})
					}
					var res []zkread.ReadResult
					if res, err = c.MultiRead(ops); err == nil {
						for _, r := range res {
							if r.Err != nil {
								err = r.Err
							}
						}
					}
				}
				if err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	d, cpu := time.Since(start), selfCPU()-cpu0
	if err := failed.Load(); err != nil {
		t.Fatalf("getData (%s): %v", set, err)
	}
	return d, cpu
}

// zkSettings are the "settings" rows: KMETA_BENCH_ZK_SETTINGS lists
// in-flight/connections/batch triples ("16/1/64,256/4/64"), else a few
// around the defaults, and one request per read.
func zkSettings(t *testing.T) []zkSetting {
	env := os.Getenv("KMETA_BENCH_ZK_SETTINGS")
	if env == "" {
		return []zkSetting{{16, 1, 128}, {256, 4, 128}, {64, 2, 64}, {64, 2, 1}}
	}
	var out []zkSetting
	for _, f := range strings.Split(env, ",") {
		var s zkSetting
		if _, err := fmt.Sscanf(f, "%d/%d/%d", &s.inFlight, &s.conns, &s.batch); err != nil {
			t.Fatalf("KMETA_BENCH_ZK_SETTINGS %q: %v", f, err)
		}
		out = append(out, s)
	}
	return out
}

// compareZKOutput runs the reference kmeta binary's `zk image -o json` and
// both binaries' `zk dump` on the same ZooKeeper and fails when any output
// differs from bin's by a byte. image is bin's image output.
func compareZKOutput(t *testing.T, ref, bin, src, image string) {
	t.Helper()
	want, err := exec.Command(ref, "zk", "image", "-o", "json", "--zk-session-timeout", "30s", src).Output()
	if err != nil {
		t.Fatalf("%s zk image: %v", ref, err)
	}
	got, err := os.ReadFile(image)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("zk image -o json: %s and %s print different bytes (%d and %d)", bin, ref, len(got), len(want))
	}
	wantDump, err := exec.Command(ref, "zk", "dump", "--zk-session-timeout", "30s", src).Output()
	if err != nil {
		t.Fatalf("%s zk dump: %v", ref, err)
	}
	gotDump, err := exec.Command(bin, "zk", "dump", "--zk-session-timeout", "30s", src).Output()
	if err != nil {
		t.Fatalf("%s zk dump: %v", bin, err)
	}
	if !bytes.Equal(gotDump, wantDump) {
		t.Errorf("zk dump: %s and %s print different bytes (%d and %d)", bin, ref, len(gotDump), len(wantDump))
	}
	t.Logf("zk image -o json (%d bytes) and zk dump (%d bytes) identical to %s's", len(got), len(gotDump), ref)
}

// zkRow says whether KMETA_BENCH_ZK_ROWS (a comma-separated list; empty:
// all) selects a group of rows: "read" (the ceilings and kmeta's default
// read, which are measured together), "multiread" (the same without the
// one-getData-per-znode ceiling, which takes most of the row's time: the
// multiRead ceiling and kmeta alone), "settings" (other in-flight and
// connection settings), "kafka" (Kafka 3.9.2's migration read; it starts a
// KRaft controller and a broker).
func zkRow(name string) bool {
	rows := os.Getenv("KMETA_BENCH_ZK_ROWS")
	return rows == "" || slices.Contains(strings.Split(rows, ","), name)
}

func medianDur(ds []time.Duration) string {
	return fmt.Sprintf("%.2fs", durs(ds).med.Seconds())
}

// selfCPU is this process's CPU time so far (user+sys).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the CPU time (user+sys) of the process whose /proc directory
// is dir so far, 0 when unknown.
func procCPU(dir string) time.Duration {
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if dir == "" || err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is the first, utime and stime the 12th and 13th.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	// USER_HZ is 100 on every Linux kmeta's benchmark runs on.
	return time.Duration(u+k) * 10 * time.Millisecond
}

// procOf returns the /proc directory of the process whose command line
// names arg (a node's unique config path), "" when none is found.
func procOf(arg string) string {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(arg)) {
			return filepath.Dir(p)
		}
	}
	return ""
}

// peakRSSOf returns the peak RSS (VmHWM, KiB) of the process whose command
// line names arg, 0 when none is found.
func peakRSSOf(arg string) int64 {
	dir := procOf(arg)
	if dir == "" {
		return 0
	}
	return peakrss.VmHWM(filepath.Join(dir, "status"))
}

// kafkaMigration is what Kafka 3.9.2's own migration of a ZooKeeper
// layout reported.
type kafkaMigration struct {
	wall        time.Duration // the controller's "generated in M ms"
	rss         int64         // KiB, the controller JVM's peak over its life
	records     int
	batches     int
	metadataDir string
}

// kafkaMigrateZK runs Kafka 3.9.2's own ZooKeeper to KRaft migration of
// the layout writeZKLayout put into zks and returns the figures its
// controller logs. The ZooKeeper-mode broker is killed as soon as the
// migration completed (dual-write would have it create every partition);
// the controller keeps running until the test ends.
func kafkaMigrateZK(t *testing.T, d *kafkatest.Distribution, zks *kafkatest.ZooKeeper, clusterID string, topics, parts int) kafkaMigration {
	t.Helper()
	// Kafka's own read: a KRaft controller with migration enabled and one
	// ZooKeeper-mode broker with migration enabled (kafka-metadata.md §6.1).
	c := kafkatest.NewCluster(t, d)
	c.ClusterID = clusterID
	ports, err := kafkatest.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	ctrl := c.AddNode(zkBenchController, "controller", map[string]string{
		"process.roles":                       "controller",
		"node.id":                             strconv.Itoa(zkBenchController),
		"controller.quorum.voters":            fmt.Sprintf("%d@127.0.0.1:%d", zkBenchController, ports[0]),
		"controller.listener.names":           "CONTROLLER",
		"listeners":                           fmt.Sprintf("CONTROLLER://127.0.0.1:%d", ports[0]),
		"listener.security.protocol.map":      "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"inter.broker.listener.name":          "PLAINTEXT",
		"zookeeper.metadata.migration.enable": "true",
		"zookeeper.connect":                   zks.Connect(zkBenchChroot),
		"zookeeper.session.timeout.ms":        "30000",
		"zookeeper.connection.timeout.ms":     "30000",
		// No snapshot in the middle of the measured migration.
		"metadata.log.max.record.bytes.between.snapshots": "1073741824",
	})
	c.AddNode(zkBenchBroker, "", map[string]string{
		"broker.id":                           strconv.Itoa(zkBenchBroker),
		"listeners":                           fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", ports[1]),
		"advertised.listeners":                fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", ports[1]),
		"listener.security.protocol.map":      "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"inter.broker.listener.name":          "PLAINTEXT",
		"inter.broker.protocol.version":       "3.9",
		"zookeeper.connect":                   zks.Connect(zkBenchChroot),
		"zookeeper.session.timeout.ms":        "30000",
		"zookeeper.connection.timeout.ms":     "30000",
		"zookeeper.metadata.migration.enable": "true",
		"controller.quorum.voters":            fmt.Sprintf("%d@127.0.0.1:%d", zkBenchController, ports[0]),
		"controller.listener.names":           "CONTROLLER",
		"offsets.topic.replication.factor":    "1",
		"auto.create.topics.enable":           "false",
	})
	// Both run as kafka-server-start.sh runs them (kafkaServerJVMOpts).
	ctrl.JVMOpts = kafkaServerJVMOpts
	c.Node(zkBenchBroker).JVMOpts = kafkaServerJVMOpts
	c.FormatNode(zkBenchController, "--release-version", "3.9-IV0")
	c.StartNode(zkBenchController)
	c.StartNode(zkBenchBroker)
	deadline := time.Now().Add(20 * time.Minute)
	var m []string
	for m == nil {
		b, _ := os.ReadFile(ctrl.LogPath())
		m = migrationDoneRE.FindStringSubmatch(string(b))
		if m != nil {
			break
		}
		if !ctrl.Running() {
			t.Fatalf("the KRaft controller exited before completing the migration; see %s", ctrl.LogPath())
		}
		if time.Now().After(deadline) {
			t.Fatalf("no completed migration after 20 minutes; see %s", ctrl.LogPath())
		}
		time.Sleep(500 * time.Millisecond)
	}
	rss := peakRSSOf(ctrl.Config)
	// The migration is done; the dual-write phase that follows would have
	// the broker create 100,000 partitions. Stop it now.
	c.KillNode(zkBenchBroker)
	records, _ := strconv.Atoi(m[1])
	ms, _ := strconv.Atoi(m[2])
	batches, _ := strconv.Atoi(m[3])
	if records < topics*(parts+1) {
		t.Errorf("Kafka's migration generated %d records, fewer than %d topics and partitions", records, topics*(parts+1))
	}
	return kafkaMigration{wall: time.Duration(ms) * time.Millisecond, rss: rss, records: records, batches: batches,
		metadataDir: c.MetadataLogDir(zkBenchController)}
}
