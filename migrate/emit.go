package migrate

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Record is one metadata record to write: its type, the version the
// target metadata.version allows, and the framed value.
type Record struct {
	APIKey  int16
	Version int16
	Value   []byte
}

// emitOptions are the choices the plan made that change which records
// are written.
type emitOptions struct {
	level    features.Level
	catalog  *features.Catalog
	features []FeatureLevel
	// skipTopics are topics not written, nor their configs: topics
	// pending deletion (with the override) and names that only have a
	// config (checkConfigOnlyTopics).
	skipTopics map[string]bool
	// dropConfigs are "TYPE/name/key" config entries not written.
	dropConfigs map[string]bool
	// topicIDs replace zero topic ids (topics from before 2.8).
	topicIDs map[string]model.UUID
	// configValues replace config values (decrypted passwords), keyed as
	// dropConfigs.
	configValues map[string]string
	dropSCRAM    bool
	// skipSCRAM are credentials not written (withheld in the source; the
	// plan is blocked).
	skipSCRAM  map[model.ScramKey]bool
	dropTokens bool
	// progress is told the partitions encoded so far, of how many.
	progress func(done, total int64)
}

func configKey(r model.ConfigResource, key string) string {
	return fmt.Sprintf("%s/%s/%s", r.Type, r.Name, key)
}

