package zkfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"strconv"
	"strings"
)

// ZooKeeper operation codes that appear in transaction logs.
const (
	OpError           int32 = -1
	OpCreate          int32 = 1
	OpDelete          int32 = 2
	OpSetData         int32 = 5
	OpSetACL          int32 = 7
	OpCheck           int32 = 13
	OpMulti           int32 = 14
	OpCreate2         int32 = 15
	OpReconfig        int32 = 16
	OpCreateContainer int32 = 19
	OpDeleteContainer int32 = 20
	OpCreateTTL       int32 = 21
	OpCreateSession   int32 = -10
	OpCloseSession    int32 = -11
)

// Ephemeral-owner markers for containers and TTL nodes (EphemeralType).
const (
	containerOwner int64 = -1 << 63
	ttlOwnerMask   int64 = -1 << 56 // 0xFF00...
)

// TxnHeader is the header of every transaction.
type TxnHeader struct {
	Session int64
	Cxid    int32
	Zxid    int64
	Time    int64 // ms since epoch
	Type    int32
}

// Op is one decoded operation; a multi txn holds several.
type Op struct {
	Type           int32
	Path           string
	Data           []byte
	ACL            []ACL
	Ephemeral      bool
	ParentCVersion int32
	Version        int32
	TTL            int64
	Paths          []string // closeSession
	HasPaths       bool
	Timeout        int32 // createSession
	Err            int32 // error
}

// Txn is one log entry: its header, its operations, and where it sits.
type Txn struct {
	TxnHeader
	Ops    []Op
	Offset int64 // offset of the entry's checksum field in the file
}

// TxnLog reads the entries of one log file in order.
type TxnLog struct {
	name  string
	f     *os.File
	r     *bufio.Reader
	off   int64
	size  int64
	limit int
	Dbid  int64
	// zeroAt is the offset of the entry header whose length was zero
	// (where Next returned io.EOF, as ZooKeeper stops there); -1 if none.
	zeroAt int64
	// tornAt is the offset of the entry Next found torn (ErrTornTail:
	// ZooKeeper's FileTxnIterator ends the file there too); -1 if none.
	tornAt int64
}

// OpenTxnLog opens a log file read-only and checks its header. maxBuffer is
// jute.maxbuffer (<= 0: ZooKeeper's default): an entry longer than
// ZooKeeper would read is corruption, and is never allocated.
func OpenTxnLog(path string, maxBuffer int) (*TxnLog, error) {
	return openTxnLog(path, maxBuffer, nil)
}

