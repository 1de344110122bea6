package features

// Metadata record apiKeys (Kafka's MetadataRecordType).
const (
	RegisterBrokerRecord            int16 = 0
	UnregisterBrokerRecord          int16 = 1
	TopicRecord                     int16 = 2
	PartitionRecord                 int16 = 3
	ConfigRecord                    int16 = 4
	PartitionChangeRecord           int16 = 5
	FenceBrokerRecord               int16 = 7
	UnfenceBrokerRecord             int16 = 8
	RemoveTopicRecord               int16 = 9
	DelegationTokenRecord           int16 = 10
	UserScramCredentialRecord       int16 = 11
	FeatureLevelRecordKey           int16 = 12
	ClientQuotaRecord               int16 = 14
	ProducerIdsRecord               int16 = 15
	BrokerRegistrationChangeRecord  int16 = 17
	AccessControlEntryRecord        int16 = 18
	RemoveAccessControlEntryRecord  int16 = 19
	NoOpRecord                      int16 = 20
	ZkMigrationStateRecord          int16 = 21
	RemoveUserScramCredentialRecord int16 = 22
	BeginTransactionRecord          int16 = 23
	EndTransactionRecord            int16 = 24
	AbortTransactionRecord          int16 = 25
	RemoveDelegationTokenRecord     int16 = 26
	RegisterControllerRecord        int16 = 27
	ClearElrRecord                  int16 = 28
	UnregisterControllerRecord      int16 = 29
)

var recordNames = map[int16]string{
	RegisterBrokerRecord:            "RegisterBrokerRecord",
	UnregisterBrokerRecord:          "UnregisterBrokerRecord",
	TopicRecord:                     "TopicRecord",
	PartitionRecord:                 "PartitionRecord",
	ConfigRecord:                    "ConfigRecord",
	PartitionChangeRecord:           "PartitionChangeRecord",
	FenceBrokerRecord:               "FenceBrokerRecord",
	UnfenceBrokerRecord:             "UnfenceBrokerRecord",
	RemoveTopicRecord:               "RemoveTopicRecord",
	DelegationTokenRecord:           "DelegationTokenRecord",
	UserScramCredentialRecord:       "UserScramCredentialRecord",
	FeatureLevelRecordKey:           "FeatureLevelRecord",
	ClientQuotaRecord:               "ClientQuotaRecord",
	ProducerIdsRecord:               "ProducerIdsRecord",
	BrokerRegistrationChangeRecord:  "BrokerRegistrationChangeRecord",
	AccessControlEntryRecord:        "AccessControlEntryRecord",
	RemoveAccessControlEntryRecord:  "RemoveAccessControlEntryRecord",
	NoOpRecord:                      "NoOpRecord",
	ZkMigrationStateRecord:          "ZkMigrationStateRecord",
	RemoveUserScramCredentialRecord: "RemoveUserScramCredentialRecord",
	BeginTransactionRecord:          "BeginTransactionRecord",
	EndTransactionRecord:            "EndTransactionRecord",
	AbortTransactionRecord:          "AbortTransactionRecord",
	RemoveDelegationTokenRecord:     "RemoveDelegationTokenRecord",
	RegisterControllerRecord:        "RegisterControllerRecord",
	ClearElrRecord:                  "ClearElrRecord",
	UnregisterControllerRecord:      "UnregisterControllerRecord",
}

// RecordName returns the record type's name, or "" for an unknown apiKey.
func RecordName(apiKey int16) string { return recordNames[apiKey] }

// RecordRule says that a record type may be written at a level, and the
// highest version allowed there.
type RecordRule struct {
	APIKey  int16  `json:"apiKey"`
	Name    string `json:"name"`
	Version int16  `json:"version"`
}

// RecordVersion is Default().RecordVersion.
func RecordVersion(mv, apiKey int16) (int16, bool) { return catalog4x().RecordVersion(mv, apiKey) }

// RecordVersion returns the record version a writer targeting metadata
// version mv uses for apiKey, and false when that record type must not be
// written at mv at all (or mv or apiKey is unknown).
//
// For BrokerRegistrationChangeRecord it is the highest version allowed;
// Kafka writes the lowest version that carries the fields a change uses
// (v0 fencing, v1 controlled shutdown, v2 log dirs, v3 cordoned dirs).
func (c *Catalog) RecordVersion(mv, apiKey int16) (int16, bool) {
	if _, ok := c.ByLevel(mv); !ok {
		return 0, false
	}
	if _, ok := recordNames[apiKey]; !ok || apiKey > c.highestRecordKey {
		return 0, false
	}
	at := func(min int16) bool { return mv >= min }
	switch apiKey {
	case RegisterBrokerRecord:
		switch {
		case c.Name == "4.x" && at(LevelCordonedLogDirs):
			return 4, true
		case at(LevelJBOD):
			return 3, true
		case at(LevelZkMigration):
			return 2, true
		case at(LevelControlledShutdown):
			return 1, true
		}
		return 0, true
	case PartitionRecord, PartitionChangeRecord:
		switch {
		case at(c.ELRLevel):
			return 2, true
		case at(LevelJBOD):
			return 1, true
		}
		return 0, true
	case FenceBrokerRecord, UnfenceBrokerRecord:
		return 0, mv < LevelBrokerRegistrationChange
	case BrokerRegistrationChangeRecord:
		switch {
		case !at(LevelBrokerRegistrationChange):
			return 0, false
		case c.Name == "4.x" && at(LevelCordonedLogDirs):
			return 3, true
		case at(LevelJBOD):
			return 2, true
		case at(LevelControlledShutdown):
			return 1, true
		}
		return 0, true
	case DelegationTokenRecord, RemoveDelegationTokenRecord:
		return 0, at(LevelDelegationTokens)
	case UserScramCredentialRecord, RemoveUserScramCredentialRecord:
		return 0, at(LevelScram)
	case FeatureLevelRecordKey:
		return 0, at(LevelFeatureLevelRecord)
	case NoOpRecord:
		return 0, at(LevelNoOpRecord)
	case ZkMigrationStateRecord:
		return 0, c.writesZkMigrationState && at(LevelZkMigration)
	case BeginTransactionRecord, EndTransactionRecord, AbortTransactionRecord:
		return 0, at(LevelTransactions)
	case RegisterControllerRecord:
		return 0, at(LevelControllerRegistration)
	case ClearElrRecord:
		return 0, at(c.ELRLevel)
	case UnregisterControllerRecord:
		return 0, at(LevelControllerUnregistration)
	}
	// Topic, config, quota, producer ids, ACLs, unregister broker and
	// remove topic exist at every KRaft level, at version 0.
	return 0, true
}

func (c *Catalog) recordRules(mv int16) []RecordRule {
	var out []RecordRule
	for k := int16(0); k <= c.highestRecordKey; k++ {
		name, ok := recordNames[k]
		if !ok {
			continue
		}
		if v, allowed := c.RecordVersion(mv, k); allowed {
			out = append(out, RecordRule{APIKey: k, Name: name, Version: v})
		}
	}
	return out
}
