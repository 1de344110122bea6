package metalog

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var (
	kdBatchRe  = regexp.MustCompile(`^baseOffset: (-?\d+) lastOffset: (-?\d+) count: (\d+) baseSequence: (-?\d+) lastSequence: -?\d+ producerId: (-?\d+) producerEpoch: (-?\d+) partitionLeaderEpoch: (-?\d+) isTransactional: (\w+) isControl: (\w+) deleteHorizonMs: \S+ position: (\d+) CreateTime: (-?\d+) size: (\d+) magic: (\d+) compresscodec: (\w+) crc: (\d+) isvalid: (\w+)$`)
	kdRecordRe = regexp.MustCompile(`^\| offset: (-?\d+) CreateTime: (-?\d+) keySize: (-?\d+) valueSize: (-?\d+) `)
)

// kdLine is one batch or record line of kafka-dump-log output reduced to
// the fields both sides can produce.
type kdLine struct {
	batch                          bool
	base, last, pos, time, size    int64
	count, epoch, keySize, valSize int64
	producer, seq                  int64
	pEpoch                         int64
	control, txn, valid            bool
	codec                          string
	crc                            int64
}

func parseKafkaDump(t *testing.T, path string) []kdLine {
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	atoi := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	var out []kdLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		l := sc.Text()
		if m := kdBatchRe.FindStringSubmatch(l); m != nil {
			out = append(out, kdLine{batch: true, base: atoi(m[1]), last: atoi(m[2]), count: atoi(m[3]), seq: atoi(m[4]),
				producer: atoi(m[5]), pEpoch: atoi(m[6]), epoch: atoi(m[7]), txn: m[8] == "true", control: m[9] == "true",
				pos: atoi(m[10]), time: atoi(m[11]), size: atoi(m[12]), codec: m[14], crc: atoi(m[15]), valid: m[16] == "true"})
		} else if m := kdRecordRe.FindStringSubmatch(l); m != nil {
			out = append(out, kdLine{base: atoi(m[1]), time: atoi(m[2]), keySize: atoi(m[3]), valSize: atoi(m[4])})
		}
	}
	must(t, sc.Err())
	return out
}

func sizeOf(b []byte) int64 {
	if b == nil {
		return -1
	}
	return int64(len(b))
}

// kafkaFixtureFiles pairs every data file of testdata/kraft with the
// DumpLogSegments output committed next to it (<case>/dumps/<name>.txt).
func kafkaFixtureFiles(t *testing.T) map[string]string {
	out := map[string]string{}
	filepath.WalkDir("../testdata/kraft", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch k, _ := ClassifyName(d.Name()); k {
		case KindSegment, KindSnapshot, KindBootstrap:
		default:
			return nil
		}
		// <case>/metadata[/__cluster_metadata-0]/<file>
		dir := filepath.Dir(p)
		if filepath.Base(dir) == MetadataPartitionDir {
			dir = filepath.Dir(dir)
		}
		dump := filepath.Join(filepath.Dir(dir), "dumps", d.Name()+".txt")
		if _, err := os.Stat(dump); err == nil {
			out[p] = dump
		}
		return nil
	})
	return out
}

// TestKafkaFixtureHeaders compares every batch header and record header
// kmeta reads from Kafka-written metadata files with DumpLogSegments'
// output for the same files.
func TestKafkaFixtureHeaders(t *testing.T) {
	files := kafkaFixtureFiles(t)
	if len(files) == 0 {
		t.Fatal("no testdata/kraft fixtures with dumps")
	}
	for path, dump := range files {
		want := parseKafkaDump(t, dump)
		r, err := OpenReader(path, ReaderOptions{})
		must(t, err)
		var got []kdLine
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			must(t, err)
			got = append(got, kdLine{batch: true, base: b.BaseOffset, last: b.LastOffset(), count: int64(b.RecordsCount),
				seq: int64(b.BaseSequence), producer: b.ProducerID, pEpoch: int64(b.ProducerEpoch), epoch: int64(b.PartitionLeaderEpoch),
				txn: b.Attributes.Transactional(), control: b.IsControl(), pos: b.Position, time: b.MaxTimestamp, size: b.Size(),
				codec: b.Compression().String(), crc: int64(b.CRC), valid: b.CRCValid})
			it := b.Records()
			for it.Next() {
				rec := it.Record()
				got = append(got, kdLine{base: rec.Offset, time: rec.Timestamp, keySize: sizeOf(rec.Key), valSize: sizeOf(rec.Value)})
			}
			must(t, it.Err())
		}
		r.Close()
		if len(got) != len(want) {
			t.Fatalf("%s: %d lines, Kafka dumped %d", path, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s line %d:\n got %+v\nwant %+v", path, i, got[i], want[i])
			}
		}
	}
}

// TestCheckKafkaFixtures: the metadata dirs real Kafka left behind check
// clean in strict mode (warnings allowed only for what Kafka itself does).
func TestCheckKafkaFixtures(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/kraft/*/metadata")
	more, _ := filepath.Glob("../testdata/kraft/bootstrap/*/*/metadata")
	dirs = append(dirs, more...)
	if len(dirs) == 0 {
		t.Fatal("no fixtures")
	}
	for _, d := range dirs {
		rep, err := Check(d, CheckOptions{Strict: true, Stats: true})
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if !rep.OK() {
			t.Fatalf("%s: %s", d, dumpFindings(rep))
		}
		for _, f := range rep.Findings {
			t.Logf("%s: %s %s %s", d, f.Severity, f.Code, f.Message)
		}
		ld, _ := OpenLogDir(d)
		if len(ld.Segments) > 0 && rep.LastGoodOffset != rep.LogEndOffset-1 {
			t.Fatalf("%s: last good %d, log end %d", d, rep.LastGoodOffset, rep.LogEndOffset)
		}
		if ld.MetaProperties == nil || (len(ld.Segments) > 0 && (ld.QuorumState == nil || ld.PartitionMetadata == nil)) {
			t.Fatalf("%s: properties not read: %+v", d, ld)
		}
		if len(ld.Problems) != 0 {
			t.Fatalf("%s: %v", d, errors.Join(ld.Problems...))
		}
	}
}
