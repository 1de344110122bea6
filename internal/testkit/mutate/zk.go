package mutate

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/klauspost/compress/snappy"
)

// ---- ZooKeeper transaction log ----
//
//	header  int magic "ZKLG", int version 2, long dbid            (16 bytes)
//	entry   long checksum (Adler32 of body), int len, body, byte 'B'
//	body    TxnHeader{long sessionId, int cxid, long zxid, long time, int type}, record
//
// A zero length (the preallocated zeros) ends the data.

type zentry struct {
	start, body, end int // end: after the 'B'
	zxid             int64
	typ              int32
}

var knownTxnTypes = map[int32]bool{1: true, 2: true, 5: true, 7: true, 13: true, 14: true, 15: true, 16: true, 19: true, 20: true, 21: true, -10: true, -11: true, -1: true}

// parseTxnLog returns the entries up to the first zero length. A frame that
// does not close, or whose checksum fails, is an error.
func parseTxnLog(b []byte) ([]zentry, error) {
	if len(b) < 16 || binary.BigEndian.Uint32(b) != 0x5A4B4C47 || binary.BigEndian.Uint32(b[4:]) != 2 {
		return nil, errors.New("txn log header")
	}
	var out []zentry
	p := 16
	for len(b)-p >= 12 {
		n := int32(binary.BigEndian.Uint32(b[p+8:]))
		if n == 0 {
			break
		}
		if n < 32 || int64(p)+12+int64(n)+1 > int64(len(b)) {
			return out, fmt.Errorf("entry at %d: length %d does not fit", p, n)
		}
		e := zentry{start: p, body: p + 12, end: p + 12 + int(n) + 1}
		if b[e.end-1] != 'B' {
			return out, fmt.Errorf("entry at %d: no end-of-record byte", p)
		}
		if uint64(adler32.Checksum(b[e.body:e.end-1])) != binary.BigEndian.Uint64(b[p:]) {
			return out, fmt.Errorf("entry at %d: checksum mismatch", p)
		}
		e.zxid = int64(binary.BigEndian.Uint64(b[e.body+12:]))
		e.typ = int32(binary.BigEndian.Uint32(b[e.body+28:]))
		out = append(out, e)
		p = e.end
	}
	if len(b)-p > 0 && len(b)-p < 12 {
		for _, c := range b[p:] {
			if c != 0 {
				return out, fmt.Errorf("%d bytes of an entry at %d", len(b)-p, p)
			}
		}
	}
	return out, nil
}

func resealTxn(b []byte, e zentry) {
	binary.BigEndian.PutUint64(b[e.start:], uint64(adler32.Checksum(b[e.body:e.end-1])))
}

// validTxnLog: checksums, frames, known types, and zxids that go up by one
// within an epoch, starting where the original started (and, unless it is
// the newest log, ending where it ended).
func validTxnLog(orig, mut []byte, ctx Context) error {
	oe, err := parseTxnLog(orig)
	if err != nil || len(oe) == 0 {
		return fmt.Errorf("original does not parse: %v", err)
	}
	me, err := parseTxnLog(mut)
	if err != nil {
		return err
	}
	prev := oe[0].zxid - 1
	for i, e := range me {
		if e.zxid != prev+1 && !(e.zxid>>32 > prev>>32 && e.zxid&0xffffffff == 1) {
			return fmt.Errorf("entry %d at %d: zxid 0x%x after 0x%x", i, e.start, e.zxid, prev)
		}
		if !knownTxnTypes[e.typ] {
			return fmt.Errorf("entry %d at %d: txn type %d", i, e.start, e.typ)
		}
		prev = e.zxid
	}
	if !ctx.LastFile && prev != oe[len(oe)-1].zxid {
		return fmt.Errorf("ends at zxid 0x%x, the original at 0x%x", prev, oe[len(oe)-1].zxid)
	}
	return nil
}

