package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/zkread"
)

var zkFixtureDir = filepath.Join("..", "..", "testdata", "zk", "datadir")

// TestParseSeveralDataDirs: zkdata:A,B names several data dirs; a path
// holding a comma that exists stays one dir; a point in time is refused
// with several (it names one dir's state), and so is zk dump's raw tree.
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
	several, _ := Parse("zkdata:/a,/b")
	if _, _, err := ReadZKTree(context.Background(), several, zkread.ReadOptions{}); !errors.Is(err, ErrSource) {
		t.Fatalf("raw tree of several dirs: %v", err)
	}
}

// TestLoadSameDataDirTwice: two copies of one data dir (the committed
// fixture, written by a real ZooKeeper) are one history at one zxid: the
// first is used, neither diverged, and the image is the fixture's.
func TestLoadSameDataDirTwice(t *testing.T) {
	cp := copyTree(t, zkFixtureDir)
	spec, err := Parse("zkdata:" + zkFixtureDir + "," + cp)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Load(context.Background(), spec, Options{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Load(context.Background(), mustParse(t, "zkdata:"+zkFixtureDir), Options{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DataDirs) != 2 || !res.DataDirs[0].Used || res.DataDirs[1].Used || res.DataDirs[0].MaxZxid != one.Image.Provenance.Zxid ||
		res.DataDirs[0].Diverged != "" || res.DataDirs[1].Diverged != "" || len(res.Image.Topics) != len(one.Image.Topics) {
		t.Fatalf("%+v; topics %d, want %d", res.DataDirs, len(res.Image.Topics), len(one.Image.Topics))
	}
	// A dir that is not a data dir at all is an error, not a divergence.
	spec, _ = Parse("zkdata:" + zkFixtureDir + "," + t.TempDir())
	if _, err := Load(context.Background(), spec, Options{AtOffset: -1}); err == nil || errors.Is(err, ErrDataDirsDiverge) {
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
