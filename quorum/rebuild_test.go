package quorum

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

const rebuildFixture44 = "../testdata/kraft/4.4.0/metadata"

var rebuildSeg86 = filepath.Join(metalog.MetadataPartitionDir, "00000000000000000086.log")

func rebuildControllers(t *testing.T) []controllers.Spec {
	t.Helper()
	cs, err := controllers.Parse("3000@127.0.0.1:9093,3001@127.0.0.1:9094,3002@127.0.0.1:9095")
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// rebuildBehindCopy is the fixture without its last segment and its snapshot at
// 99: a copy that stopped at offset 86 (epoch 1), where the whole one
// ends at 194.
func rebuildBehindCopy(t *testing.T) string {
	dst := filepath.Join(t.TempDir(), "behind")
	fstree.CopyOnly(t, rebuildFixture44, dst, func(rel string) bool {
		return rel != rebuildSeg86 && !strings.HasSuffix(rel, "00000000000000000099-0000000001.checkpoint")
	})
	return dst
}

// rebuildLastBatchPos returns the byte position of the last batch of a segment.
func rebuildLastBatchPos(t *testing.T, path string) (int64, int64) {
	t.Helper()
	r, err := metalog.OpenReader(path, metalog.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var pos, base int64 = -1, -1
	for {
		b, err := r.Next()
		if err != nil {
			break
		}
		pos, base = b.Position, b.BaseOffset
	}
	return pos, base
}

func TestRebuildRefusesCopyBehind(t *testing.T) {
	behind := rebuildBehindCopy(t)
	o := RebuildOptions{From: behind, Others: []string{rebuildFixture44}, Controllers: rebuildControllers(t), Out: t.TempDir()}
	_, err := PlanRebuild(o)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), rebuildFixture44) || !strings.Contains(err.Error(), "offsets 86-193") ||
		!strings.Contains(err.Error(), "--accept-loss 86-193") {
		t.Fatalf("rebuild from a copy behind another: %v", err)
	}
	o.AcceptLoss = "86-100"
	if _, err := PlanRebuild(o); !errors.Is(err, ErrRefused) {
		t.Fatalf("--accept-loss naming other offsets: %v", err)
	}
	o.AcceptLoss = "86-193"
	p, err := PlanRebuild(o)
	if err != nil {
		t.Fatal(err)
	}
	if p.EndOffset != 86 || p.Epoch != 1 || len(p.Loss) != 1 || p.Loss[0].String() != "86-193" {
		t.Fatalf("plan: end %d epoch %d loss %v", p.EndOffset, p.Epoch, p.Loss)
	}
	// The other way round is clean: the whole copy is the furthest.
	o = RebuildOptions{From: rebuildFixture44, Others: []string{behind}, Controllers: rebuildControllers(t), Out: t.TempDir()}
	if p, err = PlanRebuild(o); err != nil || p.EndOffset != 194 || len(p.Loss) != 0 {
		t.Fatalf("rebuild from the furthest copy: %v %+v", err, p)
	}
}

func TestRebuildRefusesDamagedCopy(t *testing.T) {
	dmg := fstree.Copy(t, rebuildFixture44)
	seg := filepath.Join(dmg, rebuildSeg86)
	pos, base := rebuildLastBatchPos(t, seg)
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[pos+metalog.HeaderSize+2] ^= 0xff // inside the CRC'd records
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = PlanRebuild(RebuildOptions{From: dmg, Controllers: rebuildControllers(t), Out: t.TempDir()})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), seg) || !strings.Contains(err.Error(), "offset "+itoa(base)) ||
		!strings.Contains(err.Error(), "--accept-loss 193-193") {
		t.Fatalf("rebuild from a damaged copy (batch at offset %d): %v", base, err)
	}
	// Giving up what the damage hides is the operator's call, named.
	p, err := PlanRebuild(RebuildOptions{From: dmg, Controllers: rebuildControllers(t), Out: t.TempDir(), AcceptLoss: "193-193"})
	if err != nil || p.EndOffset != 193 || len(p.Loss) != 1 || p.Loss[0].String() != "193-193" {
		t.Fatalf("rebuild accepting the damaged tail: %v %+v", err, p)
	}
}

