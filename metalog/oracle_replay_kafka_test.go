package metalog

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest/imagefacts"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// imageFacts renders an image as Kafka's replay oracle prints it (the
// damage tests compare images in this form too).
func imageFacts(img *model.Image) string { return imagefacts.Lines(img) }

// replayEdgeCases is a log whose records Kafka's MetadataDelta treats
// specially: stale broker epochs, ClearElrRecord, kraft.version and
// metadata.version 0 feature records, directories that do not match the
// replicas, records for unknown topics or partitions.
func replayEdgeCases() [][]records.Metadata {
	t1, t2 := model.UUID{1, 1}, model.UUID{2, 2}
	d1, d2 := model.UUID{7, 1}, model.UUID{7, 2}
	// RegisterBrokerRecord's defaults are not Kafka's zero values
	// everywhere; start from them.
	reg := func(id int32, epoch int64, fenced bool) *records.RegisterBrokerRecord {
		r := &records.RegisterBrokerRecord{}
		r.SetDefaults()
		r.BrokerId, r.BrokerEpoch, r.Fenced, r.IncarnationId = id, epoch, fenced, model.UUID{9, byte(id)}
		r.LogDirs = []model.UUID{d1}
		return r
	}
	change := func(id int32, epoch int64, fenced, ics int8) *records.BrokerRegistrationChangeRecord {
		r := &records.BrokerRegistrationChangeRecord{}
		r.SetDefaults()
		r.BrokerId, r.BrokerEpoch, r.Fenced, r.InControlledShutdown = id, epoch, fenced, ics
		return r
	}
	part := func(topic model.UUID, id int32, replicas []int32, dirs []model.UUID, elr, lkelr []int32) *records.PartitionRecord {
		r := &records.PartitionRecord{}
		r.SetDefaults()
		r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader, r.LeaderEpoch, r.PartitionEpoch = topic, id, replicas, replicas[:1], replicas[0], 3, 5
		r.Directories, r.EligibleLeaderReplicas, r.LastKnownElr = dirs, elr, lkelr
		return r
	}
	pchange := func(topic model.UUID, id int32) *records.PartitionChangeRecord {
		r := &records.PartitionChangeRecord{}
		r.SetDefaults()
		r.TopicId, r.PartitionId = topic, id
		return r
	}
	grow := pchange(t1, 1)
	grow.Replicas = []int32{1, 2, 3}
	return [][]records.Metadata{
		{
			&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 25},
			&records.FeatureLevelRecord{Name: "group.version", FeatureLevel: 1},
			&records.FeatureLevelRecord{Name: "transaction.version", FeatureLevel: 2},
			reg(1, 10, true), reg(2, 20, false), reg(3, 30, false), reg(4, 40, false),
		},
		{
			// Stale epochs: Kafka refuses these.
			&records.UnfenceBrokerRecord{Id: 1, Epoch: 9},
			&records.FenceBrokerRecord{Id: 2, Epoch: 19},
			change(3, 29, 1, 1),
			// Current epochs.
			&records.FenceBrokerRecord{Id: 4, Epoch: 40},
			change(2, 20, 0, 1),
			// Unknown brokers.
			&records.FenceBrokerRecord{Id: 9, Epoch: 1},
			// No epoch check for unregistration.
			&records.UnregisterBrokerRecord{BrokerId: 3, BrokerEpoch: 12345},
		},
		{
			&records.TopicRecord{Name: "a", TopicId: t1},
			part(t1, 0, []int32{1, 2}, []model.UUID{d1, d2}, []int32{2}, nil),
			part(t1, 1, []int32{1, 2}, []model.UUID{d1, d2}, nil, []int32{2}),
			part(t1, 2, []int32{1, 2}, []model.UUID{d1, d2}, []int32{}, []int32{}),
			// Directories of the wrong length: Kafka refuses the record,
			// all "migrating" or not; of the right length they stand.
			part(t1, 3, []int32{1, 2}, []model.UUID{d1}, nil, nil),
			part(t1, 4, []int32{1, 2}, []model.UUID{model.DirMigrating}, nil, nil),
			part(t1, 5, []int32{1, 2}, []model.UUID{model.DirMigrating, model.DirMigrating, model.DirMigrating}, nil, nil),
			part(t1, 6, []int32{1, 2}, []model.UUID{model.DirMigrating, model.DirMigrating}, nil, nil),
			// Unknown topic.
			part(t2, 0, []int32{1}, nil, nil, nil),
			&records.TopicRecord{Name: "b", TopicId: t2},
			part(t2, 0, []int32{2, 1}, nil, []int32{1}, []int32{1}),
			// Unknown partition.
			pchange(t2, 7),
		},
		{
			// A replica change without directories keeps the directories
			// that are not all "migrating".
			grow,
			&records.ClearElrRecord{TopicName: "b"},
			&records.ClearElrRecord{TopicName: "no-such-topic"},
		},
		{
			&records.ClearElrRecord{},
			// kraft.version is not a finalized feature of the image, and a
			// metadata.version of 0 does not exist.
			&records.FeatureLevelRecord{Name: "kraft.version", FeatureLevel: 1},
			&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 0},
			&records.FeatureLevelRecord{Name: "group.version", FeatureLevel: 0},
		},
	}
}

