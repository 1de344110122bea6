package zkdeps

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

const fixtures = "../testdata/zk"

// readDataDir reads a data dir from its root with a history, as zk
// dependents does.
func readDataDir(t *testing.T, dir string) (*zkread.Tree, *History) {
	t.Helper()
	h := NewHistory()
	tr, err := zkread.Source{Access: zkread.AccessDataDir, Path: dir}.ReadTree(context.Background(), zkread.ReadOptions{Chroot: "/", Replay: h.Replay()})
	if err != nil {
		t.Fatal(err)
	}
	return tr, h
}

// roles lists Kafka's sessions as "id role open".
func roles(r *Result) []string {
	var out []string
	for _, k := range r.Kafka {
		out = append(out, fmt.Sprintf("%s %s %v", k.Session, k.Role, k.Open))
	}
	return out
}

func codesOf(fs []model.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	sort.Strings(out)
	return out
}

// owner is the session owning an ephemeral of the tree.
func owner(t *testing.T, tr *zkread.Tree, path string) string {
	t.Helper()
	n := tr.Get(path)
	if n == nil || n.Stat.EphemeralOwner == 0 {
		t.Fatalf("%s: no ephemeral", path)
	}
	return hexID(n.Stat.EphemeralOwner)
}

// TestFixturesNoFalseDependent: on every committed ZooKeeper fixture (a
// real Kafka 3.9.2 cluster's data dir, its compressed snapshots, its
// dump, the dump of a cluster in dual-write), no dependent: Kafka's
// znodes and sessions (the brokers', their AclAuthorizers') are never
// listed. The brokers still registered when the files were written are
// Kafka's own use of the ensemble (zk-kafka-connected), nothing else.
func TestFixturesNoFalseDependent(t *testing.T) {
	t.Run("datadir", func(t *testing.T) {
		tr, h := readDataDir(t, filepath.Join(fixtures, "datadir"))
		r := Judge(Input{Source: "zkdata:datadir", Access: zkread.AccessDataDir, Tree: tr, Chroot: "/kafka/prod", History: h})
		if len(r.Dependents) != 0 || r.SafeToStop {
			t.Fatalf("dependents %+v, safe %v", r.Dependents, r.SafeToStop)
		}
		if got := codesOf(r.Findings); !slices.Equal(got, []string{CodeKafkaConnected}) {
			t.Errorf("findings %q", got)
		}
		// Brokers 1 and 2 ran when ZooKeeper stopped (their registrations
		// are in the tree); broker 3 had stopped. Each had its
		// AclAuthorizer's session, opened after it registered.
		b1, b2 := owner(t, tr, "/kafka/prod/brokers/ids/1"), owner(t, tr, "/kafka/prod/brokers/ids/2")
		got := roles(r)
		want := []string{b1 + " broker 1 true", b2 + " broker 2 true"}
		var rest []string
		for _, g := range got {
			if !slices.Contains(want, g) {
				rest = append(rest, g)
			}
		}
		sort.Strings(rest)
		var restRoles []string
		for _, g := range rest {
			restRoles = append(restRoles, g[strings.IndexByte(g, ' ')+1:])
		}
		if len(got) != 6 || !slices.Equal(restRoles, []string{"broker 1's authorizer true", "broker 2's authorizer true", "broker 3 false", "broker 3's authorizer false"}) {
			t.Errorf("Kafka's sessions: %q", got)
		}
		if len(r.Damaged) != 0 || h.Txns == 0 || h.StartZxid != 0 {
			t.Errorf("history: damaged %v, %d transactions from snapshot zxid %#x", r.Damaged, h.Txns, h.StartZxid)
		}
	})
	for _, c := range []string{"snapshot.10c.gz", "snapshot.10c.snappy"} {
		t.Run(c, func(t *testing.T) {
			// The snapshot alone: its session table and ephemerals, no log.
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "version-2"), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(fixtures, "compressed", c))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "version-2", c), b, 0o644); err != nil {
				t.Fatal(err)
			}
			tr, h := readDataDir(t, dir)
			r := Judge(Input{Access: zkread.AccessDataDir, Tree: tr, Chroot: "/kafka/prod", History: h})
			if len(r.Dependents) != 0 {
				t.Fatalf("dependents %+v", r.Dependents)
			}
			if got := codesOf(r.Findings); !slices.Equal(got, []string{CodeKafkaConnected}) {
				t.Errorf("findings %q", got)
			}
			b1, b2 := owner(t, tr, "/kafka/prod/brokers/ids/1"), owner(t, tr, "/kafka/prod/brokers/ids/2")
			var rs []string
			for _, k := range r.Kafka {
				rs = append(rs, k.Role)
			}
			if r.Kafka[0].Session != b1 || !slices.Contains(roles(r), b2+" broker 2 true") ||
				!slices.Equal(rs, []string{"broker 1", "broker 1's authorizer", "broker 2", "broker 2's authorizer"}) {
				t.Errorf("Kafka's sessions: %q", roles(r))
			}
		})
	}
	for _, f := range []string{"dump.json", "migration/dual-write.dump.json"} {
		t.Run(f, func(t *testing.T) {
			tr, err := zkread.ReadDumpFile(filepath.Join(fixtures, f), 0)
			if err != nil {
				t.Fatal(err)
			}
			r := Judge(Input{Access: zkread.AccessDump, Tree: tr, TreeRoot: tr.Chroot, Chroot: tr.Chroot})
			if len(r.Dependents) != 0 {
				t.Fatalf("dependents %+v", r.Dependents)
			}
			var want []string
			ids := tr.Get("/brokers/ids").Children
			for _, id := range ids {
				want = append(want, owner(t, tr, "/brokers/ids/"+id)+" broker "+id+" true")
			}
			sort.Strings(want)
			got := roles(r)
			sort.Strings(got)
			if len(ids) < 2 || !slices.Equal(got, want) {
				t.Errorf("Kafka's sessions: %q, want %q", got, want)
			}
			if got := codesOf(r.Findings); !slices.Equal(got, []string{CodeKafkaConnected}) {
				t.Errorf("findings %q", got)
			}
			if len(r.NotChecked) != 3 || !strings.HasPrefix(r.NotChecked[0], "znodes outside "+tr.Chroot) {
				t.Errorf("not checked: %q", r.NotChecked)
			}
		})
	}
}

