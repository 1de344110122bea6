package zkfile

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func checkErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *FileError
	if !errors.As(err, &fe) || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTornTail)) {
		t.Fatalf("error is not one of ours: %T %v", err, err)
	}
}

// FuzzSnapshot: any input decodes or fails with a located ErrCorrupt,
// never panics.
func FuzzSnapshot(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(dataDir, "version-2", "snapshot.*"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		snap, err := DecodeSnapshot("fuzz", b)
		checkErr(t, err)
		if err == nil && snap.Tree.Lookup("/") == NoRef {
			t.Fatal("decoded a tree without a root")
		}
	})
}

// FuzzTxn: any entry body decodes or fails with a located ErrCorrupt, and
// applying what decodes never panics.
func FuzzTxn(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(dataDir, "version-2", "log.*"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// Seed with the bodies of the real entries.
		for off := 16; off+12 <= len(b); {
			n := int(int32(binary.BigEndian.Uint32(b[off+8:])))
			if n <= 0 || off+12+n > len(b) {
				break
			}
			f.Add(b[off+12 : off+12+n])
			off += 13 + n
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		txn, err := DecodeTxn(body)
		checkErr(t, err)
		if err == nil {
			tree := newDataTree()
			r, c := tree.newNode()
			tree.root = r
			tree.attach(r, c, NoRef)
			tree.startReplay()
			tree.apply(txn)
			tree.finish()
		}
	})
}
