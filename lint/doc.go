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
// keeps, per key, the offset at which the finding first appeared and
// has held since, and drops it when a re-evaluation no longer reports
// it. The checks are pure functions of the image and the Context, which
// is derived from the image (Context.refresh recomputes it after a
// broker or cluster config change).
//
// The same tracker follows a ZooKeeper data dir's replay (zkread's
// history): each znode a transaction changed is a Change at the
// transaction's zxid (Change.Zxid, Change.Znode), the transaction a
// batch; ZooKeeper's own state (controller, admin and notification
// znodes) is InputZooKeeper.
//
// # Fixes
//
// Each finding's Fix is the Kafka command that applies the fix, printed
// so that it can be run as is: kafka-configs, kafka-reassign-partitions,
// kafka-leader-election, kafka-features, kafka-metadata-quorum, with
// --bootstrap-server the live source's address, or BOOTSTRAP where the
// image comes from files and kmeta cannot know the address. Where Kafka
// has no command (start a broker, set broker.rack), the fix says what to
// do and, where one exists, the command that checks it.
package lint