// tree builds a tree from path → (data, ephemeral owner), with parents
// and children filled in.
func tree(nodes map[string]struct {
	data  string
	owner int64
	mzxid int64
}) *zkread.Tree {
	t := zkread.NewTree()
	m := map[string]*zkread.Node{}
	m["/"] = &zkread.Node{Data: []byte{}}
	for p, n := range nodes {
		for q := p; q != "/"; {
			i := strings.LastIndexByte(q, '/')
			parent := q[:i]
			if parent == "" {
				parent = "/"
			}
			if m[q] == nil {
				m[q] = &zkread.Node{Data: []byte{}}
			}
			q = parent
		}
		m[p] = &zkread.Node{Data: []byte(n.data), Stat: zkread.Stat{EphemeralOwner: n.owner, Mzxid: n.mzxid, Czxid: n.mzxid, Mtime: 1700000000000}}
	}
	for p := range m {
		if p == "/" {
			continue
		}
		i := strings.LastIndexByte(p, '/')
		parent := p[:i]
		if parent == "" {
			parent = "/"
		}
		m[parent].Children = append(m[parent].Children, p[i+1:])
	}
	for _, n := range m {
		sort.Strings(n.Children)
	}
	for p, n := range m {
		t.Set(p, n)
	}
	return t
}

type node = struct {
	data  string
	owner int64
	mzxid int64
}

func deps(r *Result) []string {
	var out []string
	for _, d := range r.Dependents {
		e := d.Path
		if d.Kind == "session" {
			e = d.Session
		}
		out = append(out, d.Code+" "+e+" "+d.Owner)
	}
	return out
}

