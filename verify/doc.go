// Package verify compares two views of a cluster's metadata (two
// *model.Image) and reports every difference as a model.Finding. It is the
// engine of `kmeta verify` (ZooKeeper against KRaft, with the cross-world
// rules of Kafka's migration) and `kmeta diff` (any two views, e.g. two
// offsets of one metadata log). It imports the model and nothing of the
// readers: the commands load the views.
//
// # How a comparison works
//
// Each side is normalized class by class into maps keyed by an entity
// string ("topic orders", "partition orders-3", "config BROKER <default>",
// "acl TOPIC:LITERAL:orders User:alice@* READ ALLOW"), whose values are
// small structs of exactly the fields that class compares. go-cmp compares
// the two maps of one class; a cmp.Reporter collects each unequal leaf
// (an entity present on one side only, or one field of an entity) and the
// class turns it into a finding. Findings come back in model.SortFindings
// order, so output never depends on map order.
//
// Codes: when the sides are different worlds (verify), an entity or field
// present on one side only is missing-in-kraft or missing-in-zookeeper and
// a value that differs is different; when both sides are the same world
// (diff), they are added, removed and changed (left is "before", right is
// "after"). Explained, expected differences are info findings whose code
// starts with expected-; readiness findings have their own codes.
//
// # Classes
//
// cluster (cluster id), topics (name, id, partition count), partitions
// (replicas, adding and removing replicas; directories only between two
// KRaft views), runtime (leader, ISR, ELR, last known ELR, leader epoch,
// partition epoch, leader recovery state: they legitimately move after a
// migration, so they are warnings, not errors), configs, quotas, acls,
// scram, tokens, producer-ids, features, brokers (endpoints by listener;
// against a live view, which names only the address it was asked through,
// that address's host, port and protocol must be one the other side
// registered), migration, quorum (the voters, their directory ids and
// endpoints, when both sides hold a voter set: two KRaft views), and
// between two ZooKeeper views zookeeper (pending deletions, missing partition
// states, legacy reassignments, /consumers: state Kafka's migration does
// not carry). --ignore CLASS drops a class; the report says how many
// findings it dropped.
//
// # Cross-world rules (reference §6.5 and §8)
//
//   - ACLs are compared by content: Kafka's migration gives every ACL a
//     fresh random id, and the ZooKeeper reader synthesizes them.
//   - The ZooKeeper broker-config entity <default> is the empty name (the
//     reader already maps it); quota <default> is a nil name and user and
//     client-id names are URL-decoded (also done by the reader). Entities
//     print <default> for both.
//   - SCRAM credentials are compared by mechanism, iterations, salt, stored
//     key and server key; findings carry model.ScramFingerprint, never the
//     bytes. Sensitive config values are compared exactly and printed as
//     model.RedactedValue. A side that was already redacted (a dump) is
//     compared by those fingerprints.
//   - Topics pending deletion in ZooKeeper (/admin/delete_topics) are
//     skipped by Kafka's migration (3.6.1+): they and their partitions and
//     configs are left out of the comparison on both sides, with one
//     expected-pending-deletion info finding each, or one different
//     finding when KRaft holds the topic all the same.
//   - A ZooKeeper password config (password.encoder.secret encrypted,
//     "…encryptedPassword:…") is decrypted with Options.PasswordEncoderSecret
//     as the migration does and compared with KRaft's plaintext
//     (password-not-decrypted when the secret does not fit); without the
//     secret a difference is expected-encrypted-password and the report
//     lists the plaintext as not compared.
//   - A topic without id in ZooKeeper (created before 2.8) gets one from
//     the migration: KRaft's id is expected-assigned-topic-id, checked
//     against Options.PlanTopicIDs when the plan is given (a different id
//     stays different), listed as not compared otherwise.
//   - Configs Kafka 4.x removed (message.format.version, …) that KRaft
//     lacks are expected-removed-config: a migration to 4.x leaves them out.
//   - A KRaft view no broker has registered with and that is not migrating
//     online is an offline migration before its brokers start: ZooKeeper's
//     broker registrations (left by brokers killed rather than stopped)
//     are expected-zookeeper-only.
//   - Ids that differ by design are not compared: ACL ids, broker epochs
//     (the znode's czxid against the controller's registration offset),
//     incarnation ids and log dir ids (ZooKeeper has none), partition
//     directories (a migrated PartitionRecord v0 reads as MIGRATING), ELR
//     (ZooKeeper does not track it).
//   - Configs of resource types ZooKeeper cannot hold (CLIENT_METRICS,
//     GROUP) and KRaft brokers that are not migrating ZooKeeper brokers are
//     expected to exist in KRaft only.
//   - Producer ids: the KRaft next id must not be behind ZooKeeper's
//     (kraft-behind, an error: a new block could reuse ids); ahead is
//     kraft-ahead (info). ZooKeeper's next id is block_end+1; when the
//     block was written by a KRaft controller in dual-write (broker -1)
//     its block_start is KRaft's next id, so block_start is compared.
//   - features: every migrating broker registered in KRaft advertises
//     metadata.version [IBP, IBP]; a finalized metadata.version outside it
//     is ibp-mismatch. Other finalized features are compared as they are.
//   - migration: /migration against the ZkMigrationStateRecord.
//
// # Readiness findings (only a comparison shows them)
//
// Those about one view (zk-topic-without-id, zk-partition-state-missing,
// replica-on-unregistered-broker, no-broker-registered, kraft-view-behind)
// never make the views differ (Report.Differ); they stay in the report.
//
// zk-topic-without-id (Kafka's migration aborts on it; not reported for a
// topic KRaft already carries with an id),
// zk-partition-state-missing (Kafka invents ISR and epochs),
// replica-on-unregistered-broker (the migration waits for that broker
// forever; when no broker is registered on either side, a stopped cluster,
// or none in a KRaft view of an offline migration, one info
// no-broker-registered instead), stale-migration-znode (a /migration that says "done" while
// KRaft has not migrated: the controller would skip the migration and
// reconcile ZooKeeper to an empty image), migration-znode-missing,
// kraft-view-behind (the KRaft view ends below the offset /migration says
// was dual-written: the views may differ for that reason alone), and, with
// broker log dirs, partition-metadata-topic-id (a partition.metadata whose
// topic id is not the one ZooKeeper holds).
package verify
