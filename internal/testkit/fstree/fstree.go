// Package fstree is the test kit's one way to copy a fixture tree before a
// test damages it, and to fingerprint a tree to prove that nothing in it
// changed (a read-only command, a refused write, a rerun that must be a no-op).
package fstree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// lockName is Kafka's lock file in a log dir. A copy never carries it: a
// test's copy is nobody's live dir, and kmeta must never need it.
const lockName = ".lock"

// Copy copies the tree at src into a fresh temporary dir of t and returns
// the copy's path, whose last element is src's. Files are written 0644.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(filepath.Clean(src)))
	CopyTo(t, src, dst)
	return dst
}

// CopyTo copies the tree at src to dst, creating dst.
func CopyTo(t testing.TB, src, dst string) {
	t.Helper()
	CopyOnly(t, src, dst, nil)
}

// CopyOnly is CopyTo for the files keep says yes to (by their path
// relative to src); a nil keep keeps every file.
func CopyOnly(t testing.TB, src, dst string, keep func(rel string) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if d.Name() == lockName || !d.Type().IsRegular() || (keep != nil && !keep(rel)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("fstree: copy %s: %v", src, err)
	}
}

// Hash fingerprints every regular file under dir: its path relative to dir,
// its length and its bytes, in walk (lexical) order. Equal hashes mean equal
// trees, wherever they lie.
func Hash(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatalf("fstree: hash %s: %v", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
