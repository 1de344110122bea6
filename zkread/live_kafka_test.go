package zkread

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/google/go-cmp/cmp"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
	"github.com/twmb/franz-go/pkg/kadm"
)

// quietLogger silences go-zookeeper, which the tests use to write znodes.
type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// TestLiveZooKeeper runs one real ZooKeeper and one ZK-mode Kafka 3.9.2
// broker under a chroot, populates it through Kafka's admin tools, and
// checks: the live read decoded equals what Kafka's admin API reports;
// chroot handling; digest auth, a wrong password and a missing one;
// an unreachable ensemble; and, after stopping ZooKeeper, that the
// offline read of its data dir equals the last live read, also when the
// newest snapshot is corrupt.
func TestLiveZooKeeper(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{"snapCount": "100"}})
	const chroot = "/kafka/live"
	c := kafkatest.StartZKCluster(t, d, zks, kafkatest.ZKClusterOptions{Chroot: chroot, Props: map[string]string{
		"authorizer.class.name":          "kafka.security.authorizer.AclAuthorizer",
		"allow.everyone.if.no.acl.found": "true",
		"super.users":                    "User:ANONYMOUS",
		// Dynamic password configs are stored encoded with it.
		"password.encoder.secret": "encoder-secret-for-tests",
	}})
	bs := c.BootstrapServers()
	run := func(tool string, args ...string) {
		t.Helper()
		d.MustRun(t, tool, append([]string{"--bootstrap-server", bs}, args...)...)
	}
	run(d.Tools.Topics, "--create", "--topic", "a.b", "--partitions", "3", "--replication-factor", "1", "--config", "retention.ms=1000000")
	run(d.Tools.Topics, "--create", "--topic", "c_d", "--partitions", "1", "--replication-factor", "1")
	run(d.Tools.Topics, "--alter", "--topic", "c_d", "--partitions", "2")
	run(d.Tools.Configs, "--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.ms=604800000")
	run(d.Tools.Configs, "--alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config", "log.cleaner.threads=2")
	run(d.Tools.Configs, "--alter", "--entity-type", "users", "--entity-name", "x y*", "--entity-type", "clients", "--entity-default", "--add-config", "producer_byte_rate=100")
	run(d.Tools.Configs, "--alter", "--entity-type", "ips", "--entity-default", "--add-config", "connection_creation_rate=7")
	run(d.Tools.Configs, "--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config", "SCRAM-SHA-512=[iterations=5000,password=pw]")
	run(d.Tools.Configs, "--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config", "consumer_byte_rate=10")
	run("kafka.admin.AclCommand", "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "a.b")
	run("kafka.admin.AclCommand", "--add", "--deny-principal", "User:bob", "--operation", "All", "--group", "g", "--resource-pattern-type", "prefixed")

	ctx := context.Background()
	opts := LiveOptions{Servers: []string{zks.Addr()}, Chroot: chroot, Consistent: true, InFlight: 64, Connections: 2}
	var progressCalls int
	opts.Progress = func(done, known int) {
		progressCalls++
		if done > known {
			t.Errorf("progress %d of %d", done, known)
		}
	}
	tree, err := ReadLive(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if progressCalls != tree.Len() || tree.Chroot != chroot || tree.MaxZxid == 0 {
		t.Errorf("progress %d for %d nodes, chroot %q, zxid %d", progressCalls, tree.Len(), tree.Chroot, tree.MaxZxid)
	}
	img, err := Decode(tree, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	view, err := kafkatest.CaptureAdminView(ctx, c.Client(t), d.Version)
	if err != nil {
		t.Fatal(err)
	}
	compareAdminView(t, img, view)

	t.Run("sensitive-configs", func(t *testing.T) { liveSensitiveConfigs(t, ctx, c, zks, chroot, opts) })

	t.Run("chroot", func(t *testing.T) {
		whole, err := ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := DetectChroot(whole); err != nil || got != chroot {
			t.Errorf("detected %q, %v", got, err)
		}
		_, err = ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: "/nope"})
		var ze *ZnodeError
		if !errors.Is(err, ErrNoNode) || !errors.As(err, &ze) || ze.Path != "/nope" {
			t.Errorf("missing chroot: %v", err)
		}
	})

	t.Run("digest-auth", func(t *testing.T) {
		conn, _, err := zk.Connect([]string{zks.Addr()}, 10*time.Second, zk.WithLogger(quietLogger{}))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// The test's own setup session writes; ReadLive never does.
		if err := conn.AddAuth("digest", []byte("kafka:secret")); err != nil {
			t.Fatal(err)
		}
		// As Kafka lays ACLs out: the parent world-readable, the sensitive
		// children readable by the digest user only.
		acl := zk.DigestACL(zk.PermAll, "kafka", "secret")
		if _, err := conn.Create("/secure", []byte("x"), 0, append(acl, zk.WorldACL(zk.PermRead)...)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"/secure/a", "/secure/b"} {
			if _, err := conn.Create(p, []byte("x"), 0, acl); err != nil {
				t.Fatal(err)
			}
		}
		ok, err := ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: "/secure", Auth: "kafka:secret", ReadACLs: true})
		if err != nil || ok.Len() != 3 || ok.Get("/a").ACL[0].Scheme != "digest" {
			t.Fatalf("right password: %v, %d nodes", err, ok.Len())
		}
		_, err = ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: "/secure", Auth: "kafka:wrong"})
		var na *NoAuthError
		if !errors.Is(err, ErrAuth) || !errors.Is(err, ErrNoAuth) || !errors.As(err, &na) || !na.WrongCredentials || !strings.Contains(err.Error(), "password") {
			t.Errorf("wrong password: %v", err)
		}
		_, err = ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: "/secure"})
		if !errors.Is(err, ErrNoAuth) || errors.Is(err, ErrAuth) || !errors.As(err, &na) || !slices.Equal(na.Paths, []string{"/a", "/b"}) {
			t.Errorf("no credentials: %v", err)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		start := time.Now()
		_, err = ReadLive(ctx, LiveOptions{Servers: []string{addr}, Chroot: "/kafka", SessionTimeout: 2 * time.Second})
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), addr) {
			t.Errorf("err = %v", err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("took %s", el)
		}
	})

	// Offline == live: stop the broker (its ephemeral znodes go), read live
	// once more, restart ZooKeeper (it snapshots at startup) and stop it,
	// then read the data dir.
	c.Stop()
	live, err := ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: chroot, ReadACLs: true})
	if err != nil {
		t.Fatal(err)
	}
	// multiRead batches (the default on 3.8) and one request per read
	// read the same tree, and it is what go-zookeeper reads.
	single, err := ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: chroot, ReadACLs: true, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(live.Map(), single.Map()); d != "" {
		t.Errorf("multiRead read differs from single requests (-multi +single):\n%s", d)
	}
	noACL, err := ReadLive(ctx, LiveOptions{Servers: []string{zks.Addr()}, Chroot: chroot, Batch: 7})
	if err != nil {
		t.Fatal(err)
	}
	compareOracle(t, noACL, zks.Addr(), chroot)
	zks.Restart()
	zks.Stop()
	off, err := ReadDataDir(zks.DataDir, DataDirOptions{Chroot: chroot})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(live.Map(), off.Map()); d != "" {
		t.Fatalf("offline read differs from live read (-live +offline):\n%s", d)
	}
	if len(off.Warnings) != 0 {
		t.Errorf("warnings %v", off.Warnings)
	}
	t.Run("corrupt-newest-snapshot", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(zks.DataDir, "version-2")
		ents, _ := os.ReadDir(src)
		var newest string
		var newestZxid int64 = -1
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
			if strings.HasPrefix(e.Name(), "snapshot.") {
				z, _ := strconv.ParseInt(strings.TrimPrefix(e.Name(), "snapshot."), 16, 64)
				if z > newestZxid {
					newest, newestZxid = e.Name(), z
				}
			}
		}
		b, _ := os.ReadFile(filepath.Join(dir, newest))
		b[len(b)-30] ^= 0xff
		os.WriteFile(filepath.Join(dir, newest), b, 0o644)
		fb, err := ReadDataDir(dir, DataDirOptions{Chroot: chroot})
		if err != nil {
			t.Fatal(err)
		}
		if len(fb.Warnings) != 1 || !strings.Contains(fb.Warnings[0], newest) || len(fb.Findings) != 1 || fb.Findings[0].Code != model.WarnSnapshotFallback {
			t.Errorf("warnings %q", fb.Warnings)
		}
		if d := cmp.Diff(live.Map(), fb.Map()); d != "" {
			t.Errorf("fallback read differs from live read:\n%s", d)
		}
	})
}

