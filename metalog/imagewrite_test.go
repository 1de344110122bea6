package metalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/metalog/records"
)

// snapRecord is one record of a snapshot file as the comparison sees it.
type snapRecord struct {
	control bool
	typ     int16 // apiKey, or the control type
	value   []byte
}

func readSnapshotRecords(t *testing.T, path string) []snapRecord {
	t.Helper()
	r, err := OpenReader(path, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []snapRecord
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		it := b.Records()
		for it.Next() {
			rec := it.Record()
			sr := snapRecord{control: b.IsControl(), value: bytes.Clone(rec.Value)}
			if sr.control {
				k, err := records.ParseControlKey(rec.Key)
				if err != nil {
					t.Fatal(err)
				}
				sr.typ = int16(k.Type)
			} else {
				f, err := records.ParseFrame(rec.Value)
				if err != nil {
					t.Fatal(err)
				}
				sr.typ = f.APIKey
			}
			out = append(out, sr)
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// sections splits data records into runs of one type, each run's values
// sorted: Kafka writes a section in its hash maps' order, and a reader
// applies a section's records in any order to the same image, so the
// comparison is the sequence of sections and, within each, the multiset
// of record bytes (version included, as the frame holds it).
func sections(recs []snapRecord) (types []int16, runs [][]string) {
	const topic, partition = 2, 3
	for _, r := range recs {
		if r.control {
			continue
		}
		typ := r.typ
		if typ == partition {
			// A topic and its partitions are one element of the topics
			// section: Kafka writes topics in topic-id hash order, each
			// followed by its partitions.
			typ = topic
		}
		if len(types) == 0 || types[len(types)-1] != typ {
			types = append(types, typ)
			runs = append(runs, nil)
		}
		run := &runs[len(runs)-1]
		if r.typ == partition {
			(*run)[len(*run)-1] += "\x00|partition|\x00" + string(r.value)
			continue
		}
		*run = append(*run, string(r.value))
	}
	for _, run := range runs {
		slices.Sort(run)
	}
	return types, runs
}

func describe(v string) string {
	if parts := strings.Split(v, "\x00|partition|\x00"); len(parts) > 1 {
		var out []string
		for _, p := range parts {
			out = append(out, describe(p))
		}
		return strings.Join(out, "\n  ")
	}
	_, m, err := records.DecodeMetadata([]byte(v))
	if err != nil {
		return fmt.Sprintf("undecodable %x", v)
	}
	f, _ := records.ParseFrame([]byte(v))
	return fmt.Sprintf("%s v%d %s", m.RecordName(), f.Version, records.PayloadJSON(m, f.Version))
}

// TestImageSnapshotMatchesKafka replays a snapshot a real controller took
// (the committed fixtures of Kafka 4.4.0 and 3.9.2), writes kmeta's
// snapshot of that image with the record versions features chooses for
// its metadata.version, and compares the two record by record: the header
// batch's control records (KRaftVersion and Voters for a dynamic quorum)
// byte for byte, the sequence of sections (MetadataImage.write's order),
// and within each section the record bytes as a multiset (Kafka's order
// there is its hash maps').
func TestImageSnapshotMatchesKafka(t *testing.T) {
	for _, snap := range []string{
		"../testdata/kraft/4.4.0/metadata/__cluster_metadata-0/00000000000000000099-0000000001.checkpoint",
		"../testdata/kraft/3.9.2/metadata/__cluster_metadata-0/00000000000000000090-0000000001.checkpoint",
	} {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(snap)))), func(t *testing.T) {
			res, err := LoadImage(snap, ImageOptions{AtOffset: -1})
			if err != nil {
				t.Fatal(err)
			}
			img := res.Image
			if img.IsPartial() {
				t.Fatalf("fixture replay is partial: %v", img.Warnings)
			}
			id, err := ParseSnapshotName(filepath.Base(snap))
			if err != nil {
				t.Fatal(err)
			}
			cat, _ := features.CatalogForImage(img)
			mv := img.MetadataVersion()
			var hdr []ControlRecord
			if q := img.Quorum; q != nil && q.KRaftVersion >= 1 {
				if hdr, err = VotersControlRecords(q.Voters); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(t.TempDir(), id.FileName())
			n, err := WriteImageSnapshot(out, img, func(k int16) (int16, bool) { return cat.RecordVersion(mv, k) },
				SnapshotOptions{Epoch: id.Epoch, HeaderRecords: hdr})
			if err != nil {
				t.Fatal(err)
			}
			want, got := readSnapshotRecords(t, snap), readSnapshotRecords(t, out)

			// Header batch: SnapshotHeader (its timestamp differs), then the
			// quorum's control records byte for byte; the footer last.
			ctl := func(rs []snapRecord) (types []int16, vals []string) {
				for _, r := range rs {
					if r.control {
						types = append(types, r.typ)
						if r.typ != int16(ControlSnapshotHeader) {
							vals = append(vals, string(r.value))
						}
					}
				}
				return
			}
			wt, wv := ctl(want)
			gt, gv := ctl(got)
			if !slices.Equal(wt, gt) || !slices.Equal(wv, gv) {
				t.Errorf("control records: kafka %v %x, kmeta %v %x", wt, wv, gt, gv)
			}

			wTypes, wRuns := sections(want)
			gTypes, gRuns := sections(got)
			if !slices.Equal(wTypes, gTypes) {
				t.Fatalf("sections: kafka %v, kmeta %v", wTypes, gTypes)
			}
			total := 0
			for _, r := range want {
				if !r.control {
					total++
				}
			}
			for i := range wRuns {
				if slices.Equal(wRuns[i], gRuns[i]) {
					continue
				}
				var diff []string
				for _, v := range wRuns[i] {
					if !slices.Contains(gRuns[i], v) {
						diff = append(diff, "kafka only: "+describe(v))
					}
				}
				for _, v := range gRuns[i] {
					if !slices.Contains(wRuns[i], v) {
						diff = append(diff, "kmeta only: "+describe(v))
					}
				}
				t.Errorf("section %d (%s): %d records from kafka, %d from kmeta\n%s", i, features.RecordName(wTypes[i]),
					len(wRuns[i]), len(gRuns[i]), strings.Join(diff, "\n"))
			}
			if int64(total) != n {
				t.Errorf("kmeta wrote %d records, kafka's snapshot holds %d", n, total)
			}
			t.Logf("%d data records in %d sections %v match", total, len(wTypes), wTypes)
		})
	}
}
