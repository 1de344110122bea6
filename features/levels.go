package features

// Named metadata.version levels: the facts both the record-version rules
// (records.go) and the content requirements (requirements.go) rest on,
// named once after Kafka's MetadataVersion constants. Levels that mean
// different things in the 3.9 and 4.x catalogs (22 and above) are named
// only where the two agree; the ELR level differs and is Catalog.ELRLevel.
// TestNamedLevels ties each name to the catalogs' tables.
const (
	// LevelLeaderRecovery (3.2-IV0): PartitionRecord/PartitionChangeRecord
	// leaderRecoveryState (KIP-704).
	LevelLeaderRecovery int16 = 3
	// LevelFeatureLevelRecord (3.3-IV0): metadata.version is a finalized
	// feature, written as FeatureLevelRecord.
	LevelFeatureLevelRecord int16 = 4
	// LevelNoOpRecord (3.3-IV1): NoOpRecord.
	LevelNoOpRecord int16 = 5
	// LevelBrokerRegistrationChange (3.3-IV2): BrokerRegistrationChangeRecord
	// replaces FenceBrokerRecord and UnfenceBrokerRecord.
	LevelBrokerRegistrationChange int16 = 6
	// LevelControlledShutdown (3.3-IV3): in-controlled-shutdown broker state,
	// RegisterBrokerRecord v1, BrokerRegistrationChangeRecord v1.
	LevelControlledShutdown int16 = 7
	// LevelZkMigration (3.4-IV0): ZkMigrationStateRecord, migrating ZooKeeper
	// brokers, RegisterBrokerRecord v2.
	LevelZkMigration int16 = 8
	// LevelScram (3.5-IV2): UserScramCredentialRecord.
	LevelScram int16 = 11
	// LevelTransactions (3.6-IV1): Begin/End/AbortTransactionRecord.
	LevelTransactions int16 = 13
	// LevelDelegationTokens (3.6-IV2): DelegationTokenRecord.
	LevelDelegationTokens int16 = 14
	// LevelControllerRegistration (3.7-IV0): RegisterControllerRecord.
	LevelControllerRegistration int16 = 15
	// LevelJBOD (3.7-IV2): log directory assignment, RegisterBrokerRecord v3,
	// PartitionRecord/PartitionChangeRecord v1, BrokerRegistrationChangeRecord v2.
	LevelJBOD int16 = 17
	// LevelDynamicQuorum (3.9-IV0): the first level kraft.version 1, a
	// dynamic quorum (KIP-853), may be formatted with (its bootstrap
	// metadata.version).
	LevelDynamicQuorum int16 = 21
	// LevelCordonedLogDirs (4.3-IV0, 4.x only): RegisterBrokerRecord v4,
	// BrokerRegistrationChangeRecord v3.
	LevelCordonedLogDirs int16 = 30
	// LevelCIDRACLs (4.4-IV1, 4.x only): CIDR ranges in ACL host fields.
	LevelCIDRACLs int16 = 32
	// LevelControllerUnregistration (4.4-IV2, 4.x only):
	// UnregisterControllerRecord.
	LevelControllerUnregistration int16 = 33
)

// namedLevels maps each named level to its Kafka name and the catalogs it
// holds in, for TestNamedLevels.
var namedLevels = []struct {
	level    int16
	name     string
	only4x   bool
	constant string
}{
	{LevelLeaderRecovery, "3.2-IV0", false, "LevelLeaderRecovery"},
	{LevelFeatureLevelRecord, "3.3-IV0", false, "LevelFeatureLevelRecord"},
	{LevelNoOpRecord, "3.3-IV1", false, "LevelNoOpRecord"},
	{LevelBrokerRegistrationChange, "3.3-IV2", false, "LevelBrokerRegistrationChange"},
	{LevelControlledShutdown, "3.3-IV3", false, "LevelControlledShutdown"},
	{LevelZkMigration, "3.4-IV0", false, "LevelZkMigration"},
	{LevelScram, "3.5-IV2", false, "LevelScram"},
	{LevelTransactions, "3.6-IV1", false, "LevelTransactions"},
	{LevelDelegationTokens, "3.6-IV2", false, "LevelDelegationTokens"},
	{LevelControllerRegistration, "3.7-IV0", false, "LevelControllerRegistration"},
	{LevelJBOD, "3.7-IV2", false, "LevelJBOD"},
	{LevelDynamicQuorum, "3.9-IV0", false, "LevelDynamicQuorum"},
	{LevelCordonedLogDirs, "4.3-IV0", true, "LevelCordonedLogDirs"},
	{LevelCIDRACLs, "4.4-IV1", true, "LevelCIDRACLs"},
	{LevelControllerUnregistration, "4.4-IV2", true, "LevelControllerUnregistration"},
}
