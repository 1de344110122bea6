package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// lintCluster writes the records of the cluster the lint benchmark
// lints: three brokers on three racks, a cluster default
// min.insync.replicas of 2, topics of 100 partitions with replication
// factor 3 (every thousandth topic 1) whose every hundredth partition
// has an ISR of 2: a cluster with some findings of most kinds, not a
// million of one. add gets each record and its version; batch, when
// set, is called after the brokers and after each topic (a log writes
// them as batches).
func lintCluster(parts int, add func(records.Metadata, int16), batch func()) {
	add(&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 27}, 0)
	for b := int32(0); b < 3; b++ {
		rack := fmt.Sprintf("r%d", b)
		add(&records.RegisterBrokerRecord{BrokerId: b, IncarnationId: model.UUID{byte(b + 1), 1}, BrokerEpoch: int64(10 + b), Rack: &rack,
			EndPoints: []records.RegisterBrokerRecordBrokerEndpoint{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: uint16(9092 + b)}},
			Features:  []records.RegisterBrokerRecordBrokerFeature{{Name: "metadata.version", MinSupportedVersion: 1, MaxSupportedVersion: 27}}}, 0)
	}
	two := "2"
	add(&records.ConfigRecord{ResourceType: int8(model.ConfigBroker), Name: "min.insync.replicas", Value: &two}, 0)
	if batch != nil {
		batch()
	}
	dirs := []model.UUID{{1, 1}, {2, 2}, {3, 3}}
	for p := 0; p < parts; p += 100 {
		topic := p / 100
		id := model.UUID{0xc, byte(topic >> 16), byte(topic >> 8), byte(topic)}
		add(&records.TopicRecord{Name: fmt.Sprintf("lint-topic-%06d", topic), TopicId: id}, 0)
		for i := 0; i < min(100, parts-p); i++ {
			r := []int32{int32(i % 3), int32((i + 1) % 3), int32((i + 2) % 3)}
			if topic%1000 == 999 {
				r = r[:1]
			}
			isr := r
			if i == 50 && len(r) == 3 {
				isr = r[:2]
			}
			add(&records.PartitionRecord{PartitionId: int32(i), TopicId: id, Replicas: r, Isr: isr, Leader: r[0],
				LeaderEpoch: int32(i % 7), PartitionEpoch: int32(i % 11), Directories: dirs[:len(r)]}, 1)
		}
		if batch != nil {
			batch()
		}
	}
}

