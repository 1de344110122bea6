package metalog

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/kmeta/kmeta/metalog/records"
)

// The functions here format batches and records exactly as Kafka's
// DumpLogSegments --cluster-metadata-decoder prints them, so that kmeta's
// text dump can be diffed against Kafka's and users keep their greps.

// DumpHeader returns the line(s) DumpLogSegments prints before a file's
// batches: "Dumping <path>" and the file-kind line.
func DumpHeader(f DataFile) string {
	s := "Dumping " + f.Path + "\n"
	switch f.Kind {
	case KindSegment:
		base := f.BaseOffset
		if base < 0 {
			base = 0
		}
		s += fmt.Sprintf("Log starting offset: %d\n", base)
	case KindSnapshot:
		if f.Snapshot != nil {
			s += fmt.Sprintf("Snapshot end offset: %d, epoch: %d\n", f.Snapshot.EndOffset, f.Snapshot.Epoch)
		}
	case KindBootstrap:
		s += "KRaft bootstrap snapshot\n"
	}
	return s
}

func timestampType(b *Batch) string {
	if b.Attributes.LogAppendTime() {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// AppendBatchLine appends DumpLogSegments' batch line (without newline).
func AppendBatchLine(dst []byte, b *Batch) []byte {
	lastSeq := int32(-1)
	if b.BaseSequence != -1 {
		lastSeq = b.BaseSequence + b.LastOffsetDelta
	}
	dst = append(dst, "baseOffset: "...)
	dst = strconv.AppendInt(dst, b.BaseOffset, 10)
	dst = append(dst, " lastOffset: "...)
	dst = strconv.AppendInt(dst, b.LastOffset(), 10)
	dst = append(dst, " count: "...)
	dst = strconv.AppendInt(dst, int64(b.RecordsCount), 10)
	dst = append(dst, " baseSequence: "...)
	dst = strconv.AppendInt(dst, int64(b.BaseSequence), 10)
	dst = append(dst, " lastSequence: "...)
	dst = strconv.AppendInt(dst, int64(lastSeq), 10)
	dst = append(dst, " producerId: "...)
	dst = strconv.AppendInt(dst, b.ProducerID, 10)
	dst = append(dst, " producerEpoch: "...)
	dst = strconv.AppendInt(dst, int64(b.ProducerEpoch), 10)
	dst = append(dst, " partitionLeaderEpoch: "...)
	dst = strconv.AppendInt(dst, int64(b.PartitionLeaderEpoch), 10)
	dst = append(dst, " isTransactional: "...)
	dst = strconv.AppendBool(dst, b.Attributes.Transactional())
	dst = append(dst, " isControl: "...)
	dst = strconv.AppendBool(dst, b.IsControl())
	dst = append(dst, " deleteHorizonMs: "...)
	if b.Attributes.DeleteHorizon() {
		dst = append(dst, "OptionalLong["...)
		dst = strconv.AppendInt(dst, b.BaseTimestamp, 10)
		dst = append(dst, ']')
	} else {
		dst = append(dst, "OptionalLong.empty"...)
	}
	dst = append(dst, " position: "...)
	dst = strconv.AppendInt(dst, b.Position, 10)
	dst = append(dst, ' ')
	dst = append(dst, timestampType(b)...)
	dst = append(dst, ": "...)
	dst = strconv.AppendInt(dst, b.MaxTimestamp, 10)
	dst = append(dst, " size: "...)
	dst = strconv.AppendInt(dst, b.Size(), 10)
	dst = append(dst, " magic: "...)
	dst = strconv.AppendInt(dst, int64(b.Magic), 10)
	dst = append(dst, " compresscodec: "...)
	dst = append(dst, b.Compression().String()...)
	dst = append(dst, " crc: "...)
	dst = strconv.AppendUint(dst, uint64(b.CRC), 10)
	dst = append(dst, " isvalid: "...)
	return strconv.AppendBool(dst, !b.CRCChecked || b.CRCValid)
}

// AppendRecordMeta appends the "| offset: ..." part of a record line.
func AppendRecordMeta(dst []byte, b *Batch, r *Record) []byte {
	seq := int32(-1)
	if b.BaseSequence != -1 {
		seq = b.BaseSequence + r.OffsetDelta
	}
	dst = append(dst, "| offset: "...)
	dst = strconv.AppendInt(dst, r.Offset, 10)
	dst = append(dst, ' ')
	dst = append(dst, timestampType(b)...)
	dst = append(dst, ": "...)
	ts := r.Timestamp
	if b.Attributes.LogAppendTime() {
		ts = b.MaxTimestamp
	}
	dst = strconv.AppendInt(dst, ts, 10)
	dst = append(dst, " keySize: "...)
	dst = strconv.AppendInt(dst, int64(sizeOrNull(r.Key)), 10)
	dst = append(dst, " valueSize: "...)
	dst = strconv.AppendInt(dst, int64(sizeOrNull(r.Value)), 10)
	dst = append(dst, " sequence: "...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, " headerKeys: ["...)
	for i, h := range r.Headers {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, h.Key...)
	}
	return append(dst, ']')
}

func sizeOrNull(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// controlLabel is the word DumpLogSegments prints before a control body.
var controlLabel = map[ControlType]string{
	records.ControlLeaderChange:   " LeaderChange: ",
	records.ControlSnapshotHeader: " SnapshotHeader ",
	records.ControlSnapshotFooter: " SnapshotFooter ",
	records.ControlKRaftVersion:   " KRaftVersion ",
	records.ControlKRaftVoters:    " KRaftVoters ",
}

// controlVersion is the version Kafka's tool passes to the JSON converter:
// the Version field inside the control body.
func controlVersion(c records.Control) int16 {
	switch m := c.(type) {
	case *records.LeaderChangeMessage:
		return m.Version
	case *records.SnapshotHeaderRecord:
		return m.Version
	case *records.SnapshotFooterRecord:
		return m.Version
	case *records.KRaftVersionRecord:
		return m.Version
	case *records.VotersRecord:
		return m.Version
	}
	return 0
}

// AppendControl appends what follows the record metadata for a control
// record (Kafka 4.1+ form, which prints LeaderChange as JSON too); c is nil
// when the body could not be decoded.
func AppendControl(dst []byte, t ControlType, c records.Control) []byte {
	if c == nil || controlLabel[t] == "" {
		dst = append(dst, " controlType: "...)
		dst = append(dst, t.Name()...)
		dst = append(dst, '(')
		dst = strconv.AppendInt(dst, int64(t), 10)
		return append(dst, ')')
	}
	dst = append(dst, controlLabel[t]...)
	return c.AppendJSON(dst, controlVersion(c))
}

// AppendEndTxnMarker appends what DumpLogSegments prints for a producer
// transaction marker (ABORT or COMMIT control record), whose value is
// int16 version + int32 coordinatorEpoch. ok is false for other types or
// a value too short to hold the marker; AppendControl then applies.
func AppendEndTxnMarker(dst []byte, t ControlType, value []byte) (out []byte, ok bool) {
	if (t != records.ControlAbort && t != records.ControlCommit) || len(value) < 6 {
		return dst, false
	}
	dst = append(dst, " endTxnMarker: "...)
	dst = append(dst, t.Name()...)
	dst = append(dst, " coordinatorEpoch: "...)
	return strconv.AppendInt(dst, int64(int32(binary.BigEndian.Uint32(value[2:]))), 10), true
}
