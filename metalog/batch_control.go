package metalog

import (
	"github.com/kmeta/kmeta/metalog/records"
)

// ControlType is the type in a control record's key; the enum lives with
// the record definitions.
type ControlType = records.ControlType

// Control record types. Only 2-6 are legal in the metadata log.
const (
	ControlAbort          = records.ControlAbort
	ControlCommit         = records.ControlCommit
	ControlLeaderChange   = records.ControlLeaderChange
	ControlSnapshotHeader = records.ControlSnapshotHeader
	ControlSnapshotFooter = records.ControlSnapshotFooter
	ControlKRaftVersion   = records.ControlKRaftVersion
	ControlKRaftVoters    = records.ControlKRaftVoters
)

// ParseControlKey reads a control record key: int16 key version (>= 0)
// then int16 type. Kafka tolerates key versions above 0 and extra bytes.
func ParseControlKey(key []byte) (ControlType, bool) {
	k, err := records.ParseControlKey(key)
	return k.Type, err == nil
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