// lintSnapshot writes lintCluster as one snapshot (a log dir holding
// __cluster_metadata-0) and returns the dir.
func lintSnapshot(t *testing.T, dir string, parts int) string {
	t.Helper()
	part := mkdir(t, dir, "__cluster_metadata-0")
	path := filepath.Join(part, metalog.SnapshotID{EndOffset: int64(parts + parts/100 + 10), Epoch: 1}.FileName())
	if _, err := os.Stat(path); err == nil {
		return dir // KMETA_BENCH_DIR kept: a pure function of parts, written atomically
	}
	w, err := metalog.CreateSnapshot(path, metalog.SnapshotOptions{Epoch: 1, Timestamp: 1700000000000})
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	lintCluster(parts, func(m records.Metadata, v int16) {
		if buf, err = records.EncodeMetadata(buf[:0], m, v); err != nil {
			t.Fatal(err)
		}
		if err := w.Append(buf); err != nil {
			t.Fatal(err)
		}
	}, nil)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// changeLog writes a log segment: lintCluster of parts partitions (a
// batch per topic), then changes PartitionChangeRecords in batches of 1
// to 50 records, as a busy controller writes ISR changes: each shrinks a
// random partition's ISR to its first two replicas or restores it, and
// one in ten moves the leader to the second replica or back. Returns the
// log dir and the number of batches.
func changeLog(t *testing.T, dir string, parts, changes int) (string, int) {
	t.Helper()
	// KMETA_BENCH_DIR kept, or another test of the same run made it: the
	// log is a pure function of parts and changes, written atomically, and
	// its sizes were written after it, beside its directory.
	count := dir + ".count"
	if kept, err := os.ReadFile(count); err == nil {
		var p, c, batches int
		if _, err := fmt.Sscanf(string(kept), "%d %d %d", &p, &c, &batches); err == nil && p == parts && c == changes {
			return dir, batches
		}
	}
	part := mkdir(t, dir, "__cluster_metadata-0")
	w, err := metalog.CreateSegment(part, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := int64(1700000000000)
	var vals [][]byte
	var buf []byte
	add := func(m records.Metadata, v int16) {
		start := len(buf)
		if buf, err = records.EncodeMetadata(buf, m, v); err != nil {
			t.Fatal(err)
		}
		vals = append(vals, buf[start:len(buf):len(buf)])
	}
	batches := 0
	flush := func() {
		ts++
		if err := w.AppendData(1, ts, vals); err != nil {
			t.Fatal(err)
		}
		vals, buf = vals[:0], buf[:0]
		batches++
	}
	lintCluster(parts, add, flush)
	rng := rand.New(rand.NewPCG(22, 3))
	shrunk, moved := make([]bool, parts), make([]bool, parts)
	for i, done := 0, 0; done < changes; i++ {
		n := min(1+(i*7919)%50, changes-done)
		for range n {
			p := rng.IntN(parts)
			for p%100 == 50 || p/100%1000 == 999 {
				p = rng.IntN(parts) // the born-short partitions and the RF 1 topics stay as they are
			}
			topic, idx := p/100, p%100
			r := []int32{int32(idx % 3), int32((idx + 1) % 3), int32((idx + 2) % 3)}
			m := &records.PartitionChangeRecord{}
			m.SetDefaults()
			m.TopicId, m.PartitionId = model.UUID{0xc, byte(topic >> 16), byte(topic >> 8), byte(topic)}, int32(idx)
			if shrunk[p] = !shrunk[p]; shrunk[p] {
				m.Isr = r[:2]
			} else {
				m.Isr = r
			}
			if rng.IntN(10) == 0 {
				if moved[p] = !moved[p]; moved[p] {
					m.Leader = r[1]
				} else {
					m.Leader = r[0]
				}
			}
			add(m, 0)
		}
		done += n
		flush()
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(count, fmt.Appendf(nil, "%d %d %d\n", parts, changes, batches), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, batches
}

// kmetaCost runs kmeta with args and returns its wall time, CPU time,
// peak RSS (KiB) and stdout; exit 1 (findings) is success.
func kmetaCost(t *testing.T, bin string, args ...string) (time.Duration, time.Duration, int64, []byte) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	m := measureProc(t, cmd, 1, nil)
	return m.wall, m.cpu, m.maxRSS, stdout.Bytes()
}

// lintReport is what the bench reads of kmeta lint -o json.
type lintReport struct {
	Findings []struct {
		Code  string      `json:"code"`
		Since *lint.Since `json:"since"`
	} `json:"findings"`
}

// TestBenchLint measures lint at a million partitions (issue 22):
//
//   - lint of a 1,000,000-partition image (a snapshot of lintCluster),
//     stage by stage in this process: loading the image (replay of the
//     snapshot), then lint.Run on it, beyond loading (the acceptance:
//     under 1 s), with allocation and the live heap; and kmeta lint -o
//     json end to end, with its peak RSS;
//   - lint --history over a log of 1,000,000 PartitionChangeRecords
//     (changeLog: 10,000 partitions, ISR and leader churn in batches of
//     1 to 50), against plain lint of the same log (the replay alone),
//     and lint --history of the million-partition snapshot.
//
// KMETA_BENCH_SCALE=small: 100,000 partitions and 100,000 changes. Each
// row runs once (the rows are long; the figures are reported, never
// asserted); the test fails only when a run does not report what the
// cluster holds.
func TestBenchLint(t *testing.T) {
	bin := benchBin(t)
	parts, changes, changeParts := 1_000_000, 1_000_000, 10_000
	if smallScale() {
		parts, changes = 100_000, 100_000
	}
	dir := t.TempDir()
	if d := os.Getenv("KMETA_BENCH_DIR"); d != "" { // kept after the run
		dir = d
	}
	var rows []string
	row := func(format string, a ...any) { rows = append(rows, fmt.Sprintf(format, a...)) }

	// 1. A million-partition image: load, then lint beyond loading.
	start := time.Now()
	snap := lintSnapshot(t, mkdir(t, dir, fmt.Sprintf("lint-%d", parts)), parts)
	gen := time.Since(start)
	wantURP := parts / 100 * 999 / 1000 // partition 50 of every RF 3 topic
	img, load := loadMeasured(t, "kraft:"+snap)
	var res *lint.Result
	run := measure(t, func() (err error) { res, err = lint.Run(img, lint.Options{}); return err })
	urp := 0
	for _, f := range res.Findings {
		if f.Code == lint.CodePartitionUnderReplicated {
			urp++
		}
	}
	if urp < wantURP {
		t.Fatalf("lint found %d under-replicated partitions, the image holds %d", urp, wantURP)
	}
	row("image of %d partitions (snapshot generated in %s): load %s, %d MiB live heap", parts, gen.Round(time.Second), load, load.heap>>20)
	row("lint.Run beyond loading: %s, %d findings", run, len(res.Findings))
	img, res = nil, nil
	wall, cpu, rss, out := kmetaCost(t, bin, "lint", "-o", "json", snap)
	var rep lintReport
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Findings) < wantURP {
		t.Fatalf("kmeta lint -o json: %v, %d findings", err, len(rep.Findings))
	}
	row("kmeta lint -o json, end to end: %.2f s, %.2f s CPU, peak RSS %d MiB", wall.Seconds(), cpu.Seconds(), rss>>10)

	// 2. --history over a million partition changes.
	start = time.Now()
	logDir, batches := changeLog(t, mkdir(t, dir, fmt.Sprintf("changes-%d", changes)), changeParts, changes)
	gen = time.Since(start)
	st, _ := os.Stat(filepath.Join(logDir, "__cluster_metadata-0", metalog.SegmentFileName(0)))
	row("log of %d partition changes over %d partitions, %d batches, %d MiB (generated in %s):", changes, changeParts, batches, st.Size()>>20, gen.Round(time.Second))
	wall, cpu, rss, _ = kmetaCost(t, bin, "lint", "-o", "json", logDir)
	row("  kmeta lint (replay, then lint): %.2f s, %.2f s CPU, peak RSS %d MiB", wall.Seconds(), cpu.Seconds(), rss>>10)
	hist := func(src string) string {
		wall, cpu, rss, out := kmetaCost(t, bin, "lint", "--history", "-o", "json", src)
		var rep lintReport
		if err := json.Unmarshal(out, &rep); err != nil || len(rep.Findings) == 0 {
			t.Fatalf("kmeta lint --history %s: %v, %d findings", src, err, len(rep.Findings))
		}
		for _, f := range rep.Findings {
			if f.Since == nil {
				t.Fatalf("kmeta lint --history %s: a %s finding without since", src, f.Code)
			}
		}
		return fmt.Sprintf("%.2f s, %.2f s CPU, peak RSS %d MiB, %d findings", wall.Seconds(), cpu.Seconds(), rss>>10, len(rep.Findings))
	}
	row("  kmeta lint --history: %s", hist(logDir))
	row("kmeta lint --history of the %d-partition snapshot: %s", parts, hist(snap))
	t.Logf("\nkmeta lint at scale (%s):\n%s", machine(), strings.Join(rows, "\n"))
}

// loadMeasured loads a source in process, as kmeta does, measuring it.
func loadMeasured(t *testing.T, src string) (*model.Image, stageCost) {
	t.Helper()
	var img *model.Image
	m := measure(t, func() (err error) { img, err = loadSource(src); return err })
	return img, m
}

// loadSource reads a source as kmeta's commands do (source.Parse, Load).
func loadSource(src string) (*model.Image, error) {
	spec, err := source.Parse(src)
	if err != nil {
		return nil, err
	}
	res, err := source.Load(context.Background(), spec, source.Options{})
	if err != nil {
		return nil, err
	}
	return res.Image, nil
}
