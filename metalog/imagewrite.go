package metalog

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// RecordVersions says at which version a metadata record type is written
// at the target metadata.version, and false when it cannot be written
// there (features.Catalog.RecordVersion bound to one level: metalog knows
// record layouts, features knows levels).
type RecordVersions func(apiKey int16) (version int16, ok bool)

// ImageRecordOptions choose what ImageRecords writes.
type ImageRecordOptions struct {
	// Versions is required: it decides the partition record's shape
	// (directories from v1, ELR from v2) and, in WriteImageSnapshot, every
	// record's version.
	Versions RecordVersions
	// Snapshot writes what Kafka's MetadataImage.write writes and a ZK
	// migration does not: the image's feature levels (metadata.version
	// first), the ZkMigrationStateRecord where Versions allows it (3.x,
	// MV >= 3.4-IV0), broker and controller registrations, the partitions'
	// ELR, and the producer-id record with broker id -1 (as
	// ProducerIdsImage.write). Without it the records are those of a ZK
	// migration: no features (the caller writes its own first), no
	// registrations, the producer-id block's broker.
	Snapshot bool
	// ImpliedLevel: the image sets no metadata.version and stands at the
	// level Kafka reads such a log at, 3.0-IV1 (a log written before 3.3,
	// whose level no record can say: FeatureLevelRecord carries
	// metadata.version from 3.3-IV0): a snapshot of it writes no level,
	// as the log held none. Without it, an image without a level is
	// refused.
	ImpliedLevel bool
	// The hooks below let a planner leave out or replace what it must;
	// nil hooks keep everything.
	//
	// SkipTopic leaves a topic out, with its partitions and its configs.
	SkipTopic func(name string) bool
	// TopicID gives the id of a topic whose image id is zero.
	TopicID func(name string) model.UUID
	// Config returns the value to write for one config entry, or false to
	// leave it out; an error stops the walk.
	Config func(r model.ConfigResource, key, value string) (string, bool, error)
	// SCRAM says whether to write a credential; an error stops the walk.
	SCRAM func(k model.ScramKey, s *model.ScramCredential) (bool, error)
	// NoTokens leaves delegation tokens out.
	NoTokens bool
	// Progress is told the partitions walked so far, of how many.
	Progress func(done, total int64)
}

// ErrCannotWrite: the image holds something its metadata.version cannot
// express (ImageWriterOptions.handleLoss in Kafka, which throws too).
var ErrCannotWrite = errors.New("cannot be written at this metadata.version")

