package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/toolstub"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/migrate/online"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
	"github.com/kmeta/kmeta/verify"
)

// verifyOutput is the part of `kmeta verify -o json` the test reads.
type verifyOutput struct {
	Result   string          `json:"result"`
	Findings []model.Finding `json:"findings"`
}

func runVerify(t *testing.T, args ...string) (int, verifyOutput, string) {
	t.Helper()
	code, out, stderr := runKmeta(t, append([]string{"verify", "-o", "json"}, args...)...)
	var v verifyOutput
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("verify %v: exit %d, output is not JSON (%v):\n%s\nstderr: %s", args, code, err, out, stderr)
	}
	return code, v, stderr
}

// differences are the findings that make the views differ (not the
// explained, info ones).
func differences(v verifyOutput) []model.Finding {
	var out []model.Finding
	for _, f := range v.Findings {
		if f.Severity != model.SevInfo {
			out = append(out, f)
		}
	}
	return out
}

func explained(v verifyOutput) []string {
	var out []string
	for _, f := range v.Findings {
		if f.Severity == model.SevInfo {
			out = append(out, f.Code+" "+f.Entity+" "+f.Field)
		}
	}
	return out
}

func showFindings(fs []model.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s %s %s %s: %s", f.Class, f.Severity, f.Code, f.Entity, f.Field, f.Message)
	}
	return b.String()
}

