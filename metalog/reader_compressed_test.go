package metalog

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var (
	dumpBatchRe  = regexp.MustCompile(`^baseOffset: (\d+) lastOffset: (\d+) count: (\d+) .* position: (\d+) .* compresscodec: (\w+) crc: (\d+) isvalid: (\w+)`)
	dumpRecordRe = regexp.MustCompile(`^\| offset: (\d+) .*keySize: (-?\d+) valueSize: (-?\d+) .* key: (\S*) payload: (.*)$`)
)

type dumpedBatch struct {
	base, last, pos int64
	count           int
	codec           string
	crc             uint32
}

type dumpedRecord struct {
	offset     int64
	key, value string
}

// parseDump reads kafka-dump-log --print-data-log output.
func parseDump(t *testing.T, path string) ([]dumpedBatch, []dumpedRecord) {
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var bs []dumpedBatch
	var rs []dumpedRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	atoi := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	for sc.Scan() {
		l := sc.Text()
		if m := dumpBatchRe.FindStringSubmatch(l); m != nil {
			if m[7] != "true" {
				t.Fatalf("%s: Kafka says a batch is invalid: %s", path, l)
			}
			bs = append(bs, dumpedBatch{base: atoi(m[1]), last: atoi(m[2]), count: int(atoi(m[3])), pos: atoi(m[4]), codec: m[5], crc: uint32(atoi(m[6]))})
		} else if m := dumpRecordRe.FindStringSubmatch(l); m != nil {
			rs = append(rs, dumpedRecord{offset: atoi(m[1]), key: m[4], value: m[5]})
		}
	}
	must(t, sc.Err())
	return bs, rs
}

// TestKafkaCompressedSegments decodes segments Kafka's own producer wrote
// with each compression.type and compares every batch and record with
// kafka-dump-log's view of the same file (see testdata/compressed/README).
func TestKafkaCompressedSegments(t *testing.T) {
	for _, codec := range []string{"gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "compressed", codec, "00000000000000000000.log")
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("fixture missing (regenerate: go test -tags fixtures -run TestGenerateCompressedFixtures ./metalog): %v", err)
			}
			wantBatches, wantRecords := parseDump(t, path+".dump.txt")
			if len(wantBatches) < 2 || len(wantRecords) == 0 {
				t.Fatalf("dump has %d batches, %d records", len(wantBatches), len(wantRecords))
			}
			r, err := OpenReader(path, ReaderOptions{})
			must(t, err)
			defer r.Close()
			var gotRecords []dumpedRecord
			i := 0
			for ; ; i++ {
				b, err := r.Next()
				if err == io.EOF {
					break
				}
				must(t, err)
				if i >= len(wantBatches) {
					t.Fatalf("more batches than Kafka dumped")
				}
				w := wantBatches[i]
				got := dumpedBatch{base: b.BaseOffset, last: b.LastOffset(), pos: b.Position, count: int(b.RecordsCount), codec: b.Compression().String(), crc: b.CRC}
				if got != w {
					t.Fatalf("batch %d: got %+v, Kafka says %+v", i, got, w)
				}
				it := b.Records()
				for it.Next() {
					rec := it.Record()
					gotRecords = append(gotRecords, dumpedRecord{offset: rec.Offset, key: string(rec.Key), value: string(rec.Value)})
				}
				must(t, it.Err())
			}
			if i != len(wantBatches) {
				t.Fatalf("%d batches, Kafka dumped %d", i, len(wantBatches))
			}
			if len(gotRecords) != len(wantRecords) {
				t.Fatalf("%d records, Kafka dumped %d", len(gotRecords), len(wantRecords))
			}
			for j := range gotRecords {
				if gotRecords[j] != wantRecords[j] {
					t.Fatalf("record %d: got %+v, Kafka says %+v", j, gotRecords[j], wantRecords[j])
				}
			}
			compressed := 0
			for _, b := range wantBatches {
				if b.codec == codec {
					compressed++
				}
			}
			if compressed == 0 {
				t.Fatalf("no %s batch in the fixture", codec)
			}
			// A decompression cap below the batch size must fail cleanly.
			data, _ := os.ReadFile(path)
			small := NewReader(bytes.NewReader(data), path, int64(len(data)), ReaderOptions{MaxDecompressedBytes: 64})
			b, err := small.Next()
			must(t, err)
			it := b.Records()
			for it.Next() {
			}
			if it.Err() == nil || !IsOurs(it.Err()) {
				t.Fatalf("64-byte decompression cap: %v", it.Err())
			}
		})
	}
}

// TestRawSnappy: clients other than the Java producer write one raw
// snappy block without xerial framing; it must decode too.
func TestRawSnappy(t *testing.T) {
	rec := []byte{0, 0, 0, 1, 2, 'v', 0}
	rec = append(appendVarint(nil, int64(len(rec))), rec...)
	var records []byte
	for i := 0; i < 50; i++ {
		records = append(records, rec...)
	}
	enc := snappyEncodeForTest(records)
	b, err := ParseBatch(buildRecordBatch(enc, 50, Attributes(CompressionSnappy)), "raw", 0)
	must(t, err)
	it := b.Records()
	n := 0
	for it.Next() {
		n++
	}
	if it.Err() != nil || n != 50 {
		t.Fatalf("%d records, err %v", n, it.Err())
	}
}