// ImageRecords walks img and hands add every record that describes it, in
// the order of Kafka's MetadataImage.write (features, cluster, topics with
// their partitions, configs, client quotas, producer ids, ACLs, SCRAM,
// delegation tokens). Where Kafka iterates a hash map the order is kmeta's
// sorted one: names, ids, resources and keys ascending; a reader of the
// snapshot applies records of one section in any order to the same image.
// add must not keep a record (or its lists) past its return: the
// partition records are one value, refilled.
func ImageRecords(img *model.Image, o ImageRecordOptions, add func(records.Metadata) error) error {
	if o.Versions == nil {
		return errors.New("metalog: ImageRecords needs Versions")
	}
	if o.Snapshot {
		if err := featureRecords(img, o, add); err != nil {
			return err
		}
		if err := clusterRecords(img, o, add); err != nil {
			return err
		}
	}
	nParts := 0
	for _, t := range img.Topics {
		nParts += len(t.Partitions)
	}
	partitionVersion, _ := o.Versions((&records.PartitionRecord{}).APIKey())
	var done int64
	// One record value for every partition: add encodes it or looks at it
	// and lets go (a million partitions were a million records to collect).
	var pr records.PartitionRecord
	var zeroDirs []model.UUID
	for _, name := range slices.Sorted(maps.Keys(img.Topics)) {
		if o.SkipTopic != nil && o.SkipTopic(name) {
			continue
		}
		t := img.Topics[name]
		id := t.ID
		if id.IsZero() && o.TopicID != nil {
			id = o.TopicID(name)
		}
		if err := add(&records.TopicRecord{Name: name, TopicId: id}); err != nil {
			return err
		}
		for _, pid := range slices.Sorted(maps.Keys(t.Partitions)) {
			partitionRecord(&pr, &zeroDirs, t.Partitions[pid], pid, id, partitionVersion, o.Snapshot)
			if err := add(&pr); err != nil {
				return err
			}
			if done++; o.Progress != nil && (done%4096 == 0 || done == int64(nParts)) {
				o.Progress(done, int64(nParts))
			}
		}
	}

	res := slices.SortedFunc(maps.Keys(img.Configs), func(a, b model.ConfigResource) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
	})
	for _, r := range res {
		if r.Type == model.ConfigTopic && o.SkipTopic != nil && o.SkipTopic(r.Name) {
			continue
		}
		kv := img.Configs[r]
		for _, k := range slices.Sorted(maps.Keys(kv)) {
			v := kv[k]
			if o.Config != nil {
				nv, keep, err := o.Config(r, k, v)
				if err != nil {
					return err
				}
				if !keep {
					continue
				}
				v = nv
			}
			if err := add(&records.ConfigRecord{ResourceType: int8(r.Type), ResourceName: r.Name, Name: k, Value: &v}); err != nil {
				return err
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
				return err
			}
		}
	}

	if p := img.ProducerIDs; p != nil && p.NextProducerID >= 0 {
		broker := p.BrokerID
		if o.Snapshot {
			broker = -1
		}
		if err := add(&records.ProducerIdsRecord{BrokerId: broker, BrokerEpoch: -1, NextProducerId: p.NextProducerID}); err != nil {
			return err
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
			return err
		}
	}

	keys := slices.SortedFunc(maps.Keys(img.SCRAM), func(a, b model.ScramKey) int {
		return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.Mechanism, b.Mechanism))
	})
	for _, k := range keys {
		s := img.SCRAM[k]
		if o.SCRAM != nil {
			keep, err := o.SCRAM(k, s)
			if err != nil {
				return err
			}
			if !keep {
				continue
			}
		} else if s.Withheld() {
			return fmt.Errorf("%w: SCRAM credential %s of user %s has no salt and keys", ErrBadRecord, model.ScramMechanismName(k.Mechanism), k.User)
		}
		if err := add(&records.UserScramCredentialRecord{Name: s.User, Mechanism: s.Mechanism, Salt: s.Salt,
			StoredKey: s.StoredKey, ServerKey: s.ServerKey, Iterations: s.Iterations}); err != nil {
			return err
		}
	}

	if !o.NoTokens {
		for _, id := range slices.Sorted(maps.Keys(img.DelegationTokens)) {
			d := img.DelegationTokens[id]
			if err := add(&records.DelegationTokenRecord{Owner: d.Owner, Requester: d.Requester, Renewers: orEmptyStrings(d.Renewers),
				IssueTimestamp: d.IssueTimestamp, MaxTimestamp: d.MaxTimestamp, ExpirationTimestamp: d.ExpirationTimestamp, TokenId: d.TokenID}); err != nil {
				return err
			}
		}
	}
	return nil
}

// featureRecords writes metadata.version first (how every later record
// decodes depends on it), then the other finalized features by name, then
// the ZK migration state where the catalog writes one (3.x at MV >=
// 3.4-IV0: FeaturesImage.write writes it, NONE when never set).
func featureRecords(img *model.Image, o ImageRecordOptions, add func(records.Metadata) error) error {
	const mvName = "metadata.version"
	mv, ok := img.Features[mvName]
	switch {
	case !ok && !o.ImpliedLevel:
		return fmt.Errorf("%w: the image has no metadata.version", ErrCannotWrite)
	case ok:
		if err := add(&records.FeatureLevelRecord{Name: mvName, FeatureLevel: mv}); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(img.Features)) {
		if name == mvName {
			continue
		}
		if err := add(&records.FeatureLevelRecord{Name: name, FeatureLevel: img.Features[name]}); err != nil {
			return err
		}
	}
	if _, ok := o.Versions((&records.ZkMigrationStateRecord{}).APIKey()); ok {
		state := model.MigrationNone
		if m := img.Migration; m != nil && m.HasState {
			state = m.State
		}
		return add(&records.ZkMigrationStateRecord{ZkMigrationState: int8(state)})
	}
	return nil
}

