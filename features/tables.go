package features

import (
	"strings"
	"sync"
)

// The tables below were read from Kafka's own classes and tools: 4.4.0 and
// 4.3.1 (MetadataVersion, Feature and the *Version enums, FeatureCommand
// version-mapping / feature-dependencies) and 3.9.2 (MetadataVersion,
// Features). See doc.go for what each column means.

type levelRow struct {
	level   int16
	name    string
	changed bool
	enables string
}

// sharedLevels are 3.0-IV1 … 3.9-IV0: identical in every release that knows
// them.
var sharedLevels = []levelRow{
	{1, "3.0-IV1", true, "first KRaft metadata.version; the level assumed when a 3.x log has no metadata.version record"},
	{2, "3.1-IV0", false, "topic IDs in Fetch requests"},
	{3, "3.2-IV0", true, "leader recovery state (KIP-704)"},
	{4, "3.3-IV0", false, "metadata.version as a finalized feature (KIP-778): FeatureLevelRecord; lowest level 3.x can bootstrap"},
	{5, "3.3-IV1", true, "NoOpRecord (KIP-835)"},
	{6, "3.3-IV2", true, "BrokerRegistrationChangeRecord replaces FenceBrokerRecord/UnfenceBrokerRecord"},
	{7, "3.3-IV3", true, "in-controlled-shutdown broker state (KIP-841), RegisterBrokerRecord v1; lowest level Kafka 4.x loads"},
	{8, "3.4-IV0", true, "ZooKeeper migration (KIP-866): ZkMigrationStateRecord, RegisterBrokerRecord v2 (IsMigratingZkBroker)"},
	{9, "3.5-IV0", false, "tiered storage (KIP-405): ListOffsets v8, Fetch v14"},
	{10, "3.5-IV1", false, "Fetch v15 (KIP-903)"},
	{11, "3.5-IV2", true, "SCRAM credentials in KRaft: UserScramCredentialRecord"},
	{12, "3.6-IV0", false, "no leader epoch bump on ISR shrink (KAFKA-15021)"},
	{13, "3.6-IV1", true, "metadata transactions (KIP-868): Begin/End/AbortTransactionRecord"},
	{14, "3.6-IV2", true, "delegation tokens in KRaft: DelegationTokenRecord"},
	{15, "3.7-IV0", true, "controller registration (KIP-919): RegisterControllerRecord"},
	{16, "3.7-IV1", false, "reserved"},
	{17, "3.7-IV2", true, "JBOD in KRaft (KIP-858): directory assignment, RegisterBrokerRecord v3, PartitionRecord/PartitionChangeRecord v1, BrokerRegistrationChangeRecord v2"},
	{18, "3.7-IV3", false, "reserved"},
	{19, "3.7-IV4", false, "Fetch v16 (KIP-951)"},
	{20, "3.8-IV0", false, "3.8 release marker"},
	{21, "3.9-IV0", false, "ListOffsets v9 (KIP-1005), Fetch v17; kraft.version 1 becomes the default"},
}

// levels4x are the 4.x meanings of 22 and up (as of 4.4.0).
var levels4x = []levelRow{
	{22, "4.0-IV0", false, "group.version 1 becomes the default (KIP-848 consumer protocol)"},
	{23, "4.0-IV1", true, "eligible leader replicas (KIP-966): PartitionRecord/PartitionChangeRecord v2, ClearElrRecord"},
	{24, "4.0-IV2", false, "transaction.version 2 becomes the default (KIP-890)"},
	{25, "4.0-IV3", false, "ListOffsets v10 (KIP-1075)"},
	{26, "4.1-IV0", false, "eligible.leader.replicas.version 1 becomes the default"},
	{27, "4.1-IV1", false, "Fetch v18 (KIP-1166)"},
	{28, "4.2-IV0", false, "share.version 1 becomes the default (KIP-932 share groups)"},
	{29, "4.2-IV1", false, "streams.version 1 becomes the default (KIP-1071), ListOffsets v11"},
	{30, "4.3-IV0", true, "cordoned log directories: RegisterBrokerRecord v4, BrokerRegistrationChangeRecord v3 (CordonedLogDirs)"},
	{31, "4.4-IV0", false, "share.version 2 becomes the default (share-group dead-letter queues)"},
	{32, "4.4-IV1", true, "CIDR ranges in ACL host fields"},
	{33, "4.4-IV2", true, "controller unregistration: UnregisterControllerRecord"},
	{34, "4.5-IV0", false, "unstable placeholder in 4.4.0"},
}

// levels39 are the 3.9.x meanings of 22 and 23, both unstable there.
var levels39 = []levelRow{
	{22, "4.0-IV0", true, "unstable in 3.9: eligible leader replicas (PartitionRecord/PartitionChangeRecord v2); transaction.version 1 and 2 bootstrap here"},
	{23, "4.0-IV1", false, "unstable in 3.9: no capability of its own"},
}

