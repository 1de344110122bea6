package metalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// ErrTransaction is returned for metadata-transaction markers out of order
// (a Begin inside a transaction, an End or Abort outside one), which Kafka's
// loader also rejects.
var ErrTransaction = errors.New("metalog: metadata transaction out of order")

// Position locates a record for provenance.
type Position struct {
	Offset int64
	Epoch  int32
	// Timestamp (ms) is when the state the record belongs to was
	// appended: its batch's append time (the base timestamp; KRaft writes
	// every record at delta 0, so it is the maxTimestamp Kafka's loader
	// takes), and for a snapshot's records the SnapshotHeader's
	// lastContainedLogTimestamp, the append time of the last batch the
	// snapshot holds (0, none, in a bootstrap.checkpoint). The batches of
	// a snapshot carry the time it was written, which is not the state's.
	Timestamp int64
	// Batch is the first offset of the record's batch.
	Batch int64
	// Snapshot: the record is one of the snapshot (or bootstrap file)
	// replay started from; its Offset is the snapshot's last offset.
	Snapshot bool
}

// Replayer applies metadata records to a model.Image with the semantics of
// Kafka's MetadataDelta: partition changes are deltas, topic removal drops
// partitions and topic configs, a zero feature level removes the feature,
// records Kafka's delta refuses (stale broker epochs, unknown topics, see
// applyRecord) change nothing, and records inside a metadata transaction
// (KIP-868) are applied only at its End; an aborted or unfinished
// transaction is never applied.
//
// Memory is proportional to the image (plus an open transaction), never to
// the number of records replayed.
type Replayer struct {
	img  *model.Image
	byID map[model.UUID]*model.Topic
	// lastTopic is the topic byID last found (see topic); nil whenever
	// byID changes.
	lastTopic *model.Topic
	arena     partitionArena
	txn       []pending // buffered records of an open transaction
	inTxn     bool
	txnPos    Position
	// committing: the records applied are the transaction's, at its End.
	committing bool
	// lastBegin and lastEnd are the Begin and the End (or Abort) of the
	// transaction that closed last (-1: none).
	lastBegin, lastEnd int64
	last               Position
	// Applied and Skipped count records; Skipped holds the records that
	// took no effect (unknown types, records Kafka refuses, aborted
	// transactions).
	Applied, Skipped int64
	// Refused counts the records of Skipped that Kafka's MetadataDelta
	// refuses (a broker's loader reports a metadata load fault, the
	// controller treats it as fatal): damage, unlike an aborted
	// transaction's records, which Kafka drops by design.
	// FirstRefused is where the first was, and FirstRefusedWhy what it
	// was; both are set once, so counting costs the hot path nothing.
	Refused         int64
	FirstRefused    Position
	FirstRefusedWhy string
	// Observe, when set, is called after each record that took effect
	// (a metadata record, or a control record), with the image as it
	// now is: a replay-driven tracker (lint --history) re-evaluates what
	// the record touched, during the one replay. A transaction's records
	// are observed one by one at its End. Neither rec nor the image may
	// be kept past the call (decoders reuse records).
	Observe func(img *model.Image, pos Position, rec records.Message)
	// Before, when set, is called before each record is applied (a
	// metadata record outside a transaction, each of a transaction's at
	// its End, a control record), with the replayer, whose image is still
	// as it was: a judge that reports changes (history) reads there what
	// the record will touch (Touches) as it is before. Observe follows
	// when the record took effect; a record Kafka refuses gets no
	// Observe. The same rules as Observe's hold for rec.
	Before func(r *Replayer, pos Position, rec records.Message)
}

type pending struct {
	pos Position
	rec records.Metadata
}

// NewReplayer starts from an empty image.
func NewReplayer() *Replayer {
	r := &Replayer{}
	r.Reset()
	return r
}

// Reset drops everything: used when a snapshot starts.
func (r *Replayer) Reset() {
	r.img = model.NewImage()
	r.byID, r.lastTopic = map[model.UUID]*model.Topic{}, nil
	r.arena = newPartitionArena()
	r.txn, r.inTxn = nil, false
	r.lastBegin, r.lastEnd = -1, -1
	r.img.Provenance.Offset = -1
	r.img.Provenance.Epoch = -1
}

