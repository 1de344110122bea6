// Package zkfile decodes ZooKeeper's on-disk formats: fuzzy snapshots
// (`snapshot.<hexzxid>`, optionally `.gz` or `.snappy`) and transaction logs
// (`log.<hexzxid>`), and replays them into an in-memory DataTree the way a
// ZooKeeper server does at startup. It reads files only; it never writes.
//
// # Jute encoding
//
// Every integer is big-endian: int = 4 bytes, long = 8, bool = 1. "buffer"
// and "ustring" are an int length then the bytes, length -1 meaning null. A
// vector is an int count (-1 = null) then the elements. Records have no
// framing: their fields follow one another.
//
// # Snapshot
//
//	FileHeader   int magic 0x5A4B534E ("ZKSN"), int version (2), long dbid
//	sessions     int count, count × (long sessionId, int timeoutMs)
//	ACL cache    int count, count × (long aclId, vector<ACL{int perms, ustring scheme, ustring id}>)
//	             aclId -1 is OPEN_ACL_UNSAFE (world:anyone:ALL) and is never stored.
//	nodes        repeated: ustring path, buffer data, long aclId,
//	             StatPersisted{long czxid, mzxid, ctime, mtime, int version,
//	             cversion, aversion, long ephemeralOwner, long pzxid};
//	             the root has path "", the list ends with the path "/".
//	seal         long Adler32 of every byte so far, ustring "/"
//	[digest]     ZxidDigest{long zxid, int digestVersion, long digest}, seal (3.6+)
//	[lastZxid]   long lastProcessedZxid, seal (3.9+)
//
// Optional trailers are recognised by how many bytes remain (a look-ahead
// of at most 55 bytes after the first seal: more is trailing garbage).
// Compressed snapshots (`.gz` gzip, `.snappy` xerial-framed snappy, blocks
// of at most 8 MiB decoded) carry the same stream; the Adler32 covers the
// uncompressed bytes. Snapshots are decoded as a stream, never inflated or
// read whole, so memory grows with the tree, not with the file.
//
// # Limits
//
// ZooKeeper's BinaryInputArchive refuses any buffer or string length
// outside [0, jute.maxbuffer + extrasize] ("Unreasonable length"), where
// jute.maxbuffer defaults to 0xfffff and zookeeper.jute.maxbuffer.extrasize
// defaults to jute.maxbuffer (never below 1024): 2,097,150 bytes by
// default. A transaction log entry is read as one such buffer. kmeta
// applies the same bound (DirOptions.MaxBuffer raises it as
// -Djute.maxbuffer does), so a crafted length is corruption at its field,
// never an allocation. Snapshots, logs and dumps must be regular files
// once symlinks are followed (checked on the open descriptor): a device or
// a FIFO would be read without end. Snapshots are fuzzy: taken while
// transactions keep being applied, so a snapshot named zxid Z may already hold
// the effect of later transactions. Recovery therefore replays every
// transaction with zxid > Z, and each transaction is applied idempotently
// (create of an existing node, delete or setData of a missing one do nothing
// beyond what ZooKeeper's DataTree does in the same case).
//
// # Transaction log
//
//	FileHeader   int magic 0x5A4B4C47 ("ZKLG"), int version (2), long dbid
//	entries      long checksum, int len, len bytes body, byte 0x42 ('B')
//
// The checksum is the Adler32 of the body only. The file is zero-preallocated
// (64 MiB steps), so an entry with length 0 (or the end of the file) ends the
// data. An entry cut short, or one without its trailing 'B', is a torn tail:
// the write was interrupted, ZooKeeper ignores it ("Last transaction was
// partial."), and so do we (with a warning), when nothing well-formed
// follows it (see Replay order). The 'B' is checked before the checksum,
// as Util.readTxnBytes does: an entry a crash cut in the preallocated
// file ends in zeroes and fails both. A checksum mismatch with the 'B' in
// place is corruption and stops the read (ZooKeeper refuses to load it
// too: "CRC check failed"). All of this is checked against ZooKeeper
// 3.8.4's own FileTxnSnapLog.restore (oracle_torn_kafka_test.go), on the
// damaged logs of Replay order as well.
//
// The body is TxnHeader{long sessionId, int cxid, long zxid, long timeMs, int
// type}, the record for that type, then (3.6+) an optional
// TxnDigest{int version, long treeDigest} that readers ignore:
//
//	create 1, create2 15   CreateTxn{path, data, vector<ACL>, bool ephemeral, int parentCVersion}
//	                       (CreateTxnV0 without parentCVersion when short)
//	createContainer 19     CreateContainerTxn{path, data, acl, parentCVersion}
//	createTTL 21           CreateTTLTxn{path, data, acl, parentCVersion, long ttl}
//	delete 2, deleteContainer 20  DeleteTxn{path}
//	setData 5, reconfig 16 SetDataTxn{path, data, int version}
//	setACL 7               SetACLTxn{path, vector<ACL>, int version}
//	check 13               CheckVersionTxn{path, int version} (inside multi only)
//	multi 14               MultiTxn{vector<Txn{int type, buffer data}>}
//	createSession -10      CreateSessionTxn{int timeout}
//	closeSession -11       CloseSessionTxn{vector<ustring> paths2Delete} (may be absent)
//	error -1               ErrorTxn{int err}
//
// # Replay order
//
// ZooKeeper's FileTxnIterator starts at the first transaction past the
// snapshot. From there zxids must grow: FileTxnSnapLog.fastForwardFromEdits
// (3.8) logs an error for a zxid below the highest one seen
// ("highestZxid > next log") and still applies it, and applies a repeated
// zxid again without a word. kmeta stops at such a transaction instead,
// with model.WarnZKLogDamaged naming the file and byte position: the tree
// up to the last transaction in order is what the files say for certain.
// A zxid that skips ahead within an epoch is applied, with the same
// warning (transactions are missing).
//
// An entry length of zero ends a log, for ZooKeeper (Util.readTxnBytes)
// and for kmeta: it is where the preallocated zeroes start. So does an
// entry that looks torn: its length runs past the end of the file, or its
// end-of-record byte is not 'B' (FileTxnIterator takes either for the end
// of the file and goes on with the next log). A log is only appended to,
// and a crash tears only the last entry written, so well-formed entries
// after such a zero or torn entry mean bytes that were zeroed, lost or
// changed in the middle of the file: one bad byte would otherwise pass
// for a torn tail and drop everything after it. kmeta still stops there,
// and scans the rest of the file (bounded, TxnLog.PastEnd) for entries
// that pass every check (length, checksum, end-of-record byte, a body
// that decodes), with model.WarnZKLogEntriesPastEnd (partial: exit 1)
// naming the file, the byte position of the zero or of what was found
// torn, and how many follow; the torn-tail warning is kept for a torn
// entry nothing well-formed follows. ZooKeeper 3.8.4 itself loads each
// such log without a word, to the same zxid and the same tree as kmeta
// (oracle_torn_kafka_test.go): the entries past the end are lost to it
// silently, which is why kmeta calls them damage. When the entries found
// are all past DirOptions.AtZxid, the view asked for is whole if the
// replay reached the point, and otherwise the files hold later state than
// the tree (DirResult.Later: zkread's coverage hole).
//
// # Following the replay
//
// DirOptions.Base and Step let a caller follow the replay (zkread's
// history): Base sees the snapshot's tree, Step each transaction with
// the znodes it created, set or deleted (a closeSession's ephemerals
// included), collected by the tree's create, setData and remove as they
// apply. DirOptions.Oldest starts from the oldest snapshot the logs go
// on from, so that every logged transaction is replayed; when the logs
// stop short of the newest snapshot, the read starts from the newest
// after all, with a coverage-hole warning.
//
// # How the tree is held
//
// A million-partition cluster is two million znodes, so the tree is held
// compactly (DataTree): a record per node in blocks that grow from 64 to
// 4096 and are never copied — name, data, stat, parent, the run of a
// shared array listing its children sorted by name, its ACL as a number
// in a table (ZooKeeper's ACL cache, then each transaction's list), the
// file and offset its data was read from, packed in one word — and no map
// keyed by path, no heap object per node. What a node's stat derives
// (DataLength, NumChildren) is not stored, and the rare (an ephemeral
// owner, an offset past a terabyte) is kept aside: 104 bytes a node,
// where the whole Stat held in it made 128, so that at a million
// partitions the tree and the image decoded from it fit in 600 MiB. Names and snapshot data are read into large
// arenas (data slices have capacity = length); a path is read into one
// reused buffer and only its last component kept. A node is named by a
// Ref, its number; a path is found by walking its components from the
// root, a binary search of each node's children; a path is made only when
// asked for (Path, Walk); Node makes the Node a client reads on request.
// On the benchmark's million partitions this holds the tree in 380 MiB
// where a map of Nodes by path, with a second map of origins, took 840
// MiB and five times the CPU (most of it rehashing the growing maps).
//
// ZooKeeper writes a snapshot depth first, so a node's parent is found on
// the stack of its ancestors; another order that puts parents first is
// valid too, and from its first miss of the stack a map of every node by
// path finds the parents (slower, never needed for ZooKeeper's files).
// Two children of one parent with the same name (a node recorded twice,
// a second root record among them) are corruption, found once the
// children are laid out, and reported before any error that comes later
// in the file. Until the tree is finished, each node keeps ZooKeeper's
// stored cversion; after the snapshot the children are laid out once to
// look paths up during the replay, and the nodes the replay creates are
// found by path in a map of their own (created) until finish lays out
// every node's children again with the client cversion (2*stored -
// children), dataLength and numChildren.

// # Replay rules (ZooKeeper's DataTree)
//
// A created node gets czxid = mzxid = pzxid = zxid, ctime = mtime = the txn
// time, versions 0. Its parent's cversion becomes parentCVersion (or its
// cversion+1 when the txn says -1) and its pzxid the zxid, but only when that
// raises the cversion. A create of an existing node does only that parent
// update. A delete removes the node and raises the parent's pzxid to the
// zxid; cversion is not touched. setData sets data, version and mzxid/mtime;
// setACL sets the ACL and aversion. closeSession deletes the paths it lists,
// or every ephemeral of the session when the list is absent.
package zkfile