// TestGroupsAndOwners: foreign data grouped by top-level path outside
// the chroot (another Kafka cluster beside it named as one), by first
// unknown path inside; ZooKeeper's own and the chroot's parents are
// nobody's dependents; an ephemeral's owner is an open session.
func TestGroupsAndOwners(t *testing.T) {
	tr := tree(map[string]node{
		"/kafka/prod/brokers/ids/1":            {`{}`, 0x11, 5},
		"/kafka/prod/brokers/topics/t":         {`{}`, 0, 6},
		"/kafka/prod/schema_registry/master":   {`x`, 0x22, 7},
		"/kafka/prod/consumers/g1/offsets/t/0": {`42`, 0, 9},
		"/kafka/dev/brokers/ids/1":             {`{}`, 0x33, 8},
		"/kafka/dev/cluster/id":                {`{}`, 0, 3},
		"/hbase-unsecure/rs/host1":             {`hhhh`, 0x44, 12},
		"/hbase-unsecure/hbaseid":              {`abc`, 0, 10},
		"/zookeeper/quota":                     {``, 0, 1},
		"/mystery":                             {`?`, 0, 2},
	})
	r := Judge(Input{Access: zkread.AccessLive, Tree: tr, Chroot: "/kafka/prod"})
	want := []string{
		"zk-foreign-data /hbase-unsecure Apache HBase",
		"zk-foreign-data /kafka/dev another Kafka cluster (chroot /kafka/dev)",
		"zk-old-consumer-offsets /kafka/prod/consumers/g1 an old ZooKeeper-based consumer (Kafka's Scala consumer, removed in Kafka 2.0)",
		"zk-foreign-data /kafka/prod/schema_registry Confluent Schema Registry (ZooKeeper leader election)",
		"zk-foreign-data /mystery ",
		"zk-session-open 0x22 Confluent Schema Registry (ZooKeeper leader election)",
		"zk-session-open 0x33 another Kafka cluster (chroot /kafka/dev)",
		"zk-session-open 0x44 Apache HBase",
	}
	if got := deps(r); !slices.Equal(got, want) {
		t.Errorf("dependents:\n got %q\nwant %q", got, want)
	}
	if got := roles(r); !slices.Equal(got, []string{"0x11 broker 1 true"}) {
		t.Errorf("Kafka's sessions %q", got)
	}
	hb := r.Dependents[0]
	if hb.Znodes != 4 || hb.Bytes != 7 || hb.LastMzxid != 12 || hb.Ephemerals != 1 {
		t.Errorf("/hbase-unsecure: %+v", hb)
	}
}

// replay feeds a history as a data dir's replay would.
func replay(h *History, txns ...zkread.ReplayTxn) {
	h.start(zkread.ReplayStart{Snapshot: "snapshot.0"})
	for i := range txns {
		h.txn(&txns[i])
	}
}

func op(kind, path, data string) zkread.ReplayOp {
	return zkread.ReplayOp{Kind: kind, Path: path, Data: []byte(data)}
}

