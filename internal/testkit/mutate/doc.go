// Package mutate makes deterministic, seeded mutants of the files kmeta reads,
// for the reliability campaign of issue 8 (cmd/kmeta/mutate_campaign_test.go
// runs them through the built binary). It writes nothing to disk: it turns the
// bytes of one file into the bytes of one mutant, Make(kind, orig, ctx, seed,
// index), always the same for the same arguments (PCG seeded by seed and index).
//
// # Kinds and operators
//
// Every kind has the byte-level operators (bit flip, byte set, truncation,
// insertion, deletion) and operators that know its structure:
//
//   - segment, snapshot, bootstrap (Kafka record batches v2, see kafka.go):
//     batchLength, baseOffset and partitionLeaderEpoch edits (fields the CRC
//     does not cover), CRC and magic damage; recordsCount, lastOffsetDelta,
//     attributes, timestamps, producer fields, a record's length or
//     offsetDelta varint, and bit flips inside a record's value — each
//     RESEALED: the batch CRC-32C (over attributes .. end) is recomputed and,
//     when a varint changes width, batchLength too, so the edit reaches the
//     record decoder instead of stopping at the CRC; truncation at a batch
//     boundary; swapping, moving, duplicating and deleting whole batches, with
//     or without renumbering the offsets (baseOffset is outside the CRC, so
//     renumbering needs no reseal). For snapshots, deleting the header or
//     footer batch is drawn half the time.
//   - quorum-state (JSON): remove a key, change a value (numbers, types,
//     directory ids), add an unknown key, repeat a key, pretty-print, NUL bytes.
//   - meta.properties (Java properties): remove a key, change a value
//     (cluster.id / directory.id truncated, padded with a blank or NUL, another
//     Uuid), comments, blank lines, continuation lines, other separators, a
//     \uXXXX escape, CRLF line ends, a repeated key, reordered lines.
//   - zk-txnlog (ZooKeeper log.<zxid>): entry length, checksum and
//     end-of-record damage, damage inside the entries (not the zero padding);
//     zxid, time, type and record-body edits with the entry's Adler32
//     resealed; truncation at an entry boundary; swapping (optionally
//     renumbering zxids), duplicating and deleting entries.
//   - zk-snapshot (snapshot.<zxid>): seal damage; with every seal resealed
//     (each seal is the Adler32 of the whole stream before it, as ZooKeeper's
//     CheckedInputStream computes it): znode data flips, data and path length
//     edits, path flips, stat edits, unknown ACL ids, deleting, duplicating and
//     swapping znode records, the session count.
//   - zk-snapshot-packed (.gz, .snappy in snappy-java framing): the byte
//     operators on the compressed file, and every zk-snapshot operator applied
//     to the decompressed stream, then recompressed with the same codec.
//   - dump (kmeta zk dump JSON): drop, duplicate or swap znodes, change data
//     (keeping text/decoded/dataLength in step, or leaving them stale), rename
//     a SCRAM mechanism or field (a credential Kafka cannot parse: its secrets
//     must still not leak), bad base64, stat edits, missing fields, top-level
//     values, malformed paths.
//
// Issue 29's kinds (hostile.go), read by the commands added since:
//
//   - client-config (client.properties for --command-config) and
//     server-properties (a node's server.properties): the meta.properties
//     operators on Java properties, and for client settings edits that
//     break sasl.jaas.config as a hand does (a value where an option
//     belongs, an open quote, ':' for '=', a bad \u escape). No validator:
//     what a peer makes of other settings is the peer's to say; the
//     campaign checks the invariants (no secret printed above all).
//   - exceptions (lint --exceptions JSON): trailing bytes, a second
//     document, null and other top-level values, renamed keys (also only
//     by case), bad values; the validator is the format's: one object,
//     one "exceptions" array of {rule, reason, topics} as spelled.
//
// # Damage versus another valid input
//
// The campaign's verdict rule says a mutant is rejected, or accepted with the
// original's answer, or accepted with a warning; a mutant that is another
// valid input may get another answer silently. The campaign tells the two
// apart with this package's VALIDATOR, not by the operator's name and not with
// kmeta's decoders: after every mutation, Make re-reads the mutant with an
// independent parser written from the format facts and sets
// Mutant.Preserving when it is sound by the rules the real reader (Kafka,
// ZooKeeper, Java's Properties) applies:
//
//   - Kafka batches: every batch frames, has magic 2 and a matching CRC-32C,
//     its records parse exactly to the batch end, recordsCount and
//     lastOffsetDelta agree with them, offsetDeltas are 0..n-1, the control
//     bit matches the records' keys (control keys {version 0, type 0..6};
//     metadata records have a null key), attributes carry no compression or
//     transactional bits (kmeta's fixtures have none; the timestamp-type bit is
//     allowed), offsets continue from
//     the original's first offset without gap or overlap, epochs never go
//     down; a snapshot or bootstrap file starts with SnapshotHeader and ends
//     with SnapshotFooter; a segment that is not the newest must end where the
//     original ended (the next segment starts there), the newest may end
//     earlier (a log that ends sooner is a valid log) but not raise the epoch.
//     Record VALUES are not decoded (that needs the schemas): a resealed flip
//     inside a value counts as another valid log, and kmeta may decode it to a
//     different answer or reject it.
//   - ZooKeeper txn log: header, every entry's frame, 'B' and Adler32, known
//     txn types, zxids rising by one (or starting a new epoch at counter 1)
//     from the original's first zxid; a log that is not the newest must reach
//     the original's last zxid.
//   - ZooKeeper snapshot: the whole stream parses, every seal matches, the
//     root comes first and every other znode's parent before it, paths are
//     unique, every ACL id is in the ACL cache (or -1).
//   - quorum-state: UTF-8 JSON object, no repeated key, every original key
//     present with the same JSON type, numbers are int32, data_version
//     unchanged, directory ids are Uuids (22 chars base64url, 16 bytes),
//     voters are {"voterId": int32}.
//   - meta.properties: parsed as java.util.Properties does (comments,
//     continuations, separators, escapes), every original key present,
//     version unchanged, node.id a non-negative int32, cluster.id and
//     directory.id Uuids.
//   - dump: UTF-8, top-level fields unchanged, znode paths absolute and
//     well-formed, unique, with their parent present, stat 11 integers, data
//     null or strict base64 whose length is stat.dataLength (text and decoded
//     are views derived from data, which is what a reader reads: not checked).
//
// A mutant the validator refuses is damage: the campaign then demands that
// kmeta rejects it, answers exactly as for the original, or warns. A
// validator that is too strict makes a valid input look like damage, which
// the campaign then reports (never hides) as a violation to be looked at; a
// validator that is too lenient hides violations, so it errs on the strict
// side.
package mutate
