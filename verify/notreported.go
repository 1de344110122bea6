package verify

import (
	"slices"

	"github.com/kmeta/kmeta/model"
)

// A view may list fields its source does not report (model.Image.NotReported:
// a live cluster's admin API has no broker or partition epochs, no
// producer-id block, no SCRAM salts and keys). A comparison takes no zero
// for a value: a field either side does not report is left out on both
// sides and listed (Report.NotComparedFields), and the rest of its entity
// is compared as ever.

// mask is what a comparison leaves out of the normalized forms: what
// differs by design between the worlds (cross), and the fields either side
// does not report. It is computed once and read on every partition.
type mask struct {
	// Partitions.
	directories, elr, partitionEpoch, recovery, reassign bool
	// Brokers.
	brokerEpoch, incarnation, endpoints, fenced, shutdown, migrating, logDirs, brokerFeatures bool
	// Whole classes, or whole sections of one (a live side the principal
	// may not read, or whose node does not answer them: a controller asked
	// with --bootstrap-controller reports no brokers, topics or configs).
	tokens, producerIDs, migration               bool
	brokers, topics, topicConfigs, brokerConfigs bool
	quotas, acls, scram                          bool
	// The cluster id (a bootstrap file, a log without meta.properties).
	clusterID bool
}

// maskOf is the mask of a comparison: cross says the sides are different
// worlds; notReported are the fields either side lists.
func maskOf(cross bool, notReported []model.Field) mask {
	m := mask{
		directories: cross, elr: cross,
		brokerEpoch: cross, incarnation: cross, fenced: cross, shutdown: cross, migrating: cross, logDirs: cross, brokerFeatures: cross,
	}
	for _, f := range notReported {
		switch f {
		case model.FieldPartitionDirectories:
			m.directories = true
		case model.FieldPartitionELR:
			m.elr = true
		case model.FieldPartitionEpoch:
			m.partitionEpoch = true
		case model.FieldPartitionLeaderRecovery:
			m.recovery = true
		case model.FieldPartitionReassignment:
			m.reassign = true
		case model.FieldBrokerEpoch:
			m.brokerEpoch = true
		case model.FieldBrokerIncarnationID:
			m.incarnation = true
		case model.FieldBrokerEndpoints:
			// A live view holds the one address it was asked through,
			// without the listener's name: not the registration's list.
			m.endpoints = true
		case model.FieldBrokerControlledShutdown:
			m.shutdown = true
		case model.FieldBrokerMigrating:
			m.migrating = true
		case model.FieldBrokerLogDirs:
			m.logDirs = true
		case model.FieldBrokerFeatures:
			m.brokerFeatures = true
		case model.FieldDelegationTokens:
			m.tokens = true
		case model.FieldProducerIDs:
			m.producerIDs = true
		case model.FieldMigration:
			m.migration = true
		case model.FieldBrokers:
			m.brokers = true
		case model.FieldTopics:
			// A live side reads topic configs for the topics it lists: a
			// topic it does not report has no configs in it either.
			m.topics, m.topicConfigs = true, true
		case model.FieldTopicConfigs:
			m.topicConfigs = true
		case model.FieldBrokerConfigs:
			m.brokerConfigs = true
		case model.FieldClientQuotas:
			m.quotas = true
		case model.FieldACLs:
			m.acls = true
		case model.FieldSCRAM:
			m.scram = true
		case model.FieldClusterID:
			m.clusterID = true
		}
		// Sensitive config values and SCRAM secrets a side does not
		// report are recognised value by value (model.NotReported,
		// ScramCredential.Withheld), and the controllers and the quorum
		// are no class of a comparison: nothing to mask for them.
	}
	return m
}

// notReportedUnion is the fields either view lists, sorted, each once.
func notReportedUnion(a, b *model.Image) []model.Field {
	out := slices.Concat(a.NotReported, b.NotReported)
	slices.Sort(out)
	return slices.Compact(out)
}
