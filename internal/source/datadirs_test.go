package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/zkread"
)

var zkFixtureDir = filepath.Join("..", "..", "testdata", "zk", "datadir")

// TestParseSeveralDataDirs: zkdata:A,B names several data dirs; a path
// holding a comma that exists stays one dir; a point in time is refused
// with several (it names one dir's state).
func TestParseSeveralDataDirs(t *testing.T) {
	s, err := Parse("zkdata:/a, /b ,/c")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.DataDirs, "|") != "/a|/b|/c" || s.ZK.Path != "/a" || s.String() != "zkdata:/a,/b,/c" {
		t.Fatalf("spec %+v (%s)", s, s)
	}
	comma := filepath.Join(t.TempDir(), "zk,1")
	if err := os.MkdirAll(comma, 0o755); err != nil {
		t.Fatal(err)
	}
	if s, err := Parse("zkdata:" + comma); err != nil || s.DataDirs != nil || s.ZK.Path != comma {
		t.Fatalf("existing path with a comma: %+v %v", s, err)
	}
	if _, err := Parse("zkdata:/a,/b@zxid=5"); !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), "one data dir") {
		t.Fatalf("@zxid with several dirs: %v", err)
	}
}

// TestReadZKTreeSeveralDataDirs: zk dump of zkdata:A,B is the newest dir's
// raw tree once the others are shown to be prefixes of its history, as
// for every other command (README "Sources"); dirs that cannot be read
// are an error.
func TestReadZKTreeSeveralDataDirs(t *testing.T) {
	one, _, err := ReadZKTree(context.Background(), mustParse(t, "zkdata:"+zkFixtureDir), zkread.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	two, _, err := ReadZKTree(context.Background(), mustParse(t, "zkdata:"+zkFixtureDir+","+fstree.Copy(t, zkFixtureDir)), zkread.ReadOptions{})
	if err != nil || two.MaxZxid != one.MaxZxid || two.Len() != one.Len() {
		t.Fatalf("two copies: %v; %d znodes at %#x, want %d at %#x", err, two.Len(), two.MaxZxid, one.Len(), one.MaxZxid)
	}
	several, _ := Parse("zkdata:/a,/b")
	if _, _, err := ReadZKTree(context.Background(), several, zkread.ReadOptions{}); err == nil {
		t.Fatal("raw tree of two missing dirs: no error")
	}
}

// TestLoadSameDataDirTwice: two copies of one data dir (the committed
// fixture, written by a real ZooKeeper) are one history at one zxid: the
// first is used, neither diverged, and the image is the fixture's.
func TestLoadSameDataDirTwice(t *testing.T) {
	cp := fstree.Copy(t, zkFixtureDir)
	spec, err := Parse("zkdata:" + zkFixtureDir + "," + cp)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Load(context.Background(), spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Load(context.Background(), mustParse(t, "zkdata:"+zkFixtureDir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DataDirs) != 2 || !res.DataDirs[0].Used || res.DataDirs[1].Used || res.DataDirs[0].MaxZxid != one.Image.Provenance.Zxid ||
		res.DataDirs[0].Diverged != "" || res.DataDirs[1].Diverged != "" || len(res.Image.Topics) != len(one.Image.Topics) {
		t.Fatalf("%+v; topics %d, want %d", res.DataDirs, len(res.Image.Topics), len(one.Image.Topics))
	}
	// A dir that is not a data dir at all is an error, not a divergence.
	spec, _ = Parse("zkdata:" + zkFixtureDir + "," + t.TempDir())
	if _, err := Load(context.Background(), spec, Options{}); err == nil || errors.Is(err, ErrDataDirsDiverge) {
		t.Fatalf("an empty dir among the data dirs: %v", err)
	}
}

func mustParse(t *testing.T, s string) Spec {
	t.Helper()
	sp, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestLoadDataDirsProgress: several data dirs make one progress bar, as
// TestReadDirProgress (zkfile) checks for one dir: done never goes back
// (no restart per dir), never passes the total, and ends at done ==
// total, the bytes of every read Load makes: each dir's newest snapshot
// and logs, then the newest dir again as of the older one's zxid. The
// older dir is the fixture without its last snapshot and log (a prefix
// of its history). Before one bar, several dirs reported nothing.
func TestLoadDataDirsProgress(t *testing.T) {
	newer := fstree.Copy(t, zkFixtureDir)
	older := fstree.Copy(t, zkFixtureDir)
	for _, f := range []string{"snapshot.10c", "log.ea"} {
		if err := os.Remove(filepath.Join(older, "version-2", f)); err != nil {
			t.Fatal(err)
		}
	}
	size := func(dir string, files ...string) int64 {
		var n int64
		for _, f := range files {
			st, err := os.Stat(filepath.Join(dir, "version-2", f))
			if err != nil {
				t.Fatal(err)
			}
			n += st.Size()
		}
		return n
	}
	logs := []string{"log.1", "log.58", "log.98"}
	want := size(newer, append(logs, "log.ea", "snapshot.10c")...) + // the newest
		size(older, append(logs, "snapshot.e8")...) + // the older
		size(newer, append(logs, "log.ea", "snapshot.e8")...) // the newest as of the older's zxid (0xe9)

	var calls [][2]int64
	spec := mustParse(t, "zkdata:"+older+","+newer)
	res, err := Load(context.Background(), spec, Options{Progress: func(done, total int64) { calls = append(calls, [2]int64{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DataDirs) != 2 || !res.DataDirs[1].Used || res.DataDirs[0].MaxZxid != 0xe9 || res.DataDirs[0].Diverged != "" {
		t.Fatalf("dirs %+v", res.DataDirs)
	}
	if len(calls) < 3 {
		t.Fatalf("%d progress calls for three reads: %v", len(calls), calls)
	}
	for i, c := range calls {
		if c[0] > c[1] || (i > 0 && c[0] < calls[i-1][0]) {
			t.Fatalf("call %d: %d of %d after %v (all: %v)", i, c[0], c[1], calls[max(i-1, 0)], calls)
		}
	}
	if last := calls[len(calls)-1]; last != [2]int64{want, want} {
		t.Fatalf("last call %v, want done = total = %d (all: %v)", last, want, calls)
	}
	// Without a callback nothing changes.
	plain, err := Load(context.Background(), spec, Options{})
	if err != nil || len(plain.Image.Topics) != len(res.Image.Topics) || plain.DataDirs[0] != res.DataDirs[0] {
		t.Fatalf("without progress: %v %+v", err, plain.DataDirs)
	}
}
