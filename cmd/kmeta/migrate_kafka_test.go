package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// kmetaRun runs kmeta in-process and returns stdout, stderr and the exit
// code.
func kmetaRun(t testing.TB, args ...string) (string, string, int) {
	t.Helper()
	code, out, errs := runKmeta(t, args...)
	return out, errs, code
}

// kmetaProcess runs kmeta as a child process (this test binary, see
// TestMain) with extra environment, for fault injection.
func kmetaProcess(t testing.TB, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), envRunMain+"=1", "KMETA_TEST_ARGS="+strings.Join(args, "\x1f")), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func freePort(t testing.TB) int {
	t.Helper()
	p, err := kafkatest.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return p[0]
}

func readProps(t testing.TB, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := javaprops.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// step logs one rehearsal step, so that `go test -v` (scripts/rehearsal.sh)
// reads as a report.
func step(t testing.TB, format string, args ...any) {
	t.Helper()
	t.Logf("==== %s", fmt.Sprintf(format, args...))
	if tr := transcriptOf(t); tr != nil {
		tr.note(format, args...)
	}
}

// TestMigrateZKClusterToKRaft is the acceptance test and the rehearsal of
// `kmeta migrate`: a real Kafka 3.9 ZooKeeper-mode cluster with the rich
// metadata set and messages is stopped, converted offline by kmeta, and
// started as Kafka 4.4 KRaft on the original log dirs with only the
// configs kmeta generated, under three controllers in a dynamic quorum
// (kraft.version 1, the controllers as initial voters with kmeta's
// directory ids, as kafka-metadata-quorum reports). Kafka then serves
// every topic, message, group offset, config, quota, ACL, SCRAM login and
// delegation token.
func TestMigrateZKClusterToKRaft(t *testing.T) {
	kafkatest.Concurrently(t, 100*time.Second) // make test, 2026-12-06
	recordTranscript(t, "offline-migration")
	d39 := kafkatest.Dist(t, kafkatest.Kafka39)
	d4 := kafkatest.Dist(t, kafkatest.Latest4)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const group = "kmeta-migrate-group"
	const afterTopic = "after.migration" // created on Kafka 4.4 after the migration

	step(t, "1. a Kafka %s ZooKeeper-mode cluster with data", kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d39, kafkatest.ZKOptions{})
	const encoderSecret = "kmeta-password-encoder-secret"
	zc := kafkatest.StartZKCluster(t, d39, zk, kafkatest.ZKClusterOptions{Brokers: 3, Chroot: "/kafka", SASL: true, Authorizer: true,
		Props: map[string]string{"password.encoder.secret": encoderSecret}})
	adm := zc.Admin(t)
	rich, err := kafkatest.PopulateRich(ctx, zc, adm, kafkatest.RichOptions{ACLs: true, Tokens: true})
	if err != nil {
		t.Fatal(err)
	}
	// mallory may log in and is allowed to read payments_*, but a literal
	// DENY on payments_v2.eu (from PopulateRich) must win after migration.
	if _, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "mallory", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "mallory-secret"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateACLs(ctx, kadm.NewACLs().Topics("payments_").Allow("User:mallory").
		Operations(kadm.OpRead, kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternPrefixed)); err != nil {
		t.Fatal(err)
	}
	// Password-typed dynamic broker configs: ZooKeeper stores them
	// encrypted with password.encoder.secret, and only that secret gets
	// the value back. The second holds a character outside the Basic
	// Multilingual Plane, which Kafka's passwordLength counts as two UTF-16
	// units; it is for a listener the brokers do not have, so that no
	// broker reconfigures with it (an existing listener's SASL or SSL
	// configs cannot change without a restart).
	const jaasKey = "listener.name.sasl_plaintext.plain.sasl.jaas.config"
	const keyPassKey, keyPass = "listener.name.external.ssl.key.password", "key-pass-\U0001F511"
	jaas := zc.Node(1).Props[jaasKey]
	for k, v := range map[string]string{jaasKey: jaas, keyPassKey: keyPass} {
		if err := alterBroker(ctx, adm, 1, k, v); err != nil {
			t.Fatalf("set %s on broker 1: %v", k, err)
		}
	}
	// Two znodes written behind Kafka's back (zookeeper-shell). A topic
	// config without its topic (as a deletion that did not finish leaves
	// it), under the name of the topic created after the migration: it
	// must not inherit it. And an IPv6 IP quota, its name sanitized as
	// ZkAdminManager stores quota entity names (Kafka 3.9.2 itself refuses
	// to set one: it validates the sanitized name as an address, and
	// kafka-configs --zookeeper takes no ips); ZooKeeper-mode Kafka
	// describes it as 2001:db8::1, and so must Kafka 4.4 after the
	// migration (compareViews, beside PopulateRich's IPv4 quota).
	zkShell := func(args ...string) {
		// Right after ZooKeeper's restart, on a loaded machine, the
		// shell's session may not be established before its request
		// (ConnectionLoss, exit 1): the request was not made; ask again.
		for attempt := 1; ; attempt++ {
			_, stderr, err := d39.Run(ctx, "org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka", append([]string{"-server", zk.Connect("/kafka")}, args...)...)
			if err == nil {
				return
			}
			// A lost connection may have lost the answer, not the
			// request: the retry finds it done.
			if msg := string(stderr) + err.Error(); attempt > 1 && (args[0] == "delete" && strings.Contains(msg, "NoNode") || args[0] == "create" && strings.Contains(msg, "NodeExists")) {
				return
			}
			if attempt == 5 || !strings.Contains(string(stderr)+err.Error(), "ConnectionLoss") {
				t.Fatalf("zookeeper-shell %v: %v\n%s", args, err, stderr)
			}
			time.Sleep(time.Second)
		}
	}
	zkShell("create", "/config/topics/"+afterTopic, `{"version":1,"config":{"retention.ms":"1234"}}`)
	const ipv6Quota, ipv6QuotaConfig = "/config/ips/2001%3Adb8%3A%3A1", `{"version":1,"config":{"connection_creation_rate":"20"}}`
	zkShell("create", ipv6Quota, ipv6QuotaConfig)
	data, err := kafkatest.ProduceData(ctx, zc, kafkatest.DataOptions{Group: group})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range append(rich.Log, data.Log...) {
		t.Logf("  %s", l)
	}
	before, err := kafkatest.ConsumeAll(ctx, zc, data.Topics, len(data.Produced))
	if err != nil {
		t.Fatal(err)
	}
	// Every acknowledged committed record is there; no aborted one is.
	for _, m := range data.Produced {
		if !slices.ContainsFunc(before, func(b kafkatest.Message) bool {
			return kafkatest.DiffMessages([]kafkatest.Message{m}, []kafkatest.Message{b}) == nil
		}) {
			t.Fatalf("produced record not consumed on the source cluster: %s", m)
		}
	}
	viewBefore, err := kafkatest.CaptureAdminView(ctx, zc.Client(t), kafkatest.Kafka39)
	if err != nil {
		t.Fatal(err)
	}
	offsetsBefore, err := adm.FetchOffsets(ctx, group)
	if err != nil || offsetsBefore.Error() != nil {
		t.Fatalf("fetch offsets: %v %v", err, offsetsBefore.Error())
	}
	t.Logf("  %d records in %d topics, %d topics in all", len(before), len(data.Topics), len(viewBefore.Topics))

	// Three controllers in a dynamic quorum (kraft.version 1, KIP-853):
	// kmeta writes the initial voters as kafka-storage format
	// --initial-controllers does.
	ctrlIDs := []int{3000, 3001, 3002}
	ctrlPort := map[int]int{}
	var voters []string
	for _, id := range ctrlIDs {
		ctrlPort[id] = freePort(t)
		voters = append(voters, fmt.Sprintf("%d@127.0.0.1:%d", id, ctrlPort[id]))
	}
	ctlSpec := strings.Join(voters, ",")
	work := t.TempDir()
	planFile := filepath.Join(work, "plan.json")

	step(t, "2. plan against the running cluster (live ZooKeeper): refused while brokers are registered")
	out, _, code := kmetaRun(t, "migrate", "plan", "--zk", "zk://"+zk.Connect("/kafka"), "--controllers", ctlSpec, "-o", "json")
	if code != exitFindings || !strings.Contains(out, migrate.CodeBrokersRegistered) {
		t.Fatalf("live plan of a running cluster: exit %d, want 1 with %s:\n%s", code, migrate.CodeBrokersRegistered, out)
	}

	zkData := "zkdata:" + zk.DataDir
	step(t, "3a. kill -9 the brokers, then stop ZooKeeper: their registrations stay in the snapshot")
	for _, id := range zc.Brokers() {
		zc.KillNode(id)
	}
	zk.Stop()
	checkKilledMigration(t, work, zkData, ctlSpec, encoderSecret, zc.Brokers())

	step(t, "3b. restart ZooKeeper and the brokers (once the killed brokers' sessions expired), then stop the brokers, then ZooKeeper")
	zk.Restart()
	// A ZooKeeper-mode Kafka 3.9.2 broker does not start while the
	// sanitized IPv6 quota is there: its IpConfigHandler resolves the
	// znode's name as it stands ("Unable to resolve address
	// 2001%3Adb8%3A%3A1"). The znode is set aside for the restart and put
	// back once the brokers are stopped for good.
	zkShell("delete", ipv6Quota)
	waitNoRegistrations(t, zk.Addr(), "/kafka")
	zc.StartNodes(zc.Brokers()...)
	zc.Stop()
	zkShell("create", ipv6Quota, ipv6QuotaConfig)
	zk.Stop()
	zkHash := fstree.Hash(t, zk.DataDir)
	segHash := map[int]string{}
	for _, id := range zc.Brokers() {
		segHash[id] = logDataHash(t, zc.Node(id).DataDir)
	}

	step(t, "4. kmeta migrate plan --zk %s --metadata-version 4.4 --controllers %s --quorum dynamic", zkData, ctlSpec)
	out, serr, code := kmetaRun(t, "migrate", "plan", "--zk", zkData, "--metadata-version", "4.4", "--controllers", ctlSpec, "--quorum", "dynamic", "-o", "json")
	if code != exitFindings || !strings.Contains(out, migrate.CodeEncryptedPassword) {
		t.Fatalf("plan without the password encoder secret: exit %d, want 1 with %s\n%s", code, migrate.CodeEncryptedPassword, out)
	}
	out, serr, code = kmetaRun(t, "migrate", "plan", "--zk", zkData, "--metadata-version", "4.4", "--controllers", ctlSpec, "--quorum", "dynamic",
		"--password-encoder-secret", encoderSecret, "--write", planFile)
	t.Logf("\n%s%s", out, serr)
	if code != exitOK {
		t.Fatalf("plan: exit %d", code)
	}

	plan, err := migrate.ReadPlan(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(plan.Findings, func(f model.Finding) bool {
		return f.Code == migrate.CodeConfigWithoutTopic && f.Entity == "config TOPIC "+afterTopic
	}) {
		t.Fatalf("the plan does not report /config/topics/%s without its topic (%s): %v", afterTopic, migrate.CodeConfigWithoutTopic, plan.Findings)
	}

	step(t, "5. kmeta migrate apply --plan plan.json --password-encoder-secret ..., killed (SIGKILL) at its 2nd file boundary, then run again")
	outDir := filepath.Join(work, "kraft")
	if o, err := kmetaProcess(t, []string{"KMETA_MIGRATE_KILL_AT=2"}, "migrate", "apply", "--plan", planFile, "--password-encoder-secret", encoderSecret, "--out", outDir); !isKilled(err) {
		t.Fatalf("apply with KMETA_MIGRATE_KILL_AT=2: want SIGKILL, got %v\n%s", err, o)
	}
	out, serr, code = kmetaRun(t, "migrate", "apply", "--plan", planFile, "--password-encoder-secret", encoderSecret, "--out", outDir)
	t.Logf("\n%s%s", out, serr)
	if code != exitOK {
		t.Fatalf("apply: exit %d", code)
	}

	step(t, "6. kmeta migrate brokers --plan plan.json --log-dirs DIR on each broker (broker 1 killed once first)")
	for _, id := range zc.Brokers() {
		dir := zc.Node(id).DataDir
		if id == 1 {
			if o, err := kmetaProcess(t, []string{"KMETA_MIGRATE_KILL_AT=3"}, "migrate", "brokers", "--plan", planFile, "--log-dirs", dir); !isKilled(err) {
				t.Fatalf("brokers with KMETA_MIGRATE_KILL_AT=3: want SIGKILL, got %v\n%s", err, o)
			}
		}
		out, serr, code := kmetaRun(t, "migrate", "brokers", "--plan", planFile, "--log-dirs", dir)
		t.Logf("broker %d:\n%s%s", id, out, serr)
		if code != exitOK {
			t.Fatalf("brokers %d: exit %d", id, code)
		}
	}

	step(t, "7. kmeta migrate configs --plan plan.json for each controller and each broker (the dynamic quorum comes from the plan)")
	ctrlDir := controllers.Dir(outDir, 3000)
	ctrlConf := map[int]string{}
	for _, id := range ctrlIDs {
		ctrlConf[id] = filepath.Join(work, fmt.Sprintf("controller-%d.properties", id))
		out, serr, code = kmetaRun(t, "migrate", "configs", "--server-properties", zc.Node(1).Config, "--role", "controller", "--plan", planFile,
			"--node-id", fmt.Sprint(id), "--metadata-dir", controllers.Dir(outDir, int32(id)), "--out", ctrlConf[id])
		t.Logf("controller %d:\n%s%s", id, out, serr)
		if code != exitOK {
			t.Fatalf("configs controller %d: exit %d", id, code)
		}
	}
	brokerConf := map[int]string{}
	for _, id := range zc.Brokers() {
		brokerConf[id] = filepath.Join(work, fmt.Sprintf("broker-%d.properties", id))
		out, serr, code := kmetaRun(t, "migrate", "configs", "--server-properties", zc.Node(id).Config, "--plan", planFile, "--out", brokerConf[id])
		t.Logf("broker %d:\n%s%s", id, out, serr)
		if code != exitOK {
			t.Fatalf("configs broker %d: exit %d", id, code)
		}
	}
	if h := fstree.Hash(t, zk.DataDir); h != zkHash {
		t.Fatal("the ZooKeeper data dir changed")
	}
	for _, id := range zc.Brokers() {
		if h := logDataHash(t, zc.Node(id).DataDir); h != segHash[id] {
			t.Fatalf("broker %d: log data changed", id)
		}
	}

	// kmeta decrypted the password config to exactly what was set.
	boot, err := metalog.LoadImage(filepath.Join(ctrlDir, "__cluster_metadata-0", "00000000000000000000-0000000000.checkpoint"), metalog.ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{jaasKey: jaas, keyPassKey: keyPass} {
		if got := boot.Image.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}][k]; got != v {
			t.Fatalf("decrypted %s: %q, want what was set", k, got)
		}
	}
	t.Logf("  %s and %s (a non-BMP character), encrypted by Kafka in ZooKeeper, were decrypted to the values set", jaasKey, keyPassKey)

	step(t, "8. start Kafka %s: controllers %v on kmeta's metadata dirs, brokers on their original log dirs, kmeta's configs only", kafkatest.Latest4, ctrlIDs)
	kc := kafkatest.NewCluster(t, d4)
	kc.SASL = true
	for _, id := range ctrlIDs {
		kc.AddNode(id, "controller", readProps(t, ctrlConf[id])).ControllerPort = ctrlPort[id]
	}
	for _, id := range zc.Brokers() {
		bn := kc.AddNode(id, "broker", readProps(t, brokerConf[id]))
		bn.PlainPort, bn.SASLPort = zc.Node(id).PlainPort, zc.Node(id).SASLPort
	}
	kc.StartNodes(ctrlIDs...)
	kc.StartNodes(zc.Brokers()...)
	kc.WaitBrokers(t, 2*time.Minute, zc.Brokers()...)
	checkQuorum(t, ctx, kc, planFile, ctrlIDs, 1)

	step(t, "9. Kafka serves what ZooKeeper held")
	kadmc := kc.Admin(t)
	viewAfter := waitView(t, ctx, kc, viewBefore)
	compareViews(t, viewBefore, viewAfter)

	after, err := kafkatest.ConsumeAll(ctx, kc, data.Topics, len(before))
	if err != nil {
		t.Fatalf("%v; per partition (want/got): %s", err, countsByPartition(before, after))
	}
	if d := kafkatest.DiffMessages(before, after); len(d) > 0 {
		t.Fatalf("%d records differ after migration, e.g.:\n%s", len(d), strings.Join(d[:min(10, len(d))], "\n"))
	}
	t.Logf("  all %d records read back byte for byte at their offsets (read_committed; %d aborted stay invisible)", len(after), len(data.Aborted))

	offsetsAfter, err := kadmc.FetchOffsets(ctx, group)
	if err != nil || offsetsAfter.Error() != nil {
		t.Fatalf("fetch offsets after: %v %v", err, offsetsAfter.Error())
	}
	flat := func(rs kadm.OffsetResponses) map[string]string {
		m := map[string]string{}
		rs.Each(func(o kadm.OffsetResponse) {
			m[fmt.Sprintf("%s-%d", o.Topic, o.Partition)] = fmt.Sprintf("%d %q", o.At, o.Metadata)
		})
		return m
	}
	committed := map[string]string{}
	for tp, ps := range data.Offsets {
		for p, at := range ps {
			committed[fmt.Sprintf("%s-%d", tp, p)] = fmt.Sprintf("%d %q", at, "kmeta")
		}
	}
	if d := cmp.Diff(committed, flat(offsetsBefore)); d != "" {
		t.Fatalf("group offsets on the source differ from what was committed:\n%s", d)
	}
	if d := cmp.Diff(flat(offsetsBefore), flat(offsetsAfter)); d != "" {
		t.Fatalf("group offsets differ (-zk +kraft):\n%s", d)
	}
	t.Logf("  group %s: all %d committed offsets intact", group, len(committed))

	// SCRAM logins and ACLs, on the SASL listener.
	scramClient := func(user, pass string) *kgo.Client {
		// Not idempotent: an idempotent producer would first need
		// IDEMPOTENT_WRITE on the cluster, and the test wants the topic
		// ACL's answer.
		cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(kc.SASLBootstrapServers(), ",")...),
			kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()), kgo.RequestRetries(2), kgo.DisableIdempotentWrite())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	alice := scramClient("alice", rich.SCRAM["alice/SCRAM-SHA-512"])
	if _, err := kadm.NewClient(alice).ListEndOffsets(ctx, "orders.v1"); err != nil {
		t.Fatalf("alice (SCRAM-SHA-512, allowed to describe orders.v1): %v", err)
	}
	if got, err := kafkatest.ConsumeAll(ctx, kc, []string{"orders.v1"}, 1, kgo.SeedBrokers(strings.Split(kc.SASLBootstrapServers(), ",")...),
		kgo.SASL(scram.Auth{User: "alice", Pass: rich.SCRAM["alice/SCRAM-SHA-512"]}.AsSha512Mechanism())); err != nil || len(got) == 0 {
		t.Fatalf("alice reading orders.v1 (allowed by a migrated ACL): %d records, %v", len(got), err)
	}
	err = alice.ProduceSync(ctx, &kgo.Record{Topic: "orders.v1", Value: []byte("x")}).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("alice producing to orders.v1 (no ACL allows it): %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	bad := scramClient("alice", "wrong-password")
	if _, err := kadm.NewClient(bad).ListBrokers(ctx); err == nil {
		t.Fatal("a wrong SCRAM password was accepted")
	}
	mallory := scramClient("mallory", "mallory-secret")
	_, err = kafkatest.ConsumeAll(ctx, kc, []string{"payments_v2.eu"}, 1, kgo.SeedBrokers(strings.Split(kc.SASLBootstrapServers(), ",")...),
		kgo.SASL(scram.Auth{User: "mallory", Pass: "mallory-secret"}.AsSha512Mechanism()))
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("mallory reading payments_v2.eu (a migrated DENY ACL): %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	if _, err := kadm.NewClient(mallory).ListEndOffsets(ctx, "payments_v2.eu"); err != nil {
		t.Fatalf("mallory describing payments_v2.eu (allowed by a migrated prefixed ACL): %v", err)
	}
	t.Logf("  SCRAM logins of migrated users work, a wrong password fails; ACLs allow and deny as before")

	// A new topic can be created and used; it has none of the configs
	// ZooKeeper held under its name without a topic.
	if r, err := kadmc.CreateTopic(ctx, 3, 3, nil, afterTopic); err != nil || r.Err != nil {
		t.Fatalf("create topic after migration: %v %v", err, r.Err)
	}
	pcl := kc.Client(t, kgo.RequiredAcks(kgo.AllISRAcks()))
	if err := retryUnknown(func() error {
		return pcl.ProduceSync(ctx, &kgo.Record{Topic: afterTopic, Value: []byte("new")}).FirstErr()
	}); err != nil {
		t.Fatalf("produce to a new topic: %v", err)
	}
	rcs, err := kadmc.DescribeTopicConfigs(ctx, afterTopic)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				t.Errorf("topic %s created after the migration has %s=%v: inherited from a topic-less /config/topics znode", afterTopic, c.Key, c.MaybeValue())
			}
		}
	}
	t.Logf("  a new topic was created and produced to, with no config inherited from /config/topics/%s", afterTopic)

	for _, id := range zc.Brokers() {
		ents, _ := os.ReadDir(zc.Node(id).DataDir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), "-stray") {
				t.Fatalf("broker %d set %s aside as stray", id, e.Name())
			}
		}
	}
	t.Logf("  no partition dir was set aside as stray")

	// The first start must elect leaders cleanly: no partition may go
	// through an unclean election (which ELR's unclean-shutdown handling
	// of first registrations caused, see migrate.CodeELRDeferred).
	for _, id := range ctrlIDs {
		b, err := os.ReadFile(kc.Node(id).LogPath())
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"UNCLEAN partition change", "using an unclean election", "handleBrokerUncleanShutdown"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("controller %d's log says %q: a migrated partition was not elected cleanly", id, bad)
			}
		}
	}
	t.Logf("  every leader was elected cleanly (no unclean election in the controller log)")

	// kmeta verify: the ZooKeeper state against the log Kafka 4.4.0 wrote
	// from kmeta's bootstrap.checkpoint. At the end of the bootstrap
	// transaction (before any broker registered) the controller's log must
	// hold exactly what ZooKeeper held, runtime state included; at the end
	// of the run, leaders and epochs have moved (ignored as a class) and
	// the one topic created since is the only difference.
	kc.Stop()
	out, serr, code = kmetaRun(t, "log", "dump", "kraft:"+ctrlDir, "--type", "EndTransactionRecord", "--records-only", "-o", "json")
	if code != 0 {
		t.Fatalf("log dump: exit %d\n%s", code, serr)
	}
	var end struct {
		Offset int64 `json:"offset"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &end); err != nil || end.Offset <= 0 {
		t.Fatalf("no EndTransactionRecord of the bootstrap transaction in %s: %v\n%s", ctrlDir, err, out)
	}
	// A point stops where Kafka's loader publishes: the end of the End's
	// batch (the End is its last record when nothing else was written
	// with it).
	at := fmt.Sprintf("kraft:%s@offset=%d", ctrlDir, batchEnd(t, ctrlDir, end.Offset))
	step(t, "10. kmeta verify --zk %s --kraft %s (the end of the bootstrap transaction)", zkData, at)
	out, serr, code = kmetaRun(t, "verify", "--zk", zkData, "--kraft", at)
	t.Logf("exit %d\n%s%s", code, out, serr)
	if code != 0 {
		t.Errorf("kmeta verify between ZooKeeper and the migrated controller's log at the bootstrap's end: exit %d", code)
	}
	step(t, "11. kmeta verify --zk %s --kraft kraft:%s --ignore runtime (the end of the run)", zkData, ctrlDir)
	out, serr, code = kmetaRun(t, "verify", "--zk", zkData, "--kraft", "kraft:"+ctrlDir, "--ignore", "runtime", "-o", "json")
	var rep struct {
		Findings []model.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify -o json: exit %d: %v\n%s%s", code, err, out, serr)
	}
	var differ []string
	for _, f := range rep.Findings {
		if f.Severity != model.SevInfo {
			differ = append(differ, f.Class+"/"+f.Code+" "+f.Entity)
		}
	}
	if want := []string{"topics/missing-in-zookeeper topic " + afterTopic}; code != 1 || !slices.Equal(differ, want) {
		t.Errorf("verify at the end of the run: exit %d, differences %q, want exit 1 and %q\n%s", code, differ, want, serr)
	} else {
		t.Logf("  exit 1: the only difference is the topic created after the migration")
	}
}

// checkKilledMigration: the migrate acceptance once more, on the state
// brokers killed with SIGKILL leave (their ephemeral registrations in
// ZooKeeper's snapshot): plan and apply accept it, and kmeta verify
// between that state and kmeta's migration of it is exit 0, the
// registrations explained (expected-zookeeper-only, no broker registered
// in KRaft yet).
func checkKilledMigration(t *testing.T, work, zkData, ctlSpec, encoderSecret string, brokers []int) {
	t.Helper()
	plan, out := filepath.Join(work, "killed-plan.json"), filepath.Join(work, "killed")
	if o, serr, code := kmetaRun(t, "migrate", "plan", "--zk", zkData, "--metadata-version", "4.4", "--controllers", ctlSpec, "--quorum", "dynamic",
		"--password-encoder-secret", encoderSecret, "--write", plan); code != exitOK {
		t.Fatalf("plan of the killed brokers' state: exit %d\n%s%s", code, o, serr)
	}
	if o, serr, code := kmetaRun(t, "migrate", "apply", "--plan", plan, "--password-encoder-secret", encoderSecret, "--out", out); code != exitOK {
		t.Fatalf("apply of the killed brokers' state: exit %d\n%s%s", code, o, serr)
	}
	kraft := "kraft:" + controllers.Dir(out, 3000)
	step(t, "3a. kmeta verify --zk %s --kraft %s --password-encoder-secret ... (the killed brokers' state)", zkData, kraft)
	code, v, serr := runVerify(t, "--zk", zkData, "--kraft", kraft, "--password-encoder-secret", encoderSecret)
	t.Logf("exit %d, result %s, explained: %q", code, v.Result, explained(v))
	if code != exitOK || v.Result != "equal" {
		t.Fatalf("verify of the killed brokers' state against kmeta's migration of it: exit %d (%s), findings:%s\n%s", code, v.Result, showFindings(v.Findings), serr)
	}
	for _, id := range brokers {
		if want := fmt.Sprintf("expected-zookeeper-only broker %d ", id); !slices.Contains(explained(v), want) {
			t.Errorf("verify does not explain broker %d's registration left in the snapshot (%q)", id, want)
		}
	}
}

// waitNoRegistrations waits until ZooKeeper expired the sessions of
// killed brokers: their ephemeral /brokers/ids znodes are gone, so that
// the brokers can register again when they restart.
func waitNoRegistrations(t *testing.T, addr, chroot string) {
	t.Helper()
	conn, _, err := gozk.Connect([]string{addr}, 10*time.Second, gozk.WithLogger(quietZK{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		ids, _, err := conn.Children(chroot + "/brokers/ids")
		if err == nil && len(ids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed brokers' registrations did not expire: %v %v", ids, err)
		}
	}
}

// checkQuorum asks Kafka (kafka-metadata-quorum describe --status and
// --replication, kafka-features describe) for the quorum: a leader, exactly
// the plan's controllers as voters (each Leader or Follower), with the
// directory ids kmeta wrote into their meta.properties, and kraft.version
// as the plan says.
func checkQuorum(t *testing.T, ctx context.Context, kc *kafkatest.Cluster, planFile string, ids []int, kraftVersion int) {
	t.Helper()
	p, err := migrate.ReadPlan(planFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kc.WaitQuorum(ctx, time.Minute, ids...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("  kafka-metadata-quorum / kafka-features:\n%s", s.Raw)
	if s.KRaftVersion != kraftVersion || p.KRaftVersion != int16(kraftVersion) {
		t.Errorf("kraft.version: Kafka finalized %d, plan %d, want %d", s.KRaftVersion, p.KRaftVersion, kraftVersion)
	}
	if kraftVersion == 0 {
		// A static quorum has no directory ids in its voter set.
		t.Logf("  quorum: leader %d, voters %v (Leader/Follower), kraft.version 0", s.LeaderID, s.VoterIDs())
		return
	}
	dirs := map[int]string{}
	for _, v := range s.Voters {
		dirs[v.ID] = v.DirectoryID
	}
	for _, c := range p.Controllers {
		if dirs[int(c.ID)] != c.DirectoryID.String() {
			t.Errorf("voter %d: Kafka reports directory id %q, kmeta wrote %s", c.ID, dirs[int(c.ID)], c.DirectoryID)
		}
	}
	t.Logf("  quorum: leader %d, voters %v (Leader/Follower) with kmeta's directory ids, kraft.version %d", s.LeaderID, s.VoterIDs(), s.KRaftVersion)
}

func alterBroker(ctx context.Context, adm *kadm.Client, id int32, key, value string) error {
	rs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: key, Value: &value}}, id)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Err != nil {
			return fmt.Errorf("%w (%s)", r.Err, r.ErrMessage)
		}
	}
	return nil
}

// logDataHash hashes the log segments and indexes of a broker dir: what
// migrate must never change.
func logDataHash(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if ext := filepath.Ext(p); ext != ".log" && ext != ".index" && ext != ".timeindex" && ext != ".snapshot" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func isKilled(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && strings.Contains(ee.String(), "killed")
}

func retryUnknown(fn func() error) error {
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		err := fn()
		if err == nil || !(errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.NotLeaderForPartition) ||
			errors.Is(err, kerr.LeaderNotAvailable)) || time.Now().After(deadline) {
			return err
		}
	}
}

// waitView captures the KRaft cluster's admin view until it agrees with
// the ZooKeeper-mode one (brokers apply the migrated records a moment
// after they start, one at a time on a busy machine), or a minute passed.
func waitView(t *testing.T, ctx context.Context, kc *kafkatest.Cluster, want *kafkatest.AdminView) *kafkatest.AdminView {
	t.Helper()
	cl := kc.Client(t)
	var v *kafkatest.AdminView
	var err error
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		v, err = kafkatest.CaptureAdminView(ctx, cl, kafkatest.Latest4)
		if (err == nil && len(viewDiffs(want, v)) == 0) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// viewDiffs compares the migrated cluster's admin view with the
// ZooKeeper-mode one. What may differ, by design: leaders, ISRs and epochs
// (the brokers restarted) and finalized features (ZooKeeper mode has none).
func viewDiffs(zkv, kv *kafkatest.AdminView) []string {
	type topic struct {
		Name, ID   string
		Internal   bool
		Partitions map[int32][]int32
	}
	topics := func(v *kafkatest.AdminView) []topic {
		var out []topic
		for _, tp := range v.Topics {
			x := topic{Name: tp.Name, ID: tp.ID, Internal: tp.Internal, Partitions: map[int32][]int32{}}
			for _, p := range tp.Partitions {
				x.Partitions[p.Partition] = p.Replicas
			}
			out = append(out, x)
		}
		return out
	}
	var out []string
	if zkv.ClusterID != kv.ClusterID {
		out = append(out, fmt.Sprintf("cluster id %s, want ZooKeeper's %s", kv.ClusterID, zkv.ClusterID))
	}
	for _, c := range []struct {
		what      string
		zk, kraft any
	}{
		{"topics (name, id, partitions, replicas)", topics(zkv), topics(kv)},
		{"topic configs", zkv.TopicConfigs, kv.TopicConfigs},
		{"broker configs", zkv.BrokerConfigs, kv.BrokerConfigs},
		{"cluster-default broker configs", zkv.BrokerDefaultConfigs, kv.BrokerDefaultConfigs},
		{"ACLs", zkv.ACLs, kv.ACLs},
		{"client quotas", zkv.Quotas, kv.Quotas},
		{"SCRAM users", zkv.SCRAMUsers, kv.SCRAMUsers},
		{"delegation tokens", zkv.DelegationTokens, kv.DelegationTokens},
	} {
		if d := cmp.Diff(c.zk, c.kraft); d != "" {
			out = append(out, fmt.Sprintf("%s differ (-zk +kraft):\n%s", c.what, d))
		}
	}
	return out
}

// compareViews fails the test on any difference viewDiffs finds.
func compareViews(t *testing.T, zkv, kv *kafkatest.AdminView) {
	t.Helper()
	for _, d := range viewDiffs(zkv, kv) {
		t.Error(d)
	}
	js, _ := json.Marshal(kv.Features)
	t.Logf("  topics with ids and assignments, configs, ACLs, quotas, SCRAM users and %d delegation tokens equal; finalized features %s",
		len(kv.DelegationTokens), js)
}

func countsByPartition(want, got []kafkatest.Message) string {
	n := map[string][2]int{}
	for _, m := range want {
		k := fmt.Sprintf("%s-%d", m.Topic, m.Partition)
		c := n[k]
		c[0]++
		n[k] = c
	}
	for _, m := range got {
		k := fmt.Sprintf("%s-%d", m.Topic, m.Partition)
		c := n[k]
		c[1]++
		n[k] = c
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s %d/%d", k, n[k][0], n[k][1]))
	}
	return strings.Join(out, ", ")
}

// hasCommand reports whether kmeta has a top-level command name.
