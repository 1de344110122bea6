// Package lint checks a cluster's metadata image against the rules
// operators check by hand (replication factor, min.insync.replicas,
// unclean election, offline and under-replicated partitions, rack spread,
// leftover throttles, the controller quorum). It is a judge: model in,
// findings out. It never imports a reader, so every source kmeta reads
// (ZooKeeper live, data dir or dump; a KRaft log dir or snapshot at any
// offset; a live cluster) is linted by the same rules.
//
// # The registry
//
// Rules is a list, one file per family (durability.go, availability.go,
// placement.go, leftovers.go, controlplane.go). A rule has a stable
// kebab-case code, a family, the severity of its findings, the image
// fields it reads (Needs: a field a source does not report, listed in
// Image.NotReported, makes the rule "not run", said in the result, never
// a clean pass) and one check function of one of three scopes:
//
//   - Partition: called once per partition, with the topic. Most rules
//     (replication factor, ISR, leaders, racks) are of this scope, and Run
//     walks the partitions once for all of them.
//   - Topic: called once per topic (its configs: min.insync.replicas
//     against the replication factor, unclean election, throttles).
//   - Cluster: called once (brokers, quorum, features, ZooKeeper state,
//     and rules that weigh every partition together, such as balance).
//
// # Effective configs
//
// Every config a rule reads is the value Kafka applies, resolved by
// model.ConfigResolver in Kafka's order: the topic's config, the broker's
// dynamic config (skipped for min.insync.replicas with ELR on), the
// cluster default, the broker's static server.properties, Kafka's
// default; a partition's topic configs are resolved for its leader. A
// leader on Kafka 3.7+ caps min.insync.replicas at the replication factor
// (KAFKA-15583): where the view shows the brokers run 3.7+ (a registration
// supports metadata.version 3.7-IV0, or a server.properties sets
// inter.broker.protocol.version 3.7+), partition-under-min-isr judges by
// the capped value and a value above the replication factor is
// min-isr-not-below-rf's alone; where it cannot tell, the finding says
// what 3.7+ would do.
// Static configs are in no metadata record: a live cluster reports its
// brokers' (DescribeConfigs synonyms), and --config ID=server.properties
// gives them for a log dir, a ZooKeeper source or a dump. A value that
// rests on a layer the source did not report (a file not given, a
// stopped broker's configs) is an assumption: the finding's text says
// what it assumes ("assumes no override in broker 2's server.properties
// (not in this source: pass --config 2=server.properties)"), and the
// rule's run (RuleRun.Assumes) says it too when the assumption gave no
// finding. One broker that does not answer stops no rule: the others'
// configs and the cluster's are judged, and what needs its configs says
// so. A value Kafka refuses of a config lint reads (kafkaValues:
// min.insync.replicas, an INT of at least 1; unclean.leader.election.enable,
// a BOOLEAN, "true" or "false" in any case and nothing else;
// leader.imbalance.per.broker.percentage, an INT, which only Kafka 3.x
// defines and only a ZooKeeper-mode controller reads, so
// preferred-leader-imbalance reads it on a ZooKeeper-mode source alone:
// on KRaft any partition whose in-sync preferred replica does not lead
// is its finding) is judged by nothing, never replaced by a default: the rules
// that need it leave what it applies to unjudged and their run says
// where it is set ("not judged where node 1's server.properties (FILE)
// sets min.insync.replicas=\"abc\", which Kafka refuses"), and a
// server.properties holding it is static-config-invalid's error (Kafka
// validates the file at start and does not start the node; for a key
// only 3.x defines, where the node is known to run 3.x or earlier). A
// refused value in a broker's or the cluster's dynamic configs (written
// around Kafka: its AlterConfigs refuses it), or a dynamic value of a
// key Kafka does not update dynamically, is dropped by the broker that
// loads it, which applies the layer below; so does the resolver
// (model.EffectiveConfig.Skipped), and the rule's run and finding say
// what was skipped ("broker 1's dynamic config's
// min.insync.replicas=\"0\" is skipped: ..."). A topic's refused value
// stays unjudged: Kafka validates a topic config when it is set, so
// only a damaged source holds one. An inter.broker.protocol.version
// Kafka 3.x refuses says nothing of the node's release.
//
// # Incremental evaluation (Tracker, lint --history)
//
// The scopes are what makes a tracker fed by replay steps cheap: after a
// record changes one partition, it calls only the Partition checks for
// that partition (and the Topic checks for its topic); after a topic
// config record, the Topic checks of that topic; after a broker
// registration, feature or cluster config record, the Cluster checks,
// plus the Partition and Topic checks whose inputs include brokers or
// cluster configs (Rule.Inputs says which: InputBrokers,
// InputClusterConfig). Findings are keyed by (code, entity), so a tracker
// keeps, per key, the point from which the finding has held and the
// record that made it so, and drops it when a re-evaluation no longer
// reports it. The point is an offset a replay can stop at (Since): the
// caller gives each KRaft batch's (FlushPoint: its end, or the offset
// before a transaction it leaves open), as Kafka publishes no image
// inside a batch. The checks are pure functions of the image and the Context, which
// is derived from the image (Context.refresh recomputes it after a
// broker or cluster config change).
//
// The same tracker follows a ZooKeeper data dir's replay (zkread's
// history): each znode a transaction changed is a Change at the
// transaction's zxid (Change.Zxid, Change.Znode), the transaction a
// batch; ZooKeeper's own state (controller, admin and notification
// znodes) is InputZooKeeper.
//
// # Thresholds
//
// replicas-unbalanced and preferred-leaders-unbalanced flag an available
// broker whose count differs from the mean over the available brokers by
// more than 25% of it and by at least 3 (placement.go says why those
// numbers). Their fix is one plan for the whole cluster, computed here:
// replicas moved (or replica lists reordered, then a preferred election)
// from the most to the least loaded broker until none is far from the
// mean, never putting two replicas of a partition on one rack; a plan of
// more than 500 moves is left to kafka-reassign-partitions --generate.
//
// # The controller-epoch guard (ZooKeeper)
//
// zk-controller-inconsistent checks /controller and /controller_epoch as
// Kafka's ZooKeeper-mode controller relies on them: a KRaft controller's
// persistent claim left without a /migration (no broker can become
// controller), a controller id not in /brokers/ids, /controller without
// /controller_epoch (every controller write is fenced on its version and
// fails), and partition states written by a higher controller epoch than
// /controller_epoch (the controller refuses to change them). During a
// migration the states carry the KRaft controller's raft epoch, so the
// last check waits until /migration is gone.
//
// # Proof on real Kafka
//
// cmd/kmeta's lint_kafka_test.go runs one scenario (lintScenario) on
// Kafka 4.4.0 and 3.9.2 in KRaft mode (views kraft: and kafka://) and
// 3.9.2 in ZooKeeper mode (zk://, zkdata:, zkdump:; kafka:// refuses
// ZooKeeper-mode brokers): each condition made with Kafka's tools or
// zookeeper-shell, each finding awaited on every view that can show it,
// its fix run as printed, the finding cleared, and the cluster clean at
// the end. What a view cannot run is asserted with its reason (a view
// that does not report a field: "not run"; a rule about what the view's
// mode does not have: "not applicable").
//
// # Fixes
//
// Each finding's Fix is the Kafka command that applies the fix, printed
// so that it can be run as is: kafka-configs, kafka-reassign-partitions,
// kafka-leader-election, kafka-features, kafka-metadata-quorum,
// zookeeper-shell, with --bootstrap-server the live source's address, or
// BOOTSTRAP where the image comes from files and kmeta cannot know the
// address (ZOOKEEPER for zookeeper-shell, the chroot appended), and the
// client settings file the live source was read with (Options.
// CommandConfig: --command-config, kafka-leader-election's --admin.config). Where
// Kafka has no command (start a broker, set broker.rack), the fix says
// what to do and, where one exists, the command that checks it. A
// reassignment names only available brokers (kafka-reassign-partitions
// --execute refuses any other), and none is printed where Kafka would
// not run or complete it (a topic marked for deletion, a partition
// without a leader on an available broker): the finding says why.
// zookeeper-shell fixes reach the ensemble as kmeta read it: over TLS
// they name $ZK_TLS_CONFIG_FILE with -zk-tls-config-file (the brokers'
// server.properties will do: Kafka's CLI takes its zookeeper.ssl.*
// settings), and with --zk-auth each command logs in first with
// $KMETA_ZK_AUTH, in a session fed on stdin (an ensemble whose znodes are
// secured refuses anyone else's writes, and a refused delete exits 1);
// an unset variable stops the shell before the CLI runs
// (TestLintZooKeeperFixOnSecuredEnsemble).
package lint