// TestVerifyKafkaMigration is the acceptance test of verify, with real
// Kafka as the oracle. A Kafka 3.9.2 ZooKeeper-mode cluster (ZooKeeper and
// three brokers, SASL, AclAuthorizer) gets the rich metadata set and goes
// through Kafka's own online migration (StartMigration). Then:
//
//	a. kmeta verify of the live ZooKeeper against the controller's
//	   metadata log dir reports no difference;
//	   parity (issue 10): kmeta migrate plan + apply of that same live
//	   ZooKeeper state, kmeta diff against the controller's log at the
//	   end of Kafka's migration transaction: only documented differences
//	   (checkMigrationParity);
//	b. changes made through Kafka's admin API in dual-write keep it clean;
//	c. with the controller stopped (so it cannot repair ZooKeeper), drift
//	   injected behind Kafka's back, one class at a time, is reported
//	   exactly once in the right class and nothing else is; the KRaft-side
//	   drift is a batch appended with kmeta's writer to a copy of the
//	   controller's log.
//
// The clusters start once; everything else is kmeta reading them.
func TestVerifyKafkaMigration(t *testing.T) {
	kafkatest.Concurrently(t, 145*time.Second) // make test, 2026-12-06
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	const chroot = "/kafka"
	c := kafkatest.StartZKCluster(t, d, zks, kafkatest.ZKClusterOptions{Brokers: 3, Chroot: chroot, SASL: true, Authorizer: true})
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	md, err := kafkatest.PopulateRich(ctx, c, c.Admin(t), kafkatest.RichOptions{ACLs: true, Tokens: true})
	if err != nil {
		t.Fatalf("%v\ndone: %v", err, md.Log)
	}
	m := kafkatest.StartMigration(t, zks, c, kafkatest.MigrationOptions{})
	ctrl := m.Controllers[0]
	zkSrc := "zk://" + zks.Connect(chroot)
	kraftSrc := "kraft:" + c.MetadataLogDir(ctrl)

	// verifyEventually re-runs verify while dual-write catches up: the
	// controller writes ZooKeeper asynchronously after committing.
	// Reading two live views is a race too: a leader or ISR change can
	// land between the two reads (the runtime class), so a difference
	// must persist to count.
	verifyEventually := func(what string, extra ...string) verifyOutput {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, v, stderr := runVerify(t, append([]string{"--zk", zkSrc, "--kraft", kraftSrc}, extra...)...)
			if code == exitOK && len(differences(v)) == 0 {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: verify exit %d (%s), differences:%s\nstderr: %s", what, code, v.Result, showFindings(differences(v)), stderr)
			}
			time.Sleep(time.Second)
		}
	}

	// a. Right after the migration, with the brokers' own
	// partition.metadata files checked too.
	var logDirs []string
	for _, id := range c.Brokers() {
		logDirs = append(logDirs, c.Node(id).DataDir)
	}
	v := verifyEventually("after the migration", "--broker-log-dirs", strings.Join(logDirs, ","))
	t.Logf("a. after Kafka's migration: verify equal; explained: %v", explained(v))
	verifyLive(ctx, t, c, ctrl, zkSrc)
	checkOnlineStatus(t, c, zkSrc, ctrl)

	// Parity (issue 10): kmeta's offline migration of this same
	// ZooKeeper state against the image Kafka's migration wrote.
	checkMigrationParity(t, c, ctrl, zkSrc)

	// b. Dual-write: changes through Kafka's admin API.
	adm := c.Admin(t)
	s := kadm.StringPtr
	if _, err := adm.CreateTopic(ctx, 2, 2, map[string]*string{"retention.ms": s("3600000")}, "dw.created"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "dw.deleted"); err != nil {
		t.Fatal(err)
	}
	if rs, err := adm.DeleteTopics(ctx, "dw.deleted"); err != nil || rs.Error() != nil {
		t.Fatalf("delete topic: %v %v", err, rs.Error())
	}
	if rs, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: s("7200000")}}, "user_events"); err != nil || rs[0].Err != nil {
		t.Fatalf("alter topic config: %v %v", err, rs)
	}
	if rs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: "log.cleaner.backoff.ms", Value: s("17000")}}); err != nil || rs[0].Err != nil {
		t.Fatalf("alter broker default config: %v %v", err, rs)
	}
	if _, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{
		Entity: []kadm.ClientQuotaEntityComponent{{Type: "user", Name: s("dave")}},
		Ops:    []kadm.AlterClientQuotaOp{{Key: "consumer_byte_rate", Value: 4096}},
	}}); err != nil {
		t.Fatal(err)
	}
	if rs, err := adm.CreateACLs(ctx, kadm.NewACLs().Topics("dw.created").Allow("User:dave").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternLiteral)); err != nil || rs[0].Err != nil {
		t.Fatalf("create ACL: %v %v", err, rs)
	}
	if _, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "dave", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "dave-secret"}}); err != nil {
		t.Fatal(err)
	}
	v = verifyEventually("after admin-API changes in dual-write")
	t.Logf("b. after dual-write changes (topic created, topic deleted, topic and default configs, quota, ACL, SCRAM user): verify equal; explained: %v", explained(v))

	// c. Drift. Stop the controller first: in dual-write it would
	// overwrite ZooKeeper with its own view.
	c.StopNode(ctrl)
	frozen := fstree.Copy(t, c.MetadataLogDir(ctrl))
	kraftSrc = "kraft:" + frozen
	// The KRaft-side drift goes into a second copy.
	drifted := fstree.Copy(t, frozen)
	base := verifyEventually("with the controller stopped")
	baseExplained := explained(base)

	conn, _, err := zk.Connect([]string{zks.Addr()}, 10*time.Second, zk.WithLogger(quietZK{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p := func(path string) string { return chroot + path }
	badLogDir := t.TempDir()
	type drift struct {
		what  string
		class string
		code  string
		zk    []string // raw znodes (relative) whose content is restored afterwards
		do    func() error
		kraft bool
		args  []string // extra verify arguments
	}
	getJSON := func(path string) map[string]any {
		b, _, err := conn.Get(p(path))
		if err != nil {
			t.Fatalf("get %s: %v", path, err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	setJSON := func(path string, doc map[string]any) error {
		b, _ := json.Marshal(doc)
		_, err := conn.Set(p(path), b, -1)
		return err
	}
	drifts := []drift{
		{what: "topic config changed in its znode", class: "configs", code: "different", zk: []string{"/config/topics/orders.v1"}, do: func() error {
			doc := getJSON("/config/topics/orders.v1")
			doc["config"].(map[string]any)["retention.ms"] = "1234"
			return setJSON("/config/topics/orders.v1", doc)
		}},
		{what: "ACL znode deleted", class: "acls", code: "missing-in-zookeeper", zk: []string{"/kafka-acl/Group/payments-group"}, do: func() error {
			return conn.Delete(p("/kafka-acl/Group/payments-group"), -1)
		}},
		{what: "partition assignment changed", class: "partitions", code: "different", zk: []string{"/brokers/topics/compacted"}, do: func() error {
			doc := getJSON("/brokers/topics/compacted")
			parts := doc["partitions"].(map[string]any)
			r := parts["0"].([]any)
			slices.Reverse(r)
			return setJSON("/brokers/topics/compacted", doc)
		}},
		{what: "quota added", class: "quotas", code: "missing-in-kraft", zk: []string{"/config/clients/drift-client"}, do: func() error {
			_, err := conn.Create(p("/config/clients/drift-client"), []byte(`{"version":1,"config":{"producer_byte_rate":"1000"}}`), 0, zk.WorldACL(zk.PermAll))
			return err
		}},
		{what: "SCRAM credential changed", class: "scram", code: "different", zk: []string{"/config/users/alice"}, do: func() error {
			doc := getJSON("/config/users/alice")
			cfg := doc["config"].(map[string]any)
			cred := cfg["SCRAM-SHA-256"].(string)
			cfg["SCRAM-SHA-256"] = strings.Replace(cred, "iterations=4096", "iterations=4097", 1)
			return setJSON("/config/users/alice", doc)
		}},
		{what: "topic znode removed", class: "topics", code: "missing-in-zookeeper", zk: []string{"/brokers/topics/user_events"}, do: func() error {
			return deleteRecursive(conn, p("/brokers/topics/user_events"))
		}},
		{what: "KRaft record appended (kmeta's writer)", class: "configs", code: "different", kraft: true, do: func() error {
			return appendConfigRecord(drifted, "payments_v2.eu", "min.insync.replicas", "1")
		}},
		{what: "partition.metadata with another topic id", class: "topics", code: "partition-metadata-topic-id", args: []string{"--broker-log-dirs", badLogDir}, do: func() error {
			d := filepath.Join(badLogDir, "orders.v1-0")
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(d, "partition.metadata"), []byte("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n"), 0o644)
		}},
		{what: "broker registration missing", class: "brokers", code: "missing-in-zookeeper", zk: []string{"/brokers/ids/3"}, do: func() error {
			// Broker 3's ephemeral registration: the broker keeps running
			// and does not re-register; the restore re-creates it.
			return conn.Delete(p("/brokers/ids/3"), -1)
		}},
	}
	var table []string
	for _, dr := range drifts {
		saved := map[string]*savedZnode{}
		for _, path := range dr.zk {
			saved[path] = saveZnode(t, conn, p(path))
		}
		if err := dr.do(); err != nil {
			t.Fatalf("inject %s: %v", dr.what, err)
		}
		src := kraftSrc
		if dr.kraft {
			src = "kraft:" + drifted
		}
		code, v, stderr := runVerify(t, append([]string{"--zk", zkSrc, "--kraft", src}, dr.args...)...)
		diffs := differences(v)
		var got []string
		for _, f := range diffs {
			got = append(got, f.Class+"/"+f.Code+" "+f.Entity+" "+f.Field)
		}
		table = append(table, fmt.Sprintf("%-42s | %-10s | %s", dr.what, dr.class, strings.Join(got, "; ")))
		if code != exitFindings || len(diffs) != 1 || diffs[0].Class != dr.class || diffs[0].Code != dr.code {
			t.Errorf("%s: exit %d, want 1 finding %s/%s; got:%s\nstderr: %s", dr.what, code, dr.class, dr.code, showFindings(diffs), stderr)
		}
		if e := explained(v); !slices.Equal(e, baseExplained) {
			t.Errorf("%s: explained findings changed: %v, before %v", dr.what, e, baseExplained)
		}
		if dr.args == nil && dr.class != "brokers" { // classes status compares
			checkStatusVerifyLine(t, zkSrc, src, 1)
		}
		for _, path := range dr.zk {
			saved[path].restore(t, conn)
		}
		// Restored, the views agree again. A subtree re-created from
		// scratch has new znode versions, so the explained findings are
		// taken afresh.
		code, v, _ = runVerify(t, "--zk", zkSrc, "--kraft", kraftSrc)
		if code != exitOK {
			t.Fatalf("after restoring %s: exit %d:%s", dr.what, code, showFindings(differences(v)))
		}
		baseExplained = explained(v)
	}
	t.Logf("c. injected drift → what verify reported (differences only):\n%-42s | %-10s | %s\n%s",
		"drift", "class", "findings", strings.Join(table, "\n"))
}

// checkStatusVerifyLine: migrate status on ZooKeeper and KRaft in
// dual-write, differing by want differences, says so and gives as the
// fix the kmeta verify line that lists them. The line, run with sh, gives
// kmeta exactly the sources and the classes status leaves out; run, it
// exits 1 with the differences status counted.
func checkStatusVerifyLine(t *testing.T, zkSrc, kraftSrc string, want int) {
	t.Helper()
	_, d, stderr := migrateStatusJSON(t, "--zk", zkSrc, "--kraft", kraftSrc)
	var fixes []string
	for _, f := range d.Findings {
		if f.Code == online.CodeZKBehind {
			fixes = append(fixes, f.Fix)
		}
	}
	args := []string{"verify", "--zk", zkSrc, "--kraft", kraftSrc, "--ignore", "brokers", "--ignore", "migration", "--ignore", "runtime"}
	line := "kmeta " + shellword.Join(args)
	if d.Phase != "KRaftDualWriting" || d.Differences != want || !slices.Equal(fixes, []string{line}) {
		t.Fatalf("migrate status: phase %s, %d differences (want %d), fixes %q, want %q\nstderr: %s", d.Phase, d.Differences, want, fixes, line, stderr)
	}
	out, calls, err := toolstub.New(t, "kmeta").Run(t, "", line)
	if err != nil || len(calls) != 1 || !slices.Equal(calls[0].Args, args) {
		t.Fatalf("%s: %v %q\n%s", line, err, calls, out)
	}
	code, v, stderr := runVerify(t, calls[0].Args[1:]...)
	if n := len(slices.DeleteFunc(v.Findings, func(f model.Finding) bool { return !verify.IsDifference(f) })); code != exitFindings || n != want {
		t.Fatalf("%s: exit %d, %d differences, want %d\nstderr: %s", line, code, n, want, stderr)
	}
}

type quietZK struct{}

func (quietZK) Printf(string, ...any) {}

// savedZnode is a subtree's data, to put back after a drift.
type savedZnode struct {
	path     string
	data     []byte
	exists   bool
	children []*savedZnode
}

func saveZnode(t *testing.T, conn *zk.Conn, path string) *savedZnode {
	t.Helper()
	data, _, err := conn.Get(path)
	if errors.Is(err, zk.ErrNoNode) {
		return &savedZnode{path: path}
	}
	if err != nil {
		t.Fatalf("save %s: %v", path, err)
	}
	s := &savedZnode{path: path, data: data, exists: true}
	kids, _, err := conn.Children(path)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(kids)
	for _, k := range kids {
		s.children = append(s.children, saveZnode(t, conn, path+"/"+k))
	}
	return s
}

// restore puts the saved data back: in place where the znode still
// exists (its version moves on, as any write's), re-created where it was
// removed, removed where it did not exist.
func (s *savedZnode) restore(t *testing.T, conn *zk.Conn) {
	t.Helper()
	if !s.exists {
		if err := deleteRecursive(conn, s.path); err != nil && !errors.Is(err, zk.ErrNoNode) {
			t.Fatalf("restore %s: %v", s.path, err)
		}
		return
	}
	cur, _, err := conn.Get(s.path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		if _, err := conn.Create(s.path, s.data, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("restore %s: %v", s.path, err)
		}
	case err != nil:
		t.Fatalf("restore %s: %v", s.path, err)
	case string(cur) != string(s.data):
		if _, err := conn.Set(s.path, s.data, -1); err != nil {
			t.Fatalf("restore %s: %v", s.path, err)
		}
	}
	for _, k := range s.children {
		k.restore(t, conn)
	}
}

func deleteRecursive(conn *zk.Conn, path string) error {
	kids, _, err := conn.Children(path)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := deleteRecursive(conn, path+"/"+k); err != nil {
			return err
		}
	}
	return conn.Delete(path, -1)
}

// appendConfigRecord appends one data batch holding a ConfigRecord to the
// metadata log in dir (a copy), as a new segment at the log end offset,
// written by kmeta's segment writer.
func appendConfigRecord(dir, topic, key, value string) error {
	part := filepath.Join(dir, "__cluster_metadata-0")
	ld, err := metalog.OpenLogDir(part)
	if err != nil {
		return err
	}
	st := ld.Log(metalog.StreamOptions{TolerateTornTail: true})
	defer st.Close()
	next, epoch := int64(0), int32(0)
	for {
		b, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		next, epoch = b.NextOffset(), b.PartitionLeaderEpoch
	}
	rec := &records.ConfigRecord{ResourceType: int8(model.ConfigTopic), ResourceName: topic, Name: key, Value: &value}
	val, err := records.EncodeMetadata(nil, rec, 0)
	if err != nil {
		return err
	}
	w, err := metalog.CreateSegment(part, next, metalog.WriteOptions{})
	if err != nil {
		return err
	}
	if err := w.AppendData(epoch, time.Now().UnixMilli(), [][]byte{val}); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// verifyLive is part a against the running cluster instead of the
// controller's log dir. The brokers stay ZooKeeper-mode brokers in
// Kafka's online migration (dual-write, phase 4 of the 3.9 docs), so
// kafka:// of them is refused as a ZooKeeper-mode cluster; the KRaft side
// that runs is the controller (3.9, so --bootstrap-controller, KIP-919,
// 3.7+), which answers for the cluster id, the features and the quorum.
// verify of ZooKeeper against it is clean, and its JSON lists exactly the
// fields a controller does not report. The quorum kmeta reads there is
// the one kafka-metadata-quorum and kafka-features report.
func verifyLive(ctx context.Context, t *testing.T, c *kafkatest.Cluster, ctrl int, zkSrc string) {
	t.Helper()
	code, _, stderr := runKmeta(t, "verify", "-o", "json", "--zk", zkSrc, "--kraft", "kafka://"+c.BootstrapServers())
	if code != exitFailure || !strings.Contains(stderr, "ZooKeeper-mode broker") {
		t.Errorf("verify against the migrating (ZooKeeper-mode) brokers: exit %d, want %d naming a ZooKeeper-mode broker: %s", code, exitFailure, stderr)
	}

	ctlAddr := fmt.Sprintf("127.0.0.1:%d", c.Node(ctrl).ControllerPort)
	code, out, stderr := runKmeta(t, "verify", "-o", "json", "--zk", zkSrc, "--bootstrap-controller", ctlAddr)
	var doc struct {
		Result            string          `json:"result"`
		Findings          []model.Finding `json:"findings"`
		NotComparedFields []model.Field   `json:"notComparedFields"`
		Right             struct {
			Kind        string        `json:"kind"`
			NotReported []model.Field `json:"notReported"`
		} `json:"right"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("verify --bootstrap-controller: exit %d, output is not JSON (%v):\n%s\nstderr: %s", code, err, out, stderr)
	}
	if code != exitOK || doc.Result != "equal" || len(differences(verifyOutput{Findings: doc.Findings})) > 0 {
		t.Errorf("verify --zk against the controller (%s): exit %d (%s), findings:%s\nstderr: %s", ctlAddr, code, doc.Result, showFindings(doc.Findings), stderr)
	}
	// What the admin API never reports, and what a controller does not
	// answer (it answers for controllers, features and the quorum):
	// the quorum, the controllers' ranges and their migration flags
	// (ApiVersions' ZkMigrationReady) are reported.
	want := []model.Field{
		model.FieldACLs, model.FieldBrokers, model.FieldBrokerCordonedLogDirs, model.FieldBrokerEndpoints, model.FieldBrokerEpoch,
		model.FieldBrokerFeatures, model.FieldBrokerFenced, model.FieldBrokerControlledShutdown, model.FieldBrokerIncarnationID,
		model.FieldBrokerMigrating, model.FieldBrokerLogDirs, model.FieldClientQuotas, model.FieldBrokerConfigs, model.FieldTopicConfigs,
		model.FieldControllerEndpoints, model.FieldControllerIncarnationID,
		model.FieldDelegationTokens, model.FieldMigration, model.FieldPartitionReassignment, model.FieldPartitionDirectories,
		model.FieldPartitionELR, model.FieldPartitionLeaderRecovery, model.FieldPartitionEpoch, model.FieldProducerIDs,
		model.FieldSCRAM, model.FieldSCRAMSecrets, model.FieldTopics,
	}
	slices.Sort(want)
	if !slices.Equal(doc.NotComparedFields, want) || !slices.Equal(doc.Right.NotReported, want) {
		t.Errorf("not compared %q (the controller's view lists %q), want %q", doc.NotComparedFields, doc.Right.NotReported, want)
	}
	t.Logf("a'. verify --zk ... --bootstrap-controller %s: %s, exit %d; not compared: %v", ctlAddr, doc.Result, code, doc.NotComparedFields)

	// The quorum of the live image against Kafka's tools.
	kq, err := c.DescribeQuorum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runKmeta(t, "image", "-o", "json", "--bootstrap-controller", ctlAddr)
	var img struct {
		ClusterID string `json:"clusterId"`
		Quorum    *struct {
			LeaderID     int `json:"leaderId"`
			LeaderEpoch  int `json:"leaderEpoch"`
			KRaftVersion int `json:"kraftVersion"`
			Voters       []struct {
				ID          int    `json:"id"`
				DirectoryID string `json:"directoryId"`
			} `json:"voters"`
		} `json:"quorum"`
	}
	if err := json.Unmarshal([]byte(out), &img); err != nil || code != exitOK || img.Quorum == nil {
		t.Fatalf("image --bootstrap-controller: exit %d (%v):\n%s\nstderr: %s", code, err, out, stderr)
	}
	var ids []int
	dirs, kdirs := map[int]string{}, map[int]string{}
	for _, v := range img.Quorum.Voters {
		ids = append(ids, v.ID)
		dirs[v.ID] = v.DirectoryID
	}
	for _, v := range kq.Voters {
		// kafka-metadata-quorum leaves out a voter's directory id when it
		// is Uuid.ZERO_UUID (a static quorum's voters).
		d := v.DirectoryID
		if d == "" {
			d = model.UUID{}.String()
		}
		kdirs[v.ID] = d
	}
	slices.Sort(ids)
	if !maps.Equal(dirs, kdirs) {
		t.Errorf("live quorum's voter directory ids %v, Kafka's tool %v:\n%s", dirs, kdirs, kq.Raw)
	}
	kv := kq.KRaftVersion
	if kv < 0 {
		kv = 0 // kafka-features prints no kraft.version before it is finalized
	}
	// features describe shows the controller's supported ranges: each as
	// kafka-features describe (asked of that controller) prints it.
	code, out, stderr = runKmeta(t, "features", "describe", "-o", "json", "--bootstrap-controller", ctlAddr)
	var fd struct {
		Nodes []struct {
			Kind      string              `json:"kind"`
			ID        int                 `json:"id"`
			Supported map[string][2]int16 `json:"supported"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &fd); err != nil || code != exitOK || len(fd.Nodes) != 1 || fd.Nodes[0].Kind != "controller" || fd.Nodes[0].ID != ctrl {
		t.Fatalf("features describe --bootstrap-controller: exit %d (%v):\n%s\nstderr: %s", code, err, out, stderr)
	}
	for _, l := range strings.Split(kq.Raw, "\n") {
		f := strings.Fields(l)
		if len(f) < 6 || f[0] != "Feature:" || f[2] != "SupportedMinVersion:" || f[4] != "SupportedMaxVersion:" {
			continue
		}
		if f[1] == "metadata.version" {
			continue // printed as release names (3.0-IV1), not levels
		}
		got, ok := fd.Nodes[0].Supported[f[1]]
		if !ok || fmt.Sprint(got[0]) != f[3] || fmt.Sprint(got[1]) != f[5] {
			t.Errorf("controller %d supports %s %v (reported %v); kafka-features: %s", ctrl, f[1], got, ok, l)
		}
	}
	if img.ClusterID != kq.ClusterID || img.Quorum.LeaderID != kq.LeaderID || img.Quorum.LeaderEpoch != kq.LeaderEpoch ||
		!slices.Equal(ids, kq.VoterIDs()) || img.Quorum.KRaftVersion != kv {
		t.Errorf("live quorum: cluster %s leader %d epoch %d voters %v kraft.version %d; Kafka's tools:\n%s",
			img.ClusterID, img.Quorum.LeaderID, img.Quorum.LeaderEpoch, ids, img.Quorum.KRaftVersion, kq.Raw)
	}
}
