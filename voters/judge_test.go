package voters

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
)

const now = 1_700_000_000_000

// live builds a live leader's answer: voter 1 leads; each other voter
// fetched and caught up ago ms before the leader's clock.
func live(kraft, supported int16, ago map[int32]int64, ids ...int32) *model.QuorumStatus {
	st := &model.QuorumStatus{ClusterID: "c", LeaderID: ids[0], LeaderEpoch: 3, HighWatermark: 100, KRaftVersion: kraft, KRaftVersionSupported: supported, MetadataVersionSupported: -1}
	for _, id := range ids {
		a := ago[id]
		st.Voters = append(st.Voters, model.QuorumReplica{ID: id, LogEndOffset: 100 - a/100, LastFetchTimestamp: now - a, LastCaughtUpTimestamp: now - a})
	}
	return st
}

func codes(a Assessment) []string {
	var out []string
	for _, f := range a.Findings {
		out = append(out, string(f.Severity)+" "+f.Code+" "+f.Entity)
	}
	return out
}

func restart(a Assessment) string {
	var b strings.Builder
	for _, v := range a.Voters {
		b.WriteString(string(v.RestartSafe[0]))
	}
	return b.String()
}

func TestJudgeHealthy(t *testing.T) {
	a := Judge(live(1, 1, map[int32]int64{2: 300, 3: 1999}, 1, 2, 3), Options{})
	if len(a.Findings) != 0 || a.Failing() {
		t.Fatalf("findings %q", codes(a))
	}
	if restart(a) != "yyy" || a.Majority != 2 || a.Voters[0].CaughtUpWithout != 2 {
		t.Fatalf("restart %s, %+v", restart(a), a)
	}
}

func TestJudgeDownVoter(t *testing.T) {
	a := Judge(live(1, 1, map[int32]int64{3: 10_000}, 1, 2, 3), Options{})
	want := []string{"warning restart-loses-majority controller 1", "warning restart-loses-majority controller 2", "warning voter-down controller 3"}
	if !slices.Equal(codes(a), want) || !a.Failing() {
		t.Fatalf("findings %q, want %q", codes(a), want)
	}
	// Restarting the down voter costs nothing; any other loses the majority.
	if restart(a) != "nny" || a.Voters[2].Down != Yes || a.Voters[2].CaughtUp != No {
		t.Fatalf("restart %s, voters %+v", restart(a), a.Voters)
	}
	// The finding counts what is left and says what to do first.
	f := a.Findings[0]
	if !strings.Contains(f.Message, "leaves 1 caught-up voter,") || !strings.HasPrefix(f.Fix, "start voter 3 first") {
		t.Errorf("restart-loses-majority: %q, fix %q", f.Message, f.Fix)
	}
	// A voter down just now, its last catch-up within the fetch timeout
	// of the leader's: down is not caught up.
	st := live(1, 1, nil, 1, 2, 3)
	st.Voters[2].LastFetchTimestamp = now - 3000
	st.Voters[2].LastCaughtUpTimestamp = now - 1500
	if a := Judge(st, Options{}); restart(a) != "nny" || a.Voters[0].CaughtUpWithout != 1 {
		t.Errorf("a voter down but lately caught up: restart %s, voters %+v", restart(a), a.Voters)
	}
	// A longer fetch timeout (the flag) calls it up and caught up.
	if a := Judge(live(1, 1, map[int32]int64{3: 10_000}, 1, 2, 3), Options{FetchTimeoutMs: 20_000}); len(a.Findings) != 0 {
		t.Fatalf("with 20 s: %q", codes(a))
	}
}

func TestJudgeLagging(t *testing.T) {
	st := live(1, 1, nil, 1, 2, 3)
	st.Voters[1].LastCaughtUpTimestamp = now - 5000 // fetching, but behind
	st.Voters[1].LogEndOffset = 40
	a := Judge(st, Options{})
	want := []string{"warning restart-loses-majority controller 1", "warning voter-lagging controller 2", "warning restart-loses-majority controller 3"}
	if !slices.Equal(codes(a), want) {
		t.Fatalf("findings %q, want %q", codes(a), want)
	}
	if m := a.Findings[1].Message; !strings.Contains(m, "60 records behind") {
		t.Fatalf("message %q", m)
	}
}