// InTransaction reports whether a metadata transaction is open (its records
// are buffered, not applied).
func (r *Replayer) InTransaction() bool { return r.inTxn }

// PendingTransaction returns the position of the open transaction's Begin.
func (r *Replayer) PendingTransaction() (Position, int, bool) {
	return r.txnPos, len(r.txn), r.inTxn
}

// PointBefore is the last point (an offset a replay may stop at, see the
// package doc) whose image does not hold the record at pos, which Before
// or Observe is handed: for a record of a metadata transaction, the offset
// before its BeginTransactionRecord; for a control record, the offset
// before it; for any other, the offset before its batch, or before the
// transaction that closed earlier in that batch (Kafka publishes no image
// between that End and the record).
func (r *Replayer) PointBefore(pos Position, control bool) int64 {
	switch {
	case r.committing:
		return r.txnPos.Offset - 1
	case control:
		return pos.Offset - 1
	case r.lastEnd >= pos.Batch && r.lastEnd < pos.Offset:
		return r.lastBegin - 1
	}
	return pos.Batch - 1
}

// Image returns the image as of the last committed record. The caller must
// not keep replaying into it while using it.
func (r *Replayer) Image() *model.Image { return r.img }

// Apply replays one metadata record at pos.
func (r *Replayer) Apply(pos Position, rec records.Metadata) error {
	switch rec.(type) {
	case *records.BeginTransactionRecord:
		if r.inTxn {
			return fmt.Errorf("%w: BeginTransaction at offset %d inside the transaction begun at %d", ErrTransaction, pos.Offset, r.txnPos.Offset)
		}
		r.inTxn, r.txnPos, r.txn = true, pos, r.txn[:0]
		r.mark(pos)
		return nil
	case *records.EndTransactionRecord:
		if !r.inTxn {
			return fmt.Errorf("%w: EndTransaction at offset %d without a Begin", ErrTransaction, pos.Offset)
		}
		r.committing = true
		for _, p := range r.txn {
			r.apply(p.pos, p.rec)
		}
		r.committing = false
		r.lastBegin, r.lastEnd = r.txnPos.Offset, pos.Offset
		r.txn, r.inTxn = r.txn[:0], false
		r.mark(pos)
		return nil
	case *records.AbortTransactionRecord:
		if !r.inTxn {
			return fmt.Errorf("%w: AbortTransaction at offset %d without a Begin", ErrTransaction, pos.Offset)
		}
		r.Skipped += int64(len(r.txn))
		r.lastBegin, r.lastEnd = r.txnPos.Offset, pos.Offset
		r.txn, r.inTxn = r.txn[:0], false
		r.mark(pos)
		return nil
	}
	if r.inTxn {
		r.txn = append(r.txn, pending{pos, rec})
		return nil
	}
	r.apply(pos, rec)
	return nil
}

// ApplyControl replays a raft control record (leader changes, kraft.version,
// voters) into the image's quorum view.
func (r *Replayer) ApplyControl(pos Position, c records.Control) {
	if r.Before != nil {
		r.Before(r, pos, c)
	}
	q := r.img.Quorum
	if q == nil {
		q = &model.Quorum{LeaderID: -1, LeaderEpoch: -1}
		r.img.Quorum = q
	}
	switch m := c.(type) {
	case *records.LeaderChangeMessage:
		q.LeaderID, q.LeaderEpoch = m.LeaderId, pos.Epoch
		if q.KRaftVersion == 0 && len(m.Voters) > 0 {
			q.Voters = q.Voters[:0]
			for _, v := range m.Voters {
				q.Voters = append(q.Voters, model.Voter{ID: v.VoterId, DirectoryID: v.VoterDirectoryId})
			}
		}
	case *records.KRaftVersionRecord:
		q.KRaftVersion = m.KRaftVersion
	case *records.VotersRecord:
		q.Voters = q.Voters[:0]
		for _, v := range m.Voters {
			mv := model.Voter{ID: v.VoterId, DirectoryID: v.VoterDirectoryId}
			for _, e := range v.Endpoints {
				mv.Endpoints = append(mv.Endpoints, model.Endpoint{Name: e.Name, Host: e.Host, Port: e.Port})
			}
			q.Voters = append(q.Voters, mv)
		}
	}
	if r.Observe != nil {
		r.Observe(r.img, pos, c)
	}
}

