// Package zkread reads Kafka's ZooKeeper znodes into the common model.
//
// Every source produces the same raw Tree (path → data, stat, children,
// relative to the chroot), and one decoder turns a Tree into a
// *model.Image:
//
//	ReadLive(ctx, LiveOptions)       a live ensemble (go-zookeeper, read-only)
//	ReadDataDir(dir, DataDirOptions) a ZooKeeper data dir, offline (package zkfile)
//	ReadDumpFile(path)               a dump written by WriteDump (`kmeta zk dump`)
//	Decode(tree, DecodeOptions)      Tree → *model.Image
//
// ParseSource parses the ZooKeeper schemes of the one source syntax
// (zk://h1:2181,h2:2181/chroot, zkdata:/dir, zkdump:file.json; inference
// of scheme-less paths is internal/source's) and Source.ReadTree
// dispatches.
//
// # Live reads
//
// go-zookeeper has no chroot support (a "host:port/chroot" server string
// never connects), so the chroot is split off the connect string and
// prefixed to every path here. Reads are Get (data and stat), Children (only
// for znodes with children) and, with ReadACLs, GetACL; Exists checks the
// chroot. The client pipelines only requests issued from different
// goroutines, so a level of the tree is read by up to InFlight workers
// spread over Connections sessions (LiveSessions opens the same sessions
// for a caller that measures what the ensemble serves). A znode is read
// with getData, plus
// getChildren2 when it has children; topics' partitions/ and
// partitions/<p> containers (one per partition) with getChildren2 alone,
// recorded with null data when their dataLength is 0 (Kafka writes null
// there; a stat cannot tell null from empty). go-zookeeper writes each
// request with its own write(2) and reads each response with two read(2)s
// under a fresh deadline, so the connection coalesces writes (one
// goroutine writes whatever requests queued while the previous write ran,
// after letting the goroutines a burst of responses woke queue theirs)
// and buffers reads (one read(2) takes whatever the server sent; the
// deadline is applied only when the socket is read). Digest auth: AddAuth never fails, so a
// wrong password only shows as NoAuth on reads; the ACLs of the refused
// znodes are then read, and when one grants READ to the given user the
// error says the password is wrong (ErrAuth as well as ErrNoAuth).
// go-zookeeper speaks no SASL: brokers with zookeeper.set.acl=true and a
// SASL session own their znodes as sasl:<user> and hide /config/users,
// /config/brokers and /delegation_token/tokens from everyone else, so such
// an ensemble is read as ZooKeeper's digest super user
// (zookeeper.DigestAuthenticationProvider.superDigest); without it the
// read returns the rest of the tree and a NoAuthError naming those three.
// go-zookeeper's requests take no context, so cancelling the read's
// context closes its sessions: the requests in flight fail at once, and
// ReadLive returns the context's error after every reader goroutine has
// stopped.
// Consistency: the stats of sentinel znodes (/controller_epoch,
// /brokers/topics, /brokers/ids, /config/changes, /admin/delete_topics, the
// ISR and ACL change queues) are taken before and after the read; if they
// moved, the Tree is marked Changed with a warning, or with Consistent the
// read is repeated (bounded). Changes that touch only partition state
// znodes (leader elections) are not detected.
//
// # Offline reads
//
// See package zkfile for the snapshot and transaction-log formats, the
// replay rules and the limits (DataDirOptions.MaxBuffer is ZooKeeper's
// jute.maxbuffer; files that are not regular are refused). Stats are
// converted to what a client sees: ZooKeeper stores a node's cversion as
// the count of child creations and reports 2*stored - children;
// dataLength and numChildren are derived. Tree.Origins records, per
// znode, the file and byte offset its data was read from (a snapshot's
// node record or the log entry that last wrote it), so a *ZnodeError from
// Decode names the file and offset as well as the znode.
//
// # Warnings
//
// Tree.Findings are typed (model.Finding): WarnSnapshotFallback,
// WarnTornTail, WarnZKLogDamaged (zxids that repeat, go back or jump),
// WarnCoverageHole (the data dir ends before --at-zxid), WarnTreeChanged
// (live), WarnChrootDetected, each with its file, position, znode or zxid;
// Tree.Warnings holds the same messages as text. Decode copies them into
// Image.Warnings and adds WarnLenientDecode per znode a lenient decode
// kept raw.
//
// # Secrets in errors
//
// No error or warning carries znode data: config values, SCRAM
// credentials and JSON fragments are named by znode, field, position and
// length only (JSON syntax errors by byte offset, not by the character
// found there).
//
// # Decoding (Kafka 3.x znodes, §5 of the reference)
//
//   - /cluster/id {"version":"1","id":…}: "version" is a string.
//   - /controller → ZKState.ControllerID and KRaftControllerEpoch (-1 for a
//     ZK controller or v1 data); /controller_epoch is a decimal string, its
//     data version is ControllerEpochZkVersion.
//   - /brokers/ids/<id> JSON v1–v5: endpoints "LISTENER://host:port" with
//     the protocol from listener_security_protocol_map (v1: host/port only,
//     PLAINTEXT). Broker epoch = the znode's czxid.
//   - /brokers/topics/<t>: partition keys are strings; topic_id absent
//     before 2.8 (zero ID, kept visible); adding/removing_replicas. The
//     partition epoch is the data version of …/partitions/<p>/state; a
//     missing state znode gives ISR = replicas, leader = first replica,
//     epochs 0, as Kafka's migration does, and is listed in
//     ZKState.MissingPartitionStates. Directories are MIGRATING (zero UUID)
//     per replica, as a PartitionRecord v0 reads. Topic and state znodes
//     (millions in a big cluster) take a hand-written fast path for the
//     shape Kafka writes: known keys exactly spelled and each once,
//     integers without fraction or exponent, strings without escapes or
//     non-ASCII bytes, canonical partition keys. Anything else is decoded
//     by encoding/json as every other znode is, so acceptance, values and
//     errors are encoding/json's (FuzzFastJSON checks it).
//   - /config/topics|brokers: non-empty maps only; broker "<default>" → "".
//   - /config/users|clients|ips and users/<u>/clients/<c>: quota values are
//     Java doubles; user and client-id names are URL-decoded (Java's
//     URLDecoder, so '+' is a space); "<default>" → nil entity name. SCRAM
//     credentials (SCRAM-SHA-256/512 keys in /config/users/<u>) must have
//     exactly salt, stored_key, server_key (standard base64) and iterations.
//   - /kafka-acl/<Type>/<name> (LITERAL) and
//     /kafka-acl-extended/prefixed/<Type>/<name> (PREFIXED): PascalCase
//     names, matched case-insensitively as Kafka does; an underscore
//     ("DESCRIBE_CONFIGS") makes a name UNKNOWN to Kafka, and malformed
//     here (a resource-type directory stays raw). ACL ids are
//     synthesized from the content (SHA-256), so they are stable; Kafka's
//     are random per write. An unknown resource-type directory stays raw.
//   - /latest_producer_id_block: block_end is a JSON string; next id =
//     block_end + 1, broker epoch -1.
//   - /delegation_token/tokens/<id>: principals URL-decoded; requester
//     defaults to the owner (v1/v2).
//   - /feature → Features (max_version_level) and ZKState.FeatureStatus;
//     /migration → Migration (HasZNode, ZNodeVersion = data version);
//     /brokers/seqid → ZKState.BrokerSequenceID (its data version).
//   - Pending work: /admin/delete_topics (the topics stay in Topics too),
//     /admin/reassign_partitions, /admin/preferred_replica_election, and
//     counts of the notification queues (/config/changes, ISR, log dir, ACL
//     and token changes) in ZKState.Notifications.
//
// Every znode no rule consumed is kept in ZKState.Raw (a pure container
// whose children are kept is not repeated), except ZooKeeper's own
// /zookeeper subtree. A malformed znode stops Decode with a *ZnodeError
// naming it (ErrMalformed); with Lenient, decoding goes on, the znode is
// kept raw, and a *MalformedError lists them all next to the image.
//
// # Dump file
//
// WriteDump writes JSON: {"format":"kmeta-zk-dump","version":1,"source",
// "chroot","maxZxid","changed","warnings","findings" (typed warnings, when
// any),"znodes":[{"path","pathRaw" (standard base64 of the exact name,
// only when it is not valid UTF-8; "path" then shows U+FFFD),"stat","data"
// (standard base64, null for null data),"text" (when valid UTF-8),
// "decoded" (when JSON in valid UTF-8),"acl"}]}, znodes sorted by path.
// The output is always valid UTF-8. It is written and read znode by
// znode: memory is that of the tree. ReadDump uses path (or pathRaw),
// stat, data and acl, and rebuilds children from the paths. A redacted
// dump (`kmeta zk dump` without --show-secrets, model.RedactRawZnode)
// holds SCRAM credentials as "[redacted sha256:<fingerprint>],iterations=<n>",
// which reads back as a credential with the same fingerprint and
// iterations as the original.
package zkread