func txnOps() []op {
	ops := byteOps()
	eop := func(name string, resealed bool, f func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool)) op {
		return op{name: name, resealed: resealed, apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			es, err := parseTxnLog(b)
			if err != nil || len(es) == 0 {
				return nil, "", false
			}
			return f(r, b, es)
		}}
	}
	dataEnd := func(es []zentry) int { return es[len(es)-1].end }
	rearrange := func(b []byte, es []zentry, order []int, renumber bool) []byte {
		out := append([]byte(nil), b[:es[0].start]...)
		next := es[0].zxid
		for _, i := range order {
			e := es[i]
			s := len(out)
			out = append(out, b[e.start:e.end]...)
			if renumber {
				binary.BigEndian.PutUint64(out[s+12+12:], uint64(next))
				resealTxn(out, zentry{start: s, body: s + 12, end: s + e.end - e.start})
				next++
			}
		}
		return append(out, b[dataEnd(es):]...)
	}
	identity := func(n int) []int {
		o := make([]int, n)
		for i := range o {
			o[i] = i
		}
		return o
	}
	ops = append(ops,
		eop("truncate-at-entry", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			i := r.IntN(len(es))
			return b[:es[i].start], fmt.Sprintf("truncate at entry %d (position %d, zxid 0x%x)", i, es[i].start, es[i].zxid), true
		}),
		eop("damage-data-region", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			// Byte damage where the entries are, not in the zero padding.
			p := 16 + r.IntN(dataEnd(es)-16)
			bit := r.IntN(8)
			b[p] ^= 1 << bit
			return b, fmt.Sprintf("flip bit %d of byte %d (inside the entries)", bit, p), true
		}),
		eop("entry-length", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			e := es[r.IntN(len(es))]
			old := int32(e.end - e.body - 1)
			v := pick(r, old+1, old-1, 0, -1, 1<<31-1, old*4)
			binary.BigEndian.PutUint32(b[e.start+8:], uint32(v))
			return b, fmt.Sprintf("entry at %d (zxid 0x%x): len %d -> %d", e.start, e.zxid, old, v), true
		}),
		eop("checksum-field", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			e := es[r.IntN(len(es))]
			b[e.start+4+r.IntN(4)] ^= byte(1 + r.IntN(255))
			return b, fmt.Sprintf("entry at %d (zxid 0x%x): checksum changed", e.start, e.zxid), true
		}),
		eop("end-of-record", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			e := es[r.IntN(len(es))]
			b[e.end-1] = pick[byte](r, 0, 'A', 0xff)
			return b, fmt.Sprintf("entry at %d (zxid 0x%x): end-of-record byte 'B' -> 0x%02x", e.start, e.zxid, b[e.end-1]), true
		}),
		eop("zxid", true, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			i := r.IntN(len(es))
			e := es[i]
			v := pick(r, e.zxid-1, e.zxid+1, e.zxid+5, 0, e.zxid+1<<32)
			if i > 0 && r.IntN(2) == 0 {
				v = es[i-1].zxid // a repeated zxid
			}
			binary.BigEndian.PutUint64(b[e.body+12:], uint64(v))
			resealTxn(b, e)
			return b, fmt.Sprintf("entry %d at %d: zxid 0x%x -> 0x%x, Adler32 resealed", i, e.start, e.zxid, v), true
		}),
		eop("txn-time", true, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			e := es[r.IntN(len(es))]
			old := int64(binary.BigEndian.Uint64(b[e.body+20:]))
			v := pick(r, old+1, old-3600000, 0, old+1<<33)
			binary.BigEndian.PutUint64(b[e.body+20:], uint64(v))
			resealTxn(b, e)
			return b, fmt.Sprintf("entry at %d (zxid 0x%x): time %d -> %d, Adler32 resealed", e.start, e.zxid, old, v), true
		}),
		eop("txn-type", true, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			e := es[r.IntN(len(es))]
			v := pick[int32](r, 1, 2, 5, 14, 15, -10, -11, 99, 0, -1)
			if v == e.typ {
				return nil, "", false
			}
			binary.BigEndian.PutUint32(b[e.body+28:], uint32(v))
			resealTxn(b, e)
			return b, fmt.Sprintf("entry at %d (zxid 0x%x): type %d -> %d, Adler32 resealed", e.start, e.zxid, e.typ, v), true
		}),
		eop("body-flip", true, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			// Inside the record after the TxnHeader: paths, data, ACLs, lengths.
			e := es[r.IntN(len(es))]
			if e.end-1-(e.body+32) <= 0 {
				return nil, "", false
			}
			p, bit := e.body+32+r.IntN(e.end-1-(e.body+32)), r.IntN(8)
			b[p] ^= 1 << bit
			resealTxn(b, e)
			return b, fmt.Sprintf("entry at %d (zxid 0x%x, type %d): flip bit %d of record byte %d, Adler32 resealed", e.start, e.zxid, e.typ, bit, p-e.body-32), true
		}),
		eop("swap-entries", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			if len(es) < 2 {
				return nil, "", false
			}
			i := r.IntN(len(es) - 1)
			j := i + 1 + r.IntN(pick(r, 1, len(es)-i-1))
			o := identity(len(es))
			o[i], o[j] = j, i
			renum := r.IntN(2) == 0
			return rearrange(b, es, o, renum), fmt.Sprintf("swap entries %d and %d (zxids 0x%x, 0x%x; renumbered=%v)", i, j, es[i].zxid, es[j].zxid, renum), true
		}),
		eop("duplicate-entry", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			i := r.IntN(len(es))
			var o []int
			for x := range es {
				o = append(o, x)
				if x == i {
					o = append(o, x)
				}
			}
			return rearrange(b, es, o, false), fmt.Sprintf("duplicate entry %d (zxid 0x%x)", i, es[i].zxid), true
		}),
		eop("delete-entry", false, func(r *rand.Rand, b []byte, es []zentry) ([]byte, string, bool) {
			if len(es) < 2 {
				return nil, "", false
			}
			i := r.IntN(len(es) - 1)
			var o []int
			for x := range es {
				if x != i {
					o = append(o, x)
				}
			}
			return rearrange(b, es, o, false), fmt.Sprintf("delete entry %d (zxid 0x%x): a zxid gap", i, es[i].zxid), true
		}),
	)
	return ops
}