// maxRFC3339Millis is 9999-12-31T23:59:59.999Z in Unix milliseconds.
const maxRFC3339Millis = 253402300799999

func (r *Replayer) mark(pos Position) {
	r.last = pos
	p := &r.img.Provenance
	if !r.inTxn {
		p.Offset, p.Epoch = pos.Offset, pos.Epoch
		// A timestamp past year 9999 (a bad clock or a damaged batch)
		// has no RFC 3339 form and would make the image unprintable; the
		// last representable one stays.
		if pos.Timestamp > 0 && pos.Timestamp <= maxRFC3339Millis {
			p.Timestamp = time.UnixMilli(pos.Timestamp).UTC()
		}
	}
}

func (r *Replayer) apply(pos Position, rec records.Metadata) {
	if r.Before != nil {
		r.Before(r, pos, rec)
	}
	r.mark(pos)
	if r.applyRecord(rec) {
		r.Applied++
		if r.Observe != nil {
			r.Observe(r.img, pos, rec)
		}
	} else {
		r.refuse(pos, rec)
	}
}

// refuse counts a record applyRecord refused. The image is as it was
// before the record, so what refused it can still be told, for the first.
func (r *Replayer) refuse(pos Position, rec records.Metadata) {
	r.Skipped++
	r.Refused++
	if r.Refused == 1 {
		r.FirstRefused, r.FirstRefusedWhy = pos, r.refusal(rec)
	}
}

// refusal says why applyRecord refuses rec, in the image as it is.
func (r *Replayer) refusal(rec records.Metadata) string {
	name := strings.TrimPrefix(fmt.Sprintf("%T", rec), "*records.")
	switch m := rec.(type) {
	case *records.PartitionRecord:
		if r.byID[m.TopicId] == nil {
			return fmt.Sprintf("a %s for partition %d of topic id %s, which no TopicRecord created", name, m.PartitionId, m.TopicId)
		}
		return fmt.Sprintf("a %s for partition %d of topic id %s whose directories do not match its replicas, or whose leader recovery state is unknown", name, m.PartitionId, m.TopicId)
	case *records.PartitionChangeRecord:
		t := r.byID[m.TopicId]
		switch {
		case t == nil:
			return fmt.Sprintf("a %s for partition %d of topic id %s, which no TopicRecord created", name, m.PartitionId, m.TopicId)
		case t.Partitions[m.PartitionId] == nil:
			return fmt.Sprintf("a %s for partition %d of topic %s, which has no such partition", name, m.PartitionId, t.Name)
		}
		return fmt.Sprintf("a %s for partition %d of topic %s whose directories do not match its replicas, or whose leader recovery state is unknown", name, m.PartitionId, t.Name)
	case *records.RemoveTopicRecord:
		return fmt.Sprintf("a %s for topic id %s, which is not there", name, m.TopicId)
	case *records.ClearElrRecord:
		return fmt.Sprintf("a %s for topic %s, which is not there", name, m.TopicName)
	case *records.FenceBrokerRecord:
		return fmt.Sprintf("a %s for broker %d at epoch %d, which is not registered at that epoch", name, m.Id, m.Epoch)
	case *records.UnfenceBrokerRecord:
		return fmt.Sprintf("a %s for broker %d at epoch %d, which is not registered at that epoch", name, m.Id, m.Epoch)
	case *records.BrokerRegistrationChangeRecord:
		return fmt.Sprintf("a %s for broker %d at epoch %d, which is not registered at that epoch, or with fenced or inControlledShutdown values Kafka does not know", name, m.BrokerId, m.BrokerEpoch)
	case *records.FeatureLevelRecord:
		return fmt.Sprintf("a %s setting %s to %d, a level Kafka refuses", name, m.Name, m.FeatureLevel)
	}
	return fmt.Sprintf("a %s, which replay does not apply", name)
}

