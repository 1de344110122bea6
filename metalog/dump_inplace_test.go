package metalog

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestDumpJSONInPlaceMatches: the JSON lines written with record data
// transcoded in place are byte for byte those of the general path
// (transcode into a scratch buffer, then AppendJSONRecordLine), on every
// fixture directory and a synthesized segment, parallel and not, with
// secrets shown and redacted; and the in-place path does run.
func TestDumpJSONInPlaceMatches(t *testing.T) {
	defer func() { jsonInPlace = true }()
	dirs := map[string]bool{}
	for _, p := range fixtureFiles(t) {
		dirs[filepath.Dir(p)] = true
	}
	synth := t.TempDir()
	synthSegment(t, synth, 1<<20)
	dirs[synth] = true
	dump := func(dir string, show bool) []byte {
		d, err := OpenLogDir(dir)
		must(t, err)
		var out bytes.Buffer
		must(t, NewDumper(&out, DumpOptions{Format: DumpJSON, ShowSecrets: show, Filter: DumpFilter{To: -1}}).DumpDir(d))
		return out.Bytes()
	}
	for _, par := range []bool{false, true} {
		if par {
			forceParallel(t)
		}
		for dir := range dirs {
			for _, show := range []bool{false, true} {
				jsonInPlace = true
				got := dump(dir, show)
				jsonInPlace = false
				want := dump(dir, show)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s (secrets shown %v, parallel %v): in-place JSON lines differ\n got %.2000s\nwant %.2000s", dir, show, par, got, want)
				}
			}
		}
	}
	// Not vacuous: a synthesized record goes the in-place way.
	rd, err := OpenReader(filepath.Join(synth, SegmentFileName(0)), ReaderOptions{})
	must(t, err)
	defer rd.Close()
	b, err := rd.Next()
	must(t, err)
	it := b.Records()
	if !it.Next() {
		t.Fatal(it.Err())
	}
	d := &Dumper{opts: DumpOptions{Format: DumpJSON, ShowSecrets: true}}
	if !d.jsonRecordInPlace(DataFile{Path: "x"}, b, it.Record()) || !bytes.HasPrefix(d.buf, []byte(`{"kind":"record","file":"x","offset":0,`)) {
		t.Fatalf("in-place path not taken: %q", d.buf)
	}
}
