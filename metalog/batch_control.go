package metalog

import (
	"encoding/binary"
	"strconv"
)

// ControlType is the type in a control record's key.
type ControlType int16

// Control record types. Only 2-6 are legal in the metadata log.
const (
	ControlAbort          ControlType = 0
	ControlCommit         ControlType = 1
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

// String returns Kafka's ControlRecordType name.
func (t ControlType) String() string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	case ControlLeaderChange:
		return "LEADER_CHANGE"
	case ControlSnapshotHeader:
		return "SNAPSHOT_HEADER"
	case ControlSnapshotFooter:
		return "SNAPSHOT_FOOTER"
	case ControlKRaftVersion:
		return "KRAFT_VERSION"
	case ControlKRaftVoters:
		return "KRAFT_VOTERS"
	}
	return "UNKNOWN(" + strconv.Itoa(int(t)) + ")"
}

// KRaftLegal reports whether the type may appear in the metadata log.
func (t ControlType) KRaftLegal() bool { return t >= ControlLeaderChange && t <= ControlKRaftVoters }

// ParseControlKey reads a control record key: int16 key version (>= 0)
// then int16 type. Kafka tolerates key versions above 0 and extra bytes.
func ParseControlKey(key []byte) (ControlType, bool) {
	if len(key) < 4 {
		return 0, false
	}
	if int16(binary.BigEndian.Uint16(key)) < 0 {
		return 0, false
	}
	return ControlType(int16(binary.BigEndian.Uint16(key[2:]))), true
}

// firstControlType returns the type of the first record of a control batch.
func firstControlType(b *Batch) (ControlType, bool) {
	if !b.IsControl() {
		return 0, false
	}
	it := b.Records()
	if !it.Next() {
		return 0, false
	}
	return ParseControlKey(it.Record().Key)
}

// FrameHeader reads the metadata record frame at the start of a data
// record's value: uvarint frame version, apiKey and record version. It
// returns the header length; n <= 0 means the varints are malformed.
func FrameHeader(value []byte) (frame, apiKey, version uint32, n int) {
	p := 0
	var k int
	if frame, k = uvarint(value); k <= 0 {
		return 0, 0, 0, k
	}
	p += k
	if apiKey, k = uvarint(value[p:]); k <= 0 {
		return 0, 0, 0, k
	}
	p += k
	if version, k = uvarint(value[p:]); k <= 0 {
		return 0, 0, 0, k
	}
	return frame, apiKey, version, p + k
}