func TestJudgeVoterCounts(t *testing.T) {
	for _, c := range []struct {
		ids  []int32
		want string
	}{
		{[]int32{1}, "error quorum-single-voter quorum"},
		{[]int32{1, 2}, "warning quorum-even-voters quorum"},
		{[]int32{1, 2, 3, 4}, "warning quorum-even-voters quorum"},
	} {
		a := Judge(live(1, 1, nil, c.ids...), Options{})
		if !slices.Contains(codes(a), c.want) {
			t.Errorf("%d voters: %q, want %q", len(c.ids), codes(a), c.want)
		}
	}
	// Two voters: restarting either leaves one, under the majority of two.
	if a := Judge(live(1, 1, nil, 1, 2), Options{}); restart(a) != "nn" {
		t.Errorf("2 voters restart %s", restart(a))
	}
	if a := Judge(&model.QuorumStatus{LeaderID: -1}, Options{}); !slices.Equal(codes(a), []string{"error quorum-no-voters quorum"}) {
		t.Errorf("no voters: %q", codes(a))
	}
	st := live(1, 1, nil, 1, 2, 3)
	st.LeaderID = -1
	a := Judge(st, Options{})
	if !slices.Equal(codes(a), []string{"error quorum-no-leader quorum"}) || restart(a) != "uuu" {
		t.Errorf("no leader: %q, restart %s", codes(a), restart(a))
	}
}

func TestJudgeCanBeDynamic(t *testing.T) {
	a := Judge(live(0, 1, nil, 1, 2, 3), Options{})
	if !slices.Equal(codes(a), []string{"info static-quorum-can-be-dynamic quorum"}) || a.Failing() {
		t.Fatalf("findings %q", codes(a))
	}
	// kmeta's gated command, which prints the config roll that follows;
	// on the cluster as the command read it, or for the operator to fill.
	if fix := a.Findings[0].Fix; fix != "kmeta features upgrade --bootstrap-server BOOTSTRAP --feature kraft.version=1" {
		t.Fatalf("fix %q", fix)
	}
	// From log dirs: the brokers' registered listeners, a PLAINTEXT one
	// where a broker has several; --command-config FILE when one is
	// secured; BOOTSTRAP when no broker is registered.
	dynFix := func(st *model.QuorumStatus) string {
		for _, f := range Judge(st, Options{}).Findings {
			if f.Code == CodeCanBeDynamic {
				return f.Fix
			}
		}
		return ""
	}
	st := live(0, 1, nil, 1, 2, 3)
	st.Brokers = [][]model.Endpoint{
		{{Name: "PLAINTEXT", Host: "b1.example", Port: 9092}},
		{{Name: "SECURE", Host: "fe80::1", Port: 9094, SecurityProtocol: 3}, {Name: "PLAINTEXT", Host: "b2.example", Port: 9092}},
	}
	if fix := dynFix(st); fix != "kmeta features upgrade --bootstrap-server b1.example:9092,b2.example:9092 --feature kraft.version=1" {
		t.Errorf("registered listeners: fix %q", fix)
	}
	st.Brokers[1] = st.Brokers[1][:1]
	if fix := dynFix(st); fix != "kmeta features upgrade --bootstrap-server 'b1.example:9092,[fe80::1]:9094' --command-config FILE --feature kraft.version=1" {
		t.Errorf("a secured listener: fix %q", fix)
	}
	st.Brokers = nil
	if fix := dynFix(st); fix != "kmeta features upgrade --bootstrap-server BOOTSTRAP --feature kraft.version=1" {
		t.Errorf("no broker registered: fix %q", fix)
	}
	// Controllers whose registrations tell a release before 4.1 (Kafka
	// 3.9 lists kraft.version 1 but cannot move there online): the
	// upgrade comes first. 4.1's and later: the command alone.
	st = live(0, 1, nil, 1, 2, 3)
	st.MetadataVersionSupported = 21
	if fix := dynFix(st); fix != "upgrade every controller to Kafka 4.1 or later, then kmeta features upgrade --bootstrap-server BOOTSTRAP --feature kraft.version=1" {
		t.Errorf("3.9 controllers: fix %q", fix)
	}
	st.MetadataVersionSupported = KRaftOnlineUpgradeMV
	if fix := dynFix(st); fix != "kmeta features upgrade --bootstrap-server BOOTSTRAP --feature kraft.version=1" {
		t.Errorf("4.1 controllers: fix %q", fix)
	}
	a = Judge(live(0, 1, nil, 1, 2, 3), Options{Cluster: []string{"--bootstrap-controller", "c1:9093,c2:9093", "--command-config", "/etc/kafka/admin client.properties"}})
	if fix := a.Findings[0].Fix; fix != "kmeta features upgrade --bootstrap-controller c1:9093,c2:9093 --command-config '/etc/kafka/admin client.properties' --feature kraft.version=1" {
		t.Fatalf("fix %q", fix)
	}
	for _, st := range []*model.QuorumStatus{live(0, 0, nil, 1, 2, 3), live(1, 1, nil, 1, 2, 3), live(0, -1, nil, 1, 2, 3)} {
		if a := Judge(st, Options{}); len(a.Findings) != 0 {
			t.Errorf("kraft.version %d supported %d: %q", st.KRaftVersion, st.KRaftVersionSupported, codes(a))
		}
	}
}

