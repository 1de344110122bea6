package online

import (
	"slices"

	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
)

// online's table of checks: status's, stage's and rollback's (class
// "migration"). stage and rollback carry the status they were made from,
// so what status finds, they print too. The codes these commands share
// with migrate plan (no-cluster-id, empty-source, controller-id-conflict,
// tokens-unsupported) are migrate's, those they share with verify
// (zk-topic-without-id, replica-on-unregistered-broker,
// stale-migration-znode, ibp-mismatch) verify's, and broker-fenced the
// model's.

var (
	statusCommands   = []string{"migrate rollback", "migrate stage", "migrate status"}
	stageCommands    = []string{"migrate stage"}
	rollbackCommands = []string{"migrate rollback"}
)

var checks = model.Checks{
	// Order and sources.
	{
		Code: CodeOutOfOrder, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "the phase asked for does not follow the cluster's phase",
		Meaning:  "The phases go ZooKeeper, KRaftMigration, KRaftDualWriting, KRaftPostMigration, PreKRaft, KRaft, one at a time: a phase is staged only from the one before it (or again, from itself).",
		Fix:      "stage {NEXT} next",
		Commands: stageCommands,
	},
	{
		Code: CodeNotReached, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "the phase is not reached yet",
		Meaning:  "KRaftDualWriting and KRaft are reached by Kafka itself (the copy ends; no controller runs with the migration flag and ZkMigrationState is POST_MIGRATION): stage checks that they were, and names what it still waits for.",
		Fix:      "kmeta migrate status says what the phase waits for",
		Commands: stageCommands,
	},
	{
		Code: CodeKRaftNeeded, Room: "online", Class: Class, Severity: model.SevWarning,
		Escalated:     model.SevError,
		EscalatedWhen: "migrate stage, for a phase from KRaftDualWriting on: ZooKeeper alone cannot say whether the metadata was copied or which brokers registered",
		Relaxed:       model.SevInfo,
		RelaxedWhen:   "migrate status: the phase or the comparison of ZooKeeper with KRaft is left open, nothing is decided on it",
		Title:         "the controllers' view (KRaft) is needed to tell the phase",
		Meaning:       "From KRaftDualWriting on, ZooKeeper alone cannot tell the phases apart (KRaftPostMigration from PreKRaft or KRaft), nor whether a rollback would lose anything: the controllers' metadata log or a live quorum must be given. Without it, rollback cannot rule out PreKRaft, from which there is no rollback.",
		Fix:           "add --bootstrap-controller HOST:PORT (or --kraft kraft:METADATA_LOG_DIR of a controller)",
		Commands:      statusCommands,
	},
	{
		Code: CodeNodeConfigMissing, Room: "online", Class: Class, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "migrate stage KRaft: a node's file still holds zookeeper.* settings as ZooKeeper is let go",
		Title:       "a node's server.properties is needed and was not given (or is not the phase's)",
		Meaning:     "kmeta makes each node's new file from its current one, and a rollback restores each broker's ZooKeeper-mode file: without it the phase cannot be staged or rolled back.",
		Fix:         "add --config ID=/path/to/its/server.properties",
		Commands:    model.CommandList(stageCommands, rollbackCommands),
	},
	{
		Code: CodeNoRollback, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "no rollback from the cluster's phase",
		Meaning:  "Once the controllers are finalized (PreKRaft: ZkMigrationState POST_MIGRATION, or a controller without the migration flag), ZooKeeper no longer receives the metadata: there is no way back.",
		Commands: rollbackCommands,
	},
	// Entry conditions.
	{
		Code: CodeCombinedNode, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "a node that is broker and controller at once (process.roles=broker,controller)",
		Meaning:  "Kafka's migration does not support combined nodes: they fail with BROKER_ID_NOT_REGISTERED.",
		Fix:      "run the controllers as dedicated nodes (process.roles=controller) with ids no broker has",
		Commands: statusCommands,
	},
	{
		Code: CodeBrokerIDGenerated, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "a broker whose file sets no broker.id (an auto-generated id)",
		Meaning:  "An auto-generated broker id cannot migrate (KAFKA-17042).",
		Fix:      "set broker.id={ID} in the file and roll the broker first",
		Commands: stageCommands,
	},
	{
		Code: CodeIBPTooOld, Room: "online", Class: Class, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "the level is 3.4-IV0 or later but below 3.6-IV1 (no metadata transactions): the migration runs, but one that fails half way leaves partial records, and a 3.9 controller refuses it on an empty log",
		Title:       "the brokers' inter.broker.protocol.version is below what the migration needs",
		Meaning:     "Kafka's migration needs the brokers at 3.4-IV0 or later (a KRaft metadata.version); without metadata transactions (below 3.6-IV1) Kafka logs \"Starting ZK Migration without metadata transactions enabled. This is not safe\".",
		Fix:         "upgrade the brokers and their inter.broker.protocol.version to 3.4 or later (3.9 recommended) first",
		Commands:    stageCommands,
	},
	{
		Code: CodeIBPUnset, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "no broker file sets inter.broker.protocol.version",
		Meaning:  "The brokers' IBP is then their release, which kmeta cannot see: the controllers must be formatted at exactly that metadata.version.",
		Fix:      "give --metadata-version RELEASE (the brokers' Kafka version, e.g. 3.9), or set inter.broker.protocol.version on the brokers",
		Commands: stageCommands,
	},
	{
		Code: CodeIBPDiffers, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "the brokers' inter.broker.protocol.version differ",
		Meaning:  "The controllers have one metadata.version, and each migrating broker must run exactly it.",
		Fix:      "set the same inter.broker.protocol.version on every broker and roll them first",
		Commands: stageCommands,
	},
	{
		Code: CodeJBODLevel, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "a JBOD broker (several log dirs) below metadata.version 3.7-IV2",
		Meaning:  "Migrating JBOD brokers needs metadata.version 3.7-IV2 (KIP-858).",
		Fix:      "upgrade to 3.7 or later (inter.broker.protocol.version 3.7-IV2 or later) first",
		Commands: stageCommands,
	},
	{
		Code: CodeSCRAMLevel, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "SCRAM credentials below metadata.version 3.5-IV2",
		Meaning:  "The level the migration runs at cannot hold SCRAM credentials: they would not be migrated.",
		Fix:      "upgrade the brokers and their inter.broker.protocol.version to 3.5-IV2 or later first",
		Commands: stageCommands,
	},
	{
		Code: CodeAuthorizer, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "an authorizer in a phase that cannot run it",
		Meaning:  "Kafka 3.4 refuses to migrate a cluster with an authorizer (KAFKA-14621), and a ZooKeeper-mode broker cannot run StandardAuthorizer: it reads ACLs from ZooKeeper until it becomes a KRaft broker.",
		Fix:      "keep AclAuthorizer until KRaftPostMigration (kmeta switches it then); on 3.4, upgrade to 3.5 or later first",
		Commands: stageCommands,
	},
	{
		Code: CodeInterBroker, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "the brokers' inter-broker listeners differ, or one is not among a broker's listeners",
		Meaning:  "The controllers reach every ZooKeeper-mode broker on one listener name (KAFKA-16468).",
		Fix:      "set one inter.broker.listener.name on every broker, one of its listeners, and roll them first",
		Commands: stageCommands,
	},
	{
		Code: CodeMigrationZNodeNull, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "/migration exists without data",
		Meaning:  "zookeeper-security-migration leaves /migration so (KAFKA-19480): the migration hangs on it.",
		Fix:      "delete it ({ZK_DELETE})",
		Commands: statusCommands,
	},
	{
		Code: CodeQuotaMigration, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "client quotas Kafka below 3.7.1 migrates wrong (default or escaped entity names)",
		Meaning:  "Below 3.7.1, defaults become the entity named \"\" (KAFKA-16411) and escaped names stay escaped (KAFKA-16222); kmeta verify shows each after the copy.",
		Fix:      "run the brokers and controllers on 3.7.1 or later for the migration, or set these quotas again in KRaft after it",
		Commands: stageCommands,
	},
	// State.
	{
		Code: CodeControllerNoMigrate, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "the controllers were formatted or started without the migration flag",
		Meaning:  "Controllers started without zookeeper.metadata.migration.enable (ZkMigrationState NONE, or no ZkMigrationReady while ZooKeeper-mode brokers are up) initialised a new KRaft cluster and can never take this one over.",
		Fix:      "stop the controllers, delete their metadata log dirs, and start them on the dirs and configs `kmeta migrate stage KRaftMigration` writes",
		Commands: statusCommands,
	},
	{
		Code: CodeClusterIDMismatch, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "the controllers' cluster id is not ZooKeeper's /cluster/id",
		Meaning:  "No broker of this cluster can register with controllers of another cluster id.",
		Fix:      "stop the controllers, and start them on the metadata dirs `kmeta migrate stage KRaftMigration` writes (formatted with ZooKeeper's cluster id)",
		Commands: statusCommands,
	},
	{
		Code: CodeQuorumMode, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "a node's quorum settings do not match how the controllers were formatted (static or dynamic)",
		Meaning:  "A dynamic quorum (kraft.version 1) takes controller.quorum.bootstrap.servers, a static one controller.quorum.voters: with the other, Kafka fails (\"Starting voters are VoterSet(voters={})\").",
		Fix:      "use the quorum settings of the files kmeta migrate stage writes",
		Commands: statusCommands,
	},
	{
		Code: CodeBrokerNotRegistered, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "a broker that has not registered with the KRaft controller",
		Meaning:  "In KRaftMigration and KRaftDualWriting every broker must register as a migrating ZooKeeper broker: the copy waits for all of them. It is not up, or not restarted into migration mode, or cannot reach the quorum.",
		Fix:      "restart it on the file `kmeta migrate stage KRaftMigration` wrote for it",
		Commands: statusCommands,
	},
	{
		Code: CodeBrokerNoFlag, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "a broker's file lacks zookeeper.metadata.migration.enable=true",
		Meaning:  "It was not restarted into migration mode, so it does not register with the controllers (and with controller.listener.names set, Kafka refuses to start it).",
		Fix:      "restart it on the file `kmeta migrate stage KRaftMigration` wrote for it",
		Commands: statusCommands,
	},
	{
		Code: CodeBrokerNoQuorum, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "a broker's file lacks the controller settings, or names another quorum",
		Meaning:  "A migrating broker needs controller.quorum.voters and controller.listener.names to reach the controllers.",
		Fix:      "restart it on the file `kmeta migrate stage KRaftMigration` wrote for it",
		Commands: statusCommands,
	},
	{
		Code: CodeBrokerStillZK, Room: "online", Class: Class, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "migrate status in KRaftPostMigration, before the controllers are finalized (a rollback is still possible)",
		Title:       "a broker still in ZooKeeper mode in a phase after the brokers moved to KRaft",
		Meaning:     "Finalizing the controllers with a ZooKeeper-mode broker left strands it: it can no longer reach a controller that speaks to it (KAFKA-20960), and there is no rollback after PreKRaft.",
		Fix:         "restart it with the KRaft broker file `kmeta migrate stage KRaftPostMigration` writes",
		Commands:    statusCommands,
	},
	{
		Code: CodeBrokerConfig, Room: "online", Class: Class, Severity: model.SevError,
		Relaxed:     model.SevInfo,
		RelaxedWhen: "migrate status: a broker's file is not the phase's (the roll is not done, or was done with another file)",
		Title:       "a broker's file is not what the phase needs",
		Meaning:     "stage makes a broker's new file from its current one: a file of another role or phase (a controller's, a KRaft broker's where a ZooKeeper-mode one is needed) cannot be its source.",
		Fix:         "give the broker's ZooKeeper-mode server.properties",
		Commands:    statusCommands,
	},
	{
		Code: CodeControllerConfig, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "a controller's file is not a controller's",
		Meaning:  "stage makes a controller's new file from its current one: another role's file cannot be its source.",
		Fix:      "give the controller's server.properties",
		Commands: stageCommands,
	},
	{
		Code: CodeZKBehind, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "ZooKeeper and KRaft differ while the controllers dual-write",
		Meaning:  "Dual-write has not caught up, or lost writes (KAFKA-15010, KAFKA-15003): a rollback now would land on a ZooKeeper that lacks what KRaft holds, and moving the brokers makes a rollback depend on ZooKeeper being complete.",
		Fix:      "kmeta verify with both sources as the command read them, leaving out the classes it does (--ignore brokers --ignore migration --ignore runtime): it lists the differences; wait until it exits 0 before rolling back",
		Commands: statusCommands,
	},
}

// Checks is online's table: status's, stage's and rollback's.
func Checks() model.Checks { return slices.Concat(checks, SecureChecks, rollChecks) }

// checkOf is the check of a code online reports: its own, or the one
// migrate, verify or the model declares (see above).
var checkOf = model.CheckIndex("online", model.CommonChecks, verify.Checks, migrate.Checks, Checks)
