package zkread

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta/kmeta/model"
)

// The fixture in testdata/zk was written by a real ZooKeeper (Kafka 3.9.2's
// classpath) under a real Kafka 3.9.2 ZK-mode cluster; kafka-*.txt are what
// Kafka's own tools reported about that cluster. See testdata/zk/README.md.
const (
	fixtureDir    = "../testdata/zk"
	fixtureChroot = "/kafka/prod"
)

func fixtureImage(t *testing.T) (*Tree, *model.Image) {
	t.Helper()
	tree, err := ReadDataDir(filepath.Join(fixtureDir, "datadir"), DataDirOptions{Chroot: fixtureChroot})
	if err != nil {
		t.Fatal(err)
	}
	img, err := Decode(tree, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tree, img
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func ints(t *testing.T, s string) []int32 {
	t.Helper()
	out := []int32{}
	if s == "" {
		return out
	}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("bad int list %q", s)
		}
		out = append(out, int32(n))
	}
	return out
}

func fields(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Split(strings.TrimSpace(line), "\t") {
		if k, v, ok := strings.Cut(f, ": "); ok {
			m[k] = v
		}
	}
	return m
}

// TestFixtureTopics: topics, ids, assignments, leaders and ISRs equal what
// kafka-topics --describe reported; the topic pending deletion is listed.
func TestFixtureTopics(t *testing.T) {
	_, img := fixtureImage(t)
	type part struct {
		Leader                          int32
		Replicas, ISR, Adding, Removing []int32
	}
	type topic struct {
		ID    string
		Parts map[int32]part
	}
	want := map[string]*topic{}
	for _, l := range readLines(t, "kafka-topics.txt") {
		f := fields(l)
		if strings.HasPrefix(l, "Topic:") {
			want[f["Topic"]] = &topic{ID: f["TopicId"], Parts: map[int32]part{}}
			continue
		}
		if strings.HasPrefix(l, "\tTopic:") {
			p, _ := strconv.Atoi(f["Partition"])
			leader := int32(-1)
			if f["Leader"] != "none" {
				n, _ := strconv.Atoi(f["Leader"])
				leader = int32(n)
			}
			want[f["Topic"]].Parts[int32(p)] = part{leader, ints(t, f["Replicas"]), ints(t, f["Isr"]),
				ints(t, f["Adding Replicas"]), ints(t, f["Removing Replicas"])}
		}
	}
	if len(want) < 3 {
		t.Fatalf("oracle has %d topics", len(want))
	}
	got := map[string]*topic{}
	for name, tp := range img.Topics {
		if strings.HasPrefix(name, "__") || slices.Contains(img.ZK.PendingTopicDeletions, name) {
			continue
		}
		g := &topic{ID: tp.ID.String(), Parts: map[int32]part{}}
		for id, p := range tp.Partitions {
			g.Parts[id] = part{p.Leader, p.Replicas, p.ISR, p.AddingReplicas, p.RemovingReplicas}
			if p.PartitionEpoch < 0 || p.LeaderEpoch < 0 {
				t.Errorf("%s-%d: epochs %d/%d", name, id, p.PartitionEpoch, p.LeaderEpoch)
			}
		}
		got[name] = g
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("topics differ from kafka-topics --describe (-kafka +zkread):\n%s", d)
	}
	if !slices.Equal(img.ZK.PendingTopicDeletions, []string{"doomed"}) {
		t.Errorf("pending deletions = %v, want [doomed]", img.ZK.PendingTopicDeletions)
	}
	if img.Topics["doomed"] == nil {
		t.Error("topic pending deletion is not kept in Topics")
	}
	// user_events went from 2 to 4 partitions: its later partitions have
	// their own state znodes.
	if n := len(img.Topics["user_events"].Partitions); n != 4 {
		t.Errorf("user_events has %d partitions", n)
	}
}

