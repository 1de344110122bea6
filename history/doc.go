// Package history is the metadata log as an audit trail: who changed
// what, when, from what to what. It is a judge fed by the one replay
// (metalog's Replayer.Before and Observe on a KRaft log, zkread's
// transaction replay of a ZooKeeper data dir): before each step the
// reader names the entities the step touches (model.EntityRef), the
// Judge reads them from the image as it is (verify.Entities: diff's
// entities and fields, secrets as their fingerprint), and after the
// step reads them again and reports, per entity, the fields that
// changed, before → after. Nothing is kept between steps but the
// entities of the step at hand, so memory is the image's, whatever the
// log's length; changes are handed to the caller one by one (Judge's
// emit), who streams them out.
//
// # A change
//
// Change is one entity's change in one step: where (a KRaft offset, or a
// ZooKeeper zxid and the znode), when (the batch's or the transaction's
// time), the record or operation (TopicRecord, setData), the entity as
// diff names it ("config TOPIC orders"), created, changed or deleted,
// and the fields before and after. A record that touches several
// entities (a RemoveTopicRecord: the topic and its config) makes one
// change each, in the order the reader named them. The records of the
// snapshot replay starts from (or of the tree a data dir's replay starts
// from) are the starting point, not changes.
//
// What a step touches follows the reader's semantics: a PartitionRecord
// its partition and its topic's partition count; a deleted topic its
// topic and config, its partitions summed up in the topic's count; a
// ZooKeeper topic znode (the assignment) the topic and every partition;
// an ACL znode every ACL of its resource (ZooKeeper keeps them in one
// znode); a user's config znode its quotas and SCRAM credentials;
// /admin/delete_topics/<topic> its topic; the legacy
// /admin/reassign_partitions every partition.
//
// A ZooKeeper change also names what only ZooKeeper holds of a topic or
// partition, as fields named as diff's zookeeper class names them: a
// topic's pendingDeletion, a partition's legacyReassignment and
// stateZnodeMissing. The last marks a partition whose state znode the
// controller has not yet written (it writes it after the topic znode):
// its leader, ISR and epochs are then the reader's fill-in, Kafka's
// migration's (ZkMigrationClient), and the controller's write of the
// state znode is a change (stateZnodeMissing unset, and the leader and
// ISR if the controller chose others). A broker without a rack has no
// rack field, as image prints none, rather than an empty rack.
//
// # JSON
//
// AppendJSON writes a change as one JSON object (a line of
// `kmeta history -o json`):
//
//	{"offset":1234,"pointBefore":1231,"time":"2026-01-02T15:04:05.123Z",
//	 "record":"ConfigRecord","kind":"config","entity":"config TOPIC orders",
//	 "action":"changed","before":{"retention.ms":"604800000"},
//	 "after":{"retention.ms":"86400000"}}
//
// pointBefore is the offset a replay stops at for the image just before
// the change (SOURCE@offset=N of image, diff and restore). It is not
// always offset-1: Kafka publishes an image only at the end of a batch,
// or just before a metadata transaction, so a change whose batch begins
// before it (1232-1234 above: one request's three config changes), or
// which belongs to a transaction, has its point before that batch or
// that transaction (see metalog's Replayer.PointBefore).
//
// A ZooKeeper change has "zxid" (a number) and "znode" instead of
// "offset" and "pointBefore" (every zxid is a point: zxid-1 is the one
// before). before and after hold the fields that changed, as strings;
// a field missing from one of them had (or has) no value: a created
// entity has no "before", a deleted one no "after". time is absent when
// the batch has none.
//
// # Filters
//
// Options select entities (verify.Selector: KIND[:GLOB], a topic
// selector taking its partitions and config along), fields (globs; a
// change keeps the fields that match and is dropped when none does) and
// a window (Since, Until: a time, or an offset or zxid). Entities a
// selector cannot pick are not read at all, so a narrow history of a
// long log costs little beyond the replay.
package history
