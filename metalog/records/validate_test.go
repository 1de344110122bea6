package records_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/synth"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
)

// fixtureValues returns the value of every data record in the committed
// real-Kafka fixtures (segments, snapshots, bootstrap files).
func fixtureValues(t testing.TB) [][]byte {
	t.Helper()
	var files []string
	for _, pat := range []string{"*/metadata/__cluster_metadata-0/*.log", "*/metadata/__cluster_metadata-0/*.checkpoint", "*/metadata/bootstrap.checkpoint", "bootstrap/*"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "kraft", pat))
		files = append(files, m...)
	}
	var out [][]byte
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		r, err := metalog.OpenReader(f, metalog.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if b.IsControl() {
				continue
			}
			it := b.Records()
			for it.Next() {
				out = append(out, append([]byte(nil), it.Record().Value...))
			}
		}
		r.Close()
	}
	if len(out) < 100 {
		t.Fatalf("only %d fixture values in %d files", len(out), len(files))
	}
	return out
}

// generatedValues: every type at every version with every field set
// (tagged fields included), from the synthesizer.
func generatedValues(t testing.TB) [][]byte {
	var out [][]byte
	for _, rv := range synth.New(11).Every() {
		b, err := records.EncodeMetadata(nil, rv.Rec, rv.Version)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func agree(t *testing.T, what string, value []byte) bool {
	t.Helper()
	_, _, err := records.DecodeMetadata(value)
	if got := records.ValidMetadata(value); got != (err == nil) {
		t.Errorf("%s: validator says %v, decoder says %v; value %x", what, got, err, value)
		return false
	}
	if verr := records.ValidateMetadata(value); (verr == nil) != (err == nil) || (err != nil && verr.Error() != err.Error()) {
		t.Errorf("%s: ValidateMetadata %v, DecodeMetadata %v", what, verr, err)
		return false
	}
	return true
}

// TestValidateAgreesOnFixtures: every record Kafka wrote in the fixtures,
// and every type and version fully populated, is accepted by both.
func TestValidateAgreesOnFixtures(t *testing.T) {
	vals := append(fixtureValues(t), generatedValues(t)...)
	for i, v := range vals {
		if _, _, err := records.DecodeMetadata(v); err != nil {
			t.Fatalf("value %d does not decode: %v", i, err)
		}
		agree(t, "fixture", v)
	}
}

// TestValidateAgreesOnMutations: the same values truncated at every
// length, with every byte replaced by a few values, and with bytes
// appended, are accepted or rejected alike, with the same error.
func TestValidateAgreesOnMutations(t *testing.T) {
	vals := append(fixtureValues(t), generatedValues(t)...)
	var accepted, rejected int
	check := func(what string, v []byte) {
		if !agree(t, what, v) {
			t.FailNow()
		}
		if records.ValidMetadata(v) {
			accepted++
		} else {
			rejected++
		}
	}
	buf := make([]byte, 0, 1<<16)
	for _, v := range vals {
		for n := 0; n < len(v); n++ {
			check("truncated", v[:n])
		}
		for i := range v {
			for _, x := range []byte{0x00, 0x01, 0x7f, 0x80, 0xff, v[i] + 1, v[i] - 1} {
				buf = append(buf[:0], v...)
				buf[i] = x
				check("byte replaced", buf)
			}
		}
		check("appended", append(append(buf[:0], v...), 0))
		check("appended tag", append(append(buf[:0], v[:len(v)-1]...), v[len(v)-1]+1, 9, 1, 0))
	}
	if accepted == 0 || rejected == 0 {
		t.Fatalf("mutations accepted %d, rejected %d: the corpus does not exercise both sides", accepted, rejected)
	}
	t.Logf("%d values, %d mutations accepted, %d rejected", len(vals), accepted, rejected)
}

// TestValidateAllocatesNothing: accepting a record allocates nothing.
func TestValidateAllocatesNothing(t *testing.T) {
	vals := append(fixtureValues(t), generatedValues(t)...)
	allocs := testing.AllocsPerRun(20, func() {
		for _, v := range vals {
			if records.ValidateMetadata(v) != nil {
				panic("rejected")
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per pass over %d values", allocs, len(vals))
	}
}

func BenchmarkValidateVsDecode(b *testing.B) {
	vals := append(fixtureValues(b), generatedValues(b)...)
	var n int64
	for _, v := range vals {
		n += int64(len(v))
	}
	b.Run("validate", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, v := range vals {
				_ = records.ValidateMetadata(v)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, v := range vals {
				_, _, err := records.DecodeMetadata(v)
				if err != nil && !errors.Is(err, records.ErrMalformed) {
					b.Fatal(err)
				}
			}
		}
	})
}
