package zkdeps

import "github.com/kmeta/kmeta/model"

// The codes of zk dependents' findings: one per dependent (data or
// session), the damaged history, and (for migrate) what could not be
// checked.
const (
	CodeForeignData          = "zk-foreign-data"
	CodeOldConsumerOffsets   = "zk-old-consumer-offsets"
	CodeSessionKafkaWrites   = "zk-session-kafka-writes"
	CodeSessionConsumerWrite = "zk-session-consumer-commits"
	CodeSessionOtherWrites   = "zk-session-other-writes"
	CodeSessionOpen          = "zk-session-open"
	CodeHistoryDamaged       = "zk-history-damaged"
	CodeKafkaConnected       = "zk-kafka-connected"
	CodeNotChecked           = "zk-dependents-not-checked"
)

// classDependents is the class of every finding here.
const classDependents = "zookeeper-dependents"

var commands = []string{"migrate stage", "migrate status", "zk dependents"}

// checks is this room's table (zk dependents', which migrate stage and
// status print from PreKRaft on).
var checks = model.Checks{
	{Code: CodeForeignData, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "znodes that are not Kafka's: another system keeps state in this ensemble",
		Meaning: "Outside Kafka's chroot, or inside it at a path Kafka 3.9 never writes, znodes hold another system's state; stopping the ensemble takes it away.",
		Fix:     "{OWNER} keeps state under {PATH}: move it to an ensemble of its own ({WHERE}) or keep this ensemble for it; delete the tree only once nothing uses it"},
	{Code: CodeOldConsumerOffsets, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "offsets of an old consumer group stored in ZooKeeper",
		Meaning: "Consumer group offsets under /consumers were committed by the old ZooKeeper-based consumer (Kafka before 2.0, or offsets.storage=zookeeper); no Kafka broker reads them, and they go with the ensemble.",
		Fix:     "move group {GROUP} to Kafka-stored offsets: stop its consumers, write the offsets ZooKeeper holds for it ({PATH}/offsets/TOPIC/PARTITION) to Kafka with printf '%s\\n' {CSV} > {FILE} && kafka-consumer-groups --bootstrap-server BOOTSTRAP --group {GROUPWORD} --reset-offsets --from-file {FILE} --execute, restart them on the Java consumer, then delete {PATH}"},
	{Code: CodeSessionKafkaWrites, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "a session that is neither a broker's nor a controller's wrote Kafka's znodes",
		Meaning: "A client wrote configs, admin requests, ACLs or notifications straight into Kafka's tree: a tool run with --zookeeper (or a manager such as CMAK) that will fail, or write to no one, once Kafka no longer reads ZooKeeper.",
		Fix:     "find the tool ({TOOLS}) from the session's address and what it wrote, and point it at the cluster (--bootstrap-server) instead of ZooKeeper"},
	{Code: CodeSessionConsumerWrite, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "a session commits old consumer offsets to ZooKeeper",
		Meaning: "A client wrote under /consumers: an old ZooKeeper-based consumer committing offsets or registering, which stops working with the ensemble.",
		Fix:     "move the consumer group to Kafka-stored offsets (kafka-consumer-groups --bootstrap-server BOOTSTRAP --reset-offsets --to-offset from the offsets in ZooKeeper) and the clients to the Java consumer"},
	{Code: CodeSessionOtherWrites, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "a session writes another system's znodes",
		Meaning: "A client that is not Kafka wrote znodes of its own in this ensemble: it uses the ensemble and goes down with it.",
		Fix:     "move {OWNER} to an ensemble of its own, or keep this ensemble for it"},
	{Code: CodeSessionOpen, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "a session that is not Kafka's is open",
		Meaning: "A client that is neither a broker nor a KRaft controller of this cluster holds a session (its ephemeral znodes, the session table, or its connection say so): it reads or watches this ensemble.",
		Fix:     "find the client (its address, its ephemeral znodes) and move it off this ensemble; a KRaft controller still running with zookeeper.metadata.migration.enable=true holds one too: restart it on its finalized file"},
	{Code: CodeKafkaConnected, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "Kafka itself still uses the ensemble",
		Meaning: "Sessions of the cluster's own brokers (ZooKeeper mode, or migrating) or of its authorizers are open: the migration is not finished, and stopping ZooKeeper now stops them.",
		Fix:     "finish the migration first: brokers in KRaft mode (kmeta migrate stage KRaftPostMigration), controllers without the migration flag (kmeta migrate stage PreKRaft); kmeta migrate status --zk {SOURCE} says where the cluster stands"},
	{Code: CodeHistoryDamaged, Room: "zkdeps", Class: classDependents, Severity: model.SevError, Commands: commands,
		Title:   "the transaction logs are damaged: the verdict rests on part of the history",
		Meaning: "A torn or damaged transaction log (or a hole in the logs) hides transactions: a dependent may have written there, so the ensemble is never called safe to stop on such a history.",
		Fix:     "read the data dirs of the other servers too (zkdata:DIR1,DIR2,DIR3) or check the ensemble live (zk://HOST:PORT/CHROOT with cons allowed)"},
	{Code: CodeNotChecked, Room: "zkdeps", Class: classDependents, Severity: model.SevWarning, Commands: []string{"migrate stage"},
		Title:   "some uses of ZooKeeper could not be checked",
		Meaning: "What the source cannot show (connected clients when cons is not allowed, writes by sessions that have ended on a live ensemble) was not checked: no dependent was found in what was.",
		Fix:     "run kmeta zk dependents on the ensemble with cons allowed (4lw.commands.whitelist) and on a server's data dir (zkdata:)"},
}

// Checks is zkdeps' table.
func Checks() model.Checks { return checks }
