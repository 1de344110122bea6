package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// TestQuorumDescribeMatchesKafka: on a real 4.4.0 quorum of three
// dedicated controllers and a broker, kmeta quorum describe prints the
// fields kafka-metadata-quorum describe --status and --replication print,
// with the same values, through controllers and through the broker:
// healthy, while a follower voter is stopped, and once it is back. Fields
// that move while the cluster runs (fetch and caught-up times) are
// checked to lie between two readings of Kafka's tool, one before and one
// after kmeta's; the cluster writes no idle records, so offsets stand
// still and are compared exactly. The down voter and the restart-safety
// column are checked against Strimzi's rule applied to Kafka's own
// numbers. From the controllers' log dirs kmeta agrees with Kafka on the
// leader, the epoch and the voters.
//
// The cluster has two brokers and the live acceptance's listeners and
// rich metadata set, and hosts, first, the live acceptance on this shape
// (liveAcceptance, and what only controllers answer: liveControllers).
func TestQuorumDescribeMatchesKafka(t *testing.T) {
	kafkatest.Concurrently(t, 180*time.Second) // make test, 2026-12-06
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, liveOptions(kafkatest.KRaftOptions{Controllers: 3, Brokers: 2, IdleInterval: time.Hour}))
	ctx := context.Background()
	ctls := c.Controllers()
	if _, err := c.WaitQuorum(ctx, 2*time.Minute, ctls...); err != nil {
		t.Fatal(err)
	}
	bc := c.BootstrapControllers()
	// Before the voter is stopped and restarted below.
	t.Run("live acceptance", func(t *testing.T) {
		populateLive(t, c, 2)
		liveAcceptance(t, c, ctls[0])
		liveControllers(t, c)
	})
	broker := "kafka://" + c.BootstrapServers()
	const timeout = 2000

	// compare reads Kafka, then kmeta through controllers and the broker,
	// then Kafka again; it returns the second Kafka reading and kmeta's
	// JSON (through controllers).
	compare := func(state string, wantExit int) (*kafkatest.QuorumStatus, report.QuorumDescribe) {
		t.Helper()
		for attempt := 0; ; attempt++ {
			k1, err := c.DescribeQuorum(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rc := kmeta("quorum", "describe", "--bootstrap-controller", bc)
			rb := kmeta("quorum", "describe", broker)
			rj := kmeta("quorum", "describe", "-o", "json", "--bootstrap-controller", bc)
			k2, err := c.DescribeQuorum(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var doc report.QuorumDescribe
			if err := json.Unmarshal([]byte(rj.stdout), &doc); err != nil {
				t.Fatalf("%s: JSON: %v\n%s%s", state, err, rj.stdout, rj.stderr)
			}
			var problems []string
			for _, r := range []struct {
				how string
				res cliResult
			}{{"--bootstrap-controller", rc}, {"kafka://", rb}} {
				if r.res.code != wantExit {
					problems = append(problems, fmt.Sprintf("%s: exit %d, want %d: %s", r.how, r.res.code, wantExit, r.res.stderr))
				}
				problems = append(problems, quorumDiffs(r.how, k1, k2, r.res.stdout)...)
			}
			if len(problems) == 0 {
				t.Logf("%s: Kafka:\n%s\nkmeta:\n%s", state, k2.Raw, rc.stdout)
				return k2, doc
			}
			// A leader election between the readings moves every field:
			// read again, a few times.
			if attempt == 2 || k1.LeaderEpoch == k2.LeaderEpoch {
				t.Fatalf("%s: kmeta differs from kafka-metadata-quorum:\n%s\nKafka before:\n%s\nKafka after:\n%s\nkmeta:\n%s\n%s",
					state, strings.Join(problems, "\n"), k1.Raw, k2.Raw, rc.stdout, rb.stdout)
			}
		}
	}
	// judgeAgrees checks kmeta's down and restart-safe answers against
	// Strimzi's rule applied to Kafka's own replication table.
	judgeAgrees := func(state string, k *kafkatest.QuorumStatus, doc report.QuorumDescribe) {
		t.Helper()
		var leader kafkatest.ReplicationRow
		for _, r := range k.Rows {
			if r.Cells["Status"] == "Leader" {
				leader = r
			}
		}
		caught := map[int]bool{}
		down := map[int]bool{}
		for _, r := range k.Rows {
			if r.Cells["Status"] == "Observer" {
				continue
			}
			caught[r.NodeID] = r.LastCaughtUpTimestamp >= 0 && leader.LastCaughtUpTimestamp-r.LastCaughtUpTimestamp < timeout
			down[r.NodeID] = r.LastFetchTimestamp < 0 || leader.LastFetchTimestamp-r.LastFetchTimestamp > timeout
		}
		for _, v := range doc.Voters {
			id := int(v.ID)
			n := 0
			for o, ok := range caught {
				if o != id && ok {
					n++
				}
			}
			wantSafe := n >= len(caught)/2+1
			if (v.RestartSafe == "yes") != wantSafe || (v.Down == "yes") != (down[id] && id != leader.NodeID) {
				t.Errorf("%s: voter %d: kmeta says down %s, restart-safe %s; Kafka's numbers say down %v, restart-safe %v (%d caught up without it)\n%s",
					state, id, v.Down, v.RestartSafe, down[id], wantSafe, n, k.Raw)
			}
			hasDown := slices.ContainsFunc(doc.Findings, func(f model.Finding) bool {
				return f.Code == "voter-down" && f.Entity == fmt.Sprintf("controller %d", id)
			})
			if hasDown != (v.Down == "yes") {
				t.Errorf("%s: voter %d: down %s but voter-down finding %v", state, id, v.Down, hasDown)
			}
		}
	}
	logDirsAgree := func(state string, k *kafkatest.QuorumStatus) {
		t.Helper()
		args := []string{"quorum", "describe", "-o", "json"}
		for _, id := range ctls {
			args = append(args, c.MetadataLogDir(id))
		}
		r := kmeta(args...)
		var doc report.QuorumDescribe
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code == 2 {
			t.Fatalf("%s: log dirs: exit %d %v\n%s%s", state, r.code, err, r.stdout, r.stderr)
		}
		var ids []int
		for _, v := range doc.Status.Voters {
			ids = append(ids, int(v.ID))
		}
		if int(doc.Status.LeaderID) != k.LeaderID || int(doc.Status.LeaderEpoch) != k.LeaderEpoch || !slices.Equal(ids, k.VoterIDs()) ||
			doc.Status.ClusterID != k.ClusterID || int(doc.Status.KRaftVersion) != k.KRaftVersion {
			t.Errorf("%s: log dirs say leader %d epoch %d voters %v cluster %s kraft.version %d; Kafka says leader %d epoch %d voters %v cluster %s kraft.version %d",
				state, doc.Status.LeaderID, doc.Status.LeaderEpoch, ids, doc.Status.ClusterID, doc.Status.KRaftVersion,
				k.LeaderID, k.LeaderEpoch, k.VoterIDs(), k.ClusterID, k.KRaftVersion)
		}
	}

	k, doc := compare("healthy", 0)
	judgeAgrees("healthy", k, doc)
	logDirsAgree("healthy", k)
	if !slices.ContainsFunc(doc.Findings, func(f model.Finding) bool { return f.Code == "static-quorum-can-be-dynamic" }) || k.KRaftVersion != 0 {
		t.Errorf("a static 4.4.0 quorum (kraft.version %d): findings %v", k.KRaftVersion, doc.Findings)
	}

	// Stop a follower voter and wait past the fetch timeout.
	victim := -1
	for _, id := range ctls {
		if id != k.LeaderID {
			victim = id
			break
		}
	}
	c.StopNode(victim)
	time.Sleep(3 * timeout * time.Millisecond)
	k, doc = compare(fmt.Sprintf("voter %d down", victim), 1)
	judgeAgrees("down", k, doc)
	for _, v := range doc.Voters {
		want := map[bool]string{true: "yes", false: "no"}[int(v.ID) == victim]
		if string(v.RestartSafe) != want || (string(v.Down) == "yes") != (int(v.ID) == victim) {
			t.Errorf("voter %d down: voter %d down %s restart-safe %s", victim, v.ID, v.Down, v.RestartSafe)
		}
	}

	// Back again: wait until Kafka calls it caught up.
	c.StartNode(victim)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		k, err := c.WaitQuorum(ctx, time.Minute, ctls...)
		if err != nil {
			t.Fatal(err)
		}
		var lead, back kafkatest.ReplicationRow
		for _, r := range k.Rows {
			if r.Cells["Status"] == "Leader" {
				lead = r
			}
			if r.NodeID == victim {
				back = r
			}
		}
		if back.LastCaughtUpTimestamp >= 0 && lead.LastCaughtUpTimestamp-back.LastCaughtUpTimestamp < timeout && lead.LastFetchTimestamp-back.LastFetchTimestamp < timeout {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("voter %d did not catch up:\n%s", victim, k.Raw)
		}
		time.Sleep(time.Second)
	}
	k, doc = compare("restarted", 0)
	judgeAgrees("restarted", k, doc)
	logDirsAgree("restarted", k)
}

