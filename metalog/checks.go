package metalog

import "github.com/kmeta/kmeta/model"

// metalog's table of checks: log check's finding kinds (Kind*) and the
// warnings replay adds to an image (Warn*). torn-tail and
// partition-metadata-topic-id are the model's (other rooms report them
// too). Each kind is reported by log check and, as warnings or as the
// damage an image rests on, by every command that reads a metadata log
// (replay carries the checker's findings into the image), and by quorum
// survey for the copy it finds damaged.

// logCommands print log check's findings, or its warnings on stderr.
var logCommands = model.CommandList([]string{"log check", "log dump", "log stats", "quorum survey"}, model.KRaftViewCommands)

// Which snapshot rules a bootstrap file follows (doc.go, "Files").
const batchEpochWhy = "Kafka's snapshot reader checks every batch's partitionLeaderEpoch against the snapshot's epoch"

var checks = model.Checks{
	{
		Code: KindCRCMismatch, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a batch's stored CRC-32C does not match its contents",
		Meaning:  "The bytes of the batch changed after Kafka wrote it (a disk, a copy, an edit). Kafka's recovery truncates the log at the first such batch (ensureValid), so replay stops there: everything after it is missing from the image.",
		Fix:      "read another controller's copy of the metadata log; kmeta quorum survey compares the copies",
		Commands: logCommands,
	},
	{
		Code: KindBadMagic, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a batch's magic byte is not 2 (record batch v2)",
		Meaning:  "KRaft writes only v2 record batches: a batch with another magic is damage (or not a metadata log at all), and Kafka stops trusting the log there.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindBadLength, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "an impossible length: a batch too small to hold its header, too large, or larger than the file",
		Meaning:  "The framing of the log is broken at this batch (or a batch says its last offset is below its first): nothing after it can be located, and Kafka's recovery truncates there.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindBadRecord, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a record inside a batch does not decode, or the records do not match the batch header",
		Meaning:  "A record's framing (its varints, key, value or headers) is malformed, or the records do not number recordsCount or do not fill the records section exactly. The CRC may still match when the batch was written so: either way Kafka refuses the batch.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindCompressionError, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a compressed batch could not be decompressed",
		Meaning:  "The batch names an unknown codec, its compressed block is damaged, or it decompresses beyond the configured cap. KRaft never compresses metadata batches, but readers accept every codec, so this is damage.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindUnreadable, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a data file could not be read",
		Meaning:  "Reading the file failed for a reason that is not one of the format's own (an I/O error, a file that vanished): what it holds is unknown.",
		Fix:      "check the file's permissions and the disk",
		Commands: logCommands,
	},
	{
		Code: KindBadFileName, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a data file's name does not follow Kafka's naming rules",
		Meaning:  "Segments are named by their 20-digit base offset and snapshots by their 20-digit end offset and 10-digit epoch: a data file named otherwise is not read, and whatever it holds is missing.",
		Fix:      "rename or remove the file (Kafka would not read it either)",
		Commands: logCommands,
	},
	{
		Code: KindBadProperties, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "the file parses as Kafka reads it but says what Kafka would not write: a cluster.id that is missing, not a base64 UUID or the zero UUID, or a quorum-state key given twice",
		Title:       "meta.properties, quorum-state, leader-epoch-checkpoint or partition.metadata does not parse",
		Meaning:     "Kafka refuses to start on such a file, and the image would silently lack what it holds (a cluster id, the quorum's leader): the file is read without, and the result is partial.",
		Fix:         "restore the file from another node's copy, or rewrite it as Kafka writes it",
		Commands:    logCommands,
	},
	{
		Code: KindUnknownFile, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "a file Kafka does not write in a metadata log dir",
		Meaning:  "The dir holds a file that is none of Kafka's (segments, snapshots, indexes, quorum-state, leader-epoch-checkpoint, partition.metadata, meta.properties, .lock): it is not read. A copy tool or an operator left it.",
		Commands: logCommands,
	},
	{
		Code: KindEmptyFile, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a snapshot or bootstrap file holds no batches",
		Meaning:  "A snapshot must hold at least its SnapshotHeader and SnapshotFooter: an empty one was cut short or never finished, and Kafka cannot load it.",
		Fix:      "remove the empty snapshot (Kafka starts from an older one or the log), or read another copy",
		Commands: logCommands,
	},
	{
		Code: KindOffsetGap, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a batch starts after the offset the previous batch ended at: offsets are missing",
		Meaning:  "Within a segment or across segments, offsets must follow on: a gap means batches are missing. Kafka has no defined answer for it, so replay stops before the batch.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindOffsetOverlap, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a batch starts at or below the offset the previous batch ended at",
		Meaning:  "Offsets must increase: a batch repeated, swapped or shifted (which the CRC does not cover) makes Kafka's offset index refuse the log. Replay stops before the batch.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindSegmentBase, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a segment's first batch is not at the offset its file name says",
		Meaning:  "A segment is named by its base offset: a first batch elsewhere means the file was renamed, cut or written over, and reads by offset would find the wrong batches.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindEpochRegression, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a batch's leader epoch is below the previous batch's",
		Meaning:  "Raft's leader epochs never go back along the log: a batch of an older epoch after a newer one is damage or a log spliced from two copies, and Kafka's reader refuses it. Replay stops before the batch.",
		Fix:      "read another controller's copy of the metadata log; kmeta quorum survey compares the copies",
		Commands: logCommands,
	},
	{
		Code: KindCoverageHole, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "the log starts above 0 and no snapshot reaches its start",
		Meaning:  "The offsets below the log's start are in no snapshot: Kafka refuses such a log (\"Inconsistent snapshot state\"), and an image of it lacks everything committed there.",
		Fix:      "restore the snapshot the log was cleaned up to, or read another controller's copy",
		Commands: logCommands,
	},
	{
		Code: KindSnapshotHeader, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a snapshot or bootstrap file does not start with a SnapshotHeader control record",
		Meaning:  "A snapshot starts with a control batch whose first record is a SnapshotHeader; without it Kafka cannot load the snapshot.",
		Fix:      "remove the snapshot (Kafka starts from an older one or the log), or read another copy",
		Commands: logCommands,
	},
	{
		Code: KindSnapshotFooter, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a snapshot or bootstrap file does not end with a SnapshotFooter control record",
		Meaning:  "A snapshot ends with a SnapshotFooter; a file without it was cut short (a crash while it was written) and Kafka does not take it for complete.",
		Fix:      "remove the snapshot (Kafka starts from an older one or the log), or read another copy",
		Commands: logCommands,
	},
	{
		Code: KindSnapshotAfterFooter, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a batch after a snapshot's SnapshotFooter",
		Meaning:  "Kafka's snapshot reader stops at the footer: the batches after it are never read, and replay skips them and goes on from the snapshot's end, as Kafka does. Something appended to a finished snapshot.",
		Fix:      "read another controller's copy of the snapshot",
		Commands: logCommands,
	},
	{
		Code: KindSnapshotOffsets, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a snapshot's first offset is not 0",
		Meaning:  "A snapshot's internal offsets restart at 0: a snapshot starting elsewhere is not one Kafka wrote, and it cannot load it.",
		Fix:      "remove the snapshot (Kafka starts from an older one or the log), or read another copy",
		Commands: logCommands,
	},
	{
		Code: KindSnapshotEpoch, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "in a bootstrap.checkpoint: kafka-storage writes its batches at epoch 0 and Kafka's bootstrap reader ignores the epoch",
		Title:       "a snapshot batch's partitionLeaderEpoch is not the snapshot's epoch",
		Meaning:     "Every batch of a snapshot carries the epoch in its file name; " + batchEpochWhy + ", so a batch of another epoch means a snapshot spliced or rewritten.",
		Fix:         "read another controller's copy of the snapshot",
		Commands:    logCommands,
	},
	{
		Code: KindBootstrapControl, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a KRaftVersion or Voters control record in bootstrap.checkpoint",
		Meaning:  "Kafka's bootstrap reader refuses KRaftVersion and Voters records: a controller formatted with such a bootstrap.checkpoint does not start. A dynamic quorum keeps them in the bootstrap snapshot (00000000000000000000-0000000000.checkpoint) instead.",
		Fix:      "format the controller again with kafka-storage format (--initial-controllers for a dynamic quorum)",
		Commands: logCommands,
	},
	{
		Code: KindFrameHeader, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a data record's value does not start with a readable metadata frame header",
		Meaning:  "A metadata record's value starts with three varints (frame version, apiKey, record version): one that does not is damage inside the record, and the record is skipped (records-skipped), as Kafka's loader would fail it.",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindFrameVersion, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a data record's frame version is not 1",
		Meaning:  "Every metadata record Kafka writes has frame version 1: another version is damage or a record no Kafka wrote, and it is skipped (records-skipped).",
		Fix:      "read another controller's copy of the metadata log",
		Commands: logCommands,
	},
	{
		Code: KindRecordDecode, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a metadata record's body does not decode at its apiKey and version",
		Meaning:  "The frame names a record type and version whose schema the body does not follow (damage, or a record of a newer Kafka this kmeta does not know). The record is skipped (records-skipped), and what it held is missing from the image.",
		Fix:      "kmeta log dump {PATH} shows the record; a newer kmeta may know it",
		Commands: logCommands,
	},
	{
		Code: KindRecordUnknown, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "a metadata record's type or version is one this kmeta does not know",
		Meaning:  "The frame names an apiKey or a record version newer than this kmeta's schemas: a newer Kafka wrote it, or the frame is damaged. The file is not damaged for it, but the record cannot be read: image and history skip it (records-skipped) and log dump cannot decode it, and a Kafka that does not know it refuses the log too. So log check fails (exit 1).",
		Fix:      "kmeta log dump {PATH} shows the record; a kmeta that knows the newer Kafka's records reads it",
		Commands: logCommands,
	},
	{
		Code: KindQuorumStateEpoch, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "quorum-state's leaderEpoch is below the log's last epoch",
		Meaning:  "quorum-state records the epoch the node last voted or led in; one below the log's last batch epoch is stale (a copy taken at different moments, or an edited file). Kafka warns and uses the log's.",
		Commands: logCommands,
	},
	{
		Code: KindLeaderEpochMismatch, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "leader-epoch-checkpoint disagrees with the epochs the segments hold",
		Meaning:  "An entry of leader-epoch-checkpoint names an epoch start the segments do not show (no batch of that epoch, or a different first offset). Kafka rebuilds the cache from the log on recovery; the file is stale or was copied from another node.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftTimestampDelta, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a record's timestampDelta is not 0 (KRaft's batch rules; not under --no-strict)",
		Meaning:  "Kafka's RecordsIterator rejects a metadata record with a timestamp delta: the batch was not written by KRaft, and replay stops before it.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftHeaders, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a record has headers (KRaft's batch rules; not under --no-strict)",
		Meaning:  "Kafka's RecordsIterator rejects metadata records with headers: the batch was not written by KRaft, and replay stops before it.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftDataKey, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a data record has a key (KRaft's batch rules; not under --no-strict)",
		Meaning:  "KRaft data records have a null key: Kafka's RecordsIterator rejects one with a key, and replay stops before the batch.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftEmptyValue, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a data or control record with a null or empty value (KRaft's batch rules; not under --no-strict)",
		Meaning:  "Every KRaft record carries a value: Kafka's RecordsIterator rejects an empty one, and replay stops before the batch.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftControlKey, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a control record without a key, or one that is not int16 version + int16 type (KRaft's batch rules)",
		Meaning:  "A control record's key says its type: Kafka cannot read one without it, and replay stops before the batch.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftControlType, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a control record of a type not legal in the metadata log (KRaft's batch rules)",
		Meaning:  "The metadata log holds control types 2 to 6 only (leader change, snapshot header and footer, kraft.version, voters); ABORT and COMMIT are producer-transaction markers no controller writes. Kafka's reader rejects the batch.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftOffsetDelta, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "offset deltas that are not 0..n-1, or a lastOffsetDelta that is not n-1 (KRaft's batch rules)",
		Meaning:  "KRaft writes each batch's records at consecutive offsets: other deltas mean records skipped or reordered, and the offsets the image would give them are wrong.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftProducer, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "producerId, producerEpoch or baseSequence is not -1 (KRaft's batch rules)",
		Meaning:  "KRaft always writes -1 there; Kafka does not enforce it, so the batch reads, but it was not written by a controller.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftCompressed, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "a compressed metadata batch (KRaft's batch rules)",
		Meaning:  "KRaft never compresses metadata batches; readers (Kafka's and kmeta's) accept every codec, so the batch reads, but it was not written by a controller.",
		Commands: logCommands,
	},
	{
		Code: KindKRaftAttributes, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "batch attributes with the transactional, LogAppendTime or delete-horizon bit (KRaft's batch rules)",
		Meaning:  "KRaft's batches are CreateTime, not transactional and without a delete horizon: one with those bits was not written by a controller. Kafka does not enforce it, so the batch reads.",
		Commands: logCommands,
	},
	{
		Code: WarnDamageNotReplayed, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "damage in a file replay did not need: the image does not rest on it",
		Meaning:  "A snapshot or segment replay does not read (older snapshots, segments below the snapshot replay starts from, an unused bootstrap.checkpoint) is damaged: the image is complete, so image and the commands built on it say so as a warning and exit 0 for it; log check fails the log (exit 1).",
		Fix:      "kmeta log check {PATH} names the damage; Kafka never reads it either, but a copy of the log with it is not a clean backup",
		Commands: model.CommandList(model.KRaftViewCommands),
	},
	{
		Code: WarnQuorumStateVoters, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "quorum-state names voters the log never registered as controllers",
		Meaning:  "A static quorum's voters (controller.quorum.voters) are in no record a snapshot keeps, so the image takes them from quorum-state, which holds the set the node runs with. A voter there that never registered as a controller (RegisterControllerRecord, Kafka 3.7+) is a damaged or edited file, or one copied from another cluster: the image leaves the voters out and rests on partial input (exit 1).",
		Fix:      "compare quorum-state's currentVoters with the controllers' controller.quorum.voters; kmeta quorum describe kraft:DIR shows what each log dir holds",
		Commands: model.CommandList(model.KRaftViewCommands),
	},
	{
		Code: WarnBootstrapOnly, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "the node holds no metadata record yet: the image is the bootstrap kafka-storage format wrote",
		Meaning:  "The dir is what kafka-storage format leaves (3.x: meta.properties and bootstrap.checkpoint; 4.x: the bootstrap snapshot 00000000000000000000-0000000000.checkpoint), perhaps with the empty segment Kafka creates when it starts: no leader has written to the log yet. The image is the bootstrap (metadata.version, SCRAM credentials, a dynamic quorum's voters) that the first active controller writes into the log; no topic, broker or config is in it yet. The dir is sound, so this is no failure.",
		Commands: model.CommandList(model.KRaftViewCommands),
	},
	{
		Code: WarnNoMetadataVersion, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Relaxed:     model.SevWarning,
		RelaxedWhen: "replay applied records, none of them the level: a log written before Kafka 3.3, which Kafka 3.3 to 3.9 reads as 3.0-IV1 (features check shows it as implied) and 4.x refuses",
		Title:       "the image holds no metadata.version",
		Meaning:     "No FeatureLevelRecord for metadata.version was replayed, and none stands in for it: metadata.version is reported as not reported, never as a value. With no record replayed at all the input is partial or damaged (every log Kafka 3.3+ writes starts with the bootstrap records the first active controller writes, and every bootstrap holds the level; a node no leader has written to yet is bootstrap-only instead), and the image rests on partial input (exit 1).",
		Fix:         "kmeta log check {PATH} says what the dir holds; read another controller's copy (kmeta quorum survey)",
		Commands:    model.CommandList(model.KRaftViewCommands),
	},
	{
		Code: WarnLogBehindSnapshot, Room: "metalog", Class: FindingClass, Severity: model.SevWarning,
		Title:    "the snapshot is newer than the whole log: replay restarts the log at the snapshot",
		Meaning:  "The newest snapshot's epoch and offset are past every segment: Kafka discards the log and restarts it at the snapshot, and so does replay. The image is the snapshot's.",
		Commands: model.CommandList(model.KRaftViewCommands),
	},
}

// Checks is metalog's table: log check's finding kinds and replay's
// warnings.
func Checks() model.Checks { return checks }

// checkOf returns the check of a code metalog reports: its own table's
// or the model's common one (torn-tail, the image warnings,
// partition-metadata-topic-id). A finding takes its severity from it: a
// call site names the code, never a severity.
var checkOf = model.CheckIndex("metalog", model.CommonChecks, Checks)

// relax returns f at its check's relaxed severity (RelaxedWhen says when).
func relax(f Finding) Finding { return checkOf(f.Code).Relax(f) }

// escalate returns f at its check's escalated severity (EscalatedWhen
// says when); a check that declares none keeps its severity.
func escalate(f Finding) Finding { return checkOf(f.Code).Escalate(f) }
