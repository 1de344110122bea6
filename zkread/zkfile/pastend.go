package zkfile

import (
	"encoding/binary"
	"hash/adler32"
)

// PastEnd is what a log holds after the entry that ended it: a zero
// entry length, or an entry cut short (ErrTornTail). ZooKeeper's
// Util.readTxnBytes takes a zero length for the preallocated zeroes after
// the last entry, and an entry that runs past the end of the file or
// lacks its end-of-record 'B' for one a crash cut short ("Last
// transaction was partial."); FileTxnIterator ends the file at either, and
// so does Next. A log is only ever appended to (after a restart ZooKeeper
// starts a new file), so well-formed entries after that point mean damage
// that hid them: bytes zeroed, lost or changed in the middle of the file.
type PastEnd struct {
	// At is the offset of the entry header whose length is zero, or of
	// the torn entry.
	At int64
	// Torn: the log ended at a torn entry, not at a zero length.
	Torn bool
	// Count is how many entries after At are well formed: a length
	// ZooKeeper accepts, the body inside the file, its Adler32, the
	// end-of-record 'B', and a body that decodes. The scan looks at every
	// byte position after At, and jumps over each entry it finds (a byte
	// string inside an entry's data is never counted).
	Count int
	// First and Last are the offsets of the first and last entry found;
	// MinZxid and MaxZxid bound their zxids.
	First, Last      int64
	MinZxid, MaxZxid int64
	// Capped: the scan stopped at its bounds (pastEndScan, pastEndProbe) or
	// at a read error before the end of the file, so Count is a lower
	// bound.
	Capped bool
}

// Bounds of the scan: a log is preallocated in 64 MiB steps by default,
// so its tail of zeroes is skipped word by word, and a position is only
// read further when its header could be an entry's.
var (
	// pastEndScan is how many bytes after the zero length are looked at.
	pastEndScan int64 = 1 << 30
	// pastEndProbe is how many bytes of would-be entries may be read and
	// checksummed in vain.
	pastEndProbe int64 = 64 << 20
)

// pastEndWindow is the read size of the scan.
const pastEndWindow = 1 << 20

// PastEnd scans the rest of the file once Next has returned io.EOF at a
// zero entry length, or an ErrTornTail error; ok is false when Next did
// not stop at either (the end of the file, or not at the end yet). It
// reads with ReadAt and never moves the position Next reads from.
func (l *TxnLog) PastEnd() (pe PastEnd, ok bool) {
	switch {
	case l.zeroAt >= 0:
		pe.At = l.zeroAt
	case l.tornAt >= 0:
		pe.At, pe.Torn = l.tornAt, true
	default:
		return PastEnd{}, false
	}
	buf := make([]byte, pastEndWindow)
	var w []byte // buf's valid part, holding the bytes from base
	base := int64(-1)
	var scratch []byte
	var probed int64
	scanEnd := pe.At + 1 + pastEndScan
	for p := pe.At + 1; p+12 <= l.size; {
		if p >= scanEnd || probed > pastEndProbe {
			pe.Capped = true
			break
		}
		if base < 0 || p+12 > base+int64(len(w)) {
			n, err := l.f.ReadAt(buf, p)
			if n < 12 {
				// The size said at least 12 bytes are there.
				pe.Capped = err != nil
				break
			}
			base, w = p, buf[:n]
		}
		rel := int(p - base)
		// An entry's length is not zero: go to the first position whose
		// length field (bytes 8 to 11 of the header) holds a non-zero byte.
		z := nextNonZero(w, rel+8)
		if z == len(w) {
			p = base + int64(len(w)) - 11
			continue
		}
		if z-11 > rel {
			p = base + int64(z-11)
			continue
		}
		h := w[rel : rel+12]
		crc := binary.BigEndian.Uint64(h[:8])
		ln := int64(int32(binary.BigEndian.Uint32(h[8:])))
		// The checksum is an Adler32 in a long: its high half is zero.
		if crc>>32 != 0 || ln <= 0 || ln > int64(l.limit) || p+12+ln+1 > l.size {
			p++
			continue
		}
		if int64(cap(scratch)) < ln+1 {
			scratch = make([]byte, ln+1)
		}
		body := scratch[:ln+1]
		if n, _ := l.f.ReadAt(body, p+12); int64(n) < ln+1 ||
			body[ln] != 'B' || uint64(adler32.Checksum(body[:ln])) != crc {
			probed += ln + 1
			p++
			continue
		}
		txn, err := DecodeTxn(body[:ln])
		if err != nil {
			probed += ln + 1
			p++
			continue
		}
		if pe.Count == 0 {
			pe.First, pe.MinZxid, pe.MaxZxid = p, txn.Zxid, txn.Zxid
		}
		pe.Count++
		pe.Last = p
		pe.MinZxid, pe.MaxZxid = min(pe.MinZxid, txn.Zxid), max(pe.MaxZxid, txn.Zxid)
		p += 12 + ln + 1
	}
	return pe, true
}

// nextNonZero is the index of the first non-zero byte of b at or after i,
// len(b) if there is none.
func nextNonZero(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != 0 {
			break
		}
	}
	for ; i < len(b) && b[i] == 0; i++ {
	}
	return i
}