// applyRecord applies one record and reports whether it took effect. It
// refuses (returns false, changing nothing) the records Kafka's
// MetadataDelta throws on, which a broker's loader reports as a fault and
// skips: a fence, unfence or registration change for an unknown broker or
// with a stale broker epoch, partition records for unknown topics or
// partitions or with directories that do not match the replicas, a
// ClearElrRecord for an unknown topic, a metadata.version of 0. Unknown
// record types are refused too. Each family of records has its method;
// PartitionRecord, the hot path, stays in the switch.
func (r *Replayer) applyRecord(rec records.Metadata) bool {
	switch m := rec.(type) {
	case *records.PartitionRecord:
		// Most records of a real log: applied here, with no second
		// dispatch.
		t := r.topic(m.TopicId)
		if t == nil {
			return false // before building anything
		}
		return addPartition(t, m, r.arena.partition(m))
	case *records.TopicRecord, *records.RemoveTopicRecord, *records.PartitionChangeRecord, *records.ClearElrRecord:
		return r.applyTopics(rec)
	case *records.ConfigRecord:
		r.applyConfig(m)
	case *records.ClientQuotaRecord:
		r.applyQuota(m)
	case *records.AccessControlEntryRecord, *records.RemoveAccessControlEntryRecord,
		*records.UserScramCredentialRecord, *records.RemoveUserScramCredentialRecord,
		*records.DelegationTokenRecord, *records.RemoveDelegationTokenRecord:
		r.applySecurity(rec)
	case *records.FeatureLevelRecord:
		return r.applyFeature(m)
	case *records.RegisterBrokerRecord, *records.UnregisterBrokerRecord, *records.FenceBrokerRecord,
		*records.UnfenceBrokerRecord, *records.BrokerRegistrationChangeRecord,
		*records.RegisterControllerRecord, *records.UnregisterControllerRecord:
		return r.applyNodes(rec)
	case *records.ProducerIdsRecord:
		r.img.ProducerIDs = &model.ProducerIDs{NextProducerID: m.NextProducerId, BrokerID: m.BrokerId, BrokerEpoch: m.BrokerEpoch}
	case *records.ZkMigrationStateRecord:
		img := r.img
		if img.Migration == nil {
			img.Migration = &model.Migration{}
		}
		img.Migration.HasState = true
		img.Migration.State = model.ZkMigrationState(m.ZkMigrationState)
	case *records.NoOpRecord:
	default:
		return false
	}
	return true
}

// applyTopics is applyRecord for topic and partition records other than
// PartitionRecord.
func (r *Replayer) applyTopics(rec records.Metadata) bool {
	img := r.img
	switch m := rec.(type) {
	case *records.TopicRecord:
		t := &model.Topic{Name: m.Name, ID: m.TopicId, Partitions: map[int32]*model.Partition{}}
		if old := img.Topics[m.Name]; old != nil {
			delete(r.byID, old.ID)
		}
		img.Topics[m.Name] = t
		r.byID[m.TopicId], r.lastTopic = t, nil
	case *records.RemoveTopicRecord:
		t := r.byID[m.TopicId]
		if t == nil {
			return false
		}
		delete(r.byID, m.TopicId)
		r.lastTopic = nil
		delete(img.Topics, t.Name)
		delete(img.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: t.Name})
	case *records.PartitionChangeRecord:
		t := r.topic(m.TopicId)
		if t == nil {
			return false
		}
		p := t.Partitions[m.PartitionId]
		if p == nil {
			return false
		}
		return applyPartitionChange(p, m)
	case *records.ClearElrRecord:
		// Kafka clears ELR and last known ELR with a partition change, so
		// a partition that had either gets a new partition epoch; others
		// are untouched.
		if m.TopicName != "" && img.Topics[m.TopicName] == nil {
			return false
		}
		for _, t := range img.Topics {
			if m.TopicName != "" && t.Name != m.TopicName {
				continue
			}
			for _, p := range t.Partitions {
				if len(p.ELR) > 0 || len(p.LastKnownELR) > 0 {
					p.ELR, p.LastKnownELR = []int32{}, []int32{}
					p.PartitionEpoch++
				}
			}
		}
	default:
		return false // not one of applyRecord's topic records
	}
	return true
}