// openTxnLog is OpenTxnLog counting the bytes read into m.
func openTxnLog(path string, maxBuffer int, m *meter) (*TxnLog, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	l := &TxnLog{name: path, f: f, r: bufio.NewReaderSize(m.reader(f), 1<<20), size: st.Size(), limit: LengthLimit(maxBuffer), zeroAt: -1, tornAt: -1}
	var hdr [16]byte
	if _, err := io.ReadFull(l.r, hdr[:]); err != nil {
		f.Close()
		return nil, &FileError{File: path, Msg: "file header", Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	if m := binary.BigEndian.Uint32(hdr[:4]); m != logMagic {
		f.Close()
		return nil, &FileError{File: path, Msg: "magic", Err: fmt.Errorf("%w: magic %#x is not ZKLG", ErrCorrupt, m)}
	}
	if v := int32(binary.BigEndian.Uint32(hdr[4:8])); v != 2 {
		f.Close()
		return nil, &FileError{File: path, Offset: 4, Msg: "version", Err: fmt.Errorf("%w: unsupported txn log version %d", ErrCorrupt, v)}
	}
	l.Dbid = int64(binary.BigEndian.Uint64(hdr[8:]))
	l.off = 16
	return l, nil
}

// Close closes the file.
func (l *TxnLog) Close() error { return l.f.Close() }

// Next returns the next entry, io.EOF at the end of the data (end of file or
// the zeroed preallocated area), an ErrTornTail error for an entry cut short
// (io.EOF after it), or an ErrCorrupt error for a checksum mismatch or an
// undecodable body. Whether a torn entry is the end of what was written or
// damage with entries after it is PastEnd's to say.
func (l *TxnLog) Next() (*Txn, error) {
	if l.zeroAt >= 0 || l.tornAt >= 0 {
		return nil, io.EOF
	}
	start := l.off
	var hdr [12]byte
	n, err := io.ReadFull(l.r, hdr[:])
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		if n > 0 && allZero(hdr[:n]) {
			return nil, io.EOF
		}
		return nil, l.torn(start, start, "entry header", fmt.Errorf("%w: %d of 12 bytes", ErrTornTail, n))
	}
	crc := binary.BigEndian.Uint64(hdr[:8])
	ln := int32(binary.BigEndian.Uint32(hdr[8:]))
	if ln == 0 {
		// Preallocated zeroes: the end of the written data, for
		// ZooKeeper's Util.readTxnBytes as for kmeta. PastEnd looks
		// further.
		l.zeroAt = start
		return nil, io.EOF
	}
	if ln < 0 || int(ln) > l.limit {
		// BinaryInputArchive.checkLength refuses it before reading on.
		return nil, &FileError{File: l.name, Offset: start + 8, Msg: "entry length", Err: fmt.Errorf("%w: unreasonable length %d (jute.maxbuffer allows %d)", ErrCorrupt, ln, l.limit)}
	}
	if int64(ln) > l.size-start-12 {
		return nil, l.torn(start, start, "entry length", fmt.Errorf("%w: length %d runs past the end of the file", ErrTornTail, ln))
	}
	body := make([]byte, ln)
	if _, err := io.ReadFull(l.r, body); err != nil {
		return nil, l.torn(start, start, "entry body", fmt.Errorf("%w: %v", ErrTornTail, err))
	}
	eor, err := l.r.ReadByte()
	if err != nil {
		return nil, l.torn(start, start, "end-of-record byte", fmt.Errorf("%w: missing", ErrTornTail))
	}
	// The end-of-record byte before the checksum, as Util.readTxnBytes
	// checks it ("Last transaction was partial."): an entry a crash cut
	// in a preallocated file ends in zeroes, its checksum wrong too, and
	// ZooKeeper loads what comes before it. PastEnd tells it from damage.
	if eor != 'B' {
		return nil, l.torn(start, start+12+int64(ln), "end-of-record byte", fmt.Errorf("%w: %#x, not 'B'", ErrTornTail, eor))
	}
	if sum := adler32.Checksum(body); uint64(sum) != crc {
		return nil, &FileError{File: l.name, Offset: start, Msg: "entry checksum", Err: fmt.Errorf("%w: Adler32 %#x, stored %#x", ErrCorrupt, sum, crc)}
	}
	l.off = start + 12 + int64(ln) + 1
	txn, err := DecodeTxn(body)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.File, fe.Offset = l.name, start+12+fe.Offset
			return nil, fe
		}
		return nil, &FileError{File: l.name, Offset: start, Msg: "entry body", Err: err}
	}
	txn.Offset = start
	return txn, nil
}