// TestFixtureConfigs: topic, per-broker and default broker configs equal
// kafka-configs --describe.
func TestFixtureConfigs(t *testing.T) {
	_, img := fixtureImage(t)
	want := map[model.ConfigResource]map[string]string{}
	var cur *model.ConfigResource
	head := regexp.MustCompile(`^Dynamic configs for (topic|broker) (.*) are:$`)
	for _, l := range readLines(t, "kafka-configs.txt") {
		if m := head.FindStringSubmatch(l); m != nil {
			typ := model.ConfigTopic
			if m[1] == "broker" {
				typ = model.ConfigBroker
			}
			cur = &model.ConfigResource{Type: typ, Name: m[2]}
			continue
		}
		if l == "Default configs for brokers in the cluster are:" {
			cur = &model.ConfigResource{Type: model.ConfigBroker, Name: ""}
			continue
		}
		if strings.HasPrefix(l, "  ") && cur != nil {
			kv, _, _ := strings.Cut(strings.TrimSpace(l), " sensitive=")
			k, v, _ := strings.Cut(kv, "=")
			if want[*cur] == nil {
				want[*cur] = map[string]string{}
			}
			want[*cur][k] = v
		}
	}
	if len(want) < 4 {
		t.Fatalf("oracle has %d config resources", len(want))
	}
	got := map[model.ConfigResource]map[string]string{}
	for r, kv := range img.Configs {
		if r.Type == model.ConfigTopic && (strings.HasPrefix(r.Name, "__") || r.Name == "doomed") {
			continue
		}
		got[r] = kv
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("configs differ from kafka-configs --describe (-kafka +zkread):\n%s", d)
	}
}

var quotaEntityRE = regexp.MustCompile(`the default (user-principal|client-id|ip)|(user-principal|client-id|ip) '([^']*)'`)

func quotaEntity(s string) string {
	var parts []model.QuotaEntityPart
	for _, m := range quotaEntityRE.FindAllStringSubmatch(s, -1) {
		typ, name := m[1], (*string)(nil)
		if typ == "" {
			typ, name = m[2], &m[3]
		}
		if typ == "user-principal" {
			typ = "user"
		}
		parts = append(parts, model.QuotaEntityPart{Type: typ, Name: name})
	}
	return model.QuotaEntityKey(parts)
}

// TestFixtureQuotasAndSCRAM: client quotas for every entity kind (defaults,
// names needing URL encoding) and SCRAM users equal kafka-configs output.
func TestFixtureQuotasAndSCRAM(t *testing.T) {
	_, img := fixtureImage(t)
	wantQ := map[string]map[string]float64{}
	wantS := map[string]int32{}
	quota := regexp.MustCompile(`^Quota configs for (.*) are (.*)$`)
	scram := regexp.MustCompile(`^SCRAM credential configs for user-principal '(.*)' are (.*)$`)
	for _, l := range readLines(t, "kafka-quotas.txt") {
		if m := quota.FindStringSubmatch(l); m != nil {
			key := quotaEntity(m[1])
			wantQ[key] = map[string]float64{}
			for _, kv := range strings.Split(m[2], ", ") {
				k, v, _ := strings.Cut(kv, "=")
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("oracle quota %q", l)
				}
				wantQ[key][k] = f
			}
		}
		if m := scram.FindStringSubmatch(l); m != nil {
			for _, kv := range strings.Split(m[2], ", ") {
				mech, it, _ := strings.Cut(kv, "=iterations=")
				n, _ := strconv.Atoi(it)
				wantS[m[1]+"/"+mech] = int32(n)
			}
		}
	}
	if len(wantQ) < 8 || len(wantS) < 3 {
		t.Fatalf("oracle has %d quotas, %d SCRAM credentials", len(wantQ), len(wantS))
	}
	gotQ := map[string]map[string]float64{}
	for k, q := range img.ClientQuotas {
		if k != model.QuotaEntityKey(q.Entity) {
			t.Errorf("quota keyed %q, entity key %q", k, model.QuotaEntityKey(q.Entity))
		}
		gotQ[k] = q.Values
	}
	if d := cmp.Diff(wantQ, gotQ); d != "" {
		t.Errorf("quotas differ from kafka-configs (-kafka +zkread):\n%s", d)
	}
	gotS := map[string]int32{}
	for k, c := range img.SCRAM {
		name := map[int8]string{1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}[k.Mechanism]
		gotS[k.User+"/"+name] = c.Iterations
		if len(c.Salt) == 0 || len(c.StoredKey) == 0 || len(c.ServerKey) == 0 {
			t.Errorf("%s: empty salt or keys", k.User)
		}
		if want := map[int8]int{1: 32, 2: 64}[k.Mechanism]; len(c.StoredKey) != want || len(c.ServerKey) != want {
			t.Errorf("%s: key lengths %d/%d, want %d", k.User, len(c.StoredKey), len(c.ServerKey), want)
		}
	}
	if d := cmp.Diff(wantS, gotS); d != "" {
		t.Errorf("SCRAM differs from kafka-configs (-kafka +zkread):\n%s", d)
	}
}

