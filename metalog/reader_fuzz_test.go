package metalog

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// fixtureFiles lists the real Kafka files under testdata: metadata
// segments, snapshots and bootstrap files from testdata/kraft, and the
// compressed segments from testdata/compressed.
func fixtureFiles(t testing.TB) []string {
	var out []string
	for _, root := range []string{"../testdata/kraft", "../testdata/compressed"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			switch k, _ := ClassifyName(d.Name()); k {
			case KindSegment, KindSnapshot, KindBootstrap:
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// addFixtureSeeds seeds f with the first 64 KiB of every real fixture file.
func addFixtureSeeds(f *testing.F) {
	for _, p := range fixtureFiles(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 64<<10 {
			data = data[:64<<10]
		}
		f.Add(data)
	}
}

// reencodable reports whether b has exactly the shape KRaft writes, so
// that AppendDataBatch/AppendControlBatch must reproduce it byte for byte.
func reencodable(b *Batch) ([]byte, bool) {
	if !b.CRCValid || b.Compression() != CompressionNone || (b.Attributes&^AttrControl) != 0 ||
		b.ProducerID != -1 || b.ProducerEpoch != -1 || b.BaseSequence != -1 ||
		b.MaxTimestamp != b.BaseTimestamp || b.RecordsCount == 0 || b.LastOffsetDelta != b.RecordsCount-1 {
		return nil, false
	}
	var vals [][]byte
	var ctl []ControlRecord
	it := b.Records()
	for it.Next() {
		r := it.Record()
		if r.TimestampDelta != 0 || r.OffsetDelta != int32(r.Index) || r.Headers != nil || r.Attributes != 0 || len(r.Value) == 0 {
			return nil, false
		}
		if b.IsControl() {
			t, ok := ParseControlKey(r.Key)
			if !ok || len(r.Key) != 4 || r.Key[0] != 0 || r.Key[1] != 0 || !t.KRaftLegal() {
				return nil, false
			}
			ctl = append(ctl, ControlRecord{Type: t, Value: bytes.Clone(r.Value)})
		} else {
			if r.Key != nil {
				return nil, false
			}
			vals = append(vals, bytes.Clone(r.Value))
		}
	}
	if it.Err() != nil {
		return nil, false
	}
	p := BatchParams{BaseOffset: b.BaseOffset, Epoch: b.PartitionLeaderEpoch, Timestamp: b.BaseTimestamp}
	var out []byte
	var err error
	if b.IsControl() {
		out, err = AppendControlBatch(nil, p, ctl)
	} else {
		out, err = AppendDataBatch(nil, p, vals)
	}
	return out, err == nil
}

// readEverything drains data through a Reader and checks the invariants:
// no panic (implicitly), every error ours and located inside the data, and
// KRaft-shaped batches re-encode to the same bytes.
func readEverything(t testing.TB, data []byte, size int64) (batches int, reencoded int) {
	r := NewReader(bytes.NewReader(data), "fuzz", size, ReaderOptions{MaxDecompressedBytes: 1 << 20})
	checkErr := func(err error) {
		if !IsOurs(err) {
			t.Fatalf("foreign error %T: %v", err, err)
		}
		var ce *CorruptionError
		if errors.As(err, &ce) && (ce.Position < 0 || ce.Position > int64(len(data))) {
			t.Fatalf("error position %d outside [0,%d]: %v", ce.Position, len(data), err)
		}
	}
	for {
		b, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			checkErr(err)
			if b == nil {
				return
			}
		}
		batches++
		it := b.Records()
		for it.Next() {
			_ = it.Record()
		}
		if err := it.Err(); err != nil {
			checkErr(err)
		}
		if out, ok := reencodable(b); ok {
			if !bytes.Equal(out, b.Bytes()) {
				t.Fatalf("batch at %d re-encodes differently:\n got %x\nwant %x", b.Position, out, b.Bytes())
			}
			reencoded++
		}
	}
}

func FuzzBatchReader(f *testing.F) {
	f.Add(workedExample(f))
	sample, _ := sampleLog(f, 4)
	f.Add(sample)
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		readEverything(t, data, int64(len(data)))
		readEverything(t, data, -1)
		if b, err := ParseBatch(data, "fuzz", 0); err != nil && !IsOurs(err) {
			t.Fatalf("ParseBatch: foreign error %v", err)
		} else if b != nil {
			it := b.Records()
			for it.Next() {
			}
		}
	})
}

