package metalog

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/synth"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// fixBatchCRCs recomputes the CRC of every batch of a segment image whose
// framing holds, so that a mutation inside a batch reaches the record
// walk instead of stopping at the CRC.
func fixBatchCRCs(data []byte) {
	for pos := 0; pos+HeaderSize <= len(data); {
		l := int(int32(binary.BigEndian.Uint32(data[pos+8:])))
		if l < minBatchLength || pos+LengthPrefix+l > len(data) {
			return
		}
		end := pos + LengthPrefix + l
		binary.BigEndian.PutUint32(data[pos+17:], CRC32C(data[pos+crcStart:end]))
		pos = end
	}
}

// walkOpts are the option sets the fast walk must agree under: strict or
// not, with the check's hook, with a hook that refuses some values, and
// with none (--frames-only).
func walkOpts() map[string]func(calls *atomic.Int64) CheckOptions {
	refuse := errors.New("refused")
	return map[string]func(*atomic.Int64) CheckOptions{
		"strict+validate": func(n *atomic.Int64) CheckOptions {
			return CheckOptions{Strict: true, DecodeValue: func(v []byte) error { n.Add(1); return validateForCheck(v) }}
		},
		"lenient+validate": func(n *atomic.Int64) CheckOptions {
			return CheckOptions{DecodeValue: func(v []byte) error { n.Add(1); return validateForCheck(v) }}
		},
		"strict+refusing": func(n *atomic.Int64) CheckOptions {
			return CheckOptions{Strict: true, MaxPerKind: 3, DecodeValue: func(v []byte) error {
				n.Add(1)
				if len(v)%3 == 0 {
					return refuse
				}
				return nil
			}}
		},
		// log check's own options: the verdict first, the hook only
		// for what the verdict refuses (both counted).
		"strict+verdict": func(n *atomic.Int64) CheckOptions {
			return CheckOptions{Strict: true,
				DecodeValue: func(v []byte) error { n.Add(1); return validateForCheck(v) },
				ValidValue:  func(v []byte) bool { n.Add(1); return records.ValidMetadata(v) }}
		},
		"lenient+verdict": func(n *atomic.Int64) CheckOptions {
			return CheckOptions{
				DecodeValue: func(v []byte) error { n.Add(1); return validateForCheck(v) },
				ValidValue:  func(v []byte) bool { n.Add(1); return records.ValidMetadata(v) }}
		},
		"strict+frames":  func(*atomic.Int64) CheckOptions { return CheckOptions{Strict: true} },
		"lenient+frames": func(*atomic.Int64) CheckOptions { return CheckOptions{} },
	}
}

// checkFastAndFull checks path with the fast record walk and without it
// and fails unless the reports, and the calls of the decode hook, are the
// same.
func checkFastAndFull(t *testing.T, path string) {
	t.Helper()
	for name, mk := range walkOpts() {
		var nFast, nFull atomic.Int64
		fastRecordWalk = true
		fast, errF := Check(path, mk(&nFast))
		fastRecordWalk = false
		full, errS := Check(path, mk(&nFull))
		fastRecordWalk = true
		if (errF == nil) != (errS == nil) {
			t.Fatalf("%s %s: fast walk error %v, full walk error %v", path, name, errF, errS)
		}
		if !reflect.DeepEqual(fast, full) {
			jf, _ := json.MarshalIndent(fast, "", " ")
			js, _ := json.MarshalIndent(full, "", " ")
			t.Fatalf("%s %s: fast walk report differs\nfast:\n%s\nfull:\n%s", path, name, jf, js)
		}
		if nFast.Load() != nFull.Load() {
			t.Fatalf("%s %s: decode hook called %d times with the fast walk, %d without", path, name, nFast.Load(), nFull.Load())
		}
	}
	// The verdict hook changes nothing but the cost.
	for _, strict := range []bool{true, false} {
		without, _ := Check(path, CheckOptions{Strict: strict, DecodeValue: validateForCheck})
		with, _ := Check(path, CheckOptions{Strict: strict, DecodeValue: validateForCheck, ValidValue: records.ValidMetadata})
		if !reflect.DeepEqual(with, without) {
			jw, _ := json.MarshalIndent(with, "", " ")
			jo, _ := json.MarshalIndent(without, "", " ")
			t.Fatalf("%s strict=%v: report with ValidValue differs\nwith:\n%s\nwithout:\n%s", path, strict, jw, jo)
		}
	}
}

