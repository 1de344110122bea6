// Package biglog writes the KRaft metadata log of a cluster of any size,
// through metalog's writer, for tests of what must not grow with the
// cluster (an html report's size) and benchmarks of what does (replay
// time). The log is what a controller leaves: a snapshot holding the
// cluster (three registered brokers, topics of 100 partitions with three
// replicas each) and a segment after it of a few minutes' changes
// (leader moves, config changes and the controller's NoOps), so that
// both the image and the records over offsets and time have something
// to show.
//
// It lives apart from synth because it writes files with metalog, whose
// own tests use synth.
package biglog

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// The shape of every log Write makes.
const (
	// PerTopic is the number of partitions of each topic.
	PerTopic = 100
	// Brokers is the number of brokers, each holding a replica of every
	// partition.
	Brokers = 3
	// ChangeBatches is the number of batches of the segment after the
	// snapshot, one every BatchEvery ms from a second after it.
	ChangeBatches = 240
	BatchEvery    = 500
	// Start is the snapshot's time, in Unix ms.
	Start = 1_700_000_000_000
)

// ClusterID is the cluster's id (meta.properties): "biglog-cluster-1" in
// base64, as kafka-storage format writes ids.
const ClusterID = "YmlnbG9nLWNsdXN0ZXItMQ"

// Write makes dir a controller's metadata log dir (meta.properties and
// __cluster_metadata-0/) holding a cluster of partitions partitions.
func Write(dir string, partitions int) error {
	part := filepath.Join(dir, metalog.MetadataPartitionDir)
	if err := os.MkdirAll(part, 0o755); err != nil {
		return err
	}
	props := "node.id=3000\nversion=1\ncluster.id=" + ClusterID + "\n"
	if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte(props), 0o644); err != nil {
		return err
	}
	topics := (partitions + PerTopic - 1) / PerTopic
	end := int64(1 + Brokers + topics + partitions + 10) // past the snapshot's records
	w, err := metalog.CreateSnapshot(filepath.Join(part, metalog.SnapshotID{EndOffset: end, Epoch: 1}.FileName()),
		metalog.SnapshotOptions{Epoch: 1, Timestamp: Start, LastContainedLogTimestamp: Start})
	if err != nil {
		return err
	}
	var buf []byte
	add := func(m records.Metadata, v int16) error {
		var err error
		if buf, err = records.EncodeMetadata(buf[:0], m, v); err != nil {
			return err
		}
		return w.Append(buf)
	}
	fail := func(err error) error {
		w.Abort()
		return err
	}
	if err := add(&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 27}, 0); err != nil {
		return fail(err)
	}
	for b := range int32(Brokers) {
		r := &records.RegisterBrokerRecord{BrokerId: b, BrokerEpoch: 10 + int64(b), IncarnationId: model.UUID{0xb, byte(b)},
			EndPoints: []records.RegisterBrokerRecordBrokerEndpoint{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 9092 + uint16(b)}}}
		if err := add(r, 1); err != nil {
			return fail(err)
		}
	}
	for t := range topics {
		id := TopicID(t)
		if err := add(&records.TopicRecord{Name: fmt.Sprintf("big-topic-%07d", t), TopicId: id}, 0); err != nil {
			return fail(err)
		}
		for i := range min(PerTopic, partitions-t*PerTopic) {
			r := replicas(i)
			if err := add(&records.PartitionRecord{PartitionId: int32(i), TopicId: id, Replicas: r, Isr: r, Leader: r[0],
				LeaderEpoch: int32(i % 7), PartitionEpoch: int32(i % 11)}, 0); err != nil {
				return fail(err)
			}
		}
	}
	if err := w.Commit(); err != nil {
		return err
	}
	seg, err := metalog.CreateSegment(part, end, metalog.WriteOptions{})
	if err != nil {
		return err
	}
	var vals [][]byte
	buf = buf[:0]
	rec := func(m records.Metadata, v int16) error {
		start := len(buf)
		var err error
		if buf, err = records.EncodeMetadata(buf, m, v); err != nil {
			return err
		}
		vals = append(vals, buf[start:len(buf):len(buf)])
		return nil
	}
	for i := range ChangeBatches {
		vals, buf = vals[:0], buf[:0]
		var err error
		switch {
		case i%4 == 0:
			// A broker bounce moves some leaders.
			for j := range 20 {
				p := (i*7919 + j*104729) % partitions
				r := replicas(p % PerTopic)
				leader := r[1+j%2]
				err = rec(&records.PartitionChangeRecord{PartitionId: int32(p % PerTopic), TopicId: TopicID(p / PerTopic), Leader: leader,
					Isr: r, LeaderRecoveryState: -1}, 0)
				if err != nil {
					break
				}
			}
		case i%50 == 1:
			v := fmt.Sprint(3600000 * (1 + i%24))
			err = rec(&records.ConfigRecord{ResourceType: 2, ResourceName: fmt.Sprintf("big-topic-%07d", i%topics),
				Name: "retention.ms", Value: &v}, 0)
		default:
			err = rec(&records.NoOpRecord{}, 0)
		}
		if err == nil {
			err = seg.AppendData(1, Start+1000+int64(i)*BatchEvery, vals)
		}
		if err != nil {
			seg.Abort()
			return err
		}
	}
	return seg.Commit()
}

// TopicID is the id of topic t.
func TopicID(t int) model.UUID {
	return model.UUID{0xb, 0x16, byte(t >> 24), byte(t >> 16), byte(t >> 8), byte(t), 1}
}

// replicas are the replicas of a topic's partition i: every broker,
// starting from a different one.
func replicas(i int) []int32 {
	r := make([]int32, Brokers)
	for k := range r {
		r[k] = int32((i + k) % Brokers)
	}
	return r
}