// TestFixtureACLs: literal and prefixed ACLs equal kafka-acls --list, by
// content; ids are deterministic.
func TestFixtureACLs(t *testing.T) {
	_, img := fixtureImage(t)
	rt := map[string]int8{"TOPIC": 2, "GROUP": 3, "CLUSTER": 4, "TRANSACTIONAL_ID": 5, "DELEGATION_TOKEN": 6, "USER": 7}
	pt := map[string]int8{"LITERAL": 3, "PREFIXED": 4}
	op := map[string]int8{"ALL": 2, "READ": 3, "WRITE": 4, "CREATE": 5, "DELETE": 6, "ALTER": 7, "DESCRIBE": 8,
		"CLUSTER_ACTION": 9, "DESCRIBE_CONFIGS": 10, "ALTER_CONFIGS": 11, "IDEMPOTENT_WRITE": 12, "CREATE_TOKENS": 13, "DESCRIBE_TOKENS": 14}
	perm := map[string]int8{"DENY": 2, "ALLOW": 3}
	res := regexp.MustCompile("ResourcePattern\\(resourceType=(\\w+), name=(.*), patternType=(\\w+)\\)")
	ace := regexp.MustCompile(`\(principal=(.*), host=(.*), operation=(\w+), permissionType=(\w+)\)`)
	var want []model.ACL
	var cur []string
	for _, l := range readLines(t, "kafka-acls.txt") {
		if m := res.FindStringSubmatch(l); m != nil {
			cur = m
			continue
		}
		if m := ace.FindStringSubmatch(l); m != nil {
			want = append(want, model.ACL{ResourceType: rt[cur[1]], ResourceName: cur[2], PatternType: pt[cur[3]],
				Principal: m[1], Host: m[2], Operation: op[m[3]], PermissionType: perm[m[4]]})
		}
	}
	if len(want) < 6 {
		t.Fatalf("oracle has %d ACLs", len(want))
	}
	var got []model.ACL
	for id, a := range img.ACLs {
		if id != a.ID || id.IsZero() {
			t.Errorf("ACL id %v / %v", id, a.ID)
		}
		c := *a
		c.ID = model.UUID{}
		got = append(got, c)
	}
	sortACLs := func(s []model.ACL) {
		slices.SortFunc(s, func(a, b model.ACL) int { return model.CompareACLContent(&a, &b) })
	}
	sortACLs(want)
	sortACLs(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ACLs differ from kafka-acls --list (-kafka +zkread):\n%s", d)
	}
	_, img2 := fixtureImage(t)
	for id := range img.ACLs {
		if img2.ACLs[id] == nil {
			t.Errorf("ACL id %v not stable across reads", id)
		}
	}
}

