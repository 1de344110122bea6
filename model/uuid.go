package model

import (
	"encoding/base64"
	"errors"
	"fmt"
)

// UUID is Kafka's 128-bit Uuid. Its text form is URL-safe base64 without
// padding (22 characters), as Kafka prints it everywhere: JSON, ZooKeeper,
// meta.properties.
type UUID [16]byte

// Well-known UUIDs Kafka reserves.
var (
	ZeroUUID = UUID{}
	// MetadataTopicID is the fixed topic id of __cluster_metadata.
	MetadataTopicID = UUID{15: 1}
)

// Directory ids Kafka reserves (KIP-858).
var (
	DirMigrating  = UUID{}
	DirUnassigned = UUID{15: 1}
	DirLost       = UUID{15: 2}
)

// ErrBadUUID is returned for a string that is not a Kafka UUID.
var ErrBadUUID = errors.New("model: invalid uuid")

func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// IsZero reports whether u is the zero UUID.
func (u UUID) IsZero() bool { return u == UUID{} }

// ParseUUID parses Kafka's 22-character base64url form.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) > 24 {
		return u, fmt.Errorf("%w: %q is longer than 24 characters", ErrBadUUID, s)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		// Kafka's decoder is lenient about padding; accept it too.
		b, err = base64.URLEncoding.DecodeString(s)
	}
	if err != nil || len(b) != 16 {
		return u, fmt.Errorf("%w: %q", ErrBadUUID, s)
	}
	copy(u[:], b)
	return u, nil
}

func (u UUID) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

func (u *UUID) UnmarshalText(b []byte) error {
	v, err := ParseUUID(string(b))
	if err != nil {
		return err
	}
	*u = v
	return nil
}
