package metalog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/kafkatest"
	"github.com/kmeta/kmeta/internal/kafkatest/imagefacts"
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
			// Directories of the wrong length: Kafka refuses the record.
			part(t1, 3, []int32{1, 2}, []model.UUID{d1}, nil, nil),
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
