package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/roll"
)

// The roll gates against real Kafka. Three brokers, topics of replication
// factor 3 with min.insync.replicas=2 set once as a topic config
// (roll.topic) and once only in the brokers' server.properties
// (roll.static), a topic whose own config lowers it to 1 (roll.one), and
// the consumer offsets topic (internal, min ISR 2 from the files too).
// The oracle is an acks=all producer: Kafka answers NOT_ENOUGH_REPLICAS
// exactly while a partition's ISR is under its min ISR. Each case asks
// roll check, stops the broker anyway, and compares the partitions kmeta
// said would block with those Kafka refuses; roll wait must return only
// once the broker is back in every ISR (Kafka's kafka-topics
// --under-replicated-partitions, and the admin API's ISRs at the moment it
// returns).
func TestRollKRaftKafka(t *testing.T) {
	kafkatest.Concurrently(t, 200*time.Second) // make test, 2026-12-06
	start := time.Now()
	d := kafkatest.Dist(t, kafkatest.Latest4)
	// Eligible leader replicas off (4.1+ formats them on): with them on,
	// the controller writes a cluster-level min.insync.replicas (its own
	// value) that hides the brokers' files; the "ELR on" case below
	// turns them on and shows kmeta and Kafka agree on that too.
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 3, Brokers: 3, IdleInterval: time.Hour,
		Features:    []string{"eligible.leader.replicas.version=0"},
		BrokerProps: map[string]string{"min.insync.replicas": "2"}})
	ctx := context.Background()
	if _, err := c.WaitQuorum(ctx, 2*time.Minute, c.Controllers()...); err != nil {
		t.Fatal(err)
	}
	// Until the live source reports static configs, the brokers' files
	// are passed as an operator passes them.
	src := append([]string{"--bootstrap-server", c.BootstrapServers()}, configFlags(c)...)
	l := newRollLab(t, c, src)
	t.Logf("cluster up in %s", time.Since(start).Round(time.Second))
	recordTranscript(t, "roll")
	// The runbook's view (docs/runbooks/roll-a-cluster.md), in text: the
	// order of a rolling restart of the brokers, and a check with every
	// broker up (safe).
	for _, args := range [][]string{
		append([]string{"roll", "plan", "--all-brokers"}, src...),
		append([]string{"roll", "check", "--node", "1"}, src...),
	} {
		if r := kmetaOf(t, args...); r.code != exitOK {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	l.brokerCases()

	// ELR on: the controller writes min.insync.replicas=1 as the
	// cluster-level value (a dynamic cluster default, above the brokers'
	// files): roll.static and the offsets topic stop blocking, and Kafka
	// stops refusing them.
	if _, _, err := d.Run(ctx, d.Tools.Features, "--bootstrap-server", c.BootstrapServers(), "upgrade", "--feature", "eligible.leader.replicas.version=1"); err != nil {
		t.Fatal(err)
	}
	l.gated = gatedOf("roll.topic")
	l.oneDown("ELR on: the brokers' files no longer count, for kmeta as for Kafka")

	t.Run("controllers", func(t *testing.T) {
		l.t = t
		at := time.Now()
		ctl := []string{"--bootstrap-controller", c.BootstrapControllers()}
		q, err := c.DescribeQuorum(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var followers []int
		for _, id := range q.VoterIDs() {
			if id != q.LeaderID {
				followers = append(followers, id)
			}
		}
		// The plan: followers first, the leader last.
		r := kmetaOf(t, append([]string{"roll", "plan", "-o", "json", "--all-controllers"}, ctl...)...)
		var p report.RollPlanDoc
		if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || r.code != 0 {
			t.Fatalf("plan: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		var order []int
		for _, s := range p.Steps {
			order = append(order, int(s.Node))
		}
		if want := append(slices.Clone(followers), q.LeaderID); !reflect.DeepEqual(order, want) {
			t.Errorf("plan order %v, want %v (leader %d last)", order, want, q.LeaderID)
		}
		f1, f2 := followers[0], followers[1]
		if v, code := l.check(f1, ctl...); code != 0 || !v.Safe {
			t.Fatalf("check %d with every voter up: exit %d %+v", f1, code, v)
		}
		c.StopNode(f1)
		// Once the leader sees f1 behind (the fetch timeout), every
		// other voter is refused.
		var v roll.Verdict
		var code int
		deadline := time.Now().Add(time.Minute)
		for v, code = l.check(f2, ctl...); code != 1 && time.Now().Before(deadline); v, code = l.check(f2, ctl...) {
			time.Sleep(500 * time.Millisecond)
		}
		if code != 1 || len(v.Blocking) != 1 || v.Blocking[0].Rule != roll.CodeQuorumMajority || v.Blocking[0].Partition != nil {
			t.Fatalf("check %d with %d down: exit %d %+v", f2, f1, code, v)
		}
		if v, code := l.check(q.LeaderID, ctl...); code != 1 || !v.QuorumLeader || v.Blocking[0].Rule != roll.CodeQuorumMajority {
			t.Errorf("check the leader %d with %d down: exit %d %+v", q.LeaderID, f1, code, v)
		}
		// Stopped anyway, the quorum stops: a metadata write fails.
		c.StopNode(f2)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := l.adm.CreateTopic(wctx, 1, 1, nil, "roll.quorum-lost")
		cancel()
		if err == nil && resp.Err == nil {
			t.Errorf("a topic was created with two of three controllers down")
		}
		c.StartNodes(f1, f2)
		for _, id := range []int{f1, f2} {
			w := l.wait(id, ctl...)
			// kafka-metadata-quorum, a JVM, may time out on a loaded
			// machine: asked again for up to a minute.
			qs, err := c.DescribeQuorum(ctx)
			for deadline := time.Now().Add(time.Minute); err != nil && time.Now().Before(deadline); qs, err = c.DescribeQuorum(ctx) {
				time.Sleep(time.Second)
			}
			if err != nil {
				t.Fatal(err)
			}
			if st := qs.Replication[id]; st != "Follower" {
				t.Errorf("roll wait %d returned; kafka-metadata-quorum says %q", id, st)
			}
			t.Logf("controller %d back after %.1fs", id, w.Seconds)
		}
		t.Logf("controllers: %s", time.Since(at).Round(time.Second))
	})
	t.Logf("TestRollKRaftKafka: %s", time.Since(start).Round(time.Second))
}

// The same on ZooKeeper-mode 3.9.2, read from ZooKeeper (zk://), the
// brokers' files passed with --config; the broker holding /controller is
// restarted last.
func TestRollZooKeeperKafka(t *testing.T) {
	kafkatest.Concurrently(t)
	start := time.Now()
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	c := kafkatest.StartZKCluster(t, d, zk, kafkatest.ZKClusterOptions{Brokers: 3, Chroot: "/kafka",
		Props: map[string]string{"min.insync.replicas": "2"}})
	src := append([]string{"zk://" + zk.Connect("/kafka")}, configFlags(c)...)
	l := newRollLab(t, c, src)
	l.zk = true
	t.Logf("cluster up in %s", time.Since(start).Round(time.Second))

	t.Run("controller last", func(t *testing.T) {
		l.t = t
		md, err := l.adm.BrokerMetadata(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r := kmetaOf(t, append([]string{"roll", "plan", "-o", "json", "--all-brokers"}, src...)...)
		var p report.RollPlanDoc
		if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || r.code != 0 || len(p.Steps) != 3 {
			t.Fatalf("plan: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		if last := p.Steps[2]; int32(last.Node) != md.Controller || !last.ZKController {
			t.Errorf("plan ends with %+v; the controller is %d", last, md.Controller)
		}
		v, code := l.check(int(md.Controller))
		if code != 0 || !v.ZKController {
			t.Errorf("check the controller %d: exit %d %+v", md.Controller, code, v)
		}
	})
	l.t = t
	l.brokerCases()
	t.Logf("TestRollZooKeeperKafka: %s", time.Since(start).Round(time.Second))
}

// configFlags are --config ID=FILE for every broker's server.properties.
func configFlags(c *kafkatest.Cluster) []string {
	var out []string
	for _, id := range c.Brokers() {
		out = append(out, "--config", fmt.Sprintf("%d=%s", id, filepath.Join(c.Node(id).Dir, "server.properties")))
	}
	return out
}

// rollLab is one cluster the roll cases run on.
type rollLab struct {
	t   *testing.T
	c   *kafkatest.Cluster
	adm *kadm.Client
	src []string
	// zk: the source is ZooKeeper, whose ISRs the brokers' metadata
	// (what the admin API and kafka-topics show) follows a little later.
	zk bool
	// probed are the topics the acks=all probe produces to.
	probed []string
	// gated are the partitions that have min ISR 2 and replication 3.
	gated []string
}

var rollTopics = map[string]map[string]*string{
	"roll.topic":  {"min.insync.replicas": kadm.StringPtr("2")},
	"roll.static": nil,
	"roll.one":    {"min.insync.replicas": kadm.StringPtr("1")},
}

func newRollLab(t *testing.T, c *kafkatest.Cluster, src []string) *rollLab {
	l := &rollLab{t: t, c: c, adm: c.Admin(t), src: src}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range rollTopics {
			if !yield(k) {
				return
			}
		}
	}) {
		r, err := l.adm.CreateTopic(ctx, 3, 3, rollTopics[name], name)
		if err != nil || r.Err != nil {
			t.Fatalf("create %s: %v %v", name, err, r.Err)
		}
		l.probed = append(l.probed, name)
	}
	// The consumer offsets topic exists once a group commits.
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: "roll.topic", Partition: 0, At: 0})
	for deadline := time.Now().Add(40 * time.Second); ; {
		// The new topic reaches the group coordinator's metadata a little
		// after CreateTopics returns.
		r, err := l.adm.CommitOffsets(ctx, "kmeta-roll", offs)
		if err == nil && r.Error() == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("commit: %v %v", err, r.Error())
		}
		time.Sleep(500 * time.Millisecond)
	}
	l.gated = gatedOf("roll.topic", "roll.static", "__consumer_offsets")
	l.waitInSync()
	return l
}

// gatedOf are the partitions of topics (three each), sorted.
func gatedOf(topics ...string) []string {
	var out []string
	for _, tp := range topics {
		for p := range 3 {
			out = append(out, fmt.Sprintf("%s-%d", tp, p))
		}
	}
	slices.Sort(out)
	return out
}

// waitInSync waits until no partition is under-replicated (admin API).
func (l *rollLab) waitInSync() {
	l.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		under, err := l.underReplicated()
		if err == nil && len(under) == 0 {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("partitions not in sync after 2 minutes: %v %v", under, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// underReplicated lists, from the admin API, the partitions whose ISR is
// short, "topic-N isr=[...]".
func (l *rollLab) underReplicated() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	md, err := l.adm.Metadata(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range md.Topics.Sorted() {
		for _, p := range t.Partitions.Sorted() {
			if len(p.ISR) < len(p.Replicas) {
				out = append(out, fmt.Sprintf("%s-%d isr=%v", t.Topic, p.Partition, p.ISR))
			}
		}
	}
	return out, nil
}

func (l *rollLab) check(node int, src ...string) (roll.Verdict, int) {
	l.t.Helper()
	if len(src) == 0 {
		src = l.src
	}
	r := kmetaOf(l.t, append([]string{"roll", "check", "-o", "json", "--node", strconv.Itoa(node)}, src...)...)
	var v roll.Verdict
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		l.t.Fatalf("roll check --node %d: exit %d: %v\n%s%s", node, r.code, err, r.stdout, r.stderr)
	}
	if want := map[roll.Answer]int{roll.Safe: 0, roll.Unsafe: 1, roll.Unknown: 2}[v.Answer]; r.code != want || v.Safe != (v.Answer == roll.Safe) {
		l.t.Errorf("roll check --node %d: exit %d for answer %s (safe %v)", node, r.code, v.Answer, v.Safe)
	}
	return v, r.code
}

// waited is roll wait's document and the moment it returned.
type waited struct {
	report.RollWaitDoc
	at time.Time
}

// wait runs roll wait and requires exit 0.
func (l *rollLab) wait(node int, src ...string) waited {
	l.t.Helper()
	if len(src) == 0 {
		src = l.src
	}
	r := kmetaOf(l.t, append([]string{"roll", "wait", "-o", "json", "--node", strconv.Itoa(node), "--timeout", "4m", "--interval", "500ms"}, src...)...)
	at := time.Now()
	if transcriptOf(l.t) != nil && r.code == exitOK {
		// The runbook's view (docs/runbooks/roll-a-cluster.md): the wait
		// as roll plan prints it, in text, the node back.
		if r := kmetaOf(l.t, append([]string{"roll", "wait", "--node", strconv.Itoa(node)}, src...)...); r.code != exitOK {
			l.t.Errorf("roll wait --node %d as printed: exit %d\n%s%s", node, r.code, r.stdout, r.stderr)
		}
	}
	var d report.RollWaitDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || r.code != 0 || !d.Back {
		l.t.Fatalf("roll wait --node %d: exit %d %v\n%s%s", node, r.code, err, r.stdout, r.stderr)
	}
	return waited{d, at}
}

// undecided are the partitions a verdict could not decide, sorted.
func undecided(v roll.Verdict) []string {
	var out []string
	for _, b := range v.Undecided {
		if b.Partition != nil {
			out = append(out, fmt.Sprintf("%s-%d", b.Topic, *b.Partition))
		}
	}
	slices.Sort(out)
	return out
}

// blocked are the partitions a verdict blocks on, "topic-N", sorted.
func blocked(v roll.Verdict) []string {
	var out []string
	for _, b := range v.Blocking {
		if b.Partition != nil {
			out = append(out, fmt.Sprintf("%s-%d", b.Topic, *b.Partition))
		}
	}
	slices.Sort(out)
	return out
}

// probeUntil produces to the probed topics until Kafka refuses with
// NOT_ENOUGH_REPLICAS exactly the partitions of want (the internal
// topics are not produced to) and acknowledges the rest (a leader that
// moves is tried again); it fails at a minute with the last answer.
func (l *rollLab) probeUntil(want []string) {
	l.t.Helper()
	want = slices.DeleteFunc(slices.Clone(want), func(p string) bool { return strings.HasPrefix(p, "__") })
	slices.Sort(want)
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := l.c.ProduceProbe(context.Background(), 10*time.Second, l.probed...)
		if err == nil {
			got := slices.Sorted(slices.Values(res.NotEnoughReplicas()))
			if slices.Equal(got, want) && len(res.Other()) == 0 {
				return
			}
			err = fmt.Errorf("NOT_ENOUGH_REPLICAS on %v, want %v; other errors %v", got, want, res.Other())
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("acks=all producer: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

var urpLine = regexp.MustCompile(`Topic: (\S+)\s+Partition: (\d+)\s+Leader: (-?\d+)\s+Replicas: ([\d,]*)\s+Isr: ([\d,]*)`)

// backEverywhere is the oracle of roll wait's "back", returned at time
// at: on KRaft, Kafka's own account of the metadata log (kafka-dump-log
// --cluster-metadata-decoder of a controller's log, every partition's
// replicas and ISR as of the records written before at): node is in the
// ISR of every partition it holds. Then, in both modes, the brokers'
// metadata (the admin API's ISRs, and kafka-topics
// --under-replicated-partitions) shows it too; the brokers learn the
// ISRs after the controller (KRaft) or ZooKeeper (ZooKeeper mode) has
// them, by batches in ZooKeeper mode, so they are given a few seconds,
// said in the log.
func (l *rollLab) backEverywhere(node int, at time.Time) {
	l.t.Helper()
	if !l.zk {
		for p, st := range l.isrAt(at) {
			if slices.Contains(st[0], node) && !slices.Contains(st[1], node) {
				l.t.Errorf("roll wait %d returned at %s; the metadata log then had %s with replicas %v, ISR %v", node, at.Format("15:04:05.000"), p, st[0], st[1])
			}
		}
	}
	lacking := func() []string {
		under, err := l.underReplicated()
		if err != nil {
			l.t.Fatal(err)
		}
		var out []string
		for _, u := range under {
			if !slices.Contains(strings.Fields(strings.Trim(u[strings.Index(u, "isr=[")+5:], "]")), strconv.Itoa(node)) {
				out = append(out, u)
			}
		}
		return out
	}
	got := lacking()
	for len(got) > 0 && time.Since(at) < 30*time.Second {
		time.Sleep(200 * time.Millisecond)
		got = lacking()
	}
	if len(got) > 0 {
		l.t.Errorf("roll wait %d returned; 30 s later the admin API still has %v", node, got)
	} else if lag := time.Since(at); lag > time.Second {
		l.t.Logf("roll wait %d returned; the brokers' metadata showed it in every ISR %s later", node, lag.Round(100*time.Millisecond))
	}
	out := l.c.Dist.MustRun(l.t, l.c.Dist.Tools.Topics, "--bootstrap-server", l.c.BootstrapServers(), "--describe", "--under-replicated-partitions")
	for _, m := range urpLine.FindAllStringSubmatch(out, -1) {
		if !slices.Contains(strings.Split(m[5], ","), strconv.Itoa(node)) {
			l.t.Errorf("roll wait %d returned; kafka-topics --under-replicated-partitions lists %s-%s with ISR %s", node, m[1], m[2], m[5])
		}
	}
}

// isrAt reads a controller's metadata log with Kafka's kafka-dump-log
// and returns every partition's replicas and ISR as of the records
// written before at ("topicId-N" → [replicas, isr]).
func (l *rollLab) isrAt(at time.Time) map[string][2][]int {
	l.t.Helper()
	dir := l.c.MetadataPartitionDir(l.c.Controllers()[0])
	files, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(files) == 0 {
		l.t.Fatalf("no segments in %s: %v", dir, err)
	}
	slices.Sort(files)
	out := map[string][2][]int{}
	for _, line := range strings.Split(l.c.Dist.DumpLog(l.t, files), "\n") {
		m := rollDumpRecord.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ms, _ := strconv.ParseInt(m[1], 10, 64)
		if time.UnixMilli(ms).After(at) {
			break
		}
		var rec struct {
			Type string `json:"type"`
			Data struct {
				TopicID     string `json:"topicId"`
				PartitionID int    `json:"partitionId"`
				Replicas    []int  `json:"replicas"`
				ISR         []int  `json:"isr"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(m[2]), &rec) != nil || rec.Type != "PARTITION_RECORD" && rec.Type != "PARTITION_CHANGE_RECORD" {
			continue
		}
		key := fmt.Sprintf("%s-%d", rec.Data.TopicID, rec.Data.PartitionID)
		st := out[key]
		if rec.Data.Replicas != nil {
			st[0] = rec.Data.Replicas
		}
		if rec.Data.ISR != nil {
			st[1] = rec.Data.ISR
		}
		out[key] = st
	}
	return out
}

var rollDumpRecord = regexp.MustCompile(`^\| offset: \d+ CreateTime: (\d+) .*payload: (\{.*\})\s*$`)

func (l *rollLab) brokerCases() {
	root := l.t
	root.Run("all up: safe, and Kafka refuses nothing", func(t *testing.T) {
		l.t = t
		at := time.Now()
		v, code := l.check(1)
		if code != 0 || len(v.Blocking) != 0 || len(v.Missing) != 0 || v.Hosted != 12 {
			t.Fatalf("check 1: exit %d %+v", code, v)
		}
		l.c.StopNode(1)
		l.probeUntil(nil)
		l.c.StartNode(1)
		w := l.wait(1)
		l.backEverywhere(1, w.at)
		t.Logf("broker 1 back after %.1fs; case %s", w.Seconds, time.Since(at).Round(time.Second))
	})
	l.t = root
	l.oneDown("one down: unsafe, and Kafka refuses exactly there")
}

// oneDown: with broker 3 stopped, roll check refuses broker 1 on exactly
// l.gated; stopped anyway, Kafka refuses acks=all produces exactly there.
func (l *rollLab) oneDown(name string) {
	root := l.t
	root.Run(name, func(t *testing.T) {
		l.t = t
		at := time.Now()
		if _, code := l.check(3); code != 0 {
			t.Fatalf("check 3: exit %d", code)
		}
		l.c.StopNode(3)
		v, code := l.check(1)
		if code != 1 {
			t.Fatalf("check 1 with 3 down: exit %d %+v", code, v)
		}
		// Exactly the gated partitions block, each with the layer its min
		// ISR comes from; none is left undecided: the brokers that answer
		// report their configs (static ones too), and broker 3's, which
		// does not, are not needed (it leads nothing once 1 stops).
		if got := blocked(v); !slices.Equal(got, l.gated) || len(v.Undecided) > 0 || len(v.Missing) > 0 {
			t.Errorf("blocked %v, want %v; undecided %v, missing %+v", got, l.gated, undecided(v), v.Missing)
		}
		for _, b := range v.Blocking {
			t.Logf("%s-%d: min.insync.replicas %d from %s", b.Topic, *b.Partition, b.MinISR, b.MinISRFrom)
			from := map[string]string{"roll.topic": "topic config"}[b.Topic]
			if b.Rule != roll.CodeUnderMinISR || b.MinISR != 2 || from != "" && b.MinISRFrom != from ||
				from == "" && !regexp.MustCompile(`^broker [12] server\.properties$`).MatchString(b.MinISRFrom) {
				t.Errorf("block %+v", b)
			}
		}
		// Stopped anyway: acks=all producers are refused exactly on the
		// partitions kmeta named.
		t.Cleanup(func() {
			// A failed case leaves the cluster whole for the next.
			for _, id := range []int{1, 3} {
				if !l.c.Node(id).Running() {
					l.c.StartNode(id)
				}
			}
		})
		l.c.StopNode(1)
		l.probeUntil(blocked(v))
		l.c.StartNode(1)
		w := l.wait(1)
		l.backEverywhere(1, w.at)
		t.Logf("broker 1 back after %.1fs", w.Seconds)
		l.c.StartNode(3)
		w = l.wait(3)
		l.backEverywhere(3, w.at)
		if under, _ := l.underReplicated(); len(under) > 0 {
			t.Errorf("roll wait 3 returned; the cluster still has %v under-replicated", under)
		}
		l.probeUntil(nil)
		t.Logf("broker 3 back after %.1fs; case %s", w.Seconds, time.Since(at).Round(time.Second))
	})
	l.t = root
}