// ---- ZooKeeper snapshot ----
//
//	header   int magic "ZKSN", int version, long dbid
//	sessions int n, n × (long id, int timeout)
//	acls     int n, n × (long id, int m (-1 null), m × (int perms, ustring scheme, ustring id))
//	nodes    ustring path ("/" ends the list), buffer data, long aclId, stat (60 bytes)
//	seal     long Adler32 of every byte before it, ustring "/"
//	trailers ZxidDigest (long, int, long) + seal; lastProcessedZxid (long) + seal
//
// Every seal covers the whole stream before it (ZooKeeper's CheckedInputStream).

type znode struct {
	start, end  int
	path        string
	pathAt      int // the path's length field
	dataAt      int // the data's length field
	dataLen     int
	aclAt, stat int
}

type zsnap struct {
	sessionsAt int
	aclIDs     map[int64]bool
	nodes      []znode
	seals      []int // positions of the seal longs
}

type reader struct {
	b   []byte
	p   int
	err error
}

func (r *reader) need(n int) bool {
	if r.err == nil && (n < 0 || len(r.b)-r.p < n) {
		r.err = fmt.Errorf("%d bytes needed at %d, %d left", n, r.p, len(r.b)-r.p)
	}
	return r.err == nil
}
func (r *reader) i32() int32 {
	if !r.need(4) {
		return 0
	}
	r.p += 4
	return int32(binary.BigEndian.Uint32(r.b[r.p-4:]))
}
func (r *reader) i64() int64 {
	if !r.need(8) {
		return 0
	}
	r.p += 8
	return int64(binary.BigEndian.Uint64(r.b[r.p-8:]))
}
func (r *reader) buf() ([]byte, bool) {
	n := r.i32()
	if n == -1 {
		return nil, true
	}
	if !r.need(int(n)) {
		return nil, false
	}
	r.p += int(n)
	return r.b[r.p-int(n) : r.p], false
}