// quorumDiffs compares kmeta's text output with two readings of Kafka's
// tool, field by field: fixed fields equal (both readings must agree),
// moving times between the two readings.
func quorumDiffs(how string, k1, k2 *kafkatest.QuorumStatus, text string) []string {
	var out []string
	got := kafkatest.ParseStatusLines(text)
	for _, key := range []string{"ClusterId", "LeaderId", "LeaderEpoch", "HighWatermark", "MaxFollowerLag", "CurrentVoters", "CurrentObservers"} {
		if got[key] != k1.StatusFields[key] || got[key] != k2.StatusFields[key] {
			out = append(out, fmt.Sprintf("%s: %s: kmeta %q, Kafka %q then %q", how, key, got[key], k1.StatusFields[key], k2.StatusFields[key]))
		}
	}
	// MaxFollowerLagTimeMs moves with the leader's clock: between the
	// readings, give or take a fetch's wait.
	var g, a, b int64
	fmt.Sscan(got["MaxFollowerLagTimeMs"], &g)
	fmt.Sscan(k1.StatusFields["MaxFollowerLagTimeMs"], &a)
	fmt.Sscan(k2.StatusFields["MaxFollowerLagTimeMs"], &b)
	if _, ok := got["MaxFollowerLagTimeMs"]; !ok || g < min(a, b)-1000 || g > max(a, b)+1000 {
		out = append(out, fmt.Sprintf("%s: MaxFollowerLagTimeMs: kmeta %q, Kafka %d then %d", how, got["MaxFollowerLagTimeMs"], a, b))
	}
	rows, err := kafkatest.ParseReplication(text)
	if err != nil {
		return append(out, how+": "+err.Error())
	}
	if len(rows) != len(k1.Rows) || len(rows) != len(k2.Rows) {
		return append(out, fmt.Sprintf("%s: %d replication rows, Kafka %d then %d", how, len(rows), len(k1.Rows), len(k2.Rows)))
	}
	for i, r := range rows {
		for _, col := range []string{"NodeId", "DirectoryId", "LogEndOffset", "Lag", "Status"} {
			if r.Cells[col] != k1.Rows[i].Cells[col] || r.Cells[col] != k2.Rows[i].Cells[col] {
				out = append(out, fmt.Sprintf("%s: row %d %s: kmeta %q, Kafka %q then %q", how, i, col, r.Cells[col], k1.Rows[i].Cells[col], k2.Rows[i].Cells[col]))
			}
		}
		for _, col := range []struct {
			name    string
			g, a, b int64
		}{
			{"LastFetchTimestamp", r.LastFetchTimestamp, k1.Rows[i].LastFetchTimestamp, k2.Rows[i].LastFetchTimestamp},
			{"LastCaughtUpTimestamp", r.LastCaughtUpTimestamp, k1.Rows[i].LastCaughtUpTimestamp, k2.Rows[i].LastCaughtUpTimestamp},
		} {
			if col.g < col.a || col.g > col.b {
				out = append(out, fmt.Sprintf("%s: row %d %s: kmeta %d, not between Kafka's %d and %d", how, i, col.name, col.g, col.a, col.b))
			}
		}
		if _, ok := r.Cells["RestartSafe"]; !ok {
			out = append(out, fmt.Sprintf("%s: row %d has no RestartSafe column", how, i))
		}
	}
	return out
}

