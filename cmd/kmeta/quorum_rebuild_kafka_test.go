package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/quorum"
)

// TestQuorumRebuildKafka is the disaster drill on real Kafka 4.4.0 with
// dynamic voters: 3 dedicated controllers formatted with
// --initial-controllers (kraft.version 1, each voter with its directory
// id), 3 brokers, the rich metadata set and messages. Two losses, on one
// cluster:
//
//   - two controllers lost: the brokers stop, two controllers are killed
//     (kill -9) and their metadata dirs deleted, the survivor (the leader)
//     stops; kmeta quorum rebuild writes three new controller dirs from
//     the survivor's copy, which replace the controllers' dirs;
//   - all three lost: everything stops again and every controller's dir is
//     deleted; kmeta quorum survey over the brokers' metadata dirs names a
//     broker's copy as the best, and the rebuild is made from it (the other
//     brokers' copies given, so that it would refuse one further).
//
// After each, real controllers start on the new dirs and the brokers
// rejoin without being reformatted: Kafka's kafka-metadata-quorum shows
// kraft.version 1 and the voters with the directory ids the rebuild
// wrote; the rebuild says the brokers need nothing (their
// controller.quorum.bootstrap.servers still reaches the voters, which
// keep their ids and endpoints); kmeta diff of a new controller's dir
// against the leader's copy at the loss shows no difference but what the
// restart moves; every message is consumed back; a new topic can be
// created. One cluster start, two restarts on rebuilt quorums.
func TestQuorumRebuildKafka(t *testing.T) {
	drillOnly(t)
	recordTranscript(t, "quorum-rebuild")
	d := kafkatest.Dist(t, "4.4.0")
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 3, Brokers: 3, SASL: true, Authorizer: true, DynamicQuorum: true})
	defer c.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	formatted := map[int]string{}
	for _, id := range c.Controllers() {
		formatted[id] = c.Node(id).DirectoryID
	}
	qs, err := c.WaitQuorum(ctx, 2*time.Minute, c.Controllers()...)
	if err != nil {
		t.Fatal(err)
	}
	checkDynamicVoters(t, qs, formatted)
	dr := newRebuildDrill(ctx, t, c, true)
	dr.twoControllersLost()
	if t.Failed() {
		return
	}

	// All three controllers lost: only the brokers' copies remain.
	qs, err = c.DescribeQuorum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	leader := qs.LeaderID
	dr.stopBrokers()
	for _, id := range c.Controllers() {
		c.StopNode(id)
	}
	beforeAll := filepath.Join(t.TempDir(), "before-all-lost")
	fstree.CopyTo(t, c.MetadataLogDir(leader), beforeAll)
	for _, id := range c.Controllers() {
		if err := os.RemoveAll(c.MetadataLogDir(id)); err != nil {
			t.Fatal(err)
		}
	}
	var brokerDirs []string
	for _, b := range c.Brokers() {
		brokerDirs = append(brokerDirs, c.MetadataLogDir(b))
	}
	code, stdout, stderr := runKmeta(t, append([]string{"quorum", "survey", "-o", "json"}, brokerDirs...)...)
	var sv quorum.SurveyResult
	if err := json.Unmarshal([]byte(stdout), &sv); err != nil {
		t.Fatalf("quorum survey: exit %d: %v\n%s%s", code, err, stdout, stderr)
	}
	_, text, _ := runKmeta(t, append([]string{"quorum", "survey"}, brokerDirs...)...)
	t.Logf("kmeta quorum survey (exit %d):\n%s", code, text)
	best := sv.Copies[sv.Best]
	if best.Role != quorum.RoleBroker || !sv.CleanRebuild || !sv.Agree {
		t.Fatalf("survey of the brokers' copies: best %s (role %s), clean %v, agree %v", best.Dir, best.Role, sv.CleanRebuild, sv.Agree)
	}
	for _, cp := range sv.Copies {
		if cp.LastEpoch > best.LastEpoch || cp.LastEpoch == best.LastEpoch && cp.EndOffset > best.EndOffset {
			t.Fatalf("survey's best copy %s (epoch %d, end %d) is behind %s (epoch %d, end %d) by the vote rule",
				best.Dir, best.LastEpoch, best.EndOffset, cp.Dir, cp.LastEpoch, cp.EndOffset)
		}
	}
	var others []string
	for _, dir := range brokerDirs {
		if dir != best.Dir {
			others = append(others, dir)
		}
	}
	dr.rebuildAndCheck("all controllers lost", best.Dir, others, beforeAll, "after.rebuild.from.broker")
}

