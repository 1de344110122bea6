package metalog

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package returns for bad input is a
// *CorruptionError (or a *FileError for directory-level problems) that
// unwraps to one of these, so callers can branch with errors.Is.
var (
	// ErrTornTail means the file ends inside a batch: the header or the body
	// announced by the length field is incomplete. This is what an
	// interrupted append (or a segment Kafka is still writing) looks like,
	// and Kafka itself stops reading there without complaint. It is kept
	// apart from the corruption sentinels on purpose.
	ErrTornTail = errors.New("metalog: torn tail (file ends inside a batch)")
	// ErrCRC means a batch's stored CRC-32C does not match its contents.
	// The batch framing is intact, so a reader can continue past it.
	ErrCRC = errors.New("metalog: crc mismatch")
	// ErrBadMagic means the magic byte is not 2 (record batch v2).
	ErrBadMagic = errors.New("metalog: bad magic")
	// ErrBadLength means a batch length (or a length inside it) is impossible:
	// too small to hold a header, larger than the configured maximum, or
	// larger than what remains.
	ErrBadLength = errors.New("metalog: bad length")
	// ErrBadRecord means a record inside a batch does not decode, or the
	// records do not match the batch header (count, offsets, trailing bytes).
	ErrBadRecord = errors.New("metalog: bad record")
	// ErrCompression means a compressed batch could not be decompressed, used
	// an unknown codec, or decompressed beyond the configured cap.
	ErrCompression = errors.New("metalog: compression")
	// ErrKRaftRule means a batch or record is valid for Kafka's generic record
	// format but breaks a rule the KRaft raft layer enforces (see doc.go).
	ErrKRaftRule = errors.New("metalog: kraft rule violated")
	// ErrSnapshot means a snapshot or bootstrap file does not have the
	// required structure (SnapshotHeader first, SnapshotFooter last).
	ErrSnapshot = errors.New("metalog: bad snapshot structure")
	// ErrFileName means a file name does not follow Kafka's naming rules
	// (20-digit base offset, 20-digit end offset + 10-digit epoch).
	ErrFileName = errors.New("metalog: bad file name")
	// ErrNotKRaft means a path is neither a metadata log dir, a
	// __cluster_metadata-0 dir, a segment, nor a snapshot.
	ErrNotKRaft = errors.New("metalog: not a kraft metadata source")
	// ErrProperties means meta.properties, quorum-state,
	// leader-epoch-checkpoint or partition.metadata does not parse.
	ErrProperties = errors.New("metalog: bad metadata file")
	// ErrOffsetNotCovered means a replay was asked to stop at an offset
	// that no usable snapshot and no segment of the source reaches (it is
	// below the first snapshot's end and below the log start), so no image
	// at that offset can be built.
	ErrOffsetNotCovered = errors.New("metalog: offset not covered by the source")
	// ErrOffsetInsideBatch means a replay was asked to stop at an offset
	// inside a data batch, short of its last record. Kafka applies a
	// batch whole (the controller writes one change's records as one
	// batch: a topic with its partitions), so the image there is a state
	// the cluster never had. The one state Kafka publishes inside a batch,
	// the one just before a BeginTransactionRecord, is a point.
	ErrOffsetInsideBatch = errors.New("metalog: offset inside a batch")
	// ErrNoLog means a metadata partition dir is not usable as one: a
	// dangling symlink, a symlink loop, a file, or a dir holding no
	// segment and no snapshot.
	ErrNoLog = errors.New("metalog: no metadata log")
	// ErrExists is returned by writers asked to create a file that already
	// exists without WriteOptions.Overwrite.
	ErrExists = errors.New("metalog: target exists")
)

// CorruptionError locates a decoding failure: the file, the byte position
// of the batch (or of the field, when known more precisely) and the batch
// base offset (-1 when it could not be read).
type CorruptionError struct {
	File     string
	Position int64
	Offset   int64
	Err      error
}

func (e *CorruptionError) Error() string {
	name := e.File
	if name == "" {
		name = "<stream>"
	}
	if e.Offset >= 0 {
		return fmt.Sprintf("%s: position %d, offset %d: %v", name, e.Position, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: position %d: %v", name, e.Position, e.Err)
}

func (e *CorruptionError) Unwrap() error { return e.Err }

// FileError reports a problem with a file or directory as a whole (it cannot
// be opened, it is a directory where a file belongs, a properties file does
// not parse). It wraps the OS error or one of the sentinels.
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// corrupt builds a *CorruptionError whose Err wraps sentinel with detail.
func corrupt(file string, pos, offset int64, sentinel error, format string, args ...any) *CorruptionError {
	var err error = sentinel
	if format != "" {
		err = fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
	}
	return &CorruptionError{File: file, Position: pos, Offset: offset, Err: err}
}

// IsOurs reports whether err is one of the package's error types. The fuzz
// tests use it to check that no foreign error escapes undecorated.
func IsOurs(err error) bool {
	var ce *CorruptionError
	var fe *FileError
	var pe *PropsError
	return errors.As(err, &ce) || errors.As(err, &fe) || errors.As(err, &pe)
}
