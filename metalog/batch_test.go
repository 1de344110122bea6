package metalog

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta/kmeta/metalog/internal/wire"
	"github.com/kmeta/kmeta/metalog/records"
)

// workedExample is kafka-metadata.md §1.6: one data batch at offset 1,
// epoch 0, timestamp 1700000000000, holding FeatureLevelRecord
// {metadata.version=21} v0, with its CRC computed by Java's CRC32C.
func workedExample(t testing.TB) []byte {
	t.Helper()
	h := "0000000000000001" + "0000004f" + "00000000" + "02" + "ddc19b9f" + "0000" + "00000000" +
		"0000018bcfe56800" + "0000018bcfe56800" + "ffffffffffffffff" + "ffff" + "ffffffff" + "00000001" +
		"3a" + "00" + "00" + "00" + "01" + "2e" + workedValueHex + "00"
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 91 {
		t.Fatalf("worked example is %d bytes, want 91", len(b))
	}
	return b
}

const workedValueHex = "010c00" + "11" + "6d657461646174612e76657273696f6e" + "0015" + "00"

func workedValue(t testing.TB) []byte {
	v, err := hex.DecodeString(workedValueHex)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCRC32CCheckValue(t *testing.T) {
	if got := CRC32C([]byte("123456789")); got != 0xE3069283 {
		t.Fatalf("CRC32C(123456789) = %#x, want 0xe3069283", got)
	}
}

func TestParseWorkedExample(t *testing.T) {
	data := workedExample(t)
	b, err := ParseBatch(data, "example", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := Batch{BaseOffset: 1, BatchLength: 0x4f, PartitionLeaderEpoch: 0, Magic: 2, CRC: 0xddc19b9f,
		LastOffsetDelta: 0, BaseTimestamp: 1700000000000, MaxTimestamp: 1700000000000, ProducerID: -1,
		ProducerEpoch: -1, BaseSequence: -1, RecordsCount: 1}
	want.File, want.CRCChecked, want.CRCValid = "example", true, true
	if d := cmp.Diff(want, *b, cmpopts.IgnoreUnexported(Batch{})); d != "" {
		t.Fatalf("header (-want +got):\n%s", d)
	}
	if !b.CRCValid || b.Size() != 91 || b.IsControl() || b.Compression() != CompressionNone {
		t.Fatalf("crcValid=%v size=%d control=%v compression=%v", b.CRCValid, b.Size(), b.IsControl(), b.Compression())
	}
	it := b.Records()
	if !it.Next() {
		t.Fatalf("no record: %v", it.Err())
	}
	r := it.Record()
	if r.Length != 29 || r.Offset != 1 || r.Timestamp != 1700000000000 || r.Key != nil || !bytes.Equal(r.Value, workedValue(t)) || r.Headers != nil {
		t.Fatalf("record %+v", r)
	}
	if it.Next() || it.Err() != nil {
		t.Fatalf("want exactly one record, err=%v", it.Err())
	}
	fr, err := records.ParseFrame(r.Value)
	if err != nil || fr.APIKey != 12 || fr.Version != 0 || fr.BodyOffset != 3 {
		t.Fatalf("frame %+v %v", fr, err)
	}
}

func TestWriteWorkedExample(t *testing.T) {
	got, err := AppendDataBatch(nil, BatchParams{BaseOffset: 1, Epoch: 0, Timestamp: 1700000000000}, [][]byte{workedValue(t)})
	if err != nil {
		t.Fatal(err)
	}
	if want := workedExample(t); !bytes.Equal(got, want) {
		t.Fatalf("encoded\n got %x\nwant %x", got, want)
	}
}

func TestControlBatchRoundTrip(t *testing.T) {
	recs := []ControlRecord{
		{Type: ControlSnapshotHeader, Value: EncodeSnapshotHeader(1234)},
		{Type: ControlKRaftVersion, Value: EncodeKRaftVersion(1)},
	}
	data, err := AppendControlBatch([]byte("prefix"), BatchParams{BaseOffset: 0, Epoch: 7, Timestamp: 99}, recs)
	if err != nil {
		t.Fatal(err)
	}
	if string(data[:6]) != "prefix" {
		t.Fatal("AppendControlBatch clobbered dst")
	}
	b, err := ParseBatch(data[6:], "x", 6)
	if err != nil {
		t.Fatal(err)
	}
	if !b.IsControl() || b.PartitionLeaderEpoch != 7 || b.RecordsCount != 2 || b.LastOffsetDelta != 1 || b.Position != 6 {
		t.Fatalf("header %+v", b)
	}
	it := b.Records()
	for i := 0; it.Next(); i++ {
		r := it.Record()
		typ, ok := ParseControlKey(r.Key)
		if !ok || typ != recs[i].Type || !bytes.Equal(r.Value, recs[i].Value) || r.OffsetDelta != int32(i) {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
	if it.Err() != nil {
		t.Fatal(it.Err())
	}
	if _, err := AppendControlBatch(nil, BatchParams{}, []ControlRecord{{Type: ControlCommit, Value: []byte{0}}}); !errors.Is(err, ErrKRaftRule) {
		t.Fatalf("COMMIT control record: err %v, want ErrKRaftRule", err)
	}
	if _, err := AppendDataBatch(nil, BatchParams{}, [][]byte{{}}); !errors.Is(err, ErrKRaftRule) {
		t.Fatalf("empty value: err %v, want ErrKRaftRule", err)
	}
}

// buildRecordBatch builds a batch with arbitrary (non-KRaft) record
// contents for the record decoder tests; it fixes up length and CRC.
func buildRecordBatch(records []byte, count int32, attrs Attributes) []byte {
	h := make([]byte, HeaderSize)
	h[16] = 2
	h[22] = byte(attrs)
	h[60] = byte(count)
	h[59] = byte(count >> 8)
	b := append(h, records...)
	fixBatch(b)
	return b
}

// fixBatch recomputes batchLength and CRC for a batch at the start of b.
func fixBatch(b []byte) {
	n := len(b) - LengthPrefix
	b[8], b[9], b[10], b[11] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	c := CRC32C(b[crcStart:])
	b[17], b[18], b[19], b[20] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
}

func TestRecordFields(t *testing.T) {
	// One record with key "k", value null, timestampDelta -3, offsetDelta
	// 5 and two headers, the second with a null value.
	body := []byte{0, 5, 10, 2, 'k', 1, 4, 2, 'a', 2, 'x', 2, 'b', 1}
	rec := append(appendVarint(nil, int64(len(body))), body...)
	b, err := ParseBatch(buildRecordBatch(rec, 1, 0), "x", 0)
	if err != nil {
		t.Fatal(err)
	}
	it := b.Records()
	if !it.Next() {
		t.Fatal(it.Err())
	}
	r := it.Record()
	if r.TimestampDelta != -3 || r.OffsetDelta != 5 || string(r.Key) != "k" || r.Value != nil || len(r.Headers) != 2 {
		t.Fatalf("%+v", r)
	}
	if string(r.Headers[0].Key) != "a" || string(r.Headers[0].Value) != "x" || string(r.Headers[1].Key) != "b" || r.Headers[1].Value != nil {
		t.Fatalf("headers %+v", r.Headers)
	}
}

func TestRecordErrors(t *testing.T) {
	good := []byte{0, 0, 0, 1, 2, 'v', 0}
	rec := func(body []byte) []byte { return append(appendVarint(nil, int64(len(body))), body...) }
	cases := []struct {
		name    string
		records []byte
		count   int32
	}{
		{"count above records", rec(good), 2},
		{"trailing bytes", append(rec(good), 0xff), 1},
		{"length past end", append(appendVarint(nil, 50), good...), 1},
		{"zero length", append(appendVarint(nil, 0), good...), 1},
		{"bad varint", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1},
		{"value past record", rec([]byte{0, 0, 0, 1, 20, 'v', 0}), 1},
		{"bytes after headers", rec([]byte{0, 0, 0, 1, 2, 'v', 0, 9}), 1},
		{"null header key", rec([]byte{0, 0, 0, 1, 2, 'v', 2, 1, 1}), 1},
		{"negative header count", rec([]byte{0, 0, 0, 1, 2, 'v', 1}), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ParseBatch(buildRecordBatch(tc.records, tc.count, 0), "f", 100)
			if err != nil {
				t.Fatal(err)
			}
			it := b.Records()
			for it.Next() {
			}
			var ce *CorruptionError
			if !errors.Is(it.Err(), ErrBadRecord) || !errors.As(it.Err(), &ce) {
				t.Fatalf("err %v, want ErrBadRecord", it.Err())
			}
			if ce.File != "f" || ce.Position < 100+HeaderSize || ce.Offset != 0 {
				t.Fatalf("location %+v", ce)
			}
		})
	}
}

func TestVarints(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, 300, -300, 1 << 31 >> 1, -(1 << 31), 1<<31 - 1} {
		enc := appendVarint(nil, v)
		if len(enc) != varintSize(v) {
			t.Fatalf("%d: size %d vs %d", v, len(enc), varintSize(v))
		}
		got, n := wire.Varint(enc)
		if n != len(enc) || int64(got) != v {
			t.Fatalf("varint32(%x) = %d,%d want %d", enc, got, n, v)
		}
		got64, n := wire.Varlong(enc)
		if n != len(enc) || got64 != v {
			t.Fatalf("varint64(%x) = %d,%d want %d", enc, got64, n, v)
		}
	}
	// Kafka's rule (ByteUtils.readUnsignedVarint): a fifth byte with the
	// continuation bit is malformed; bits of the fifth byte past 32 are
	// dropped, as Java's int shift drops them.
	if _, n := wire.Varint([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}); n > 0 {
		t.Fatal("accepted a six-byte varint")
	}
	if v, n := wire.Uvarint([]byte{0x80, 0x80, 0x80, 0x80, 0x70}); n != 5 || v != 0 {
		t.Fatalf("fifth byte 0x70: %d,%d, want Kafka's 0,5", v, n)
	}
	if _, n := wire.Varlong([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}); n > 0 {
		t.Fatal("accepted an eleven-byte varlong")
	}
	if _, n := wire.Varint([]byte{0x80}); n != 0 {
		t.Fatal("accepted a truncated varint")
	}
	if got := (Compression(7)).String(); !strings.HasPrefix(got, "unknown") {
		t.Fatal(got)
	}
}
