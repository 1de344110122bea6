package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// historyObserver feeds a lint.Tracker from replay: each record that took
// effect becomes a lint.Change naming the scope it touched. It keeps the
// topic names by id (a PartitionChangeRecord names its topic by id, and
// after a RemoveTopicRecord the image no longer has it).
type historyObserver struct {
	tr    *lint.Tracker
	names map[model.UUID]string
}

func newHistoryObserver(tr *lint.Tracker) *historyObserver {
	return &historyObserver{tr: tr, names: map[model.UUID]string{}}
}

func (h *historyObserver) observe(img *model.Image, pos metalog.Position, rec records.Message) {
	ch := lint.Change{Offset: pos.Offset, Record: rec.RecordName(), Partition: -1}
	if pos.Timestamp > 0 {
		ch.Time = time.UnixMilli(pos.Timestamp).UTC()
	}
	switch m := rec.(type) {
	case *records.TopicRecord:
		h.names[m.TopicId] = m.Name
		ch.Topic = m.Name
	case *records.PartitionRecord:
		ch.Topic, ch.Partition = h.names[m.TopicId], m.PartitionId
	case *records.PartitionChangeRecord:
		ch.Topic, ch.Partition = h.names[m.TopicId], m.PartitionId
	case *records.RemoveTopicRecord:
		ch.Topic, ch.Removed = h.names[m.TopicId], true
		delete(h.names, m.TopicId)
	case *records.ClearElrRecord:
		if ch.Topic = m.TopicName; ch.Topic == "" {
			ch.Inputs = lint.InputFeatures // every topic's ELR
		}
	case *records.ConfigRecord:
		switch model.ConfigResourceType(m.ResourceType) {
		case model.ConfigTopic:
			ch.Topic, ch.Config = m.ResourceName, true
		case model.ConfigBroker:
			ch.Inputs = lint.InputClusterConfig
		default:
			return // group and client-metrics configs: no rule reads them
		}
	case *records.FeatureLevelRecord:
		ch.Inputs = lint.InputFeatures
	case *records.RegisterBrokerRecord, *records.UnregisterBrokerRecord, *records.FenceBrokerRecord,
		*records.UnfenceBrokerRecord, *records.BrokerRegistrationChangeRecord,
		*records.RegisterControllerRecord, *records.UnregisterControllerRecord:
		ch.Inputs = lint.InputBrokers
	case *records.ZkMigrationStateRecord:
		ch.Inputs = lint.InputMigration
	case records.Control:
		ch.Inputs = lint.InputQuorum
	default:
		return // ACLs, quotas, SCRAM, tokens, producer ids: no rule reads them
	}
	h.tr.Observe(img, ch)
}

// zkStep feeds a lint.Tracker from a ZooKeeper data dir's replay: each
// znode a transaction changed becomes a lint.Change at the transaction's
// zxid, naming the znode and the scope it touched; the transaction is a
// batch (Flush after it).
func zkStep(tr *lint.Tracker) func(*model.Image, zkread.Step) {
	return func(img *model.Image, s zkread.Step) {
		for _, zc := range s.Changes {
			ch := lint.Change{Offset: s.Zxid, Zxid: s.Zxid, Time: s.Time, Record: zc.Op, Znode: zc.Znode, Partition: -1}
			switch zc.What {
			case zkread.TouchedAll:
				// The image was built whole: every topic, and every
				// cluster-wide input.
				for _, tp := range img.SortedTopics() {
					tc := ch
					tc.Topic = tp.Name
					tr.Observe(img, tc)
				}
				ch.Inputs = lint.InputBrokers | lint.InputClusterConfig | lint.InputFeatures | lint.InputMigration | lint.InputZooKeeper
			case zkread.TouchedBroker:
				ch.Inputs = lint.InputBrokers
			case zkread.TouchedTopic:
				ch.Topic, ch.Removed = zc.Topic, zc.Removed
			case zkread.TouchedPartition:
				ch.Topic, ch.Partition = zc.Topic, zc.Partition
			case zkread.TouchedTopicConfig:
				ch.Topic, ch.Config = zc.Topic, true
			case zkread.TouchedBrokerConfig:
				ch.Inputs = lint.InputClusterConfig
			case zkread.TouchedController, zkread.TouchedAdmin:
				ch.Inputs = lint.InputZooKeeper
			case zkread.TouchedFeatures:
				ch.Inputs = lint.InputFeatures
			case zkread.TouchedMigration:
				ch.Inputs = lint.InputMigration
			default:
				continue // quotas, ACLs, SCRAM, tokens, producer ids: no rule reads them
			}
			tr.Observe(img, ch)
		}
		tr.Flush()
	}
}

// loadHistory replays a KRaft log, or a ZooKeeper data dir's snapshot
// and transaction logs, once, feeding tr; other sources (live, a dump,
// several data dirs) are refused: they hold no history.
//
// static are the nodes' static configs (--config): they are put into the
// replay's image before its first record is judged, so that the findings
// held since a point are those of the image Run judges at the end.
func loadHistory(c *cli.Context, raw string, tr *lint.Tracker, static map[int32]map[string]string) (*model.Image, error) {
	spec, err := parseSource(c, raw)
	if err != nil {
		return nil, err
	}
	zkData := spec.World == model.WorldZooKeeper && spec.ZK.Access == zkread.AccessDataDir && len(spec.DataDirs) <= 1
	if spec.World != model.WorldKRaft && !zkData {
		return nil, usageErrorf(c, "--history reads a KRaft metadata log (a log dir, its snapshots and segments) or one ZooKeeper data dir (zkdata:DIR, its snapshot and transaction logs); %s is neither: it holds no history", raw)
	}
	if spec, err = withPointFlags(c, spec); err != nil {
		return nil, err
	}
	defer lessGC()()
	withStatic := func(img *model.Image) {
		if static != nil && img.StaticConfigs == nil {
			applyStatic(img, static)
		}
	}
	step := zkStep(tr)
	opts := source.Options{ZKStep: func(img *model.Image, s zkread.Step) { withStatic(img); step(img, s) }}
	if spec.World == model.WorldKRaft {
		h := newHistoryObserver(tr)
		var rp *metalog.Replayer
		opts = source.Options{
			Before: func(r *metalog.Replayer, _ metalog.Position, _ records.Message) { rp = r },
			Observe: func(img *model.Image, pos metalog.Position, rec records.Message) {
				withStatic(img)
				h.observe(img, pos, rec)
			},
			BatchDone: func(end int64) { tr.FlushPoint(batchPoint(rp, end)) },
		}
	}
	res, err := loadPointWith(c, spec, opts)
	if err != nil {
		return nil, err
	}
	return res.Image, nil
}

// batchPoint is where the state a batch ending at end left is first
// published, as a point kmeta accepts (metalog's points: SOURCE@offset=N,
// image --at-offset): the batch's end, or, when the batch leaves a
// metadata transaction open, the offset before its BeginTransactionRecord
// (Kafka's loader publishes there, and the transaction's records wait for
// its End). rp is the replay's replayer (nil before any record).
func batchPoint(rp *metalog.Replayer, end int64) int64 {
	if rp != nil && rp.InTransaction() {
		if begin, _, _ := rp.PendingTransaction(); begin.Offset-1 < end {
			return begin.Offset - 1
		}
	}
	return end
}