// emit turns the image into records in the order Kafka's own image writer
// uses (MetadataImage.write): features, topics with their partitions,
// configs, client quotas, producer ids, ACLs, SCRAM, delegation tokens.
// Brokers and controllers are not written: nodes register themselves.
func emit(img *model.Image, o emitOptions) ([]Record, error) {
	mv := o.level.Level
	nParts := 0
	for _, t := range img.Topics {
		nParts += len(t.Partitions)
	}
	out := make([]Record, 0, len(o.features)+len(img.Topics)+nParts)
	// Records are encoded into a scratch buffer and copied into 1 MiB
	// chunks: two allocations per MiB instead of several per record (the
	// encoder grows its buffer field by field), which at a million
	// partitions is most of what planning allocates.
	var scratch, chunk []byte
	var done int64
	partitionVersion, _ := o.catalog.RecordVersion(mv, features.PartitionRecord)
	add := func(m records.Metadata) error {
		v, ok := o.catalog.RecordVersion(mv, m.APIKey())
		if !ok {
			return fmt.Errorf("%w: %s cannot be written at metadata.version %s", ErrCannotExpress, m.RecordName(), o.level.Name)
		}
		var err error
		if scratch, err = records.EncodeMetadata(scratch[:0], m, v); err != nil {
			return err
		}
		if len(scratch) > cap(chunk)-len(chunk) {
			chunk = make([]byte, 0, max(1<<20, len(scratch)))
		}
		start := len(chunk)
		chunk = append(chunk, scratch...)
		out = append(out, Record{APIKey: m.APIKey(), Version: v, Value: chunk[start:len(chunk):len(chunk)]})
		return nil
	}

	for _, f := range o.features {
		if err := add(&records.FeatureLevelRecord{Name: f.Name, FeatureLevel: f.Level}); err != nil {
			return nil, err
		}
	}

	for _, name := range slices.Sorted(maps.Keys(img.Topics)) {
		if o.skipTopics[name] {
			continue
		}
		t := img.Topics[name]
		id := t.ID
		if id.IsZero() {
			id = o.topicIDs[name]
		}
		if err := add(&records.TopicRecord{Name: name, TopicId: id}); err != nil {
			return nil, err
		}
		for _, pid := range slices.Sorted(maps.Keys(t.Partitions)) {
			p := t.Partitions[pid]
			dirs := p.Directories
			if partitionVersion < 1 {
				// Directories exist from v1 (3.7-IV2); below, KRaft reads
				// every replica as MIGRATING anyway.
				dirs = nil
			} else if len(dirs) != len(p.Replicas) {
				// ZooKeeper knows no directories: every replica is
				// MIGRATING until its broker reports where it lives.
				dirs = make([]model.UUID, len(p.Replicas))
			}
			pr := &records.PartitionRecord{
				PartitionId: pid, TopicId: id,
				Replicas: orEmpty(p.Replicas), Isr: orEmpty(p.ISR),
				RemovingReplicas: orEmpty(p.RemovingReplicas), AddingReplicas: orEmpty(p.AddingReplicas),
				Leader: p.Leader, LeaderRecoveryState: p.LeaderRecoveryState,
				LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
				Directories: dirs,
			}
			if err := add(pr); err != nil {
				return nil, err
			}
			if done++; o.progress != nil && (done%4096 == 0 || done == int64(nParts)) {
				o.progress(done, int64(nParts))
			}
		}
	}

	res := slices.SortedFunc(maps.Keys(img.Configs), func(a, b model.ConfigResource) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
	})
	for _, r := range res {
		if r.Type == model.ConfigTopic && o.skipTopics[r.Name] {
			continue
		}
		kv := img.Configs[r]
		for _, k := range slices.Sorted(maps.Keys(kv)) {
			ck := configKey(r, k)
			if o.dropConfigs[ck] {
				continue
			}
			v := kv[k]
			if nv, ok := o.configValues[ck]; ok {
				v = nv
			}
			if model.ConfigWithheld(r.Type, k, v) {
				return nil, fmt.Errorf("%w: config %s %s %s", ErrSecretWithheld, r.Type, displayName(r.Name), k)
			}
			if err := add(&records.ConfigRecord{ResourceType: int8(r.Type), ResourceName: r.Name, Name: k, Value: &v}); err != nil {
				return nil, err
			}
		}
	}

	for _, key := range slices.Sorted(maps.Keys(img.ClientQuotas)) {
		q := img.ClientQuotas[key]
		ent := make([]records.ClientQuotaRecordEntityData, len(q.Entity))
		for i, e := range q.Entity {
			ent[i] = records.ClientQuotaRecordEntityData{EntityType: e.Type, EntityName: e.Name}
		}
		for _, k := range slices.Sorted(maps.Keys(q.Values)) {
			if err := add(&records.ClientQuotaRecord{Entity: ent, Key: k, Value: q.Values[k]}); err != nil {
				return nil, err
			}
		}
	}

	if p := img.ProducerIDs; p != nil && p.NextProducerID >= 0 {
		if err := add(&records.ProducerIdsRecord{BrokerId: p.BrokerID, BrokerEpoch: -1, NextProducerId: p.NextProducerID}); err != nil {
			return nil, err
		}
	}

	acls := slices.Collect(maps.Values(img.ACLs))
	slices.SortFunc(acls, func(a, b *model.ACL) int {
		return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), cmp.Compare(a.ResourceName, b.ResourceName),
			cmp.Compare(a.PatternType, b.PatternType), cmp.Compare(a.Principal, b.Principal), cmp.Compare(a.Host, b.Host),
			cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.PermissionType, b.PermissionType))
	})
	for _, a := range acls {
		if err := add(&records.AccessControlEntryRecord{Id: a.ID, ResourceType: a.ResourceType, ResourceName: a.ResourceName,
			PatternType: a.PatternType, Principal: a.Principal, Host: a.Host, Operation: a.Operation, PermissionType: a.PermissionType}); err != nil {
			return nil, err
		}
	}

	if !o.dropSCRAM {
		keys := slices.SortedFunc(maps.Keys(img.SCRAM), func(a, b model.ScramKey) int {
			return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.Mechanism, b.Mechanism))
		})
		for _, k := range keys {
			if o.skipSCRAM[k] {
				continue
			}
			s := img.SCRAM[k]
			if s.Withheld() {
				return nil, fmt.Errorf("%w: SCRAM credential %s of user %s has no salt and keys", ErrSecretWithheld, model.ScramMechanismName(k.Mechanism), k.User)
			}
			if err := add(&records.UserScramCredentialRecord{Name: s.User, Mechanism: s.Mechanism, Salt: s.Salt,
				StoredKey: s.StoredKey, ServerKey: s.ServerKey, Iterations: s.Iterations}); err != nil {
				return nil, err
			}
		}
	}

	if !o.dropTokens {
		for _, id := range slices.Sorted(maps.Keys(img.DelegationTokens)) {
			d := img.DelegationTokens[id]
			if err := add(&records.DelegationTokenRecord{Owner: d.Owner, Requester: d.Requester, Renewers: orEmptyS(d.Renewers),
				IssueTimestamp: d.IssueTimestamp, MaxTimestamp: d.MaxTimestamp, ExpirationTimestamp: d.ExpirationTimestamp, TokenId: d.TokenID}); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

func orEmptyS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RecordSummary counts what a plan writes and fingerprints it, so that
// apply can prove it writes exactly what plan printed.
type RecordSummary struct {
	Total  int           `json:"total"`
	Bytes  int64         `json:"bytes"`
	ByType []RecordCount `json:"byType"`
	SHA256 string        `json:"sha256"`
	counts map[int16]*RecordCount
}

// RecordCount is the number of records of one type and the version they
// are written at.
type RecordCount struct {
	Name    string `json:"name"`
	APIKey  int16  `json:"apiKey"`
	Version int16  `json:"version"`
	Count   int    `json:"count"`
}

func summarize(recs []Record) RecordSummary {
	h := sha256.New()
	s := RecordSummary{Total: len(recs), counts: map[int16]*RecordCount{}}
	for _, r := range recs {
		s.Bytes += int64(len(r.Value))
		// Length-prefixed, so that the digest names one record list.
		h.Write(binary.AppendUvarint(nil, uint64(len(r.Value))))
		h.Write(r.Value)
		c := s.counts[r.APIKey]
		if c == nil {
			c = &RecordCount{Name: features.RecordName(r.APIKey), APIKey: r.APIKey, Version: r.Version}
			s.counts[r.APIKey] = c
		}
		c.Count++
	}
	for _, k := range slices.Sorted(maps.Keys(s.counts)) {
		s.ByType = append(s.ByType, *s.counts[k])
	}
	s.SHA256 = hex.EncodeToString(h.Sum(nil))
	return s
}