// drillOnly skips the disaster-recovery drills unless KMETA_DRILL=1
// (`make drill`): each stops, wipes and restarts a six-node cluster, one
// and a half to three minutes apiece, too long for make test's budget.
// make test keeps the shorter proof that a rebuilt quorum starts
// (TestQuorumSurveyKafka).
func drillOnly(t *testing.T) {
	t.Helper()
	kafkatest.SkipIfUnitOnly(t)
	if os.Getenv("KMETA_DRILL") != "1" {
		t.Skip("disaster-recovery drill: run with `make drill` (KMETA_DRILL=1)")
	}
}

// TestQuorumRebuildStaticKafka is the drill with static voters on real
// Kafka 3.9.2 (controller.quorum.voters, kraft.version 0): 3 dedicated
// controllers, 3 brokers, the rich metadata set and messages; two
// controllers lost, the quorum rebuilt from the survivor's copy, and the
// checks of TestQuorumRebuildKafka (kafka-metadata-quorum's voters at
// kraft.version 0, brokers needing nothing, kmeta diff, every message
// back, a new topic).
func TestQuorumRebuildStaticKafka(t *testing.T) {
	drillOnly(t)
	d := kafkatest.Dist(t, "3.9.2")
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 3, Brokers: 3, SASL: true, Authorizer: true})
	defer c.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	qs, err := c.WaitQuorum(ctx, 2*time.Minute, c.Controllers()...)
	if err != nil {
		t.Fatal(err)
	}
	if qs.KRaftVersion > 0 {
		t.Errorf("kafka-features: kraft.version %d, want 0 (a static quorum)\n%s", qs.KRaftVersion, qs.Raw)
	}
	newRebuildDrill(ctx, t, c, false).twoControllersLost()
}

// twoControllersLost is the first loss of the drills: the brokers stop
// (they need the quorum for a controlled shutdown), the controllers but
// the survivor die (kill -9) and lose their metadata dirs, the survivor
// stops; the quorum is rebuilt from the survivor's copy. The survivor is
// the leader: it holds every committed record.
func (dr *rebuildDrill) twoControllersLost() {
	t, c := dr.t, dr.c
	t.Helper()
	qs, err := c.DescribeQuorum(dr.ctx)
	if err != nil {
		t.Fatal(err)
	}
	survivor := qs.LeaderID
	var lost []int
	for _, id := range c.Controllers() {
		if id != survivor {
			lost = append(lost, id)
		}
	}
	survivorDir := c.MetadataLogDir(survivor)
	if code, out, errs := runKmeta(t, "image", "-o", "json", survivorDir); code != exitOK || !strings.Contains(out, `"topics"`) {
		t.Fatalf("kmeta image of %s before the loss: exit %d: %s", survivorDir, code, errs)
	}
	dr.stopBrokers()
	for _, id := range lost {
		c.KillNode(id)
	}
	c.StopNode(survivor)
	// The survivor's copy, judged before anything is rebuilt from it.
	if code, out, errs := runKmeta(t, "quorum", "survey", survivorDir); code != exitOK {
		t.Errorf("kmeta quorum survey of the survivor: exit %d\n%s%s", code, out, errs)
	}
	beforeCopy := filepath.Join(t.TempDir(), "before-two-lost")
	fstree.CopyTo(t, survivorDir, beforeCopy)
	for _, id := range lost {
		if err := os.RemoveAll(c.MetadataLogDir(id)); err != nil {
			t.Fatal(err)
		}
	}
	dr.rebuildAndCheck("two controllers lost", survivorDir, nil, beforeCopy, "after.rebuild")
}

// stopBrokers stops the brokers all at once (each in a controlled
// shutdown: SIGTERM), which is quicker than one after the other.
func (dr *rebuildDrill) stopBrokers() {
	start := time.Now()
	var wg sync.WaitGroup
	for _, b := range dr.c.Brokers() {
		wg.Go(func() { dr.c.StopNode(b) })
	}
	wg.Wait()
	dr.t.Logf("brokers stopped in %s", time.Since(start).Round(100*time.Millisecond))
}

