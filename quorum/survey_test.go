package quorum

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

// The 4.4.0 fixture's controller (3000, a dynamic quorum of one): the
// segments 0.log (offsets 0-85) and 86.log (86-193, every batch at epoch
// 1), a snapshot 99-1 and the bootstrap snapshot 0-0. Batch positions in
// 86.log are those of dumps/00000000000000000086.log.txt.
const (
	seg86        = "00000000000000000086.log"
	pos88        = 184  // batch 88-98
	pos150       = 4645 // batch 150-153
	pos154       = 5037 // batch 154-155
	pos178       = 6212 // batch 178-190
	fixtureDirID = "vRbNb5yoRRC4RtSsqMlYiA"
)

func fixtureCopy(t *testing.T) string {
	t.Helper()
	return fstree.Copy(t, filepath.Join("..", "testdata", "kraft", "4.4.0", "metadata"))
}

func segPath(dir string) string { return filepath.Join(dir, metalog.MetadataPartitionDir, seg86) }

// truncateAt cuts 86.log at a batch boundary: a copy taken earlier, or a
// follower that had fetched less.
func truncateAt(t *testing.T, dir string, pos int64) {
	t.Helper()
	if err := os.Truncate(segPath(dir), pos); err != nil {
		t.Fatal(err)
	}
}