// liveControllers: on dedicated controllers, `kmeta image
// --bootstrap-controller` reads what controllers answer (cluster id,
// controllers, finalized features) as Kafka's own kafka-metadata-quorum
// and kafka-features --bootstrap-controller see them, and marks the rest
// not reported with a warning, holding none of it; `kmeta features
// describe --bootstrap-server` gives the finalized levels kafka-features
// --bootstrap-server describe prints.
func liveControllers(t *testing.T, c *kafkatest.Cluster) {
	bc := c.BootstrapControllers()
	// nonZero leaves out what kmeta's image has no place for: kraft.version
	// (the quorum's, read by quorum describe) and level 0 (not finalized).
	nonZero := func(m map[string]string) map[string]string {
		maps.DeleteFunc(m, func(k, v string) bool { return v == "0" || k == "kraft.version" })
		return m
	}
	t.Run("image --bootstrap-controller", func(t *testing.T) {
		r := kmeta("image", "-o", "json", "--bootstrap-controller", bc)
		var doc liveImageDoc
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != exitOK {
			t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		q, err := c.DescribeQuorum(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, v := range q.Voters {
			for _, ep := range v.Endpoints {
				want = append(want, fmt.Sprintf("%d %s", v.ID, ep[strings.Index(ep, "://")+3:]))
			}
		}
		for _, ct := range doc.Controllers {
			for _, ep := range ct.Endpoints {
				got = append(got, fmt.Sprintf("%d %s:%d", ct.ID, ep.Host, ep.Port))
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) || doc.ClusterID != q.ClusterID {
			t.Errorf("controllers %v of cluster %s; kafka-metadata-quorum: voters %v of cluster %s", got, doc.ClusterID, want, q.ClusterID)
		}
		kf := nonZero(kafkaFinalized(c.Dist.MustRun(t, c.Dist.Tools.Features, "--bootstrap-controller", bc, "describe")))
		// kafka-features names metadata.version's level; its
		// version-mapping gives the number the image holds.
		mapping := c.Dist.MustRun(t, c.Dist.Tools.Features, "version-mapping", "--release-version", kf["metadata.version"])
		if m := regexp.MustCompile(`metadata\.version=(\d+) `).FindStringSubmatch(mapping); m != nil {
			kf["metadata.version"] = m[1]
		} else {
			t.Fatalf("kafka-features version-mapping --release-version %s:\n%s", kf["metadata.version"], mapping)
		}
		kf2 := map[string]string{}
		for _, f := range doc.Features {
			kf2[f.Name] = strconv.Itoa(int(f.Level))
		}
		if !maps.Equal(kf, nonZero(kf2)) {
			t.Errorf("finalized features %v; kafka-features --bootstrap-controller describe: %v", kf2, kf)
		}
		for _, f := range []model.Field{model.FieldBrokers, model.FieldTopics, model.FieldTopicConfigs, model.FieldBrokerConfigs,
			model.FieldClientQuotas, model.FieldACLs, model.FieldSCRAM, model.FieldDelegationTokens} {
			if !slices.Contains(doc.NotReported, f) {
				t.Errorf("%s is not marked not reported: %v", f, doc.NotReported)
			}
		}
		if len(doc.Brokers)+len(doc.Topics)+len(doc.Configs)+len(doc.ACLs)+len(doc.ClientQuotas)+len(doc.SCRAM)+len(doc.DelegationTokens) != 0 {
			t.Errorf("controllers answered for brokers' sections: %s", r.stdout)
		}
		if !slices.ContainsFunc(doc.Warnings, func(f model.Finding) bool { return strings.Contains(f.Message, "--bootstrap-controller") }) {
			t.Errorf("no warning says what controllers do not answer: %v", doc.Warnings)
		}
		t.Logf("--bootstrap-controller: cluster %s, controllers %v, features %v, not reported %v", doc.ClusterID, got, kf2, doc.NotReported)
	})
	t.Run("features describe --bootstrap-server", func(t *testing.T) {
		r := kmeta("features", "describe", "-o", "json", "--bootstrap-server", c.BootstrapServers())
		var st struct {
			MetadataVersion struct {
				Level int16  `json:"level"`
				Name  string `json:"name"`
			} `json:"metadataVersion"`
			Features []struct {
				Name  string `json:"name"`
				Level int16  `json:"level"`
			} `json:"features"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || r.code != exitOK {
			t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		got := map[string]string{"metadata.version": st.MetadataVersion.Name}
		for _, f := range st.Features {
			got[f.Name] = strconv.Itoa(int(f.Level))
		}
		want := nonZero(kafkaFinalized(c.Dist.MustRun(t, c.Dist.Tools.Features, "--bootstrap-server", c.BootstrapServers(), "describe")))
		if !maps.Equal(nonZero(got), want) {
			t.Errorf("kmeta features describe: %v; kafka-features --bootstrap-server describe: %v", got, want)
		}
		t.Logf("finalized levels as kafka-features prints them: %v (metadata.version %s)", want, st.MetadataVersion.Name)
	})
}
