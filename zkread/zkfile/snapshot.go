package zkfile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/snappy"
)

const (
	snapMagic = 0x5A4B534E // "ZKSN"
	logMagic  = 0x5A4B4C47 // "ZKLG"

	// maxSnapshotBytes bounds decompression so a crafted .gz cannot exhaust
	// memory; real snapshots of Kafka clusters are far below it.
	maxSnapshotBytes = 8 << 30
)

// Snapshot is a decoded snapshot file.
type Snapshot struct {
	Tree *DataTree
	// DigestZxid is the zxid of the embedded digest (0 when absent). It is
	// often above the file name's zxid: the snapshot is fuzzy.
	DigestZxid int64
}

// ReadSnapshotFile opens and decodes one snapshot file, decompressing by
// suffix (.gz, .snappy).
func ReadSnapshotFile(path string) (*Snapshot, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{File: path, Msg: "read", Err: err}
	}
	data, err := decompress(path, raw)
	if err != nil {
		return nil, err
	}
	return DecodeSnapshot(path, data)
}

func decompress(name string, raw []byte) ([]byte, error) {
	switch {
	case strings.HasSuffix(name, ".gz"):
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, &FileError{File: name, Msg: "gzip header", Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		}
		out, err := io.ReadAll(io.LimitReader(zr, maxSnapshotBytes))
		if err != nil {
			return nil, &FileError{File: name, Offset: int64(len(out)), Msg: "gzip stream", Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		}
		return out, nil
	case strings.HasSuffix(name, ".snappy"):
		return unxerial(name, raw)
	}
	return raw, nil
}

// xerialMagic starts snappy-java's SnappyOutputStream framing, which
// ZooKeeper uses for .snappy snapshots: magic, int version, int compatible
// version, then blocks of (int compressed length, raw snappy block).
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

func unxerial(name string, raw []byte) ([]byte, error) {
	if len(raw) < 16 || !bytes.Equal(raw[:8], xerialMagic) {
		return nil, &FileError{File: name, Msg: "snappy header", Err: fmt.Errorf("%w: not snappy-java framing", ErrCorrupt)}
	}
	var out []byte
	off := 16
	for off < len(raw) {
		if len(raw)-off < 4 {
			return nil, &FileError{File: name, Offset: int64(off), Msg: "snappy block length", Err: fmt.Errorf("%w: %v", ErrCorrupt, errShort)}
		}
		n := int(binary.BigEndian.Uint32(raw[off:]))
		off += 4
		if n < 0 || n > len(raw)-off {
			return nil, &FileError{File: name, Offset: int64(off - 4), Msg: "snappy block length", Err: fmt.Errorf("%w: block of %d bytes past end", ErrCorrupt, n)}
		}
		dl, err := snappy.DecodedLen(raw[off : off+n])
		if err != nil || dl < 0 || len(out)+dl > maxSnapshotBytes {
			return nil, &FileError{File: name, Offset: int64(off), Msg: "snappy block", Err: fmt.Errorf("%w: bad block", ErrCorrupt)}
		}
		blk, err := snappy.Decode(nil, raw[off:off+n])
		if err != nil {
			return nil, &FileError{File: name, Offset: int64(off), Msg: "snappy block", Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		}
		out = append(out, blk...)
		off += n
	}
	return out, nil
}

// DecodeSnapshot decodes an uncompressed snapshot stream. name is used in
// errors only.
func DecodeSnapshot(name string, data []byte) (*Snapshot, error) {
	c := &cursor{buf: data}
	bad := func(msg string, err error) error {
		if c.err != nil {
			err = c.err
			if errors.Is(err, errShort) {
				err = fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
			return &FileError{File: name, Offset: c.at, Msg: c.what, Err: err}
		}
		return &FileError{File: name, Offset: int64(c.off), Msg: msg, Err: err}
	}
	if m := c.i32("magic"); c.err == nil && m != snapMagic {
		return nil, &FileError{File: name, Msg: "magic", Err: fmt.Errorf("%w: magic %#x is not ZKSN", ErrCorrupt, uint32(m))}
	}
	if v := c.i32("version"); c.err == nil && v != 2 {
		return nil, &FileError{File: name, Offset: 4, Msg: "version", Err: fmt.Errorf("%w: unsupported snapshot version %d", ErrCorrupt, v)}
	}
	c.i64("dbid")
	t := newDataTree()
	t.SnapshotZxid, _ = ZxidFromName(name)
	ns := c.count("session count", 12)
	for i := 0; i < ns && c.err == nil; i++ {
		id := c.i64("session id")
		t.Sessions[id] = c.i32("session timeout")
	}
	// ACL cache.
	acls := map[int64][]ACL{-1: {{Perms: 31, Scheme: "world", ID: "anyone"}}}
	na := c.count("acl cache size", 12)
	for i := 0; i < na && c.err == nil; i++ {
		id := c.i64("acl id")
		acls[id] = c.acls("acl list")
	}
	// Nodes, parents first; the list ends with the path "/".
	for c.err == nil {
		at := c.off
		p, ok := c.str("node path")
		if c.err != nil {
			break
		}
		if ok && p == "/" {
			break
		}
		if !ok {
			return nil, &FileError{File: name, Offset: int64(at), Msg: "node path", Err: fmt.Errorf("%w: null path", ErrCorrupt)}
		}
		n := &Node{Children: map[string]struct{}{}}
		n.Data = c.buffer("node data")
		aclID := c.i64("node acl id")
		n.Stat = StatPersisted{
			Czxid: c.i64("czxid"), Mzxid: c.i64("mzxid"),
			Ctime: c.i64("ctime"), Mtime: c.i64("mtime"),
			Version: c.i32("version"), Cversion: c.i32("cversion"), Aversion: c.i32("aversion"),
			EphemeralOwner: c.i64("ephemeralOwner"), Pzxid: c.i64("pzxid"),
		}
		if c.err != nil {
			break
		}
		a, ok := acls[aclID]
		if !ok {
			return nil, &FileError{File: name, Offset: int64(at), Msg: "node " + p, Err: fmt.Errorf("%w: acl id %d not in the ACL cache", ErrCorrupt, aclID)}
		}
		n.ACL = a
		if p == "" {
			t.Nodes["/"] = n
			continue
		}
		if !validPath(p) {
			return nil, &FileError{File: name, Offset: int64(at), Msg: "node path", Err: fmt.Errorf("%w: invalid path %q", ErrCorrupt, p)}
		}
		pp, child := parentOf(p)
		parent := t.Nodes[pp]
		if parent == nil {
			return nil, &FileError{File: name, Offset: int64(at), Msg: "node " + p, Err: fmt.Errorf("%w: parent %s not seen before the node", ErrCorrupt, pp)}
		}
		if _, dup := t.Nodes[p]; dup {
			return nil, &FileError{File: name, Offset: int64(at), Msg: "node " + p, Err: fmt.Errorf("%w: duplicate node", ErrCorrupt)}
		}
		parent.Children[child] = struct{}{}
		t.Nodes[p] = n
	}
	if c.err != nil {
		return nil, bad("", nil)
	}
	if t.Nodes["/"] == nil {
		return nil, &FileError{File: name, Offset: int64(c.off), Msg: "nodes", Err: fmt.Errorf("%w: no root node", ErrCorrupt)}
	}
	// First seal, then the optional digest and lastProcessedZxid trailers,
	// each followed by its own seal covering everything before it.
	if err := checkSeal(c, data); err != nil {
		return nil, bad("", err)
	}
	snap := &Snapshot{Tree: t}
	const sealLen = 8 + 4 + 1
	if c.remaining() >= 8+4+8+sealLen {
		snap.DigestZxid = c.i64("digest zxid")
		if dv := c.i32("digest version"); c.err == nil && dv < 2 {
			return nil, &FileError{File: name, Offset: int64(c.off - 4), Msg: "digest version", Err: fmt.Errorf("%w: digest version %d is not supported", ErrCorrupt, dv)}
		}
		c.i64("digest")
		if err := checkSeal(c, data); err != nil {
			return nil, bad("", err)
		}
	}
	if c.remaining() >= 8+sealLen {
		c.i64("last processed zxid")
		if err := checkSeal(c, data); err != nil {
			return nil, bad("", err)
		}
	}
	if c.remaining() != 0 {
		return nil, &FileError{File: name, Offset: int64(c.off), Msg: "trailer", Err: fmt.Errorf("%w: %d unexpected bytes after the last seal", ErrCorrupt, c.remaining())}
	}
	t.LastZxid = t.SnapshotZxid
	return snap, nil
}

// checkSeal reads a seal: the Adler32 of data[:here] and the string "/".
func checkSeal(c *cursor, data []byte) error {
	at := c.off
	want := uint32(adler32.Checksum(data[:at]))
	got := c.i64("checksum")
	if c.err != nil {
		return nil // reported through c.err
	}
	if uint64(got) != uint64(want) {
		c.off = at
		return fmt.Errorf("%w: Adler32 %#x, stored %#x", ErrCorrupt, want, uint64(got))
	}
	if s, ok := c.str("seal"); c.err == nil && (!ok || s != "/") {
		return fmt.Errorf("%w: seal is %q, not \"/\"", ErrCorrupt, s)
	}
	return nil
}
