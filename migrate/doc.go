// Package migrate converts a stopped ZooKeeper-mode Kafka cluster into the
// files a Kafka 4.x KRaft cluster starts on, offline: no migration bridge,
// no dual writes, no 3.9 hop.
//
// # The procedure
//
//  1. plan (NewPlan): the ZooKeeper image (zkread, through model.Image) and
//     a target metadata.version become a Plan: findings (model.Finding,
//     stable MIGRATE_* codes, each blocker with its fix and, where one
//     exists, the --override NAME that lifts it) and the exact content
//     apply writes (the record list, its counts, its SHA-256, the files).
//     A plan is data: apply re-plans from the same source and refuses when
//     the zxid or the records' SHA-256 differ (Replan), so plan and apply
//     cannot drift.
//  2. apply (Apply): per controller, DIR/controller-ID/ holding
//     bootstrap.checkpoint and meta.properties v1 (node.id, ZooKeeper's
//     cluster.id, a directory.id derived from cluster id and node id).
//  3. brokers (ConvertBrokers): on each broker host, every partition dir of
//     every log dir is accounted for against the plan's assignment and
//     topic ids before anything is written; then partition.metadata is
//     written where missing and meta.properties v0 becomes v1, its original
//     kept as meta.properties.kmeta-zk-backup. Log data is never touched.
//     This matters: Kafka 4.x renames every partition dir whose topic id or
//     assignment its metadata does not know to *-stray on first start.
//  4. configs (KRaftConfig): a broker's server.properties becomes the KRaft
//     file of a broker (process.roles, node.id, controller.quorum.voters,
//     the CONTROLLER listener in the protocol map, ZooKeeper settings and
//     settings 4.x removed dropped and named with their replacement,
//     AclAuthorizer replaced by StandardAuthorizer) or of a controller
//     (its own listener and metadata dir, plus the authorizer, super users,
//     token secret and topic defaults taken from the broker's file).
//
// # Why bootstrap.checkpoint, not a snapshot
//
// A 4.x controller whose log has no metadata.version yet reads
// bootstrap.checkpoint and appends every data record in it, verbatim and
// in order, as its first transaction (BeginTransaction, the records,
// EndTransaction; one atomic batch below 3.6-IV1, where Kafka refuses more
// than 10,000 records: MIGRATE_TOO_MANY_RECORDS). The controller thus
// writes the log itself, with its own leader epoch, LeaderChange and
// offsets, and replays the records through its own managers, and brokers
// fetch them as ordinary records. A snapshot file would need a matching
// quorum-state, epochs and the same file on a majority of voters. The
// acceptance test (cmd/kmeta TestMigrateZKClusterToKRaft) proves the
// choice on real Kafka 4.4.0.
//
// # What is written (Kafka's MetadataImage.write order)
//
// FeatureLevelRecords first (metadata.version, then every feature at its
// default for that level, as kafka-storage format --release-version
// writes them; kraft.version stays 0, a static quorum); per topic a
// TopicRecord with ZooKeeper's topic id and its PartitionRecords (replicas,
// ISR, leader and leader epoch from the state znode, partition epoch = the
// state znode's data version, adding/removing replicas, directories
// MIGRATING); ConfigRecords (topic, broker, cluster default "");
// ClientQuotaRecords; the ProducerIdsRecord (ZooKeeper's next block, never
// behind it); AccessControlEntryRecords; UserScramCredentialRecords;
// DelegationTokenRecords. Each record at the version features says the
// target level allows (Catalog.RecordVersion). Brokers and controllers
// register themselves; nothing is written for them.
//
// Not migrated, as in Kafka's own migration: /controller, /brokers/ids,
// /admin/reassign_partitions, /admin/preferred_replica_election, change
// notifications, /consumers. Topics pending deletion are a blocker; with
// --override drop-pending-deletions they are left out and Kafka sets their
// partition dirs aside. Topics without a topic id (before 2.8) get one
// derived from the cluster id and the name, so apply and brokers agree.
//
// # Writes
//
// Every file goes through putFile: unchanged when it already holds the
// bytes, refused when it holds others (unless --force), else written to a
// temporary file, fsynced, renamed and the directory fsynced. Files that
// mark a dir as done (meta.properties) go last. A kill -9 at any point
// therefore leaves either the old or the new file, and a rerun finishes
// the job. Hook is called at every file boundary for fault injection.
package migrate
