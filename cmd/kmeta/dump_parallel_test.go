package main

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/synth"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// writeBusySegment writes a segment of about size bytes of busy-cluster
// records, plus configs with secrets and SCRAM credentials (redacted
// unless --show-secrets).
func writeBusySegment(t *testing.T, dir string, size int) string {
	t.Helper()
	g := synth.New(3)
	w, err := metalog.CreateSegment(dir, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for i := 0; written < size; i++ {
		var vals [][]byte
		for j := 0; j < 1+i%40; j++ {
			m, v := g.Busy()
			switch j {
			case 3:
				m, v = &records.ConfigRecord{ResourceType: 4, ResourceName: "1", Name: "ssl.keystore.password", Value: strp("hunter2")}, 0
			case 5:
				m, v = &records.UserScramCredentialRecord{Name: "alice", Mechanism: 1, Salt: []byte{1, 2}, StoredKey: []byte{3}, ServerKey: []byte{4}, Iterations: 4096}, 0
			}
			b, err := records.EncodeMetadata(nil, m, v)
			if err != nil {
				t.Fatal(err)
			}
			vals = append(vals, b)
			written += len(b) + 8
		}
		if err := w.AppendData(2, 1700000000000+int64(i), vals); err != nil {
			t.Fatal(err)
		}
		written += 61
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, metalog.SegmentFileName(0))
}

func strp(s string) *string { return &s }

// TestParallelDumpMatchesSequential: on a multi-megabyte segment, intact
// and damaged (CRC mismatches, undecodable records with the CRC fixed, a
// torn tail), every output format and filter prints the same bytes and
// exits the same with the parallel reader as with the sequential one.
func TestParallelDumpMatchesSequential(t *testing.T) {
	oldProcs := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(max(2, oldProcs))
	defer runtime.GOMAXPROCS(oldProcs)
	defer func(v int64) { metalog.ParallelMinFileSize = v }(metalog.ParallelMinFileSize)
	dir := t.TempDir()
	p := writeBusySegment(t, dir, 3<<19) // six pipeline jobs
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	variants := map[string][]byte{"intact": orig}
	flipped := append([]byte(nil), orig...)
	for range 20 {
		flipped[rng.IntN(len(flipped))] ^= 0x20
	}
	variants["crc"] = flipped
	bad := append([]byte(nil), orig...)
	for range 20 {
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
	}
	for pos := 0; pos+61 <= len(bad); { // fix the CRCs: the damage reaches the records
		n := int(binary.BigEndian.Uint32(bad[pos+8:])) + 12
		if n < 61 || pos+n > len(bad) {
			break
		}
		c := metalog.CRC32C(bad[pos+21 : pos+n])
		binary.BigEndian.PutUint32(bad[pos+17:], c)
		pos += n
	}
	variants["records"] = bad
	variants["torn"] = orig[:len(orig)-1000]
	argSets := [][]string{
		{"log", "dump"},
		{"log", "dump", "--show-secrets"},
		{"log", "dump", "-o", "json"},
		{"log", "dump", "-o", "json", "--show-secrets", "--records-only"},
		{"log", "dump", "--type", "PARTITION_CHANGE_RECORD,CONFIG_RECORD", "--from-offset", "1000", "--to-offset", "30000"},
		{"log", "dump", "-o", "json", "--type", "USER_SCRAM_CREDENTIAL_RECORD"},
	}
	codes := map[string]int{}
	tornWarned := 0
	for name, data := range variants {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range argSets {
			args := append(append([]string(nil), args...), p)
			old := metalog.ParallelMinFileSize
			metalog.ParallelMinFileSize = 1 << 62
			seqCode, seqOut, seqErr := runKmeta(t, args...)
			metalog.ParallelMinFileSize = 0
			parCode, parOut, parErr := runKmeta(t, args...)
			metalog.ParallelMinFileSize = old
			if seqCode != parCode || seqOut != parOut || seqErr != parErr {
				t.Fatalf("%s %v: sequential exit %d, %d bytes; parallel exit %d, %d bytes\nstderr: %q vs %q", name, args, seqCode, len(seqOut), parCode, len(parOut), seqErr, parErr)
			}
			codes[name] |= 1 << seqCode
			if name == "torn" && strings.Contains(seqErr, "warning: "+model.WarnTornTail) {
				tornWarned++
			}
			if len(seqOut) < 1000 {
				t.Fatalf("%s %v: only %d bytes of output", name, args, len(seqOut))
			}
		}
	}
	// Kafka's compressed batches, decompressed by the workers.
	for _, c := range []string{"gzip", "lz4", "snappy", "zstd"} {
		f := filepath.Join("..", "..", "testdata", "compressed", c, "00000000000000000000.log")
		metalog.ParallelMinFileSize = 1 << 62
		_, seqOut, _ := runKmeta(t, "log", "dump", f)
		metalog.ParallelMinFileSize = 0
		_, parOut, _ := runKmeta(t, "log", "dump", f)
		if seqOut != parOut || len(seqOut) < 100 {
			t.Fatalf("%s: parallel dump differs (%d vs %d bytes)", c, len(seqOut), len(parOut))
		}
	}
	// The damage is seen: every damaged variant exits 1 at least once
	// (a filter may skip the damaged records), the intact one never. A
	// torn tail of the active segment is what a crash leaves and what
	// Kafka's recovery truncates: log check and log dump warn, exit 0.
	for name, c := range codes {
		ok := name == "intact" || name == "torn"
		if ok != (c == 1<<exitOK) || (!ok && c&(1<<exitFindings) == 0) {
			t.Errorf("%s: exit codes %b", name, c)
		}
	}
	if tornWarned != len(argSets) {
		t.Errorf("torn: %d of %d dumps warned about the torn tail", tornWarned, len(argSets))
	}
}

// TestParallelDumpVerdictIsChecks: log dump's verdict is log check's with
// both reading every file through the pipeline.
func TestParallelDumpVerdictIsChecks(t *testing.T) {
	forceParallelDump(t)
	TestDumpVerdictIsChecks(t)
}

// forceParallelDump makes every file go through the pipeline (with two Ps
// even on one core) until the test ends.
func forceParallelDump(t *testing.T) {
	oldProcs, old := runtime.GOMAXPROCS(0), metalog.ParallelMinFileSize
	runtime.GOMAXPROCS(max(2, oldProcs))
	metalog.ParallelMinFileSize = 0
	t.Cleanup(func() { runtime.GOMAXPROCS(oldProcs); metalog.ParallelMinFileSize = old })
}
