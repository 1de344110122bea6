package zkread

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// TestFixtureReassignment: the reassignment left in flight (adding and
// removing replicas in the topic znode) equals what
// kafka-reassign-partitions --list reported.
func TestFixtureReassignment(t *testing.T) {
	_, img := fixtureImage(t)
	type move struct{ Replicas, Adding, Removing []int32 }
	want := map[string]move{}
	re := regexp.MustCompile(`^(.+)-(\d+): replicas: ([\d,]*)\. adding: ([\d,]*)\. removing: ([\d,]*)\.$`)
	for _, l := range readLines(t, "kafka-reassignments.txt") {
		if m := re.FindStringSubmatch(l); m != nil {
			want[m[1]+"-"+m[2]] = move{ints(t, m[3]), ints(t, m[4]), ints(t, m[5])}
		}
	}
	if len(want) == 0 {
		t.Fatal("oracle lists no reassignment")
	}
	got := map[string]move{}
	for _, tp := range img.SortedTopics() {
		for _, p := range tp.SortedPartitions() {
			if len(p.AddingReplicas)+len(p.RemovingReplicas) > 0 {
				got[tp.Name+"-"+strconv.Itoa(int(p.ID))] = move{p.Replicas, p.AddingReplicas, p.RemovingReplicas}
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reassignments differ from kafka-reassign-partitions --list (-kafka +zkread):\n%s", d)
	}
	for _, m := range want {
		if len(m.Adding) == 0 || len(m.Removing) == 0 {
			t.Errorf("fixture reassignment %+v does not both add and remove", m)
		}
	}
	// The legacy (pre-2.4) znode is not how 3.9 reassigns.
	if img.ZK.LegacyReassignments != nil {
		t.Errorf("legacy reassignments %v", img.ZK.LegacyReassignments)
	}
}

// TestFixtureDelegationTokens: the token equals what
// kafka-delegation-tokens --describe reported (dates to the minute, as the
// tool prints them; the generator runs it in UTC).
func TestFixtureDelegationTokens(t *testing.T) {
	_, img := fixtureImage(t)
	type tok struct {
		Owner, Requester, Renewers string
		Issue, Expiry, Max         string
	}
	want := map[string]tok{}
	row := regexp.MustCompile(`^(\S+) +\S+ +(\S+) +(\S+) +\[(.*)\] +(\S+) +(\S+) +(\S+)\s*$`)
	for _, l := range readLines(t, "kafka-tokens.txt") {
		if m := row.FindStringSubmatch(l); m != nil && m[1] != "TOKENID" {
			want[m[1]] = tok{m[2], m[3], m[4], m[5], m[6], m[7]}
		}
	}
	if len(want) == 0 {
		t.Fatal("oracle lists no token")
	}
	minute := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04") }
	got := map[string]tok{}
	for id, tk := range img.DelegationTokens {
		if id != tk.TokenID {
			t.Errorf("token keyed %q has id %q", id, tk.TokenID)
		}
		got[id] = tok{tk.Owner, tk.Requester, strings.Join(tk.Renewers, ", "),
			minute(tk.IssueTimestamp), minute(tk.ExpirationTimestamp), minute(tk.MaxTimestamp)}
		if !(tk.IssueTimestamp < tk.ExpirationTimestamp && tk.ExpirationTimestamp <= tk.MaxTimestamp) {
			t.Errorf("token %s timestamps %d %d %d", id, tk.IssueTimestamp, tk.ExpirationTimestamp, tk.MaxTimestamp)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tokens differ from kafka-delegation-tokens --describe (-kafka +zkread):\n%s", d)
	}
}

// fixtureProtected are the znodes Kafka keeps from world reads under
// zookeeper.set.acl=true (ZkData's sensitive root paths).
var fixtureProtected = []string{"/config/brokers", "/config/users", "/delegation_token/tokens"}

// TestFixtureZnodeACLs: the brokers ran with zookeeper.set.acl=true and a
// SASL DIGEST-MD5 session as "kafka", so what they created is owned by
// sasl:kafka, world-readable except under the sensitive paths; /consumers
// stays open. The offline reader keeps the ACLs the snapshot holds.
func TestFixtureZnodeACLs(t *testing.T) {
	tree, _ := fixtureImage(t)
	owner := ACL{Perms: 31, Scheme: "sasl", ID: "kafka"}
	worldRead := ACL{Perms: 1, Scheme: "world", ID: "anyone"}
	open := []ACL{{Perms: 31, Scheme: "world", ID: "anyone"}}
	var protected, readable int
	for _, p := range tree.Paths() {
		n := tree.Nodes[p]
		sensitive := slices.ContainsFunc(fixtureProtected, func(s string) bool { return p == s || strings.HasPrefix(p, s+"/") })
		switch {
		case p == "/consumers":
			if !cmp.Equal(n.ACL, open) {
				t.Errorf("%s ACL %v, want %v", p, n.ACL, open)
			}
		case sensitive:
			protected++
			if !cmp.Equal(n.ACL, []ACL{owner}) {
				t.Errorf("%s ACL %v, want only %v", p, n.ACL, owner)
			}
		case p == "/":
			// The chroot: created by Kafka too, with the same ACL.
			fallthrough
		default:
			readable++
			if !cmp.Equal(n.ACL, []ACL{owner, worldRead}) {
				t.Errorf("%s ACL %v, want %v", p, n.ACL, []ACL{owner, worldRead})
			}
		}
	}
	// Users with SCRAM/quotas, broker configs and the token live below the
	// protected roots.
	if protected < 8 || readable < 50 {
		t.Errorf("%d protected, %d readable znodes", protected, readable)
	}
}

// TestFixtureLiveAuth serves a copy of the fixture data dir with a real
// ZooKeeper (3.8.4, Kafka 3.9.2's classpath) and reads it live. Without
// credentials the sensitive znodes are refused (NoAuth) and the rest is
// read; with the ZooKeeper super user's digest credentials (kmeta speaks
// digest, not SASL, so a cluster whose brokers authenticate with SASL is
// read as ZooKeeper's super user) everything is read and decodes to the
// offline image. The CLI reports the same through --zk-auth.
func TestFixtureLiveAuth(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	data := t.TempDir()
	copyTree(t, filepath.Join(fixtureDir, "datadir"), data)
	const superPass = "super-secret"
	sum := sha1.Sum([]byte("super:" + superPass))
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{
		"dataDir": data,
		// zoo.cfg keys ZooKeeper does not know become zookeeper.* system
		// properties: this is -Dzookeeper.DigestAuthenticationProvider.superDigest.
		"DigestAuthenticationProvider.superDigest": "super:" + base64.StdEncoding.EncodeToString(sum[:]),
	}})
	_, offline := fixtureImage(t)
	ctx := context.Background()
	base := LiveOptions{Servers: []string{zks.Addr()}, Chroot: fixtureChroot, InFlight: 32, Connections: 2}

	partial, err := ReadLive(ctx, base)
	var na *NoAuthError
	if !errors.Is(err, ErrNoAuth) || errors.Is(err, ErrAuth) || !errors.As(err, &na) || !slices.Equal(na.Paths, fixtureProtected) {
		t.Fatalf("no credentials: %v", err)
	}
	if partial == nil || partial.Nodes["/brokers/topics/orders.v1"] == nil || partial.Nodes["/config/users/alice"] != nil {
		t.Errorf("the readable part of the tree is not returned alone")
	}

	wrong := base
	wrong.Auth = "super:wrong"
	if _, err := ReadLive(ctx, wrong); !errors.Is(err, ErrNoAuth) || !errors.As(err, &na) || na.User != "super" {
		t.Errorf("wrong password: %v", err)
	}

	ok := base
	ok.Auth = "super:" + superPass
	ok.ReadACLs = true
	tree, err := ReadLive(ctx, ok)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Decode(tree, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Brokers and /controller are ephemeral: ZooKeeper expires the
	// fixture's sessions some seconds after it starts. The rest must agree.
	type stable struct {
		Topics     map[string]*model.Topic
		Configs    map[model.ConfigResource]map[string]string
		Quotas     map[string]*model.ClientQuota
		SCRAM      map[model.ScramKey]*model.ScramCredential
		ACLs       map[model.UUID]*model.ACL
		Tokens     map[string]*model.DelegationToken
		Producers  *model.ProducerIDs
		ClusterID  string
		Pending    []string
		Notes      map[string]int32
		MissingPSs []string
	}
	pick := func(m *model.Image) stable {
		return stable{m.Topics, m.Configs, m.ClientQuotas, m.SCRAM, m.ACLs, m.DelegationTokens, m.ProducerIDs,
			m.ClusterID, m.ZK.PendingTopicDeletions, m.ZK.Notifications, m.ZK.MissingPartitionStates}
	}
	if d := cmp.Diff(pick(offline), pick(img)); d != "" {
		t.Errorf("live read as super differs from the offline read (-offline +live):\n%s", d)
	}
	if len(img.DelegationTokens) == 0 || len(img.SCRAM) == 0 {
		t.Errorf("protected data missing: %d tokens, %d SCRAM credentials", len(img.DelegationTokens), len(img.SCRAM))
	}
	if a := tree.Nodes["/config/users"].ACL; len(a) != 1 || a[0].Scheme != "sasl" || a[0].ID != "kafka" {
		t.Errorf("live ACL of /config/users %v", a)
	}

	// The CLI: NoAuth without --zk-auth, success with it.
	bin := filepath.Join(t.TempDir(), "kmeta")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kmeta/kmeta/cmd/kmeta").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src := "zk://" + zks.Addr() + fixtureChroot
	out, err := exec.Command(bin, "zk", "image", src).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not authorized") || !strings.Contains(string(out), "/config/users") {
		t.Errorf("kmeta zk image without --zk-auth: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "zk", "image", "--zk-auth", "super:"+superPass, src).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "alice") {
		t.Errorf("kmeta zk image --zk-auth: %v\n%s", err, out)
	}
}

// copyTree copies a directory tree of regular files.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
