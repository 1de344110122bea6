package zkfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/klauspost/compress/snappy"
)

const (
	snapMagic = 0x5A4B534E // "ZKSN"
	logMagic  = 0x5A4B4C47 // "ZKLG"

	// maxSnappyBlock bounds one decoded block of a .snappy snapshot.
	// snappy-java (what ZooKeeper writes with) uses 32 KiB blocks; a
	// crafted length cannot make us allocate more than this per block.
	maxSnappyBlock = 8 << 20

	// maxSessions and maxACLCacheEntries bound the session table and the
	// total ACL entries of the ACL cache: ZooKeeper sets no limit, but a
	// compressed snapshot can inflate millions of near-identical entries
	// from a few kilobytes. Real ensembles hold thousands of sessions and
	// a few distinct ACL lists; these limits are far above both.
	maxSessions        = 1 << 21
	maxACLCacheEntries = 1 << 20

	// maxTrailer is the longest valid tail after the first seal: the
	// digest (20 bytes) and lastProcessedZxid (8 bytes), each with its
	// seal (13 bytes).
	maxTrailer = 20 + 13 + 8 + 13

	// nodeFixedLen is a node record after its path and data: long acl
	// id, then StatPersisted (czxid, mzxid, ctime, mtime, int version,
	// cversion, aversion, long ephemeralOwner, pzxid).
	nodeFixedLen = 8 + 4*8 + 3*4 + 2*8
)

// Snapshot is a decoded snapshot file.
type Snapshot struct {
	Tree *DataTree
	// DigestZxid is the zxid of the embedded digest (0 when absent). It is
	// often above the file name's zxid: the snapshot is fuzzy.
	DigestZxid int64
}

// ReadSnapshotFile opens and decodes one snapshot file, decompressing by
// suffix (.gz, .snappy) as it reads: the file is streamed, never held
// whole, so memory grows with the tree it holds, not with the file.
// maxBuffer is jute.maxbuffer (<= 0: ZooKeeper's default); no string or
// buffer longer than ZooKeeper would accept is allocated.
func ReadSnapshotFile(path string, maxBuffer int) (*Snapshot, error) {
	snap, err := readSnapshotFile(path, maxBuffer, nil)
	if err != nil {
		return nil, err
	}
	snap.Tree.finish()
	return snap, nil
}

