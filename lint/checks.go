package lint

import (
	"sync"

	"github.com/kmeta/kmeta/model"
)

// lint's rules are its checks: Checks makes each rule of the registry a
// model.Check (its code, family as the class, severity and title are the
// rule's own), with what its findings mean and the fix they carry from
// ruleDocs below. The four codes lint shares with other rooms
// (reassignment-in-flight, broker-fenced, quorum-single-voter,
// quorum-even-voters) are declared once, in the model's table, which
// names lint among their commands; their rules are not repeated here.

// ruleDoc is what a rule's findings mean and the fix they carry (BOOTSTRAP
// is the cluster's address, ZOOKEEPER the ensemble's, as in the fixes).
type ruleDoc struct{ meaning, fix string }

var ruleDocs = map[string]ruleDoc{
	CodeReplicationFactorOne: {
		"Every write of the topic has one copy: losing that broker's disk loses the partition's data, and the partition is offline while the broker is down.",
		"kafka-reassign-partitions --bootstrap-server BOOTSTRAP --reassignment-json-file FILE --execute, with a plan raising the replicas to 3 on available brokers (the finding's fix writes it; none for a topic marked for deletion, which Kafka does not reassign, or a partition without a leader on an available broker, whose broker must come back first)"},
	CodeReplicationFactorBelow: {
		"With one broker down, a second failure loses data or availability; 3 replicas is the usual floor.",
		"kafka-reassign-partitions --bootstrap-server BOOTSTRAP --reassignment-json-file FILE --execute, with a plan raising the replicas to 3 on available brokers (the finding's fix writes it; none for a topic marked for deletion, which Kafka does not reassign, or a partition without a leader on an available broker, whose broker must come back first)"},
	CodeInternalTopicRF: {
		"Kafka's own state (consumer offsets, transactions, share groups, remote log metadata) is lost or unavailable with one broker when its topic has fewer than 3 replicas on a cluster that has 3 brokers.",
		"kafka-reassign-partitions --bootstrap-server BOOTSTRAP --reassignment-json-file FILE --execute, with a plan raising the replicas to 3 on available brokers (the finding's fix writes it; none for a topic marked for deletion, which Kafka does not reassign, or a partition without a leader on an available broker, whose broker must come back first)"},
	CodeMinISRNotBelowRF: {
		"acks=all writes fail (NotEnoughReplicas) as soon as one replica is down or lagging: the effective min.insync.replicas (topic, else broker or cluster default; with ELR on, the cluster-level value) leaves no replica to spare.",
		"kafka-configs --bootstrap-server BOOTSTRAP --alter --entity-type topics --entity-name TOPIC --add-config min.insync.replicas=RF-1"},
	CodeMinISROne: {
		"An acks=all write is acknowledged with one copy when the ISR has shrunk to the leader; losing that broker loses the write.",
		"kafka-configs --bootstrap-server BOOTSTRAP --alter --entity-type topics --entity-name TOPIC --add-config min.insync.replicas=2"},
	CodeUncleanElection: {
		"A replica outside the ISR may become leader: writes acknowledged by the ISR are lost.",
		"kafka-configs --bootstrap-server BOOTSTRAP --alter --entity-type topics|brokers ... --add-config unclean.leader.election.enable=false"},
	CodeELRUncleanPending: {
		"No replica is known to hold every committed write (no leader, ISR or eligible leader replica, only the last known ELR): the partition stays offline until an unclean election, which may lose writes.",
		"kafka-leader-election --bootstrap-server BOOTSTRAP --election-type unclean --topic TOPIC --partition N"},
	CodePartitionOffline: {
		"Producers and consumers of the partition fail until a replica in the ISR comes back.",
		"start the broker(s) holding its replicas, then check: kafka-topics --bootstrap-server BOOTSTRAP --describe --unavailable-partitions"},
	CodePartitionUnderMinISR: {
		"The ISR is smaller than the effective min.insync.replicas: acks=all producers get NotEnoughReplicas, and writes stop now.",
		"start the broker(s) out of the ISR, then check: kafka-topics --bootstrap-server BOOTSTRAP --describe --under-min-isr-partitions"},
	CodePartitionUnderReplicated: {
		"The partition has fewer in-sync copies than its replication factor (replicas a reassignment is adding left out): one more failure may take it offline or lose writes.",
		"start the broker(s) out of the ISR or let them catch up, then check: kafka-topics --bootstrap-server BOOTSTRAP --describe --under-replicated-partitions"},
	CodeReplicasUnavailable: {
		"Every replica of the partition is on a fenced or unregistered broker: no broker can serve it.",
		"start the broker(s) holding its replicas, then check: kafka-topics --bootstrap-server BOOTSTRAP --describe --unavailable-partitions"},
	CodeStaticConfigInvalid: {
		"A node's server.properties sets a config lint reads to a value Kafka refuses (its ConfigDef: min.insync.replicas an INT of at least 1, unclean.leader.election.enable a BOOLEAN, true or false, leader.imbalance.per.broker.percentage an INT in Kafka 3.x, which 4.0 removed): Kafka validates the file when the node starts and does not start it (ConfigException \"Invalid value ... for configuration ...\"), and kmeta judges nothing by the value. A key only Kafka 3.x defines is reported where the node is known to run 3.x or earlier (a ZooKeeper-mode source, or a broker registration supporting no metadata.version above 3.9-IV0); elsewhere the rule's run says it did not judge it.",
		"set the config in the node's server.properties to a value Kafka accepts (or remove it: Kafka's default stands), then start the node"},
	CodeBrokerShuttingDown: {
		"The broker's leaders are moving away and it leaves the ISRs: redundancy drops until it is back.",
		""},
	CodeLeaderRecovering: {
		"The partition's leader was elected uncleanly and is recovering: the partition lost its clean history, acknowledged writes may be gone, and its ISR is the leader alone until recovery ends.",
		""},
	CodeReplicasSameRack: {
		"Losing that rack takes out more than one copy of the partition, although the cluster has racks to spread them over.",
		"kafka-reassign-partitions with a plan spreading the replicas over racks (the finding's fix writes it)"},
	CodeBrokerNoRack: {
		"Rack-aware placement cannot place the broker's replicas, and Kafka refuses rack-aware topic creation (kafka-topics --create fails unless --disable-rack-aware).",
		"set broker.rack in the broker's server.properties and restart it"},
	CodeLeaderImbalance: {
		"The broker does not lead partitions it is the preferred leader of (in ZooKeeper mode, more of them than the controller's leader.imbalance.per.broker.percentage allows; a KRaft controller has no threshold and, with auto.leader.rebalance.enable, moves each such partition back where its preferred replica is in the ISR and unfenced): leaders, and with them produce and fetch load, pile up on fewer brokers.",
		"kafka-leader-election --bootstrap-server BOOTSTRAP --election-type preferred --all-topic-partitions"},
	CodeBrokerNoReplicas: {
		"An available broker adds nothing to durability or capacity until partitions are moved to it (kafka-reassign-partitions --generate proposes a move).",
		""},
	CodeReplicasUnbalanced: {
		"Disk, network and replication load pile up on the brokers above the mean replica count, and a failure of one of them hits more partitions.",
		"kafka-reassign-partitions with a plan moving replicas from the brokers above the mean to those below (the finding's fix writes it)"},
	CodePreferredUnbalanced: {
		"Leaders go to their preferred replicas (auto.leader.rebalance.enable, kafka-leader-election): with these replica orders, produce and fetch load stays uneven even when every leader is preferred.",
		"kafka-reassign-partitions with a plan reordering replicas (the finding's fix writes it)"},
	CodeThrottleLeftSet: {
		"Replication throttles left from a finished reassignment keep the replication of these replicas capped: after a broker failure they catch up slowly, or never under load.",
		"kafka-configs --bootstrap-server BOOTSTRAP --alter ... --delete-config the throttle settings"},
	CodeDeletionPending: {
		"The topic is marked for deletion (/admin/delete_topics) and still there: the controller deletes it only when every replica's broker is up, and a migration refuses it.",
		""},
	CodeStaleNotifications: {
		"Preferred-election requests and isr_change or log_dir_event notifications the controller never consumed: the controller processes and deletes them, so ones that stay mean it does not, and a new election request is refused while /admin/preferred_replica_election exists.",
		""},
	CodeMetadataBehind: {
		"metadata.version is below the highest production level every registered node supports: the features of the newer levels (and their fixes) stay off until it is raised.",
		"kafka-features --bootstrap-server BOOTSTRAP upgrade --metadata LEVEL"},
	CodeMigrationHalfDone: {
		"A ZooKeeper to KRaft migration left half done: a /migration znode (ZooKeeper-mode brokers and tools writing there diverge from KRaft), ZkMigrationState PRE_MIGRATION or MIGRATION (ZooKeeper is still needed; finish or roll back), or POST_MIGRATION with ZooKeeper-mode brokers still registered (the controller no longer sends them leadership and metadata).",
		"restart the ZooKeeper-mode brokers in KRaft mode, then the controllers without zookeeper.metadata.migration.enable (the finding names the step left)"},
	CodeZKController: {
		"ZooKeeper's /controller and /controller_epoch disagree with the brokers, the migration or the partition states: no controller elects leaders (a /controller naming a broker that is gone, or a KRaft controller's claim left without /migration), every controller write fails (no /controller_epoch), or the controller refuses partitions a higher epoch wrote (\"Leader and isr path written by another controller\").",
		"zookeeper-shell ZOOKEEPER delete /controller (and set or create /controller_epoch as the finding says)"},
}

var (
	lintChecks     model.Checks
	lintChecksOnce sync.Once
)

// Checks is lint's table: one check per rule, in the registry's order,
// the codes model declares left out.
func Checks() model.Checks {
	lintChecksOnce.Do(func() {
		for _, r := range Rules() {
			if _, shared := model.CommonChecks().Lookup(r.Code); shared {
				continue
			}
			d := ruleDocs[r.Code]
			lintChecks = append(lintChecks, &model.Check{
				Code: r.Code, Room: "lint", Class: string(r.Family), Severity: r.Severity,
				Title: r.Title, Meaning: d.meaning, Fix: d.fix, Commands: []string{"lint"},
			})
		}
	})
	return lintChecks
}
