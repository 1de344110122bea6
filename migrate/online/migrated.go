package online

import (
	"time"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Migrated is what the controllers' log says of the copy: when each
// ZkMigrationState was written (offset, batch time) and how many records
// the copy wrote, by type (the count Kafka's "Completed migration of
// metadata from ZooKeeper to KRaft. N records were generated" line gives).
type Migrated struct {
	States []StateChange `json:"states"`
	// Records are the copy's records: those of the migrated types
	// between PRE_MIGRATION and MIGRATION (inside the "ZK Migration"
	// transaction from 3.6-IV1 on).
	Records     int64            `json:"records"`
	ByType      map[string]int64 `json:"byType"`
	FirstOffset int64            `json:"firstOffset"`
	LastOffset  int64            `json:"lastOffset"`
}

// StateChange is one ZkMigrationStateRecord.
type StateChange struct {
	State  string    `json:"state"`
	Offset int64     `json:"offset"`
	Time   time.Time `json:"time"`
}

// migratedTypes are the record types Kafka's migration writes (§6.5 of
// the reference); registrations and feature levels are not among them.
var migratedTypes = map[string]bool{
	"TopicRecord": true, "PartitionRecord": true, "ConfigRecord": true, "ClientQuotaRecord": true,
	"UserScramCredentialRecord": true, "ProducerIdsRecord": true, "AccessControlEntryRecord": true,
	"DelegationTokenRecord": true,
}

// LogWatch collects Migrated from a replay (its Observe is the replay's).
type LogWatch struct {
	m       Migrated
	copying bool
}

// NewLogWatch returns an empty watch.
func NewLogWatch() *LogWatch {
	return &LogWatch{m: Migrated{ByType: map[string]int64{}, FirstOffset: -1, LastOffset: -1, States: []StateChange{}}}
}

// Observe is called after each record replay applied.
func (w *LogWatch) Observe(_ *model.Image, pos metalog.Position, rec records.Message) {
	if r, ok := rec.(*records.ZkMigrationStateRecord); ok {
		st := model.ZkMigrationState(r.ZkMigrationState)
		w.m.States = append(w.m.States, StateChange{State: st.String(), Offset: pos.Offset, Time: time.UnixMilli(pos.Timestamp).UTC()})
		w.copying = st == model.MigrationPreMigration
		return
	}
	if !w.copying || !migratedTypes[rec.RecordName()] {
		return
	}
	w.m.Records++
	w.m.ByType[rec.RecordName()]++
	if w.m.FirstOffset < 0 {
		w.m.FirstOffset = pos.Offset
	}
	w.m.LastOffset = pos.Offset
}

// Result is what the watch saw; nil when the log holds no migration state.
func (w *LogWatch) Result() *Migrated {
	if len(w.m.States) == 0 {
		return nil
	}
	m := w.m
	return &m
}