// readSnapshotFile is ReadSnapshotFile leaving the tree unfinished, for a
// replay to continue.
func readSnapshotFile(path string, maxBuffer int, m *meter) (*Snapshot, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := m.reader(f)
	switch {
	case strings.HasSuffix(path, ".gz"):
		zr, err := gzip.NewReader(bufio.NewReaderSize(r, 64<<10))
		if err != nil {
			return nil, &FileError{File: path, Msg: "gzip header", Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		}
		r = zr
	case strings.HasSuffix(path, ".snappy"):
		r = &xerialReader{name: path, r: bufio.NewReaderSize(r, 64<<10)}
	}
	return decodeSnapshot(path, r, maxBuffer)
}

// xerialMagic starts snappy-java's SnappyOutputStream framing, which
// ZooKeeper uses for .snappy snapshots: magic, int version, int compatible
// version, then blocks of (int compressed length, raw snappy block).
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// xerialReader decodes snappy-java framing one block at a time. Its errors
// are *FileError with offsets in the compressed file.
type xerialReader struct {
	name   string
	r      *bufio.Reader
	off    int64 // compressed bytes consumed
	header bool
	blk    []byte // decoded bytes not yet returned
	src    []byte
	dst    []byte
}

func (x *xerialReader) Read(p []byte) (int, error) {
	if !x.header {
		var h [16]byte
		if _, err := io.ReadFull(x.r, h[:]); err != nil || !bytes.Equal(h[:8], xerialMagic) {
			return 0, &FileError{File: x.name, Msg: "snappy header", Err: fmt.Errorf("%w: not snappy-java framing", ErrCorrupt)}
		}
		x.header, x.off = true, 16
	}
	for len(x.blk) == 0 {
		var l [4]byte
		n, err := io.ReadFull(x.r, l[:])
		if err == io.EOF {
			return 0, io.EOF
		}
		if err != nil {
			return 0, &FileError{File: x.name, Offset: x.off, Msg: "snappy block length", Err: fmt.Errorf("%w: %d of 4 bytes", ErrCorrupt, n)}
		}
		ln := int64(binary.BigEndian.Uint32(l[:]))
		if ln > maxSnappyBlock {
			return 0, &FileError{File: x.name, Offset: x.off, Msg: "snappy block length", Err: fmt.Errorf("%w: block of %d bytes (limit %d)", ErrCorrupt, ln, maxSnappyBlock)}
		}
		x.src = append(x.src[:0], make([]byte, ln)...)
		if _, err := io.ReadFull(x.r, x.src); err != nil {
			return 0, &FileError{File: x.name, Offset: x.off, Msg: "snappy block", Err: fmt.Errorf("%w: block of %d bytes past the end", ErrCorrupt, ln)}
		}
		dl, err := snappy.DecodedLen(x.src)
		if err != nil || dl < 0 || dl > maxSnappyBlock {
			return 0, &FileError{File: x.name, Offset: x.off + 4, Msg: "snappy block", Err: fmt.Errorf("%w: bad block (decoded length %d)", ErrCorrupt, dl)}
		}
		if cap(x.dst) < dl {
			x.dst = make([]byte, dl)
		}
		out, err := snappy.Decode(x.dst[:dl], x.src)
		if err != nil {
			return 0, &FileError{File: x.name, Offset: x.off + 4, Msg: "snappy block", Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		}
		x.blk = out
		x.off += 4 + ln
	}
	n := copy(p, x.blk)
	x.blk = x.blk[n:]
	return n, nil
}

// stream is a sticky-error reader of a jute stream (cursor's counterpart
// for data that is not held in memory). It keeps the Adler32 of every
// byte consumed, for the seals, and the offset for errors.
type stream struct {
	name  string
	r     *readAhead
	off   int64
	limit int
	err   error
	at    int64
	what  string
	tmp   [8]byte
	fixed [nodeFixedLen]byte
}

func (s *stream) fail(what string, err error) {
	if s.err == nil {
		s.err, s.at, s.what = err, s.off, what
	}
}

// read fills b from the stream; a short read is ErrCorrupt (a snapshot is
// never torn: ZooKeeper only uses complete ones), a decompression or I/O
// error stays what it is.
func (s *stream) read(b []byte, what string) bool {
	if s.err != nil {
		return false
	}
	n, err := s.r.read(b)
	if err != nil {
		var fe *FileError
		switch {
		case errors.As(err, &fe):
			// The compressed framing is broken; report its own offset.
			s.fail(what, err)
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			s.fail(what, fmt.Errorf("%w: %v", ErrCorrupt, errShort))
		default:
			s.fail(what, fmt.Errorf("%w: %v", ErrCorrupt, err))
		}
		s.off += int64(n)
		return false
	}
	s.off += int64(n)
	return true
}

func (s *stream) i32(what string) int32 {
	if !s.read(s.tmp[:4], what) {
		return 0
	}
	return int32(binary.BigEndian.Uint32(s.tmp[:4]))
}

func (s *stream) i64(what string) int64 {
	if !s.read(s.tmp[:8], what) {
		return 0
	}
	return int64(binary.BigEndian.Uint64(s.tmp[:8]))
}

// length reads a jute length and checks it as BinaryInputArchive does:
// -1 is null, anything else must lie in [0, limit].
func (s *stream) length(what string) (int, bool) {
	n := s.i32(what)
	if s.err != nil || n == -1 {
		return 0, false
	}
	if n < 0 || int(n) > s.limit {
		s.off -= 4
		s.fail(what, fmt.Errorf("%w: unreasonable length %d (jute.maxbuffer allows %d)", ErrCorrupt, n, s.limit))
		s.off += 4
		return 0, false
	}
	return int(n), true
}

func (s *stream) buffer(what string) []byte {
	n, ok := s.length(what)
	if !ok {
		return nil
	}
	b := make([]byte, n)
	if !s.read(b, what) {
		return nil
	}
	return b
}

// bufferInto reads a jute buffer into the tree (the node data of a
// snapshot, kept as long as the tree).
func (s *stream) bufferInto(what string, t *DataTree) bref {
	n, ok := s.length(what)
	if !ok {
		return nullRef
	}
	b, r := t.alloc(n)
	if !s.read(b, what) {
		return nullRef
	}
	return r
}

// bytesInto reads a jute buffer into *buf, reused from one call to the
// next (a node's path: only its name is kept); false for null.
func (s *stream) bytesInto(what string, buf *[]byte) ([]byte, bool) {
	n, ok := s.length(what)
	if !ok {
		return nil, false
	}
	if cap(*buf) < n {
		*buf = make([]byte, n, max(n, 2*cap(*buf)))
	}
	b := (*buf)[:n]
	if !s.read(b, what) {
		return nil, false
	}
	return b, true
}

func (s *stream) str(what string) (string, bool) {
	b := s.buffer(what)
	return string(b), b != nil && s.err == nil
}

// count reads a vector count. Elements are read one by one, so a large
// count allocates nothing up front; a count that cannot be real ends the
// read with an error rather than a long loop.
func (s *stream) count(what string) int {
	n := s.i32(what)
	if s.err != nil || n == -1 {
		return -1
	}
	if n < 0 {
		s.fail(what, fmt.Errorf("%w: vector count %d", ErrCorrupt, n))
		return 0
	}
	return int(n)
}

// acls reads an ACL list. A list reaches ZooKeeper in one create or
// setACL request, which jute.maxbuffer bounds, and each entry takes at
// least 12 bytes there: a longer list (a compressed snapshot can hold
// millions of identical entries in a few kilobytes) is corruption.
func (s *stream) acls(what string) []ACL {
	n := s.count(what)
	if n < 0 {
		return nil
	}
	if n > s.limit/12 {
		s.off -= 4
		s.fail(what, fmt.Errorf("%w: %d ACL entries cannot fit in a request of jute.maxbuffer (%d bytes)", ErrCorrupt, n, s.limit))
		s.off += 4
		return nil
	}
	out := make([]ACL, 0, min(n, 16))
	for i := 0; i < n && s.err == nil; i++ {
		var a ACL
		a.Perms = s.i32(what + " perms")
		a.Scheme, _ = s.str(what + " scheme")
		a.ID, _ = s.str(what + " id")
		out = append(out, a)
	}
	return out
}

func (s *stream) error() error {
	if fe := (*FileError)(nil); errors.As(s.err, &fe) {
		return s.err
	}
	return &FileError{File: s.name, Offset: s.at, Msg: s.what, Err: s.err}
}

// DecodeSnapshot decodes an uncompressed snapshot held in memory, with
// ZooKeeper's default jute.maxbuffer. name is used in errors only.
func DecodeSnapshot(name string, data []byte) (*Snapshot, error) {
	snap, err := decodeSnapshot(name, bytes.NewReader(data), 0)
	if err != nil {
		return nil, err
	}
	snap.Tree.finish()
	return snap, nil
}

func decodeSnapshot(name string, r io.Reader, maxBuffer int) (*Snapshot, error) {
	s := &stream{name: name, r: newReadAhead(r), limit: LengthLimit(maxBuffer)}
	defer s.r.stop()
	at := func(off int64, msg string, err error) error {
		return &FileError{File: name, Offset: off, Msg: msg, Err: err}
	}
	if m := s.i32("magic"); s.err == nil && m != snapMagic {
		return nil, at(0, "magic", fmt.Errorf("%w: magic %#x is not ZKSN", ErrCorrupt, uint32(m)))
	}
	if v := s.i32("version"); s.err == nil && v != 2 {
		return nil, at(4, "version", fmt.Errorf("%w: unsupported snapshot version %d", ErrCorrupt, v))
	}
	s.i64("dbid")
	t := newDataTree()
	t.aheadOK = makeAhead
	defer t.stopAhead()
	t.SnapshotZxid, _ = ZxidFromName(name)
	ns := s.count("session count")
	if ns > maxSessions {
		return nil, at(s.off-4, "session count", fmt.Errorf("%w: %d sessions (kmeta reads at most %d)", ErrCorrupt, ns, maxSessions))
	}
	for i := 0; i < ns && s.err == nil; i++ {
		id := s.i64("session id")
		t.Sessions[id] = s.i32("session timeout")
	}
	// ACL cache: id -> number in the tree's ACL table.
	t.acls = [][]ACL{{{Perms: 31, Scheme: "world", ID: "anyone"}}}
	acls := map[int64]int32{-1: 0}
	na := s.count("acl cache size")
	total := 0
	for i := 0; i < na && s.err == nil; i++ {
		id := s.i64("acl id")
		start := s.off
		list := s.acls("acl list")
		if total += len(list); total > maxACLCacheEntries {
			return nil, at(start, "acl list", fmt.Errorf("%w: the ACL cache holds more than %d entries (kmeta's limit)", ErrCorrupt, maxACLCacheEntries))
		}
		acls[id] = t.aclIndex(list)
	}
	// Nodes, parents first; the list ends with the path "/". ZooKeeper
	// writes them depth first, so the parent of a node is on the stack of
	// its ancestors and is found without a lookup; any other order that
	// puts parents first is valid too, and is looked up (DataTree.byPath).
	// The stack's paths are prefixes of its top's, held in spath.
	var stack []Ref
	var stackLen []int
	var path, spath []byte
	var names nameCache
	file := t.fileIndex(name)
	// fail is an error of the record at off, unless a node recorded twice
	// came before it: reading on past a duplicate (it is found once the
	// children are laid out) must not change which error is reported.
	fail := func(err error) error {
		if d := t.buildKids(); d != NoRef {
			return errDuplicate(name, t.off(d), t.Path(d))
		}
		return err
	}
	for s.err == nil {
		start := s.off
		p, ok := s.bytesInto("node path", &path)
		if s.err != nil {
			break
		}
		if ok && string(p) == "/" {
			break
		}
		if !ok {
			return nil, fail(at(start, "node path", fmt.Errorf("%w: null path", ErrCorrupt)))
		}
		r, c := t.newNode()
		c.data = s.bufferInto("node data", t)
		// The fixed part (acl id and StatPersisted) in one read: a read
		// per field was a tenth of the whole data-dir read.
		fixed := s.fixed[:]
		if !s.read(fixed, "node stat") {
			break
		}
		be := binary.BigEndian
		aclID := int64(be.Uint64(fixed[0:]))
		c.czxid, c.mzxid = int64(be.Uint64(fixed[8:])), int64(be.Uint64(fixed[16:]))
		c.ctime, c.mtime = int64(be.Uint64(fixed[24:])), int64(be.Uint64(fixed[32:]))
		c.version, c.cversion, c.aversion = int32(be.Uint32(fixed[40:])), int32(be.Uint32(fixed[44:])), int32(be.Uint32(fixed[48:]))
		t.setOwner(r, int64(be.Uint64(fixed[52:])))
		c.pzxid = int64(be.Uint64(fixed[60:]))
		a, ok := acls[aclID]
		if !ok {
			return nil, fail(at(start, "node "+string(p), fmt.Errorf("%w: acl id %d not in the ACL cache", ErrCorrupt, aclID)))
		}
		c.acl = a
		t.setOrigin(r, c, file, start)
		if len(p) == 0 {
			// The root. A second root record would replace the root in
			// ZooKeeper's node map, leaving the nodes read so far under
			// no one: a node recorded twice.
			if t.root != NoRef {
				return nil, fail(errDuplicate(name, start, "/"))
			}
			t.root = r
			t.attach(r, c, NoRef)
			stack, stackLen, spath = append(stack[:0], r), append(stackLen[:0], 1), append(spath[:0], '/')
			continue
		}
		ps := unsafe.String(&p[0], len(p)) // valid until the next path is read
		if !validPath(ps) {
			return nil, fail(at(start, "node path", fmt.Errorf("%w: invalid path %q", ErrCorrupt, ps)))
		}
		pp, child := parentOf(ps)
		for len(stack) > 0 && string(spath[:stackLen[len(stack)-1]]) != pp {
			stack, stackLen = stack[:len(stack)-1], stackLen[:len(stackLen)-1]
		}
		var parent Ref
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		} else if parent = t.readLookup(pp); parent != NoRef {
			stack, stackLen, spath = append(stack, parent), append(stackLen, len(pp)), append(spath[:0], pp...)
		} else {
			return nil, fail(at(start, "node "+ps, fmt.Errorf("%w: parent %s not seen before the node", ErrCorrupt, pp)))
		}
		c.name = names.keep(t, p[len(p)-len(child):])
		t.attach(r, c, parent)
		if t.byPath != nil {
			t.byPath[string(p)] = r
		}
		stack, stackLen, spath = append(stack, r), append(stackLen, len(p)), append(spath[:0], p...)
	}
	if s.err != nil {
		return nil, fail(s.error())
	}
	if t.root == NoRef {
		return nil, at(s.off, "nodes", fmt.Errorf("%w: no root node", ErrCorrupt))
	}
	if d := t.buildKids(); d != NoRef {
		return nil, errDuplicate(name, t.off(d), t.Path(d))
	}
	t.byPath = nil
	// First seal, then the optional digest and lastProcessedZxid trailers,
	// each followed by its own seal covering everything before it. They
	// are recognised by how many bytes remain, so look ahead: more than the
	// longest valid trailer is trailing garbage (and is not read on).
	if err := s.seal(); err != nil {
		return nil, err
	}
	snap := &Snapshot{Tree: t}
	ahead, perr := s.r.peek(maxTrailer + 1)
	if perr != nil && perr != io.EOF {
		var fe *FileError
		if errors.As(perr, &fe) {
			return nil, perr
		}
		return nil, at(s.off, "trailer", fmt.Errorf("%w: %v", ErrCorrupt, perr))
	}
	rem := len(ahead)
	const sealLen = 8 + 4 + 1
	if rem >= 8+4+8+sealLen {
		snap.DigestZxid = s.i64("digest zxid")
		if dv := s.i32("digest version"); s.err == nil && dv < 2 {
			return nil, at(s.off-4, "digest version", fmt.Errorf("%w: digest version %d is not supported", ErrCorrupt, dv))
		}
		s.i64("digest")
		if err := s.seal(); err != nil {
			return nil, err
		}
		rem -= 20 + sealLen
	}
	if rem >= 8+sealLen {
		s.i64("last processed zxid")
		if err := s.seal(); err != nil {
			return nil, err
		}
		rem -= 8 + sealLen
	}
	if rem != 0 {
		more := ""
		if len(ahead) > maxTrailer {
			more = "at least "
		}
		return nil, at(s.off, "trailer", fmt.Errorf("%w: %s%d unexpected bytes after the last seal", ErrCorrupt, more, rem))
	}
	t.LastZxid = t.SnapshotZxid
	return snap, nil
}

// seal reads a seal: the Adler32 of every byte before it and the string
// "/".
func (s *stream) seal() error {
	at := s.off
	want := s.r.sum()
	got := s.i64("checksum")
	if s.err != nil {
		return s.error()
	}
	if uint64(got) != uint64(want) {
		return &FileError{File: s.name, Offset: at, Msg: "checksum", Err: fmt.Errorf("%w: Adler32 %#x, stored %#x", ErrCorrupt, want, uint64(got))}
	}
	if str, ok := s.str("seal"); s.err == nil && (!ok || str != "/") {
		return &FileError{File: s.name, Offset: at + 8, Msg: "seal", Err: fmt.Errorf("%w: seal is %q, not \"/\"", ErrCorrupt, str)}
	}
	if s.err != nil {
		return s.error()
	}
	return nil
}

// nameCache keeps the short names a snapshot repeats once: a Kafka tree
// names a million znodes "state" and as many with partition numbers
// ("0".."99" under each topic), 7 MB of arena at a million partitions.
// A slot per hash of the name, the last name seen there: a miss only
// keeps the name as it would have been.
type nameCache struct {
	slot [256]bref
}

// maxCachedName is the longest name the cache holds.
const maxCachedName = 8

func (nc *nameCache) keep(t *DataTree, name []byte) bref {
	if len(name) == 0 || len(name) > maxCachedName {
		return t.keep(name)
	}
	h := uint32(len(name))
	for _, b := range name {
		h = h*31 + uint32(b)
	}
	e := &nc.slot[h%uint32(len(nc.slot))]
	if e.n == int32(len(name)) && string(t.bytes(*e)) == string(name) {
		return *e
	}
	*e = t.keep(name)
	return *e
}
