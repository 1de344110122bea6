package records

//go:generate go run ../../internal/recdef/recgen records.def zz_generated.go

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kmeta/kmeta/metalog/internal/wire"
)

// Message is what every generated record body implements.
type Message interface {
	RecordName() string
	MinVersion() int16
	MaxVersion() int16
	SetDefaults()
	Decode(r *wire.Reader, v int16)
	Encode(w *wire.Writer, v int16) error
	AppendJSON(b []byte, v int16) []byte
}

// Metadata is a metadata record body (a data record's value, after the frame).
type Metadata interface {
	Message
	APIKey() int16
}

// Control is a raft control record body.
type Control interface {
	Message
	ControlType() int16
}

// MetadataType describes one metadata record type kmeta knows.
type MetadataType struct {
	APIKey     int16
	Name       string
	MinVersion int16
	MaxVersion int16
}

// MetadataTypes lists the known metadata record types by apiKey.
func MetadataTypes() []MetadataType { return append([]MetadataType(nil), metadataTypes...) }

// Sentinel errors.
var (
	// ErrFrame: the value does not start with three unsigned varints
	// (frame version, apiKey, version) or they are out of range.
	ErrFrame = errors.New("records: bad metadata record frame")
	// ErrFrameVersion: the frame header reads but its version is not 1. It
	// wraps ErrFrame.
	ErrFrameVersion = fmt.Errorf("%w: unsupported frame version", ErrFrame)
	// ErrUnknownType: an apiKey or control type kmeta does not know. Readers
	// report and skip such records; they are never fatal.
	ErrUnknownType = errors.New("records: unknown record type")
	// ErrUnknownVersion: a version newer than kmeta knows; reported and skipped.
	ErrUnknownVersion = errors.New("records: unknown record version")
	// ErrMalformed: the body does not decode at its version.
	ErrMalformed = errors.New("records: malformed record body")
)

// Frame is the metadata record value header.
type Frame struct {
	FrameVersion uint32
	APIKey       int16
	Version      int16
	// BodyOffset is where the body starts within the value.
	BodyOffset int
}

// ParseFrame reads the three unsigned varints in front of a metadata record
// body: frame version (must be 1), apiKey, version. It is the one frame
// parser: the record decoder, log check and log stats all use it. The
// returned Frame holds what could be read (FrameVersion even when it is
// wrong, so callers can report it); err wraps ErrFrame, or ErrFrameVersion
// when only the version is wrong.
func ParseFrame(value []byte) (Frame, error) {
	r := wire.NewReader(value)
	fv := r.Uvarint()
	key := r.Uvarint()
	ver := r.Uvarint()
	if err := r.Err(); err != nil {
		return Frame{}, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	fr := Frame{FrameVersion: fv, BodyOffset: r.Offset()}
	if fv != 1 {
		return fr, fmt.Errorf("%w %d, want 1", ErrFrameVersion, fv)
	}
	if key > 32767 || ver > 32767 {
		return fr, fmt.Errorf("%w: apiKey %d version %d out of range", ErrFrame, key, ver)
	}
	fr.APIKey, fr.Version = int16(key), int16(ver)
	return fr, nil
}

// AppendJSONString appends s as a JSON string the way Kafka's JSON
// converters write it; commands that print record fields themselves (the
// dumper's redacted forms) use it so their escaping matches.
func AppendJSONString(dst []byte, s string) []byte { return wire.AppendJSONString(dst, s) }

// AppendJavaDouble appends f as Java's Double.toString prints it, as
// Kafka's JSON converters write float64 fields.
func AppendJavaDouble(dst []byte, f float64) []byte { return wire.AppendJavaDouble(dst, f) }

// NewMetadata returns an empty record of the given type, or nil.
func NewMetadata(apiKey int16) Metadata { return newMetadata(apiKey) }

// NewControl returns an empty control record of the given type, or nil.
func NewControl(ctype int16) Control { return newControl(ctype) }

// DecodeMetadata decodes a data record's value: frame plus body.
func DecodeMetadata(value []byte) (Frame, Metadata, error) {
	var d Decoder
	return d.decode(value, false)
}

func decodeBody(m Message, body []byte, v int16) error {
	return decodeBodyWith(wire.NewReader(body), m, v)
}

// decodeBodyWith is decodeBody on a reader set to the body.
func decodeBodyWith(r *wire.Reader, m Message, v int16) error {
	m.Decode(r, v)
	r.Done()
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: %s v%d: %w", ErrMalformed, m.RecordName(), v, err)
	}
	return nil
}

// EncodeMetadata appends the framed value of m at version v to dst.
func EncodeMetadata(dst []byte, m Metadata, v int16) ([]byte, error) {
	if v < m.MinVersion() || v > m.MaxVersion() {
		return dst, fmt.Errorf("%w: %s version %d", ErrUnknownVersion, m.RecordName(), v)
	}
	w := &wire.Writer{B: dst}
	w.Uvarint(1)
	w.Uvarint(uint32(m.APIKey()))
	w.Uvarint(uint32(v))
	if err := m.Encode(w, v); err != nil {
		return dst, err
	}
	return w.B, nil
}

// ControlType is the type in a control record's key (Kafka's
// ControlRecordType).
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

// Name is Kafka's ControlRecordType name ("UNKNOWN" for other types).
func (t ControlType) Name() string {
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
	return "UNKNOWN"
}

// String is the name, with the number for unknown types.
func (t ControlType) String() string {
	if n := t.Name(); n != "UNKNOWN" {
		return n
	}
	return fmt.Sprintf("UNKNOWN(%d)", int16(t))
}

