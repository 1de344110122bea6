package roll

import "github.com/kmeta/kmeta/model"

// Class is the class of roll's findings.
const Class = "roll"

// The codes of roll check's findings.
const (
	CodeTakesOffline      = "roll-takes-offline"
	CodeUnderMinISR       = "roll-under-min-isr"
	CodeAlreadyUnder      = "roll-already-under-min-isr"
	CodeLeadsOutOfSync    = "roll-leads-out-of-sync"
	CodeQuorumMajority    = "roll-quorum-majority"
	CodeQuorumNoLeader    = "roll-quorum-no-leader"
	CodeQuorumLeader      = "roll-quorum-leader"
	CodeZKController      = "roll-zk-controller"
	CodeNotRegistered     = "roll-not-registered"
	CodeCannotTell        = "roll-cannot-tell"
	CodeControllerUnknown = "roll-controller-not-voter"
)

var rollCommands = []string{"roll check", "roll plan"}

// Checks is roll's table of checks (the registry's, internal/registry).
func Checks() model.Checks { return checks }

var checks = model.Checks{
	{Code: CodeTakesOffline, Room: "roll", Class: Class, Severity: model.SevError,
		Title:    "stopping the broker takes partitions offline",
		Meaning:  "the broker is the last live in-sync replica of these partitions: while it is down they have no leader, and neither producers nor consumers are served (an unclean election would lose data)",
		Fix:      "do not stop it now: bring the other replicas back into the ISR first (start the brokers that are down, wait for roll wait), or add replicas",
		Commands: rollCommands},
	{Code: CodeUnderMinISR, Room: "roll", Class: Class, Severity: model.SevError,
		Title:    "stopping the broker leaves partitions under min.insync.replicas",
		Meaning:  "the broker is in the ISR of these partitions and the ISR is exactly at the effective min.insync.replicas: while it is down, acks=all producers get NOT_ENOUGH_REPLICAS (Strimzi's roller refuses the same)",
		Fix:      "wait until their ISR holds more than min.insync.replicas (the other brokers back in sync: roll wait on the one restarted before), then check again",
		Commands: rollCommands},
	{Code: CodeAlreadyUnder, Room: "roll", Class: Class, Severity: model.SevError,
		Title:    "partitions the broker holds are already under min.insync.replicas",
		Meaning:  "these partitions already have fewer live in-sync replicas than min.insync.replicas and the broker holds one of their replicas: stopping it slows their recovery (Strimzi's roller refuses the same)",
		Fix:      "bring their ISR back to min.insync.replicas first (start the brokers that are down and wait for roll wait), then check again",
		Commands: rollCommands},
	{Code: CodeLeadsOutOfSync, Room: "roll", Class: Class, Severity: model.SevWarning,
		Title:    "the broker leads partitions whose followers are out of sync",
		Meaning:  "some replicas of partitions the broker leads are not in the ISR: controlled shutdown moves leadership to an in-sync follower, but the partition runs with fewer copies until they catch up",
		Fix:      "",
		Commands: rollCommands},
	{Code: CodeQuorumMajority, Room: "roll", Class: Class, Severity: model.SevError,
		Title:    "restarting the controller loses the quorum's caught-up majority",
		Meaning:  "without this controller, fewer than a majority of the voters are caught up with the leader (the RestartSafe rule of quorum describe, Strimzi's rule for controllers): the metadata quorum would stop until it is back",
		Fix:      "wait until the other voters are caught up (quorum describe: Status and RestartSafe), then check again",
		Commands: rollCommands},
	{Code: CodeQuorumNoLeader, Room: "roll", Class: Class, Severity: model.SevError,
		Title:    "the metadata quorum has no leader",
		Meaning:  "the quorum is electing a leader or has lost its majority: no controller may be restarted until it has one",
		Fix:      "wait for a leader (quorum describe), start the controllers that are down",
		Commands: rollCommands},
	{Code: CodeQuorumLeader, Room: "roll", Class: Class, Severity: model.SevInfo,
		Title:    "the controller leads the metadata quorum: restart it last",
		Meaning:  "restarting the leader makes the quorum elect another one; restarting the followers first makes that happen once (roll plan puts it last)",
		Commands: rollCommands},
	{Code: CodeZKController, Room: "roll", Class: Class, Severity: model.SevInfo,
		Title:    "the broker holds ZooKeeper's /controller: restart it last",
		Meaning:  "restarting the controller broker makes another one take over and resend the cluster's state; restarting it last makes that happen once (Strimzi's order; roll plan puts it last)",
		Commands: rollCommands},
	{Code: CodeNotRegistered, Room: "roll", Class: Class, Severity: model.SevInfo,
		Title:    "the broker is not registered (stopped, fenced or in controlled shutdown)",
		Meaning:  "the source does not list the broker as live: it is down already, and the verdict is about its replicas as they are",
		Commands: rollCommands},
	{Code: CodeCannotTell, Room: "roll", Class: Class, Severity: model.SevWarning,
		Title:    "the source does not report a fact the verdict needs",
		Meaning:  "kmeta never answers safe on a guess: a config layer the source does not hold (a broker's server.properties, a stopped broker's configs), the voters' fetch times (a log dir holds none), or the partitions (controllers do not describe them) is named, and the verdict is 'could not tell' (exit 2)",
		Fix:      "{FIX}",
		Commands: rollCommands},
	{Code: CodeControllerUnknown, Room: "roll", Class: Class, Severity: model.SevInfo,
		Title:    "the controller is not a voter",
		Meaning:  "the node registered as a controller but is not in the quorum's voter set (an observer, or a controller not added yet): its restart does not weigh on the majority",
		Commands: rollCommands},
}