func parseZKSnap(b []byte) (*zsnap, error) {
	r := &reader{b: b}
	if r.i32() != 0x5A4B534E {
		return nil, errors.New("snapshot magic")
	}
	r.i32()
	r.i64()
	s := &zsnap{sessionsAt: r.p, aclIDs: map[int64]bool{}}
	n := r.i32()
	if n < 0 || int64(n)*12 > int64(len(b)) {
		return nil, fmt.Errorf("session count %d", n)
	}
	r.need(int(n) * 12)
	r.p += int(n) * 12
	n = r.i32()
	for i := int32(0); i < n && r.err == nil; i++ {
		s.aclIDs[r.i64()] = true
		m := r.i32()
		for j := int32(0); j < m && r.err == nil; j++ {
			r.i32()
			r.buf()
			r.buf()
		}
	}
	for r.err == nil {
		nd := znode{start: r.p, pathAt: r.p}
		p, null := r.buf()
		if r.err != nil || null {
			return nil, fmt.Errorf("node path at %d: %v", nd.start, r.err)
		}
		if string(p) == "/" {
			break
		}
		nd.path = string(p)
		nd.dataAt = r.p
		d, _ := r.buf()
		nd.dataLen = len(d)
		nd.aclAt = r.p
		r.i64()
		nd.stat = r.p
		r.need(60)
		r.p += 60
		nd.end = r.p
		s.nodes = append(s.nodes, nd)
	}
	for r.err == nil {
		s.seals = append(s.seals, r.p)
		r.i64()
		if p, _ := r.buf(); r.err == nil && string(p) != "/" {
			return nil, fmt.Errorf("seal at %d: path %q", s.seals[len(s.seals)-1], p)
		}
		switch left := len(b) - r.p; left {
		case 0:
			return s, r.err
		case 20 + 13, 20 + 13 + 8 + 13:
			r.p += 20 // ZxidDigest
		case 8 + 13:
			r.p += 8 // lastProcessedZxid
		default:
			return nil, fmt.Errorf("%d bytes after the seal at %d", left, r.p)
		}
	}
	return nil, r.err
}

func resealSnap(b []byte, s *zsnap) {
	for _, at := range s.seals {
		binary.BigEndian.PutUint64(b[at:], uint64(adler32.Checksum(b[:at])))
	}
}

// validZKSnap: the stream parses, every seal matches, every node's parent
// came before it, ACL ids resolve, and no path repeats.
func validZKSnap(orig, mut []byte, _ Context) error {
	s, err := parseZKSnap(mut)
	if err != nil {
		return err
	}
	for _, at := range s.seals {
		if uint64(adler32.Checksum(mut[:at])) != binary.BigEndian.Uint64(mut[at:]) {
			return fmt.Errorf("seal at %d does not match", at)
		}
	}
	seen := map[string]bool{}
	for i, n := range s.nodes {
		if seen[n.path] {
			return fmt.Errorf("node %d: path %q repeats", i, n.path)
		}
		if i == 0 {
			if n.path != "" {
				return fmt.Errorf("first node %q is not the root", n.path)
			}
		} else {
			j := strings.LastIndexByte(n.path, '/')
			if j < 0 || !seen[n.path[:j]] || strings.HasSuffix(n.path, "/") {
				return fmt.Errorf("node %d (%q): parent not before it", i, n.path)
			}
		}
		seen[n.path] = true
		id := int64(binary.BigEndian.Uint64(mut[n.aclAt:]))
		if id != -1 && !s.aclIDs[id] {
			return fmt.Errorf("node %q: acl id %d not in the cache", n.path, id)
		}
	}
	return nil
}