// checkDynamicVoters checks Kafka's own account of the quorum: kraft.version
// 1 and exactly the voters of want, each with the directory id want gives.
func checkDynamicVoters(t *testing.T, qs *kafkatest.QuorumStatus, want map[int]string) {
	t.Helper()
	if qs.KRaftVersion != 1 {
		t.Errorf("kafka-features: kraft.version %d, want 1 (a dynamic quorum)\n%s", qs.KRaftVersion, qs.Raw)
	}
	if len(qs.Voters) != len(want) {
		t.Errorf("kafka-metadata-quorum: voters %v, want %v\n%s", qs.VoterIDs(), want, qs.Raw)
	}
	for _, v := range qs.Voters {
		if w, ok := want[v.ID]; !ok || w == "" || v.DirectoryID != w {
			t.Errorf("kafka-metadata-quorum: voter %d has directory id %q, want %q\n%s", v.ID, v.DirectoryID, w, qs.Raw)
		}
	}
}

// rebuildDrill holds what every phase of TestQuorumRebuildKafka checks
// against: the messages produced and read back before any loss.
type rebuildDrill struct {
	// dynamic: the quorum is dynamic (kraft.version 1), else static.
	dynamic bool
	ctx     context.Context
	t       *testing.T
	c       *kafkatest.Cluster
	data    *kafkatest.Data
	before  []kafkatest.Message
}

