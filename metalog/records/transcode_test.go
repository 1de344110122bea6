package records_test

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/kmeta/kmeta/metalog/records"
)

// transcodeAgrees: AppendMetadataJSON gives AppendJSON's bytes for a value
// that decodes, and declines one that does not.
func transcodeAgrees(t *testing.T, what string, value []byte) bool {
	t.Helper()
	fr, m, err := records.DecodeMetadata(value)
	got, key, ver, ok := records.AppendMetadataJSON([]byte("x"), value)
	if ok != (err == nil) {
		t.Errorf("%s: transcoder ok %v, decoder %v; value %x", what, ok, err, value)
		return false
	}
	if !ok {
		return true
	}
	want := m.AppendJSON([]byte("x"), fr.Version)
	if !bytes.Equal(got, want) || key != fr.APIKey || ver != fr.Version {
		t.Errorf("%s: apiKey %d v%d\ntranscoded %s\nAppendJSON %s\nvalue %x", what, key, ver, got, want, value)
		return false
	}
	if records.MetadataTypeName(key) != records.TypeName(m.RecordName()) {
		t.Errorf("MetadataTypeName(%d) = %q", key, records.MetadataTypeName(key))
	}
	return true
}

// TestTranscodeMatchesAppendJSON: every fixture record, every type at
// every version fully populated, and the mutated corpus (whose accepted
// mutants hold odd but valid values: defaulted tagged fields, duplicate
// tags, empty and null lists).
func TestTranscodeMatchesAppendJSON(t *testing.T) {
	vals := append(fixtureValues(t), generatedValues(t)...)
	buf := make([]byte, 0, 1<<16)
	accepted := 0
	for _, v := range vals {
		if !transcodeAgrees(t, "value", v) {
			t.FailNow()
		}
		for i := range v {
			for _, x := range []byte{0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, v[i] + 1, v[i] - 1} {
				buf = append(buf[:0], v...)
				buf[i] = x
				if !transcodeAgrees(t, "mutant", buf) {
					t.FailNow()
				}
				if records.ValidMetadata(buf) {
					accepted++
				}
			}
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d accepted mutants", accepted)
	}
}

// TestTranscodeAllocatesNothing: transcoding into a large enough buffer
// allocates nothing, except in ClientQuotaRecord: its float64 goes through
// wire.AppendJavaDouble, which formats with strconv.FormatFloat.
func TestTranscodeAllocatesNothing(t *testing.T) {
	var vals [][]byte
	for _, v := range append(fixtureValues(t), generatedValues(t)...) {
		if _, key, _, _ := records.AppendMetadataJSON(nil, v); key != (&records.ClientQuotaRecord{}).APIKey() {
			vals = append(vals, v)
		}
	}
	buf := make([]byte, 0, 1<<20)
	allocs := testing.AllocsPerRun(20, func() {
		for _, v := range vals {
			var ok bool
			if buf, _, _, ok = records.AppendMetadataJSON(buf[:0], v); !ok {
				panic("declined")
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per pass", allocs)
	}
}

func BenchmarkTranscodeVsDecode(b *testing.B) {
	vals := append(fixtureValues(b), generatedValues(b)...)
	var n int64
	for _, v := range vals {
		n += int64(len(v))
	}
	buf := make([]byte, 0, 1<<20)
	b.Run("transcode", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, v := range vals {
				buf, _, _, _ = records.AppendMetadataJSON(buf[:0], v)
			}
		}
	})
	b.Run("decode+AppendJSON", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		var d records.Decoder
		for b.Loop() {
			for _, v := range vals {
				fr, m, _ := d.DecodeMetadata(v)
				buf = m.AppendJSON(buf[:0], fr.Version)
			}
		}
	})
}

// TestAppendUUID: the unrolled Uuid encoder writes what
// base64.RawURLEncoding (the encoding of Kafka's Uuid.toString) writes.
func TestAppendUUID(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		u := make([]byte, 16)
		for j := range u {
			u[j] = byte(rng.IntN(256))
		}
		if i == 0 {
			clear(u)
		} else if i == 1 {
			for j := range u {
				u[j] = 0xff
			}
		}
		want := `x"` + base64.RawURLEncoding.EncodeToString(u) + `"`
		if got := string(records.AppendUUID([]byte("x"), u)); got != want {
			t.Fatalf("%x: got %s, want %s", u, got, want)
		}
	}
}