// compareAdminView checks the image against what Kafka's admin API said.
func compareAdminView(t *testing.T, img *model.Image, v *kafkatest.AdminView) {
	t.Helper()
	if img.ClusterID != v.ClusterID {
		t.Errorf("cluster id %q, Kafka %q", img.ClusterID, v.ClusterID)
	}
	var brokers []int32
	for id := range img.Brokers {
		brokers = append(brokers, id)
	}
	slices.Sort(brokers)
	if !slices.Equal(brokers, v.Brokers) {
		t.Errorf("brokers %v, Kafka %v", brokers, v.Brokers)
	}
	want := map[string]kafkatest.AdminTopic{}
	for _, at := range v.Topics {
		for i := range at.Partitions {
			at.Partitions[i].OfflineReplicas = nil
		}
		want[at.Name] = at
	}
	got := map[string]kafkatest.AdminTopic{}
	for _, tp := range img.SortedTopics() {
		at := kafkatest.AdminTopic{Name: tp.Name, ID: tp.ID.String(), Internal: strings.HasPrefix(tp.Name, "__")}
		for _, p := range tp.SortedPartitions() {
			at.Partitions = append(at.Partitions, kafkatest.AdminPartition{Partition: p.ID, Leader: p.Leader,
				LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas, ISR: p.ISR})
		}
		got[tp.Name] = at
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("topics (-kafka +zkread):\n%s", d)
	}
	str := func(m map[string]string) map[string]*string {
		out := map[string]*string{}
		for k, v := range m {
			out[k] = &v
		}
		return out
	}
	gotTC := map[string]map[string]*string{}
	gotBC := map[string]map[string]*string{}
	gotDef := map[string]*string{}
	for r, kv := range img.Configs {
		switch {
		case r.Type == model.ConfigTopic:
			gotTC[r.Name] = str(kv)
		case r.Type == model.ConfigBroker && r.Name == "":
			gotDef = str(kv)
		default:
			gotBC[r.Name] = str(kv)
		}
	}
	for k, m := range v.TopicConfigs {
		if len(m) == 0 {
			delete(v.TopicConfigs, k)
		}
	}
	for k, m := range v.BrokerConfigs {
		if len(m) == 0 {
			delete(v.BrokerConfigs, k)
		}
	}
	if d := cmp.Diff(v.TopicConfigs, gotTC); d != "" {
		t.Errorf("topic configs (-kafka +zkread):\n%s", d)
	}
	if d := cmp.Diff(v.BrokerConfigs, gotBC); d != "" {
		t.Errorf("broker configs (-kafka +zkread):\n%s", d)
	}
	if d := cmp.Diff(v.BrokerDefaultConfigs, gotDef); d != "" {
		t.Errorf("default broker configs (-kafka +zkread):\n%s", d)
	}
	var gotQ []kafkatest.AdminQuota
	for _, q := range img.SortedClientQuotas() {
		aq := kafkatest.AdminQuota{Values: q.Values}
		for _, p := range model.CanonicalQuotaEntity(q.Entity) {
			aq.Entity = append(aq.Entity, kafkatest.AdminQuotaEntity{Type: p.Type, Name: p.Name})
		}
		gotQ = append(gotQ, aq)
	}
	sortQ := func(s []kafkatest.AdminQuota) {
		slices.SortFunc(s, func(a, b kafkatest.AdminQuota) int {
			return strings.Compare(quotaKey(a), quotaKey(b))
		})
	}
	sortQ(gotQ)
	sortQ(v.Quotas)
	if d := cmp.Diff(v.Quotas, gotQ); d != "" {
		t.Errorf("quotas (-kafka +zkread):\n%s", d)
	}
	var gotACL []kafkatest.AdminACL
	for _, a := range img.SortedACLs() {
		gotACL = append(gotACL, kafkatest.AdminACL{ResourceType: model.ACLResourceTypeName(a.ResourceType), ResourceName: a.ResourceName,
			PatternType: model.ACLPatternTypeName(a.PatternType), Principal: a.Principal, Host: a.Host,
			Operation: model.ACLOperationName(a.Operation), Permission: model.ACLPermissionTypeName(a.PermissionType)})
	}
	sortA := func(s []kafkatest.AdminACL) {
		slices.SortFunc(s, func(a, b kafkatest.AdminACL) int {
			return strings.Compare(a.ResourceType+a.ResourceName+a.PatternType+a.Principal+a.Host+a.Operation+a.Permission,
				b.ResourceType+b.ResourceName+b.PatternType+b.Principal+b.Host+b.Operation+b.Permission)
		})
	}
	sortA(gotACL)
	sortA(v.ACLs)
	if d := cmp.Diff(v.ACLs, gotACL); d != "" {
		t.Errorf("ACLs (-kafka +zkread):\n%s", d)
	}
	byUser := map[string][]kafkatest.AdminSCRAMCred{}
	for _, s := range img.SortedSCRAM() {
		byUser[s.User] = append(byUser[s.User], kafkatest.AdminSCRAMCred{Mechanism: model.ScramMechanismName(s.Mechanism), Iterations: s.Iterations})
	}
	wantS := map[string][]kafkatest.AdminSCRAMCred{}
	for _, s := range v.SCRAMUsers {
		wantS[s.User] = s.Credentials
	}
	if d := cmp.Diff(wantS, byUser); d != "" {
		t.Errorf("SCRAM (-kafka +zkread):\n%s", d)
	}
}

