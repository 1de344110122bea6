package model

import (
	"fmt"
	"slices"
)

// The model's table of checks: what an image rests on (the Warn* codes,
// which every reader attaches to the image it makes), and the facts that
// several rooms report under one code, declared here because model is the
// one room they all import. A room that reports one of them takes it from
// CommonChecks and gives it its own class (ClassFrom says so).

// Codes several rooms report as one fact.
const (
	// CodePartitionMetadataTopicID: a partition.metadata names another
	// topic id than the one expected (log check, migrate brokers, verify).
	CodePartitionMetadataTopicID = "partition-metadata-topic-id"
	// CodeZKPartitionStateMissing: a ZooKeeper partition without its
	// state znode (migrate plan, verify).
	CodeZKPartitionStateMissing = "zk-partition-state-missing"
	// CodeReassignmentInFlight: a partition reassignment in flight (lint,
	// migrate plan).
	CodeReassignmentInFlight = "reassignment-in-flight"
	// CodeBrokerFenced: a registered broker that is fenced (lint, migrate
	// stage).
	CodeBrokerFenced = "broker-fenced"
	// CodeQuorumSingleVoter and CodeQuorumEvenVoters: the controller
	// quorum's size (lint, quorum describe).
	CodeQuorumSingleVoter = "quorum-single-voter"
	CodeQuorumEvenVoters  = "quorum-even-voters"
)

// Commands that read a view and say what it rests on: the "kmeta:
// warning: CODE" lines on stderr, and an image's "warnings" in JSON.
// (Read them through CommandList, which copies.)
var (
	// KRaftViewCommands read a KRaft metadata log (replay).
	KRaftViewCommands = []string{"image", "features describe", "features check", "lint", "verify", "diff",
		"migrate stage", "migrate status", "migrate rollback", "quorum describe", "log stats",
		"history", "restore", "roll check", "roll plan", "roll wait"}
	// ZKViewCommands read ZooKeeper (live, a data dir, a dump). history
	// reads data dirs only, and zk dump and zk dependents read the
	// ensemble's tree from its root, decoding no znode: the checks that
	// do not apply to all of them say so (Without).
	ZKViewCommands = []string{"image", "zk image", "zk dump", "features describe", "features check", "lint", "verify", "diff",
		"migrate plan", "migrate apply", "migrate stage", "migrate status", "migrate rollback",
		"history", "restore", "roll check", "roll plan", "roll wait", "zk dependents"}
	// LiveViewCommands read a running cluster through its admin API.
	LiveViewCommands = []string{"image", "features describe", "features check", "features upgrade", "features downgrade",
		"features disable", "lint", "verify", "diff", "migrate stage", "migrate status", "migrate rollback", "quorum describe",
		"restore", "roll check", "roll plan", "roll wait"}
)

// Without is list without the names in drop, for a check that some of a
// view's commands never print.
func Without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(c string) bool { return slices.Contains(drop, c) })
}