func zkSnapOps() []op {
	ops := byteOps()
	sop := func(name string, f func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool)) op {
		return op{name: name, resealed: true, apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			s, err := parseZKSnap(b)
			if err != nil || len(s.nodes) < 2 {
				return nil, "", false
			}
			out, desc, ok := f(r, b, s)
			if !ok {
				return nil, "", false
			}
			if s2, err := parseZKSnap(out); err == nil {
				resealSnap(out, s2)
			} else {
				// The edit broke the structure; reseal the seals where they were
				// (shifted by the size change) so the checksum is not what fails.
				d := len(out) - len(b)
				for _, at := range s.seals {
					if at+d+8 <= len(out) && at+d >= 0 {
						binary.BigEndian.PutUint64(out[at+d:], uint64(adler32.Checksum(out[:at+d])))
					}
				}
			}
			return out, desc + ", seals resealed", true
		}}
	}
	nodeWithData := func(r *rand.Rand, s *zsnap) (znode, bool) {
		for t := 0; t < 16; t++ {
			n := s.nodes[r.IntN(len(s.nodes))]
			if n.dataLen > 0 {
				return n, true
			}
		}
		return znode{}, false
	}
	ops = append(ops,
		op{name: "seal-field", apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			s, err := parseZKSnap(b)
			if err != nil {
				return nil, "", false
			}
			at := s.seals[r.IntN(len(s.seals))]
			b[at+4+r.IntN(4)] ^= byte(1 + r.IntN(255))
			return b, fmt.Sprintf("seal at %d changed", at), true
		}},
		sop("node-data-flip", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n, ok := nodeWithData(r, s)
			if !ok {
				return nil, "", false
			}
			p, bit := n.dataAt+4+r.IntN(n.dataLen), r.IntN(8)
			b[p] ^= 1 << bit
			return b, fmt.Sprintf("znode %s: flip bit %d of data byte %d (position %d)", n.path, bit, p-n.dataAt-4, p), true
		}),
		sop("node-data-length", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n := s.nodes[1+r.IntN(len(s.nodes)-1)]
			v := pick(r, n.dataLen+1, n.dataLen-1, -2, 1<<31-1, n.dataLen+1000)
			binary.BigEndian.PutUint32(b[n.dataAt:], uint32(int32(v)))
			return b, fmt.Sprintf("znode %s: data length %d -> %d", n.path, n.dataLen, v), true
		}),
		sop("path-length", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n := s.nodes[1+r.IntN(len(s.nodes)-1)]
			v := pick(r, len(n.path)+1, len(n.path)-1, 0, -1, 1<<30)
			binary.BigEndian.PutUint32(b[n.pathAt:], uint32(int32(v)))
			return b, fmt.Sprintf("znode %s: path length %d -> %d", n.path, len(n.path), v), true
		}),
		sop("path-flip", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n := s.nodes[1+r.IntN(len(s.nodes)-1)]
			p, bit := n.pathAt+4+r.IntN(len(n.path)), r.IntN(7)
			b[p] ^= 1 << bit
			return b, fmt.Sprintf("znode %s: flip bit %d of path byte %d", n.path, bit, p-n.pathAt-4), true
		}),
		sop("node-stat", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n := s.nodes[r.IntN(len(s.nodes))]
			f := pick(r, 0, 8, 16, 24, 32, 36, 40, 44, 52) // czxid mzxid ctime mtime version cversion aversion ephemeralOwner pzxid
			b[n.stat+f+3] ^= byte(1 + r.IntN(255))
			return b, fmt.Sprintf("znode %q: stat field at +%d changed", n.path, f), true
		}),
		sop("acl-id", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n := s.nodes[r.IntN(len(s.nodes))]
			v := pick[int64](r, 9999, -2, 0, 1<<40)
			binary.BigEndian.PutUint64(b[n.aclAt:], uint64(v))
			return b, fmt.Sprintf("znode %q: aclId -> %d", n.path, v), true
		}),
		sop("delete-node", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n := s.nodes[1+r.IntN(len(s.nodes)-1)]
			return splice(b, n.start, n.end, nil), fmt.Sprintf("delete znode record %s", n.path), true
		}),
		sop("duplicate-node", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			n := s.nodes[1+r.IntN(len(s.nodes)-1)]
			return splice(b, n.end, n.end, b[n.start:n.end]), fmt.Sprintf("duplicate znode record %s", n.path), true
		}),
		sop("swap-nodes", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			i := 1 + r.IntN(len(s.nodes)-2)
			j := i + 1 + r.IntN(pick(r, 1, len(s.nodes)-i-1))
			a, c := s.nodes[i], s.nodes[j]
			out := append([]byte(nil), b[:a.start]...)
			out = append(out, b[c.start:c.end]...)
			out = append(out, b[a.end:c.start]...)
			out = append(out, b[a.start:a.end]...)
			out = append(out, b[c.end:]...)
			return out, fmt.Sprintf("swap znode records %s and %s", a.path, c.path), true
		}),
		sop("session-count", func(r *rand.Rand, b []byte, s *zsnap) ([]byte, string, bool) {
			old := int32(binary.BigEndian.Uint32(b[s.sessionsAt:]))
			v := pick(r, old+1, old-1, -1, 1<<30)
			binary.BigEndian.PutUint32(b[s.sessionsAt:], uint32(v))
			return b, fmt.Sprintf("session count %d -> %d", old, v), true
		}),
	)
	return ops
}

