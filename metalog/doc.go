// Package metalog reads and writes the files of Kafka's KRaft metadata log:
// `__cluster_metadata-0` segments, raft snapshots (`.checkpoint`) and
// `bootstrap.checkpoint`, plus the small files around them. All three data
// files are plain sequences of v2 record batches; this comment is the
// format reference the code follows.
//
// # Record batch v2
//
// All integers are big-endian. Positions are from the start of the batch.
//
//	 0  int64  baseOffset            first offset (restarts at 0 in snapshots)
//	 8  int32  batchLength           bytes after this field (batch size - 12)
//	12  int32  partitionLeaderEpoch  raft leader epoch; snapshot epoch; 0 in bootstrap
//	16  int8   magic                 2
//	17  uint32 crc                   CRC-32C (Castagnoli) of bytes [21, end)
//	21  int16  attributes            see below
//	23  int32  lastOffsetDelta       lastOffset = baseOffset + lastOffsetDelta
//	27  int64  baseTimestamp
//	35  int64  maxTimestamp
//	43  int64  producerId            -1 in KRaft
//	51  int16  producerEpoch         -1 in KRaft
//	53  int32  baseSequence          -1 in KRaft
//	57  int32  recordsCount          never compressed
//	61  ...    records               one compressed block when the codec is not none
//
// The CRC does not cover baseOffset, batchLength, partitionLeaderEpoch or
// magic. The next batch starts at position + 12 + batchLength.
//
// Attributes: bits 0-2 codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd), bit
// 3 LogAppendTime, bit 4 transactional, bit 5 control batch, bit 6 delete
// horizon. KRaft never compresses, but readers accept every codec: gzip is
// RFC 1952; Kafka's snappy is snappy-java's xerial framing (magic
// 82 'SNAPPY' 00, int32 version, int32 compatible version, then blocks of
// int32 length + raw snappy), while other clients write one raw snappy
// block, so both are read; lz4 is the LZ4 frame format; zstd is a zstd
// frame.
//
// # Records
//
// Inside the (decompressed) records section each record is:
//
//	varint   length          bytes after this field
//	int8     attributes      unused
//	varlong  timestampDelta  from baseTimestamp
//	varint   offsetDelta     from baseOffset
//	varint   keyLength       -1 = null
//	bytes    key
//	varint   valueLength     -1 = null
//	bytes    value
//	varint   headersCount
//	headers  varint keyLength + key (never null), varint valueLength (-1 null) + value
//
// varint/varlong are zig-zag base-128 (at most 5/10 bytes), read with
// Kafka's overflow rule (ByteUtils): a continuation bit on the last
// allowed byte is malformed, and its bits beyond 32/64 are dropped. One
// decoder (metalog/internal/wire) reads every varint, and
// records.ParseFrame every record frame header; the one record parser
// (parseRecord) and check's fast record walk only decode the one-byte
// forms of both in line, which is nearly every varint and frame header of
// a real log, and leave the rest to them. A record must
// end exactly after its last header, and the batch's records must fill the
// records section exactly and number recordsCount.
//
// # KRaft rules
//
// Kafka's RecordsIterator rejects metadata batches that the generic format
// allows; check's strict mode reports them and the writer never produces
// them: timestampDelta 0; no headers; data records with a null key and a
// non-empty value; control records with a non-empty key and value; control
// types 2-6 only. KRaft also always writes producerId/producerEpoch/
// baseSequence -1, CreateTime, offsetDelta 0..n-1 and lastOffsetDelta
// n-1, which strict mode checks too (as warnings where Kafka does not
// enforce them).
//
// A data record's value is a metadata record frame: three unsigned varints
// (frame version, which must be 1; apiKey; record version), then the body.
// A control record's key is int16 key version (>= 0) + int16 type, and its
// value is the bare body at version 0:
//
//	2 LEADER_CHANGE  3 SNAPSHOT_HEADER  4 SNAPSHOT_FOOTER  5 KRAFT_VERSION  6 KRAFT_VOTERS
//	(0 ABORT and 1 COMMIT are producer-transaction markers, illegal here.)
//
// # Files
//
//	%020d.log                    segment; the number is its base offset
//	%020d-%010d.checkpoint       raft snapshot <endOffset>-<epoch>; endOffset is
//	                             exclusive, internal offsets restart at 0, every
//	                             batch carries the snapshot epoch
//	bootstrap.checkpoint         written by kafka-storage format, epoch 0
//
// Snapshots and bootstrap files start with a control batch whose first
// record is a SnapshotHeader (with KRaftVersion and Voters records in the
// same batch when kraft.version >= 1) and end with a control batch holding
// a SnapshotFooter. The bootstrap reader refuses KRaftVersion and Voters
// records. `00000000000000000000-0000000000.checkpoint` is the KIP-853
// bootstrap snapshot, holding only control records.
//
// Ignored by readers: .index, .timeindex, .txnindex (rebuilt by Kafka),
// .snapshot (producer state, not a raft snapshot), and the transient
// .deleted, .cleaned, .swap, .part. `.lock` is Kafka's lock and is never
// opened, so a directory a running Kafka uses stays readable; its active
// segment may then end inside a batch, which is reported as a torn tail
// (ErrTornTail), not as corruption: Kafka's own recovery truncates it.
// A torn tail is a file that ends inside its last batch. The length field
// is outside the CRC, so a batch whose length runs past the end is
// corruption (ErrBadLength, at its position) when what is left says the
// file goes on: the stored CRC matches the bytes left (the batch is whole)
// or a whole batch at the next offset starts in them (framing.go).
//
// A Raft leader writes a LeaderChange control batch first in its epoch: a
// segment batch that raises the leader epoch without one has a damaged
// partitionLeaderEpoch (also outside the CRC) and is damage
// (epoch-without-leader-change), which replay stops before. A
// __cluster_metadata-0 that is a dangling symlink, a symlink loop, a file
// or a dir without a segment or snapshot is damage too (no-metadata-log),
// never an empty log. So is a metadata log dir with no __cluster_metadata-0
// unless it is what kafka-storage format leaves before Kafka's first start:
// 3.x's format writes meta.properties and bootstrap.checkpoint (its image
// is the bootstrap), 4.x's writes __cluster_metadata-0 with the bootstrap
// snapshot, so a dir without both bootstrap.checkpoint and the partition
// dir, or with a broker's offset checkpoints (Kafka ran there), has lost
// its log. A log of empty segments (what Kafka's log layer creates when a
// node starts, before any record reaches it) with no snapshot is a node
// no leader has written to yet when the bootstrap format wrote is there
// (bootstrap.checkpoint; 4.x's bootstrap snapshot is a snapshot): the
// image is then the bootstrap, which the first active controller writes
// into the log (ActivationRecordsGenerator, "The metadata log appears to
// be empty"), as it is for 3.9's dynamic quorum whose bootstrap snapshot
// holds only the voters; replay says so (bootstrap-only, not partial).
// Without either bootstrap such a log is no-metadata-log too.
//
// An image without a FeatureLevelRecord for metadata.version reports the
// level as not reported (model.FieldMetadataVersion), never as a value:
// with no record replayed at all the input is partial
// (metadata-version-missing, an error); with records, it is what a log
// written before Kafka 3.3 holds, which Kafka 3.x reads at 3.0-IV1, and
// the finding is a warning.
//
// # Directory layout
//
//	<metadata.log.dir>/
//	  meta.properties             Java properties (javaprops); v0: optional broker.id, cluster.id;
//	                              v1: node.id, cluster.id; directory.id optional
//	  bootstrap.checkpoint
//	  .lock
//	  __cluster_metadata-0/
//	    <segments>, <snapshots>, index files
//	    quorum-state              one line of JSON, data_version 0 (with
//	                              currentVoters) or 1 (with votedDirectoryId)
//	    leader-epoch-checkpoint   "0", count, then "<epoch> <startOffset>" lines
//	    partition.metadata        "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
//
// Kafka starts from the newest snapshot and replays the segment records
// from its end offset on. If the log starts above 0, a snapshot must reach
// the log start ("Inconsistent snapshot state" otherwise). A snapshot
// beyond the log end is fine: Kafka truncates the log to it. Kafka's rule
// (truncateToLatestSnapshot) is a snapshot epoch greater than the log's
// latest (leader-epoch-checkpoint), or the same epoch and an end offset
// past the log end offset (one past the last whole batch of the last
// segment, read from the batch headers; when they do not lead exactly to
// the file's end, a torn tail or a damaged length, the log is kept and
// replay reports what it meets): the whole log is discarded, and
// replay, for image and history alike, reads the snapshot alone with a
// WarnLogBehindSnapshot warning. The same-epoch half is checked against
// Kafka 4.4.0's own startup (KafkaRaftLog.createLog, which calls
// truncateToLatestSnapshot) in oracle_truncate_kafka_test.go: a snapshot
// ending one past the log end or far past it empties the log, one ending
// at the log end does not.
//
// Kafka's metadata loader applies a batch whole and publishes images only
// between batches (and outside metadata transactions): the controller
// writes one change's records as one batch (a topic with its partitions).
// So a replay stopped at an offset (ImageOptions.AtOffset) must stop at
// the end of a data batch, or just before a BeginTransactionRecord (the
// loader publishes there, inside a batch too): any other offset inside a
// batch is refused (ErrOffsetInsideBatch, naming the batch's ends), and
// one inside an open transaction leaves it unapplied (WarnUnfinishedTxn).
// An EndTransactionRecord followed by other records of its batch is not a
// point: the loader publishes at the batch's end.
//
// # One verdict on one input
//
// log check, log dump and image reach the same verdict because they run
// the same Checker over the same batches (Check reads every file with it;
// the dumper and LoadImage feed it what they read). Report.Damage is the
// first error finding in reading order. LoadImage applies a batch only
// when the checker accepts it, which is where Kafka 4.4.0's log layer
// stops trusting the log (checked against it, oracle_recovery_kafka_test.go):
//
//   - CRC or framing failures: LogSegment.recover truncates the segment at
//     the first invalid batch (ensureValid).
//   - Offsets that do not follow the previous batch (swapped, repeated or
//     shifted batches, gaps, a wrong baseOffset, which the CRC does not
//     cover): recovery has no check of its own, but the offset index
//     refuses an offset that does not increase (InvalidOffsetException,
//     and the log does not load), and without recovery Kafka's reads by
//     offset hand such batches to the loader out of order or twice. Kafka
//     has no defined answer, so replay stops before the batch.
//   - A leader epoch that goes back, and KRaft's batch rules (Kafka's
//     RecordsIterator throws on them).
//   - A snapshot is applied up to its SnapshotFooter; batches after it are
//     reported (snapshot-after-footer) and skipped, and the log goes on
//     from the snapshot's end, as Kafka's snapshot reader stops there.
//
// Every stop is a WarnReplayStopped finding (partial) at the batch's
// file, position and offset; a record whose value alone does not decode
// is skipped (WarnRecordsSkipped, partial). So are records Kafka's replay
// refuses (MetadataDelta throws: a partition record for a topic no
// TopicRecord created or a partition its topic lacks, a fence for a broker
// not registered at that epoch; a broker reports a metadata load fault and
// skips them, a controller stops): one WarnRecordsSkipped names how many
// and the first, at its offset. An aborted transaction's records are
// dropped by design and are no warning. Damage in files replay does
// not read (segments below the snapshot it starts from, older snapshots,
// an unused bootstrap.checkpoint) is WarnDamageNotReplayed: the image does
// not rest on it. Damage below the snapshot's end in a segment replay then
// takes later batches from (a finding on the whole file, like a segment
// whose name is not its first offset, sits on its first batch) is not
// that: Kafka's recovery truncates a segment at its first invalid batch,
// so replay stops before the first batch it would take from the file
// (WarnReplayStopped). A torn tail of the active segment is what a crash
// leaves, Kafka truncates it, and it is a WarnTornTail warning naming the
// bytes and the offsets lost; anywhere else it is damage. Unreadable
// meta.properties or quorum-state are errors in both check and image
// (never a silent leaderId -1 or empty cluster id). So: log check reports
// an error exactly when the image carries a partial warning or
// WarnDamageNotReplayed, except refused records, which are sound bytes
// only a replay tells apart (log check does not replay), and log dump
// exits 1 exactly when log check does. A record of a type or version
// kmeta does not know (a newer Kafka's, or a damaged frame) is no damage
// of the file, so it is no error and the last known-good offset goes on;
// but image and history skip it (records-skipped), log dump cannot decode
// it, and a Kafka that does not know it throws on it, so log check
// reports it (record-unknown, a warning) and fails (exit 1) as they do.
//
// # Using the package
//
// Reader streams one file with memory bounded by its buffer and the
// largest batch; Batch and Record contents alias its buffers and stay
// valid until the next call to Next. OpenLogDir classifies a path;
// LogDir.PlanReplay and ReplayPlan.Stream give "newest usable snapshot +
// later segment batches", LogDir.Log all segment batches in offset order.
// Check reports problems as model.Finding values (Code is one of the
// Kind* strings, Where the file, byte position or line, and offset) in
// the one findings order; the writers produce byte-exact KRaft batches
// and atomic files. ReadMetaProperties and ReadQuorumState accept exactly
// what Kafka 4.4.0's readers accept (oracle_props_kafka_test.go), for
// ZooKeeper-mode (v0) and KRaft (v1) meta.properties alike, and place
// their errors (*PropsError: line, byte position).
//
// Errors are *CorruptionError (file, byte position, batch offset),
// *PropsError or *FileError, unwrapping to the sentinels in errors.go.
package metalog
