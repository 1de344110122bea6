package zkfile

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
)

// snapWriter writes a snapshot in ZooKeeper's format for tests: the
// header with no session and no ACL cache, node records in the order
// written, then the end marker and the seal.
type snapWriter struct{ b bytes.Buffer }

func newSnapWriter() *snapWriter {
	w := &snapWriter{}
	w.i32(snapMagic)
	w.i32(2)
	w.i64(0) // dbid
	w.i32(0) // sessions
	w.i32(0) // ACL cache
	return w
}

func (w *snapWriter) i32(v int32) { binary.Write(&w.b, binary.BigEndian, v) }
func (w *snapWriter) i64(v int64) { binary.Write(&w.b, binary.BigEndian, v) }
func (w *snapWriter) str(s string) {
	w.i32(int32(len(s)))
	w.b.WriteString(s)
}

// node writes a node record ("" is the root): data nil is null, its
// zxids, times and pzxid are zxid, its versions 0, no ephemeral owner,
// OPEN_ACL_UNSAFE.
func (w *snapWriter) node(path string, data []byte, zxid int64) {
	w.str(path)
	if data == nil {
		w.i32(-1)
	} else {
		w.i32(int32(len(data)))
		w.b.Write(data)
	}
	w.i64(-1) // OPEN_ACL_UNSAFE
	for range 4 {
		w.i64(zxid) // czxid, mzxid, ctime, mtime
	}
	for range 3 {
		w.i32(0) // version, cversion, aversion
	}
	w.i64(0)    // ephemeralOwner
	w.i64(zxid) // pzxid
}

// seal ends the nodes and adds the checksum.
func (w *snapWriter) seal() []byte {
	w.str("/")
	w.i64(int64(adler32.Checksum(w.b.Bytes())))
	w.str("/")
	return w.b.Bytes()
}
