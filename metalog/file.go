package metalog

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// FileKind classifies a path found in a metadata log directory.
type FileKind int

// File kinds. The String forms are stable and used in reports.
const (
	KindUnknown FileKind = iota
	KindSegment
	KindSnapshot
	KindBootstrap
	KindQuorumState
	KindLeaderEpochCheckpoint
	KindPartitionMetadata
	KindMetaProperties
	// KindIgnored covers index files, producer-state snapshots and
	// Kafka's transient files (.deleted, .cleaned, .swap, .part).
	KindIgnored
	// KindLock is Kafka's .lock; it is never opened.
	KindLock
)

var kindNames = [...]string{
	KindUnknown:               "unknown",
	KindSegment:               "segment",
	KindSnapshot:              "snapshot",
	KindBootstrap:             "bootstrap",
	KindQuorumState:           "quorum-state",
	KindLeaderEpochCheckpoint: "leader-epoch-checkpoint",
	KindPartitionMetadata:     "partition-metadata",
	KindMetaProperties:        "meta-properties",
	KindIgnored:               "ignored",
	KindLock:                  "lock",
}

func (k FileKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// MarshalText makes FileKind print as its name in JSON.
func (k FileKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// File names Kafka uses in and around __cluster_metadata-0.
const (
	MetadataPartitionDir      = "__cluster_metadata-0"
	BootstrapFileName         = "bootstrap.checkpoint"
	QuorumStateFileName       = "quorum-state"
	LeaderEpochFileName       = "leader-epoch-checkpoint"
	PartitionMetadataFileName = "partition.metadata"
	MetaPropertiesFileName    = "meta.properties"
	LockFileName              = ".lock"
)

// SnapshotID identifies a raft snapshot: EndOffset is exclusive (the last
// contained offset is EndOffset-1), Epoch is the epoch of the last record.
type SnapshotID struct {
	EndOffset int64 `json:"endOffset"`
	Epoch     int32 `json:"epoch"`
}

// Less orders snapshot ids as Kafka does: by end offset, then epoch.
func (id SnapshotID) Less(o SnapshotID) bool {
	if id.EndOffset != o.EndOffset {
		return id.EndOffset < o.EndOffset
	}
	return id.Epoch < o.Epoch
}

// FileName returns the snapshot's file name, %020d-%010d.checkpoint.
func (id SnapshotID) FileName() string {
	return fmt.Sprintf("%020d-%010d.checkpoint", id.EndOffset, id.Epoch)
}

// SegmentFileName returns the segment name for a base offset, %020d.log.
func SegmentFileName(baseOffset int64) string { return fmt.Sprintf("%020d.log", baseOffset) }

// ParseSnapshotName parses <20 digits>-<10 digits>.checkpoint. Kafka reads
// the name by fixed positions, so anything else is rejected.
func ParseSnapshotName(name string) (SnapshotID, error) {
	base, ok := strings.CutSuffix(name, ".checkpoint")
	if !ok || len(base) != 31 || base[20] != '-' || !allDigits(base[:20]) || !allDigits(base[21:]) {
		return SnapshotID{}, fmt.Errorf("%w: %q is not <20-digit end offset>-<10-digit epoch>.checkpoint", ErrFileName, name)
	}
	end, err1 := strconv.ParseInt(base[:20], 10, 64)
	epoch, err2 := strconv.ParseInt(base[21:], 10, 32)
	if err1 != nil || err2 != nil {
		return SnapshotID{}, fmt.Errorf("%w: %q: number out of range", ErrFileName, name)
	}
	return SnapshotID{EndOffset: end, Epoch: int32(epoch)}, nil
}

// ParseSegmentName parses <20 digits>.log and returns the base offset.
func ParseSegmentName(name string) (int64, error) {
	base, ok := strings.CutSuffix(name, ".log")
	if !ok || len(base) != 20 || !allDigits(base) {
		return 0, fmt.Errorf("%w: %q is not <20-digit base offset>.log", ErrFileName, name)
	}
	off, err := strconv.ParseInt(base, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %q: offset out of range", ErrFileName, name)
	}
	return off, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ignoredSuffixes are files a reader never needs: indexes (rebuilt by
// Kafka), producer-state snapshots, and transient names of files being
// written, cleaned, swapped or deleted.
var ignoredSuffixes = []string{".index", ".timeindex", ".txnindex", ".snapshot", ".deleted", ".cleaned", ".swap", ".part", ".tmp"}

func isLockName(path string) bool { return filepath.Base(path) == LockFileName }

// ClassifyName says what a file name is, by name alone. For segments and
// snapshots with malformed names it returns the kind from the suffix and
// an ErrFileName error.
func ClassifyName(name string) (FileKind, error) {
	switch name {
	case LockFileName:
		return KindLock, nil
	case BootstrapFileName:
		return KindBootstrap, nil
	case QuorumStateFileName:
		return KindQuorumState, nil
	case LeaderEpochFileName:
		return KindLeaderEpochCheckpoint, nil
	case PartitionMetadataFileName:
		return KindPartitionMetadata, nil
	case MetaPropertiesFileName:
		return KindMetaProperties, nil
	}
	for _, s := range ignoredSuffixes {
		if strings.HasSuffix(name, s) {
			return KindIgnored, nil
		}
	}
	switch {
	case strings.HasSuffix(name, ".log"):
		_, err := ParseSegmentName(name)
		return KindSegment, err
	case strings.HasSuffix(name, ".checkpoint"):
		_, err := ParseSnapshotName(name)
		return KindSnapshot, err
	}
	return KindUnknown, nil
}
