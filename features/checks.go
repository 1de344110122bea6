package features

import "github.com/kmeta/kmeta/model"

// features' table of checks: the verdict on a metadata.version change
// (features check, Check) and on a feature change request (features
// upgrade, downgrade and disable, Judge), and the lossy-… family, one
// check per kind of content a level cannot hold (Requirement kinds).

var (
	checkCommands  = []string{"features check"}
	changeCommands = []string{"features disable", "features downgrade", "features upgrade"}
	bothCommands   = model.CommandList(checkCommands, changeCommands)
)

var checks = append(model.Checks{
	{
		Code: KindUnknownLevel, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "the target metadata.version is not a level of the catalog",
		Meaning:  "The level (a number, or a name of another catalog: 3.9 and 4.x share names for 22 and 23) is not one the cluster's software has: Kafka refuses it.",
		Fix:      "kmeta features list names the levels of each release",
		Commands: bothCommands,
	},
	{
		Code: KindUnstableLevel, Room: "features", Class: Class, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "features check --allow-unstable (as unstable.feature.versions.enable=true): Kafka accepts it then",
		Title:       "the target level is not a production level",
		Meaning:     "Unstable levels are under development: Kafka accepts them only with unstable.feature.versions.enable=true, and a cluster finalized at one cannot be upgraded or downgraded safely.",
		Fix:         "choose a production level (kmeta features list)",
		Commands:    bothCommands,
	},
	{
		Code: KindBelowMinimum, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "the target level is below the lowest level the catalog bootstraps and finalizes",
		Meaning:  "Kafka 3.9 finalizes metadata.version 3.3-IV0 (4) or later, Kafka 4.x 3.3-IV3 (7) or later: a lower target is refused.",
		Commands: bothCommands,
	},
	{
		Code: KindNotLoadable4x, Room: "features", Class: Class, Severity: model.SevWarning,
		Title:    "Kafka 4.x cannot load metadata at the target level",
		Meaning:  "Kafka 4.x loads metadata at 3.3-IV3 (7) or later: a cluster at a lower level must be raised before it moves to 4.x.",
		Commands: checkCommands,
	},
	{
		Code: KindMetadataChanged, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "the downgrade crosses levels that changed the metadata format",
		Meaning:  "Kafka refuses a metadata.version downgrade when any level in (target, current] changed the metadata format (didMetadataChange), and has no unsafe downgrade for metadata.version, --unsafe or not.",
		Commands: bothCommands,
	},
	{
		Code: KindMigrationActive, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "metadata.version cannot change while a ZooKeeper migration is under way",
		Meaning:  "The controller refuses any metadata.version change while the ZooKeeper migration state is PRE_MIGRATION or MIGRATION: the migrating brokers support only their inter.broker.protocol.version.",
		Fix:      "finish the migration (kmeta migrate status says where it stands), then change the level",
		Commands: bothCommands,
	},
	{
		Code: KindFeatureDependency, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "a finalized feature's level depends on a metadata.version (or feature) the change leaves below it",
		Meaning:  "Each feature level declares the levels it needs (kafka-features feature-dependencies): Kafka refuses a change that leaves a dependency unmet, and kmeta also refuses a metadata.version the finalized features still depend on.",
		Fix:      "lower or disable the dependent feature first",
		Commands: bothCommands,
	},
	{
		Code: KindUnknownFeature, Room: "features", Class: Class, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "features check, about a feature the image already holds finalized (Kafka keeps it; kmeta cannot judge it)",
		Title:       "a feature the catalog does not know",
		Meaning:     "The feature is not one the cluster's software (the catalog) has: Kafka refuses a request to set it, and kmeta cannot say what a level of it needs.",
		Commands:    bothCommands,
	},
	{
		Code: KindUnknownFeatureLvl, Room: "features", Class: Class, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "features check, about a level the image already holds finalized",
		Title:       "a feature level the catalog does not have",
		Meaning:     "The level is below 0 or above the feature's highest level in the catalog: Kafka refuses a request to set it, and kmeta cannot say what it needs.",
		Commands:    bothCommands,
	},
	{
		Code: KindNoMetadataVersion, Room: "features", Class: Class, Severity: model.SevInfo,
		Title:    "the image has no metadata.version: the target is its first level",
		Meaning:  "A ZooKeeper image, or a KRaft log before its first FeatureLevelRecord, has no finalized metadata.version: the check says what the content needs from the first level it gets.",
		Commands: checkCommands,
	},
	{
		Code: KindCurrentUnknown, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "the image's metadata.version is not a level of the catalog",
		Meaning:  "The cluster runs at a level this catalog does not have (a newer Kafka, or the wrong --kafka): the change cannot be judged.",
		Fix:      "name the cluster's release with --kafka",
		Commands: checkCommands,
	},
	{
		Code: KindUnchanged, Room: "features", Class: Class, Severity: model.SevInfo,
		Title:    "the feature is already at the target level",
		Meaning:  "Nothing changes: the request is a no-op.",
		Commands: bothCommands,
	},
	{
		Code: KindNodeUnsupported, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "a registered broker or controller does not support the target level",
		Meaning:  "The controller refuses a level outside the supported range any registered node (fenced brokers included: they are still registered) announced in its registration: every node must run software that supports it first.",
		Fix:      "upgrade the node's software, or unregister a node that is gone (kafka-cluster unregister)",
		Commands: bothCommands,
	},
	{
		Code: KindWrongDirection, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "a lower level asked for as an upgrade, or a higher one as a downgrade",
		Meaning:  "UpdateFeatures carries an upgrade type per feature and Kafka refuses one that does not fit the direction.",
		Fix:      "use kmeta features downgrade for a lower level, upgrade for a higher one",
		Commands: changeCommands,
	},
	{
		Code: KindKRaftVersionDowngrade, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "kraft.version cannot be lowered",
		Meaning:  "Kafka never lowers kraft.version: a dynamic quorum cannot become static again.",
		Commands: changeCommands,
	},
	{
		Code: KindKRaftVersionUpgrade, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "kraft.version 0 to 1 online needs Kafka 4.1 or newer",
		Meaning:  "Kafka 3.9 accepts the request but finalizes kraft.version 1 with voters that have no directory id (kafka-metadata-quorum shows \"directoryId\": null): not a working dynamic quorum. kmeta refuses where Kafka would leave that state.",
		Fix:      "upgrade the cluster to Kafka 4.1 or newer first",
		Commands: changeCommands,
	},
	{
		Code: KindQuorumConfigRoll, Room: "features", Class: Class, Severity: model.SevInfo,
		Title:    "after kraft.version 0 to 1, every node's quorum config must be rolled",
		Meaning:  "kraft.version 1 makes the quorum dynamic: controller.quorum.bootstrap.servers replaces controller.quorum.voters on every node, one node at a time, controllers first.",
		Fix:      "set controller.quorum.bootstrap.servers, remove controller.quorum.voters and restart each node in turn",
		Commands: changeCommands,
	},
	{
		Code: KindDowngradeDisables, Room: "features", Class: Class, Severity: model.SevWarning,
		Title:    "what the downgrade turns off",
		Meaning:  "The levels the downgrade crosses enabled features (ELR, share groups, ...): they are off after it.",
		Commands: changeCommands,
	},
	{
		Code: KindNodeMissingFeature, Room: "features", Class: Class, Severity: model.SevError,
		Title:    "a registered node does not support the feature at all",
		Meaning:  "A node whose registration lists no range for the feature refuses every level above 0, so Kafka refuses the change until the node runs software that has it.",
		Fix:      "upgrade the node's software first",
		Commands: changeCommands,
	},
}, lossChecks()...)

