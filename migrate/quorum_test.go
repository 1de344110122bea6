package migrate

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// kafkaInitialControllers is what testdata/format-4.4.0-initial-controllers
// was formatted with (see its README).
const kafkaInitialControllers = "3000@127.0.0.1:19093:EvbqOtkhTb6ZhCHWbMt0sg,3001@127.0.0.1:19094:q9L1qYxkSV6x3Yt4l2ZRoA,3002@127.0.0.1:19095:qKq7S3b2RR2V9mL8p6rwTw"

type flatRecord struct {
	batchBase  int64
	control    bool
	epoch      int32
	offset     int64
	key, value []byte
}

func flatten(t *testing.T, name string, data []byte) []flatRecord {
	t.Helper()
	r := metalog.NewReader(bytes.NewReader(data), name, int64(len(data)), metalog.ReaderOptions{})
	var out []flatRecord
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		it := b.Records()
		for it.Next() {
			rec := it.Record()
			out = append(out, flatRecord{b.BaseOffset, b.IsControl(), b.PartitionLeaderEpoch, rec.Offset,
				slices.Clone(rec.Key), slices.Clone(rec.Value)})
		}
		if err := it.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestDynamicQuorumMatchesKafkaFormat: for the same voters and records,
// the bootstrap snapshot apply writes for a dynamic quorum holds exactly
// the batches and records Kafka 4.4.0's kafka-storage format
// --initial-controllers wrote (testdata, real Kafka): the same batch
// boundaries, offsets, epochs, control keys and values, byte for byte,
// except the SnapshotHeader's lastContainedLogTimestamp (kmeta writes 0 so
// the file depends on its records only; Kafka's reader ignores it).
func TestDynamicQuorumMatchesKafkaFormat(t *testing.T) {
	dir := filepath.Join("testdata", "format-4.4.0-initial-controllers", "metadata")
	kafka, err := os.ReadFile(filepath.Join(dir, bootstrapSnapshotPath))
	if err != nil {
		t.Fatal(err)
	}
	want := flatten(t, "kafka", kafka)
	var recs []Record
	for _, r := range want {
		if !r.control {
			recs = append(recs, Record{Value: r.value})
		}
	}
	cs, err := controllers.Parse(kafkaInitialControllers)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := quorumControlRecords(cs)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := bootstrapBytes(recs, hdr)
	if err != nil {
		t.Fatal(err)
	}
	got := flatten(t, "kmeta", mine)
	if len(got) != len(want) {
		t.Fatalf("kmeta wrote %d records, Kafka %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if i == 0 && len(w.value) == 11 && len(g.value) == 11 {
			// SnapshotHeader {Version int16, LastContainedLogTimestamp int64, tags}.
			w.value = slices.Concat(w.value[:2], make([]byte, 8), w.value[10:])
		}
		if w.batchBase != g.batchBase || w.control != g.control || w.epoch != g.epoch || w.offset != g.offset ||
			!bytes.Equal(w.key, g.key) || !bytes.Equal(w.value, g.value) {
			t.Errorf("record %d:\n kafka %+v\n kmeta %+v", i, w, g)
		}
	}
	// meta.properties: directory.id is node 3000's from --initial-controllers.
	b, _ := os.ReadFile(filepath.Join(dir, metaPropertiesFile))
	props, err := javaprops.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if props["directory.id"] != cs[0].DirectoryID.String() {
		t.Fatalf("Kafka's directory.id %s, the voter's %s", props["directory.id"], cs[0].DirectoryID)
	}
}

// TestApplyDynamicQuorum: plan and apply with --quorum dynamic write, per
// controller, the bootstrap snapshot (no bootstrap.checkpoint, as Kafka
// 4.4.0's format) and meta.properties whose directory.id is the voter's
// (given, or derived when not), and refuse a level below 3.9-IV0.
func TestApplyDynamicQuorum(t *testing.T) {
	cs, err := controllers.Parse("3000@127.0.0.1:9093:q9L1qYxkSV6x3Yt4l2ZRoA,3001@127.0.0.1:9094,3002@127.0.0.1:9095")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: "4.4", Controllers: cs, Quorum: QuorumDynamic})
	if err != nil {
		t.Fatal(err)
	}
	if p.Blocked || p.KRaftVersion != 1 || p.Quorum != QuorumDynamic {
		t.Fatalf("plan: blocked %v, kraft.version %d, quorum %q: %v", p.Blocked, p.KRaftVersion, p.Quorum, p.Findings)
	}
	out := t.TempDir()
	files, err := Apply(p, ApplyOptions{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 {
		t.Fatalf("%d files, want 2 per controller: %v", len(files), files)
	}
	var snap []byte
	for _, c := range p.Controllers {
		dir := controllers.Dir(out, c.ID)
		if _, err := os.Stat(filepath.Join(dir, bootstrapFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("controller %d: bootstrap.checkpoint written for a dynamic quorum (%v)", c.ID, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, bootstrapSnapshotPath))
		if err != nil {
			t.Fatal(err)
		}
		if snap != nil && !bytes.Equal(b, snap) {
			t.Errorf("controller %d: a bootstrap snapshot other than controller %d's", c.ID, p.Controllers[0].ID)
		}
		snap = b
		mp, _ := os.ReadFile(filepath.Join(dir, metaPropertiesFile))
		props, err := javaprops.Parse(mp)
		if err != nil {
			t.Fatal(err)
		}
		if props["directory.id"] != c.DirectoryID.String() || c.DirectoryID.IsZero() {
			t.Errorf("controller %d: meta.properties directory.id %s, voter's %s", c.ID, props["directory.id"], c.DirectoryID)
		}
	}
	if p.Controllers[0].DirectoryID.String() != "q9L1qYxkSV6x3Yt4l2ZRoA" {
		t.Errorf("given directory id not kept: %s", p.Controllers[0].DirectoryID)
	}
	// The snapshot's first batch holds the header, kraft.version 1 and the
	// three voters; the data records follow at offset 3 and decode to the
	// plan's image.
	recs := flatten(t, "snap", snap)
	if len(recs) < 4 || !recs[0].control || !recs[2].control || recs[3].control || recs[3].offset != 3 {
		t.Fatalf("snapshot layout: %+v", recs[:min(4, len(recs))])
	}
	for _, c := range p.Controllers {
		if !bytes.Contains(recs[2].value, c.DirectoryID[:]) {
			t.Errorf("VotersRecord lacks controller %d's directory id", c.ID)
		}
	}
	if got := len(recs) - 4; got != p.Records.Total {
		t.Errorf("%d data records, plan %d", got, p.Records.Total)
	}
	// A rerun leaves everything as it is.
	again, err := Apply(p, ApplyOptions{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again {
		if f.Action != ActionUnchanged {
			t.Errorf("rerun: %s %s", f.Action, f.Path)
		}
	}
	// Kafka's own files beside it mean Kafka ran there: refused.
	os.WriteFile(filepath.Join(controllers.Dir(out, 3000), metadataPartitionDir, "quorum-state"), []byte("{}"), 0o644)
	if _, err := Apply(p, ApplyOptions{Out: out}); !errors.Is(err, ErrTargetNotEmpty) {
		t.Errorf("apply beside quorum-state: %v, want ErrTargetNotEmpty", err)
	}

	low, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: "3.8-IV0", Controllers: cs, Quorum: QuorumDynamic})
	if err != nil {
		t.Fatal(err)
	}
	if !low.Blocked || !slices.ContainsFunc(low.Findings, func(f model.Finding) bool {
		return f.Code == CodeDynamicQuorumLevel && strings.Contains(f.Fix, "3.9-IV0")
	}) {
		t.Errorf("dynamic quorum at 3.8-IV0: blocked %v, findings %v", low.Blocked, low.Findings)
	}
	if _, err := NewPlan(baseImage(), Options{MetadataVersion: "4.4", Controllers: cs, Quorum: "raft"}); !errors.Is(err, ErrBadInput) {
		t.Errorf("quorum raft: %v", err)
	}
}

// TestConfigsDynamicQuorum: a dynamic quorum's nodes get
// controller.quorum.bootstrap.servers and never controller.quorum.voters
// (Kafka refuses both).
func TestConfigsDynamicQuorum(t *testing.T) {
	cs, _ := controllers.Parse("3000@127.0.0.1:9093,3001@127.0.0.1:9094")
	in := map[string]string{"broker.id": "1", "zookeeper.connect": "zk:2181", "controller.quorum.voters": "9@old:1"}
	for _, role := range []string{RoleBroker, RoleController} {
		out, _, err := KRaftConfig(in, ConfigOptions{Role: role, NodeID: map[string]int32{RoleBroker: -1, RoleController: 3001}[role],
			Controllers: cs, Quorum: QuorumDynamic, MetadataDir: "/m"})
		if err != nil {
			t.Fatal(err)
		}
		if _, has := out["controller.quorum.voters"]; has || out["controller.quorum.bootstrap.servers"] != "127.0.0.1:9093,127.0.0.1:9094" {
			t.Errorf("%s: voters %q, bootstrap servers %q", role, out["controller.quorum.voters"], out["controller.quorum.bootstrap.servers"])
		}
	}
	out, _, err := KRaftConfig(in, ConfigOptions{Role: RoleBroker, NodeID: -1, Controllers: cs})
	if err != nil {
		t.Fatal(err)
	}
	if out["controller.quorum.voters"] != "3000@127.0.0.1:9093,3001@127.0.0.1:9094" || out["controller.quorum.bootstrap.servers"] != "" {
		t.Errorf("static: %v", out)
	}
}

// TestProgressReports: plan reports partitions encoded and apply the bytes
// of the bootstrap files written, rising to their totals; a rerun that
// leaves the files as they are still reaches the total.
func TestProgressReports(t *testing.T) {
	img := baseImage()
	for i := range 10000 {
		img.Topics["t"].Partitions[int32(i+1)] = &model.Partition{ID: int32(i + 1), Replicas: []int32{1}, ISR: []int32{1}, Leader: 1}
	}
	var plan [][2]int64
	p, err := NewPlan(img, Options{Source: "test", MetadataVersion: "4.4", Controllers: []controllers.Spec{
		{ID: 3000, Host: "h", Port: 1}, {ID: 3001, Host: "h", Port: 2}}, Progress: func(d, t int64) { plan = append(plan, [2]int64{d, t}) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) < 2 || plan[len(plan)-1] != [2]int64{10001, 10001} {
		t.Fatalf("plan progress %v, want to end at 10001/10001", plan)
	}
	for _, rerun := range []bool{false, true} {
		var got [][2]int64
		out := filepath.Join(t.TempDir(), "x")
		if rerun {
			if _, err := Apply(p, ApplyOptions{Out: out}); err != nil {
				t.Fatal(err)
			}
		}
		files, err := Apply(p, ApplyOptions{Out: out, Progress: func(d, t int64) { got = append(got, [2]int64{d, t}) }})
		if err != nil {
			t.Fatal(err)
		}
		total := int64(files[0].Bytes + files[2].Bytes)
		if len(got) == 0 || got[len(got)-1] != [2]int64{total, total} {
			t.Fatalf("rerun %v: apply progress %v, want to end at %d/%d", rerun, got, total, total)
		}
		for i := 1; i < len(got); i++ {
			if got[i][0] < got[i-1][0] {
				t.Fatalf("progress went back: %v", got)
			}
		}
	}
}
