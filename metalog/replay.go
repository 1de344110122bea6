package metalog

import (
	"errors"
	"fmt"
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
	Offset    int64
	Epoch     int32
	Timestamp int64 // batch base timestamp, ms
}

// Replayer applies metadata records to a model.Image with the semantics of
// Kafka's MetadataDelta: partition changes are deltas, topic removal drops
// partitions and topic configs, a zero feature level removes the feature,
// and records inside a metadata transaction (KIP-868) are applied only at
// its End; an aborted or unfinished transaction is never applied.
//
// Memory is proportional to the image (plus an open transaction), never to
// the number of records replayed.
type Replayer struct {
	img    *model.Image
	byID   map[model.UUID]*model.Topic
	txn    []pending // buffered records of an open transaction
	inTxn  bool
	txnPos Position
	last   Position
	// Applied and Skipped count records.
	Applied, Skipped int64
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
	r.byID = map[model.UUID]*model.Topic{}
	r.txn, r.inTxn = nil, false
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
		for _, p := range r.txn {
			r.apply(p.pos, p.rec)
		}
		r.txn, r.inTxn = r.txn[:0], false
		r.mark(pos)
		return nil
	case *records.AbortTransactionRecord:
		if !r.inTxn {
			return fmt.Errorf("%w: AbortTransaction at offset %d without a Begin", ErrTransaction, pos.Offset)
		}
		r.Skipped += int64(len(r.txn))
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
}

func (r *Replayer) mark(pos Position) {
	r.last = pos
	p := &r.img.Provenance
	if !r.inTxn {
		p.Offset, p.Epoch = pos.Offset, pos.Epoch
		if pos.Timestamp > 0 {
			p.Timestamp = time.UnixMilli(pos.Timestamp).UTC()
		}
	}
}

func (r *Replayer) apply(pos Position, rec records.Metadata) {
	r.Applied++
	r.mark(pos)
	img := r.img
	switch m := rec.(type) {
	case *records.RegisterBrokerRecord:
		b := &model.Broker{
			ID: m.BrokerId, Epoch: m.BrokerEpoch, IncarnationID: m.IncarnationId,
			Rack: m.Rack, Fenced: m.Fenced, InControlledShutdown: m.InControlledShutdown,
			IsMigratingZkBroker: m.IsMigratingZkBroker, LogDirs: m.LogDirs, CordonedLogDirs: m.CordonedLogDirs,
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
		if b := img.Brokers[m.Id]; b != nil {
			b.Fenced = true
		}
	case *records.UnfenceBrokerRecord:
		if b := img.Brokers[m.Id]; b != nil {
			b.Fenced = false
		}
	case *records.BrokerRegistrationChangeRecord:
		b := img.Brokers[m.BrokerId]
		if b == nil {
			return
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
			b.LogDirs = m.LogDirs
		}
		if m.CordonedLogDirs != nil {
			b.CordonedLogDirs = m.CordonedLogDirs
		}
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
	case *records.TopicRecord:
		t := &model.Topic{Name: m.Name, ID: m.TopicId, Partitions: map[int32]*model.Partition{}}
		if old := img.Topics[m.Name]; old != nil {
			delete(r.byID, old.ID)
		}
		img.Topics[m.Name] = t
		r.byID[m.TopicId] = t
	case *records.RemoveTopicRecord:
		if t := r.byID[m.TopicId]; t != nil {
			delete(r.byID, m.TopicId)
			delete(img.Topics, t.Name)
			delete(img.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: t.Name})
		}
	case *records.PartitionRecord:
		t := r.byID[m.TopicId]
		if t == nil {
			return
		}
		p := &model.Partition{
			ID: m.PartitionId, Replicas: m.Replicas, ISR: m.Isr,
			RemovingReplicas: m.RemovingReplicas, AddingReplicas: m.AddingReplicas,
			Leader: m.Leader, LeaderRecoveryState: m.LeaderRecoveryState,
			LeaderEpoch: m.LeaderEpoch, PartitionEpoch: m.PartitionEpoch,
			ELR: m.EligibleLeaderReplicas, LastKnownELR: m.LastKnownElr,
			Directories: m.Directories,
		}
		p.Directories = defaultToMigrating(p.Directories, len(p.Replicas))
		t.Partitions[m.PartitionId] = p
	case *records.PartitionChangeRecord:
		t := r.byID[m.TopicId]
		if t == nil {
			return
		}
		p := t.Partitions[m.PartitionId]
		if p == nil {
			return
		}
		applyPartitionChange(p, m)
	case *records.ClearElrRecord:
		for _, t := range img.Topics {
			if m.TopicName != "" && t.Name != m.TopicName {
				continue
			}
			for _, p := range t.Partitions {
				if p.ELR != nil {
					p.ELR = []int32{}
				}
				if p.LastKnownELR != nil {
					p.LastKnownELR = []int32{}
				}
			}
		}
	case *records.ConfigRecord:
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
	case *records.ClientQuotaRecord:
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
	case *records.ProducerIdsRecord:
		img.ProducerIDs = &model.ProducerIDs{NextProducerID: m.NextProducerId, BrokerID: m.BrokerId, BrokerEpoch: m.BrokerEpoch}
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
	case *records.FeatureLevelRecord:
		if m.FeatureLevel == 0 {
			delete(img.Features, m.Name)
		} else {
			img.Features[m.Name] = m.FeatureLevel
		}
	case *records.ZkMigrationStateRecord:
		if img.Migration == nil {
			img.Migration = &model.Migration{}
		}
		img.Migration.HasState = true
		img.Migration.State = model.ZkMigrationState(m.ZkMigrationState)
	case *records.NoOpRecord:
	default:
		r.Applied--
		r.Skipped++
	}
}

// applyPartitionChange merges a PartitionChangeRecord as Kafka's
// PartitionRegistration.merge does: absent fields keep their value, any
// change bumps the partition epoch, and a leader field (even an unchanged
// leader, which is how the controller forces it) bumps the leader epoch.
func applyPartitionChange(p *model.Partition, m *records.PartitionChangeRecord) {
	if m.Replicas != nil {
		p.Replicas = m.Replicas
	}
	if m.Directories != nil {
		p.Directories = m.Directories
	}
	p.Directories = defaultToMigrating(p.Directories, len(p.Replicas))
	if m.Isr != nil {
		p.ISR = m.Isr
	}
	if m.RemovingReplicas != nil {
		p.RemovingReplicas = m.RemovingReplicas
	}
	if m.AddingReplicas != nil {
		p.AddingReplicas = m.AddingReplicas
	}
	if m.EligibleLeaderReplicas != nil {
		p.ELR = m.EligibleLeaderReplicas
	}
	if m.LastKnownElr != nil {
		p.LastKnownELR = m.LastKnownElr
	}
	if m.Leader != -2 {
		p.Leader = m.Leader
		p.LeaderEpoch++
	}
	if m.LeaderRecoveryState != -1 {
		p.LeaderRecoveryState = m.LeaderRecoveryState
	}
	p.PartitionEpoch++
}

// defaultToMigrating mirrors Kafka's PartitionRegistration: directories that
// are absent (records older than 3.7-IV2, or a replica change written
// without them) read as "migrating" for every replica.
func defaultToMigrating(dirs []model.UUID, n int) []model.UUID {
	if len(dirs) == n {
		return dirs
	}
	return make([]model.UUID, n)
}