// TestHistorySessions: who wrote what, from the transaction stream. A
// KRaft controller's claim and dual writes, a broker and its
// AclAuthorizer (paired), Kafka's client making the chroot, the
// migration's cleanup with ZooKeeper's CLI are Kafka's; a kafka-acls run
// long after the broker started, an admin tool, an old consumer are not.
func TestHistorySessions(t *testing.T) {
	const min = 60_000
	h := NewHistory()
	replay(h,
		zkread.ReplayTxn{Zxid: 1, Time: 0, Session: 0x9, Ops: []zkread.ReplayOp{{Kind: "createSession", Timeout: 6000}}},
		zkread.ReplayTxn{Zxid: 2, Time: 0, Session: 0x9, Ops: []zkread.ReplayOp{op("create", "/kafka", ""), op("create", "/kafka/prod", "")}},
		zkread.ReplayTxn{Zxid: 3, Time: 0, Session: 0x9, Ops: []zkread.ReplayOp{{Kind: "closeSession"}}},
		zkread.ReplayTxn{Zxid: 4, Time: 1, Session: 0x1, Ops: []zkread.ReplayOp{{Kind: "createSession", Timeout: 18000}}},
		zkread.ReplayTxn{Zxid: 5, Time: 2, Session: 0x1, Ops: []zkread.ReplayOp{op("create", "/kafka/prod/brokers/topics/t", "{}")}},
		zkread.ReplayTxn{Zxid: 6, Time: 3, Session: 0x1, Ops: []zkread.ReplayOp{{Kind: "create", Path: "/kafka/prod/brokers/ids/1", Ephemeral: true, Data: []byte("{}")}}},
		zkread.ReplayTxn{Zxid: 7, Time: 4, Session: 0x2, Ops: []zkread.ReplayOp{{Kind: "createSession", Timeout: 18000}}},
		zkread.ReplayTxn{Zxid: 8, Time: 5, Session: 0x2, Ops: []zkread.ReplayOp{op("create", "/kafka/prod/kafka-acl/Topic", "")}},
		zkread.ReplayTxn{Zxid: 9, Time: 10 * min, Session: 0x3, Ops: []zkread.ReplayOp{{Kind: "createSession", Timeout: 30000}}},
		zkread.ReplayTxn{Zxid: 10, Time: 10 * min, Session: 0x3, Ops: []zkread.ReplayOp{op("create", "/kafka/prod/kafka-acl/Topic/t", "{}"), op("create", "/kafka/prod/kafka-acl-changes/acl_changes_0000000001", "Topic:t")}},
		zkread.ReplayTxn{Zxid: 11, Time: 10 * min, Session: 0x3, Ops: []zkread.ReplayOp{{Kind: "closeSession"}}},
		zkread.ReplayTxn{Zxid: 12, Time: 11 * min, Session: 0x4, Ops: []zkread.ReplayOp{op("setData", "/kafka/prod/consumers/g/offsets/t/0", "5")}},
		zkread.ReplayTxn{Zxid: 13, Time: 12 * min, Session: 0x4, Ops: []zkread.ReplayOp{op("setData", "/kafka/prod/consumers/g/offsets/t/0", "6")}},
		zkread.ReplayTxn{Zxid: 14, Time: 13 * min, Session: 0x5, Ops: []zkread.ReplayOp{op("create", "/kafka/prod/admin/reassign_partitions", "{}")}},
		zkread.ReplayTxn{Zxid: 15, Time: 14 * min, Session: 0x6, Ops: []zkread.ReplayOp{op("setData", "/kafka/prod/controller_epoch", "2"), op("delete", "/kafka/prod/controller", ""),
			op("create", "/kafka/prod/controller", `{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":1}`)}},
		zkread.ReplayTxn{Zxid: 16, Time: 14 * min, Session: 0x6, Ops: []zkread.ReplayOp{op("check", "/kafka/prod/controller_epoch", ""), op("setData", "/kafka/prod/migration", `{"version":0,"kraft_controller_id":3000}`),
			op("setData", "/kafka/prod/brokers/topics/t", "{}")}},
		zkread.ReplayTxn{Zxid: 17, Time: 20 * min, Session: 0x7, Ops: []zkread.ReplayOp{op("delete", "/kafka/prod/migration", "")}},
		zkread.ReplayTxn{Zxid: 18, Time: 20 * min, Session: 0x7, Ops: []zkread.ReplayOp{op("delete", "/kafka/prod/controller", "")}},
		zkread.ReplayTxn{Zxid: 19, Time: 20 * min, Session: 0x7, Ops: []zkread.ReplayOp{{Kind: "closeSession"}}},
	)
	tr := tree(map[string]node{"/kafka/prod/brokers/ids/1": {`{}`, 0x1, 6}, "/kafka/prod/brokers/topics/t": {`{}`, 0, 16}})
	tr.Sessions = map[int64]int32{0x1: 18000, 0x2: 18000, 0x4: 30000, 0x6: 18000}
	r := Judge(Input{Access: zkread.AccessDataDir, Tree: tr, Chroot: "/kafka/prod", History: h})
	want := []string{
		"zk-session-kafka-writes 0x3 ",
		"zk-session-consumer-commits 0x4 an old ZooKeeper-based consumer (Kafka's Scala consumer, removed in Kafka 2.0)",
		"zk-session-kafka-writes 0x5 ",
	}
	if got := deps(r); !slices.Equal(got, want) {
		t.Errorf("dependents:\n got %q\nwant %q", got, want)
	}
	if got := roles(r); !slices.Equal(got, []string{"0x1 broker 1 true", "0x2 broker 1's authorizer true", "0x6 KRaft controller 3000 true"}) {
		t.Errorf("Kafka's sessions %q", got)
	}
	if !slices.Equal(r.Cleanup, []string{"0x7"}) {
		t.Errorf("cleanup %q", r.Cleanup)
	}
	c := r.Dependents[1]
	if len(c.Writes) != 1 || c.Writes[0].Count != 2 || c.Writes[0].First.Zxid != 12 || c.Writes[0].Last.Zxid != 13 || c.Writes[0].Path != "/kafka/prod/consumers/g" || !c.Open {
		t.Errorf("the consumer: %+v", c)
	}
	a := r.Dependents[0]
	if len(a.Writes) != 2 || a.Writes[0].Path != "/kafka/prod/kafka-acl" || a.Writes[1].Path != "/kafka/prod/kafka-acl-changes" || a.Open ||
		!strings.Contains(a.Fix, "kafka-acls --authorizer-properties zookeeper.connect=...") {
		t.Errorf("the kafka-acls run: %+v", a)
	}
}