// applyConfig sets or (value null) removes one config; a resource left
// without configs goes.
func (r *Replayer) applyConfig(m *records.ConfigRecord) {
	img := r.img
	res := model.ConfigResource{Type: model.ConfigResourceType(m.ResourceType), Name: m.ResourceName}
	kv := img.Configs[res]
	if m.Value == nil {
		if kv != nil {
			delete(kv, m.Name)
			if len(kv) == 0 {
				delete(img.Configs, res)
			}
		}
		return
	}
	if kv == nil {
		kv = map[string]string{}
		img.Configs[res] = kv
	}
	kv[m.Name] = *m.Value
}

// applyQuota sets or removes one quota of an entity (its parts in
// canonical order); an entity left without quotas goes.
func (r *Replayer) applyQuota(m *records.ClientQuotaRecord) {
	img := r.img
	parts := make([]model.QuotaEntityPart, len(m.Entity))
	for i, e := range m.Entity {
		parts[i] = model.QuotaEntityPart{Type: e.EntityType, Name: e.EntityName}
	}
	parts = model.CanonicalQuotaEntity(parts)
	key := model.QuotaEntityKey(parts)
	q := img.ClientQuotas[key]
	if m.Remove {
		if q != nil {
			delete(q.Values, m.Key)
			if len(q.Values) == 0 {
				delete(img.ClientQuotas, key)
			}
		}
		return
	}
	if q == nil {
		q = &model.ClientQuota{Entity: parts, Values: map[string]float64{}}
		img.ClientQuotas[key] = q
	}
	q.Values[m.Key] = m.Value
}

// applySecurity is applyRecord for ACLs, SCRAM credentials and delegation
// tokens: each record sets or removes one entry, and none is refused.
func (r *Replayer) applySecurity(rec records.Metadata) {
	img := r.img
	switch m := rec.(type) {
	case *records.AccessControlEntryRecord:
		img.ACLs[m.Id] = &model.ACL{
			ID: m.Id, ResourceType: m.ResourceType, ResourceName: m.ResourceName, PatternType: m.PatternType,
			Principal: m.Principal, Host: m.Host, Operation: m.Operation, PermissionType: m.PermissionType,
		}
	case *records.RemoveAccessControlEntryRecord:
		delete(img.ACLs, m.Id)
	case *records.UserScramCredentialRecord:
		img.SCRAM[model.ScramKey{User: m.Name, Mechanism: m.Mechanism}] = &model.ScramCredential{
			User: m.Name, Mechanism: m.Mechanism, Salt: m.Salt, StoredKey: m.StoredKey, ServerKey: m.ServerKey, Iterations: m.Iterations,
		}
	case *records.RemoveUserScramCredentialRecord:
		delete(img.SCRAM, model.ScramKey{User: m.Name, Mechanism: m.Mechanism})
	case *records.DelegationTokenRecord:
		img.DelegationTokens[m.TokenId] = &model.DelegationToken{
			TokenID: m.TokenId, Owner: m.Owner, Requester: m.Requester, Renewers: m.Renewers,
			IssueTimestamp: m.IssueTimestamp, MaxTimestamp: m.MaxTimestamp, ExpirationTimestamp: m.ExpirationTimestamp,
		}
	case *records.RemoveDelegationTokenRecord:
		delete(img.DelegationTokens, m.TokenId)
	}
}

// applyFeature sets a feature level (0 removes the feature).
func (r *Replayer) applyFeature(m *records.FeatureLevelRecord) bool {
	switch {
	case m.Name == "kraft.version":
		// Kafka 4.x's FeaturesDelta ignores it: kraft.version lives in
		// the raft control records (Quorum.KRaftVersion).
	case m.Name == "metadata.version" && m.FeatureLevel < 1:
		// No such metadata.version; Kafka refuses the record.
		return false
	case m.FeatureLevel == 0:
		delete(r.img.Features, m.Name)
	default:
		r.img.Features[m.Name] = m.FeatureLevel
	}
	return true
}

