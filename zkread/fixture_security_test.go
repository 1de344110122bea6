package zkread

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		n := tree.Get(p)
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
