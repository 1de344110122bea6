package quorum

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog"
)

// Issue 29's wrong answers and writes from the quorum's side.

// epoch999Copy is the fixture with its last batch's leader epoch set to
// 999 (outside the CRC; no leader ever opened epoch 999).
func epoch999Copy(t *testing.T) string {
	t.Helper()
	dir := fixtureCopy(t)
	pos, _ := rebuildLastBatchPos(t, segPath(dir))
	b, err := os.ReadFile(segPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint32(b[pos+12:], 999)
	if err := os.WriteFile(segPath(dir), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSurveyEpochJumpIsDamage: survey does not take the copy whose last
// epoch jumped to 999 for the best (its usable log ends before that
// batch), and a rebuild from the intact copy goes ahead.
func TestSurveyEpochJumpIsDamage(t *testing.T) {
	bad := epoch999Copy(t)
	intact := fixtureCopy(t)
	r := survey(t, bad, intact)
	if c := r.Copies[0]; c.Integrity != IntegrityDamaged || c.LastEpoch != 1 || c.EndOffset != 193 || c.Problem.Code != metalog.KindEpochNoLeaderChange {
		t.Fatalf("epoch-999 copy: %s end %d epoch %d problem %+v", c.Integrity, c.EndOffset, c.LastEpoch, c.Problem)
	}
	if r.Best != 1 || !r.CleanRebuild || !r.Failing() {
		t.Fatalf("best %d (%s), clean %v", r.Best, r.BestRule, r.CleanRebuild)
	}
	p, err := PlanRebuild(RebuildOptions{From: intact, Others: []string{bad}, Controllers: rebuildControllers(t), Out: t.TempDir()})
	if err != nil || p.EndOffset != 194 || p.Epoch != 1 || len(p.Loss) != 0 {
		t.Fatalf("rebuild from the intact copy: %v %+v", err, p)
	}
	_, err = PlanRebuild(RebuildOptions{From: bad, Others: []string{intact}, Controllers: rebuildControllers(t), Out: t.TempDir()})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "epoch 999") {
		t.Fatalf("rebuild from the epoch-999 copy: %v", err)
	}
}

// TestRebuildRefusesDamagedLength: the flipped length of the active
// segment's first batch hides offsets 86-193, how many no one can tell;
// a rebuild from that copy is refused, --accept-loss or not, naming the
// file, offset and byte.
func TestRebuildRefusesDamagedLength(t *testing.T) {
	dir := fixtureCopy(t)
	b, err := os.ReadFile(segPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	b[10] ^= 0x40
	if err := os.WriteFile(segPath(dir), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, accept := range []string{"", "99-193"} {
		_, err = PlanRebuild(RebuildOptions{From: dir, Controllers: rebuildControllers(t), Out: t.TempDir(), AcceptLoss: accept})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), segPath(dir)+" at offset 86 (byte 0)") || !strings.Contains(err.Error(), "no --accept-loss range can name what the damage hides") {
			t.Fatalf("--accept-loss %q: %v", accept, err)
		}
	}
}

// TestRebuildAcceptLossMismatch: a --accept-loss that names other offsets
// than those given up is told apart from no --accept-loss.
func TestRebuildAcceptLossMismatch(t *testing.T) {
	dmg := fixtureCopy(t)
	pos, _ := rebuildLastBatchPos(t, segPath(dmg))
	b, err := os.ReadFile(segPath(dmg))
	if err != nil {
		t.Fatal(err)
	}
	b[pos+metalog.HeaderSize+2] ^= 0xff
	if err := os.WriteFile(segPath(dmg), b, 0o644); err != nil {
		t.Fatal(err)
	}
	o := RebuildOptions{From: dmg, Controllers: rebuildControllers(t), Out: t.TempDir()}
	_, errNone := PlanRebuild(o)
	o.AcceptLoss = "0-999"
	_, errWrong := PlanRebuild(o)
	if !errors.Is(errNone, ErrRefused) || !strings.Contains(errNone.Error(), "give --accept-loss 193-193") || strings.Contains(errNone.Error(), "does not name") {
		t.Fatalf("no --accept-loss: %v", errNone)
	}
	if !errors.Is(errWrong, ErrRefused) || !strings.Contains(errWrong.Error(), "--accept-loss 0-999 does not name the offsets this rebuild gives up, 193-193") {
		t.Fatalf("--accept-loss 0-999: %v", errWrong)
	}
}

// TestRebuildOutInsideInput: an output dir equal to a copy, inside one
// (its partition dir), or reaching one through a symlink is refused
// before anything is read or written.
func TestRebuildOutInsideInput(t *testing.T) {
	from := fixtureCopy(t)
	other := fixtureCopy(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	before := fstree.Hash(t, from) + fstree.Hash(t, other)
	for _, out := range []string{from, from + "/", filepath.Join(from, metalog.MetadataPartitionDir), filepath.Join(from, "new", "dir"),
		other, filepath.Join(link, "out")} {
		_, err := PlanRebuild(RebuildOptions{From: from, Others: []string{other}, Controllers: rebuildControllers(t), Out: out})
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "never writes into a source") {
			t.Errorf("--out %s: %v", out, err)
		}
	}
	if after := fstree.Hash(t, from) + fstree.Hash(t, other); after != before {
		t.Fatal("a copy changed")
	}
	// A sibling dir is fine.
	if _, err := PlanRebuild(RebuildOptions{From: from, Controllers: rebuildControllers(t), Out: filepath.Join(filepath.Dir(from), "rebuilt")}); err != nil {
		t.Fatalf("sibling --out: %v", err)
	}
}

// TestRebuildRefusesOddClusterID: a copy whose meta.properties holds a
// cluster.id that is no Kafka Uuid (what kafka-storage format writes) is
// named by survey (copy-meta-properties, the one finding), and a rebuild
// from it is refused: every new controller would carry that id and every
// broker refuse them (found by TestMutateCampaignHostile).
func TestRebuildRefusesOddClusterID(t *testing.T) {
	dir := fixtureCopy(t)
	p := filepath.Join(dir, metalog.MetaPropertiesFileName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "cluster.id=ToAmJGLdjtzIec30sLZozA", "cluster.id=ToAmJGLdjtzIec30sLZo", 1))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := survey(t, dir)
	if got := findingCodes(r.Findings); len(got) != 1 || got[0] != "warning "+CodeCopyMetaProperties+" copy "+dir+" (node 3000)" ||
		!strings.Contains(r.Findings[0].Message, `cluster.id "ToAmJGLdjtzIec30sLZo" is not a Kafka Uuid`) {
		t.Fatalf("survey findings: %q %+v", got, r.Findings)
	}
	_, err = PlanRebuild(RebuildOptions{From: dir, Controllers: rebuildControllers(t), Out: t.TempDir()})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `"ToAmJGLdjtzIec30sLZo" is not a base64 UUID`) {
		t.Fatalf("rebuild from a copy with an odd cluster.id: %v", err)
	}
}

