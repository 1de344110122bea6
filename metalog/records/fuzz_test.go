package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzDecodeMetadata: no input panics; every error is one of ours; whatever
// decodes re-encodes to bytes that decode to the same record and re-encode
// to themselves (the input itself may use non-canonical varints or write
// defaulted tagged fields, which Kafka also accepts and normalizes).
func FuzzDecodeMetadata(f *testing.F) {
	for _, s := range seedValues() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		fr, m, err := DecodeMetadata(value)
		if err != nil {
			if !errors.Is(err, ErrFrame) && !errors.Is(err, ErrUnknownType) && !errors.Is(err, ErrUnknownVersion) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("foreign error %v", err)
			}
			return
		}
		enc, err := EncodeMetadata(nil, m, fr.Version)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		_, m2, err := DecodeMetadata(enc)
		if err != nil {
			t.Fatalf("decode of re-encoded: %v", err)
		}
		enc2, err := EncodeMetadata(nil, m2, fr.Version)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("not idempotent: %x vs %x (%v)", enc, enc2, err)
		}
		if !bytes.Equal(PayloadJSON(m, fr.Version), PayloadJSON(m2, fr.Version)) {
			t.Fatalf("JSON differs after round trip")
		}
		if js := PayloadJSON(m, fr.Version); !json.Valid(js) {
			t.Fatalf("invalid JSON: %s", js)
		}
	})
}

// FuzzDecodeControl: no control key or body panics, every error is one of
// ours, and what decodes prints as valid JSON.
// FuzzDecoderReuse: a Decoder that decoded one value (and so holds its
// lists' arrays) decodes the next exactly as a fresh decode does: same
// verdict, same error, same fields, empty and null lists kept apart.
func FuzzDecoderReuse(f *testing.F) {
	seeds := seedValues()
	for i, s := range seeds {
		f.Add(s, seeds[(i+1)%len(seeds)])
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		var d Decoder
		d.DecodeMetadata(first)
		d.DecodeMetadata(second) // twice: reuse with the arrays second left
		fr, m, err := d.DecodeMetadata(second)
		wfr, wm, werr := DecodeMetadata(second)
		if fmt.Sprint(err) != fmt.Sprint(werr) || fr != wfr {
			t.Fatalf("reused: %v %v; fresh: %v %v", fr, err, wfr, werr)
		}
		// cmp tells a nil list from an empty one; NaN is a value here.
		if err == nil && !cmp.Equal(m, wm, cmpopts.EquateNaNs()) {
			t.Fatalf("reused decode differs from a fresh one: %s", cmp.Diff(wm, m, cmpopts.EquateNaNs()))
		}
	})
}

func FuzzDecodeControl(f *testing.F) {
	for ct := ControlLeaderChange; ct <= ControlKRaftVoters; ct++ {
		c := NewControl(int16(ct))
		c.SetDefaults()
		if b, err := EncodeControl(nil, c); err == nil {
			f.Add(EncodeControlKey(ct), b)
		}
	}
	f.Fuzz(func(t *testing.T, key, value []byte) {
		_, c, err := DecodeControl(key, value)
		if err != nil {
			if !errors.Is(err, ErrUnknownType) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("foreign error %v", err)
			}
			return
		}
		if js := c.AppendJSON(nil, 0); !json.Valid(js) {
			t.Fatalf("invalid JSON: %s", js)
		}
	})
}

// seedValues returns one encoded value per known record type and version,
// from defaults. (Real fixture bytes seed metalog's FuzzBatchReader, which
// reaches this decoder through whole batches.)
func seedValues() [][]byte {
	var out [][]byte
	for _, mt := range MetadataTypes() {
		for v := mt.MinVersion; v <= mt.MaxVersion; v++ {
			m := NewMetadata(mt.APIKey)
			m.SetDefaults()
			if b, err := EncodeMetadata(nil, m, v); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

// FuzzValidateMetadata: the validate-only path accepts exactly what the
// full decoder accepts, and ValidateMetadata returns the decoder's error.
func FuzzValidateMetadata(f *testing.F) {
	for _, s := range seedValues() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		_, _, err := DecodeMetadata(value)
		if got := validMetadata(value); got != (err == nil) {
			t.Fatalf("validator says %v, decoder says %v", got, err)
		}
		if verr := ValidateMetadata(value); (verr == nil) != (err == nil) || (err != nil && verr.Error() != err.Error()) {
			t.Fatalf("ValidateMetadata %v, DecodeMetadata %v", verr, err)
		}
	})
}

// FuzzTranscodeMetadata: the transcoder declines exactly what the decoder
// rejects, and writes AppendJSON's bytes for the rest.
func FuzzTranscodeMetadata(f *testing.F) {
	for _, s := range seedValues() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		fr, m, err := DecodeMetadata(value)
		got, _, _, ok := AppendMetadataJSON(nil, value)
		if ok != (err == nil) {
			t.Fatalf("transcoder ok %v, decoder %v", ok, err)
		}
		if ok && !bytes.Equal(got, m.AppendJSON(nil, fr.Version)) {
			t.Fatalf("transcoded %s, AppendJSON %s", got, m.AppendJSON(nil, fr.Version))
		}
	})
}
