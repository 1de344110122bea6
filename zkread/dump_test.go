package zkread

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/model"
)

var update = flag.Bool("update", false, "rewrite testdata/zk/dump.json from the fixture data dir")

const fixtureDump = fixtureDir + "/dump.json"

// TestFixtureDump: the committed dump of the fixture reads back as the same
// tree as the data dir, and writing the data dir's tree reproduces it byte
// for byte.
func TestFixtureDump(t *testing.T) {
	tree, _ := fixtureImage(t)
	tree.Source = "zkdata:testdata/zk/datadir"
	var buf bytes.Buffer
	if err := WriteDump(&buf, tree); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(fixtureDump, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(fixtureDump)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, buf.Bytes()) {
		t.Errorf("dump of the data dir differs from %s (run go test -run TestFixtureDump -update)", fixtureDump)
	}
	back, err := ReadDumpFile(fixtureDump, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tree.Map(), back.Map()); d != "" {
		t.Errorf("dump round trip differs:\n%s", d)
	}
	if back.MaxZxid != tree.MaxZxid || back.Chroot != fixtureChroot {
		t.Errorf("zxid %d chroot %q", back.MaxZxid, back.Chroot)
	}
	// Null and empty data stay distinct. The fixture holds null znodes
	// (Kafka writes null on containers) but no empty ones, so the
	// synthetic tree below covers empty data.
	nulls := func(tr *Tree) (n int) {
		for _, nd := range tr.Map() {
			if nd.Data == nil {
				n++
			}
		}
		return n
	}
	if nb, nt := nulls(back), nulls(tree); nb == 0 || nb != nt {
		t.Errorf("%d null znodes read back, %d in the data dir", nb, nt)
	}
	syn := NewTree()
	syn.nodes["/"] = &Node{Children: []string{"e", "n"}, Stat: Stat{NumChildren: 2}}
	syn.nodes["/e"] = &Node{Data: []byte{}, Children: []string{}}
	syn.nodes["/n"] = &Node{Children: []string{}}
	var sb bytes.Buffer
	if err := WriteDump(&sb, syn); err != nil {
		t.Fatal(err)
	}
	sback, err := ReadDump(&sb, "syn", 0)
	if err != nil {
		t.Fatal(err)
	}
	if sback.Get("/e").Data == nil || sback.Get("/n").Data != nil {
		t.Errorf("null/empty not kept: %q %q", sback.Get("/e").Data, sback.Get("/n").Data)
	}
	img1, err := Decode(tree, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img2, err := Decode(back, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img1.Provenance.Source, img2.Provenance.Source = "", ""
	if d := cmp.Diff(img1, img2); d != "" {
		t.Errorf("image from dump differs:\n%s", d)
	}
}

func TestReadDumpErrors(t *testing.T) {
	cases := map[string]string{
		"not json":      "{",
		"wrong format":  `{"format":"x","version":1}`,
		"wrong version": `{"format":"kmeta-zk-dump","version":9}`,
		"no root":       `{"format":"kmeta-zk-dump","version":1,"znodes":[{"path":"/a","stat":{},"data":null}]}`,
		"orphan":        `{"format":"kmeta-zk-dump","version":1,"znodes":[{"path":"/","stat":{},"data":null},{"path":"/a/b","stat":{},"data":null}]}`,
		"bad base64":    `{"format":"kmeta-zk-dump","version":1,"znodes":[{"path":"/","stat":{},"data":"!!"}]}`,
		"bad path":      `{"format":"kmeta-zk-dump","version":1,"znodes":[{"path":"a//b","stat":{},"data":null}]}`,
	}
	for name, doc := range cases {
		if _, err := ReadDump(strings.NewReader(doc), name, 0); !errors.Is(err, ErrDump) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestWriteDumpFileRefusesOverwrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.json")
	tr := NewTree()
	tr.nodes["/"] = &Node{}
	if err := WriteDumpFile(p, tr, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteDumpFile(p, tr, false); err == nil {
		t.Error("overwrote without being told")
	}
	if err := WriteDumpFile(p, tr, true); err != nil {
		t.Error(err)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("left temp files: %v", ents)
	}
}

func TestParseSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	os.WriteFile(file, []byte("{}"), 0o644)
	cases := []struct {
		in      string
		access  Access
		servers []string
		chroot  string
		path    string
	}{
		{"zk://h1:2181,h2:2182/kafka/prod", AccessLive, []string{"h1:2181", "h2:2182"}, "/kafka/prod", ""},
		{"zk://h1", AccessLive, []string{"h1:2181"}, "", ""},
		{"zk://[::1]:2181/k", AccessLive, []string{"[::1]:2181"}, "/k", ""},
		{"zkdata:/var/lib/zk", AccessDataDir, nil, "", "/var/lib/zk"},
		{"zkdump:x.json", AccessDump, nil, "", "x.json"},
	}
	for _, c := range cases {
		s, err := ParseSource(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if s.Access != c.access || !slices.Equal(s.Servers, c.servers) || s.Chroot != c.chroot || s.Path != c.path {
			t.Errorf("%s: %+v", c.in, s)
		}
	}
	for _, bad := range []string{"kraft://x", "zk://h1:2181//x", "zk://h 1", "zkdata:", "no such path/!", "h1:2181/kafka", dir, file} {
		if _, err := ParseSource(bad); !errors.Is(err, ErrSource) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestSourceDetectsChroot: a data dir read without a chroot finds Kafka's.
func TestSourceDetectsChroot(t *testing.T) {
	src, err := ParseSource("zkdata:" + filepath.Join(fixtureDir, "datadir"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := src.ReadTree(context.Background(), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fixtureImage(t)
	if got.Chroot != fixtureChroot || !cmp.Equal(want.Map(), got.Map()) {
		t.Errorf("chroot %q, %d nodes (want %d)", got.Chroot, got.Len(), want.Len())
	}
	if _, err := ReadDataDir(filepath.Join(fixtureDir, "datadir"), DataDirOptions{Chroot: "/nope"}); !errors.Is(err, ErrNoNode) {
		t.Errorf("missing chroot: %v", err)
	}
}

var generate = flag.Bool("zk-generate", false, "regenerate testdata/zk with real ZooKeeper and Kafka 3.9.2 (generate.sh), then rewrite dump.json")

// TestDumpRefusesSilentEdits: edits of a dump that would change the
// answer without a word (a missing or null maxZxid or chroot, a znode
// without its stat, data its stat disagrees with, a NUL in a path) are
// refused naming the offset, as the mutation campaign found them accepted.
func TestDumpRefusesSilentEdits(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(fixtureDir, "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDump(bytes.NewReader(orig), "dump.json", 0); err != nil {
		t.Fatalf("the fixture itself: %v", err)
	}
	for _, tc := range []struct{ name, from, to string }{
		{"null maxZxid", `"maxZxid": 268`, `"maxZxid": null`},
		{"no maxZxid", `"maxZxid": 268,`, ``},
		{"null chroot", `"chroot": "/kafka/prod"`, `"chroot": null`},
		{"NUL in a path", `"path": "/feature"`, `"path": "/feature\u0000x"`},
		{"no stat", `"path": "/feature",`, `"path": "/feature", "x":`},
	} {
		s := string(orig)
		if !strings.Contains(s, tc.from) {
			t.Fatalf("%s: the fixture has no %q", tc.name, tc.from)
		}
		s = strings.Replace(s, tc.from, tc.to, 1)
		if tc.name == "no stat" {
			// Drop the stat object that follows the path.
			i := strings.Index(s, `"x":`)
			j := strings.Index(s[i:], "},") + i
			s = s[:i] + s[j+2:]
		}
		_, err := ReadDump(strings.NewReader(s), "dump.json", 0)
		if !errors.Is(err, ErrDump) || !strings.Contains(err.Error(), "offset ") {
			t.Errorf("%s: err %v, want ErrDump naming an offset", tc.name, err)
		}
	}
	// Data the stat disagrees with.
	var doc map[string]any
	if err := json.Unmarshal(orig, &doc); err != nil {
		t.Fatal(err)
	}
	for _, z := range doc["znodes"].([]any) {
		zn := z.(map[string]any)
		if zn["data"] != nil && zn["data"] != "" {
			zn["data"] = ""
			break
		}
	}
	b, _ := json.Marshal(doc)
	if _, err := ReadDump(bytes.NewReader(b), "dump.json", 0); !errors.Is(err, ErrDump) || !strings.Contains(err.Error(), "dataLength") {
		t.Errorf("data emptied under its stat: err %v", err)
	}
}

// TestDumpRefusesSilentEditsStat: the second round the campaign found: a
// stat field null, a maxZxid below the znodes' zxids, bytes that are not
// UTF-8 (encoding/json would read them as U+FFFD).
func TestDumpRefusesSilentEditsStat(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(fixtureDir, "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"null czxid", `"czxid": 165`, `"czxid": null`, "stat.czxid"},
		{"maxZxid below the znodes", `"maxZxid": 268`, `"maxZxid": 2`, "above the dump's maxZxid"},
		{"not UTF-8", `"path": "/feature"`, "\"path\": \"/fe\x80ture\"", "not UTF-8"},
	} {
		s := string(orig)
		if !strings.Contains(s, tc.from) {
			t.Fatalf("%s: the fixture has no %q", tc.name, tc.from)
		}
		_, err := ReadDump(strings.NewReader(strings.Replace(s, tc.from, tc.to, 1)), "dump.json", 0)
		if !errors.Is(err, ErrDump) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "offset ") {
			t.Errorf("%s: err %v, want ErrDump naming %q and an offset", tc.name, err, tc.want)
		}
	}
	// Multi-byte UTF-8 split across reads is fine.
	if _, err := ReadDump(iotest.OneByteReader(strings.NewReader(strings.Replace(string(orig), `"source": "`, `"source": "é€😀`, 1))), "dump.json", 0); err != nil {
		t.Errorf("multi-byte UTF-8 read a byte at a time: %v", err)
	}
}

// TestDumpZnodeLargerThanMaxBuffer: a dump holds znodes to the limit a
// data dir read does (jute.maxbuffer plus its extra size): a larger one is
// refused with its path and size, before its data is decoded, and the
// same MaxBuffer that lets a data dir hold it lets the dump through.
func TestDumpZnodeLargerThanMaxBuffer(t *testing.T) {
	tree, _ := fixtureImage(t)
	n := tree.Get("/cluster/id")
	if n == nil {
		t.Fatal("fixture has no /cluster/id")
	}
	n.Data = bytes.Repeat([]byte("x"), 3<<20)
	n.Stat.DataLength = int32(len(n.Data))
	tree.Set("/cluster/id", n)
	var buf bytes.Buffer
	if err := WriteDump(&buf, tree); err != nil {
		t.Fatal(err)
	}
	_, err := ReadDump(bytes.NewReader(buf.Bytes()), "big.json", 0)
	if !errors.Is(err, ErrDump) || !strings.Contains(err.Error(), "znode /cluster/id: 3145728 bytes of data") {
		t.Fatalf("err = %v", err)
	}
	back, err := ReadDump(bytes.NewReader(buf.Bytes()), "big.json", 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Get("/cluster/id").Data) != 3<<20 {
		t.Error("data lost")
	}
}

// editDump is the committed dump with the znodes at drop deleted and the
// header keys in set replaced, as a hand or a tool would edit it (numbers
// kept exactly).
func editDump(t *testing.T, drop []string, set map[string]any) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtureDump)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var d map[string]any
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	zs := d["znodes"].([]any)
	d["znodes"] = slices.DeleteFunc(zs, func(z any) bool { return slices.Contains(drop, z.(map[string]any)["path"].(string)) })
	if n := len(zs) - len(d["znodes"].([]any)); n != len(drop) {
		t.Fatalf("deleted %d znodes of %v", n, drop)
	}
	for k, v := range set {
		d[k] = v
	}
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDumpChildrenDisagreeWithStat: a znode's stat counts its children
// (numChildren, the stat ZooKeeper returned); a dump whose znodes are
// fewer (or more) than its stats count was edited or damaged, and is
// refused naming the znode and both counts, as a data length that
// disagrees with dataLength is: a deleted config znode would silently
// drop a topic's configs, a deleted partition state znode change its
// leader and ISR. Every committed dump reads. A dump whose warnings say
// its live read saw the tree change (which explains such a disagreement,
// and makes its answer partial) still reads.
func TestDumpChildrenDisagreeWithStat(t *testing.T) {
	refused := map[string]struct {
		drop []string
		set  map[string]any
		want string
	}{
		"config znode": {drop: []string{"/config/topics/orders.v1"},
			want: "znode /config/topics: 3 child(ren) in the dump, its stat says numChildren 4"},
		"partition state": {drop: []string{"/brokers/topics/orders.v1/partitions/1/state"},
			want: "znode /brokers/topics/orders.v1/partitions/1: 0 child(ren) in the dump, its stat says numChildren 1"},
		// Warnings that are not about the tree changing explain nothing.
		"other warnings": {drop: []string{"/config/topics/orders.v1"},
			set: map[string]any{"warnings": []string{"chroot /kafka/prod detected"},
				"findings": []model.Finding{model.Warning(model.WarnChrootDetected, nil, "chroot /kafka/prod detected")}},
			want: "znode /config/topics: 3 child(ren) in the dump, its stat says numChildren 4"},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := ReadDump(bytes.NewReader(editDump(t, c.drop, c.set)), "edited.json", 0)
			if want := "zkread: bad dump file: edited.json: " + c.want; !errors.Is(err, ErrDump) || err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
		})
	}
	changed := map[string]map[string]any{
		"changed":               {"changed": true},
		"tree-changed finding":  {"warnings": []string{"znode /config/topics/orders.v1 disappeared while reading"}, "findings": []model.Finding{model.Warning(model.WarnTreeChanged, nil, "znode /config/topics/orders.v1 disappeared while reading")}},
		"before typed findings": {"warnings": []string{"znode /config/topics/orders.v1 disappeared while reading"}},
	}
	for name, set := range changed {
		t.Run(name, func(t *testing.T) {
			tr, err := ReadDump(bytes.NewReader(editDump(t, []string{"/config/topics/orders.v1"}, set)), "edited.json", 0)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := set["warnings"].([]string)
			if tr.Get("/config/topics/orders.v1") != nil || !slices.Equal(tr.Warnings, want) || tr.Changed != (set["changed"] == true) {
				t.Errorf("read back %v, warnings %q, changed %v", tr.Get("/config/topics/orders.v1"), tr.Warnings, tr.Changed)
			}
		})
	}
	dumps, _ := filepath.Glob(fixtureDir + "/migration/*.dump.json")
	for _, p := range append(dumps, fixtureDump) {
		if _, err := ReadDumpFile(p, 0); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if len(dumps) == 0 {
		t.Error("no dump under testdata/zk/migration")
	}
}
