// Package migrate converts a stopped ZooKeeper-mode Kafka cluster into the
// files a Kafka 4.x KRaft cluster starts on, offline: no migration bridge,
// no dual writes, no 3.9 hop. (A cluster that cannot stop takes Kafka's
// own online migration, phase by phase: package migrate/online.)
//
// # The procedure
//
//  1. plan (NewPlan): the ZooKeeper image (zkread, through model.Image) and
//     a target metadata.version become a Plan: findings (model.Finding,
//     stable kebab-case codes, listed in the README's "Finding codes";
//     each blocker with its fix and, where one exists, the --override
//     NAME that lifts it) and the exact content
//     apply writes (the record list, its counts, its SHA-256, the files).
//     A plan is data: apply re-plans from the same source and refuses when
//     the zxid or the records' SHA-256 differ (Replan), so plan and apply
//     cannot drift. A source that holds stand-ins for its secrets (a
//     redacted dump, a live cluster's admin API) is blocked with no
//     override (secrets-withheld), and emit refuses a stand-in itself
//     (ErrSecretWithheld): a credential without keys lets nobody log in.
//  2. apply (Apply): per controller, DIR/controller-ID/ holding
//     bootstrap.checkpoint (static quorum) or the bootstrap snapshot
//     __cluster_metadata-0/00000000000000000000-0000000000.checkpoint
//     (dynamic quorum), and meta.properties v1 (node.id, ZooKeeper's
//     cluster.id, the directory.id given in --controllers or one derived
//     from cluster id and node id).
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
//     AclAuthorizer replaced by StandardAuthorizer; a dynamic quorum gets
//     controller.quorum.bootstrap.servers instead) or of a controller
//     (its own listener and metadata dir, plus the authorizer, super users,
//     token secret and topic defaults taken from the broker's file).
//     Given the plan (ConfigOptions.Plan, `migrate configs --plan`), the
//     controllers and the quorum kind come from it, so every node's file
//     matches what apply wrote; a contradicting option, a controller id
//     that is not a voter or a broker with a voter's id is refused. The
//     file holds the node's passwords: WriteConfig creates it mode 0600,
//     and CheckConfigOut refuses to write it over the file it is made from.
//
// # Why bootstrap.checkpoint, not a snapshot
//
// A 4.x controller whose log has no metadata.version yet reads
// bootstrap.checkpoint and appends every data record in it, verbatim and
// in order, as its first transaction (BeginTransaction, the records,
// EndTransaction; one atomic batch below 3.6-IV1, where Kafka refuses more
// than 10,000 records: too-many-records). The controller thus
// writes the log itself, with its own leader epoch, LeaderChange and
// offsets, and replays the records through its own managers, and brokers
// fetch them as ordinary records. A snapshot file would need a matching
// quorum-state, epochs and the same file on a majority of voters. The
// acceptance test (cmd/kmeta TestMigrateZKClusterToKRaft) proves the
// choice on real Kafka 4.4.0.
//
// # Static or dynamic quorum
//
// Static (kraft.version 0, the default): every node names the voters in
// controller.quorum.voters and each controller's dir holds
// bootstrap.checkpoint. Dynamic (--quorum dynamic, kraft.version 1,
// KIP-853): the controllers are the initial voters, as kafka-storage
// format --initial-controllers ID@HOST:PORT:DIRECTORY_ID makes them. Kafka
// 4.4.0's formatter then writes no bootstrap.checkpoint: it writes
// __cluster_metadata-0/00000000000000000000-0000000000.checkpoint, a first
// control batch with SnapshotHeader, KRaftVersionRecord {1} and
// VotersRecord (each voter's id, directory id, CONTROLLER endpoint and
// kraft.version 0..1 supported), then the bootstrap records as data
// batches from offset 3, then the SnapshotFooter; the metadata dir's
// meta.properties carries the voter's directory id. The 4.4 controller
// reads its bootstrap records from that file and appends them as it does
// bootstrap.checkpoint's, so apply writes the same file with the whole
// image as its records (TestDynamicQuorumMatchesKafkaFormat compares it
// with Kafka's own output). A dynamic quorum needs metadata.version
// 3.9-IV0 (dynamic-quorum-level). Static is the default because
// it works at every level a 4.x cluster starts on (dynamic needs
// 3.9-IV0), it is the file layout the earlier proofs (parity, levels,
// fault injection) rest on, and Kafka 4.1+ can turn a static quorum
// dynamic online later (kafka-features upgrade --feature kraft.version=1);
// both are proven on three 4.4.0 controllers by the real-Kafka tests.
//
// # Several ZooKeeper data dirs
//
// zkdata:DIR1,DIR2,... (internal/source) reads the newest of several data
// dirs of one ensemble after proving the others are prefixes of its
// history; the plan names the dir it used (zk-data-dir-used) and
// is blocked when they disagree (zk-data-dirs-diverge).
//
// # What is written (Kafka's MetadataImage.write order)
//
// FeatureLevelRecords first (metadata.version, then every feature at its
// default for that level, as kafka-storage format --release-version
// writes them; kraft.version is never a FeatureLevelRecord); per topic a
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
// temporary file, fsynced, renamed and the directory fsynced; a file it
// replaces keeps its mode and owner (a broker's meta.properties stays the
// broker user's). Directories apply creates are fsynced into their parent
// (metalog.MkdirAll). Files that mark a dir as done (meta.properties) go
// last. A kill -9 at any point
// therefore leaves either the old or the new file, and a rerun finishes
// the job. ApplyOptions.FileHook and BrokerOptions.FileHook are called at
// every file boundary, for fault injection.
//
// # At scale
//
// Records are encoded into 1 MiB chunks and the bootstrap file is sized
// once; the plan file is compact JSON, and apply --plan decodes only its
// header (the topics, most of the file, are re-planned from the source and
// compared by SHA-256). Progress (Options.Progress, ApplyOptions.Progress)
// reports partitions planned and bytes written.
package migrate