// TestDamagedHistoryNeverSafe: a damaged history is never safe, even
// with nothing found (the guard: without it this tree is safe).
func TestDamagedHistoryNeverSafe(t *testing.T) {
	tr := tree(map[string]node{"/brokers/topics/t": {`{}`, 0, 2}})
	where := model.At("version-2/log.1", 120, -1)
	tr.Findings = []model.Finding{{Code: model.WarnTornTail, Severity: model.SevWarning, Message: "ignored a torn transaction", Where: &where}}
	h := NewHistory()
	replay(h)
	r := Judge(Input{Access: zkread.AccessDataDir, Tree: tr, Chroot: "", History: h})
	if r.SafeToStop || len(r.Dependents) != 0 || len(r.Damaged) != 1 || !slices.Equal(codesOf(r.Findings), []string{CodeHistoryDamaged}) ||
		r.Verdict != "not safe to stop: the history is damaged, so what it hides is unknown" {
		t.Errorf("safe %v, dependents %v, damaged %v, findings %v, verdict %q", r.SafeToStop, r.Dependents, r.Damaged, r.Findings, r.Verdict)
	}
	if f := r.Findings[0]; f.Where == nil || f.Where.File != "version-2/log.1" || f.Where.Position != 120 {
		t.Errorf("the finding does not name the torn log: %+v", f)
	}
	tr.Findings = nil
	if r := Judge(Input{Access: zkread.AccessDataDir, Tree: tr, History: h}); !r.SafeToStop {
		t.Errorf("the same tree undamaged is not safe: %q", r.Verdict)
	}
}

// TestLiveClients: live connections, kmeta's own and Kafka's left out;
// a broker's AclAuthorizer session (same host, no ephemeral, the one
// established nearest the broker's) paired when /kafka-acl exists.
func TestLiveClients(t *testing.T) {
	tr := tree(map[string]node{"/brokers/ids/1": {`{}`, 0x1, 2}, "/kafka-acl/Topic": {``, 0, 3}})
	tr.ReaderSessions = []int64{0x9}
	conn := func(addr string, id int64, est int64) zkread.Connection {
		c := zkread.Connection{Server: "zk1:2181", Address: addr, Session: id, LastOp: "PING"}
		if est > 0 {
			c.Established = time.UnixMilli(est).UTC()
		}
		return c
	}
	clients := []zkread.ServerConnections{{Server: "zk1:2181", Via: "cons", Connections: []zkread.Connection{
		conn("10.0.0.1:5000", 0x1, 1000), conn("10.0.0.1:5001", 0x2, 1001), conn("10.0.0.1:5002", 0x3, 9000),
		conn("10.0.0.7:6000", 0x4, 1000), conn("10.0.0.8:7000", 0x9, 1000), conn("10.0.0.8:7001", 0, 0),
	}}, {Server: "zk2:2181", Why: "the four-letter word cons is refused"}}
	r := Judge(Input{Access: zkread.AccessLive, Tree: tr, Clients: clients})
	if got := deps(r); !slices.Equal(got, []string{"zk-session-open 0x3 ", "zk-session-open 0x4 "}) {
		t.Errorf("dependents %q", got)
	}
	if got := roles(r); !slices.Equal(got, []string{"0x1 broker 1 true", "0x2 broker 1's authorizer true"}) {
		t.Errorf("Kafka's sessions %q", got)
	}
	if !slices.Contains(r.Checked, "the clients connected to zk1:2181 (cons): 4 sessions") ||
		!slices.Contains(r.NotChecked, "the clients connected to zk2:2181: the four-letter word cons is refused") {
		t.Errorf("checked %q, not checked %q", r.Checked, r.NotChecked)
	}
	if d := r.Dependents[1]; !slices.Equal(d.Addresses, []string{"10.0.0.7:6000"}) {
		t.Errorf("addresses %q", d.Addresses)
	}
}

