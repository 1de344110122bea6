package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/zkread"
)

const zkFixture = "../../testdata/zk"

func runKmeta(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"kmeta"}, args...), &out, &errb)
	if tr := transcriptOf(t); tr != nil {
		tr.command(args, code, out.String())
	}
	return code, out.String(), errb.String()
}

// TestZKDumpAndImage: `zk dump --show-secrets` of the fixture data dir
// reads back as the same tree, and `zk image` of the data dir and of that
// dump agree.
func TestZKDumpAndImage(t *testing.T) {
	dataDir := filepath.Join(zkFixture, "datadir")
	code, dump, stderr := runKmeta(t, "zk", "dump", "--show-secrets", "zkdata:"+dataDir)
	if code != exitOK {
		t.Fatalf("zk dump: exit %d: %s", code, stderr)
	}
	back, err := zkread.ReadDump(strings.NewReader(dump), "stdout", 0)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := zkread.ReadDataDir(dataDir, zkread.DataDirOptions{Chroot: "/kafka/prod"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(direct.Map(), back.Map()); d != "" {
		t.Fatalf("dump differs from the data dir:\n%s", d)
	}

	out := filepath.Join(t.TempDir(), "d.json")
	if code, _, stderr := runKmeta(t, "zk", "dump", "--show-secrets", "--out", out, dataDir); code != exitOK {
		t.Fatalf("zk dump --out: exit %d: %s", code, stderr)
	}
	if code, _, _ := runKmeta(t, "zk", "dump", "--out", out, dataDir); code != exitFailure {
		t.Errorf("overwrote --out without --force: exit %d", code)
	}
	code, fromDir, stderr := runKmeta(t, "zk", "image", "-o", "json", dataDir)
	if code != exitOK {
		t.Fatalf("zk image: exit %d: %s", code, stderr)
	}
	code, fromDump, stderr := runKmeta(t, "zk", "image", "-o", "json", "zkdump:"+out)
	if code != exitOK {
		t.Fatalf("zk image of dump: exit %d: %s", code, stderr)
	}
	strip := func(s string) string { // the provenance source differs, nothing else
		var b strings.Builder
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, `"source"`) {
				b.WriteString(l + "\n")
			}
		}
		return b.String()
	}
	if d := cmp.Diff(strip(fromDir), strip(fromDump)); d != "" {
		t.Errorf("image of the dump differs from image of the data dir:\n%s", d)
	}
	if !strings.Contains(fromDir, `"orders.v1"`) || strings.Contains(fromDir, "SCRAM-SHA-256=salt") {
		t.Errorf("image json lacks topics or shows secrets")
	}
}

func TestZKCommandErrors(t *testing.T) {
	if code, _, stderr := runKmeta(t, "zk", "image", "--zk-session-timeout", "1s", "zk://127.0.0.1:1/kafka"); code != exitFailure || !strings.Contains(stderr, "unreachable") {
		t.Errorf("unreachable: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runKmeta(t, "zk", "dump", "kraft:/nonexistent"); code != exitFailure || !strings.Contains(stderr, "KRaft") {
		t.Errorf("kraft source: exit %d, %s", code, stderr)
	}
	if code, _, _ := runKmeta(t, "zk", "image", "zkdata:/nonexistent/dir"); code != exitFailure {
		t.Errorf("missing dir: exit %d", code)
	}
}
