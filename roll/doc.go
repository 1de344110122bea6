// Package roll judges rolling restarts: may node N be stopped now (Check),
// is it back after its restart (Back), and in which order should a set of
// nodes be restarted (Order). It is a judge: one read of a source in (the
// image, the quorum's replication state, the effective configs), a
// verdict out; it reads nothing and writes nothing. `kmeta roll wait`
// re-reads the source until Back says so, which needs no write and no
// reader of its own.
//
// # Safe to stop (Check)
//
// The rules are the ones Strimzi's KafkaRoller applies before it restarts
// a pod (KafkaAvailability), with the effective min.insync.replicas as
// Kafka resolves it (model.ConfigResolver: topic config, the broker's
// dynamic config, the cluster default, the broker's server.properties,
// Kafka's default, for the broker that will lead the partition once N is
// down, since the leader checks it on every acks=all produce). With
// eligible leader replicas on (Kafka 4.1+ formats them on), the
// controller writes a cluster-level min.insync.replicas (its own value,
// 1 by default) as a dynamic cluster default: it hides what the brokers'
// server.properties set, for Kafka and so for roll (the real-Kafka test
// turns ELR on and sees both stop refusing). For every
// partition with a replica on broker N, counting only live in-sync
// replicas (registered, not fenced, not in controlled shutdown, not
// reported offline):
//
//	N is the last live in-sync replica           roll-takes-offline
//	live ISR < min ISR (N holds a replica)       roll-already-under-min-isr
//	N in the ISR and live ISR == min ISR         roll-under-min-isr
//
// Internal topics are judged like the others. A broker that leads
// partitions whose followers are out of sync is said (a warning that does
// not block). A controller that votes blocks when the voters caught up
// with the leader without it are not a majority (voters.Judge's
// RestartSafe: a voter is caught up when the leader's last caught-up time
// minus its own is under controller.quorum.fetch.timeout.ms), or when the
// quorum has no leader; a combined node gets both checks. The quorum's
// leader and ZooKeeper's /controller holder are said (restart them last).
//
// A fact the verdict needs that the source does not report is never
// guessed: a config layer (static configs are in no metadata record: a
// log dir or ZooKeeper read needs --config ID=server.properties; a
// stopped broker does not answer DescribeConfigs), the voters' fetch
// times (a log dir has none), the partitions (controllers do not describe
// them). Each is named with how to get it, and the answer is Unknown
// unless something else already blocks.
//
// # Back (Back)
//
// A broker is back when it is registered and unfenced and not in
// controlled shutdown (KRaft) or present in /brokers/ids (ZooKeeper
// mode), and in the ISR of every partition it hosts that has a live
// leader (a partition without one cannot take it back; those are named,
// not waited for). A voter is back when it fetches and is caught up with
// the leader. These are what operators check by hand: kafka-topics
// --describe --under-replicated-partitions, kafka-metadata-quorum describe
// --replication.
//
// # Order (Order)
//
// Voting controllers first, dedicated before combined, the quorum's
// leader last of them; then brokers, those leading fewer partitions
// first, the holder of ZooKeeper's /controller last. The same rule orders
// the restarts that migrate stage and rollback print.
package roll
