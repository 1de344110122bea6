package records

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// The worked example in the reference was checked against Kafka's own
// serializer: FeatureLevelRecord{metadata.version, 21} v0.
func TestFeatureLevelWorkedExample(t *testing.T) {
	want, _ := hex.DecodeString("010c0011" + hex.EncodeToString([]byte("metadata.version")) + "001500")
	fr, m, err := DecodeMetadata(want)
	if err != nil {
		t.Fatal(err)
	}
	fl, ok := m.(*FeatureLevelRecord)
	if !ok || fr.APIKey != 12 || fl.Name != "metadata.version" || fl.FeatureLevel != 21 {
		t.Fatalf("decoded %+v %#v", fr, m)
	}
	got, err := EncodeMetadata(nil, fl, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encode:\n got %x\nwant %x", got, want)
	}
	if s := string(PayloadJSON(fl, 0)); s != `{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":21}}` {
		t.Fatalf("json %s", s)
	}
}

func TestFrameErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrFrame},
		{"frame0", []byte{0, 12, 0}, ErrFrame},
		{"unknown", []byte{1, 99, 0, 0}, ErrUnknownType},
		{"newer", []byte{1, 2, 9, 0}, ErrUnknownVersion},
		{"truncated body", []byte{1, 2, 0, 5, 'a'}, ErrMalformed},
		{"trailing", append([]byte{1, 20, 0, 0}, 7), ErrMalformed},
	} {
		_, _, err := DecodeMetadata(tc.in)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestTypeName(t *testing.T) {
	for in, want := range map[string]string{
		"ZkMigrationStateRecord":         "ZK_MIGRATION_STATE_RECORD",
		"NoOpRecord":                     "NO_OP_RECORD",
		"BrokerRegistrationChangeRecord": "BROKER_REGISTRATION_CHANGE_RECORD",
	} {
		if got := TypeName(in); got != want {
			t.Errorf("%s: %s", in, got)
		}
	}
}

// What decoding allocates, since replay and dump decode every record of a
// log or snapshot: a reused Decoder nothing at all for a PartitionRecord
// (value, lists and readers kept), a fresh DecodeMetadata only the value,
// its non-empty lists and its readers — not the Decoder behind it (1 KiB,
// which an embedded reader field once moved to the heap for every call).
func TestDecodeAllocations(t *testing.T) {
	p := &PartitionRecord{PartitionId: 3, Replicas: []int32{1, 2, 3}, Isr: []int32{1, 2}, RemovingReplicas: []int32{},
		AddingReplicas: []int32{}, Directories: make([]model.UUID, 3), Leader: 1, EligibleLeaderReplicas: []int32{2}}
	v, err := EncodeMetadata(nil, p, 2)
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	if got := testing.AllocsPerRun(100, func() {
		if _, _, err := d.DecodeMetadata(v); err != nil {
			t.Fatal(err)
		}
	}); got != 0 {
		t.Errorf("a reused Decoder allocates %v times per PartitionRecord, want 0", got)
	}
	fresh := testing.AllocsPerRun(100, func() {
		if _, _, err := DecodeMetadata(v); err != nil {
			t.Fatal(err)
		}
	})
	if fresh > 7 {
		t.Errorf("DecodeMetadata allocates %v times per PartitionRecord, want at most 7 (value, 4 non-empty lists, reader, tagged field's reader)", fresh)
	}
}
