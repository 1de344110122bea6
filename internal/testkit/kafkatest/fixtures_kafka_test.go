package kafkatest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	generate    = flag.Bool("generate", false, "regenerate the KRaft fixtures from real Kafka (make fixtures)")
	fixturesOut = flag.String("fixtures-out", "../../../testdata/kraft", "where -generate writes the KRaft fixtures")
	fixtureVers = flag.String("fixtures-versions", Kafka39+","+Latest4, "comma-separated Kafka versions for -generate")
)

// fixturePlan says how one Kafka release builds its fixture cluster.
type fixturePlan struct {
	version string
	// release is the metadata.version the cluster is formatted at, older than
	// the latest so that a feature upgrade happens during the run.
	release string
	// upgrade are FeatureCommand arguments after --bootstrap-server.
	upgrade []string
	// dynamicQuorum formats a KIP-853 quorum (kraft.version 1).
	dynamicQuorum bool
	// bootstraps are the --release-version values for the standalone
	// bootstrap fixtures.
	bootstraps []string
}

var fixturePlans = map[string]fixturePlan{
	Kafka39: {
		version:    Kafka39,
		release:    "3.7-IV4",
		upgrade:    []string{"upgrade", "--metadata", "3.9"},
		bootstraps: []string{"3.3-IV3", "3.7-IV4", "3.9-IV0"},
	},
	Latest4: {
		version:       Latest4,
		release:       "4.0-IV3",
		upgrade:       []string{"upgrade", "--release-version", "4.4"},
		dynamicQuorum: true,
		bootstraps:    []string{"3.3-IV3", "3.9-IV0", "4.0-IV3", "4.4-IV2"},
	},
}

// A fixed SCRAM credential for the --add-scram bootstrap fixtures, so those
// files only differ between runs by timestamps.
const fixtureScram = `SCRAM-SHA-256=[name=alice,salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=",saltedpassword="mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE=",iterations=8192]`