// TestFixtureClusterState: the rest of what the fixture holds.
func TestFixtureClusterState(t *testing.T) {
	tree, img := fixtureImage(t)
	if _, err := model.ParseUUID(img.ClusterID); err != nil {
		t.Errorf("cluster id %q: %v", img.ClusterID, err)
	}
	// Brokers 1 and 2 were running when ZooKeeper stopped; broker 3 was not.
	if len(img.Brokers) != 2 || img.Brokers[1] == nil || img.Brokers[2] == nil {
		t.Fatalf("brokers = %v", img.Brokers)
	}
	for id, b := range img.Brokers {
		n := tree.Get("/brokers/ids/" + strconv.Itoa(int(id)))
		if b.Epoch != n.Stat.Czxid || b.Epoch == 0 {
			t.Errorf("broker %d epoch %d, czxid %d", id, b.Epoch, n.Stat.Czxid)
		}
		if n.Stat.EphemeralOwner == 0 {
			t.Errorf("broker %d znode is not ephemeral", id)
		}
		if len(b.Endpoints) != 3 || b.Endpoints[0].Name != "PLAINTEXT" || b.Endpoints[1].Name != "INTERNAL" ||
			b.Endpoints[2].Name != "SASL_PLAINTEXT" || b.Endpoints[2].SecurityProtocol != 2 ||
			b.Endpoints[0].Host != "127.0.0.1" || b.Endpoints[0].Port == 0 {
			t.Errorf("broker %d endpoints %+v", id, b.Endpoints)
		}
	}
	if r := img.Brokers[1].Rack; r == nil || *r != "rack-a" {
		t.Errorf("broker 1 rack %v", r)
	}
	if img.ZK.ControllerID != 1 && img.ZK.ControllerID != 2 {
		t.Errorf("controller %d", img.ZK.ControllerID)
	}
	if img.ZK.ControllerEpoch < 1 || img.ZK.KRaftControllerEpoch != -1 {
		t.Errorf("controller epoch %d, kraft epoch %d", img.ZK.ControllerEpoch, img.ZK.KRaftControllerEpoch)
	}
	// Blocks are 1000 ids; block_end is a JSON string.
	blk := regexp.MustCompile(`"broker":(\d+).*"block_end":"(\d+)"`).FindStringSubmatch(string(tree.Get("/latest_producer_id_block").Data))
	if blk == nil {
		t.Fatalf("producer id block %q", tree.Get("/latest_producer_id_block").Data)
	}
	end, _ := strconv.ParseInt(blk[2], 10, 64)
	broker, _ := strconv.Atoi(blk[1])
	if want := (model.ProducerIDs{NextProducerID: end + 1, BrokerID: int32(broker), BrokerEpoch: -1}); img.ProducerIDs == nil || *img.ProducerIDs != want || want.NextProducerID%1000 != 0 {
		t.Errorf("producer ids %+v, want %+v", img.ProducerIDs, want)
	}
	if img.ZK.FeatureStatus != 1 {
		t.Errorf("feature status %d", img.ZK.FeatureStatus)
	}
	if img.ZK.MaxZxid == 0 || img.Provenance.Zxid != img.ZK.MaxZxid {
		t.Errorf("zxid %d / %d", img.ZK.MaxZxid, img.Provenance.Zxid)
	}
	if len(img.ZK.MissingPartitionStates) != 0 {
		t.Errorf("missing states %v", img.ZK.MissingPartitionStates)
	}
	for p := range img.ZK.Raw {
		t.Errorf("unexpected raw znode %s", p)
	}
	for _, p := range img.Topics["orders.v1"].Partitions {
		if p.PartitionEpoch != tree.Get("/brokers/topics/orders.v1/partitions/"+strconv.Itoa(int(p.ID))+"/state").Stat.Version {
			t.Errorf("partition epoch is not the state znode version")
		}
	}
}