// TestFixturesReencode reads every real fixture: no errors, and every
// KRaft-shaped batch re-encodes byte for byte with the writer.
func TestFixturesReencode(t *testing.T) {
	files := fixtureFiles(t)
	if len(files) == 0 {
		// Passing without reading anything would prove nothing.
		t.Fatal("no fixtures under testdata/kraft or testdata/compressed: the committed fixtures are missing")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		must(t, err)
		r := NewReader(bytes.NewReader(data), p, int64(len(data)), ReaderOptions{})
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			it := b.Records()
			for it.Next() {
			}
			if it.Err() != nil {
				t.Fatalf("%s: %v", p, it.Err())
			}
		}
		n, re := readEverything(t, data, int64(len(data)))
		t.Logf("%s: %d batches, %d re-encoded byte-exactly", p, n, re)
	}
}

// TestCorruptionMutator applies seeded, deterministic damage to real
// fixtures (and a synthetic log when none exist): bit flips inside the
// CRC-covered region must be reported as crc-mismatch at that batch, cuts
// inside a batch as a torn tail at that batch, and any other damage must
// never panic or produce a foreign error.
func TestCorruptionMutator(t *testing.T) {
	type input struct {
		name string
		data []byte
	}
	sample, _ := sampleLog(t, 20)
	inputs := []input{{"synthetic.log", sample}}
	for _, p := range fixtureFiles(t) {
		data, err := os.ReadFile(p)
		must(t, err)
		inputs = append(inputs, input{p, data})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for _, in := range inputs {
		// Batch boundaries of the intact file.
		var starts []int64
		r := NewReader(bytes.NewReader(in.data), in.name, int64(len(in.data)), ReaderOptions{})
		for {
			b, err := r.Next()
			if err != nil {
				break
			}
			starts = append(starts, b.Position)
		}
		if len(starts) == 0 {
			continue
		}
		batchAt := func(pos int64) (int64, int64) {
			i := len(starts) - 1
			for i > 0 && starts[i] > pos {
				i--
			}
			end := int64(len(in.data))
			if i+1 < len(starts) {
				end = starts[i+1]
			}
			return starts[i], end
		}
		for iter := 0; iter < 60; iter++ {
			d := bytes.Clone(in.data)
			op := iter % 4
			pos := rng.Int64N(int64(len(d)))
			start, end := batchAt(pos)
			switch op {
			case 0: // bit flip
				d[pos] ^= 1 << rng.IntN(8)
			case 1: // truncate
				d = d[:pos]
			case 2: // garbage run
				n := min(int64(rng.IntN(32)+1), int64(len(d))-pos)
				for i := int64(0); i < n; i++ {
					d[pos+i] = byte(rng.Uint32())
				}
			case 3: // zero the rest (preallocated-file look)
				clear(d[pos:])
			}
			name := filepath.Join(dir, SegmentFileName(0))
			must(t, os.WriteFile(name, d, 0o644))
			readEverything(t, d, int64(len(d)))
			rep, err := Check(name, CheckOptions{Strict: true})
			if err != nil {
				t.Fatalf("%s op %d at %d: Check failed to run: %v", in.name, op, pos, err)
			}
			has := func(kind string, at int64) bool {
				for _, f := range rep.Findings {
					if f.Code == kind && f.Where.Position == at {
						return true
					}
				}
				return false
			}
			switch {
			case op == 0 && pos >= start+crcStart && pos < end:
				if !has(KindCRCMismatch, start) {
					t.Fatalf("%s: bit flip at %d (batch %d) not reported as crc-mismatch: %+v", in.name, pos, start, rep.Findings)
				}
			case op == 1 && pos != start:
				if !has(KindTornTail, start) {
					t.Fatalf("%s: cut at %d (batch %d) not reported as torn tail: %+v", in.name, pos, start, rep.Findings)
				}
			}
		}
	}
}
