package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/quorum"
)

// dumpBatch matches a batch line of kafka-dump-log: its offsets and epoch.
var dumpBatch = regexp.MustCompile(`^baseOffset: (\d+) lastOffset: (\d+) .* partitionLeaderEpoch: (\d+) `)

// TestQuorumSurveyKafka: a real 4.4.0 cluster of three controllers and a
// broker, its metadata dirs copied while it runs (the three controllers'
// and the broker's, one after the other, so each at its own moment), then
// once more after a follower controller was stopped and more topics were
// created. Survey must give each copy the end offset and last epoch that
// Kafka's own kafka-dump-log shows for the same files, name as best the
// copy Raft's vote rule puts first (the tied ones listed), report every
// other copy as behind with its offsets, find no divergence (no leader
// changed: the copies are prefixes of one log), infer the roles, and take
// the leader and voters Kafka's DescribeQuorum reports.
func TestQuorumSurveyKafka(t *testing.T) {
	kafkatest.Concurrently(t, 70*time.Second) // make test, 2026-12-06
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 3, Brokers: 1})
	ctx := context.Background()
	ctls := c.Controllers()
	st, err := c.WaitQuorum(ctx, 2*time.Minute, ctls...)
	if err != nil {
		t.Fatal(err)
	}
	broker := c.Brokers()[0]
	adm := c.Admin(t)
	create := func(names ...string) {
		t.Helper()
		for _, n := range names {
			if r, err := adm.CreateTopic(ctx, 2, 1, nil, n); err != nil || r.Err != nil {
				t.Fatalf("create %s: %v %v", n, err, r.Err)
			}
		}
	}
	out := t.TempDir()
	var dirs []string
	snap := func(moment string, ids ...int) {
		t.Helper()
		for _, id := range ids {
			dst := filepath.Join(out, fmt.Sprintf("%s-node%d", moment, id))
			fstree.CopyOnly(t, c.MetadataLogDir(id), dst, nil)
			dirs = append(dirs, dst)
			time.Sleep(700 * time.Millisecond) // the leader appends a NoOp every 500 ms
		}
	}
	create("survey.a", "survey.b", "survey.c")
	snap("first", append(slices.Clone(ctls), broker)...)

	follower := -1
	for _, id := range ctls {
		if id != st.LeaderID {
			follower = id
			break
		}
	}
	c.StopNode(follower)
	create("survey.d", "survey.e", "survey.f")
	time.Sleep(2 * time.Second)
	snap("second", append(slices.Clone(ctls), broker)...)
	kq, err := c.DescribeQuorum(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Kafka's reading of the same files: the last batch of each copy's
	// segments (a torn tail, which dump-log reports and skips, is what
	// Kafka's recovery truncates too).
	var files []string
	for _, dir := range dirs {
		md, err := metalog.OpenLogDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(md.Snapshots) > 1 || (len(md.Snapshots) == 1 && md.Snapshots[0].Snapshot.EndOffset > 0) {
			t.Fatalf("%s: a snapshot beyond the bootstrap one; the oracle reads segments only", dir)
		}
		for _, s := range md.Segments {
			files = append(files, s.Path)
		}
	}
	type point struct {
		end   int64
		epoch int32
	}
	oracle := map[string]point{}
	dump := d.DumpLog(t, files)
	cur := ""
	for _, line := range strings.Split(dump, "\n") {
		if f, ok := strings.CutPrefix(line, "Dumping "); ok {
			cur = filepath.Dir(filepath.Dir(f))
			continue
		}
		if m := dumpBatch.FindStringSubmatch(line); m != nil {
			last, _ := strconv.ParseInt(m[2], 10, 64)
			epoch, _ := strconv.Atoi(m[3])
			oracle[cur] = point{last + 1, int32(epoch)}
		}
	}
	var top point
	for _, dir := range dirs {
		p, ok := oracle[dir]
		if !ok {
			t.Fatalf("kafka-dump-log shows no batch of %s:\n%s", dir, dump)
		}
		if p.epoch > top.epoch || (p.epoch == top.epoch && p.end > top.end) {
			top = p
		}
	}

	r := kmeta(append([]string{"quorum", "survey", "-o", "json"}, dirs...)...)
	var res quorum.SurveyResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	text := kmeta(append([]string{"quorum", "survey"}, dirs...)...)
	t.Logf("kmeta quorum survey:\n%s", text.stdout)
	if r.code != 1 || text.code != 1 {
		t.Errorf("exit %d and %d, want 1 (copies behind the best)", r.code, text.code)
	}
	if len(res.Copies) != len(dirs) {
		t.Fatalf("%d copies", len(res.Copies))
	}
	for i, cp := range res.Copies {
		want := oracle[dirs[i]]
		if cp.EndOffset != want.end || cp.LastEpoch != want.epoch {
			t.Errorf("%s: end %d epoch %d, kafka-dump-log: %d %d", cp.Dir, cp.EndOffset, cp.LastEpoch, want.end, want.epoch)
		}
		node := int(cp.NodeID)
		wantRole := quorum.RoleController
		if node == broker {
			wantRole = quorum.RoleBroker
		}
		if cp.Role != wantRole || cp.Integrity == quorum.IntegrityDamaged {
			t.Errorf("%s: role %s (%s), integrity %s %+v", cp.Dir, cp.Role, cp.RoleEvidence, cp.Integrity, cp.Problem)
		}
		var ids []int
		for _, v := range cp.Voters {
			ids = append(ids, int(v.ID))
		}
		if !slices.Equal(ids, kq.VoterIDs()) {
			t.Errorf("%s: voters %v (%s), Kafka: %v", cp.Dir, ids, cp.VotersFrom, kq.VoterIDs())
		}
		if n := len(cp.LeaderChanges); n == 0 || cp.LeaderChanges[n-1].LeaderID != int32(kq.LeaderID) || cp.LeaderChanges[n-1].Epoch != int32(kq.LeaderEpoch) {
			t.Errorf("%s: leader changes %+v, Kafka: leader %d epoch %d", cp.Dir, cp.LeaderChanges, kq.LeaderID, kq.LeaderEpoch)
		}
		behind := slices.ContainsFunc(res.Findings, func(f model.Finding) bool {
			return f.Code == quorum.CodeCopyBehind && strings.Contains(f.Entity, cp.Dir) &&
				strings.Contains(f.Message, fmt.Sprintf("end offset %d against", want.end))
		})
		tied := want == top
		if i == res.Best || slices.Contains(res.Tied, i) {
			if !tied {
				t.Errorf("%s: best or tied at end %d epoch %d; the vote rule's top is %+v", cp.Dir, want.end, want.epoch, top)
			}
		} else if tied {
			t.Errorf("%s: at the top (%+v) but neither best nor tied", cp.Dir, top)
		}
		if behind == tied {
			t.Errorf("%s: copy-behind finding %v, at the top %v: %v", cp.Dir, behind, tied, res.Findings)
		}
	}
	if !res.Agree || len(res.GivenUp) != 0 || !res.CleanRebuild {
		t.Errorf("agree %v given up %+v clean %v (%v): %v", res.Agree, res.GivenUp, res.CleanRebuild, res.NotClean, res.Findings)
	}
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, metalog.LockFileName)); err == nil {
			t.Errorf("%s: a .lock in a copy", dir)
		}
	}
	if t.Failed() {
		return
	}

	// The rebuild starts: the quorum rebuilt from survey's best copy (the
	// other copies given, so that the vote rule is checked against them),
	// put in place of every controller's dir, and Kafka's controllers and
	// the broker (not reformatted; its own log ran on after the copies
	// and is truncated to the rebuilt snapshot by Raft) start on it and
	// serve every topic created before the copies.
	best := dirs[res.Best]
	var others []string
	for _, dir := range dirs {
		if dir != best {
			others = append(others, dir)
		}
	}
	rebuilt := filepath.Join(t.TempDir(), "rebuilt")
	rb := kmeta(append([]string{"quorum", "rebuild", "--from", best, "--controllers", c.QuorumVoters(), "--out", rebuilt}, others...)...)
	if rb.code != exitOK {
		t.Fatalf("quorum rebuild from %s: exit %d\n%s%s", best, rb.code, rb.stdout, rb.stderr)
	}
	c.StopNode(broker)
	for _, id := range ctls {
		c.StopNode(id)
		dir := c.MetadataLogDir(id)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(rebuilt, "controller-"+strconv.Itoa(id)), dir); err != nil {
			t.Fatal(err)
		}
	}
	c.StartNodes(ctls...)
	c.StartNodes(broker)
	c.WaitBrokers(t, 2*time.Minute, broker)
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		td, err := adm.ListTopics(lctx)
		if err == nil && len(td.Names()) >= 6 {
			for _, n := range []string{"survey.a", "survey.b", "survey.c", "survey.d", "survey.e", "survey.f"} {
				if !td.Has(n) {
					t.Errorf("after the rebuild: topic %s missing (%v)", n, td.Names())
				}
			}
			break
		}
		if lctx.Err() != nil {
			t.Fatalf("after the rebuild the broker lists %v (%v)", td.Names(), err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	create("survey.after")
}
