package metalog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/metalog/records"
)

// TestRecordsRoundTripRealFixtures: every record Kafka wrote into the
// committed fixtures (3.9.2 and 4.4.0 logs, snapshots, bootstrap files)
// decodes and re-encodes to the very same bytes, data and control records
// alike. migrate relies on this: what kmeta writes is what Kafka writes.
func TestRecordsRoundTripRealFixtures(t *testing.T) {
	var files []string
	filepath.WalkDir(filepath.Join("..", "testdata", "kraft"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".log") || strings.HasSuffix(p, ".checkpoint")) && strings.Contains(p, "metadata") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	byType := map[string]int{}
	for _, f := range files {
		r, err := OpenReader(f, ReaderOptions{})
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
			it := b.Records()
			for it.Next() {
				rec := it.Record()
				var got []byte
				var name string
				if b.IsControl() {
					_, c, err := records.DecodeControl(rec.Key, rec.Value)
					if err != nil {
						t.Fatalf("%s offset %d: %v", f, rec.Offset, err)
					}
					got, err = records.EncodeControl(nil, c)
					if err != nil {
						t.Fatal(err)
					}
					name = c.RecordName()
				} else {
					fr, m, err := records.DecodeMetadata(rec.Value)
					if err != nil {
						t.Fatalf("%s offset %d: %v", f, rec.Offset, err)
					}
					got, err = records.EncodeMetadata(nil, m, fr.Version)
					if err != nil {
						t.Fatal(err)
					}
					name = m.RecordName()
				}
				if !bytes.Equal(got, rec.Value) {
					t.Errorf("%s offset %d %s: re-encoded\n %x\nKafka wrote\n %x", f, rec.Offset, name, got, rec.Value)
				}
				byType[name]++
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
	}
	if len(byType) < 20 {
		t.Errorf("only %d record types in the fixtures: %v", len(byType), byType)
	}
	t.Logf("%d files, record types round-tripped: %v", len(files), byType)
}
