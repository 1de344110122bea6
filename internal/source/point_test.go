package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/zkread"
)

// TestWithPoint: a command's --at-offset/--at-zxid fit the source's kind,
// never contradict the source's own @, and never reach a source that holds
// one point (a dump) or several histories (zkdata:A,B).
func TestWithPoint(t *testing.T) {
	kraft := "kraft:" + kraftFixtureDir
	off := func(n int64) At { return At{Offset: n, HasOffset: true} }
	zxid := func(n int64) At { return At{Zxid: n, HasZxid: true} }
	for _, tc := range []struct {
		src  string
		at   At
		want string // "" = accepted
	}{
		{kraft, off(5), ""},
		{kraft + "@offset=5", off(5), ""},
		{kraft + "@offset=5", off(7), "names offset 5 and --at-offset 7"},
		{kraft + "@offset=0", off(0), ""},
		{kraft, zxid(5), "--at-zxid applies to ZooKeeper data dirs"},
		{"zkdata:" + zkFixtureDir, zxid(0x56), ""},
		{"zkdata:" + zkFixtureDir + "@zxid=0x56", zxid(0x57), "names zxid 0x56 and --at-zxid 0x57"},
		{"zkdata:" + zkFixtureDir, off(1), "--at-offset applies to KRaft sources"},
		{"zkdump:" + zkDumpFixture, zxid(5), "a dump holds one point in time"},
		{"zkdump:" + zkDumpFixture, zxid(0), "a dump holds one point in time"},
		{"zk://127.0.0.1:1/kafka", zxid(5), "a live ensemble is read as it is now"},
		{"zkdata:" + zkFixtureDir + "," + zkFixtureDir, zxid(1), "names one data dir's state"},
		{"kafka://b1:9092", off(5), "a live cluster is read as it is now; --at-offset applies"},
		{"kafka://b1:9092", zxid(5), "a live cluster is read as it is now; --at-zxid applies"},
	} {
		spec, err := Parse(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		got, err := spec.WithPoint(tc.at)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.src, tc.at, err)
		case tc.want == "" && got.At.String() != tc.at.String():
			t.Errorf("%s %v: point %v", tc.src, tc.at, got.At)
		case tc.want != "" && (!errors.Is(err, ErrPoint) || !errors.Is(err, ErrSource) || !strings.Contains(fmtErr(err), tc.want)):
			t.Errorf("%s %v: %v, want ErrPoint %q", tc.src, tc.at, err, tc.want)
		}
	}
	// @zxid=0 is a point, as @offset=0 is.
	for _, src := range []string{kraft + "@offset=0", "zkdata:" + zkFixtureDir + "@zxid=0"} {
		spec, err := Parse(src)
		if err != nil || (!spec.At.HasOffset && !spec.At.HasZxid) {
			t.Errorf("%s: %v %+v", src, err, spec.At)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestWithPoints: with two sources each flag applies to the side of its
// kind (verify), and a flag that fits neither side is refused.
func TestWithPoints(t *testing.T) {
	l, _ := Parse("zkdata:" + zkFixtureDir)
	r, _ := Parse("kraft:" + kraftFixtureDir)
	if err := WithPoints(At{Offset: 5, HasOffset: true, Zxid: 0x56, HasZxid: true}, &l, &r); err != nil {
		t.Fatal(err)
	}
	if !l.At.HasZxid || l.At.Zxid != 0x56 || l.At.HasOffset || !r.At.HasOffset || r.At.Offset != 5 || r.At.HasZxid {
		t.Errorf("points: zk %+v kraft %+v", l.At, r.At)
	}
	live, _ := Parse("kafka://b1:9092")
	z, _ := Parse("zkdata:" + zkFixtureDir)
	if err := WithPoints(At{Offset: 5, HasOffset: true}, &z, &live); !errors.Is(err, ErrPoint) || !strings.Contains(err.Error(), "a live cluster is read as it is now") {
		t.Errorf("--at-offset on a live source: %v", err)
	}
	a, _ := Parse("kraft:" + kraftFixtureDir)
	b, _ := Parse("kraft:" + kraftFixtureDir)
	if err := WithPoints(At{Zxid: 1, HasZxid: true}, &a, &b); !errors.Is(err, ErrPoint) {
		t.Errorf("--at-zxid on two KRaft sources: %v", err)
	}
}

// TestZxidPoints: a zxid past the data dir's last transaction is
// ErrPastEnd, never the end state; zxid 0 is the tree before any
// transaction (snapshot.0), not "everything".
func TestZxidPoints(t *testing.T) {
	read := func(src string) (*zkread.Tree, error) {
		spec, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		tr, _, err := ReadZKTree(context.Background(), spec, zkread.ReadOptions{Chroot: "/"})
		return tr, err
	}
	end, err := read("zkdata:" + zkFixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := read("zkdata:" + zkFixtureDir + "@zxid=" + hex(end.MaxZxid)); err != nil {
		t.Errorf("the last zxid: %v", err)
	}
	if _, err := read("zkdata:" + zkFixtureDir + "@zxid=" + hex(end.MaxZxid+1)); !errors.Is(err, ErrPastEnd) || !strings.Contains(err.Error(), "past the end of the data dir") {
		t.Errorf("past the end: %v", err)
	}
	zero, err := read("zkdata:" + zkFixtureDir + "@zxid=0")
	if err != nil {
		t.Fatal(err)
	}
	if zero.MaxZxid != 0 || zero.Len() >= end.Len() {
		t.Errorf("zxid 0: max zxid %#x, %d znodes (the end: %d)", zero.MaxZxid, zero.Len(), end.Len())
	}
}

func hex(n int64) string { return fmt.Sprintf("%#x", n) }

var (
	kraftFixtureDir = filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
	zkDumpFixture   = filepath.Join("..", "..", "testdata", "zk", "dump.json")
)

// TestAbsolute: the form a plan file records: paths absolute, the scheme
// and point in time kept, a live ensemble as it is.
func TestAbsolute(t *testing.T) {
	wd, _ := os.Getwd()
	for in, want := range map[string]string{
		"zkdata:a,b":            "zkdata:" + filepath.Join(wd, "a") + "," + filepath.Join(wd, "b"),
		"zkdata:a@zxid=5":       "zkdata:" + filepath.Join(wd, "a") + "@zxid=0x5",
		"zkdump:d.json":         "zkdump:" + filepath.Join(wd, "d.json"),
		"kraft:m@offset=3":      "kraft:" + filepath.Join(wd, "m") + "@offset=3",
		"zk://h1:2181,h2/kafka": "zk://h1:2181,h2:2181/kafka",
		kraftFixtureDir:         "kraft:" + filepath.Join(wd, kraftFixtureDir),
	} {
		spec, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := spec.Absolute(); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
}
