package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
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

// loadHistory replays a KRaft log once, feeding tr; other sources are
// refused: their history (a ZooKeeper data dir's transaction logs by
// zxid) is not read.
func loadHistory(c *cli.Context, raw string, tr *lint.Tracker) (*model.Image, error) {
	spec, err := parseSource(c, raw)
	if err != nil {
		return nil, err
	}
	if spec.World != model.WorldKRaft {
		return nil, usageErrorf(c, "--history reads a KRaft metadata log (a log dir, its snapshots and segments); %s is a %s source, whose history kmeta does not read", raw, spec.World)
	}
	if spec, err = withPointFlags(c, spec); err != nil {
		return nil, err
	}
	defer lessGC()()
	h := newHistoryObserver(tr)
	res, err := loadPointWith(c, spec, source.Options{Observe: h.observe, BatchDone: tr.Flush})
	if err != nil {
		return nil, err
	}
	return res.Image, nil
}
