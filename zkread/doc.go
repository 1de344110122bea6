// Package zkread reads Kafka's ZooKeeper znodes into the common model.
//
// Every source produces the same raw Tree (path → data, stat, children,
// relative to the chroot), and one decoder turns a Tree into a
// *model.Image:
//
//	ReadLive(ctx, LiveOptions)       a live ensemble (kmeta's own client, read-only)
//	ReadDataDir(dir, DataDirOptions) a ZooKeeper data dir, offline (package zkfile)
//	ReadDumpFile(path, maxBuffer)    a dump written by WriteDump (`kmeta zk dump`)
//	Decode(tree, DecodeOptions)      Tree → *model.Image
//
// ParseSource parses the ZooKeeper schemes of the one source syntax
// (zk://h1:2181,h2:2181/chroot, zkdata:/dir, zkdump:file.json; inference
// of scheme-less paths is internal/source's) and Source.ReadTree
// dispatches.
//
// # Live reads
//
// The live read speaks ZooKeeper's client protocol itself (zkconn.go,
// Session): a client that only reads needs the handshake, digest auth,
// pings and eight requests, and owning them lets one packet carry many
// reads. The chroot is prefixed to every path here (the server never sees
// a chroot). LiveSessions opens the same sessions for a caller that
// measures what the ensemble serves (internal/testkit/bench's ceilings).
//
// Wire protocol (read in ZooKeeper's zookeeper.jute, MultiResponse.java,
// MultiOperationRecord.java and FinalRequestProcessor.java): every frame is
// an int length and the record. Jute: big-endian ints and longs, bool one
// byte, buffer and ustring an int length (-1 null) and bytes, vector an int
// count (-1 null) and the elements. ConnectRequest{int protocolVersion 0,
// long lastZxidSeen, int timeOut ms, long sessionId 0, buffer passwd (16
// zero bytes), bool readOnly} is answered by ConnectResponse{int
// protocolVersion, int timeOut (the negotiated one; <= 0: refused), long
// sessionId, buffer passwd[, bool readOnly]}; readOnly is sent false, so a
// server cut off from its quorum is never read. Then requests are
// RequestHeader{int xid, int type} and a body, answers ReplyHeader{int xid,
// long zxid, int err} and a body when err is 0; the server answers a
// session's requests in order, matched here by xid. Reserved xids: -1 a
// watch notification (ignored: no watch is set), -2 ping (type 11, sent
// when a third of the session timeout passed without a write), -4 auth
// (AuthPacket{int type 0, ustring scheme "digest", buffer "user:password"},
// type 100). Bodies: getData (4) and exists (3) {path, bool watch} →
// GetDataResponse{buffer data, Stat} / Stat; getChildren (8) {path,
// watch} → {vector<ustring>}; getChildren2 (12) → {vector<ustring>,
// Stat}; getACL (6) {path} → {vector<ACL{int perms, ustring scheme,
// ustring id}>, Stat}; Stat is czxid, mzxid, ctime, mtime (longs),
// version, cversion, aversion (ints), ephemeralOwner (long), dataLength,
// numChildren (ints), pzxid (long), 68 bytes. multiRead (22, ZooKeeper
// 3.6+): a sequence of MultiHeader{int type, bool done, int err} each
// followed by a GetDataRequest or GetChildrenRequest, ended by
// MultiHeader{-1, true, -1}; the answer is a MultiResponse: per read a
// MultiHeader with the read's type and a GetDataResponse or
// GetChildrenResponse, or type -1 and ErrorResponse{int err} for a read
// that failed alone (NoNode -101, NoAuth -102: a multiRead is not atomic,
// each read is checked and answered on its own, READ permission as for
// the single request), ended by MultiHeader{-1, true, -1}. The server
// refuses a multiRead that mixes in writes. ZooKeeper 3.5.9 (Kafka 2.x's)
// does not know type 22: observed, it logs "Received packet at server of
// unknown type 22", answers err Unimplemented (-6) and closes the
// connection (TestPre36MultiRead).
//
// Robustness: every length from the server is checked against what the
// frame holds before anything is allocated, and a frame against maxFrame
// (32 MiB; one znode holds at most jute.maxbuffer, 1 MiB by default); a
// multiRead answer above it is skipped unread and its reads are sent one by
// one. A request answered with bytes that do not decode fails with the
// znode's path; no server bytes make the client panic (FuzzWireDecode,
// seeded with real responses in testdata/zkwire). One goroutine per
// session reads (through a 64 KiB buffer: one read(2) takes many
// answers, the read deadline of one session timeout armed only when the
// socket is read) and one writes: requests queued while a write is under
// way leave together in the next one, after letting the goroutines that
// are runnable queue theirs (a lone request is written at once). Closing
// a session fails every request in flight at once, so a cancelled read
// (the context closes the sessions) returns the context's error after
// every reader goroutine has stopped. TLS, when configured, wraps the
// socket before the handshake (a failed TLS handshake is retried like a
// refused connection until the session timeout, then ErrUnreachable).
//
// The read: once per ReadLive a multiRead of the root probes the server;
// on Unimplemented (or the closed connection that follows) the probing
// session is replaced and the read goes one request per read. A znode's
// children are read as soon as the znode is complete (not level by level:
// the server never idles while a level drains; the tree sorts children,
// so the order of reads shows nowhere); each connection has one goroutine
// keeping InFlight / Connections requests in flight, taking znodes from
// one queue. A batch's paths are written straight into the request and
// its data taken from the response without a copy (the tree copies what
// it keeps); the jute.maxbuffer check is made as each znode is read. With multiRead, a request carries up
// to Batch reads (default 128: at full bench size, 100,000 partitions,
// ZooKeeper's CPU fell from 2.1 s at 16 reads per request to 1.7 s at 32,
// 1.3 s at 64 and 1.2 s at 128, and rose at 256; kmeta's stayed about
// 1.5 s): getData of every znode, with getChildren in the same request
// for the znodes expected to have children (Kafka's topic znodes and
// their partitions/ and partitions/<p> containers, one per partition),
// and for any other znode a getChildren once its stat shows children.
// Without multiRead, a znode is read with getData, plus getChildren when
// it has children; the containers with getChildren2 alone (recorded with
// null data when their dataLength is 0: Kafka writes null there and a stat
// cannot tell null from empty; one with data is read again with getData).
// With multiRead the containers' data is read, so null and empty are told
// apart as in every other source. Per read, NoNode means the znode was
// deleted after its parent was listed (a WarnTreeChanged warning), NoAuth
// lists it in the NoAuthError, anything else stops the read with its
// path. With ReadACLs, getACL (which multiRead does not carry) is one
// more request per znode.
//
// Digest auth: ZooKeeper accepts any digest password at auth time, so a
// wrong password only shows as NoAuth on reads; the ACLs of the refused
// znodes are then read, and when one grants READ to the given user the
// error says the password is wrong (ErrAuth as well as ErrNoAuth); an
// AuthFailed answer to the auth packet is ErrAuth. The client speaks no
// SASL: brokers with zookeeper.set.acl=true and a SASL session own their
// znodes as sasl:<user> and hide /config/users, /config/brokers and
// /delegation_token/tokens from everyone else, so such an ensemble is read
// as ZooKeeper's digest super user
// (zookeeper.DigestAuthenticationProvider.superDigest); without it the
// read returns the rest of the tree and a NoAuthError naming those three.
// Consistency: the stats of sentinel znodes (/controller_epoch,
// /brokers/topics, /brokers/ids, /config/changes, /admin/delete_topics, the
// ISR and ACL change queues) are taken before and after the read; if they
// moved, the Tree is marked Changed with a warning, or with Consistent the
// read is repeated (bounded). Changes that touch only partition state
// znodes (leader elections) are not detected. A znode whose stat (from
// getData) counts other children than its listing (getChildren) holds
// changed between the two reads: a WarnTreeChanged warning names it (the
// tree keeps both as read, so a dump's stats never disagree with its
// znodes without a warning saying why).
//
// # Offline reads
//
// See package zkfile for the snapshot and transaction-log formats, the
// replay rules and the limits (DataDirOptions.MaxBuffer is ZooKeeper's
// jute.maxbuffer; files that are not regular are refused). Stats are
// converted to what a client sees: ZooKeeper stores a node's cversion as
// the count of child creations and reports 2*stored - children;
// dataLength and numChildren are derived. Tree.NodeOrigin gives, per znode,
// the file and byte offset its data was read from (a snapshot's node
// record or the log entry that last wrote it), so a *ZnodeError from
// Decode names the file and offset as well as the znode.
//
// An offline read's Tree is a view of zkfile's compact tree (rooted at
// the chroot): Get makes the Node asked for, the decoder walks the tree
// by zkfile.Ref and marks the nodes it consumed in a bitset by Ref, and a
// path is made only for a znode kept raw. Live reads, dumps and trees
// made by hand keep their Nodes in a map by path.
//
// # History
//
// DataDirOptions.Step follows a data dir's replay for lint --history
// (history.go): the replay starts from the oldest snapshot the logs go
// on from, and after each transaction the image is brought up to date
// for the znodes it changed only (zkfile reports them), with the zxid,
// the time and what each change touched. The history keeps the children
// of the containers it decodes itself, since the tree's children lists
// are built only once the replay ends, and finds the chroot as the
// replay goes when none is named. TestHistoryMatchesDecodeAtEveryZxid
// compares its image after every transaction with a full decode at that
// zxid.
//
// # Sessions and who wrote what
//
// An offline read keeps the data dir's session table (Tree.Sessions:
// the snapshot's, brought up to date by the logged createSession and
// closeSession). DataDirOptions.Replay (replay.go) follows the
// transaction stream for a judge of who wrote what (zkdeps): the
// snapshot the replay starts from (its session table and ephemeral
// owners), then every transaction with its session, zxid, time, file
// and offset and its operations named ("create", "delete", "setData",
// "setACL", "check", "createSession", "closeSession", "error"); the read
// then starts from the oldest snapshot the logs go on from, as with
// Step. A live read records the ids of its own sessions
// (Tree.ReaderSessions) so a list of the ensemble's clients can leave
// kmeta out.
//
// Who is connected (clients.go): the four-letter word cons (one TCP
// connection to the client port, "cons" written, the answer read to
// EOF: a line per connection, ServerCnxn.dumpConnectionInfo's "
// /ADDR[ops](queued=..,recved=..,sent=..,sid=0x..,lop=..,est=ms,to=ms,
// lcxid=0x..,lzxid=0x..,...)", sid and what follows only for a
// connection with a session; "cons is not executed because it is not in
// the whitelist." when 4lw.commands.whitelist leaves it out), or the
// AdminServer's connections command (GET
// http://HOST:admin.serverPort/commands/connections, JSON
// {"connections":[{"remote_socket_address","session_id" (a number),
// "last_operation","established" (ms),"session_timeout","last_zxid"}],
// "secure_connections":[...]}). Both are ZooKeeper's read-only
// monitoring; AskConnections tries cons, then the AdminServer, and says
// why neither answered with the setting that enables each.
//
// # Warnings
//
// Tree.Findings are typed (model.Finding): WarnSnapshotFallback,
// WarnTornTail, WarnZKLogDamaged (zxids that repeat, go back or jump),
// WarnZKLogEntriesPastEnd (transactions after a zero entry length or a
// torn entry: damage, not a torn tail),
// WarnCoverageHole (the data dir's files stop before --at-zxid but hold
// later state; a point past their end is ErrPastEnd), WarnTreeChanged
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
//     ZKState.MissingPartitionStates. The highest controller_epoch of the
//     states is ZKState.MaxStateControllerEpoch (lint's split-brain guard:
//     Kafka's controller refuses to change a state a higher epoch wrote). Directories are MIGRATING (zero UUID)
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
// stat, data and acl, and rebuilds children from the paths. The stat is
// the one ZooKeeper returned (a data dir's is derived as ZooKeeper
// derives it), so a znode whose data length or number of children
// disagrees with it was edited or damaged (a znode deleted from the file
// would silently drop a topic's configs or a partition's state): the dump
// is refused, naming the znode and both numbers. Children may disagree
// legitimately in one case, in dumps of every kmeta version: a live read
// that saw the tree change (a child deleted between its parent's listing
// and its own read, children that moved between a znode's getData and its
// getChildren); its warnings say so (changed, a tree-changed finding, or
// for a dump written before typed findings the warning's text), and the
// answer read back is partial. --lenient changes decoding only, never the
// tree a dump holds. A redacted
// dump (`kmeta zk dump` without --show-secrets, model.RedactRawZnode)
// holds SCRAM credentials as "[redacted sha256:<fingerprint>],iterations=<n>",
// which reads back as a credential with the same fingerprint and
// iterations as the original.
package zkread
