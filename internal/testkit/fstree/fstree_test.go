package fstree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopyAndHash(t *testing.T) {
	src := filepath.Join(t.TempDir(), "metadata")
	for name, data := range map[string]string{"a/x.log": "abc", "b.checkpoint": "", ".lock": "", "a/y": "z"} {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dst := Copy(t, src)
	if filepath.Base(dst) != "metadata" || dst == src {
		t.Fatalf("copy at %s", dst)
	}
	if _, err := os.Stat(filepath.Join(dst, ".lock")); !os.IsNotExist(err) {
		t.Errorf("Kafka's .lock was copied: %v", err)
	}
	os.Remove(filepath.Join(src, ".lock"))
	if Hash(t, src) != Hash(t, dst) {
		t.Fatal("a copy hashes differently")
	}
	// Content, length and name each change the hash.
	for _, change := range []func(){
		func() { os.WriteFile(filepath.Join(dst, "a/x.log"), []byte("abd"), 0o644) },
		func() { os.WriteFile(filepath.Join(dst, "b.checkpoint"), []byte("\x00"), 0o644) },
		func() { os.Rename(filepath.Join(dst, "a/y"), filepath.Join(dst, "a/w")) },
	} {
		before := Hash(t, dst)
		change()
		if Hash(t, dst) == before {
			t.Error("a change left the hash as it was")
		}
	}
	only := filepath.Join(t.TempDir(), "only")
	CopyOnly(t, src, only, func(rel string) bool { return rel == filepath.Join("a", "x.log") })
	if _, err := os.Stat(filepath.Join(only, "a", "x.log")); err != nil {
		t.Errorf("kept file not copied: %v", err)
	}
	for _, gone := range []string{"b.checkpoint", filepath.Join("a", "y")} {
		if _, err := os.Stat(filepath.Join(only, gone)); !os.IsNotExist(err) {
			t.Errorf("%s copied though keep said no: %v", gone, err)
		}
	}
}