// TestGenerateFixtures regenerates testdata/kraft from real Kafka. It runs
// only with -generate; see testdata/kraft/README.md.
func TestGenerateFixtures(t *testing.T) {
	if !*generate {
		t.Skip("fixture generator: run `make fixtures` (go test ./internal/kafkatest -run TestGenerateFixtures -args -generate)")
	}
	out, err := filepath.Abs(*fixturesOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range strings.Split(*fixtureVers, ",") {
		plan, ok := fixturePlans[v]
		if !ok {
			t.Fatalf("no fixture plan for Kafka %q", v)
		}
		t.Run(v, func(t *testing.T) {
			d := Dist(t, v)
			generateBootstrapFixtures(t, d, plan, filepath.Join(out, "bootstrap", v))
			generateClusterFixture(t, d, plan, filepath.Join(out, v))
		})
	}
}

// step logs and times one generator step.
func step(t *testing.T, name string, fn func() error) {
	t.Helper()
	start := time.Now()
	if err := fn(); err != nil {
		t.Fatalf("fixture step %q: %v", name, err)
	}
	t.Logf("step %-40s %s", name, time.Since(start).Round(time.Millisecond))
}

func generateClusterFixture(t *testing.T, d *Distribution, plan fixturePlan, dest string) {
	c := StartKRaft(t, d, KRaftOptions{
		Controllers:    1,
		Brokers:        3,
		ReleaseVersion: plan.release,
		DynamicQuorum:  plan.dynamicQuorum,
		SASL:           true,
		Authorizer:     true,
		// Small limits so that the short run still rolls segments and
		// writes snapshots.
		SnapshotMaxBytes: 8 * 1024,
		SegmentBytes:     8 * 1024,
		// NoOpRecords every 3 s instead of 0.5 s keep the log small.
		IdleInterval:    3 * time.Second,
		ControllerProps: map[string]string{"broker.session.timeout.ms": "4000"},
		BrokerProps:     map[string]string{"broker.heartbeat.interval.ms": "1000"},
	})
	controller := c.Controllers()[0]
	adm := c.Admin(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	var log []string // what was done, for generator.json
	did := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }

	step(t, "create topics", func() error {
		type topic struct {
			name    string
			parts   int32
			rf      int16
			configs map[string]*string
		}
		for _, tp := range []topic{
			{"orders.v1", 3, 2, map[string]*string{"retention.ms": kadm.StringPtr("86400000"), "cleanup.policy": kadm.StringPtr("delete")}},
			{"user_events", 2, 3, nil},
			{"payments_v2.eu", 4, 2, map[string]*string{"min.insync.replicas": kadm.StringPtr("2")}},
			{"tmp.to_delete", 1, 1, nil},
		} {
			r, err := adm.CreateTopic(ctx, tp.parts, tp.rf, tp.configs, tp.name)
			if err = errors.Join(err, r.Err); err != nil {
				return fmt.Errorf("%s: %w", tp.name, err)
			}
			did("CreateTopics %s partitions=%d rf=%d configs=%v", tp.name, tp.parts, tp.rf, keys(tp.configs))
		}
		return nil
	})
	step(t, "create partitions", func() error {
		r, err := adm.UpdatePartitions(ctx, 5, "orders.v1")
		if err == nil {
			err = r.Error()
		}
		did("CreatePartitions orders.v1 to 5")
		return err
	})
	step(t, "topic and broker configs", func() error {
		if err := alterRichTopicConfigs(ctx, adm); err != nil {
			return err
		}
		did("IncrementalAlterConfigs TOPIC orders.v1 set max.message.bytes, delete cleanup.policy")
		if err := alterRichBrokerConfigs(ctx, adm, 3); err != nil {
			return err
		}
		did("IncrementalAlterConfigs BROKER 1 max.connections, BROKER 2 max.connections.per.ip")
		did("IncrementalAlterConfigs BROKER <default> log.retention.ms, message.max.bytes, log.cleaner.backoff.ms")
		return nil
	})
	step(t, "client quotas", func() error {
		s, ent, set := kadm.StringPtr, quotaEntity, quotaSet
		entries := []kadm.AlterClientQuotaEntry{
			{Entity: ent(s("user"), s("alice")), Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 1048576), set("consumer_byte_rate", 2097152)}},
			{Entity: ent(s("client-id"), s("app.1")), Ops: []kadm.AlterClientQuotaOp{set("request_percentage", 50), set("consumer_byte_rate", 4096)}},
			{Entity: ent(s("user"), s("alice"), s("client-id"), s("app.1")), Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 524288)}},
			{Entity: ent(s("user"), s("bob"), s("client-id"), nil), Ops: []kadm.AlterClientQuotaOp{set("request_percentage", 75)}},
			{Entity: ent(s("user"), nil), Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 10485760)}},
			{Entity: ent(s("client-id"), nil), Ops: []kadm.AlterClientQuotaOp{set("consumer_byte_rate", 10485760)}},
			{Entity: ent(s("user"), nil, s("client-id"), nil), Ops: []kadm.AlterClientQuotaOp{set("request_percentage", 90)}},
			{Entity: ent(s("ip"), s("127.0.0.2")), Ops: []kadm.AlterClientQuotaOp{set("connection_creation_rate", 10)}},
			{Entity: ent(s("ip"), nil), Ops: []kadm.AlterClientQuotaOp{set("connection_creation_rate", 100)}},
		}
		if err := quotaErr(adm.AlterClientQuotas(ctx, entries)); err != nil {
			return err
		}
		did("AlterClientQuotas user=alice; client-id=app.1; user=alice+client-id=app.1; user=bob+client-id=<default>; user=<default>; client-id=<default>; user=<default>+client-id=<default>; ip=127.0.0.2; ip=<default>")
		// A removal, so the log holds a ClientQuotaRecord with remove=true.
		if err := quotaErr(adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{
			{Entity: ent(s("client-id"), s("app.1")), Ops: []kadm.AlterClientQuotaOp{{Key: "consumer_byte_rate", Remove: true}}},
		})); err != nil {
			return err
		}
		did("AlterClientQuotas client-id=app.1 remove consumer_byte_rate")
		return nil
	})
	step(t, "ACLs", func() error {
		builders := []*kadm.ACLBuilder{
			kadm.NewACLs().Topics("orders.v1").Allow("User:alice").Operations(kadm.OpRead, kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternLiteral),
			kadm.NewACLs().Topics("user_").Allow("User:bob").AllowHosts("127.0.0.1").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternPrefixed),
			kadm.NewACLs().Groups("payments-group").Deny("User:mallory").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral),
			kadm.NewACLs().Clusters().Allow("User:ops").Operations(kadm.OpAlterConfigs, kadm.OpDescribeConfigs).ResourcePatternType(kadm.ACLPatternLiteral),
			kadm.NewACLs().TransactionalIDs("txn.").Allow("User:alice").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternPrefixed),
			kadm.NewACLs().Topics("tmp.to_delete").Deny("User:tmp").Operations(kadm.OpAll).ResourcePatternType(kadm.ACLPatternLiteral),
		}
		for _, b := range builders {
			rs, err := adm.CreateACLs(ctx, b)
			if err != nil {
				return err
			}
			for _, r := range rs {
				if r.Err != nil {
					return fmt.Errorf("create ACL %+v: %w", r, r.Err)
				}
			}
		}
		did("CreateAcls topic orders.v1 literal allow User:alice READ,DESCRIBE; topic user_ prefixed allow User:bob WRITE from 127.0.0.1; group payments-group deny User:mallory READ; cluster allow User:ops ALTER_CONFIGS,DESCRIBE_CONFIGS; transactional-id txn. prefixed allow User:alice WRITE; topic tmp.to_delete deny User:tmp ALL")
		del := kadm.NewACLs().Topics("tmp.to_delete").Deny("User:tmp").DenyHosts().Operations(kadm.OpAll).ResourcePatternType(kadm.ACLPatternLiteral)
		rs, err := adm.DeleteACLs(ctx, del)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				return r.Err
			}
		}
		did("DeleteAcls topic tmp.to_delete deny User:tmp ALL")
		return nil
	})
	step(t, "SCRAM users", func() error {
		if err := upsertRichSCRAM(ctx, adm); err != nil {
			return err
		}
		did("AlterUserScramCredentials upsert alice SCRAM-SHA-256/4096, alice SCRAM-SHA-512/8192, bob SCRAM-SHA-512/10000, carol SCRAM-SHA-256/4096")
		if err := deleteRichSCRAM(ctx, adm); err != nil {
			return err
		}
		did("AlterUserScramCredentials delete carol SCRAM-SHA-256")
		return nil
	})
	step(t, "feature upgrade", func() error {
		args := append([]string{"--bootstrap-server", c.BootstrapServers()}, plan.upgrade...)
		out, _, err := d.Run(ctx, d.Tools.Features, args...)
		if err != nil {
			return err
		}
		did("kafka-features %s -> %s", strings.Join(plan.upgrade, " "), strings.TrimSpace(string(out)))
		return nil
	})
	step(t, "delegation tokens", func() error {
		a, err := adm.CreateDelegationToken(ctx, kadm.CreateDelegationToken{Renewers: []kadm.Principal{{Type: "User", Name: "alice"}}})
		if err != nil {
			return fmt.Errorf("create token: %w", err)
		}
		b, err := adm.CreateDelegationToken(ctx, kadm.CreateDelegationToken{MaxLifetime: time.Hour})
		if err != nil {
			return fmt.Errorf("create token: %w", err)
		}
		did("CreateDelegationToken (renewer User:alice); CreateDelegationToken (max lifetime 1h)")
		// The broker that takes a renewal checks its own metadata cache,
		// which may not hold a token created a moment ago: retry.
		if err := retryNotFound(func() error {
			_, err := adm.RenewDelegationToken(ctx, a.HMAC, 12*time.Hour)
			return err
		}); err != nil {
			return fmt.Errorf("renew token: %w", err)
		}
		did("RenewDelegationToken first token, 12h")
		if err := retryNotFound(func() error {
			_, err := adm.ExpireDelegationToken(ctx, b.HMAC, -time.Millisecond)
			return err
		}); err != nil {
			return fmt.Errorf("expire token: %w", err)
		}
		did("ExpireDelegationToken second token, now")
		return nil
	})
	step(t, "idempotent produce", func() error {
		cl := c.Client(t, kgo.RequiredAcks(kgo.AllISRAcks()))
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders.v1", Value: []byte("kmeta fixture")}).FirstErr(); err != nil {
			return err
		}
		did("Produce 1 record to orders.v1 with an idempotent producer (InitProducerId)")
		return nil
	})
	step(t, "controlled shutdown and restart of broker 3", func() error {
		if !c.StopNode(FirstBrokerID + 2) {
			return errors.New("broker 3 did not stop cleanly")
		}
		c.StartNode(FirstBrokerID + 2)
		c.WaitBrokers(t, 2*time.Minute, c.Brokers()...)
		did("SIGTERM broker 3 (controlled shutdown), restart")
		return nil
	})
	step(t, "kill broker 2, fenced by session timeout, restart", func() error {
		c.KillNode(FirstBrokerID + 1)
		c.WaitBrokers(t, time.Minute, FirstBrokerID, FirstBrokerID+2)
		c.StartNode(FirstBrokerID + 1)
		c.WaitBrokers(t, 2*time.Minute, c.Brokers()...)
		did("SIGKILL broker 2, wait until fenced, restart")
		return nil
	})
	step(t, "partition reassignment", func() error {
		md, err := adm.ListTopics(ctx, "orders.v1")
		if err != nil {
			return err
		}
		p0 := md["orders.v1"].Partitions[0]
		var target []int32
		for _, b := range c.Brokers() {
			if !slices.Contains(p0.Replicas, int32(b)) {
				target = append(target, int32(b))
			}
		}
		target = append(target, p0.Replicas[0])
		var req kadm.AlterPartitionAssignmentsReq
		req.Assign("orders.v1", 0, target)
		rs, err := adm.AlterPartitionAssignments(ctx, req)
		if err != nil {
			return err
		}
		if err := rs.Error(); err != nil {
			return err
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			ls, err := adm.ListPartitionReassignments(ctx, kadm.TopicsSet{"orders.v1": {0: {}}})
			if err == nil && len(ls) == 0 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("reassignment not finished: %v %v", ls, err)
			}
		}
		did("AlterPartitionAssignments orders.v1-0 %v -> %v (completed)", p0.Replicas, target)
		return nil
	})
	step(t, "preferred leader election", func() error {
		rs, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, nil)
		if err != nil {
			return err
		}
		n := 0
		for _, ps := range rs {
			for _, r := range ps {
				if r.Err == nil {
					n++
				} else if !errors.Is(r.Err, kerr.ElectionNotNeeded) {
					return fmt.Errorf("%s-%d: %w", r.Topic, r.Partition, r.Err)
				}
			}
		}
		did("ElectLeaders PREFERRED all partitions (%d elected)", n)
		return nil
	})
	step(t, "delete topic, late topic, more configs", func() error {
		r, err := adm.DeleteTopic(ctx, "tmp.to_delete")
		if err = errors.Join(err, r.Err); err != nil {
			return err
		}
		did("DeleteTopics tmp.to_delete")
		cr, err := adm.CreateTopic(ctx, 2, 3, map[string]*string{"compression.type": kadm.StringPtr("zstd")}, "late.topic_x")
		if err = errors.Join(err, cr.Err); err != nil {
			return err
		}
		did("CreateTopics late.topic_x partitions=2 rf=3 (after the upgrade)")
		if err := alterErr(adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{
			{Op: kadm.DeleteConfig, Name: "log.cleaner.backoff.ms"},
		})); err != nil {
			return err
		}
		did("IncrementalAlterConfigs BROKER <default> delete log.cleaner.backoff.ms")
		return nil
	})
	partDir := c.MetadataPartitionDir(controller)
	step(t, "wait for a snapshot", func() error {
		// Topic churn adds records until the controller has written a
		// snapshot beyond the format-time bootstrap one.
		for i := 0; ; i++ {
			if n := len(snapshots(t, partDir)); n > 0 {
				did("%d metadata snapshots written (after %d churn topics)", n, i)
				return nil
			}
			if i == 40 {
				return errors.New("no snapshot after 40 churn topics")
			}
			name := fmt.Sprintf("churn.%02d", i)
			if r, err := adm.CreateTopic(ctx, 1, 1, nil, name); err != nil || r.Err != nil {
				return errors.Join(err, r.Err)
			}
			if r, err := adm.DeleteTopic(ctx, name); err != nil || r.Err != nil {
				return errors.Join(err, r.Err)
			}
			time.Sleep(300 * time.Millisecond)
		}
	})

	var view *AdminView
	step(t, "capture admin view", func() error {
		// Let every broker catch up with the last records first.
		time.Sleep(2 * time.Second)
		var err error
		view, err = CaptureAdminView(ctx, c.Client(t), d.Version)
		return err
	})
	step(t, "stop cluster", func() error { c.Stop(); return nil })

	step(t, "copy metadata dir and dump it", func() error {
		if err := os.RemoveAll(dest); err != nil {
			return err
		}
		files, err := copyMetadataDir(c.MetadataLogDir(controller), filepath.Join(dest, "metadata"))
		if err != nil {
			return err
		}
		if err := writeDumps(t, d, dest, files); err != nil {
			return err
		}
		// Restarted brokers can answer DescribeUserScramCredentials
		// without a credential the log holds (Kafka's ScramDelta.apply,
		// see testdata/kraft/README.md), so scramUsers must be the answer
		// of a broker that agrees with the controller's own log, as
		// Kafka's DumpLogSegments printed it.
		logScram, err := scramInDumps(dest, files, view.FeaturesEpoch)
		if err != nil {
			return err
		}
		if !view.SelectSCRAMBroker(func(u []AdminSCRAM) bool { return sameSCRAM(u, logScram) }) {
			return fmt.Errorf("no broker's SCRAM answer %v matches the controller's log %v", view.SCRAMUsersByBroker, logScram)
		}
		if err := writeJSON(filepath.Join(dest, "admin.json"), view); err != nil {
			return err
		}
		ctrl := c.Node(controller)
		return writeJSON(filepath.Join(dest, "generator.json"), map[string]any{
			"kafkaVersion":     d.Version,
			"clusterId":        c.ClusterID,
			"controllers":      c.Controllers(),
			"brokers":          c.Brokers(),
			"formatRelease":    plan.release,
			"dynamicQuorum":    plan.dynamicQuorum,
			"controllerConfig": redactPorts(ctrl.Props),
			"steps":            log,
			"files":            files,
		})
	})
}