// TestSurveyNamesNodelessMetaProperties: a copy's meta.properties without
// its version line, or with version=0, parses as Kafka's parser takes it
// (version 0, ids optional) and names no node; no Kafka writes that, so
// survey says so (the one finding; exit 1) rather than calling the copy
// clean (found by TestMutateCampaignHostile with 200 mutants). A version
// 0 file with a broker.id, a ZooKeeper-mode broker's, is not named.
func TestSurveyNamesNodelessMetaProperties(t *testing.T) {
	const says = "meta.properties: it names no node: version 0 (no version=1) and no broker.id, which no Kafka writes; a KRaft node's meta.properties says version=1 and its node.id"
	for _, c := range []struct {
		name, from, to string
		named          bool
	}{
		{"no version", "version=1\n", "", true},
		{"version=0", "version=1\n", "version=0\n", true},
		{"version=0 with broker.id", "version=1\n", "version=0\nbroker.id=3000\n", false},
	} {
		dir := fixtureCopy(t)
		p := filepath.Join(dir, metalog.MetaPropertiesFileName)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), c.from, c.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		r := survey(t, dir)
		var msgs []string
		for _, f := range r.Findings {
			if f.Code == CodeCopyMetaProperties {
				msgs = append(msgs, f.Message)
			}
		}
		if c.named && (len(r.Findings) != 1 || len(msgs) != 1 || msgs[0] != says || !r.Failing()) {
			t.Errorf("%s: findings %q, failing %v", c.name, findingCodes(r.Findings), r.Failing())
		}
		if !c.named && len(msgs) != 0 {
			t.Errorf("%s: %q", c.name, msgs)
		}
	}
}