// clusterRecords writes a RegisterBrokerRecord per broker, then a
// RegisterControllerRecord per controller where the level has them
// (ClusterImage.write).
func clusterRecords(img *model.Image, o ImageRecordOptions, add func(records.Metadata) error) error {
	for _, id := range slices.Sorted(maps.Keys(img.Brokers)) {
		b := img.Brokers[id]
		r := &records.RegisterBrokerRecord{BrokerId: b.ID, IsMigratingZkBroker: b.IsMigratingZkBroker, IncarnationId: b.IncarnationID,
			BrokerEpoch: b.Epoch, Rack: b.Rack, Fenced: b.Fenced, InControlledShutdown: b.InControlledShutdown,
			LogDirs: b.LogDirs, CordonedLogDirs: b.CordonedLogDirs,
			EndPoints: make([]records.RegisterBrokerRecordBrokerEndpoint, len(b.Endpoints)),
			Features:  make([]records.RegisterBrokerRecordBrokerFeature, len(b.Features))}
		for i, e := range b.Endpoints {
			r.EndPoints[i] = records.RegisterBrokerRecordBrokerEndpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol}
		}
		for i, f := range b.Features {
			r.Features[i] = records.RegisterBrokerRecordBrokerFeature{Name: f.Name, MinSupportedVersion: f.Min, MaxSupportedVersion: f.Max}
		}
		if err := add(r); err != nil {
			return err
		}
	}
	if len(img.Controllers) == 0 {
		return nil
	}
	if _, ok := o.Versions((&records.RegisterControllerRecord{}).APIKey()); !ok {
		return fmt.Errorf("%w: %d controller registrations", ErrCannotWrite, len(img.Controllers))
	}
	for _, id := range slices.Sorted(maps.Keys(img.Controllers)) {
		c := img.Controllers[id]
		r := &records.RegisterControllerRecord{ControllerId: c.ID, IncarnationId: c.IncarnationID, ZkMigrationReady: c.ZkMigrationReady,
			EndPoints: make([]records.RegisterControllerRecordControllerEndpoint, len(c.Endpoints)),
			Features:  make([]records.RegisterControllerRecordControllerFeature, len(c.Features))}
		for i, e := range c.Endpoints {
			r.EndPoints[i] = records.RegisterControllerRecordControllerEndpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol}
		}
		for i, f := range c.Features {
			r.Features[i] = records.RegisterControllerRecordControllerFeature{Name: f.Name, MinSupportedVersion: f.Min, MaxSupportedVersion: f.Max}
		}
		if err := add(r); err != nil {
			return err
		}
	}
	return nil
}

// partitionRecord sets pr to a partition's registration at version v;
// *zero is a scratch array of MIGRATING directories.
func partitionRecord(pr *records.PartitionRecord, zero *[]model.UUID, p *model.Partition, pid int32, id model.UUID, v int16, snapshot bool) {
	dirs := p.Directories
	if v < 1 {
		// Directories exist from v1 (3.7-IV2); below, KRaft reads every
		// replica as MIGRATING anyway.
		dirs = nil
	} else if len(dirs) != len(p.Replicas) {
		// ZooKeeper knows no directories, and Kafka reads a record
		// without them as MIGRATING for every replica: write that.
		if len(*zero) < len(p.Replicas) {
			*zero = make([]model.UUID, len(p.Replicas))
		}
		dirs = (*zero)[:len(p.Replicas):len(p.Replicas)]
	}
	*pr = records.PartitionRecord{
		PartitionId: pid, TopicId: id,
		Replicas: orEmptyInts(p.Replicas), Isr: orEmptyInts(p.ISR),
		RemovingReplicas: orEmptyInts(p.RemovingReplicas), AddingReplicas: orEmptyInts(p.AddingReplicas),
		Leader: p.Leader, LeaderRecoveryState: p.LeaderRecoveryState,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
		Directories: dirs,
	}
	if snapshot && v >= 2 {
		pr.EligibleLeaderReplicas, pr.LastKnownElr = p.ELR, p.LastKnownELR
	}
}

func orEmptyInts(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

func orEmptyStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteImageSnapshot writes img as a raft snapshot (or, with Epoch 0 and
// no header records, a bootstrap file) at path: every record ImageRecords
// gives in snapshot mode, each at the version versions names, after the
// header batch SnapshotOptions describe. It returns the number of
// records written. A record type versions refuses is ErrCannotWrite: the
// image holds what its level cannot say, and Kafka would throw too.
func WriteImageSnapshot(path string, img *model.Image, versions RecordVersions, opts SnapshotOptions) (int64, error) {
	w, err := CreateSnapshot(path, opts)
	if err != nil {
		return 0, err
	}
	var n int64
	var buf []byte
	err = ImageRecords(img, ImageRecordOptions{Versions: versions, Snapshot: true, ImpliedLevel: opts.ImpliedLevel}, func(m records.Metadata) error {
		v, ok := versions(m.APIKey())
		if !ok {
			return fmt.Errorf("%w: %s", ErrCannotWrite, m.RecordName())
		}
		var err error
		if buf, err = records.EncodeMetadata(buf[:0], m, v); err != nil {
			return err
		}
		n++
		return w.Append(buf)
	})
	if err != nil {
		w.Abort()
		return 0, err
	}
	return n, w.Commit()
}