// TestReplayMatchesKafkaMetadataDelta replays the same log with kmeta and
// with Kafka 4.4.0's MetadataBatchLoader and requires the same image.
func TestReplayMatchesKafkaMetadataDelta(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	dir := t.TempDir()
	writeLog(t, dir, 1, replayEdgeCases()...)
	compareWithKafkaReplay(t, d, dir)
}

// compareWithKafkaReplay replays dir's single segment with Kafka's own
// loader (kafkatest.KafkaImageFacts) and with LoadImage, and requires the
// same image facts (imagefacts.Lines). It returns how many lines agreed.
func compareWithKafkaReplay(t *testing.T, d *kafkatest.Distribution, dir string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	facts, faults, err := kafkatest.KafkaImageFacts(ctx, d, filepath.Join(dir, SegmentFileName(0)), -1)
	if err != nil {
		t.Fatal(err)
	}
	if faults != "" {
		t.Logf("Kafka's loader faults:\n%s", faults)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	want, got := facts[-1], imagefacts.Lines(res.Image)
	if want != got {
		t.Errorf("image differs from Kafka's MetadataDelta\n--- kafka\n%s--- kmeta\n%s", want, got)
	}
	return strings.Count(want, "\n")
}

// TestReplayFixturesMatchKafkaMetadataDelta replays the real cluster logs
// (every segment, from offset 0, no snapshot) through Kafka 4.4.0's own
// loader and through kmeta, and requires the same features, brokers and
// partitions (leaders, epochs, ISR, ELR, directories, ...).
func TestReplayFixturesMatchKafkaMetadataDelta(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	for _, v := range []string{kafkatest.Kafka39, kafkatest.Latest4} {
		t.Run(v, func(t *testing.T) {
			seg := kafkatest.OneSegment(t, filepath.Join("..", "testdata", "kraft", v, "metadata"))
			dir := filepath.Dir(seg)
			n := compareWithKafkaReplay(t, d, dir)
			t.Logf("%d lines of image facts agree", n)
		})
	}
}

// bigBatchLog is a log whose data batches are large enough for replay to
// share their decoding with a second goroutine (applyAhead, in rounds of
// aheadWindow records): topics created, changed, removed and created again
// within one batch, partition changes right after the records that create
// their partitions, refused records, and metadata transactions (committed
// and aborted) across the points where a round is split and where one
// round ends and the next begins.
func bigBatchLog() [][]records.Metadata {
	d1, d2 := model.UUID{7, 1}, model.UUID{7, 2}
	reg := func(id int32) *records.RegisterBrokerRecord {
		r := &records.RegisterBrokerRecord{}
		r.SetDefaults()
		r.BrokerId, r.BrokerEpoch, r.IncarnationId, r.LogDirs = id, int64(10*id), model.UUID{9, byte(id)}, []model.UUID{d1}
		return r
	}
	var big []records.Metadata
	add := func(m ...records.Metadata) { big = append(big, m...) }
	for k := range 24 {
		id := model.UUID{0xa, byte(k)}
		add(&records.TopicRecord{Name: fmt.Sprintf("t%02d", k), TopicId: id})
		for p := range int32(60) {
			r := &records.PartitionRecord{}
			r.SetDefaults()
			reps := []int32{1 + p%3, 1 + (p+1)%3}
			r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader = id, p, reps, reps, reps[0]
			r.LeaderEpoch, r.PartitionEpoch, r.Directories = p%5, p%7, []model.UUID{d1, d2}
			switch p % 4 {
			case 1:
				r.EligibleLeaderReplicas, r.LastKnownElr = []int32{reps[1]}, []int32{}
			case 2:
				r.Directories = nil
			}
			add(r)
			if p%3 == 0 {
				c := &records.PartitionChangeRecord{}
				c.SetDefaults()
				c.TopicId, c.PartitionId, c.Isr = id, p, reps[:1]
				if p%2 == 0 {
					c.Leader = reps[1]
				}
				add(c)
			}
		}
		// Partition records Kafka refuses, in the part of the first round
		// decoded ahead (whose partitions are built ahead): directories
		// that do not match the replicas, an unknown leader recovery
		// state. (A partition of an unknown topic is refused by kmeta;
		// Kafka's TopicsDelta fails on it with a NullPointerException that
		// breaks the rest of the batch, so it cannot be an oracle case.)
		refused := func(topic model.UUID, p int32, bad func(*records.PartitionRecord)) {
			r := &records.PartitionRecord{}
			r.SetDefaults()
			r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader = topic, p, []int32{1, 2}, []int32{1, 2}, 1
			r.Directories = []model.UUID{d1, d2}
			bad(r)
			add(r)
		}
		switch k {
		case 3:
			add(&records.RemoveTopicRecord{TopicId: id})
		case 6:
			refused(id, 70, func(r *records.PartitionRecord) { r.Directories = []model.UUID{d1, d2, d1} })
			refused(id, 71, func(r *records.PartitionRecord) { r.LeaderRecoveryState = 7 })
		case 4:
			add(&records.ClearElrRecord{TopicName: "t04"})
		case 5:
			c := &records.PartitionChangeRecord{}
			c.SetDefaults()
			c.TopicId, c.PartitionId = id, 999 // unknown partition: refused
			add(c)
		}
	}
	// Metadata transactions: committed across the split of the first
	// round (aheadSplit); committed from the end of the first round to
	// the third, so that records it holds were decoded by the decoders the
	// second round uses again; aborted at the end of the batch. (Kafka's
	// MetadataBatchLoader applies an aborted transaction after all when
	// more records follow its Abort in the same batch, which kmeta does
	// not; Kafka's controller ends a batch with the Abort.)
	begin := func() records.Metadata { return &records.BeginTransactionRecord{Name: ptr("txn")} }
	for _, tx := range []struct {
		at, n int
		end   records.Metadata
	}{
		{len(big) - 40, 40, &records.AbortTransactionRecord{Reason: ptr("aborted")}},
		{aheadWindow - 30, aheadWindow + 60, &records.EndTransactionRecord{}},
		{aheadSplit(aheadWindow) - 10, 25, &records.EndTransactionRecord{}},
	} {
		big = slices.Insert(big, tx.at+tx.n, tx.end)
		big = slices.Insert(big, tx.at, begin())
	}
	return [][]records.Metadata{
		{&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 25}, reg(1), reg(2), reg(3)},
		big,
		{&records.TopicRecord{Name: "t03", TopicId: model.UUID{0xb, 3}}},
		big[:aheadMin+1],
	}
}

// TestReplayLargeBatchesMatchKafkaMetadataDelta: replay of batches that
// are decoded on two goroutines gives Kafka 4.4.0's image.
func TestReplayLargeBatchesMatchKafkaMetadataDelta(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	dir := t.TempDir()
	writeLog(t, dir, 1, bigBatchLog()...)
	n := compareWithKafkaReplay(t, d, dir)
	t.Logf("%d lines of image facts agree", n)
}