func quotaKey(q kafkatest.AdminQuota) string {
	var b strings.Builder
	for _, e := range q.Entity {
		b.WriteString(e.Type + "=")
		if e.Name == nil {
			b.WriteString("<default>;")
		} else {
			b.WriteString(strconv.Quote(*e.Name) + ";")
		}
	}
	return b.String()
}

// liveSensitiveConfigs adds secrets to the running ZooKeeper-mode cluster
// (a listener's key and keystore passwords and JAAS config on broker 1, a
// plugin's unknown key on broker 1, on the broker default and on a topic)
// and checks kmeta against Kafka: for every config DescribeConfigs
// returns for those resources, model.SensitiveConfig agrees with its
// isSensitive; and no value Kafka hides (as stored in ZooKeeper, encoded
// or not) appears in kmeta's redacted image or redacted znodes.
func liveSensitiveConfigs(t *testing.T, ctx context.Context, c *kafkatest.Cluster, zks *kafkatest.ZooKeeper, chroot string, opts LiveOptions) {
	adm := kadm.NewClient(c.Client(t))
	alter := func(name, value string, broker ...int32) bool {
		rs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: name, Value: kadm.StringPtr(value)}}, broker...)
		if err == nil {
			for _, r := range rs {
				if r.Err != nil {
					err = fmt.Errorf("%w (%s)", r.Err, r.ErrMessage)
				}
			}
		}
		if err != nil {
			t.Logf("Kafka refused %s on broker %v: %v", name, broker, err)
			return false
		}
		return true
	}
	set := 0
	for _, kv := range [][2]string{
		{"listener.name.plaintext.ssl.key.password", "key-pw-secret"},
		{"listener.name.plaintext.ssl.keystore.password", "keystore-pw-secret"},
		{"listener.name.plaintext.plain.sasl.jaas.config", `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="jaas-secret";`},
		{"my.plugin.api.token", "broker-plugin-secret"},
	} {
		if alter(kv[0], kv[1], 1) {
			set++
		}
	}
	if alter("my.plugin.default.token", "default-plugin-secret") {
		set++
	}
	if set < 3 {
		t.Fatalf("Kafka took only %d of the sensitive broker configs", set)
	}
	// Kafka's admin API refuses unknown topic configs in ZooKeeper mode,
	// but a plugin (or an older tool) may have written one: put it in the
	// znode and notify the brokers as Kafka's own writers do.
	conn, _, err := zk.Connect([]string{zks.Addr()}, 10*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tp := chroot + "/config/topics/a.b"
	data, st, err := conn.Get(tp)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["config"].(map[string]any)["my.plugin.api.token"] = "topic-plugin-secret"
	nb, _ := json.Marshal(doc)
	if _, err := conn.Set(tp, nb, st.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create(chroot+"/config/changes/config_change_", []byte(`{"version":2,"entity_path":"topics/a.b"}`), zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	// Kafka's verdicts, for every config of every resource that holds one.
	type res struct {
		typ  model.ConfigResourceType
		name string
	}
	kafkaSensitive := map[res]map[string]bool{}
	describe := func() {
		for _, r := range []res{{model.ConfigBroker, "1"}, {model.ConfigBroker, ""}, {model.ConfigTopic, "a.b"}} {
			var rcs kadm.ResourceConfigs
			var err error
			switch {
			case r.typ == model.ConfigTopic:
				rcs, err = adm.DescribeTopicConfigs(ctx, r.name)
			case r.name == "":
				rcs, err = adm.DescribeBrokerConfigs(ctx)
			default:
				rcs, err = adm.DescribeBrokerConfigs(ctx, 1)
			}
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]bool{}
			for _, rc := range rcs {
				if rc.Err != nil {
					t.Fatalf("describe %v: %v", r, rc.Err)
				}
				for _, cfg := range rc.Configs {
					m[cfg.Key] = cfg.Sensitive
				}
			}
			kafkaSensitive[r] = m
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for describe(); time.Now().Before(deadline); describe() {
		if _, ok := kafkaSensitive[res{model.ConfigTopic, "a.b"}]["my.plugin.api.token"]; ok {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if _, ok := kafkaSensitive[res{model.ConfigTopic, "a.b"}]["my.plugin.api.token"]; !ok {
		t.Log("Kafka does not describe the topic's unknown key; the rule for it is checked against loggableValue in model")
	}
	checked, hidden := 0, 0
	for r, m := range kafkaSensitive {
		for k, sens := range m {
			if got := model.SensitiveConfig(r.typ, k); got != sens {
				t.Errorf("%v %q: SensitiveConfig = %v, Kafka's DescribeConfigs isSensitive = %v", r, k, got, sens)
			}
			checked++
			if sens {
				hidden++
			}
		}
	}
	if hidden < 3 || checked < 300 {
		t.Errorf("checked %d configs against DescribeConfigs, %d sensitive", checked, hidden)
	}
	t.Logf("%d configs checked against DescribeConfigs' isSensitive, %d sensitive", checked, hidden)

	// What kmeta reads from ZooKeeper: every value Kafka hides, as stored.
	tree, err := ReadLive(ctx, LiveOptions{Servers: opts.Servers, Chroot: chroot})
	if err != nil {
		t.Fatal(err)
	}
	img, err := Decode(tree, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for r, m := range kafkaSensitive {
		for k, sens := range m {
			if v, ok := img.Configs[model.ConfigResource{Type: r.typ, Name: r.name}][k]; ok && sens {
				secrets = append(secrets, v)
			}
		}
	}
	for _, v := range img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "a.b"}] {
		if v == "topic-plugin-secret" {
			secrets = append(secrets, v)
		}
	}
	if len(secrets) < set {
		t.Fatalf("found %d of the secrets in ZooKeeper: %v", len(secrets), secrets)
	}
	out := printAll(t, img, false)
	var raw strings.Builder
	for _, p := range tree.Paths() {
		raw.Write(model.RedactRawZnode(p, tree.Get(p).Data))
	}
	if l := leaked(out+raw.String(), secrets); len(l) > 0 {
		t.Errorf("redacted output holds %q", l[0])
	}
	if l := leaked(printAll(t, img, true), secrets); len(l) != len(secrets) {
		t.Errorf("--show-secrets printed %d of %d secrets", len(l), len(secrets))
	}
}