// CommandList joins lists of command names into one sorted list without
// repeats: the Commands of a check.
func CommandList(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// imageClass says where an image warning's class comes from.
const imageClass = `"log" from a KRaft log's replay or log command; none from a ZooKeeper read`

var commonChecks = Checks{
	{
		Code: WarnReplayStopped, Room: "model", ClassFrom: imageClass, Severity: SevWarning,
		Title:    "replay stopped at a damaged batch: later records are not in the image",
		Meaning:  "Replay stops before the first batch Kafka's log loading would not trust (a CRC or framing failure, offsets that do not follow, an epoch that goes back, a batch KRaft's rules refuse), as Kafka's recovery truncates there. The image holds what was committed before it and nothing after: it is partial, the command exits 1, and verify never calls such a view equal.",
		Fix:      "kmeta log check {PATH} names the damage; read a healthy copy of the metadata log (another controller's)",
		Commands: CommandList(KRaftViewCommands),
	},
	{
		Code: WarnRecordsSkipped, Room: "model", ClassFrom: imageClass, Severity: SevWarning,
		Title:    "records replay could not decode or Kafka's loader refuses were skipped",
		Meaning:  "A record whose frame is sound but whose value does not decode (or is of a type this kmeta does not know) is skipped, as Kafka's loader does, and replay goes on. What the record held is not in the image: it is partial and the command exits 1.",
		Fix:      "kmeta log dump {PATH} shows the records; a newer kmeta may know the record type",
		Commands: CommandList(KRaftViewCommands),
	},
	{
		Code: WarnTornTail, Room: "model", ClassFrom: imageClass, Severity: SevWarning,
		Escalated:     SevError,
		EscalatedWhen: "log check, log dump and log stats find a torn batch anywhere but at the end of the active (last) segment: damage, not a crash's leftover (log check --strict fails on any torn tail, at either severity)",
		Title:         "a file ends inside a batch (or a ZooKeeper transaction log inside a transaction)",
		Meaning:       "The active segment ends in a torn batch, as a crash or a Kafka still appending leaves it. Kafka's recovery truncates it at start, and never committed those bytes, so the image is not partial: it is a warning naming the bytes and offsets lost, and the exit code stays 0. A ZooKeeper transaction log that ends in a torn transaction is the same case. A torn batch anywhere else is damage.",
		Fix:           "nothing, when the copy was taken from a running or crashed node; kmeta log check --strict {PATH} fails a copy that should be complete",
		Commands:      CommandList(KRaftViewCommands, ZKViewCommands, []string{"log check", "log dump", "log stats", "quorum survey"}),
	},
	{
		Code: WarnSnapshotFallback, Room: "model", ClassFrom: imageClass, Severity: SevWarning,
		Title:    "the newest snapshot was unusable: an older one (or the log) was used",
		Meaning:  "The newest snapshot (a KRaft .checkpoint, or a ZooKeeper snapshot) is damaged or past the point in time asked for, so the read starts from an older snapshot and replays more of the log, as Kafka and ZooKeeper do. The image is complete when the log covers the gap (else a coverage-hole says so).",
		Fix:      "kmeta log check {PATH} says what is wrong with the snapshot",
		Commands: CommandList(KRaftViewCommands, ZKViewCommands),
	},
	{
		Code: WarnCoverageHole, Room: "model", ClassFrom: imageClass, Severity: SevWarning,
		Title:    "the log does not reach back to any usable snapshot: records are missing",
		Meaning:  "A KRaft log that starts above every snapshot's end, or ZooKeeper logs that stop before the newest snapshot (or before the zxid asked for): what lies in between is in no file read. The image is partial and the command exits 1.",
		Fix:      "read a complete copy: one whose snapshot reaches the log start",
		Commands: CommandList(KRaftViewCommands, ZKViewCommands),
	},
	{
		Code: WarnUnfinishedTxn, Room: "model", Class: "log", Severity: SevWarning,
		Title:    "a metadata transaction has no end: its records are not applied",
		Meaning:  "A BeginTransactionRecord without its EndTransactionRecord (or AbortTransactionRecord) at the end of the log: Kafka applies a transaction's records only when it ends, so neither does replay. A controller that failed over mid-transaction leaves it; the next leader aborts it.",
		Commands: CommandList(KRaftViewCommands),
	},
	{
		Code: WarnBootstrapAlongside, Room: "model", Class: "log", Severity: SevWarning,
		Title:    "a parent dir's bootstrap.checkpoint was read along with the __cluster_metadata-0 dir",
		Meaning:  "The metadata log dir holds both a bootstrap.checkpoint and a __cluster_metadata-0 partition: the bootstrap file is checked, and replayed only when the partition holds neither snapshot nor segment (then the image is what the controller would bootstrap from it).",
		Commands: CommandList(KRaftViewCommands),
	},
	{
		Code: WarnLenientDecode, Room: "model", Severity: SevWarning, ClassFrom: "none (a ZooKeeper read)",
		Title:    "znodes that do not decode were kept raw or skipped (--lenient)",
		Meaning:  "Under --lenient, a znode whose JSON Kafka would not accept is kept raw or skipped instead of failing the read. What it held is not in the image: it is partial and the command exits 1.",
		Fix:      "read without --lenient to see the first znode that does not decode",
		Commands: Without(CommandList(ZKViewCommands), "zk dump", "zk dependents"),
	},
	{
		Code: WarnTreeChanged, Room: "model", Severity: SevWarning, ClassFrom: "none (a ZooKeeper read)",
		Title:    "a live ZooKeeper tree changed while it was read",
		Meaning:  "A znode appeared, moved or disappeared during a live read, and no stable view was had after retrying: the image may mix states. It is partial and the command exits 1.",
		Fix:      "read again when the cluster is quiet, or read a data dir (zkdata:DIR)",
		Commands: Without(CommandList(ZKViewCommands), "history"),
	},
	{
		Code: WarnChrootDetected, Room: "model", Severity: SevWarning, ClassFrom: "none (a ZooKeeper read)",
		Title:    "the chroot was inferred from the tree",
		Meaning:  "The source named no chroot and Kafka's znodes were found below one (X/brokers/ids or X/cluster/id): kmeta reads that chroot. The image is complete; the warning says which chroot it is.",
		Fix:      "name the chroot in the source (zkdata:DIR/CHROOT, zk://HOST:PORT/CHROOT) to silence it",
		Commands: Without(CommandList(ZKViewCommands), "zk dependents"),
	},
	{
		Code: WarnZKLogDamaged, Room: "model", Severity: SevWarning, ClassFrom: "none (a ZooKeeper read)",
		Title:    "a ZooKeeper transaction log ends early: torn, damaged, or a zxid that repeats or goes back",
		Meaning:  "The read of a ZooKeeper data dir stops at the last good transaction of the log, as ZooKeeper's own load does. Later transactions are not in the image: it is partial and the command exits 1.",
		Fix:      "read another server's data dir, or the live ensemble",
		Commands: CommandList(ZKViewCommands),
	},
	{
		Code: WarnZKLogEntriesPastEnd, Room: "model", Severity: SevWarning, ClassFrom: "none (a ZooKeeper read)",
		Title:    "a ZooKeeper transaction log holds transactions after an entry length of zero or a torn entry",
		Meaning:  "An entry length of zero, or an entry that looks torn (its length runs past the end of the file, its end-of-record byte is not 'B'), ends the log for ZooKeeper and kmeta alike, but well-formed transactions follow it: the files hold more than the tree read from them. A crash tears only the last entry written, so this is damage in the middle of the file, not a torn tail. The image is partial and the command exits 1.",
		Fix:      "read another server's data dir, or the live ensemble",
		Commands: CommandList(ZKViewCommands),
	},
	{
		Code: WarnTopicNameIllegal, Room: "model", ClassFrom: imageClass, Severity: SevWarning,
		Title:    "a topic is named as no Kafka names one",
		Meaning:  "Kafka accepts a topic name of 1 to 249 of a-z, A-Z, 0-9, '.', '_' and '-', never \".\" or \"..\"; a TopicRecord or a /brokers/topics znode holding another name was not written by Kafka: the source is damaged, or made by hand or by a tool. The image holds the topic as the source says, and the commands kmeta prints quote its name (or, where a control character is in it, hold the command back).",
		Fix:      "read a healthy copy of the metadata (another controller's log, the live ensemble); the name is shown escaped in the warning",
		Commands: Without(CommandList(KRaftViewCommands, ZKViewCommands), "zk dump", "zk dependents"),
	},
	{
		Code: CodePartitionMetadataTopicID, Room: "model", Severity: SevError,
		ClassFrom:   `the reporting command's: "log" (log check), "brokers" (migrate brokers), "topics" (verify)`,
		Relaxed:     SevWarning,
		RelaxedWhen: "log check, about the metadata log's own __cluster_metadata-0/partition.metadata, which should hold the fixed metadata topic id: the log itself still reads",
		Title:       "a partition.metadata names another topic id than the one expected",
		Meaning:     "A partition dir's partition.metadata holds the topic id the dir belongs to. A data partition whose file names another id than ZooKeeper's (or the migration plan's) holds an older incarnation of the topic: a broker refuses the partition (inconsistent topic id) once KRaft serves the expected id. __cluster_metadata-0's file should hold the fixed metadata topic id.",
		Fix:         "move the dir of the older incarnation away (migrate brokers refuses to convert it until then)",
		Commands:    CommandList([]string{"log check", "log dump", "log stats", "migrate brokers", "quorum survey", "verify"}, KRaftViewCommands),
	},
	{
		Code: CodeZKPartitionStateMissing, Room: "model", Severity: SevWarning,
		ClassFrom: `the reporting command's: "migrate" (migrate plan), "partitions" (verify)`,
		Title:     "a ZooKeeper partition has no state znode (/brokers/topics/T/partitions/N/state)",
		Meaning:   "The assignment names the partition but its leader and ISR znode is missing. Kafka's migration writes such a partition with ISR = replicas, leader = the first replica and epochs 0, and so does migrate plan; verify expects that in KRaft.",
		Fix:       "nothing to do: the first leader election after the migration sets a real state",
		Commands:  []string{"migrate apply", "migrate brokers", "migrate plan", "verify"},
	},
	{
		Code: CodeReassignmentInFlight, Room: "model", Severity: SevError,
		ClassFrom:   `the reporting command's: "leftovers" (lint), "migrate" (migrate plan)`,
		Relaxed:     SevWarning,
		RelaxedWhen: "lint (a running cluster finishes it on its own), and migrate plan with --override keep-reassignments (copied as it is, the KRaft controller resumes it)",
		Title:       "a partition reassignment in flight (replicas being added or removed)",
		Meaning:     "A partition carries adding or removing replicas. A migration that copies it hands the KRaft controller a half-done move; migrate plan blocks unless told to keep it. On a running cluster the partition carries extra replicas and the move's throttles until the new replicas join the ISR, and one that does not progress is stuck.",
		Fix:         "let it finish, watching it with kafka-reassign-partitions --bootstrap-server BOOTSTRAP --list, or cancel it with kafka-reassign-partitions --bootstrap-server BOOTSTRAP --cancel --reassignment-json-file FILE (the plan that started it)",
		Commands:    []string{"lint", "migrate apply", "migrate brokers", "migrate plan"},
	},
	{
		Code: CodeBrokerFenced, Room: "model", Severity: SevError,
		ClassFrom: `the reporting command's: "availability" (lint), "migration" (migrate stage)`,
		Title:     "a registered broker that is fenced (stopped, or not heartbeating to the controller)",
		Meaning:   "A fenced broker is registered with the KRaft controller but holds no leadership and is in no ISR: its replicas are unavailable and its partitions under-replicated. In an online migration, a fenced broker has not caught up with the metadata log, and the next phase waits for it.",
		Fix:       "start the broker, or look at its server.log for why it does not heartbeat; then wait until it is unfenced",
		Commands:  []string{"lint", "migrate stage"},
	},
	{
		Code: CodeQuorumSingleVoter, Room: "model", Severity: SevError,
		ClassFrom: `the reporting command's: "control-plane" (lint), "quorum" (quorum describe)`,
		Title:     "a controller quorum of one voter: losing it stops every metadata change",
		Meaning:   "With one voter, no leader can be elected while that controller is down: no topic, ISR or broker change happens, and its disk holds the only copy of the metadata.",
		Fix:       "add controllers until there are three (kafka-metadata-quorum add-controller on a dynamic quorum)",
		Commands:  []string{"lint", "quorum describe"},
	},
	{
		Code: CodeQuorumEvenVoters, Room: "model", Severity: SevWarning,
		ClassFrom: `the reporting command's: "control-plane" (lint), "quorum" (quorum describe)`,
		Title:     "a controller quorum of an even number of voters",
		Meaning:   "2n voters survive n-1 failures, as 2n-1 voters do: the extra voter adds a machine to fail and no tolerance.",
		Fix:       "run one voter more or one less",
		Commands:  []string{"lint", "quorum describe"},
	},
}

// CommonChecks is the model's table: the image warnings and the facts
// several rooms report.
func CommonChecks() Checks { return commonChecks }

// Warning is the image warning of one of the model's checks (a Warn*
// code) at where (nil: nowhere in particular), its message formatted.
// It panics on a code the model does not declare.
func Warning(code string, where *Location, format string, args ...any) Finding {
	f := commonChecks.Must(code).Finding("", fmt.Sprintf(format, args...), "")
	f.Where = where
	return f
}