func makeLevels(rows []levelRow, latestProduction int16) []Level {
	out := make([]Level, 0, len(rows))
	for _, r := range rows {
		rel, _, _ := strings.Cut(r.name, "-")
		out = append(out, Level{
			Level:           r.level,
			Name:            r.name,
			Release:         rel,
			MetadataChanged: r.changed,
			Production:      r.level <= latestProduction,
			Enables:         r.enables,
		})
	}
	return out
}

func deps(kv ...any) []Dependency {
	out := []Dependency{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, Dependency{Feature: kv[i].(string), Level: int16(kv[i+1].(int))})
	}
	return out
}

func features4x() []*Feature {
	// Level 0 of every feature bootstraps at 3.3-IV3 in 4.x.
	return []*Feature{
		{Name: KRaftVersion, LatestProduction: 1, Levels: []FeatureLevel{
			{0, 7, deps(), "static quorum (controller.quorum.voters)"},
			{1, 21, deps(), "dynamic quorum (KIP-853): KRaftVersionRecord and VotersRecord control records"},
		}},
		{Name: TransactionVersion, LatestProduction: 2, InFeatureLevelRecord: true, Levels: []FeatureLevel{
			{0, 7, deps(), "classic transactions"},
			{1, 24, deps(), "flexible transaction log records"},
			{2, 24, deps(), "epoch bump per transaction (KIP-890 part 2)"},
		}},
		{Name: GroupVersion, LatestProduction: 1, InFeatureLevelRecord: true, Levels: []FeatureLevel{
			{0, 7, deps(), "classic group protocol only"},
			{1, 22, deps(), "consumer rebalance protocol (KIP-848)"},
		}},
		{Name: ELRVersion, LatestProduction: 1, InFeatureLevelRecord: true, Levels: []FeatureLevel{
			{0, 7, deps(), "no eligible leader replicas"},
			{1, 26, deps(MetadataVersionFeature, 23), "eligible leader replicas (KIP-966)"},
		}},
		{Name: ShareVersion, LatestProduction: 2, InFeatureLevelRecord: true, Levels: []FeatureLevel{
			{0, 7, deps(), "no share groups"},
			{1, 28, deps(), "share groups (KIP-932)"},
			{2, 31, deps(), "share-group dead-letter queues"},
		}},
		{Name: StreamsVersion, LatestProduction: 1, InFeatureLevelRecord: true, Levels: []FeatureLevel{
			{0, 7, deps(), "no streams groups"},
			{1, 29, deps(), "streams groups (KIP-1071)"},
		}},
	}
}

func features39() []*Feature {
	// 3.9 registers only kraft.version and transaction.version as
	// production features; level 0 bootstraps at 3.0-IV1.
	return []*Feature{
		{Name: KRaftVersion, LatestProduction: 1, Levels: []FeatureLevel{
			{0, 1, deps(), "static quorum (controller.quorum.voters)"},
			{1, 21, deps(), "dynamic quorum (KIP-853): KRaftVersionRecord and VotersRecord control records"},
		}},
		{Name: TransactionVersion, LatestProduction: 0, InFeatureLevelRecord: true, Levels: []FeatureLevel{
			{0, 1, deps(), "classic transactions"},
			{1, 22, deps(), "flexible transaction log records (unstable in 3.9)"},
			{2, 22, deps(), "epoch bump per transaction (unstable in 3.9)"},
		}},
	}
}

// The catalogs are built on first use, not when kmeta starts: building
// them (each level's record rules, the releases parsed) was a thirtieth of
// a short command's run, paid by every command whether it looked at them
// or not.
var (
	catalog4x = sync.OnceValue(func() *Catalog {
		return buildCatalog(&Catalog{
			Name: "4.x", Software: "4.4.0",
			MinimumLoadable: 7, MinimumBootstrap: 7, LatestProduction: 33, ELRLevel: 23,
			highestRecordKey: 29,
		}, append(append([]levelRow{}, sharedLevels...), levels4x...), features4x())
	})
	catalog39 = sync.OnceValue(func() *Catalog {
		return buildCatalog(&Catalog{
			Name: "3.9", Software: "3.9.2",
			MinimumLoadable: 1, MinimumBootstrap: 4, LatestProduction: 21, ELRLevel: 22,
			writesZkMigrationState: true, highestRecordKey: 27,
		}, append(append([]levelRow{}, sharedLevels...), levels39...), features39())
	})
)

func buildCatalog(c *Catalog, rows []levelRow, feats []*Feature) *Catalog {
	c.Levels = makeLevels(rows, c.LatestProduction)
	c.Features = feats
	for i := range c.Levels {
		c.Levels[i].Records = c.recordRules(c.Levels[i].Level)
	}
	return c
}
