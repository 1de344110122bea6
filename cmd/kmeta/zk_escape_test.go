package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/zkread"
)

// TestZKErrorsEscapeControlCharacters: znode names and config keys come
// from the data; a crafted or corrupted tree must not drive the terminal
// through the error messages either.
func TestZKErrorsEscapeControlCharacters(t *testing.T) {
	const esc = "\x1b[2J"
	cases := map[string]string{
		"/brokers/topics/evil" + esc: `{"partitions":`,
		"/config/clients/c":          `{"version":1,"config":{"rate\u001b[2J":"fast"}}`,
	}
	for path, data := range cases {
		tr, err := zkread.ReadDataDir(filepath.Join(zkFixture, "datadir"), zkread.DataDirOptions{Chroot: "/kafka/prod"})
		if err != nil {
			t.Fatal(err)
		}
		parent := path[:strings.LastIndexByte(path, '/')]
		tr.Set(path, &zkread.Node{Data: []byte(data)})
		pn := tr.Get(parent)
		pn.Children = append(pn.Children, path[len(parent)+1:])
		tr.Set(parent, pn)
		file := filepath.Join(t.TempDir(), "d.json")
		if err := zkread.WriteDumpFile(file, tr, false); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"zk", "image", "zkdump:" + file}, {"zk", "image", "-v", "--lenient", "zkdump:" + file}} {
			code, stdout, stderr := runKmeta(t, args...)
			if code == exitOK && !strings.Contains(strings.Join(args, " "), "lenient") {
				t.Errorf("%q: exit 0 for a malformed znode", path)
			}
			if strings.Contains(stderr, "\x1b") || strings.Contains(stdout, "\x1b") {
				t.Errorf("%v with %q: output holds ESC:\nstderr: %q", args, path, stderr)
			}
		}
	}
}

// zk dump keeps secrets out unless --show-secrets, and a redacted dump
// still reads back as a source (credentials without their keys).
func TestZKDumpRedactsUnlessAsked(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "zk", "datadir")
	r := kmeta("zk", "dump", src)
	if r.code != 0 || strings.Contains(r.stdout, "stored_key=") || !strings.Contains(r.stdout, "[redacted sha256:") {
		t.Fatalf("redacted dump: exit %d, stored_key present: %v", r.code, strings.Contains(r.stdout, "stored_key="))
	}
	if r := kmeta("zk", "dump", "--show-secrets", src); r.code != 0 || !strings.Contains(r.stdout, "stored_key=") {
		t.Fatalf("--show-secrets dump lacks the credentials: exit %d", r.code)
	}
	dump := filepath.Join(t.TempDir(), "d.json")
	if r := kmeta("zk", "dump", "--out", dump, src); r.code != 0 {
		t.Fatalf("dump --out: %+v", r)
	}
	img := kmeta("zk", "image", "-o", "json", "zkdump:"+dump)
	if img.code != 0 || !strings.Contains(img.stdout, `"user": "alice"`) || strings.Contains(img.stdout, "storedKey") {
		t.Fatalf("redacted dump as a source: exit %d\n%s", img.code, img.stderr)
	}
}
