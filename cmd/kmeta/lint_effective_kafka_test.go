package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/model"
)

// effLintDoc is what the test reads of kmeta lint's JSON, with what each
// rule assumed.
type effLintDoc struct {
	Findings []lintFinding `json:"findings"`
	Rules    []struct {
		Code    string `json:"code"`
		Status  string `json:"status"`
		Why     string `json:"why"`
		Assumes string `json:"assumes"`
	} `json:"rules"`
}

func (d effLintDoc) keys() []string {
	var ks []string
	for _, f := range d.Findings {
		ks = append(ks, f.key())
	}
	sort.Strings(ks)
	return ks
}

func (d effLintDoc) rule(code string) (status, why, assumes string) {
	for _, r := range d.Rules {
		if r.Code == code {
			return r.Status, r.Why, r.Assumes
		}
	}
	return "", "", ""
}

// partitionsOf are the partition entities of the findings of code.
func (d effLintDoc) partitionsOf(code string) []string {
	var out []string
	for _, f := range d.Findings {
		if f.Code == code {
			out = append(out, f.names("partition")...)
		}
	}
	sort.Strings(out)
	return out
}

// TestLintEffectiveConfigsSecuredKafka (issue 28's acceptance): a secured
// Kafka 4.4.0 cluster (three controllers, two brokers reached over
// SASL_SSL with SCRAM, min.insync.replicas=2 in the brokers'
// server.properties alone, ELR off so that no cluster-level value hides
// it) linted from kafka:// (--command-config) and from a controller's
// metadata log dir with and without the brokers' files (--config). One
// cluster, started once; the subtests run in order on it:
//
//   - pkcs12-without-type: a PKCS12 trust store without
//     ssl.truststore.type, taken by Kafka's tools and by kmeta;
//   - configs: the resolver, on both views, gives every topic and broker
//     config kmeta knows a default of exactly as kafka-configs --describe
//     --all shows it;
//   - controllers: features describe of the brokers (kafka://) and the
//     controllers (--bootstrap-controller) as one view, with every node's
//     ranges and kraft.version; a feature change reaches the PLAINTEXT
//     controllers with --controller-command-config or the file's
//     listener.name.controller.* keys, and says it cannot without;
//   - printers: the live view's text, table and html say "not reported"
//     for every field its JSON lists in notReported, never a value;
//   - all-up: the exact findings (rf1-topic RF 1 and min ISR 2 above it,
//     app-events and compacted min ISR = RF, durable RF 2 only); Kafka's
//     --under-min-isr-partitions lists rf1-topic-0 too (it does not cap
//     the value at the replication factor), and an acks=all write to it
//     succeeds (the broker does, since 3.7); without --config the log dir
//     finds no min-ISR finding and its rules say what they assume;
//   - one-broker-down: broker 2 stopped; the same findings on every view,
//     plus the partitions under their min ISR exactly as Kafka's tool
//     lists them (the capped rf1-topic-0 aside), an acks=all write to
//     app-events refused with NOT_ENOUGH_REPLICAS, no rule left "not
//     run", and the rules that read broker 2's configs say they miss them;
//   - fixes: broker 2 back, every fix the live view prints, run as printed
//     with Kafka's tools (each carries --command-config): the min ISR
//     findings clear, rf1-topic gets a second replica, and only what
//     needs a third broker is left.
func TestLintEffectiveConfigsSecuredKafka(t *testing.T) {
	kafkatest.Concurrently(t, 90*time.Second) // make test, 2026-12-06
	start := time.Now()
	defer func() { t.Logf("TestLintEffectiveConfigsSecuredKafka: %s", time.Since(start).Round(time.Second)) }()
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 3, Brokers: 2, SASL: true, SSL: true, SCRAMUsers: true,
		Features: []string{"eligible.leader.replicas.version=0"},
		// Leaders stay where broker 2's stop put them (the controllers
		// would move them back in their own time): a finding whose fix,
		// kafka-leader-election, runs as printed.
		Props:       map[string]string{"auto.leader.rebalance.enable": "false"},
		BrokerProps: map[string]string{"min.insync.replicas": "2"}})
	t.Logf("cluster up: %s", time.Since(start).Round(time.Second))
	b1, b2 := kafkatest.FirstBrokerID, kafkatest.FirstBrokerID+1
	cfg := c.ClientProperties(t, kafkatest.ClientSASLSSL)
	boot := c.BootstrapFor(kafkatest.ClientSASLSSL)
	mustSh := d.Shell(t).OK
	tool := func(name string) string { return name + " --bootstrap-server " + boot + " --command-config " + cfg }
	create := func(topic, assignment string, configs ...string) string {
		cmd := tool("kafka-topics") + " --create --topic " + topic + " --replica-assignment " + assignment
		for _, kv := range configs {
			cmd += " --config " + kv
		}
		return cmd
	}
	a := func(ids ...int) string {
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.Itoa(id)
		}
		return strings.Join(s, ":")
	}
	mustSh(strings.Join([]string{
		create("rf1-topic", a(b1)),
		create("app-events", a(b1, b2)+","+a(b2, b1)+","+a(b1, b2)),
		create("compacted", a(b2, b1), "cleanup.policy=compact"),
		create("durable", a(b1, b2)+","+a(b2, b1), "min.insync.replicas=1"),
	}, " && "))

	live := "kafka://" + boot
	ctl := "kraft:" + c.MetadataLogDir(c.Controllers()[0])
	files := []string{"--config", fmt.Sprintf("%d=%s", b1, c.Node(b1).Config), "--config", fmt.Sprintf("%d=%s", b2, c.Node(b2).Config)}
	type view struct {
		name string
		args []string
	}
	liveView := view{"kafka://", []string{"--command-config", cfg, live}}
	withFiles := view{"kraft: --config", append(slices.Clone(files), ctl)}
	noFiles := view{"kraft:", []string{ctl}}
	lintOf := func(v view) effLintDoc {
		t.Helper()
		r := kmeta(append([]string{"lint", "-o", "json"}, v.args...)...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("lint %s: exit %d\n%s", v.name, r.code, r.stderr)
		}
		var doc effLintDoc
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("lint %s: %v\n%s", v.name, err, r.stdout)
		}
		return doc
	}
	// waitFor lints v until its findings are want (the log dir and the
	// brokers' view follow the cluster within seconds).
	waitFor := func(v view, want []string) effLintDoc {
		t.Helper()
		sort.Strings(want)
		deadline := time.Now().Add(90 * time.Second)
		for {
			d := lintOf(v)
			if slices.Equal(d.keys(), want) {
				return d
			}
			if time.Now().After(deadline) {
				t.Fatalf("lint %s: findings\n  %s\nwant exactly\n  %s", v.name, strings.Join(d.keys(), "\n  "), strings.Join(want, "\n  "))
			}
			time.Sleep(time.Second)
		}
	}
	parts := func(out string) []string {
		var ps []string
		for _, m := range regexp.MustCompile(`(?m)Topic: (\S+)\s+Partition: (\d+)`).FindAllStringSubmatch(out, -1) {
			ps = append(ps, m[1]+"-"+m[2])
		}
		sort.Strings(ps)
		return ps
	}
	produce := func(topic string) error {
		cl, err := kgo.NewClient(append(c.ClientOpts(), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordRetries(2),
			kgo.RecordDeliveryTimeout(20*time.Second))...)
		if err != nil {
			return err
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		return cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("x")}).FirstErr()
	}

	durable := []string{
		"replication-factor-one topic rf1-topic",
		"replication-factor-below-3 topic app-events", "replication-factor-below-3 topic compacted", "replication-factor-below-3 topic durable",
	}
	minISR := []string{"min-isr-not-below-rf topic rf1-topic", "min-isr-not-below-rf topic app-events", "min-isr-not-below-rf topic compacted"}
	assumesStatic := func(d effLintDoc, code string, brokers string) {
		t.Helper()
		_, _, as := d.rule(code)
		want := "pass --config ID=server.properties for broker(s) " + brokers
		if !strings.Contains(as, "min.insync.replicas") || !strings.Contains(as, want) {
			t.Errorf("kraft: without --config: %s assumes %q, want it to name min.insync.replicas and %q", code, as, want)
		}
	}

	t.Run("configs", func(t *testing.T) {
		// Kafka's view of every topic's and broker's configs.
		kafka := map[string]map[string]string{}
		re := regexp.MustCompile(`(?m)^All configs for (topic|broker) (\S+) are:$`)
		entry := regexp.MustCompile(`^\s+([a-z0-9.\-]+)=(.*?) sensitive=`)
		for _, typ := range []string{"topics", "brokers"} {
			out := mustSh(tool("kafka-configs") + " --describe --all --entity-type " + typ)
			var cur map[string]string
			for _, line := range strings.Split(out, "\n") {
				if m := re.FindStringSubmatch(line); m != nil {
					cur = map[string]string{}
					kafka[m[1]+" "+m[2]] = cur
				} else if m := entry.FindStringSubmatch(line); m != nil && cur != nil {
					cur[m[1]] = m[2]
				}
			}
		}
		if len(kafka) != 6 {
			t.Fatalf("kafka-configs described %d entities, want 4 topics and 2 brokers: %v", len(kafka), slices.Sorted(maps.Keys(kafka)))
		}
		props, err := kafkaread.ReadProperties(cfg)
		if err != nil {
			t.Fatal(err)
		}
		load := func(raw string) *model.Image {
			spec, err := source.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			res, err := source.Load(t.Context(), spec, source.Options{Kafka: kafkaread.Config{Properties: props, PropertiesFile: cfg}})
			if err != nil {
				t.Fatal(err)
			}
			return res.Image
		}
		kraftImg := load(ctl)
		for _, id := range []int{b1, b2} {
			p, err := kafkaread.ReadProperties(c.Node(id).Config)
			if err != nil {
				t.Fatal(err)
			}
			kraftImg.SetStaticConfigs(int32(id), p)
		}
		checked := 0
		for name, img := range map[string]*model.Image{"kafka://": load(live), "kraft: --config": kraftImg} {
			r := model.NewConfigResolver(img)
			for ent, kv := range kafka {
				typ, n, _ := strings.Cut(ent, " ")
				for _, key := range model.DefaultedKeys(map[string]model.ConfigResourceType{"topic": model.ConfigTopic, "broker": model.ConfigBroker}[typ]) {
					want, ok := kv[key]
					if !ok {
						continue // a key Kafka does not describe (dynamic-only rates)
					}
					var got model.EffectiveConfig
					if typ == "topic" {
						leader := img.Topics[n].Partitions[0].Leader
						got = r.TopicConfig(n, key, leader)
					} else {
						id, _ := strconv.Atoi(n)
						got = r.BrokerConfig(key, int32(id))
					}
					checked++
					if got.Value != want || !got.Known {
						t.Errorf("%s: %s %s: kmeta resolves %q (%s, known %v: %s), kafka-configs --describe --all says %q",
							name, ent, key, got.Value, got.Source(), got.Known, got.Missing(), want)
					}
				}
			}
		}
		t.Logf("%d effective values equal to kafka-configs --describe --all on both views", checked)
	})

	t.Run("pkcs12-without-type", func(t *testing.T) {
		// A PKCS12 trust store named without ssl.truststore.type: the
		// JDK's default (JKS) store reads it, so Kafka's tools accept it;
		// kmeta reads it the same way.
		props := c.ClientSettings(t, kafkatest.ClientSASLSSL)
		props["ssl.truststore.location"], props["ssl.truststore.password"] = c.TLS.TrustPKCS12, kafkatest.TLSPassword
		delete(props, "ssl.truststore.type")
		p12 := c.WriteClientProperties(t, "sasl-ssl-pkcs12-untyped", props)
		mustSh("kafka-topics --bootstrap-server " + boot + " --command-config " + p12 + " --list")
		if r := kmeta("image", "-o", "json", "--command-config", p12, live); r.code != 0 {
			t.Errorf("kmeta with %s: exit %d\n%s", p12, r.code, r.stderr)
		}
	})

	t.Run("controllers", func(t *testing.T) {
		// The controllers listen on PLAINTEXT, the brokers' clients on
		// SASL_SSL: the controllers' own client settings reach them.
		plain := c.ClientProperties(t, kafkatest.ClientPlaintext)
		ctlAddrs := c.BootstrapControllers()
		r := kmeta("features", "describe", "-o", "json", "--command-config", cfg, "--controller-command-config", plain, live, "--bootstrap-controller", ctlAddrs)
		var st struct {
			Features []struct {
				Name  string `json:"name"`
				Level int16  `json:"level"`
			} `json:"features"`
			Nodes []struct {
				Kind string `json:"kind"`
				ID   int32  `json:"id"`
			} `json:"nodes"`
			NodesNotReported []string `json:"nodesNotReported"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil {
			t.Fatalf("features describe: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		var nodes, feats []string
		for _, n := range st.Nodes {
			nodes = append(nodes, fmt.Sprintf("%s %d", n.Kind, n.ID))
		}
		for _, f := range st.Features {
			feats = append(feats, f.Name)
		}
		var want []string
		for _, id := range c.Brokers() {
			want = append(want, fmt.Sprintf("broker %d", id))
		}
		for _, id := range c.Controllers() {
			want = append(want, fmt.Sprintf("controller %d", id))
		}
		if !slices.Equal(nodes, want) || len(st.NodesNotReported) > 0 || !slices.Contains(feats, "kraft.version") {
			t.Errorf("features describe brokers and controllers: nodes %v (not reported %v), features %v; want nodes %v and kraft.version",
				nodes, st.NodesNotReported, feats, want)
		}
		// A feature change asks every node for its ranges: with the
		// brokers' settings alone the controllers cannot be asked; with
		// --controller-command-config, or listener.name.controller.* keys
		// in the one file, they are.
		perListener := c.ClientSettings(t, kafkatest.ClientSASLSSL)
		perListener["listener.name.controller.security.protocol"] = "PLAINTEXT"
		both := c.WriteClientProperties(t, "sasl-ssl-and-controller", perListener)
		for _, tc := range []struct {
			name string
			args []string
			gaps int
		}{
			{"brokers' settings only", []string{"--command-config", cfg}, 3},
			{"--controller-command-config", []string{"--command-config", cfg, "--controller-command-config", plain}, 0},
			{"listener.name.controller.*", []string{"--command-config", both}, 0},
		} {
			args := slices.Concat([]string{"features", "upgrade", "--dry-run", "-o", "json", "--feature", "group.version=1"}, tc.args, []string{live})
			r := kmeta(args...)
			var d struct {
				Gaps []string `json:"gaps"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
				t.Fatalf("%s: exit %d: %v\n%s%s", tc.name, r.code, err, r.stdout, r.stderr)
			}
			if len(d.Gaps) != tc.gaps {
				t.Errorf("%s: gaps %q, want %d", tc.name, d.Gaps, tc.gaps)
			}
		}
	})

	t.Run("printers", func(t *testing.T) {
		// The live view's text, table and html print what it does not
		// report (its JSON's notReported) as not reported, never as the
		// zero value the reader left.
		r := kmeta("image", "-o", "json", "--command-config", cfg, live)
		var doc struct {
			NotReported []string `json:"notReported"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil {
			t.Fatalf("image -o json: exit %d\n%s", r.code, r.stderr)
		}
		// Per field: what its value would look like printed, and what
		// must be printed instead, in the text format.
		text := map[string][2]string{
			"brokers.epoch":                {`broker \d+: epoch=\d`, `epoch=not-reported`},
			"brokers.incarnationId":        {`incarnation=[A-Za-z0-9_-]{22}`, `incarnation=not-reported`},
			"brokers.inControlledShutdown": {`in-controlled-shutdown(\s|$)`, `in-controlled-shutdown=not-reported`},
			"partitions.partitionEpoch":    {`partitionEpoch=\d`, `partitionEpoch=not-reported`},
			"producerIds":                  {`producer ids: (none|next=)`, `producer ids: not-reported`},
			"migration":                    {`migration: (none|state=)`, `migration: not-reported`},
			"controllers":                  {`controllers: none`, `controllers: not-reported`},
			"brokers.endpoints":            {`://[^ ]+\(SASL_SSL\)`, `SASL_SSL://127.0.0.1:`},
		}
		r = kmeta("image", "--command-config", cfg, live)
		for _, f := range doc.NotReported {
			pat, ok := text[f]
			if !ok {
				continue
			}
			if m := regexp.MustCompile(`(?m)` + pat[0]).FindString(r.stdout); m != "" {
				t.Errorf("text prints %s, which the view does not report, as %q", f, m)
			}
			if !strings.Contains(r.stdout, pat[1]) {
				t.Errorf("text does not say %q for %s", pat[1], f)
			}
		}
		if len(doc.NotReported) < len(text) {
			t.Errorf("notReported %v: want at least the %d fields checked here", doc.NotReported, len(text))
		}
		tbl := kmeta("image", "-o", "table", "--command-config", cfg, live)
		for _, bad := range []string{"| producer ids      | none", "| migration         | none"} {
			if strings.Contains(strings.ReplaceAll(tbl.stdout, " ", ""), strings.ReplaceAll(bad, " ", "")) {
				t.Errorf("table prints %q", bad)
			}
		}
		if !strings.Contains(tbl.stdout, "not-reported") {
			t.Errorf("table says nothing is not reported:\n%s", tbl.stdout)
		}
		html := kmeta("image", "-o", "html", "--command-config", cfg, live)
		if strings.Contains(html.stdout, "complete:") || !strings.Contains(html.stdout, "as the source reports it") || !strings.Contains(html.stdout, "not reported") {
			t.Errorf("html: a live view called complete, or its gaps not named")
		}
	})

	t.Run("all-up", func(t *testing.T) {
		want := slices.Concat(durable, minISR)
		for _, v := range []view{liveView, withFiles} {
			d := waitFor(v, want)
			for _, f := range d.Findings {
				if f.Code == "min-isr-not-below-rf" && !strings.Contains(f.Fix, "--command-config") && v.name == "kafka://" {
					t.Errorf("%s: fix without the client settings: %s", v.name, f.Fix)
				}
			}
		}
		d := waitFor(noFiles, durable)
		assumesStatic(d, "min-isr-not-below-rf", fmt.Sprintf("%d,%d", b1, b2))
		assumesStatic(d, "partition-under-min-isr", fmt.Sprintf("%d,%d", b1, b2))
		// Kafka's tool lists rf1-topic-0 (ISR 1 < min ISR 2); the broker
		// caps min ISR at the replication factor, so a write is taken.
		if got := parts(mustSh(tool("kafka-topics") + " --describe --under-min-isr-partitions")); !slices.Equal(got, []string{"rf1-topic-0"}) {
			t.Errorf("kafka-topics --under-min-isr-partitions: %v, want [rf1-topic-0]", got)
		}
		if err := produce("rf1-topic"); err != nil {
			t.Errorf("acks=all to rf1-topic (RF 1, min ISR 2): %v; want it taken (min ISR capped at RF)", err)
		}
	})

	t.Run("one-broker-down", func(t *testing.T) {
		c.StopNode(b2)
		defer c.StartNode(b2)
		under := []string{"app-events-0", "app-events-1", "app-events-2", "compacted-0"}
		var want []string
		want = slices.Concat(want, durable, minISR, []string{fmt.Sprintf("broker-fenced broker %d", b2)})
		for _, p := range under {
			want = append(want, "partition-under-min-isr partition "+p, "partition-under-replicated partition "+p)
		}
		want = append(want, "partition-under-replicated partition durable-0", "partition-under-replicated partition durable-1")
		for _, v := range []view{liveView, withFiles} {
			d := waitFor(v, want)
			for _, r := range d.Rules {
				switch {
				case r.Status != "not-run" || v.name != "kafka://":
				case slices.Contains([]string{"partition-leader-recovering", "migration-half-done", "broker-in-controlled-shutdown"}, r.Code):
				case r.Code == "metadata-version-behind":
					// Every node's range is needed, and the stopped
					// broker's is not answered: said, with the broker.
					if want := fmt.Sprintf("brokers.features (not answered for: broker %d)", b2); !strings.Contains(r.Why, want) {
						t.Errorf("%s: %s not run: %q, want it to name %q", v.name, r.Code, r.Why, want)
					}
				default:
					t.Errorf("%s: %s not run with one broker down: %s", v.name, r.Code, r.Why)
				}
			}
			if v.name == "kafka://" {
				_, _, as := d.rule("unclean-leader-election-enabled")
				if !strings.Contains(as, fmt.Sprintf("the dynamic configs of broker %d (not answered)", b2)) || !strings.Contains(as, fmt.Sprintf("the server.properties of broker %d", b2)) {
					t.Errorf("kafka:// with broker %d down: unclean-leader-election-enabled assumes %q, want broker %d's configs named", b2, as, b2)
				}
			}
			// Kafka's tool lists leaderless partitions and those whose
			// min ISR is above their replication factor too; lint names
			// the first offline, the second min-isr-not-below-rf.
			kafka := parts(mustSh(tool("kafka-topics") + " --describe --under-min-isr-partitions"))
			lintSet := slices.Concat(d.partitionsOf("partition-under-min-isr"), d.partitionsOf("partition-offline"), []string{"rf1-topic-0"})
			sort.Strings(lintSet)
			if !slices.Equal(kafka, lintSet) {
				t.Errorf("%s: under min ISR (with offline and the capped rf1-topic-0) %v, Kafka's tool %v", v.name, lintSet, kafka)
			}
		}
		d := waitFor(noFiles, slices.Concat(durable, []string{fmt.Sprintf("broker-fenced broker %d", b2),
			"partition-under-replicated partition app-events-0", "partition-under-replicated partition app-events-1",
			"partition-under-replicated partition app-events-2", "partition-under-replicated partition compacted-0",
			"partition-under-replicated partition durable-0", "partition-under-replicated partition durable-1"}))
		// Broker 2 leads nothing now: only broker 1's file is assumed.
		assumesStatic(d, "partition-under-min-isr", strconv.Itoa(b1))
		err := produce("app-events")
		if !errors.Is(err, kerr.NotEnoughReplicas) && !errors.Is(err, kerr.NotEnoughReplicasAfterAppend) {
			t.Errorf("acks=all to app-events with broker %d down: %v, want NOT_ENOUGH_REPLICAS", b2, err)
		}
	})

	t.Run("fixes", func(t *testing.T) {
		c.WaitBrokers(t, 2*time.Minute, b1, b2)
		d := waitFor(liveView, slices.Concat(durable, minISR, []string{fmt.Sprintf("preferred-leader-imbalance broker %d", b2)}))
		ran := 0
		for _, f := range d.Findings {
			if f.Fix == "" || strings.HasPrefix(f.Fix, "start ") {
				continue
			}
			if !strings.Contains(f.Fix, "--command-config "+cfg) && !strings.Contains(f.Fix, "--admin.config "+cfg) {
				t.Errorf("%s: fix without the client settings: %s", f.key(), f.Fix)
			}
			mustSh(f.Fix)
			ran++
		}
		// min.insync.replicas of rf1-topic, app-events and compacted; the
		// reassignment that gives rf1-topic a second replica (RF 3 needs
		// a third broker: no command for the others); the preferred
		// leader election (kafka-leader-election takes --admin.config).
		if ran != 5 {
			t.Errorf("%d fixes run, want 5", ran)
		}
		for _, v := range []view{liveView, withFiles} {
			waitFor(v, []string{"replication-factor-below-3 topic app-events", "replication-factor-below-3 topic compacted",
				"replication-factor-below-3 topic durable", "replication-factor-below-3 topic rf1-topic"})
		}
	})

	// quorum rebuild's gates reach these brokers as the client settings
	// given do: on their SASL_SSL listener, naming the file; a roll
	// check as printed connects (exit 0 or 1, never 2). Without the
	// settings the gates name a listener they can reach, or say what
	// they lack.
	t.Run("rebuild gates", func(t *testing.T) {
		rebuild := func(extra ...string) report.RebuildDoc {
			t.Helper()
			args := append([]string{"quorum", "rebuild", "--dry-run", "-o", "json", "--from", c.MetadataLogDir(c.Controllers()[0]),
				"--out", t.TempDir()}, extra...)
			if !slices.Contains(extra, "--controllers") {
				args = append(args, "--controllers", "3100@127.0.0.1:19093")
			}
			r := kmeta(args...)
			var doc report.RebuildDoc
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 0 || len(doc.Roll) != 2 {
				t.Fatalf("quorum rebuild %q: exit %d %v\n%s%s", extra, r.code, err, r.stdout, r.stderr)
			}
			return doc
		}
		doc := rebuild("--command-config", cfg)
		src := []string{"--bootstrap-server", boot, "--command-config", cfg}
		if doc.GatesNeed != "" || !slices.Equal(doc.Roll[0].CheckArgs[4:], src) || !strings.HasSuffix(doc.ControllerWaits[0], " --command-config "+cfg) {
			t.Fatalf("gates with --command-config: need %q, check %q, controller wait %q; want the source %q", doc.GatesNeed, doc.Roll[0].CheckArgs, doc.ControllerWaits[0], src)
		}
		if r := kmeta(doc.Roll[0].CheckArgs...); r.code != 0 && r.code != 1 {
			t.Errorf("%s: exit %d\n%s", doc.Roll[0].Check, r.code, r.stderr)
		}
		// The controllers listen on PLAINTEXT, the brokers on SASL_SSL:
		// with --controller-command-config a controller's wait as
		// printed connects with its own settings and finds it back.
		ctl := c.Controllers()[0]
		ctlCfg := c.ClientProperties(t, kafkatest.ClientPlaintext)
		ctlAddr := strings.Split(c.BootstrapControllers(), ",")[0]
		doc = rebuild("--command-config", cfg, "--controller-command-config", ctlCfg, "--controllers", fmt.Sprintf("%d@%s", ctl, ctlAddr))
		wantWait := fmt.Sprintf("kmeta roll wait --node %d --bootstrap-controller %s --controller-command-config %s", ctl, ctlAddr, ctlCfg)
		if !slices.Equal(doc.ControllerWaits, []string{wantWait}) || !slices.Equal(doc.Roll[0].CheckArgs[4:], src) {
			t.Fatalf("gates with --controller-command-config: controller waits %q, want %q; check %q", doc.ControllerWaits, wantWait, doc.Roll[0].CheckArgs)
		}
		if r := kmeta(strings.Fields(strings.TrimPrefix(wantWait, "kmeta "))...); r.code != 0 {
			t.Errorf("%s: exit %d\n%s", wantWait, r.code, r.stderr)
		}
		// The harness's brokers also listen on PLAINTEXT.
		doc = rebuild()
		src = []string{"--bootstrap-server", c.BootstrapFor(kafkatest.ClientPlaintext)}
		if doc.GatesNeed != "" || !slices.Equal(doc.Roll[0].CheckArgs[4:], src) {
			t.Fatalf("gates without --command-config: need %q, check %q; want the source %q", doc.GatesNeed, doc.Roll[0].CheckArgs, src)
		}
		if r := kmeta(doc.Roll[0].CheckArgs...); r.code != 0 && r.code != 1 {
			t.Errorf("%s: exit %d\n%s", doc.Roll[0].Check, r.code, r.stderr)
		}
	})
}