// applyNodes is applyRecord for broker and controller registrations.
func (r *Replayer) applyNodes(rec records.Metadata) bool {
	img := r.img
	switch m := rec.(type) {
	case *records.RegisterBrokerRecord:
		b := &model.Broker{
			ID: m.BrokerId, Epoch: m.BrokerEpoch, IncarnationID: m.IncarnationId,
			Rack: m.Rack, Fenced: m.Fenced, InControlledShutdown: m.InControlledShutdown,
			IsMigratingZkBroker: m.IsMigratingZkBroker, LogDirs: slices.Clone(m.LogDirs), CordonedLogDirs: slices.Clone(m.CordonedLogDirs),
		}
		for _, e := range m.EndPoints {
			b.Endpoints = append(b.Endpoints, model.Endpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
		}
		for _, f := range m.Features {
			b.Features = append(b.Features, model.FeatureRange{Name: f.Name, Min: f.MinSupportedVersion, Max: f.MaxSupportedVersion})
		}
		img.Brokers[m.BrokerId] = b
	case *records.UnregisterBrokerRecord:
		delete(img.Brokers, m.BrokerId)
	case *records.FenceBrokerRecord:
		b := img.Brokers[m.Id]
		if b == nil || b.Epoch != m.Epoch {
			return false
		}
		b.Fenced = true
	case *records.UnfenceBrokerRecord:
		b := img.Brokers[m.Id]
		if b == nil || b.Epoch != m.Epoch {
			return false
		}
		b.Fenced = false
	case *records.BrokerRegistrationChangeRecord:
		return applyRegistrationChange(img.Brokers[m.BrokerId], m)
	case *records.RegisterControllerRecord:
		c := &model.Controller{ID: m.ControllerId, IncarnationID: m.IncarnationId, ZkMigrationReady: m.ZkMigrationReady}
		for _, e := range m.EndPoints {
			c.Endpoints = append(c.Endpoints, model.Endpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
		}
		for _, f := range m.Features {
			c.Features = append(c.Features, model.FeatureRange{Name: f.Name, Min: f.MinSupportedVersion, Max: f.MaxSupportedVersion})
		}
		img.Controllers[m.ControllerId] = c
	case *records.UnregisterControllerRecord:
		delete(img.Controllers, m.ControllerId)
	default:
		return false // not one of applyRecord's node records
	}
	return true
}

// applyRegistrationChange changes broker b (nil when unknown) as m says.
// fenced is -1 unfence, 0 no change, 1 fence; inControlledShutdown 0 no
// change, 1 in controlled shutdown. Kafka refuses the whole record for any
// other value, and for an unknown broker or a stale broker epoch.
func applyRegistrationChange(b *model.Broker, m *records.BrokerRegistrationChangeRecord) bool {
	if b == nil || b.Epoch != m.BrokerEpoch || m.Fenced < -1 || m.Fenced > 1 ||
		m.InControlledShutdown < 0 || m.InControlledShutdown > 1 {
		return false
	}
	switch m.Fenced {
	case -1:
		b.Fenced = false
	case 1:
		b.Fenced = true
	}
	if m.InControlledShutdown == 1 {
		b.InControlledShutdown = true
	}
	if len(m.LogDirs) > 0 {
		b.LogDirs = slices.Clone(m.LogDirs)
	}
	if m.CordonedLogDirs != nil {
		b.CordonedLogDirs = slices.Clone(m.CordonedLogDirs)
	}
	return true
}

// applyPartitionChange merges a PartitionChangeRecord as Kafka's
// PartitionRegistration.merge does: absent fields keep their value, any
// change bumps the partition epoch, and a leader field (even an unchanged
// leader, which is how the controller forces it) bumps the leader epoch.
// Like Kafka it refuses, changing nothing, a record whose directories do
// not match the replicas or whose leader recovery state is unknown.
func applyPartitionChange(p *model.Partition, m *records.PartitionChangeRecord) bool {
	replicas := p.Replicas
	if m.Replicas != nil {
		replicas = slices.Clone(m.Replicas)
	}
	if m.Replicas != nil && len(m.Directories) > 0 && len(m.Directories) != len(m.Replicas) {
		return false
	}
	dirs := p.Directories
	if m.Directories != nil {
		dirs = slices.Clone(m.Directories)
	}
	dirs = defaultToMigrating(dirs, len(replicas))
	if len(dirs) != len(replicas) || (m.LeaderRecoveryState != -1 && !validRecoveryState(m.LeaderRecoveryState)) {
		return false
	}
	p.Replicas, p.Directories = replicas, dirs
	if m.Isr != nil {
		p.ISR = slices.Clone(m.Isr)
	}
	if m.RemovingReplicas != nil {
		p.RemovingReplicas = slices.Clone(m.RemovingReplicas)
	}
	if m.AddingReplicas != nil {
		p.AddingReplicas = slices.Clone(m.AddingReplicas)
	}
	if m.EligibleLeaderReplicas != nil {
		p.ELR = slices.Clone(m.EligibleLeaderReplicas)
	}
	if m.LastKnownElr != nil {
		p.LastKnownELR = slices.Clone(m.LastKnownElr)
	}
	if m.Leader != -2 {
		p.Leader = m.Leader
		p.LeaderEpoch++
	}
	if m.LeaderRecoveryState != -1 {
		p.LeaderRecoveryState = m.LeaderRecoveryState
	}
	p.PartitionEpoch++
	return true
}

// defaultToMigrating mirrors Kafka's PartitionRegistration: directories that
// are absent or all "migrating" (records older than 3.7-IV2, or a replica
// change written without them) read as "migrating" for every replica; any
// other list is kept as it is.
func defaultToMigrating(dirs []model.UUID, n int) []model.UUID {
	if !allMigrating(dirs) {
		return dirs
	}
	if len(dirs) == n {
		return dirs
	}
	return make([]model.UUID, n)
}

// allMigrating reports whether every directory is DirMigrating (true for
// none at all).
func allMigrating(dirs []model.UUID) bool {
	for _, d := range dirs {
		if d != model.DirMigrating {
			return false
		}
	}
	return true
}

// topic is byID[id]. It remembers the topic it found last: a snapshot
// lists a topic's partitions together, and so does a topic creation.
func (r *Replayer) topic(id model.UUID) *model.Topic {
	if t := r.lastTopic; t != nil && t.ID == id {
		return t
	}
	t := r.byID[id]
	if t != nil {
		r.lastTopic = t
	}
	return t
}

// addPartition registers p, what m registers (built by
// partitionArena.partition, nil when m is invalid), in t, m's topic (nil
// when unknown).
func addPartition(t *model.Topic, m *records.PartitionRecord, p *model.Partition) bool {
	if t == nil || p == nil {
		return false
	}
	t.Partitions[m.PartitionId] = p
	return true
}

// applyPartition is Apply for a PartitionRecord whose partition p was
// built ahead, from m, by partitionArena.partition (which is a pure
// function of the record, so it can run on another goroutine, with its
// own arena). Outside a transaction only.
func (r *Replayer) applyPartition(pos Position, m *records.PartitionRecord, p *model.Partition) {
	if r.Before != nil {
		r.Before(r, pos, m)
	}
	r.mark(pos)
	if addPartition(r.topic(m.TopicId), m, p) {
		r.Applied++
		if r.Observe != nil {
			r.Observe(r.img, pos, m)
		}
	} else {
		r.refuse(pos, m)
	}
}

// validRecoveryState reports a LeaderRecoveryState Kafka knows: 0
// recovered, 1 recovering.
func validRecoveryState(s int8) bool { return s == 0 || s == 1 }

// partitionArena holds the partitions PartitionRecords create, and their
// replica, ISR, ELR and directory lists, in blocks shared by many
// partitions: a snapshot of a million partitions becomes a few thousand
// heap objects instead of millions, which is most of what replay and the
// garbage collector spend on it, and 12-byte lists are not rounded up to a
// 16-byte size class. Each list is capped at its length, so appending to
// one never reaches its neighbour, and nothing writes into a partition's
// lists in place (replay replaces them). A block is freed once nothing
// refers into it. PartitionChangeRecords keep the lists they decoded:
// carving those too would let a long log of changes pin blocks that are
// mostly dead, where now they die with the lists they replace. (They
// keep copies: a records.Decoder reuses a value's lists for the next
// record of its type.)
type partitionArena struct {
	parts block[model.Partition]
	ints  block[int32]
	dirs  block[model.UUID]
	// The lists the last partitions registered: a topic's partitions
	// mostly repeat a few replica lists (brokers in turn) and directory
	// lists (one log dir per broker), which are shared rather than copied
	// (nothing writes into an image's lists in place).
	recentInts recent[int32]
	recentDirs recent[model.UUID]
	zeroDirs   []model.UUID
}

// recent holds the last few lists handed out, to hand out again.
type recent[T comparable] struct {
	lists [4][]T
	next  int
}

// find returns a list equal to s among the recent ones.
func (r *recent[T]) find(s []T) ([]T, bool) {
	for _, l := range r.lists {
		if len(l) == len(s) && len(l) > 0 && slices.Equal(l, s) {
			return l, true
		}
	}
	return nil, false
}

func (r *recent[T]) add(s []T) {
	r.lists[r.next] = s
	r.next = (r.next + 1) % len(r.lists)
}

// shared is copyOf, handing out a recent list equal to src when there is
// one.
func shared[T comparable](b *block[T], r *recent[T], src []T) []T {
	if l, ok := r.find(src); ok {
		return l
	}
	l := b.copyOf(src)
	if len(l) > 0 {
		r.add(l)
	}
	return l
}

func newPartitionArena() partitionArena {
	// 256 partitions (48 KiB), 2048 ids and 512 directories (8 KiB each)
	// per block: a few hundred partitions' worth.
	return partitionArena{parts: block[model.Partition]{size: 256}, ints: block[int32]{size: 2048}, dirs: block[model.UUID]{size: 512}}
}

// partition returns the partition m registers, carved from a, or nil
// when Kafka refuses m: directories that do not match the replicas, an
// unknown leader recovery state. Kafka's PartitionRegistration checks the
// length of any non-empty list before it defaults an all-"migrating" one,
// so a list of "migrating" of the wrong length is refused too.
func (a *partitionArena) partition(m *records.PartitionRecord) *model.Partition {
	if (len(m.Directories) > 0 && len(m.Directories) != len(m.Replicas)) || !validRecoveryState(m.LeaderRecoveryState) {
		return nil
	}
	p := &a.parts.take(1)[0]
	*p = model.Partition{
		ID: m.PartitionId, Replicas: shared(&a.ints, &a.recentInts, m.Replicas), ISR: shared(&a.ints, &a.recentInts, m.Isr),
		RemovingReplicas: a.ints.copyOf(m.RemovingReplicas), AddingReplicas: a.ints.copyOf(m.AddingReplicas),
		Leader: m.Leader, LeaderRecoveryState: m.LeaderRecoveryState,
		LeaderEpoch: m.LeaderEpoch, PartitionEpoch: m.PartitionEpoch,
		ELR: a.ints.copyOf(m.EligibleLeaderReplicas), LastKnownELR: a.ints.copyOf(m.LastKnownElr),
	}
	if len(m.Directories) == 0 {
		// defaultToMigrating's "migrating" for every replica: zeros,
		// shared as any list.
		if len(a.zeroDirs) < len(m.Replicas) {
			a.zeroDirs = make([]model.UUID, max(len(m.Replicas), 16))
		}
		p.Directories = a.zeroDirs[:len(m.Replicas):len(m.Replicas)]
	} else {
		p.Directories = shared(&a.dirs, &a.recentDirs, m.Directories)
	}
	return p
}

// block hands out slices of a shared backing array.
type block[T any] struct {
	free []T // the current array; len is what was handed out
	size int // elements per array
}

// take returns n zero elements, capped at n.
func (b *block[T]) take(n int) []T {
	if n > cap(b.free)-len(b.free) {
		b.free = make([]T, 0, max(n, b.size))
	}
	l := len(b.free)
	b.free = b.free[:l+n]
	return b.free[l : l+n : l+n]
}

// copyOf returns a copy of src carved from the block. nil stays nil and
// empty stays empty (and non-nil): Kafka tells "not tracked" from
// "tracked and empty" for the ELRs.
func (b *block[T]) copyOf(src []T) []T {
	switch {
	case src == nil:
		return nil
	case len(src) == 0:
		return []T{}
	}
	dst := b.take(len(src))
	copy(dst, src)
	return dst
}