// TestFastRecordsAgree: on every fixture, a synthesized segment and a few
// hundred mutations of them (bytes changed inside batches, CRCs then
// fixed so the records are walked), check's report is the same with the
// fast record walk as with the full one, under every option set, and the
// decode hook is called as often.
func TestFastRecordsAgree(t *testing.T) {
	defer func() { fastRecordWalk = true }()
	inputs := fixtureFiles(t)
	if len(inputs) == 0 {
		t.Fatal("no fixtures")
	}
	inputs = append(inputs, synthSegment(t, t.TempDir(), 256<<10))
	rng := rand.New(rand.NewPCG(11, 12))
	findings := 0
	for _, p := range inputs {
		checkFastAndFull(t, p)
		orig, err := os.ReadFile(p)
		must(t, err)
		for i := range 40 {
			data := bytes.Clone(orig)
			for range 1 + rng.IntN(3) {
				at := HeaderSize + rng.IntN(max(1, len(data)-HeaderSize))
				if at >= len(data) {
					continue
				}
				switch rng.IntN(3) {
				case 0:
					data[at] = byte(rng.IntN(256))
				case 1:
					data[at] ^= 1 << rng.IntN(8)
				default:
					data[at] = []byte{0x00, 0x01, 0x02, 0x7f, 0x80, 0xff}[rng.IntN(6)]
				}
			}
			fixBatchCRCs(data)
			mp := filepath.Join(t.TempDir(), filepath.Base(p))
			must(t, os.WriteFile(mp, data, 0o644))
			checkFastAndFull(t, mp)
			if rep, _ := Check(mp, CheckOptions{Strict: true, DecodeValue: validateForCheck}); rep != nil && !rep.OK() {
				findings++
			}
			_ = i
		}
	}
	// A campaign that never reaches a finding would not test the hand-over.
	if findings < len(inputs)*10 {
		t.Fatalf("only %d of %d mutants have findings", findings, len(inputs)*40)
	}
}

// FuzzFastRecords: any segment image (CRCs fixed, so that the records are
// walked) gets the same check report with the fast record walk as with
// the full one.
func FuzzFastRecords(f *testing.F) {
	addFixtureSeeds(f)
	f.Add(workedExample(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func() { fastRecordWalk = true }()
		data = bytes.Clone(data)
		fixBatchCRCs(data)
		p := filepath.Join(t.TempDir(), SegmentFileName(0))
		must(t, os.WriteFile(p, data, 0o644))
		checkFastAndFull(t, p)
	})
}

// TestVerdictHookAgrees: check's report is the same with the verdict hook
// (CheckOptions.ValidValue, what log check passes) as without it, on a
// segment whose record bodies are damaged (a byte changed after the frame
// header, so that the body decodes or not and the verdict decides), and
// the damage is found (record-decode findings) both ways.
func TestVerdictHookAgrees(t *testing.T) {
	defer func() { fastRecordWalk = true }()
	g := synth.New(3)
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	w, err := CreateSegment(dir, 0, WriteOptions{})
	must(t, err)
	for i := range 400 {
		var vals [][]byte
		for range 1 + i%20 {
			m, v := g.Busy()
			val, err := records.EncodeMetadata(nil, m, v)
			must(t, err)
			if len(val) > 3 && rng.IntN(4) == 0 {
				val[3+rng.IntN(len(val)-3)] = []byte{0x00, 0x01, 0x7f, 0x80, 0xff, byte(rng.IntN(256))}[rng.IntN(6)]
			}
			vals = append(vals, val)
		}
		must(t, w.AppendData(1, 1700000000000, vals))
	}
	must(t, w.Commit())
	path := filepath.Join(dir, SegmentFileName(0))
	for _, fast := range []bool{true, false} {
		fastRecordWalk = fast
		for _, strict := range []bool{true, false} {
			opts := CheckOptions{Strict: strict, MaxPerKind: 1 << 20, DecodeValue: validateForCheck}
			without, err := Check(path, opts)
			must(t, err)
			opts.ValidValue = records.ValidMetadata
			with, err := Check(path, opts)
			must(t, err)
			if !reflect.DeepEqual(with, without) {
				t.Fatalf("fast=%v strict=%v: report with ValidValue differs (%d findings, %d without)", fast, strict, len(with.Findings), len(without.Findings))
			}
			n := 0
			for _, f := range with.Findings {
				if f.Code == KindRecordDecode {
					n++
				}
			}
			if n < 100 {
				t.Fatalf("fast=%v strict=%v: only %d record-decode findings", fast, strict, n)
			}
		}
	}
}

