package migrate

import "github.com/kmeta/kmeta/model"

// migrate's table of checks: the plan's findings (migrate plan, and
// apply, which re-plans), migrate brokers' and migrate configs'. Four of
// the plan's codes are also what migrate/online's stage reports of the
// same fact (no-cluster-id, empty-source, controller-id-conflict,
// tokens-unsupported): they are declared here, the room both import. A
// blocker that an --override lifts takes its Relaxed severity (warning)
// when the override is given; the override is named in RelaxedWhen.

// The classes of migrate's findings.
const (
	ClassPlan    = "migrate"
	ClassBrokers = "brokers"
	ClassConfigs = "configs"
)

var (
	// brokers prints the plan when it is blocked.
	planCommands    = []string{"migrate apply", "migrate brokers", "migrate plan"}
	stageCommands   = []string{"migrate stage"}
	brokersCommands = []string{"migrate brokers"}
	configsCommands = []string{"migrate configs"}
)

// overridden says in RelaxedWhen which override lifts a blocker.
func overridden(name, what string) string {
	return "--override " + name + " is given: " + what
}

var checks = model.Checks{
	// The target.
	{
		Code: CodeLevelUnsupported, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Title:    "the target metadata.version is not a production level Kafka 4.x can start on",
		Meaning:  "A 4.x controller bootstraps from 3.3-IV3 up to its newest production level: a lower or unstable target cannot be written. The plan stops there and names the newest level instead.",
		Fix:      "choose a level from {MIN} to {MAX} (e.g. --metadata-version {RELEASE})",
		Commands: planCommands,
	},
	{
		Code: CodeDynamicQuorumLevel, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Title:    "a dynamic quorum (kraft.version 1) below metadata.version 3.9-IV0",
		Meaning:  "KIP-853's dynamic quorum needs metadata.version 3.9-IV0: below it Kafka 4.x cannot start controllers formatted with initial voters.",
		Fix:      "choose --metadata-version {LEVEL} or later, or --quorum " + QuorumStatic,
		Commands: planCommands,
	},
	{
		Code: CodeELRDeferred, Room: "migrate", Class: ClassPlan, Severity: model.SevInfo,
		Title:    "eligible leader replicas are left off for the first start",
		Meaning:  "With ELR on, a 4.x controller takes every broker's first registration for an unclean shutdown (no broker epoch to compare with) and strips it from every ISR, which ends in unclean elections of the migrated partitions (seen on 4.4.0). So the cluster starts without ELR, and the operator turns it on once every broker has registered.",
		Fix:      "once every broker is up: kafka-features.sh --bootstrap-server HOST:PORT upgrade --feature {FEATURE}={LEVEL}",
		Commands: planCommands,
	},
	{
		Code: CodeTooManyRecords, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Title:    "more records than one atomic batch holds below metadata transactions (3.6-IV1)",
		Meaning:  "A controller appends bootstrap records as its first transaction; below 3.6-IV1 that is one atomic batch, which Kafka limits to 10,000 records. A larger cluster needs a level with metadata transactions.",
		Fix:      "choose --metadata-version {LEVEL} or later",
		Commands: planCommands,
	},
	{
		Code: CodeSCRAMUnsupported, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: overridden(OverrideDropSCRAM, "the credentials are left out"),
		Title:       "SCRAM credentials cannot be written below metadata.version 3.5-IV2",
		Meaning:     "UserScramCredentialRecord exists from 3.5-IV2: at a lower target the credentials would be lost and no SCRAM user could log in.",
		Fix:         "choose --metadata-version {LEVEL} or later",
		Commands:    planCommands,
	},
	{
		Code: CodeTokensUnsupported, Room: "migrate", ClassFrom: `"migrate" (migrate plan), "migration" (migrate stage)`, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: overridden(OverrideDropTokens, "the tokens are left out") + "; and migrate stage, which leaves the delegation token secret out of a KRaft node's file below 3.6-IV2 (the tokens are not migrated there)",
		Title:       "delegation tokens cannot be written below metadata.version 3.6-IV2",
		Meaning:     "DelegationTokenRecord exists from 3.6-IV2: below it the tokens are lost, clients that use them must get new credentials, and a KRaft node refuses to start with delegation.token.secret.key set.",
		Fix:         "choose --metadata-version {LEVEL} or later",
		Commands:    model.CommandList(planCommands, stageCommands),
	},
	// The source.
	{
		Code: CodePartialSource, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Title:    "the source view may lack content: it rests on damaged or partial input",
		Meaning:  "The ZooKeeper view carries a partial warning (a lenient decode, a damaged transaction log, a tree that changed): migrating it would silently drop what it lacks.",
		Fix:      "read a complete source (a healthy data dir, or the live ensemble)",
		Commands: planCommands,
	},
	{
		Code: CodeEmptySource, Room: "migrate", ClassFrom: `"migrate" (migrate plan), "migration" (migrate stage)`, Severity: model.SevError,
		Title:    "the source holds no Kafka state (no /cluster/id, no topics, no broker)",
		Meaning:  "Nothing Kafka wrote is there: a wrong data dir or chroot, most likely. A migration of it would make an empty cluster; an online migration has no broker to move.",
		Fix:      "point --zk at the ZooKeeper data dir and chroot the brokers' zookeeper.connect names",
		Commands: model.CommandList(planCommands, stageCommands),
	},
	{
		Code: CodeSecretsWithheld, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Title:    "the source holds stand-ins instead of secrets (SCRAM keys, sensitive configs) or leaves fields unreported",
		Meaning:  "A dump written without --show-secrets holds fingerprints, and a live cluster's admin API never returns SCRAM keys or sensitive values (nor epochs and the producer-id block): written as they are, no SCRAM user could log in and every password config would be wrong. No override lifts it: the data is not there to write.",
		Fix:      withheldFix,
		Commands: planCommands,
	},
	{
		Code: CodeNoClusterID, Room: "migrate", ClassFrom: `"migrate" (migrate plan), "migration" (migrate stage)`, Severity: model.SevError,
		Title:    "no usable cluster id: ZooKeeper has no /cluster/id, or it is not a Kafka Uuid, or --cluster-id disagrees",
		Meaning:  "The controllers must be formatted with the cluster id the brokers' meta.properties hold: a broker refuses a controller of another cluster.",
		Fix:      "pass --cluster-id with the cluster.id the brokers' meta.properties hold",
		Commands: model.CommandList(planCommands, stageCommands, []string{"migrate status", "migrate rollback"}),
	},
	{
		Code: CodeBrokersRegistered, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: overridden(OverrideRegisteredBrokers, "the plan goes on"),
		Title:       "brokers are registered in a live ZooKeeper: the cluster is still running",
		Meaning:     "An offline migration copies a stopped cluster: brokers still registered may write to ZooKeeper after the copy, and what they write is lost.",
		Fix:         "stop every broker and wait for its /brokers/ids znode to go away",
		Commands:    planCommands,
	},
	{
		Code: CodeRegistrationsInSnap, Room: "migrate", Class: ClassPlan, Severity: model.SevWarning,
		Title:    "brokers are still registered in the ZooKeeper data dir",
		Meaning:  "Ephemeral /brokers/ids znodes are left in a data dir when ZooKeeper stopped before the brokers: they may still be running.",
		Fix:      "make sure every broker is stopped before converting",
		Commands: planCommands,
	},
	{
		Code: CodeZKDataDirUsed, Room: "migrate", Class: ClassPlan, Severity: model.SevInfo,
		Title:    "which of several ZooKeeper data dirs was read",
		Meaning:  "Given the data dirs of several servers of one ensemble, kmeta reads the newest and checks that the others are prefixes of its history.",
		Commands: planCommands,
	},
	{
		Code: CodeZKDataDirsDiverge, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Title:    "a ZooKeeper data dir is not a prefix of the newest one's history",
		Meaning:  "The dirs given are not one ensemble's copies of one history (a dir of another cluster, or a server that diverged): which one is the cluster's state is not known.",
		Fix:      "give only the data dirs of one ensemble's servers (a dir of another cluster, or of a server that diverged, is not this cluster's state); read the newest alone if you are sure of it",
		Commands: planCommands,
	},
	{
		Code: CodeMigrationZnode, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: overridden(OverrideMigrationZnode, "the plan goes on"),
		Title:       "a /migration znode from an earlier migration attempt exists",
		Meaning:     "A migration (Kafka's online one) was started or done on this ZooKeeper: it must be finished or rolled back before the cluster is converted offline.",
		Fix:         "finish or roll back that migration first (Kafka's rollback: rmr /controller and /migration)",
		Commands:    planCommands,
	},
	// Controllers and brokers.
	{
		Code: CodeNoControllers, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Title:   "no controllers given",
		Meaning: "The plan writes each controller's metadata dir: it needs the quorum's voters.",
		Fix:     "pass --controllers ID@HOST:PORT,...",
		// migrate brokers does not need them (Plan.ForBrokers).
		Commands: []string{"migrate apply", "migrate plan"},
	},
	{
		Code: CodeControllerIDConflict, Room: "migrate", ClassFrom: `"migrate" (migrate plan), "migration" (migrate stage)`, Severity: model.SevError,
		Title:    "a controller id is also a broker id",
		Meaning:  "Kafka refuses a controller whose node id a broker has (a broker-only node whose id is a voter's): controller ids must not collide with broker ids.",
		Fix:      "choose controller ids no broker uses (e.g. from 3000)",
		Commands: model.CommandList(planCommands, stageCommands),
	},
	{
		Code: CodeBrokersToConvert, Room: "migrate", Class: ClassPlan, Severity: model.SevInfo,
		Title:    "the brokers whose log dirs migrate brokers must convert",
		Meaning:  "Every broker that holds replicas must have its log dirs converted (partition.metadata, meta.properties v1) before it starts in KRaft mode, or Kafka 4.x sets its partitions aside as stray.",
		Commands: planCommands,
	},
	// Content.
	{
		Code: CodePendingDeletion, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: overridden(OverrideDropPendingDeletions, "the topic is not migrated (as Kafka's own migration since 3.6.1) and Kafka sets its partition dirs aside as stray"),
		Title:       "a topic pending deletion",
		Meaning:     "The topic is marked for deletion (/admin/delete_topics) and still there: whether it should be migrated is not known.",
		Fix:         "let the deletion finish: start the brokers holding its replicas until /admin/delete_topics/{TOPIC} is gone",
		Commands:    planCommands,
	},
	{
		Code: CodeConfigWithoutTopic, Room: "migrate", Class: ClassPlan, Severity: model.SevWarning,
		Title:    "topic configs whose topic does not exist are not migrated",
		Meaning:  "/config/topics/X without /brokers/topics/X is left by a deletion that did not finish or written behind Kafka's back. Kafka's migration reads configs only for the topics it migrates, and a topic created later under that name would inherit them.",
		Commands: planCommands,
	},
	{
		Code: CodeLegacyAdminZnode, Room: "migrate", Class: ClassPlan, Severity: model.SevWarning,
		Relaxed:     model.SevInfo,
		RelaxedWhen: "it is a pending preferred replica election (/admin/preferred_replica_election): nothing is lost, it can be run again after the migration",
		Title:       "a legacy admin request znode is not migrated",
		Meaning:     "/admin/reassign_partitions (a reassignment requested the old way) and /admin/preferred_replica_election are not migrated, as in Kafka's migration: the request is dropped.",
		Fix:         "run kafka-leader-election (or the reassignment) again after the migration",
		Commands:    planCommands,
	},
	{
		Code: CodeZKConsumerOffsets, Room: "migrate", Class: ClassPlan, Severity: model.SevWarning,
		Title:    "consumer groups keep offsets in ZooKeeper (/consumers)",
		Meaning:  "The old consumer's offsets.storage=zookeeper kept offsets under /consumers: neither Kafka's migration nor kmeta moves them, and Kafka 4.x cannot read them.",
		Fix:      "before the migration, let each group commit its offsets to Kafka (a consumer with offsets.storage=kafka and dual.commit.enabled, or kafka-consumer-groups --reset-offsets from the values under /consumers)",
		Commands: planCommands,
	},
	{
		Code: CodeTopicIDAssigned, Room: "migrate", Class: ClassPlan, Severity: model.SevInfo,
		Title:    "a topic without topic_id gets one derived from the cluster id and its name",
		Meaning:  "Topics created before Kafka 2.8 have no topic id in ZooKeeper: kmeta assigns one, the same in apply and brokers (which writes it into partition.metadata).",
		Commands: planCommands,
	},
	{
		Code: CodeTopicCaseCollision, Room: "migrate", Class: ClassPlan, Severity: model.SevWarning,
		Title:    "topic names that differ only in case",
		Meaning:  "Their partition dirs collide on a case-insensitive file system.",
		Commands: planCommands,
	},
	{
		Code: CodeConfigRemoved, Room: "migrate", Class: ClassPlan, Severity: model.SevWarning,
		Title:    "a config Kafka 4.x removed is not written",
		Meaning:  "Kafka 4.x refuses or ignores configs it removed (message.format.version and others): they are dropped from the migrated metadata.",
		Commands: planCommands,
	},
	{
		Code: CodeEncryptedPassword, Room: "migrate", Class: ClassPlan, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: overridden(OverrideCopyEncryptedPasswords, "the encrypted value is copied as it is, as Kafka's migration does without password.encoder.secret"),
		Title:       "a password config is encrypted with the brokers' password.encoder.secret",
		Meaning:     "ZooKeeper-mode brokers keep dynamic password configs encrypted; KRaft stores them in plain text. Without the secret (or with a wrong one) the value cannot be decrypted.",
		Fix:         "pass --password-encoder-secret",
		Commands:    planCommands,
	},
	{
		Code: CodePasswordDecrypted, Room: "migrate", Class: ClassPlan, Severity: model.SevInfo,
		Title:    "a password config was decrypted with --password-encoder-secret",
		Meaning:  "KRaft stores dynamic password configs in plain text, as Kafka's migration writes them.",
		Commands: planCommands,
	},
	{
		Code: CodeOverrideUsed, Room: "migrate", Class: ClassPlan, Severity: model.SevInfo,
		Title:    "an --override was given",
		Meaning:  "Each override lifts one blocker class; the plan names every one given, so that a reviewer sees what was decided.",
		Commands: planCommands,
	},
	// migrate brokers.
	{
		Code: CodeBrokerNoMeta, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Title:    "a log dir without meta.properties",
		Meaning:  "Every broker log dir that has started holds meta.properties: without it the dir is not a ZooKeeper-mode broker's, or the wrong dir was given.",
		Fix:      "check --log-dirs against the broker's log.dirs",
		Commands: brokersCommands,
	},
	{
		Code: CodeBrokerBadMeta, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Title:    "a log dir's meta.properties does not parse",
		Meaning:  "The broker's identity (broker.id, cluster.id) cannot be read, so the dir cannot be converted.",
		Fix:      "repair meta.properties",
		Commands: brokersCommands,
	},
	{
		Code: CodeBrokerClusterID, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Title:    "a log dir's cluster.id is missing or is not the plan's",
		Meaning:  "The dir belongs to another cluster, or was written by a release too old to record the cluster id: a KRaft broker refuses a dir of another cluster.",
		Fix:      "this dir belongs to another cluster: check --log-dirs and --zk",
		Commands: brokersCommands,
	},
	{
		Code: CodeBrokerUnknown, Room: "migrate", Class: ClassBrokers, Severity: model.SevWarning,
		Title:    "a broker that holds no replica in ZooKeeper's assignment",
		Meaning:  "The plan does not name the broker: its dir is converted, but it holds nothing the metadata assigns to it.",
		Commands: brokersCommands,
	},
	{
		Code: CodeBrokerKRaftMetadata, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Title:    "a ZooKeeper-mode log dir that already holds KRaft metadata (__cluster_metadata-0)",
		Meaning:  "A KRaft broker refuses a data dir holding another metadata log.",
		Fix:      "a KRaft broker refuses a data dir holding another metadata log: move __cluster_metadata-0 away after checking where it came from",
		Commands: brokersCommands,
	},
	{
		Code: CodeSpecialPartitionDir, Room: "migrate", Class: ClassBrokers, Severity: model.SevInfo,
		Title:    "a -delete, -future or -stray partition dir is left as it is",
		Meaning:  "Kafka deletes (-delete), resumes (-future) or keeps aside (-stray) such dirs itself.",
		Commands: brokersCommands,
	},
	{
		Code: CodeBadPartitionDir, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Title:    "a dir that is not a topic-partition dir, or a partition.metadata that does not parse",
		Meaning:  "Kafka takes the whole log dir offline on a dir it cannot read as TOPIC-PARTITION, and cannot load a partition whose partition.metadata is damaged.",
		Fix:      "move it out of the log dir",
		Commands: brokersCommands,
	},
	{
		Code: CodePartitionDuplicate, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Title:    "one partition in two log dirs of a broker",
		Meaning:  "Kafka refuses to start with two copies of a partition on one broker: which one it used is not known.",
		Fix:      "keep the copy the broker used (compare the segments' end offsets) and move the other away",
		Commands: brokersCommands,
	},
	{
		Code: CodeStrayPartition, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "--allow-stray is given: Kafka 4.x renames the dir *-stray on first start",
		Title:       "a partition dir of a topic ZooKeeper does not know",
		Meaning:     "Kafka 4.x renames every partition dir whose topic its metadata does not know to *-stray on first start: its data is set aside.",
		Fix:         "move it out of the log dir (Kafka 4.x would rename it *-stray), or rerun with --allow-stray to let Kafka set it aside",
		Commands:    brokersCommands,
	},
	{
		Code: CodePartitionSkipped, Room: "migrate", Class: ClassBrokers, Severity: model.SevWarning,
		Title:    "a partition dir of a topic pending deletion, which is not migrated",
		Meaning:  "The plan leaves the topic out (--override drop-pending-deletions): Kafka sets this dir aside as stray.",
		Commands: brokersCommands,
	},
	{
		Code: CodePartitionNotAssigned, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "--allow-stray is given: Kafka 4.x renames the dir *-stray on first start",
		Title:       "a partition dir on a broker ZooKeeper does not assign it to",
		Meaning:     "Kafka 4.x renames a partition dir its broker is not assigned in the metadata to *-stray on first start: its data is set aside.",
		Fix:         "move it out of the log dir (Kafka 4.x would rename it *-stray), or rerun with --allow-stray to let Kafka set it aside",
		Commands:    brokersCommands,
	},
	{
		Code: CodeOldRecordFormat, Room: "migrate", Class: ClassBrokers, Severity: model.SevWarning,
		Title:    "segments that start with record format v0/v1 batches",
		Meaning:  "Written under an old message.format.version (magic below 2). Kafka 4.4.0 serves them to consumers (checked); it writes only v2.",
		Fix:      "nothing to do before the migration: Kafka 4.4.0 serves them to consumers (checked); it writes only v2",
		Commands: brokersCommands,
	},
	{
		Code: CodePartitionMetaMissing, Room: "migrate", Class: ClassBrokers, Severity: model.SevInfo,
		Title:    "partition dirs without partition.metadata: kmeta writes ZooKeeper's topic ids",
		Meaning:  "Brokers below IBP 2.8 wrote no partition.metadata; a KRaft broker needs the topic id, which migrate brokers writes from the plan.",
		Commands: brokersCommands,
	},
	{
		Code: CodeBrokerAlreadyConverted, Room: "migrate", Class: ClassBrokers, Severity: model.SevInfo,
		Title:    "meta.properties is already version 1",
		Meaning:  "The dir was converted before (a rerun): nothing is written to it.",
		Commands: brokersCommands,
	},
	{
		Code: CodeBrokerBackupDiffers, Room: "migrate", Class: ClassBrokers, Severity: model.SevError,
		Title:    "a meta.properties backup exists and differs from meta.properties",
		Meaning:  "The ZooKeeper-mode meta.properties is kept as a backup, the way back: an older backup with other content would be lost.",
		Fix:      "move the old backup away",
		Commands: brokersCommands,
	},
	{
		Code: CodeBrokerConverted, Room: "migrate", Class: ClassBrokers, Severity: model.SevInfo,
		Title:    "meta.properties version 0 becomes version 1 (backup kept)",
		Meaning:  "The dir becomes a KRaft broker's: node.id, cluster.id and a directory.id, the ZooKeeper-mode file kept beside it.",
		Commands: brokersCommands,
	},
	// migrate configs.
	{
		Code: CodeSettingRemoved, Room: "migrate", Class: ClassConfigs, Severity: model.SevInfo,
		Title:    "a setting the KRaft file leaves out",
		Meaning:  "ZooKeeper settings and settings Kafka 4.x removed are dropped; the finding names what replaces them.",
		Commands: configsCommands,
	},
	{
		Code: CodeSettingReplaced, Room: "migrate", Class: ClassConfigs, Severity: model.SevInfo,
		Title:    "a setting the KRaft file replaces",
		Meaning:  "broker.id becomes node.id, delegation.token.master.key becomes delegation.token.secret.key, and a ZooKeeper authorizer becomes StandardAuthorizer, which reads the migrated ACLs.",
		Commands: configsCommands,
	},
	{
		Code: CodeControllerAccess, Room: "migrate", Class: ClassConfigs, Severity: model.SevWarning,
		Title:    "the controllers' authorizer must let the brokers (User:ANONYMOUS) register",
		Meaning:  "Brokers reach the controllers on the PLAINTEXT controller listener as User:ANONYMOUS, which the authorizer must let register.",
		Fix:      "add User:ANONYMOUS to super.users on the controllers, or secure the controller listener and name its principal in super.users",
		Commands: configsCommands,
	},
}

// Checks is migrate's table: plan, apply, brokers and configs.
func Checks() model.Checks { return checks }

// finding makes a finding of a check the plan, brokers or configs
// report: one of migrate's own, or one of model's shared checks, which
// takes the class of the step that reports it.
func finding(chk *model.Check, class, entity, msg, fix string) model.Finding {
	f := chk.Finding(entity, msg, fix)
	if f.Class == "" {
		f.Class = class
	}
	return f
}

// check looks a code up in migrate's table, then in model's shared one.
func check(code string) *model.Check {
	if c, ok := checks.Lookup(code); ok {
		return c
	}
	return model.CommonChecks().Must(code)
}
