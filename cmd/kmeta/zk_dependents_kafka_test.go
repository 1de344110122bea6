package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkdeps"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// TestZKDependentsKafka is issue 34's proof on real ZooKeeper and Kafka
// 3.9.2, one ensemble and one broker started once, every case a subtest:
// a Kafka cluster under /kafka, another system's tree (HBase's shape,
// written with ZooKeeper's own CLI, and Cruise Control's failed-broker
// list inside Kafka's chroot), an old-consumer-style session that keeps
// committing offsets under /consumers, and an admin write by Kafka's own
// kafka-configs --zookeeper. zk dependents names each: live with cons
// refused (it says what it could not check and which setting allows
// it), live with cons allowed (the consumer's address), then from the
// data dir (every session with what it wrote), and from a copy whose log
// is torn (named; never safe). The broker's own writes (a topic config
// altered through the admin API writes /config/changes from the broker's
// session) are never listed.
func TestZKDependentsKafka(t *testing.T) {
	kafkatest.Concurrently(t)
	recordTranscript(t, "zk-dependents")
	start := time.Now()
	defer func() { t.Logf("TestZKDependentsKafka took %s", time.Since(start).Round(time.Millisecond)) }()
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	kc := kafkatest.StartZKCluster(t, d, zk, kafkatest.ZKClusterOptions{Brokers: 1, Chroot: "/kafka"})
	ctx := context.Background()

	// Kafka's own writes: a topic, and a config change the broker makes
	// (it writes /config/topics/orders and /config/changes/config_change_N
	// from its own session).
	adm := kc.Admin(t)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	rs, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("86400000")}}, "orders")
	if err == nil {
		_, err = rs.On("orders", nil)
	}
	if err != nil {
		t.Fatal(err)
	}

	// Another system's tree, in HBase's shape, and Cruise Control's
	// failed-broker list under Kafka's chroot, with ZooKeeper's CLI (one
	// session, commands on stdin, closed by quit).
	hbase := []string{"/hbase", "/hbase/hbaseid", "/hbase/running", "/hbase/rs", "/hbase/table", "/hbase/table/hbase:meta",
		"/hbase/namespace", "/hbase/namespace/default", "/hbase/meta-region-server"}
	var script strings.Builder
	for _, p := range hbase {
		fmt.Fprintf(&script, "create %s %s\n", p, strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "."))
	}
	script.WriteString("create /kafka/CruiseControlBrokerList {}\nquit\n")
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	cli := d.Command(cctx, d.Tools.ZooKeeperShell, "-server", zk.Addr())
	cli.Stdin = strings.NewReader(script.String())
	out, err := cli.CombinedOutput()
	cancel()
	if err != nil || strings.Contains(string(out), "Exception") {
		t.Fatalf("ZooKeeper's CLI: %v\n%s", err, out)
	}

	// An admin write from a session that is not a broker's: Kafka's own
	// kafka-configs --zookeeper (SCRAM credentials, the one use 3.x keeps).
	d.MustRun(t, d.Tools.Configs, "--zookeeper", zk.Connect("/kafka"), "--alter", "--entity-type", "users", "--entity-name", "legacy-admin",
		"--add-config", "SCRAM-SHA-256=[iterations=4096,password=legacy-secret]")

	// An old consumer: it registers (ephemeral ids/ and owners/ znodes,
	// as the Scala consumer did) and commits its offset to ZooKeeper
	// every 200 ms until the test ends.
	consumer, events, err := gozk.Connect([]string{zk.Addr()}, 30*time.Second, gozk.WithLogger(quietZK{}))
	if err != nil {
		t.Fatal(err)
	}
	waitSession(t, events)
	consumerID := consumer.SessionID()
	group := "/kafka/consumers/legacy-group"
	for _, p := range []string{group, group + "/ids", group + "/owners", group + "/owners/orders", group + "/offsets", group + "/offsets/orders"} {
		if _, err := consumer.Create(p, nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	for p, data := range map[string]string{
		group + "/ids/legacy-consumer-1": `{"version":1,"subscription":{"orders":1},"pattern":"static","timestamp":"1700000000000"}`,
		group + "/owners/orders/0":       "legacy-consumer-1-0",
		group + "/offsets/orders/0":      "0",
	} {
		flags := int32(gozk.FlagEphemeral)
		if strings.Contains(p, "/offsets/") {
			flags = 0
		}
		if _, err := consumer.Create(p, []byte(data), flags, gozk.WorldACL(gozk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	stop := make(chan struct{})
	var commits sync.WaitGroup
	commits.Go(func() {
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			// Errors while ZooKeeper restarts are expected: the client
			// reconnects with the same session.
			_, _ = consumer.Set(group+"/offsets/orders/0", []byte(strconv.Itoa(n)), -1)
		}
	})
	stopCommits := sync.OnceFunc(func() { close(stop); commits.Wait() })
	t.Cleanup(func() { stopCommits(); consumer.Close() })

	brokerID := ephemeralOwner(t, zk.Addr(), "/kafka/brokers/ids/1")
	src := "zk://" + zk.Connect("/kafka")
	adminPort := strconv.Itoa(freePort(t)) // nothing listens there: no AdminServer
	wantData := map[string]string{
		"/hbase":                         "zk-foreign-data Apache HBase",
		"/kafka/CruiseControlBrokerList": "zk-foreign-data Cruise Control (failed broker list)",
		group:                            "zk-old-consumer-offsets an old ZooKeeper-based consumer (Kafka's Scala consumer, removed in Kafka 2.0)",
	}
	wantKafka := []string{sid(brokerID) + " broker 1"}

	t.Run("live, cons refused", func(t *testing.T) {
		r := runDependents(t, 1, src, "--zk-admin-port", adminPort)
		checkData(t, r, wantData, map[string]int{"/hbase": len(hbase), "/kafka/CruiseControlBrokerList": 1, group: 9})
		checkSessions(t, r, map[string]string{sid(consumerID): zkdeps.CodeSessionOpen})
		checkKafka(t, r, wantKafka)
		checkCodes(t, r, zkdeps.CodeForeignData, zkdeps.CodeForeignData, zkdeps.CodeKafkaConnected, zkdeps.CodeOldConsumerOffsets, zkdeps.CodeSessionOpen)
		c := sessionDep(r, sid(consumerID))
		if len(c.Addresses) != 0 || !slices.ContainsFunc(c.Evidence, func(e string) bool {
			return strings.Contains(e, group+"/ids/legacy-consumer-1") && strings.Contains(e, group+"/owners/orders/0")
		}) {
			t.Errorf("the consumer's session: want its two ephemerals as evidence and no address, got %+v", c)
		}
		// What it could not check, and how to allow it.
		if len(r.NotChecked) != 2 || !strings.Contains(r.NotChecked[0], "the clients connected to "+zk.Addr()) ||
			!strings.Contains(r.NotChecked[0], "4lw.commands.whitelist") || !strings.Contains(r.NotChecked[0], "admin.enableServer") ||
			!strings.Contains(r.NotChecked[0], "cons is not executed because it is not in the whitelist") ||
			!strings.HasPrefix(r.NotChecked[1], "who wrote Kafka's znodes") {
			t.Errorf("not checked: %q", r.NotChecked)
		}
		if len(r.Checked) != 2 {
			t.Errorf("checked: %q", r.Checked)
		}
	})

	// cons allowed: ZooKeeper restarts on the same data with cons in its
	// whitelist; the broker and the consumer reconnect to their sessions.
	cfg, err := os.ReadFile(zk.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zk.Config, []byte(strings.Replace(string(cfg), "4lw.commands.whitelist=", "4lw.commands.whitelist=cons,", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	zk.Restart()
	waitConnected(t, zk.Addr(), brokerID, consumerID)

	t.Run("live, cons allowed", func(t *testing.T) {
		r := runDependents(t, 1, src, "--zk-admin-port", adminPort)
		checkData(t, r, wantData, nil)
		checkSessions(t, r, map[string]string{sid(consumerID): zkdeps.CodeSessionOpen})
		checkKafka(t, r, wantKafka)
		c := sessionDep(r, sid(consumerID))
		if len(c.Addresses) != 1 || !strings.HasPrefix(c.Addresses[0], "127.0.0.1:") ||
			!slices.ContainsFunc(c.Evidence, func(e string) bool { return strings.HasPrefix(e, "connected to "+zk.Addr()+" from 127.0.0.1:") }) {
			t.Errorf("the consumer's session: want its address from cons, got %+v", c)
		}
		want := "the clients connected to " + zk.Addr() + " (cons): 2 sessions"
		if !slices.Contains(r.Checked, want) {
			t.Errorf("checked %q lacks %q", r.Checked, want)
		}
		if len(r.NotChecked) != 1 || !strings.HasPrefix(r.NotChecked[0], "who wrote Kafka's znodes") {
			t.Errorf("not checked: %q", r.NotChecked)
		}
		// The text form says the same.
		text, _, code := kmetaRun(t, "zk", "dependents", src, "--zk-admin-port", adminPort)
		if code != 1 || !strings.HasPrefix(text, "not safe to stop: 3 trees of data that are not Kafka's and 1 session that is not Kafka's still use this ensemble; Kafka itself still does too (1 session open)\n") {
			t.Errorf("text (exit %d):\n%s", code, text)
		}
		// The old consumer group's fix runs as printed, the bootstrap
		// filled in (the one word kmeta cannot know): Kafka then holds, as
		// the group's committed offset, the offset ZooKeeper held for it
		// when kmeta read it. The topic holds more records than the
		// consumer has committed, so Kafka's range check keeps it.
		var fix string
		for _, dep := range r.Dependents {
			if dep.Code == zkdeps.CodeOldConsumerOffsets {
				fix = dep.Fix
			}
		}
		begin, end := strings.Index(fix, "printf "), strings.Index(fix, " --execute")
		m := regexp.MustCompile(`printf '%s\\n' orders,0,(\d+) > legacy-group\.offsets\.csv && `).FindStringSubmatch(fix)
		if begin < 0 || end < 0 || m == nil {
			t.Fatalf("the old consumer's fix: %q", fix)
		}
		recs := make([]*kgo.Record, 1000)
		for i := range recs {
			recs[i] = &kgo.Record{Topic: "orders", Value: []byte("r")}
		}
		if err := kc.Client(t).ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		line := strings.Replace(fix[begin:end+len(" --execute")], "BOOTSTRAP", kc.BootstrapServers(), 1)
		d.Shell(t).OK(line)
		offs, err := adm.FetchOffsets(ctx, "legacy-group")
		at, _ := strconv.ParseInt(m[1], 10, 64)
		if o, ok := offs.Lookup("orders", 0); err != nil || !ok || o.At != at {
			t.Errorf("legacy-group's offset in Kafka after %s: %+v (%v), want %d", line, o, err, at)
		}
	})

	// From the data dir afterwards: ZooKeeper stops while the broker and
	// the consumer still hold their sessions.
	time.Sleep(time.Second) // a few more commits after the restart
	zk.Stop()
	stopCommits()

	t.Run("data dir", func(t *testing.T) {
		r := runDependents(t, 1, "zkdata:"+zk.DataDir)
		checkData(t, r, wantData, map[string]int{"/hbase": len(hbase), "/kafka/CruiseControlBrokerList": 1, group: 9})
		checkKafka(t, r, wantKafka)
		// Every session that is not Kafka's, by what it wrote.
		got := map[string][]string{}
		for _, dep := range r.Dependents {
			if dep.Kind != "session" {
				continue
			}
			var paths []string
			for _, w := range dep.Writes {
				paths = append(paths, w.Path)
			}
			key := dep.Code
			if dep.Session == sid(consumerID) {
				key += " consumer"
				if !dep.Open {
					t.Errorf("the consumer's session is not open in the session table")
				}
			}
			got[key] = paths
		}
		want := map[string][]string{
			zkdeps.CodeSessionConsumerWrite + " consumer": {group},
			zkdeps.CodeSessionOtherWrites:                 {"/hbase", "/kafka/CruiseControlBrokerList"},
			zkdeps.CodeSessionKafkaWrites:                 {"/kafka/config/changes", "/kafka/config/users"},
		}
		if !mapsEqual(got, want) {
			t.Errorf("sessions by what they wrote: got %q, want %q", got, want)
		}
		c := sessionDep(r, sid(consumerID))
		if len(c.Writes) != 1 || c.Writes[0].Count < 10 || !slices.Contains(c.Writes[0].Ops, "setData") {
			t.Errorf("the consumer's commits: %+v", c.Writes)
		}
		checkCodes(t, r, zkdeps.CodeForeignData, zkdeps.CodeForeignData, zkdeps.CodeKafkaConnected, zkdeps.CodeOldConsumerOffsets,
			zkdeps.CodeSessionConsumerWrite, zkdeps.CodeSessionKafkaWrites, zkdeps.CodeSessionOtherWrites)
		if len(r.Damaged) != 0 {
			t.Errorf("damaged: %v", r.Damaged)
		}
	})

	t.Run("data dir with a torn log", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(zk.DataDir)); err != nil {
			t.Fatal(err)
		}
		torn := tearLastLog(t, filepath.Join(dir, "version-2"))
		out, stderr, code := kmetaRun(t, "zk", "dependents", "-o", "json", "zkdata:"+dir)
		if code != 1 {
			t.Fatalf("exit %d, want 1 (dependents found):\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "warning: "+model.WarnTornTail) || !strings.Contains(stderr, torn) {
			t.Errorf("the torn log is not named: %s", stderr)
		}
		var r zkdeps.Result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.SafeToStop || len(r.Damaged) != 1 || r.Damaged[0].Where == nil || r.Damaged[0].Where.File != torn ||
			!strings.HasSuffix(r.Verdict, "the history is damaged, so what it hides is unknown") ||
			!slices.ContainsFunc(r.Findings, func(f model.Finding) bool { return f.Code == zkdeps.CodeHistoryDamaged }) {
			t.Errorf("torn log %s: safe %v, damaged %v, verdict %q", torn, r.SafeToStop, r.Damaged, r.Verdict)
		}
		checkData(t, &r, wantData, nil)
	})
}

// runDependents runs zk dependents -o json and checks its exit code.
func runDependents(t *testing.T, wantCode int, args ...string) *zkdeps.Result {
	t.Helper()
	out, stderr, code := kmetaRun(t, append([]string{"zk", "dependents", "-o", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("zk dependents %s: exit %d, want %d:\n%s\n%s", strings.Join(args, " "), code, wantCode, stderr, out)
	}
	var r zkdeps.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	t.Logf("zk dependents %s: %s", strings.Join(args, " "), r.Verdict)
	return &r
}

// checkData checks the data dependents: exactly want (path → code and
// owner) and, where counts names one, the group's znode count.
func checkData(t *testing.T, r *zkdeps.Result, want map[string]string, counts map[string]int) {
	t.Helper()
	got := map[string]string{}
	for _, d := range r.Dependents {
		if d.Kind == "data" {
			got[d.Path] = d.Code + " " + d.Owner
			if n, ok := counts[d.Path]; ok && d.Znodes != n {
				t.Errorf("%s: %d znodes, want %d", d.Path, d.Znodes, n)
			}
			if d.LastMzxid == 0 || d.LastModified.IsZero() {
				t.Errorf("%s: no last modification (%d, %s)", d.Path, d.LastMzxid, d.LastModified)
			}
		}
	}
	if !mapsEqual(got, want) {
		t.Errorf("data dependents: got %q, want %q", got, want)
	}
}

// checkSessions checks the session dependents: exactly want (id → code).
func checkSessions(t *testing.T, r *zkdeps.Result, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, d := range r.Dependents {
		if d.Kind == "session" {
			got[d.Session] = d.Code
		}
	}
	if !mapsEqual(got, want) {
		t.Errorf("session dependents: got %q, want %q", got, want)
	}
}

// checkKafka checks the sessions recognised as Kafka's (id and role).
func checkKafka(t *testing.T, r *zkdeps.Result, want []string) {
	t.Helper()
	var got []string
	for _, k := range r.Kafka {
		got = append(got, k.Session+" "+k.Role)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Kafka's sessions: got %q, want %q", got, want)
	}
}

// checkCodes checks the findings' codes, sorted.
func checkCodes(t *testing.T, r *zkdeps.Result, want ...string) {
	t.Helper()
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Code)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("finding codes: got %q, want %q", got, want)
	}
}

func sessionDep(r *zkdeps.Result, id string) zkdeps.Dependent {
	for _, d := range r.Dependents {
		if d.Session == id {
			return d
		}
	}
	return zkdeps.Dependent{}
}

func mapsEqual[V any](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || fmt.Sprint(v) != fmt.Sprint(w) {
			return false
		}
	}
	return true
}

func sid(id int64) string { return fmt.Sprintf("0x%x", uint64(id)) }

// waitSession waits until a go-zookeeper connection has its session.
func waitSession(t *testing.T, events <-chan gozk.Event) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e := <-events:
			if e.State == gozk.StateHasSession {
				// Drain the channel from now on: go-zookeeper blocks on
				// a full one.
				go func() {
					for range events {
					}
				}()
				return
			}
		case <-timeout:
			t.Fatal("no ZooKeeper session within 30 s")
		}
	}
}

// ephemeralOwner is the session that owns an ephemeral znode.
func ephemeralOwner(t *testing.T, addr, path string) int64 {
	t.Helper()
	conn, _, err := gozk.Connect([]string{addr}, 10*time.Second, gozk.WithLogger(quietZK{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, st, err := conn.Get(path)
	if err != nil || st.EphemeralOwner == 0 {
		t.Fatalf("%s: %v (owner %d)", path, err, st.EphemeralOwner)
	}
	return st.EphemeralOwner
}

// waitConnected waits until ZooKeeper's cons lists every session of ids.
func waitConnected(t *testing.T, addr string, ids ...int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		out, err := fourLetters(addr, "cons")
		missing := 0
		for _, id := range ids {
			if !strings.Contains(out, fmt.Sprintf("sid=0x%x,", uint64(id))) {
				missing++
			}
		}
		if err == nil && missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions %x not connected again after a minute (%v):\n%s", ids, err, out)
		}
	}
}

// fourLetters asks ZooKeeper a four-letter word (the test's own client,
// not kmeta's).
func fourLetters(addr, cmd string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(cmd)); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	return string(b), err
}

// tearLastLog cuts the newest transaction log in the middle of its last
// entry, as a crash during a write leaves it, and returns its path.
func tearLastLog(t *testing.T, dir string) string {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "log.*"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no log in %s: %v", dir, err)
	}
	sort.Slice(logs, func(i, j int) bool {
		a, _ := zkfile.ZxidFromName(logs[i])
		b, _ := zkfile.ZxidFromName(logs[j])
		return a < b
	})
	last := logs[len(logs)-1]
	l, err := zkfile.OpenTxnLog(last, 0)
	if err != nil {
		t.Fatal(err)
	}
	var at int64 = -1
	for {
		txn, err := l.Next()
		if err != nil {
			break
		}
		at = txn.Offset
	}
	l.Close()
	if at < 0 {
		t.Fatalf("%s holds no transaction", last)
	}
	if err := os.Truncate(last, at+14); err != nil {
		t.Fatal(err)
	}
	return last
}