func TestRebuildRefusesDivergentCopies(t *testing.T) {
	other := fstree.Copy(t, rebuildFixture44)
	seg := filepath.Join(other, rebuildSeg86)
	pos, base := rebuildLastBatchPos(t, seg)
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	// Another leader's epoch for the same offset: epoch 2's leader wrote
	// its LeaderChange at 193 where the chosen copy holds epoch 1's batch.
	if err := os.WriteFile(seg, b[:pos], 0o644); err != nil {
		t.Fatal(err)
	}
	appendNoOps(t, other, base, 2, 1)
	_, err = PlanRebuild(RebuildOptions{From: rebuildFixture44, Others: []string{other}, Controllers: rebuildControllers(t), Out: t.TempDir()})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "disagree at offset "+itoa(base)) || !strings.Contains(err.Error(), seg) {
		t.Fatalf("copies disagreeing at offset %d: %v", base, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestRebuildWrites: the files, their names and content, refusal to write
// over them without force, and the dynamic quorum's voters.
func TestRebuildWrites(t *testing.T) {
	out := t.TempDir()
	n := byte(0)
	p, err := PlanRebuild(RebuildOptions{From: rebuildFixture44, Controllers: rebuildControllers(t), Out: out,
		NewDirectoryID: func() model.UUID { n++; return model.UUID{1, n} }})
	if err != nil {
		t.Fatal(err)
	}
	if p.KRaftVersion != 1 || len(p.Brokers) != 1 || p.Brokers[0].Name != "controller.quorum.bootstrap.servers" ||
		p.Brokers[0].To != "127.0.0.1:9093,127.0.0.1:9094,127.0.0.1:9095" {
		t.Fatalf("plan: kraft.version %d, brokers %+v", p.KRaftVersion, p.Brokers)
	}
	if err := p.Write(WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, c := range p.Controllers {
		d, err := metalog.OpenLogDir(c.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if mp := d.MetaProperties; mp == nil || mp.NodeID != c.ID || mp.DirectoryID != (model.UUID{1, byte(i + 1)}) || mp.ClusterID != p.ClusterID {
			t.Fatalf("%s: meta.properties %+v", c.Dir, mp)
		}
		if len(d.Snapshots) != 1 || filepath.Base(d.Snapshots[0].Path) != "00000000000000000194-0000000001.checkpoint" {
			t.Fatalf("%s: snapshots %+v", c.Dir, d.Snapshots)
		}
		res, err := metalog.LoadImageDir(d, metalog.ImageOptions{AtOffset: -1})
		if err != nil {
			t.Fatal(err)
		}
		if q := res.Image.Quorum; q == nil || q.KRaftVersion != 1 || len(q.Voters) != 3 || q.Voters[i].DirectoryID != (model.UUID{1, byte(i + 1)}) {
			t.Fatalf("%s: quorum %+v", c.Dir, res.Image.Quorum)
		}
	}
	if err := p.Write(WriteOptions{}); !errors.Is(err, ErrTargetNotEmpty) {
		t.Fatalf("second write without force: %v", err)
	}
	if err := p.Write(WriteOptions{Force: true}); err != nil {
		t.Fatalf("second write with force: %v", err)
	}
}

// TestRebuildPre33Copy: a copy whose log sets no metadata.version (one
// written before Kafka 3.3) is rebuilt at 3.0-IV1, the level Kafka reads
// it at, not refused. The copy is the 3.9.2 fixture's image written
// without its FeatureLevelRecords into a snapshot at 3.0-IV1's record
// versions (no pre-3.3 release is in the harness).
func TestRebuildPre33Copy(t *testing.T) {
	res, err := metalog.LoadImage("../testdata/kraft/3.9.2/metadata", metalog.ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	img := res.Image
	clear(img.Features)
	img.Quorum = nil
	cat, err := features.CatalogFor("3.9")
	if err != nil {
		t.Fatal(err)
	}
	versions := func(k int16) (int16, bool) { return cat.RecordVersion(features.ImpliedMetadataVersion, k) }
	from := t.TempDir()
	part := filepath.Join(from, metalog.MetadataPartitionDir)
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	// The records a log before 3.3 holds of these topics and configs: no
	// FeatureLevelRecord (kmeta's own writer refuses to write a snapshot
	// without the level, so the records are encoded one by one).
	var values [][]byte
	if err := metalog.ImageRecords(img, metalog.ImageRecordOptions{Versions: versions}, func(m records.Metadata) error {
		v, ok := versions(m.APIKey())
		if !ok {
			return nil // what 3.0-IV1 has no record for (SCRAM, ...): not in such a log
		}
		b, err := records.EncodeMetadata(nil, m, v)
		values = append(values, b)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := metalog.WriteSnapshotFile(filepath.Join(part, metalog.SnapshotID{EndOffset: 90, Epoch: 1}.FileName()), values, metalog.SnapshotOptions{Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	if c, err := metalog.LoadImage(from, metalog.ImageOptions{AtOffset: -1}); err != nil || c.Image.MetadataVersion() != 0 || len(c.Image.Topics) == 0 {
		t.Fatalf("the copy: %v", err)
	}
	meta, err := os.ReadFile("../testdata/kraft/3.9.2/metadata/meta.properties")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(from, metalog.MetaPropertiesFileName), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	p, err := PlanRebuild(RebuildOptions{From: from, Controllers: rebuildControllers(t), Out: out})
	if err != nil {
		t.Fatalf("rebuild from a copy without metadata.version: %v", err)
	}
	if p.MetadataVersion != "3.0-IV1" || p.Catalog != cat.Software {
		t.Fatalf("plan at %s (Kafka %s), want 3.0-IV1 (Kafka %s)", p.MetadataVersion, p.Catalog, cat.Software)
	}
	if err := p.Write(WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := metalog.LoadImage(p.Controllers[0].Dir, metalog.ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The rebuilt snapshot, as the copy, sets no level: 3.0-IV1, implied
	// (no record can say a level below 3.3-IV0).
	if len(got.Image.Topics) != len(img.Topics) || got.Image.MetadataVersion() != 0 {
		t.Fatalf("rebuilt: %d topics (want %d), metadata.version %d (want none, as the copy)", len(got.Image.Topics), len(img.Topics), got.Image.MetadataVersion())
	}
	if mv, implied := features.MetadataVersionOf(got.Image); mv != features.ImpliedMetadataVersion || !implied {
		t.Fatalf("the rebuilt log reads at %d (implied %v), want 3.0-IV1 implied", mv, implied)
	}
}
