package model

import "slices"

// A view may hold a secret's stand-in instead of the secret: a redacted
// dump holds RedactedValue and SCRAM fingerprints (the secret was there
// and was hidden), and a live cluster's admin API never returns sensitive
// config values or SCRAM salts and keys (the secret was never seen). Such
// a view can be printed and compared, but it is never a source of data to
// write: a credential written without its keys lets nobody log in, a
// password config written as its stand-in is a wrong password. The
// functions here are how a reader marks, and a writer recognises, a
// secret the view does not hold.

// NotReported is the value a view holds for a sensitive config its source
// does not report (Kafka's DescribeConfigs answers null for a sensitive
// value): a mark, never "", which is a value of its own.
const NotReported = "[not reported]"

// SecretWithheld reports whether a config value is a stand-in for a secret
// the view does not hold: a redaction (RedactedValue) or NotReported.
func SecretWithheld(v string) bool {
	return v == NotReported || IsRedacted(v)
}

// ConfigWithheld reports whether a config entry of a resource of type t
// is a secret the view does not hold: a sensitive key (SensitiveConfig)
// whose value is a stand-in (SecretWithheld). A stand-in under a key that
// is not sensitive is the operator's own value: no reader puts one there.
func ConfigWithheld(t ConfigResourceType, key, value string) bool {
	return SensitiveConfig(t, key) && SecretWithheld(value)
}

// Withheld reports whether the credential lacks its secret bytes: a salt,
// a stored key and a server key, none of which a real credential leaves
// empty (Kafka's ScramFormatter derives the keys from a non-empty salt).
// A redacted credential has a Fingerprint in their place; one a source
// did not report (a live cluster's DescribeUserScramCredentials gives the
// mechanism and iterations only) has neither.
func (c *ScramCredential) Withheld() bool {
	return len(c.Salt) == 0 || len(c.StoredKey) == 0 || len(c.ServerKey) == 0
}

// Field names a field of the model that some source cannot report. A live
// cluster's admin API answers what clients need, not what the metadata
// log holds: it has no broker epochs or incarnation ids, no partition
// epochs or replica directories, no producer-id block, no migration state.
// Such a view lists these fields in Image.NotReported, so that a reader
// of the view (verify, diff, a printer) says "not reported" rather than
// take a zero for a value.
type Field string

// The fields a source may be unable to report. Their names are the
// model's JSON paths, as printed.
const (
	FieldBrokerEpoch Field = "brokers.epoch"
	// FieldBrokerEndpoints: the admin API names each broker's address on
	// the listener the client connected to, not every listener it
	// registered (nor the listener's name).
	FieldBrokerEndpoints       Field = "brokers.endpoints"
	FieldBrokerCordonedLogDirs Field = "brokers.cordonedLogDirs"
	// FieldBrokerFenced: a cluster older than DescribeCluster v2
	// (KIP-1073, Kafka 4.0) lists only unfenced brokers.
	FieldBrokerFenced               Field = "brokers.fenced"
	FieldBrokerIncarnationID        Field = "brokers.incarnationId"
	FieldBrokerFeatures             Field = "brokers.features"
	FieldBrokerLogDirs              Field = "brokers.logDirs"
	FieldBrokerControlledShutdown   Field = "brokers.inControlledShutdown"
	FieldBrokerMigrating            Field = "brokers.isMigratingZkBroker"
	FieldControllers                Field = "controllers"
	FieldControllerIncarnationID    Field = "controllers.incarnationId"
	FieldControllerEndpoints        Field = "controllers.endpoints"
	FieldControllerFeatures         Field = "controllers.features"
	FieldControllerZkMigrationReady Field = "controllers.zkMigrationReady"
	FieldPartitionEpoch             Field = "partitions.partitionEpoch"
	FieldPartitionELR               Field = "partitions.elr"
	FieldPartitionLeaderRecovery    Field = "partitions.leaderRecoveryState"
	FieldPartitionDirectories       Field = "partitions.directories"
	FieldPartitionReassignment      Field = "partitions.addingRemovingReplicas"
	FieldSensitiveConfigs           Field = "configs.sensitiveValues"
	// Whole sections a principal may not be allowed to read, or a node
	// does not answer: the section's emptiness then says nothing.
	FieldBrokers          Field = "brokers"
	FieldTopics           Field = "topics"
	FieldTopicConfigs     Field = "configs.topic"
	FieldBrokerConfigs    Field = "configs.broker"
	FieldClientQuotas     Field = "clientQuotas"
	FieldACLs             Field = "acls"
	FieldSCRAM            Field = "scram"
	FieldSCRAMSecrets     Field = "scram.saltAndKeys"
	FieldDelegationTokens Field = "delegationTokens"
	FieldProducerIDs      Field = "producerIds"
	FieldMigration        Field = "migration"
	FieldQuorum           Field = "quorum"
	// The cluster id: a KRaft log's records never hold it (meta.properties
	// does), so a bootstrap file or a log without its meta.properties
	// cannot tell it.
	FieldClusterID Field = "clusterId"
	// The metadata.version: a KRaft source without a FeatureLevelRecord
	// for it (a partial or damaged log) cannot tell it, and no default
	// stands in for it.
	FieldMetadataVersion Field = "features.metadata.version"
	// A live quorum asked with DescribeQuorum before v2 (Kafka 3.9):
	// voters without directory ids and endpoints.
	FieldQuorumVoterDirectoryIDs Field = "quorum.voters.directoryId"
	FieldQuorumVoterEndpoints    Field = "quorum.voters.endpoints"
)

// Reports says whether the view holds field f (it is not listed in
// NotReported).
func (img *Image) Reports(f Field) bool { return !slices.Contains(img.NotReported, f) }

// MarkNotReported adds fields to NotReported, once each, keeping the list
// sorted so that output is deterministic.
func (img *Image) MarkNotReported(fs ...Field) { img.NotReported = markFields(img.NotReported, fs) }

// markFields adds fs to a sorted list of fields not reported, once each:
// the one list logic of Image and QuorumStatus.
func markFields(list, fs []Field) []Field {
	for _, f := range fs {
		if !slices.Contains(list, f) {
			list = append(list, f)
		}
	}
	slices.Sort(list)
	return list
}

// ConfigsUnreported says whether the configs of res were not reported
// (UnreportedConfigs lists it).
func (img *Image) ConfigsUnreported(res ConfigResource) bool {
	_, ok := slices.BinarySearchFunc(img.UnreportedConfigs, res, CompareConfigResource)
	return ok
}

// MarkConfigsUnreported adds res to UnreportedConfigs, once, in order.
func (img *Image) MarkConfigsUnreported(res ConfigResource) {
	i, ok := slices.BinarySearchFunc(img.UnreportedConfigs, res, CompareConfigResource)
	if !ok {
		img.UnreportedConfigs = slices.Insert(img.UnreportedConfigs, i, res)
	}
}

// SetStaticConfigs records node id's static configs (its server.properties
// keys and values), replacing what was known of them.
func (img *Image) SetStaticConfigs(id int32, kv map[string]string) {
	if img.StaticConfigs == nil {
		img.StaticConfigs = map[int32]map[string]string{}
	}
	if kv == nil {
		kv = map[string]string{}
	}
	img.StaticConfigs[id] = kv
}