// TestFastRecordsLengthBoundaries: records whose values are just under and
// over the sizes where the value's length varint grows (64 and 8,192
// bytes), each of the first bytes of each record changed in a few ways
// (the lengths, the fields the strict layout fixes), CRCs fixed: check's
// report is the same with the fast walk as with the full one. Random
// mutants seldom hit a two-byte length.
func TestFastRecordsLengthBoundaries(t *testing.T) {
	defer func() { fastRecordWalk = true }()
	var vals [][]byte
	for _, k := range []int{40, 50, 51, 52, 53, 54, 55, 120, 8176, 8178, 8179, 8180, 8181, 8182} {
		v, err := records.EncodeMetadata(nil, &records.ConfigRecord{ResourceType: 2, ResourceName: "t", Name: "x", Value: ptr(strings.Repeat("a", k))}, 0)
		must(t, err)
		vals = append(vals, v)
	}
	dir := t.TempDir()
	w, err := CreateSegment(dir, 0, WriteOptions{})
	must(t, err)
	must(t, w.AppendData(1, 1700000000000, vals))
	must(t, w.Commit())
	p := filepath.Join(dir, SegmentFileName(0))
	orig, err := os.ReadFile(p)
	must(t, err)
	sizes := map[int]bool{}
	var starts []int
	for pos := HeaderSize; pos < len(orig); {
		starts = append(starts, pos)
		l, n := binary.Varint(orig[pos:])
		sizes[len(vals[len(starts)-1])] = true
		pos += n + int(l)
	}
	if len(starts) != len(vals) || !sizes[63] || !sizes[64] || !sizes[8191] || !sizes[8192] {
		t.Fatalf("%d records of value sizes %v: the boundaries are not covered", len(starts), sizes)
	}
	checkFastAndFull(t, p)
	for _, s := range starts {
		for at := s; at < s+9; at++ {
			for _, change := range []func(byte) byte{
				func(c byte) byte { return c + 1 }, func(c byte) byte { return c - 1 },
				func(c byte) byte { return c ^ 0x80 }, func(byte) byte { return 0 },
			} {
				data := bytes.Clone(orig)
				data[at] = change(data[at])
				fixBatchCRCs(data)
				mp := filepath.Join(t.TempDir(), SegmentFileName(0))
				must(t, os.WriteFile(mp, data, 0o644))
				checkFastAndFull(t, mp)
			}
		}
	}
}

// TestCheckUnknownRecordIsItsOwnWarning: with log check's decoding (the
// full decoder's verdict), a record of a type or version kmeta does not
// know is a record-unknown warning at its offset, not record-decode
// damage, and the last known-good offset goes past it; a body that does
// not decode stays record-decode. On the fast record walk and the slow
// one alike. Fails when decodeFailed reports unknown records as
// record-decode, or (as before) when they are not reported at all.
func TestCheckUnknownRecordIsItsOwnWarning(t *testing.T) {
	good, err := records.EncodeMetadata(nil, &records.TopicRecord{Name: "t", TopicId: model.UUID{1}}, 0)
	must(t, err)
	dir := t.TempDir()
	w, err := CreateSegment(dir, 0, WriteOptions{})
	must(t, err)
	must(t, w.AppendData(1, 1700000000000, [][]byte{good, {1, 99, 0}, {1, 2, 9}}))
	must(t, w.AppendData(1, 1700000000000, [][]byte{{1, 2, 0, 1, 2, 3}}))
	must(t, w.Commit())
	seg := filepath.Join(dir, SegmentFileName(0))
	want := []string{
		"error record-decode 3: apiKey 2 v0: records: malformed record body: TopicRecord v0: at byte 1: wire: not enough bytes",
		"warning record-unknown 1: apiKey 99 v0: records: unknown record type: apiKey 99",
		"warning record-unknown 2: apiKey 2 v9: records: unknown record version: TopicRecord version 9 (kmeta knows 0-0)",
	}
	for _, fast := range []bool{true, false} {
		old := fastRecordWalk
		fastRecordWalk = fast
		rep, err := Check(seg, CheckOptions{Strict: true, DecodeValue: records.ValidateMetadata, ValidValue: records.ValidMetadata})
		fastRecordWalk = old
		must(t, err)
		var got []string
		for _, f := range rep.Findings {
			got = append(got, fmt.Sprintf("%s %s %d: %s", f.Severity, f.Code, f.Where.Offset, f.Message))
		}
		if !slices.Equal(got, want) || rep.LastGoodOffset != 2 {
			t.Fatalf("fast walk %v: findings\n%s\nwant\n%s\nlast good offset %d, want 2", fast, strings.Join(got, "\n"), strings.Join(want, "\n"), rep.LastGoodOffset)
		}
	}
}