// KRaftLegal reports whether the type may appear in the metadata log.
func (t ControlType) KRaftLegal() bool { return t >= ControlLeaderChange && t <= ControlKRaftVoters }

// ControlKey is the 4-byte key of a control record.
type ControlKey struct {
	Version int16
	Type    ControlType
}

// ParseControlKey reads a control record key.
func ParseControlKey(key []byte) (ControlKey, error) {
	if len(key) < 4 {
		return ControlKey{}, fmt.Errorf("%w: control key of %d bytes", ErrMalformed, len(key))
	}
	k := ControlKey{Version: int16(uint16(key[0])<<8 | uint16(key[1])), Type: ControlType(int16(uint16(key[2])<<8 | uint16(key[3])))}
	if k.Version < 0 {
		return k, fmt.Errorf("%w: negative control key version %d", ErrMalformed, k.Version)
	}
	return k, nil
}

// EncodeControlKey returns the key for a control record of type t.
func EncodeControlKey(t ControlType) []byte { return []byte{0, 0, byte(uint16(t) >> 8), byte(t)} }

// DecodeControl decodes a control record. Kafka writes and reads every
// control body at version 0 (LeaderChangeMessage included).
func DecodeControl(key, value []byte) (ControlKey, Control, error) {
	k, err := ParseControlKey(key)
	if err != nil {
		return k, nil, err
	}
	c := newControl(int16(k.Type))
	if c == nil {
		return k, nil, fmt.Errorf("%w: control type %d", ErrUnknownType, int16(k.Type))
	}
	if err := decodeBody(c, value, 0); err != nil {
		return k, nil, err
	}
	return k, c, nil
}

// EncodeControl appends the body of c at version 0.
func EncodeControl(dst []byte, c Control) ([]byte, error) {
	w := &wire.Writer{B: dst}
	if err := c.Encode(w, 0); err != nil {
		return dst, err
	}
	return w.B, nil
}

// TypeName is the UPPER_SNAKE_CASE name Kafka's MetadataRecordType uses
// ("ZkMigrationStateRecord" -> "ZK_MIGRATION_STATE_RECORD").
func TypeName(recordName string) string {
	if n, ok := typeNames[recordName]; ok { // a dump asks once per record
		return n
	}
	return typeName(recordName)
}

// typeNames holds TypeName of every known metadata record type.
var typeNames = func() map[string]string {
	m := map[string]string{}
	for _, t := range metadataTypes {
		m[t.Name] = typeName(t.Name)
	}
	return m
}()

func typeName(recordName string) string {
	var sb strings.Builder
	for i, c := range recordName {
		if i > 0 && c >= 'A' && c <= 'Z' {
			prev := recordName[i-1]
			if prev < 'A' || prev > 'Z' {
				sb.WriteByte('_')
			}
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// PayloadJSON returns what DumpLogSegments --cluster-metadata-decoder prints
// after "payload: " for a metadata record.
func PayloadJSON(m Metadata, v int16) []byte {
	b := append([]byte(nil), `{"type":"`...)
	b = append(b, TypeName(m.RecordName())...)
	b = append(b, `","version":`...)
	b = wire.AppendJSONInt(b, int64(v))
	b = append(b, `,"data":`...)
	b = m.AppendJSON(b, v)
	return append(b, '}')
}

// Decoder decodes metadata records reusing one value per record type, for
// streaming readers that are done with a record before the next one: a
// record it returns is overwritten by the next Decode of the same type,
// and so are its lists of numbers and ids (replicas, ISRs, directory ids,
// log dirs: their arrays are reused; a reader that keeps one copies it).
// Strings, bytes and lists of anything else are fresh.
type Decoder struct {
	cache [64]Metadata
	// r is allocated once and reset for every value. A pointer, not a
	// Reader: the decoders take the reader through an interface, so the
	// address of an embedded one would move every Decoder to the heap,
	// including the throwaway one behind DecodeMetadata.
	r *wire.Reader
}

// DecodeMetadata is DecodeMetadata with reuse.
func (d *Decoder) DecodeMetadata(value []byte) (Frame, Metadata, error) { return d.decode(value, true) }

func (d *Decoder) decode(value []byte, reuse bool) (Frame, Metadata, error) {
	fr, err := ParseFrame(value)
	if err != nil {
		return fr, nil, err
	}
	var m Metadata
	if k := int(fr.APIKey); reuse && k < len(d.cache) {
		if m = d.cache[k]; m == nil {
			m = newMetadata(fr.APIKey)
			d.cache[k] = m
		}
	} else {
		m = newMetadata(fr.APIKey)
	}
	if m == nil {
		return fr, nil, fmt.Errorf("%w: apiKey %d", ErrUnknownType, fr.APIKey)
	}
	if fr.Version < m.MinVersion() || fr.Version > m.MaxVersion() {
		return fr, nil, fmt.Errorf("%w: %s version %d (kmeta knows %d-%d)", ErrUnknownVersion, m.RecordName(), fr.Version, m.MinVersion(), m.MaxVersion())
	}
	if reuse {
		if d.r == nil {
			d.r = new(wire.Reader)
		}
		d.r.Reset(value[fr.BodyOffset:])
		err = decodeBodyWith(d.r, m, fr.Version)
	} else {
		err = decodeBody(m, value[fr.BodyOffset:], fr.Version)
	}
	if err != nil {
		return fr, nil, err
	}
	return fr, m, nil
}