// TestKafkaMetadataNotMigrated: a tree holding the cluster's own metadata
// (topics, configs and quotas, SCRAM credentials, ACLs, tokens) with no
// session of the cluster open says it could not check that KRaft holds it, with the
// command that proves it, unless /migration records Kafka's migration
// copying it (a KRaft metadata offset >= 0; -1 is a migration that has
// not copied yet).
func TestKafkaMetadataNotMigrated(t *testing.T) {
	base := map[string]node{
		"/kafka/cluster/id":                            {data: `{"version":"1","id":"abc"}`},
		"/kafka/brokers/ids":                           {},
		"/kafka/brokers/topics/orders":                 {data: `{"version":3,"partitions":{"0":[1]}}`},
		"/kafka/brokers/topics/orders/partitions":      {},
		"/kafka/config/topics/orders":                  {data: `{"version":1,"config":{"retention.ms":"1"}}`},
		"/kafka/config/topics/empty":                   {data: `{"version":1,"config":{}}`},
		"/kafka/config/users/alice":                    {data: `{"version":1,"config":{"SCRAM-SHA-256":"salt=x,stored_key=y,server_key=z,iterations=4096"}}`},
		"/kafka/config/users/alice/clients/app":        {data: `{"version":1,"config":{"producer_byte_rate":"1024"}}`},
		"/kafka/config/changes/config_change_0":        {data: `{"version":2,"entity_path":"users/alice"}`},
		"/kafka/kafka-acl/Topic/orders":                {data: `{"version":1,"acls":[]}`},
		"/kafka/kafka-acl-extended/prefixed/Topic/ord": {data: `{"version":1,"acls":[]}`},
		"/kafka/delegation_token/tokens/tok":           {data: `{"version":3}`},
	}
	judge := func(migration string, broker bool) *Result {
		nodes := map[string]node{}
		for p, n := range base {
			nodes[p] = n
		}
		if broker {
			nodes["/kafka/brokers/ids/1"] = node{data: `{"version":5,"host":"b1","port":9092,"endpoints":["PLAINTEXT://b1:9092"]}`, owner: 0x1001}
		}
		if migration != "" {
			nodes["/kafka/migration"] = node{data: migration}
		}
		return Judge(Input{Source: "zk://zk1:2181/kafka", Access: zkread.AccessDump, Tree: tree(nodes), Chroot: "/kafka"})
	}
	what := "1 topic, 3 config or quota entities, 1 user with SCRAM credentials, 2 ACL resources, 1 delegation token"
	notChecked := "that KRaft holds the cluster's metadata kept here (" + what + "): no /migration records a copy by Kafka's migration " +
		"(an offline migration, and kmeta migrate stage KRaft's cleanup, leave none), and a ZooKeeper-mode cluster whose brokers are stopped " +
		"holds no session; prove it before deleting this data: kmeta verify --zk zk://zk1:2181/kafka --kraft kraft:DIR (DIR: a controller's metadata.log.dir)"
	copied := "the cluster's metadata kept here (" + what + "): /migration records Kafka's migration copying it to KRaft (KRaft metadata offset 42)"
	for _, c := range []struct {
		name, migration string
		copied          bool
	}{
		{"no /migration", "", false},
		{"/migration before the copy", `{"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":1,"kraft_metadata_offset":-1,"kraft_metadata_epoch":-1}`, false},
		{"/migration after the copy", `{"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":1,"kraft_metadata_offset":42,"kraft_metadata_epoch":1}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := judge(c.migration, false)
			if !r.SafeToStop || len(r.Dependents) != 0 {
				t.Fatalf("safe %v, dependents %+v", r.SafeToStop, r.Dependents)
			}
			// With a broker still registered, zk-kafka-connected says the
			// cluster uses the ensemble: the line would say it twice.
			if rb := judge(c.migration, true); rb.SafeToStop || slices.Contains(rb.NotChecked, notChecked) || len(rb.Kafka) != 1 {
				t.Errorf("with a broker: safe %v, kafka %+v, not checked %q", rb.SafeToStop, rb.Kafka, rb.NotChecked)
			}
			if got := slices.Contains(r.NotChecked, notChecked); got == c.copied {
				t.Errorf("not checked: %q", r.NotChecked)
			}
			if got := slices.Contains(r.Checked, copied); got != c.copied {
				t.Errorf("checked: %q", r.Checked)
			}
		})
	}
}

// TestVerdictAgreement: the verdict's verb agrees with the number of
// dependents it names.
func TestVerdictAgreement(t *testing.T) {
	for _, c := range []struct {
		nodes map[string]node
		want  string
	}{
		{map[string]node{"/kafka/brokers/topics/t": {`{}`, 0, 1}, "/mystery": {`?`, 0, 2}},
			"not safe to stop: 1 tree of data that is not Kafka's still uses this ensemble"},
		{map[string]node{"/kafka/brokers/topics/t": {`{}`, 0, 1}, "/mystery": {`?`, 0, 2}, "/other": {`?`, 0, 3}},
			"not safe to stop: 2 trees of data that are not Kafka's still use this ensemble"},
		{map[string]node{"/kafka/brokers/topics/t": {`{}`, 0, 1}, "/mystery": {`?`, 0x44, 2}},
			"not safe to stop: 1 tree of data that is not Kafka's and 1 session that is not Kafka's still use this ensemble"},
	} {
		if r := Judge(Input{Access: zkread.AccessDump, Tree: tree(c.nodes), Chroot: "/kafka"}); r.Verdict != c.want {
			t.Errorf("verdict %q, want %q", r.Verdict, c.want)
		}
	}
}

// TestOldConsumerResetPlan: the fix of an old consumer group's offsets
// carries the offsets ZooKeeper holds, as the CSV kafka-consumer-groups
// --reset-offsets --from-file reads for one group (topic,partition,offset
// per line, ConsumerGroupCommand's parseResetPlan), sorted by topic and
// partition, the group's name quoted for the shell; and zk-kafka-connected
// names the source migrate status reads.
func TestOldConsumerResetPlan(t *testing.T) {
	tr := tree(map[string]node{
		"/kafka/brokers/ids/1":                           {`{}`, 0x11, 1},
		"/kafka/consumers/legacy group/offsets/orders/1": {`7`, 0, 2},
		"/kafka/consumers/legacy group/offsets/orders/0": {`42`, 0, 3},
		"/kafka/consumers/legacy group/offsets/b/10":     {`3`, 0, 4},
		"/kafka/consumers/legacy group/offsets/b/2":      {`5`, 0, 5},
		"/kafka/consumers/legacy group/offsets/b/x":      {`5`, 0, 5},
		"/kafka/consumers/legacy group/owners/orders/0":  {`c1`, 0, 6},
		"/kafka/consumers/empty/ids/c":                   {`{}`, 0, 7},
	})
	r := Judge(Input{Source: "zk://zk1:2181/kafka", Access: zkread.AccessDump, Tree: tr, Chroot: "/kafka"})
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Code+" "+f.Entity+": "+f.Fix)
	}
	want := []string{
		"zk-old-consumer-offsets /kafka/consumers/empty: move group empty to Kafka-stored offsets: stop its consumers, write the offsets ZooKeeper holds for it " +
			"(/kafka/consumers/empty/offsets/TOPIC/PARTITION) to Kafka with printf '%s\\n' TOPIC,PARTITION,OFFSET > empty.offsets.csv && " +
			"kafka-consumer-groups --bootstrap-server BOOTSTRAP --group empty --reset-offsets --from-file empty.offsets.csv --execute, " +
			"restart them on the Java consumer, then delete /kafka/consumers/empty",
		"zk-old-consumer-offsets /kafka/consumers/legacy group: move group legacy group to Kafka-stored offsets: stop its consumers, write the offsets ZooKeeper holds for it " +
			"(/kafka/consumers/legacy group/offsets/TOPIC/PARTITION) to Kafka with printf '%s\\n' b,2,5 b,10,3 orders,0,42 orders,1,7 > 'legacy group.offsets.csv' && " +
			"kafka-consumer-groups --bootstrap-server BOOTSTRAP --group 'legacy group' --reset-offsets --from-file 'legacy group.offsets.csv' --execute, " +
			"restart them on the Java consumer, then delete /kafka/consumers/legacy group",
		"zk-kafka-connected cluster under /kafka: finish the migration first: brokers in KRaft mode (kmeta migrate stage KRaftPostMigration), " +
			"controllers without the migration flag (kmeta migrate stage PreKRaft); kmeta migrate status --zk zk://zk1:2181/kafka says where the cluster stands",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("fixes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
