package verify

import "github.com/kmeta/kmeta/model"

// verify's table of checks: the differences Compare finds (their class is
// the compared entity's), the expected differences it explains (info),
// and the readiness findings that only a comparison of the two worlds
// shows. Four readiness codes are what migrate/online's stage and status
// report of the same fact (zk-topic-without-id,
// replica-on-unregistered-broker, stale-migration-znode, ibp-mismatch):
// they are declared here, the room both import. partition-metadata-topic-id
// and zk-partition-state-missing are the model's.

// comparedClass says where a comparison finding's class comes from.
const comparedClass = "the compared entity's class (topics, partitions, runtime, configs, quotas, acls, scram, tokens, producer-ids, features, brokers, migration, zookeeper)"

var (
	comparingCommands = []string{"diff", "verify"}
	onlineCommands    = []string{"migrate rollback", "migrate stage", "migrate status"}
	runtimeRelaxed    = "the class is runtime (leaders, ISR, epochs): that state moves on its own between two reads"
)

var checks = model.Checks{
	{
		Code: CodeMissingInKRaft, Room: "verify", ClassFrom: comparedClass, Severity: model.SevError,
		Relaxed: model.SevWarning, RelaxedWhen: runtimeRelaxed,
		Title:    "an entity or field ZooKeeper holds and KRaft does not",
		Meaning:  "Across worlds (verify, or diff of a ZooKeeper and a KRaft view), something ZooKeeper holds is not in the KRaft view, and no known reason explains it (explained absences have expected-… codes): the migration lost it, or the KRaft view is older.",
		Fix:      "compare at the right point in time (--at-offset, --at-zxid); a migration that lost it must be redone",
		Commands: comparingCommands,
	},
	{
		Code: CodeMissingInZooKeeper, Room: "verify", ClassFrom: comparedClass, Severity: model.SevError,
		Relaxed: model.SevWarning, RelaxedWhen: runtimeRelaxed,
		Title:    "an entity or field KRaft holds and ZooKeeper does not",
		Meaning:  "Across worlds, the KRaft view holds something ZooKeeper does not, and no known reason explains it: written in KRaft after the migration (and not dual-written back), or the ZooKeeper view is older.",
		Commands: comparingCommands,
	},
	{
		Code: CodeDifferent, Room: "verify", ClassFrom: comparedClass, Severity: model.SevError,
		Relaxed: model.SevWarning, RelaxedWhen: runtimeRelaxed,
		Title:    "a field whose value differs between ZooKeeper and KRaft",
		Meaning:  "Across worlds, both views hold the entity but a field differs, and no known reason explains it (expected differences are info findings with expected-… codes). Secrets compare by fingerprint.",
		Commands: comparingCommands,
	},
	{
		Code: CodeAdded, Room: "verify", ClassFrom: comparedClass, Severity: model.SevInfo,
		Title:    "an entity or field the second view holds and the first does not",
		Meaning:  "Between two views of one world (diff), a change: created between the two points in time.",
		Commands: []string{"diff"},
	},
	{
		Code: CodeRemoved, Room: "verify", ClassFrom: comparedClass, Severity: model.SevInfo,
		Title:    "an entity or field the first view holds and the second does not",
		Meaning:  "Between two views of one world (diff), a change: deleted between the two points in time.",
		Commands: []string{"diff"},
	},
	{
		Code: CodeChanged, Room: "verify", ClassFrom: comparedClass, Severity: model.SevInfo,
		Title:    "a field whose value changed between two views of one world",
		Meaning:  "Between two views of one world (diff), a change: the field was altered between the two points in time.",
		Commands: []string{"diff"},
	},
	{
		Code: CodeExpectedPendingDeletion, Room: "verify", Class: ClassTopics, Severity: model.SevInfo,
		Title:    "a topic pending deletion in ZooKeeper, expected to be absent or deleted in KRaft",
		Meaning:  "Kafka's migration (since 3.6.1) does not migrate topics pending deletion, and neither does migrate plan with --override drop-pending-deletions: the absence is explained.",
		Commands: comparingCommands,
	},
	{
		Code: CodeExpectedConfigOnlyTopic, Room: "verify", Class: ClassConfigs, Severity: model.SevInfo,
		Title:    "topic configs without their topic in ZooKeeper, expected to be absent in KRaft",
		Meaning:  "Kafka's migration reads configs only for the topics it migrates: /config/topics/X without /brokers/topics/X is not migrated.",
		Commands: comparingCommands,
	},
	{
		Code: CodeExpectedEncryptedPassword, Room: "verify", Class: ClassConfigs, Severity: model.SevInfo,
		Title:    "a password config ZooKeeper holds encrypted: not compared without --password-encoder-secret",
		Meaning:  "ZooKeeper-mode brokers keep dynamic password configs encrypted with password.encoder.secret and Kafka's migration stores the plaintext in KRaft: without the secret the two cannot be compared.",
		Fix:      "pass --password-encoder-secret to compare them",
		Commands: comparingCommands,
	},
	{
		Code: CodeExpectedKRaftOnly, Room: "verify", ClassFrom: comparedClass, Severity: model.SevInfo,
		Title:    "something only KRaft can hold (a resource type, a finalized feature, a KRaft broker)",
		Meaning:  "ZooKeeper has no CLIENT_METRICS or GROUP configs and finalizes no feature KRaft bootstraps at its defaults, and KRaft brokers that are not migrating ZooKeeper brokers are not in ZooKeeper: the difference is explained.",
		Commands: comparingCommands,
	},
	{
		Code: CodeExpectedPartitionEpoch, Room: "verify", Class: ClassRuntime, Severity: model.SevInfo,
		Title:    "KRaft's partition epoch is ahead of ZooKeeper's state znode version",
		Meaning:  "In dual-write the controller writes a partition's state znode once per batch of changes, so the znode's version lags KRaft's partition epoch, which every PartitionChangeRecord bumps.",
		Commands: comparingCommands,
	},
	{
		Code: CodeExpectedAssignedTopicID, Room: "verify", Class: ClassTopics, Severity: model.SevInfo,
		Title:    "a topic without id in ZooKeeper carries the id the migration assigned",
		Meaning:  "Topics created before Kafka 2.8 have no id in ZooKeeper: the migration gives them one. With --plan, KRaft must carry the plan's id (else it is a difference); without it the id is explained but not checked.",
		Fix:      "pass --plan with the migration's plan file to check the ids",
		Commands: comparingCommands,
	},
	{
		Code: CodeExpectedZooKeeperOnly, Room: "verify", Class: ClassBrokers, Severity: model.SevInfo,
		Title:    "a broker registered in ZooKeeper while no broker has registered with KRaft (an offline migration)",
		Meaning:  "A ZooKeeper registration is ephemeral: one left in a snapshot by a broker that was killed rather than stopped, or by one still running, before the migrated cluster's brokers start.",
		Commands: comparingCommands,
	},
	{
		Code: CodeExpectedRemovedConfig, Room: "verify", Class: ClassConfigs, Severity: model.SevInfo,
		Title:    "a config Kafka 4.x removed, expected to be absent in KRaft",
		Meaning:  "A migration to 4.x leaves out the configs 4.x removed (migrate plan's config-removed-in-4x).",
		Commands: comparingCommands,
	},
	{
		Code: CodePasswordNotDecrypted, Room: "verify", Class: ClassConfigs, Severity: model.SevError,
		Title:    "an encrypted password config --password-encoder-secret does not decrypt: not compared",
		Meaning:  "The secret given is not the one the brokers encrypted with: the value cannot be compared with KRaft's plaintext.",
		Fix:      "pass the password.encoder.secret the brokers used",
		Commands: comparingCommands,
	},
	{
		Code: CodeKRaftAhead, Room: "verify", Class: ClassProducerIDs, Severity: model.SevInfo,
		Title:    "KRaft's next producer id is ahead of ZooKeeper's",
		Meaning:  "KRaft allocated more producer id blocks since the migration: no id is handed out twice.",
		Commands: comparingCommands,
	},
	{
		Code: CodeKRaftBehind, Room: "verify", Class: ClassProducerIDs, Severity: model.SevError,
		Title:    "KRaft's next producer id is behind ZooKeeper's",
		Meaning:  "New producers could be given ids ZooKeeper-mode brokers already handed out: idempotent and transactional producers would collide.",
		Commands: comparingCommands,
	},
	{
		Code: CodeIBPMismatch, Room: "verify", ClassFrom: `"features" (verify), "migration" (migrate stage, status, rollback)`, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "migrate status gives it as the reason a broker has not registered with the controllers yet: the phase waits for it",
		Title:       "a migrating broker's inter.broker.protocol.version is not KRaft's metadata.version",
		Meaning:     "A migrating ZooKeeper broker registers with metadata.version [IBP, IBP]: the controller refuses its registration unless the finalized metadata.version is exactly its IBP, and metadata.version must not change mid-migration.",
		Fix:         "set inter.broker.protocol.version on every broker to the KRaft cluster's metadata.version",
		Commands:    model.CommandList(comparingCommands, onlineCommands),
	},
	{
		Code: CodeTopicWithoutID, Room: "verify", ClassFrom: `"topics" (verify), "migration" (migrate stage)`, Severity: model.SevError,
		Title:    "a ZooKeeper topic without topic_id",
		Meaning:  "Kafka's migration aborts on a topic znode without topic_id (and the controller with it). Topics created before Kafka 2.8 have none until a controller with IBP 2.8 or later assigns them.",
		Fix:      "let a ZooKeeper-mode controller with inter.broker.protocol.version >= 2.8 assign ids (restart the controller broker) before migrating",
		Commands: model.CommandList(comparingCommands, []string{"migrate stage"}),
	},
	{
		Code: CodeReplicaOnUnregisteredBroker, Room: "verify", ClassFrom: `"partitions" (verify), "migration" (migrate stage)`, Severity: model.SevError,
		Title:    "replicas on a broker registered neither in ZooKeeper nor in KRaft",
		Meaning:  "Kafka's migration waits for every broker a replica assignment names: one that is never registered makes it wait forever.",
		Fix:      "start that broker, or reassign its replicas away before migrating",
		Commands: model.CommandList(comparingCommands, []string{"migrate stage"}),
	},
	{
		Code: CodeNoBrokerRegistered, Room: "verify", Class: ClassBrokers, Severity: model.SevInfo,
		Title:    "no broker is registered: replica placement is not checked against registrations",
		Meaning:  "A stopped cluster (ZooKeeper's registrations are ephemeral), or a KRaft view of an offline migration before its brokers start: there is nothing to check placement against.",
		Commands: comparingCommands,
	},
	{
		Code: CodeStaleMigrationZnode, Room: "verify", Class: ClassMigration, Severity: model.SevError,
		Title:    "/migration says a migration is done but no KRaft controller has migrated (or holds /controller)",
		Meaning:  "A /migration znode left from an earlier attempt: a controller would skip the migration's copy and reconcile ZooKeeper to what KRaft holds, which can wipe ZooKeeper (KAFKA-17146).",
		Fix:      "save /migration (get /migration), then delete it before starting the migration (3.9 docs, reverting)",
		Commands: model.CommandList(comparingCommands, onlineCommands),
	},
	{
		Code: CodeMigrationZnodeMissing, Room: "verify", Class: ClassMigration, Severity: model.SevError,
		Title:    "KRaft's migration state is MIGRATION but ZooKeeper has no completed /migration",
		Meaning:  "ZooKeeper was not migrated from, or /migration was removed: the two views are not one migration's.",
		Commands: comparingCommands,
	},
	{
		Code: CodeKRaftViewBehind, Room: "verify", Class: ClassMigration, Severity: model.SevWarning,
		Title:    "the KRaft view ends below the offset /migration says was dual-written",
		Meaning:  "The KRaft view is older than ZooKeeper's: the views may differ for that reason alone.",
		Fix:      "read the KRaft log to its end (no --at-offset), or a controller that is caught up",
		Commands: comparingCommands,
	},
}

// Checks is verify's table.
func Checks() model.Checks { return checks }

// checkSeverity is the severity code's check declares: a call site names
// the code and never chooses its severity. Two of verify's readiness
// codes are the model's (see above).
func checkSeverity(code string) model.Severity { return checkOf(code).Severity }

var checkOf = model.CheckIndex("verify", model.CommonChecks, Checks)
