// Package zkdeps judges whether anything but Kafka still uses a
// ZooKeeper ensemble: the last question before the ensemble is switched
// off after a ZooKeeper→KRaft migration (`kmeta zk dependents`, and
// `kmeta migrate stage KRaft` / `migrate status` in PreKRaft).
//
// It is a judge over zkread's raw tree (read from the ensemble's root,
// not Kafka's chroot), the data dir's session table and transaction
// stream (zkread.Replay, fed into a History), and a live ensemble's
// connected clients (zkread.AskConnections: the four-letter word cons,
// or the AdminServer's connections command). It reads nothing itself:
// Judge(Input) → *Result, with one finding per dependent (checks.go).
//
// # What is Kafka's
//
// Data: the znodes Kafka 3.9 defines under its chroot (paths.go,
// kafkaPaths: ZkData.scala's paths, kept as data with their source), and
// the chroot's parents; ZooKeeper's own /zookeeper. Every other znode is
// grouped (outside the chroot by its top-level path, or the first path
// off the chroot's own: /kafka/dev beside /kafka/prod; inside by the
// first path Kafka does not define) into a dependent with its znodes,
// bytes, last change (mzxid and mtime), its ephemerals and, where the
// name is well known, its owner (owners.go: HBase, Solr, HDFS and YARN
// HA, CMAK, Cruise Control, Burrow, Curator, Schema Registry...; a group
// holding brokers/ids or cluster/id is another Kafka cluster). Below
// /consumers (which Kafka makes) only the old ZooKeeper-based consumer
// ever wrote: each group there is zk-old-consumer-offsets.
//
// Sessions: a session is Kafka's when it shows itself so. A broker owns
// ROOT/brokers/ids/N (and, as ZooKeeper-mode controller, ROOT/controller)
// as ephemerals, in the tree, in the snapshot the replay starts from or
// in a logged create. A KRaft controller in a migration claims
// ROOT/controller persistently with a kraftControllerEpoch >= 0 and
// writes ROOT/migration (created, set, or checked in the multi that
// fences each dual write). A broker with AclAuthorizer has a second
// session that owns nothing and writes only ACLs: it is paired with its
// broker (judge.pairAuthorizers: from the logs, the session that wrote
// nothing but ACLs, opened within two minutes after the broker
// registered; live, the session from the broker's host nearest in
// establishment, when /kafka-acl exists). Kafka's client also opens a
// short session to make the chroot (createChrootIfNecessary); creating
// the chroot and its parents is Kafka's. A session that only deleted
// /migration and /controller is the migration's cleanup (kmeta migrate
// stage KRaft's steps, or a rollback's): listed apart, not a dependent.
// Only roles under Kafka's chroot count; one under another root is
// another cluster's.
//
// Every other session is a dependent when it wrote anything (from the
// logs, grouped by area: old consumer offsets under /consumers; admin
// writes under /admin, /config, /config/changes, /kafka-acl*,
// /isr_change_notification...; other systems' trees) or is open (the
// session table, an ephemeral it holds, a live connection). Its code is
// what it did: zk-session-kafka-writes (it wrote Kafka's znodes: a
// --zookeeper tool, CMAK), zk-session-consumer-commits, zk-session-
// other-writes, zk-session-open. A History keeps per session its
// writes per znode (at most maxPaths, the rest counted) and nothing of
// a Kafka session's writes to its own tree, so memory follows sessions,
// not transactions.
//
// Kafka itself: sessions of the cluster's own still open (brokers in
// ZooKeeper mode or migrating, their authorizers, KRaft controllers in
// migration) are zk-kafka-connected: not a dependent, but not safe to
// stop either.
//
// # The verdict
//
// SafeToStop: no dependent, no Kafka session open, and a whole history.
// A damaged history (torn or damaged logs, entries past a zero length,
// a hole: model.WarnTornTail, WarnZKLogDamaged, WarnZKLogEntriesPastEnd,
// WarnCoverageHole) is zk-history-damaged, named with its file and
// position; the verdict rests on what was read and is never "safe".
// Checked and NotChecked say what the verdict rests on, per source: a
// live ensemble keeps no record of who wrote what (sessions that ended
// are not seen) and answers cons only when 4lw.commands.whitelist allows
// it (or the AdminServer with admin.enableServer); a data dir has no
// addresses and no history before its oldest snapshot the logs go on
// from; a dump holds Kafka's chroot only, with no session table.
// Once no session of the cluster is open, the cluster's own metadata
// the chroot keeps (topics, configs and quotas, SCRAM credentials,
// ACLs, tokens) is either a copy KRaft also holds or the only record of
// a cluster that is merely stopped, and ZooKeeper alone cannot say
// which: it is listed as not checked, with the kmeta verify command that
// proves it, unless /migration records Kafka's migration copying it (a
// KRaft metadata offset >= 0).
// zk-dependents-not-checked carries the not-checked list where a
// caller (migrate) shows it as a warning.
package zkdeps