// A log dir's status: no times, so restart safety is unknown and nothing
// is called down; offsets say who is behind; a directory id that differs
// from meta.properties is an error (dynamic quorums only).
func TestJudgeLogDirs(t *testing.T) {
	d1, d2 := model.UUID{1: 1}, model.UUID{2: 2}
	st := &model.QuorumStatus{LeaderID: 1, LeaderEpoch: 4, HighWatermark: -1, KRaftVersion: 1, KRaftVersionSupported: 1,
		Voters: []model.QuorumReplica{
			{ID: 1, DirectoryID: d1, LogEndOffset: 90, LastFetchTimestamp: -1, LastCaughtUpTimestamp: -1, LogDir: "/c1", MetaDirectoryID: d1, HasMetaDirectoryID: true},
			{ID: 2, DirectoryID: d2, LogEndOffset: 80, LastFetchTimestamp: -1, LastCaughtUpTimestamp: -1, LogDir: "/c2", MetaDirectoryID: d1, HasMetaDirectoryID: true},
			{ID: 3, LogEndOffset: -1, LastFetchTimestamp: -1, LastCaughtUpTimestamp: -1},
		}}
	st.MarkNotReported(model.QuorumFieldHighWatermark, model.QuorumFieldLastFetch, model.QuorumFieldLastCaughtUp, model.QuorumFieldObservers)
	a := Judge(st, Options{})
	want := []string{"error voter-directory-id-mismatch controller 2", "info voter-lagging controller 2"}
	if !slices.Equal(codes(a), want) {
		t.Fatalf("findings %q, want %q", codes(a), want)
	}
	if restart(a) != "uuu" || a.Voters[1].Down != Unknown || a.Voters[0].CaughtUp != Yes {
		t.Fatalf("voters %+v", a.Voters)
	}
	// A static quorum's voters have no directory ids: nothing to compare.
	st.KRaftVersion = 0
	st.KRaftVersionSupported = 0
	if a := Judge(st, Options{}); slices.Contains(codes(a), want[0]) {
		t.Fatalf("static: %q", codes(a))
	}
}

// KRaftOnlineUpgradeMV is the first level of Kafka 4.1 in kmeta's catalog.
func TestKRaftOnlineUpgradeMVIs41(t *testing.T) {
	l, err := features.LevelFor("4.1-IV0")
	if err != nil || l.Level != KRaftOnlineUpgradeMV || l.Release != "4.1" {
		t.Fatalf("4.1-IV0: %+v, %v; KRaftOnlineUpgradeMV %d", l, err, KRaftOnlineUpgradeMV)
	}
	if prev, ok := features.ByLevel(KRaftOnlineUpgradeMV - 1); !ok || prev.Release == "4.1" {
		t.Fatalf("level %d: %+v: 4.1 starts lower", KRaftOnlineUpgradeMV-1, prev)
	}
}
