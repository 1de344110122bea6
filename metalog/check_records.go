package metalog

import "math"

// The fast record walk. Nearly every record of a real log is clean, and
// for a clean data record Checker.records makes no finding: all it has to
// establish is that verdict. fastRecords establishes it straight from the
// records section with parseRecord (no Record built, headers skipped, the
// frame header tested on its bytes, the value handed to the decode hook
// in place). The one finding it makes itself is the decode hook's
// refusal of a record that is otherwise clean, exactly as Checker.frame
// words it, since that is the last check of a record. At the first record
// anything else is to be said about (a rule broken, a frame header not
// in its one-byte form, a framing fault, bytes after the last record) it
// stops and the full walk takes over from that record, making exactly the
// findings it always made; the records before it had none to make.
// Control batches, streams that start mid-batch and statistics take the
// full walk from the start (TestFastRecordsAgree, FuzzFastRecords).

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
		if fault, _ := parseRecord(data, pos, &f); fault != recOK {
			return false, pos, n
		}
		// KRaft's record rules (recordRules), data-record side.
		if strict && (f.tsDelta != 0 || f.hdrCount != 0 || int64(f.offDelta) != int64(n) || f.keyLen >= 0 || f.valLen <= 0) {
			return false, pos, n
		}
		if f.valLen > 0 { // Checker.frame skips null and empty values
			v := data[f.valOff : f.valOff+f.valLen : f.valOff+f.valLen]
			// Frame version 1 and a one-byte apiKey and version: a frame
			// records.ParseFrame accepts as (1, v[1], v[2]).
			if len(v) < 3 || v[0] != 1 || v[1] >= 0x80 || v[2] >= 0x80 {
				return false, pos, n
			}
			if decode != nil && (valid == nil || !valid(v)) {
				if err := decode(v); err != nil {
					c.addf(KindRecordDecode, SeverityError, file, b.Position, b.BaseOffset+int64(f.offDelta), "apiKey %d v%d: %v", v[1], v[2], err)
				}
			}
		}
		s.lastIsControl = false
		pos = f.end
	}
	if pos != len(data) {
		return false, pos, n
	}
	return true, pos, n
}
