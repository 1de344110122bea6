package metalog

import (
	"encoding/binary"
	"math"
)

// The fast record walk. Nearly every record of a real log is clean, and
// for a clean data record Checker.records makes no finding: all it has to
// establish is that verdict. fastRecords establishes it straight from the
// records section with parseRecord (no Record built, headers skipped, the
// frame header tested on its bytes, the value handed in place to the
// verdict hook, CheckOptions.ValidValue, and to the decode hook only when
// the verdict refuses it or there is none). The one finding it makes itself is the decode hook's
// refusal of a record that is otherwise clean, exactly as Checker.frame
// words it, since that is the last check of a record. At the first record
// anything else is to be said about (a rule broken, a frame header not
// in its one-byte form, a framing fault, bytes after the last record) it
// stops and the full walk takes over from that record, making exactly the
// findings it always made; the records before it had none to make.
// Control batches, streams that start mid-batch and statistics take the
// full walk from the start (TestFastRecordsAgree, FuzzFastRecords).
//
// With the KRaft rules on (the default) a clean data record has one
// layout: length, attributes, timestampDelta 0, offsetDelta equal to its
// index, a null key, a non-empty value and no headers. strictRecord
// matches that layout byte by byte, which costs a fraction of the general
// parse; a record it does not match goes through parseRecord, so the
// matcher only has to accept nothing that parseRecord and the rules would
// not (it may refuse more: a long varint, say, then takes the general way).

// fastRecordWalk turns the fast walk off, for the tests that compare it
// with the full walk.
var fastRecordWalk = true

// fastRecords walks b's records until one needs the full walk. It returns
// done when it handled them all; otherwise the full walk resumes at
// record n, at position pos of the records section.
func (c *Checker) fastRecords(file string, b *Batch, s *fileScan) (done bool, pos, n int) {
	if !fastRecordWalk || b.IsControl() || b.minOffset != math.MinInt64 || c.stats != nil {
		return false, 0, 0
	}
	data, _, err := b.recordsSection()
	if err != nil {
		return false, 0, 0
	}
	strict, decode, valid := c.opts.Strict, c.opts.DecodeValue, c.opts.ValidValue
	var f recFrame
	for ; n < int(b.RecordsCount); n++ {
		var v []byte // the value
		end, offDelta := 0, int32(n)
		if strict {
			v, end = strictRecord(data, pos, n)
		}
		if end == 0 {
			if fault, _ := parseRecord(data, pos, &f); fault != recOK {
				return false, pos, n
			}
			// KRaft's record rules (recordRules), data-record side.
			if strict && (f.tsDelta != 0 || f.hdrCount != 0 || int64(f.offDelta) != int64(n) || f.keyLen >= 0 || f.valLen <= 0) {
				return false, pos, n
			}
			v, end, offDelta = f.value(data), f.end, f.offDelta
		}
		if len(v) > 0 { // Checker.frame skips null and empty values
			// Frame version 1 and a one-byte apiKey and version: a frame
			// records.ParseFrame accepts as (1, v[1], v[2]).
			if len(v) < 3 || v[0] != 1 || v[1] >= 0x80 || v[2] >= 0x80 {
				return false, pos, n
			}
			if decode != nil && (valid == nil || !valid(v)) {
				if err := decode(v); err != nil {
					c.decodeFailed(file, b, b.BaseOffset+int64(offDelta), int64(v[1]), int64(v[2]), err)
				}
			}
		}
		s.lastIsControl = false
		pos = end
	}
	if pos != len(data) {
		return false, pos, n
	}
	return true, pos, n
}

// strictRecord matches the record at data[pos:] against the one layout of
// a clean KRaft data record with index n (see above), with length varints
// of one or two bytes. On a match it returns the value and the position
// after the record; end is 0 when the record does not match.
func strictRecord(data []byte, pos, n int) (v []byte, end int) {
	length, p := shortVarint(data, pos)
	if p == 0 || length <= 0 || length > len(data)-p {
		return nil, 0
	}
	end = p + length
	// p is at the attributes (any value); timestampDelta 0 follows, then
	// offsetDelta n, both zig-zag varints (2n: one byte below 64), then
	// the null key (zig-zag -1: 1). Below 64 the four bytes are one word.
	if end-p < 4 {
		return nil, 0
	}
	switch {
	case n < 64:
		if binary.LittleEndian.Uint32(data[p:])&0xffffff00 != 1<<24|uint32(n)<<17 {
			return nil, 0
		}
		p += 3
	case n < 8192:
		if end-p < 5 || data[p+1] != 0 || data[p+2] != byte(2*n)|0x80 || data[p+3] != byte(2*n>>7) || data[p+4] != 1 {
			return nil, 0
		}
		p += 4
	default:
		return nil, 0
	}
	// The value's length, then the value, then a headers count of 0 as the
	// record's last byte: the length can only be what is left before that
	// byte, so the varint is compared with it rather than decoded. A value
	// under 64 bytes has a one-byte length, one under 8,192 a two-byte one.
	if data[end-1] != 0 {
		return nil, 0
	}
	q := p + 2
	if vl := end - 1 - q; vl > 0 && vl < 64 {
		if data[p+1] != byte(2*vl) {
			return nil, 0
		}
	} else if vl--; vl >= 64 && vl < 8192 {
		if data[p+1] != byte(2*vl)|0x80 || data[p+2] != byte(2*vl>>7) {
			return nil, 0
		}
		q++
	} else {
		return nil, 0
	}
	return data[q : end-1 : end-1], end
}

// shortVarint decodes a zig-zag varint of one or two bytes at d[p:]; next
// is the position after it, 0 when it is longer or runs out.
func shortVarint(d []byte, p int) (v, next int) {
	if p < len(d) {
		if c := d[p]; c < 0x80 {
			return int(c>>1) ^ -int(c&1), p + 1
		} else if p+1 < len(d) && d[p+1] < 0x80 {
			u := int(c&0x7f) | int(d[p+1])<<7
			return u>>1 ^ -(u & 1), p + 2
		}
	}
	return 0, 0
}