// snapshots lists the .checkpoint files in dir other than the format-time
// bootstrap snapshot 0-0.
func snapshots(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".checkpoint") && e.Name() != "00000000000000000000-0000000000.checkpoint" {
			out = append(out, e.Name())
		}
	}
	return out
}

// copyMetadataDir copies what a metadata log dir holds that kmeta reads:
// meta.properties, bootstrap.checkpoint and, from __cluster_metadata-0,
// segments, snapshots, quorum-state, leader-epoch-checkpoint and
// partition.metadata. Index files, producer-state snapshots and .lock are
// left out. It returns the copied paths relative to dst's parent, sorted.
func copyMetadataDir(src, dst string) ([]string, error) {
	var files []string
	want := func(rel string) bool {
		base := filepath.Base(rel)
		switch {
		case rel == "meta.properties" || rel == "bootstrap.checkpoint":
			return true
		case filepath.Dir(rel) != "__cluster_metadata-0":
			return false
		case base == "quorum-state" || base == "leader-epoch-checkpoint" || base == "partition.metadata":
			return true
		default:
			return strings.HasSuffix(base, ".log") || strings.HasSuffix(base, ".checkpoint")
		}
	}
	err := filepath.WalkDir(src, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if !want(rel) {
			return nil
		}
		if err := copyFile(path, filepath.Join(dst, rel)); err != nil {
			return err
		}
		files = append(files, filepath.Join(filepath.Base(dst), rel))
		return nil
	})
	sort.Strings(files)
	return files, err
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeDumps runs Kafka's DumpLogSegments --cluster-metadata-decoder over
// every .log and .checkpoint in files, from root with relative paths so the
// "Dumping <path>" line is stable, into root/dumps/<base name>.txt.
func writeDumps(t *testing.T, d *Distribution, root string, files []string) error {
	for _, f := range files {
		if !strings.HasSuffix(f, ".log") && !strings.HasSuffix(f, ".checkpoint") {
			continue
		}
		cmd := d.Command(t.Context(), d.Tools.DumpLog, "--cluster-metadata-decoder", "--files", f)
		cmd.Dir = root
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("dump %s: %w\n%s", f, err, stderr.String())
		}
		dump := filepath.Join(root, "dumps", filepath.Base(f)+".txt")
		if err := os.MkdirAll(filepath.Dir(dump), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dump, out, 0o644); err != nil {
			return err
		}
		// DumpLogSegments reports some findings (e.g. "Non-consecutive
		// offsets") on stderr only; keep them as oracle data too.
		if stderr.Len() > 0 {
			if err := os.WriteFile(filepath.Join(root, "dumps", filepath.Base(f)+".stderr.txt"), []byte(strings.ReplaceAll(stderr.String(), root+string(filepath.Separator), "")), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// scramInDumps folds the SCRAM records in Kafka's own DumpLogSegments
// output for the fixture (root/dumps/<file>.txt) into the shape of a
// DescribeUserScramCredentials answer: first the format-time bootstrap
// files, then the log segments in offset order up to offset upTo. files are
// the copied metadata paths (copyMetadataDir), sorted, so segments come in
// offset order.
func scramInDumps(root string, files []string, upTo int64) ([]AdminSCRAM, error) {
	type key struct {
		user string
		mech int8
	}
	creds := map[key]int32{}
	apply := func(f string, bounded bool) error {
		b, err := os.ReadFile(filepath.Join(root, "dumps", filepath.Base(f)+".txt"))
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(b)) {
			rest, ok := strings.CutPrefix(line, "| offset: ")
			if !ok {
				continue
			}
			num, _, _ := strings.Cut(rest, " ")
			off, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: bad record line %q", f, line)
			}
			_, payload, ok := strings.Cut(rest, " payload: ")
			if !ok || (bounded && off > upTo) {
				continue
			}
			var r struct {
				Type string
				Data struct {
					Name       string
					Mechanism  int8
					Iterations int32
				}
			}
			if err := json.Unmarshal([]byte(payload), &r); err != nil {
				return fmt.Errorf("%s offset %d: %w", f, off, err)
			}
			switch r.Type {
			case "USER_SCRAM_CREDENTIAL_RECORD":
				creds[key{r.Data.Name, r.Data.Mechanism}] = r.Data.Iterations
			case "REMOVE_USER_SCRAM_CREDENTIAL_RECORD":
				delete(creds, key{r.Data.Name, r.Data.Mechanism})
			}
		}
		return nil
	}
	var segments []string
	for _, f := range files {
		switch base := filepath.Base(f); {
		case base == "bootstrap.checkpoint" || base == "00000000000000000000-0000000000.checkpoint":
			if err := apply(f, false); err != nil {
				return nil, err
			}
		case strings.HasSuffix(base, ".log"):
			segments = append(segments, f)
		}
	}
	if len(segments) == 0 || filepath.Base(segments[0]) != "00000000000000000000.log" {
		return nil, fmt.Errorf("the log does not start at offset 0: %v", segments)
	}
	for _, f := range segments {
		if err := apply(f, true); err != nil {
			return nil, err
		}
	}
	byUser := map[string]*AdminSCRAM{}
	for k, it := range creds {
		u := byUser[k.user]
		if u == nil {
			u = &AdminSCRAM{User: k.user}
			byUser[k.user] = u
		}
		u.Credentials = append(u.Credentials, AdminSCRAMCred{Mechanism: kadm.ScramMechanism(k.mech).String(), Iterations: it})
	}
	users := []AdminSCRAM{}
	for _, name := range slices.Sorted(maps.Keys(byUser)) {
		u := byUser[name]
		sort.Slice(u.Credentials, func(i, j int) bool { return u.Credentials[i].Mechanism < u.Credentials[j].Mechanism })
		users = append(users, *u)
	}
	return users, nil
}

func sameSCRAM(a, b []AdminSCRAM) bool {
	return slices.EqualFunc(a, b, func(x, y AdminSCRAM) bool { return x.User == y.User && slices.Equal(x.Credentials, y.Credentials) })
}

func writeJSON(path string, v any) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// redactPorts drops the settings that only hold this run's random ports and
// temp paths.
func redactPorts(p map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range p {
		switch k {
		case "listeners", "advertised.listeners", "controller.quorum.voters", "controller.quorum.bootstrap.servers", "log.dirs":
			v = "<per run>"
		}
		out[k] = v
	}
	return out
}

// generateBootstrapFixtures formats a lone controller at each release and
// keeps what format wrote into the metadata dir.
func generateBootstrapFixtures(t *testing.T, d *Distribution, plan fixturePlan, dest string) {
	if err := os.RemoveAll(dest); err != nil {
		t.Fatal(err)
	}
	type variant struct {
		name string
		args []string
	}
	var vs []variant
	for _, r := range plan.bootstraps {
		vs = append(vs, variant{r, []string{"--release-version", r}})
	}
	last := plan.bootstraps[len(plan.bootstraps)-1]
	vs = append(vs, variant{last + "-scram", []string{"--release-version", last, "--add-scram", fixtureScram}})
	if !d.Is3() {
		vs = append(vs, variant{last + "-standalone", []string{"--release-version", last, "--standalone"}})
	}
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		step(t, "bootstrap "+v.name, func() error {
			tmp := t.TempDir()
			meta := filepath.Join(tmp, "meta")
			props := map[string]string{
				"process.roles":                  "controller",
				"node.id":                        strconv.Itoa(FirstControllerID),
				"controller.listener.names":      "CONTROLLER",
				"listeners":                      fmt.Sprintf("CONTROLLER://127.0.0.1:%d", ports[0]),
				"listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
				"log.dirs":                       meta,
			}
			if slices.Contains(v.args, "--standalone") {
				props["controller.quorum.bootstrap.servers"] = fmt.Sprintf("127.0.0.1:%d", ports[0])
			} else {
				props["controller.quorum.voters"] = fmt.Sprintf("%d@127.0.0.1:%d", FirstControllerID, ports[0])
			}
			n := &Node{Config: filepath.Join(tmp, "server.properties"), Props: props}
			if err := n.writeConfig(); err != nil {
				return err
			}
			// A fixed cluster id (base64url of "kmeta-fixture-01") keeps
			// meta.properties comparable between runs.
			args := append([]string{"--cluster-id", "a21ldGEtZml4dHVyZS0wMQ"}, v.args...)
			if _, _, err := d.Run(t.Context(), d.Tools.Storage, append([]string{"format", "-c", n.Config}, args...)...); err != nil {
				return err
			}
			out := filepath.Join(dest, v.name)
			files, err := copyMetadataDir(meta, filepath.Join(out, "metadata"))
			if err != nil {
				return err
			}
			if err := writeDumps(t, d, out, files); err != nil {
				return err
			}
			return writeJSON(filepath.Join(out, "generator.json"), map[string]any{
				"kafkaVersion": d.Version, "formatArgs": args, "files": files})
		})
	}
}

