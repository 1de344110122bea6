package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// Shape of the live cluster: 1,000 topics x 100 partitions over seven
// brokers (replication factor 1), a config on every tenth topic and
// a few ACLs, so that every peer has something to print.
const (
	liveBenchTopics     = 1000
	liveBenchPartitions = 100
)

// TestBenchLive reads a running Kafka 4.4.0 cluster holding 100,000
// partitions (1 controller, 7 brokers) with `kmeta image -o json kafka://` and, in the same run,
// with what an operator runs today for the same facts, each as Kafka's
// scripts run it: kafka-topics --describe, kafka-configs --describe --all
// for topics and for brokers, and kafka-acls --list. kmeta's one command
// is set against the sum of the four (an operator needs all of them) and
// against each. Timings are reported, never asserted; the test fails only
// when a tool does not print the whole cluster.
//
// KMETA_BENCH_LIVE_TOPICS and KMETA_BENCH_LIVE_PARTITIONS change the
// shape; KMETA_BENCH_SCALE=small uses 100 topics.
func TestBenchLive(t *testing.T) {
	if os.Getenv("KMETA_BENCH") == "" {
		t.Skip("benchmark: run with `make bench` (KMETA_BENCH=1)")
	}
	d := kafkatest.Dist(t, kafkatest.Latest4)
	bin := kmetaBin(t)
	defTopics := liveBenchTopics
	if smallScale() {
		defTopics = liveBenchTopics / 10
	}
	topics := benchEnvInt("KMETA_BENCH_LIVE_TOPICS", defTopics)
	parts := benchEnvInt("KMETA_BENCH_LIVE_PARTITIONS", liveBenchPartitions)

	// Kafka keeps a file open per partition, and a broker here may open
	// 20,000 files at most (a container's hard limit that not even root
	// may raise): seven brokers hold about 14,300 partitions each.
	brokers := benchEnvInt("KMETA_BENCH_LIVE_BROKERS", 7)
	raiseFileLimit(t, 2*topics*parts/brokers)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{
		Controllers: 1,
		Brokers:     brokers,
		// Partitions need more than the harness's small heap.
		JVM: []string{"-Xmx1g"},
		// ACLs for kafka-acls to list (the PLAINTEXT listener's
		// ANONYMOUS user stays a super user).
		Authorizer: true,
		Props: map[string]string{
			// Small index files: the broker preallocates one per partition.
			"log.index.size.max.bytes": "65536",
			"log.segment.bytes":        "1048576",
		},
	})
	adm := c.Admin(t)
	start := time.Now()
	createBenchTopics(t, adm, topics, parts)
	t.Logf("created %d topics x %d partitions in %s", topics, parts, time.Since(start).Round(time.Millisecond))

	boot := c.BootstrapServers()
	want := topics * parts
	tb := &table{title: fmt.Sprintf("kmeta make bench, live: Kafka %s, 1 controller and %d brokers, %d topics x %d partitions", d.Version, brokers, topics, parts)}

	kmeta := func() *exec.Cmd { return exec.Command(bin, "image", "-o", "json", "kafka://"+boot) }
	checkKmeta := func(r run) {
		if r.count != int64(want) {
			t.Fatalf("kmeta image printed %d partitions, want %d", r.count, want)
		}
	}
	// A first read warms the broker for everyone; its output is checked
	// whole once.
	checkImage(t, kmeta(), topics, want)

	tools := []struct {
		name, class, marker string
		args                []string
		want                int64
	}{
		{"kafka-topics --describe", d.Tools.Topics, "\tPartition: ", []string{"--bootstrap-server", boot, "--describe"}, int64(want)},
		{"kafka-configs --describe --all --entity-type topics", d.Tools.Configs, "All configs for topic ", []string{"--bootstrap-server", boot, "--describe", "--all", "--entity-type", "topics"}, int64(topics)},
		{"kafka-configs --describe --all --entity-type brokers", d.Tools.Configs, "All configs for broker ", []string{"--bootstrap-server", boot, "--describe", "--all", "--entity-type", "brokers"}, 1},
		{"kafka-acls --list", d.Tools.Acls, "Current ACLs for resource", []string{"--bootstrap-server", boot, "--list"}, 1},
	}
	// Rows alternate kmeta and the tools run by run, so that all see the
	// same machine load.
	var km []run
	peer := make([][]run, len(tools))
	var sum []run
	for range benchRuns() {
		r := runProc(t, kmeta(), `"partition":`)
		checkKmeta(r)
		km = append(km, r)
		var total run
		for i, tl := range tools {
			pr := runProc(t, kafkaScriptCommand(t, d, tl.class, tl.args...), tl.marker)
			if pr.count < tl.want {
				out, _ := kafkaScriptCommand(t, d, tl.class, tl.args...).CombinedOutput()
				t.Fatalf("%s printed %d of %q, want %d; it printed:\n%s", tl.name, pr.count, tl.marker, tl.want, tail(string(out)))
			}
			peer[i] = append(peer[i], pr)
			total.wall += pr.wall
			total.maxRSS = max(total.maxRSS, pr.maxRSS)
		}
		sum = append(sum, total)
	}
	ks := stats(km)
	ss := stats(sum)
	tb.add("the four Kafka tools, one after the other", ss, 0, "", nil, "what an operator runs today for the same facts; peak RSS is the largest of the four")
	tb.add("kmeta image -o json kafka://", ks, 0, "the four Kafka tools", &ss, fmt.Sprintf("%d partitions, configs, ACLs, quotas, SCRAM users, features", want))
	for i, tl := range tools {
		ps := stats(peer[i])
		tb.add(tl.name, ps, 0, "", nil, "as kafka-run-class.sh runs it")
		tb.add("kmeta image vs "+tl.name, ks, 0, tl.name, &ps, "")
	}
	t.Log("\n" + tb.String())
	fmt.Println(tb.String())
}

