package metalog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/metalog/records"
)

// TestParseRecordType: Kafka's MetadataRecordType names and the schema
// names, in any case, and apiKeys; anything else is refused.
func TestParseRecordType(t *testing.T) {
	for _, s := range []string{"TOPIC_RECORD", "TopicRecord", "topicrecord", "topic_record", "2", " 2 "} {
		if k, err := ParseRecordType(s); err != nil || k != 2 {
			t.Errorf("%q: %d %v", s, k, err)
		}
	}
	if k, err := ParseRecordType("ZK_MIGRATION_STATE_RECORD"); err != nil || k != 21 {
		t.Errorf("ZK_MIGRATION_STATE_RECORD: %d %v", k, err)
	}
	for _, s := range []string{"TOPIC", "NoSuchRecord", "-1", ""} {
		if _, err := ParseRecordType(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestDumperVerdict: the dumper tells a torn tail of the active segment
// (what a crash leaves) from damage, and counts undecodable records.
func TestDumperVerdict(t *testing.T) {
	fixture := filepath.Join("..", "testdata", "kraft", "4.4.0", "metadata")
	dump := func(path string) *Dumper {
		d, err := OpenLogDir(path)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		dm := NewDumper(&out, DumpOptions{})
		if err := dm.DumpDir(d); err != nil {
			t.Fatal(err)
		}
		if out.Len() == 0 {
			t.Fatal("nothing printed")
		}
		return dm
	}
	if dm := dump(fixture); dm.Damage() != nil {
		t.Errorf("clean fixture: damage %v", dm.Damage())
	} else if n, _ := dm.Problems(); n != 0 {
		t.Errorf("clean fixture: %d problems", n)
	}

	tmp := t.TempDir()
	for _, name := range []string{"00000000000000000000.log", "00000000000000000086.log"} {
		b, err := os.ReadFile(filepath.Join(fixture, "__cluster_metadata-0", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(tmp, name), b, 0o644)
	}
	active := filepath.Join(tmp, "00000000000000000086.log")
	b, _ := os.ReadFile(active)
	os.WriteFile(active, b[:len(b)-7], 0o644)
	dm := dump(tmp)
	if dmg := dm.Damage(); dmg != nil || len(dm.TornTails()) != 1 || !dm.TornTails()[0].Active {
		t.Errorf("torn active segment: damage %v, torn %+v", dmg, dm.TornTails())
	} else if tt := dm.TornTails()[0]; tt.Bytes <= 0 || !strings.Contains(tt.String(), "never committed") {
		t.Errorf("torn tail says nothing of what was lost: %s", tt)
	}

	first := filepath.Join(tmp, "00000000000000000000.log")
	b, _ = os.ReadFile(first)
	os.WriteFile(first, b[:len(b)-7], 0o644)
	os.Remove(active)
	seg2 := filepath.Join(tmp, "00000000000000000999.log")
	good, _ := os.ReadFile(filepath.Join(fixture, "__cluster_metadata-0", "00000000000000000086.log"))
	os.WriteFile(seg2, good, 0o644)
	dm = dump(tmp)
	if dmg := dm.Damage(); dmg == nil || dmg.Code != KindTornTail || len(dm.TornTails()) != 1 || dm.TornTails()[0].Active {
		t.Errorf("torn tail of a segment that is not the last: damage %v, torn %+v", dmg, dm.TornTails())
	}

	// An undecodable record is a problem, and the text still says where.
	dir := t.TempDir()
	rec, _ := records.EncodeMetadata(nil, &records.TopicRecord{Name: "a"}, 0)
	w, err := CreateSegment(dir, 0, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.AppendData(1, 1700000000000, [][]byte{rec[:len(rec)-5]})
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	d, _ := OpenLogDir(dir)
	var out bytes.Buffer
	dm = NewDumper(&out, DumpOptions{})
	if err := dm.DumpDir(d); err != nil {
		t.Fatal(err)
	}
	if n, first := dm.Problems(); n != 1 || first == nil || !strings.Contains(out.String(), "payload: Error at 0, skipping.") {
		t.Errorf("undecodable record: %d %v\n%s", n, first, out.String())
	}
}