func newRebuildDrill(ctx context.Context, t *testing.T, c *kafkatest.Cluster, dynamic bool) *rebuildDrill {
	start := time.Now()
	defer func() { t.Logf("metadata and messages in %s", time.Since(start).Round(100*time.Millisecond)) }()
	rich, err := kafkatest.PopulateRich(ctx, c, c.Admin(t), kafkatest.RichOptions{ACLs: true, Tokens: true})
	if err != nil {
		t.Fatalf("%v\ndone: %v", err, rich.Log)
	}
	data, err := kafkatest.ProduceData(ctx, c, kafkatest.DataOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := kafkatest.ConsumeAll(ctx, c, data.Topics, len(data.Produced))
	if err != nil {
		t.Fatal(err)
	}
	return &rebuildDrill{dynamic: dynamic, ctx: ctx, t: t, c: c, data: data, before: before}
}

// rebuildAndCheck rebuilds the quorum from the copy from (the other
// copies given as arguments), puts the new dirs in place of every
// controller's, starts the controllers and then the brokers, and checks
// the cluster against beforeDir (the leader's copy at the loss).
func (dr *rebuildDrill) rebuildAndCheck(phase, from string, others []string, beforeDir, newTopic string) {
	t, c := dr.t, dr.c
	t.Helper()
	out := filepath.Join(t.TempDir(), "rebuilt")
	args := append([]string{"quorum", "rebuild", "--from", from, "--controllers", c.QuorumVoters(), "--out", out}, others...)
	code, stdout, stderr := runKmeta(t, args...)
	if code != exitOK {
		t.Fatalf("%s: quorum rebuild: exit %d\n%s\n%s", phase, code, stdout, stderr)
	}
	t.Logf("%s: quorum rebuild:\n%s", phase, stdout)
	// The voters keep their ids and endpoints, so the brokers'
	// controller.quorum.bootstrap.servers (dynamic) or
	// controller.quorum.voters (static) still reaches them: the rebuild
	// must say the brokers need nothing.
	kind, setting, want := "static quorum (kraft.version 0)", "controller.quorum.voters", c.QuorumVoters()
	if dr.dynamic {
		kind, setting, want = "dynamic quorum (kraft.version 1)", "controller.quorum.bootstrap.servers", c.BootstrapControllers()
	}
	if !strings.Contains(stdout, kind) {
		t.Errorf("%s: the rebuild should write a %s:\n%s", phase, kind, stdout)
	}
	for _, b := range c.Brokers() {
		if got := c.Node(b).Props[setting]; got != want {
			t.Fatalf("%s: broker %d's %s %q, the new voters are %q", phase, b, setting, got, want)
		}
	}
	if !strings.Contains(stdout, "Brokers: nothing to change") {
		t.Errorf("%s: same cluster id and voters: brokers should need nothing:\n%s", phase, stdout)
	}
	written := map[int]string{}
	for _, id := range c.Controllers() {
		dir := c.MetadataLogDir(id)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(out, "controller-"+strconv.Itoa(id)), dir); err != nil {
			t.Fatal(err)
		}
		ld, err := metalog.OpenLogDir(dir)
		if err != nil || ld.MetaProperties == nil {
			t.Fatalf("%s: the rebuilt dir %s: %v", phase, dir, err)
		}
		written[id] = ld.MetaProperties.DirectoryID.String()
	}

	start := time.Now()
	c.StartNodes(c.Controllers()...)
	c.StartNodes(c.Brokers()...)
	c.WaitBrokers(t, 2*time.Minute, c.Brokers()...)
	t.Logf("%s: rebuilt quorum and brokers up in %s", phase, time.Since(start).Round(time.Second))
	qs, err := c.WaitQuorum(dr.ctx, 2*time.Minute, c.Controllers()...)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	// What an operator runs next (docs/runbooks/recover-controller-quorum.md):
	// the live quorum, every voter back and caught up.
	if code, out, errs := runKmeta(t, "quorum", "describe", "--bootstrap-controller", c.BootstrapControllers()); code != exitOK {
		t.Errorf("%s: kmeta quorum describe of the rebuilt quorum: exit %d\n%s%s", phase, code, out, errs)
	}
	if dr.dynamic {
		checkDynamicVoters(t, qs, written)
	} else if qs.KRaftVersion > 0 {
		t.Errorf("%s: kafka-features: kraft.version %d, want 0 (a static quorum)\n%s", phase, qs.KRaftVersion, qs.Raw)
	}

	// The metadata: kmeta diff of the running leader's dir against the
	// leader's copy at the loss.
	code, diffOut, diffErr := runKmeta(t, "diff", beforeDir, c.MetadataLogDir(qs.LeaderID))
	t.Logf("%s: kmeta diff (exit %d):\n%s%s", phase, code, diffOut, diffErr)
	// What a restart legitimately moves, and nothing else: the brokers
	// stopped in a controlled way before the loss (fenced, their
	// partitions leaderless with ELR), and re-registered after it (a new
	// epoch and incarnation, unfenced, leaders re-elected).
	moves := map[string]bool{
		"brokers/epoch": true, "brokers/fenced": true, "brokers/inControlledShutdown": true, "brokers/incarnationId": true,
		"runtime/leader": true, "runtime/leaderEpoch": true, "runtime/partitionEpoch": true, "runtime/isr": true,
		"runtime/elr": true, "runtime/lastKnownElr": true,
	}
	rows := 0
	for _, ln := range strings.Split(diffOut, "\n") {
		f := strings.Fields(ln)
		if len(f) < 6 || f[2] != "changed" && f[2] != "added" && f[2] != "removed" {
			continue
		}
		rows++
		// The rebuild gives every voter a new directory id (the quorum
		// starts over from a snapshot): the diff must show exactly the
		// ids it wrote.
		if f[0] == "quorum" && f[3] == "voter" && f[5] == "directoryID" && len(f) > 7 {
			if id, err := strconv.Atoi(f[4]); err != nil || written[id] != f[7] {
				t.Errorf("%s: voter %s's directory id is %s, the rebuild wrote %q", phase, f[4], f[7], written[id])
			}
			continue
		}
		if !moves[f[0]+"/"+f[5]] {
			t.Errorf("%s: a difference a restart does not explain: %s", phase, ln)
		}
	}
	if code != exitOK && rows == 0 {
		t.Errorf("%s: kmeta diff exit %d with no difference row: %s", phase, code, diffErr)
	}
	after, err := kafkatest.ConsumeAll(dr.ctx, c, dr.data.Topics, len(dr.before))
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	if dd := kafkatest.DiffMessages(dr.before, after); len(dd) > 0 {
		t.Fatalf("%s: %d records differ after the rebuild, e.g.:\n%s", phase, len(dd), strings.Join(dd[:min(10, len(dd))], "\n"))
	}
	t.Logf("%s: all %d records read back, %s after the restart", phase, len(after), time.Since(start).Round(100*time.Millisecond))
	if _, err := c.Admin(t).CreateTopic(dr.ctx, 3, 3, nil, newTopic); err != nil {
		t.Fatalf("%s: creating a topic on the rebuilt quorum: %v", phase, err)
	}
}