// torn records that the entry at start ends the log (Next returns io.EOF
// from now on, PastEnd scans from it) and returns the ErrTornTail error at
// pos, the byte found wrong.
func (l *TxnLog) torn(start, pos int64, what string, err error) error {
	l.tornAt = start
	return &FileError{File: l.name, Offset: pos, Msg: what, Err: err}
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// DecodeTxn decodes one entry body (header, record, optional digest). Errors
// are *FileError with the offset inside body and no file name.
func DecodeTxn(body []byte) (*Txn, error) {
	c := &cursor{buf: body}
	t := &Txn{}
	t.Session = c.i64("session")
	t.Cxid = c.i32("cxid")
	t.Zxid = c.i64("zxid")
	t.Time = c.i64("time")
	t.Type = c.i32("type")
	if c.err != nil {
		return nil, cursorErr(c)
	}
	if t.Type == OpMulti {
		n := c.count("multi count", 8)
		for i := 0; i < n && c.err == nil; i++ {
			typ := c.i32("multi op type")
			sub := c.buffer("multi op data")
			if c.err != nil {
				break
			}
			sc := &cursor{buf: sub}
			op, err := decodeOp(sc, typ, true)
			if err != nil {
				var fe *FileError
				if errors.As(err, &fe) {
					fe.Msg = fmt.Sprintf("multi op %d: %s", i, fe.Msg)
				}
				return nil, err
			}
			t.Ops = append(t.Ops, op)
		}
		if c.err != nil {
			return nil, cursorErr(c)
		}
	} else {
		op, err := decodeOp(c, t.Type, false)
		if err != nil {
			return nil, err
		}
		t.Ops = []Op{op}
	}
	// Whatever remains is the optional TxnDigest{int version, long digest}.
	if r := c.remaining(); r != 0 && r != 12 {
		return nil, &FileError{Offset: int64(c.off), Msg: "txn trailer", Err: fmt.Errorf("%w: %d unexpected bytes after the record", ErrCorrupt, r)}
	}
	return t, nil
}

func cursorErr(c *cursor) error {
	err := c.err
	if errors.Is(err, errShort) {
		err = fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return &FileError{Offset: c.at, Msg: c.what, Err: err}
}

// decodeOp decodes the record of one operation. inMulti: the record fills
// its buffer exactly (no digest may follow).
func decodeOp(c *cursor, typ int32, inMulti bool) (Op, error) {
	op := Op{Type: typ}
	switch typ {
	case OpCreate, OpCreate2:
		op.Path, _ = c.str("create path")
		op.Data = c.buffer("create data")
		op.ACL = c.acls("create acl")
		op.Ephemeral = c.boolean("create ephemeral")
		// CreateTxnV0 has no parentCVersion: ZooKeeper falls back to it
		// when the full record does not fit.
		if c.err == nil && c.remaining() < 4 {
			op.ParentCVersion = -1
			break
		}
		op.ParentCVersion = c.i32("create parentCVersion")
	case OpCreateContainer, OpCreateTTL:
		op.Path, _ = c.str("create path")
		op.Data = c.buffer("create data")
		op.ACL = c.acls("create acl")
		op.ParentCVersion = c.i32("create parentCVersion")
		if typ == OpCreateTTL {
			op.TTL = c.i64("create ttl")
		}
	case OpDelete, OpDeleteContainer:
		op.Path, _ = c.str("delete path")
	case OpSetData, OpReconfig:
		op.Path, _ = c.str("setData path")
		op.Data = c.buffer("setData data")
		op.Version = c.i32("setData version")
	case OpSetACL:
		op.Path, _ = c.str("setACL path")
		op.ACL = c.acls("setACL acl")
		op.Version = c.i32("setACL version")
	case OpCheck:
		op.Path, _ = c.str("check path")
		op.Version = c.i32("check version")
	case OpError:
		op.Err = c.i32("error code")
	case OpCreateSession:
		op.Timeout = c.i32("session timeout")
	case OpCloseSession:
		// Old logs have no path list; newer ones may be followed by a digest
		// (12 bytes), which a vector count cannot be confused with only if
		// we look at what remains.
		if r := c.remaining(); r == 0 || (!inMulti && r == 12 && !closeListFits(c)) {
			break
		}
		n := c.count("closeSession paths", 4)
		op.HasPaths = n >= 0
		for i := 0; i < n && c.err == nil; i++ {
			p, _ := c.str("closeSession path")
			op.Paths = append(op.Paths, p)
		}
	default:
		return op, &FileError{Offset: int64(c.off), Msg: "txn type", Err: fmt.Errorf("%w: unknown txn type %d", ErrCorrupt, typ)}
	}
	if c.err != nil {
		return op, cursorErr(c)
	}
	if inMulti && c.remaining() != 0 {
		return op, &FileError{Offset: int64(c.off), Msg: "multi op", Err: fmt.Errorf("%w: %d unexpected bytes in a type %d op", ErrCorrupt, c.remaining(), typ)}
	}
	return op, nil
}

// closeListFits reports whether the bytes left parse as a path vector that
// consumes them exactly (rather than being a TxnDigest).
func closeListFits(c *cursor) bool {
	probe := &cursor{buf: c.buf[c.off:]}
	n := probe.count("", 4)
	for i := 0; i < n && probe.err == nil; i++ {
		probe.str("")
	}
	return probe.err == nil && probe.remaining() == 0
}

// ZxidFromName parses the hex zxid suffix of "snapshot.<hex>[.gz|.snappy]" or
// "log.<hex>".
func ZxidFromName(name string) (int64, bool) {
	base := name
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	var rest string
	switch {
	case strings.HasPrefix(base, "snapshot."):
		rest = strings.TrimPrefix(base, "snapshot.")
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, ".gz"), ".snappy")
	case strings.HasPrefix(base, "log."):
		rest = strings.TrimPrefix(base, "log.")
	default:
		return 0, false
	}
	v, err := strconv.ParseUint(rest, 16, 64)
	if err != nil {
		return 0, false
	}
	return int64(v), true
}