// appendNoOps appends, through metalog's writer, a tail another leader
// wrote at the given epoch from base on, n offsets in all: the
// LeaderChange control batch a Raft leader writes first in its epoch
// (leader 3000, voted for by itself), then a data batch of n-1
// NoOpRecords.
func appendNoOps(t *testing.T, dir string, base int64, epoch int32, n int) {
	t.Helper()
	lc, err := records.EncodeControl(nil, &records.LeaderChangeMessage{LeaderId: 3000,
		Voters: []records.LeaderChangeMessageVoter{{VoterId: 3000}}, GrantingVoters: []records.LeaderChangeMessageVoter{{VoterId: 3000}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := metalog.AppendControlBatch(nil, metalog.BatchParams{BaseOffset: base, Epoch: epoch, Timestamp: 1796024500000},
		[]metalog.ControlRecord{{Type: metalog.ControlLeaderChange, Value: lc}})
	if err != nil {
		t.Fatal(err)
	}
	if n > 1 {
		v, err := records.EncodeMetadata(nil, &records.NoOpRecord{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([][]byte, n-1)
		for i := range vals {
			vals[i] = v
		}
		b, err = metalog.AppendDataBatch(b, metalog.BatchParams{BaseOffset: base + 1, Epoch: epoch, Timestamp: 1796024500000}, vals)
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(segPath(dir), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// setNode rewrites meta.properties as kafka-storage format writes it for
// another node.
func setNode(t *testing.T, dir string, node int, dirID string) {
	t.Helper()
	props := fmt.Sprintf("#\n#Mon Nov 30 07:39:49 UTC 2026\nnode.id=%d\ndirectory.id=%s\nversion=1\ncluster.id=ToAmJGLdjtzIec30sLZozA\n", node, dirID)
	if err := os.WriteFile(filepath.Join(dir, metalog.MetaPropertiesFileName), []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
}

// brokerCopy makes dir look like broker 1's log dir, which is also its
// metadata log dir: the LogManager's checkpoints and a topic partition.
func brokerCopy(t *testing.T, dir string) {
	t.Helper()
	setNode(t, dir, 1, "kXDaLQe9cgCmHgCeQ8o7kg")
	for _, name := range []string{"recovery-point-offset-checkpoint", "replication-offset-checkpoint"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("0\n1\norders 0 12\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "orders-0"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func survey(t *testing.T, dirs ...string) *SurveyResult {
	t.Helper()
	r, err := Survey(dirs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func findingCodes(fs []model.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Severity)+" "+f.Code+" "+f.Entity)
	}
	return out
}

func findCode(r *SurveyResult, code, dir string) *model.Finding {
	for i, f := range r.Findings {
		if f.Code == code && strings.Contains(f.Entity, dir) {
			return &r.Findings[i]
		}
	}
	return nil
}

// Surviving copies of one cluster, as a disaster leaves them: the
// controller's full copy, one taken earlier (behind), a broker's, one
// damaged in the middle, and one whose tail a newer leader (epoch 2)
// rewrote after fewer records. Raft's vote rule puts the highest last
// epoch first, so the shorter epoch-2 copy is the best, and the longer
// copies' tails from its divergence are given up.
func TestSurveyVoteRule(t *testing.T) {
	full := fixtureCopy(t)
	behind := fixtureCopy(t)
	truncateAt(t, behind, pos150)
	broker := fixtureCopy(t)
	truncateAt(t, broker, pos178)
	brokerCopy(t, broker)
	damaged := fixtureCopy(t)
	b, err := os.ReadFile(segPath(damaged))
	if err != nil {
		t.Fatal(err)
	}
	b[pos150+80] ^= 0xff // inside batch 150-153's records: its CRC fails
	if err := os.WriteFile(segPath(damaged), b, 0o644); err != nil {
		t.Fatal(err)
	}
	diverged := fixtureCopy(t)
	truncateAt(t, diverged, pos154)
	appendNoOps(t, diverged, 154, 2, 1)

	r := survey(t, full, behind, broker, damaged, diverged)
	want := []struct {
		end       int64
		epoch     int32
		integrity Integrity
		role      Role
	}{{194, 1, IntegrityClean, RoleController}, {150, 1, IntegrityClean, RoleController}, {178, 1, IntegrityClean, RoleBroker},
		{150, 1, IntegrityDamaged, RoleController}, {155, 2, IntegrityClean, RoleController}}
	for i, w := range want {
		c := r.Copies[i]
		if c.EndOffset != w.end || c.LastEpoch != w.epoch || c.Integrity != w.integrity || c.Role != w.role {
			t.Errorf("copy %d (%s): end %d epoch %d %s %s (%s), want %+v", i, c.Dir, c.EndOffset, c.LastEpoch, c.Integrity, c.Role, c.RoleEvidence, w)
		}
		lcs := 1
		if i == 4 {
			lcs = 2 // epoch 2's leader wrote its own
		}
		if c.CommittedEnd != 99 || c.KRaftVersion != 1 || len(c.Voters) != 1 || c.Voters[0].ID != 3000 || len(c.LeaderChanges) != lcs || c.LeaderChanges[0].LeaderID != 3000 {
			t.Errorf("copy %d: committed %d kraft %d voters %+v leader changes %+v", i, c.CommittedEnd, c.KRaftVersion, c.Voters, c.LeaderChanges)
		}
	}
	if r.Copies[2].NodeID != 1 || r.Copies[0].WrittenEndOffset != 194 || r.Copies[3].WrittenEndOffset != 194 {
		t.Errorf("broker node %d, written ends %d %d", r.Copies[2].NodeID, r.Copies[0].WrittenEndOffset, r.Copies[3].WrittenEndOffset)
	}
	if p := r.Copies[3].Problem; p == nil || p.Code != metalog.KindCRCMismatch || p.Where.File != segPath(damaged) || p.Where.Position != pos150 || p.Where.Offset != 150 {
		t.Errorf("damage %+v", p)
	}
	if r.Best != 4 || len(r.Tied) != 0 {
		t.Fatalf("best %d tied %v (%s), want the epoch-2 copy", r.Best, r.Tied, r.BestRule)
	}
	// The epoch-2 copy differs from the full and the broker's copy at 154;
	// the behind and the damaged copy end (usably) before it.
	if r.Agree || len(r.Divergences) != 2 {
		t.Fatalf("divergences %+v", r.Divergences)
	}
	for k, pair := range [][2]int{{0, 4}, {2, 4}} {
		d := r.Divergences[k]
		if d.A != pair[0] || d.B != pair[1] || d.Offset != 154 || d.Committed ||
			d.AtA.File != segPath(r.Copies[pair[0]].Dir) || d.AtA.Position != pos154 || d.AtA.Epoch != 1 ||
			d.AtB.File != segPath(diverged) || d.AtB.Position != pos154 || d.AtB.Epoch != 2 {
			t.Errorf("divergence %d: %+v %+v %+v", k, d, d.AtA, d.AtB)
		}
	}
	wantGiven := []Range{{Copy: 0, Dir: full, From: 154, To: 194, Diverged: true}, {Copy: 2, Dir: broker, From: 154, To: 178, Diverged: true}}
	if !slices.Equal(r.GivenUp, wantGiven) {
		t.Errorf("given up %+v, want %+v", r.GivenUp, wantGiven)
	}
	if r.CleanRebuild || !r.Failing() {
		t.Errorf("clean %v (%v)", r.CleanRebuild, r.NotClean)
	}
	for _, want := range []struct{ code, dir string }{
		{CodeCopiesDiverge, full}, {CodeCopiesDiverge, broker}, {CodeCopyDamaged, damaged},
		{CodeCopyBehind, full}, {CodeCopyBehind, behind}, {CodeCopyBehind, broker}, {CodeCopyBehind, damaged},
		{CodeRebuildGivesUp, full}, {CodeRebuildGivesUp, broker},
	} {
		if findCode(r, want.code, want.dir) == nil {
			t.Errorf("no %s for %s in %v", want.code, want.dir, findingCodes(r.Findings))
		}
	}
	if f := findCode(r, CodeCopiesDiverge, full); f == nil || f.Severity != model.SevWarning {
		t.Errorf("an uncommitted divergent tail is a warning: %+v", f)
	}
	if findCode(r, CodeCopyBehind, diverged) != nil || len(r.Findings) != 9 {
		t.Errorf("findings %v", findingCodes(r.Findings))
	}
}

// Copies that agree: the most advanced is the best and nothing is given
// up; the behind ones are still findings (exit 1), but a rebuild is clean.
// Equal copies are tied, and the tie is broken by the order given.
func TestSurveyAgreeing(t *testing.T) {
	full := fixtureCopy(t)
	behind := fixtureCopy(t)
	truncateAt(t, behind, pos150)
	broker := fixtureCopy(t)
	truncateAt(t, broker, pos178)
	brokerCopy(t, broker)
	r := survey(t, behind, broker, full)
	if r.Best != 2 || !r.Agree || len(r.GivenUp) != 0 || !r.CleanRebuild || !r.Failing() {
		t.Fatalf("best %d agree %v given up %+v clean %v", r.Best, r.Agree, r.GivenUp, r.CleanRebuild)
	}
	if got := findingCodes(r.Findings); len(got) != 2 || findCode(r, CodeCopyBehind, behind) == nil || findCode(r, CodeCopyBehind, broker) == nil {
		t.Errorf("findings %v", got)
	}

	same := fixtureCopy(t)
	r = survey(t, same, full)
	if r.Best != 0 || !slices.Equal(r.Tied, []int{1}) || !strings.Contains(r.BestRule, "tied with "+full) || len(r.Findings) != 0 || r.Failing() {
		t.Errorf("best %d tied %v (%s), findings %v", r.Best, r.Tied, r.BestRule, findingCodes(r.Findings))
	}
	// A broker's copy equal to a controller's: the voter's copy wins the tie.
	brokerFull := fixtureCopy(t)
	brokerCopy(t, brokerFull)
	r = survey(t, brokerFull, full)
	if r.Best != 1 || r.Copies[0].Role != RoleBroker {
		t.Errorf("best %d (%s), roles %s %s", r.Best, r.BestRule, r.Copies[0].Role, r.Copies[1].Role)
	}
}

// A divergence below a snapshot's end is on a committed offset: an error,
// which Raft never allows.
func TestSurveyCommittedDivergence(t *testing.T) {
	full := fixtureCopy(t)
	forked := fixtureCopy(t)
	truncateAt(t, forked, pos88)
	appendNoOps(t, forked, 88, 2, 3)
	r := survey(t, full, forked)
	if r.Best != 1 || len(r.Divergences) != 1 || r.Divergences[0].Offset != 88 || !r.Divergences[0].Committed {
		t.Fatalf("best %d divergences %+v", r.Best, r.Divergences)
	}
	if f := findCode(r, CodeCopiesDiverge, full); f == nil || f.Severity != model.SevError || !strings.Contains(f.Message, "committed") {
		t.Errorf("finding %+v", f)
	}
	if !slices.Equal(r.GivenUp, []Range{{Copy: 0, Dir: full, From: 88, To: 194, Diverged: true}}) || r.CleanRebuild {
		t.Errorf("given up %+v clean %v", r.GivenUp, r.CleanRebuild)
	}
}

// A torn tail is what a crash leaves: Kafka truncates it, so the copy is
// usable and a rebuild from it is clean (a note, exit 0).
func TestSurveyTornTail(t *testing.T) {
	dir := fixtureCopy(t)
	b, err := os.ReadFile(segPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(segPath(dir), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b[pos150 : pos150+40]); err != nil { // half a batch header
		t.Fatal(err)
	}
	f.Close()
	r := survey(t, dir)
	c := r.Copies[0]
	if c.Integrity != IntegrityTornTail || c.EndOffset != 194 || c.Problem == nil || c.Problem.Where.Position != int64(len(b)) {
		t.Fatalf("copy %+v problem %+v", c, c.Problem)
	}
	if !r.CleanRebuild || r.Failing() || findCode(r, CodeCopyTornTail, dir) == nil {
		t.Errorf("clean %v findings %v", r.CleanRebuild, findingCodes(r.Findings))
	}
}

// The directory id in the voter set differs from the voter's
// meta.properties: the finding quorum describe makes too.
func TestSurveyDirectoryIDMismatch(t *testing.T) {
	dir := fixtureCopy(t)
	setNode(t, dir, 3000, "AAAAAAAAAAAAAAAAAAAAZQ")
	r := survey(t, dir)
	f := findCode(r, voters.CodeDirectoryIDMismatch, "controller 3000")
	if f == nil || f.Severity != model.SevError || !strings.Contains(f.Message, fixtureDirID) || !r.Failing() {
		t.Fatalf("findings %v", findingCodes(r.Findings))
	}
}

func TestSurveyRefusals(t *testing.T) {
	full := fixtureCopy(t)
	other := fstree.Copy(t, filepath.Join("..", "testdata", "kraft", "3.9.2", "metadata"))
	for name, dirs := range map[string][]string{
		"none":          nil,
		"twice":         {full, full + "/"},
		"two clusters":  {full, other},
		"missing":       {filepath.Join(t.TempDir(), "gone")},
		"a single file": {segPath(full)},
	} {
		if _, err := Survey(dirs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
