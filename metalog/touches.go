package metalog

import (
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Touches appends to dst the entities rec changes when it is applied to
// the image as it now is: called from Before, it names what a judge reads
// before and after the record (history). It follows applyRecord's
// semantics:
//
//   - a PartitionRecord touches its partition and its topic (whose
//     partition count it changes), a PartitionChangeRecord its partition;
//   - a RemoveTopicRecord touches the topic and the topic's config
//     entity, which go with it; its partitions are not listed one by one
//     (the topic's change says how many there were);
//   - a ClearElrRecord touches every partition whose ELR it clears;
//   - an ACL record touches the ACL of its id;
//   - a SCRAM, token, feature, registration, producer-id or migration
//     record its entity, and a raft control record the quorum.
//
// A record naming an unknown topic touches nothing (replay refuses it).
func (r *Replayer) Touches(rec records.Message, dst []model.EntityRef) []model.EntityRef {
	switch m := rec.(type) {
	case *records.PartitionRecord:
		if t := r.byID[m.TopicId]; t != nil {
			dst = append(dst, model.EntityRef{Kind: model.EntityPartition, Name: t.Name, ID: m.PartitionId},
				model.EntityRef{Kind: model.EntityTopic, Name: t.Name})
		}
	case *records.PartitionChangeRecord:
		if t := r.topic(m.TopicId); t != nil {
			dst = append(dst, model.EntityRef{Kind: model.EntityPartition, Name: t.Name, ID: m.PartitionId})
		}
	case *records.TopicRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityTopic, Name: m.Name})
		if old := r.img.Topics[m.Name]; old != nil {
			// A TopicRecord over a topic of that name replaces it whole.
			dst = append(dst, model.EntityRef{Kind: model.EntityPartition, Name: m.Name, ID: model.AllIDs})
		}
	case *records.RemoveTopicRecord:
		if t := r.byID[m.TopicId]; t != nil {
			dst = append(dst, model.EntityRef{Kind: model.EntityTopic, Name: t.Name},
				model.EntityRef{Kind: model.EntityConfig, Config: model.ConfigResource{Type: model.ConfigTopic, Name: t.Name}})
		}
	case *records.ClearElrRecord:
		for _, t := range r.img.Topics {
			if m.TopicName != "" && t.Name != m.TopicName {
				continue
			}
			for _, p := range t.Partitions {
				if len(p.ELR) > 0 || len(p.LastKnownELR) > 0 {
					dst = append(dst, model.EntityRef{Kind: model.EntityPartition, Name: t.Name, ID: p.ID})
				}
			}
		}
	case *records.ConfigRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityConfig, Config: model.ConfigResource{Type: model.ConfigResourceType(m.ResourceType), Name: m.ResourceName}})
	case *records.ClientQuotaRecord:
		parts := make([]model.QuotaEntityPart, len(m.Entity))
		for i, e := range m.Entity {
			parts[i] = model.QuotaEntityPart{Type: e.EntityType, Name: e.EntityName}
		}
		dst = append(dst, model.EntityRef{Kind: model.EntityQuota, Name: model.QuotaEntityKey(parts)})
	case *records.AccessControlEntryRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityACL, ACL: m.Id})
	case *records.RemoveAccessControlEntryRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityACL, ACL: m.Id})
	case *records.UserScramCredentialRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntitySCRAM, Name: m.Name, ID: int32(m.Mechanism)})
	case *records.RemoveUserScramCredentialRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntitySCRAM, Name: m.Name, ID: int32(m.Mechanism)})
	case *records.DelegationTokenRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityToken, Name: m.TokenId})
	case *records.RemoveDelegationTokenRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityToken, Name: m.TokenId})
	case *records.FeatureLevelRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityFeature, Name: m.Name})
	case *records.RegisterBrokerRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityBroker, ID: m.BrokerId})
	case *records.UnregisterBrokerRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityBroker, ID: m.BrokerId})
	case *records.FenceBrokerRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityBroker, ID: m.Id})
	case *records.UnfenceBrokerRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityBroker, ID: m.Id})
	case *records.BrokerRegistrationChangeRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityBroker, ID: m.BrokerId})
	case *records.RegisterControllerRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityController, ID: m.ControllerId})
	case *records.UnregisterControllerRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityController, ID: m.ControllerId})
	case *records.ProducerIdsRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityProducerIDs})
	case *records.ZkMigrationStateRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityMigration})
	case *records.LeaderChangeMessage, *records.KRaftVersionRecord, *records.VotersRecord:
		dst = append(dst, model.EntityRef{Kind: model.EntityQuorum})
	}
	return dst
}