// ---- compressed snapshots ----

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

func unpack(b []byte) ([]byte, string, error) {
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, "gz", err
		}
		out, err := io.ReadAll(zr)
		return out, "gz", err
	}
	if !bytes.HasPrefix(b, xerialMagic) || len(b) < 16 {
		return nil, "", errors.New("neither gzip nor snappy-java framing")
	}
	var out []byte
	for p := 16; p < len(b); {
		if len(b)-p < 4 {
			return nil, "snappy", fmt.Errorf("block length at %d cut", p)
		}
		n := int(binary.BigEndian.Uint32(b[p:]))
		p += 4
		if n < 0 || n > len(b)-p {
			return nil, "snappy", fmt.Errorf("block of %d bytes at %d past the end", n, p)
		}
		d, err := snappy.Decode(nil, b[p:p+n])
		if err != nil {
			return nil, "snappy", fmt.Errorf("block at %d: %v", p, err)
		}
		out = append(out, d...)
		p += n
	}
	return out, "snappy", nil
}

func pack(raw []byte, codec string, like []byte) []byte {
	if codec == "gz" {
		var w bytes.Buffer
		zw := gzip.NewWriter(&w)
		zw.Write(raw)
		zw.Close()
		return w.Bytes()
	}
	out := append([]byte(nil), like[:16]...)
	for p := 0; p < len(raw); p += 32 << 10 {
		e := min(p+32<<10, len(raw))
		blk := snappy.Encode(nil, raw[p:e])
		out = binary.BigEndian.AppendUint32(out, uint32(len(blk)))
		out = append(out, blk...)
	}
	return out
}

func validPacked(orig, mut []byte, ctx Context) error {
	o, _, err := unpack(orig)
	if err != nil {
		return fmt.Errorf("original does not unpack: %v", err)
	}
	m, _, err := unpack(mut)
	if err != nil {
		return err
	}
	return validZKSnap(o, m, ctx)
}

func packedOps() []op {
	ops := byteOps()
	for _, in := range zkSnapOps() {
		ops = append(ops, op{name: "inner-" + in.name, resealed: in.resealed, apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			raw, codec, err := unpack(b)
			if err != nil {
				return nil, "", false
			}
			m, desc, ok := in.apply(r, raw)
			if !ok {
				return nil, "", false
			}
			return pack(m, codec, b), fmt.Sprintf("%s, inside the %s stream, recompressed", desc, codec), true
		}})
	}
	return ops
}