// createBenchTopics creates topics bench.topic-NNNN with parts partitions
// each, fifty topics per request, and a retention config on every tenth.
func createBenchTopics(t *testing.T, adm *kadm.Client, topics, parts int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	const perRequest = 50
	for start := 0; start < topics; start += perRequest {
		var names []string
		for i := start; i < min(start+perRequest, topics); i++ {
			names = append(names, fmt.Sprintf("bench.topic-%04d", i))
		}
		rs, err := adm.CreateTopics(ctx, int32(parts), 1, nil, names...)
		if err != nil {
			t.Fatalf("create topics from %d: %v", start, err)
		}
		if err := rs.Error(); err != nil {
			t.Fatalf("create topics from %d: %v", start, err)
		}
	}
	retention := "86400000"
	var alter []kadm.AlterConfig
	var names []string
	for i := 0; i < topics; i += 10 {
		names = append(names, fmt.Sprintf("bench.topic-%04d", i))
	}
	alter = append(alter, kadm.AlterConfig{Name: "retention.ms", Value: &retention})
	rs, err := adm.AlterTopicConfigs(ctx, alter, names...)
	if err != nil {
		t.Fatalf("alter topic configs: %v", err)
	}
	for _, r := range rs {
		if r.Err != nil {
			t.Fatalf("alter %s: %v", r.Name, r.Err)
		}
	}
	acl := kadm.NewACLs().Allow("User:bench").Topics("bench.").ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpRead, kadm.OpDescribe).AllowHosts("*")
	// CreateTopics answers once the controller committed; the broker
	// applies the records a moment later. Measure only a settled cluster.
	for {
		td, err := adm.ListTopics(ctx)
		if err == nil {
			n := 0
			for _, d := range td {
				n += len(d.Partitions)
			}
			if len(td) >= topics && n >= topics*parts {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("the broker never showed %d topics: %v", topics, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	res, err := adm.CreateACLs(ctx, acl)
	if err != nil {
		t.Fatalf("create ACLs: %v", err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("create ACL %s: %v", r.Name, r.Err)
		}
	}
	// The broker's authorizer applies the ACL after the partitions the
	// broker is still creating (one metadata publisher): wait until it
	// answers with it, so that every tool sees the same cluster.
	for {
		rs, err := adm.DescribeACLs(ctx, acl)
		if err == nil && len(rs) > 0 && len(rs[0].Described) > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the broker never listed the ACL: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkImage runs kmeta's image once and checks the JSON holds every topic
// and partition.
func checkImage(t *testing.T, cmd *exec.Cmd, topics, parts int) {
	t.Helper()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	var img struct {
		Topics []struct {
			Partitions []json.RawMessage `json:"partitions"`
		} `json:"topics"`
	}
	if err := json.Unmarshal(out.Bytes(), &img); err != nil {
		t.Fatalf("kmeta output: %v", err)
	}
	n := 0
	for _, tp := range img.Topics {
		n += len(tp.Partitions)
	}
	if len(img.Topics) < topics || n < parts {
		t.Fatalf("kmeta image: %d topics, %d partitions; want %d, %d", len(img.Topics), n, topics, parts)
	}
}

// raiseFileLimit lifts the open-file limit the broker inherits: Kafka
// keeps a file open per partition segment, so 100,000 partitions on one
// broker need more than a shell's usual limit (as a production broker's
// limits.conf gives it). Raising the hard limit needs root; without it
// the soft limit goes as high as the hard one allows and the test says so.
func raiseFileLimit(t *testing.T, want int) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= uint64(want) {
		return
	}
	next := syscall.Rlimit{Cur: uint64(want), Max: max(lim.Max, uint64(want))}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &next); err != nil {
		next = syscall.Rlimit{Cur: lim.Max, Max: lim.Max}
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &next)
		t.Logf("open files limited to %d (%v): a broker may fail to open %d partitions", lim.Max, err, want/2)
	}
}