// losses are the kinds of content a level may not hold (Requirement
// kinds), with what is lost. A feature-dependency requirement is not a
// loss: it is refused as feature-dependency.
var losses = []struct{ kind, what string }{
	{ReqFinalizedFeatures, "finalized features other than metadata.version (FeatureLevelRecord needs 3.3-IV0)"},
	{ReqLeaderRecovering, "the leader recovery state of partitions whose leader is recovering after an unclean election (3.2-IV0)"},
	{ReqInControlledShutdown, "the controlled-shutdown state of brokers shutting down (3.3-IV3)"},
	{ReqMigratingZkBrokers, "the registrations of migrating ZooKeeper-mode brokers (3.4-IV0)"},
	{ReqZkMigrationState, "the ZooKeeper migration state (3.4-IV0)"},
	{ReqScramCredentials, "SCRAM credentials (3.5-IV2)"},
	{ReqDelegationTokens, "delegation tokens (3.6-IV2)"},
	{ReqControllerRegistrations, "controller registrations (3.7-IV0)"},
	{ReqBrokerLogDirs, "the log directories brokers registered (JBOD, 3.7-IV2)"},
	{ReqPartitionDirectories, "the log directories assigned to partitions (JBOD, 3.7-IV2)"},
	{ReqELRState, "eligible leader replicas (ELR) state; Kafka drops it without reporting a loss"},
	{ReqCIDRACLs, "ACLs whose host is a CIDR range (4.4-IV1, Kafka 4.x)"},
}

func lossChecks() model.Checks {
	out := make(model.Checks, 0, len(losses))
	for _, l := range losses {
		out = append(out, &model.Check{
			Code: KindLossPrefix + l.kind, Room: "features", Class: Class, Severity: model.SevError,
			Title:    "the target level cannot hold " + l.what,
			Meaning:  "Written at the target metadata.version, the image loses content that needs a higher level: Kafka's image writer drops it (and refuses the change where it checks). A loss is an error, as a refusal is: the change drops data.",
			Fix:      "choose a target at or above the level the content needs (the verdict's requiredMinimum), or remove the content first",
			Commands: checkCommands,
		})
	}
	return out
}

// Checks is features' table: the findings of features check and of a
// feature change.
func Checks() model.Checks { return checks }