func keys(m map[string]*string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestFixtureDumps re-runs Kafka's DumpLogSegments over the committed
// cluster fixtures and checks the committed dumps still match them byte for
// byte, so a fixture file and its oracle output cannot drift apart.
func TestFixtureDumps(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			d := Dist(t, v)
			root, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "kraft", v))
			if err != nil {
				t.Fatal(err)
			}
			var gen struct{ Files []string }
			b, err := os.ReadFile(filepath.Join(root, "generator.json"))
			if err != nil {
				t.Fatalf("fixtures missing (run make fixtures): %v", err)
			}
			if err := json.Unmarshal(b, &gen); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, f := range gen.Files {
				if !strings.HasSuffix(f, ".log") && !strings.HasSuffix(f, ".checkpoint") {
					continue
				}
				want, err := os.ReadFile(filepath.Join(root, "dumps", filepath.Base(f)+".txt"))
				if err != nil {
					t.Fatal(err)
				}
				cmd := d.Command(t.Context(), d.Tools.DumpLog, "--cluster-metadata-decoder", "--files", f)
				cmd.Dir = root
				got, err := cmd.Output()
				if err != nil {
					t.Fatalf("dump %s: %v", f, err)
				}
				if string(got) != string(want) {
					t.Errorf("%s: DumpLogSegments output differs from dumps/%s.txt", f, filepath.Base(f))
				}
				checked++
			}
			if checked < 3 {
				t.Errorf("only %d log/snapshot files listed in generator.json", checked)
			}
		})
	}
}
