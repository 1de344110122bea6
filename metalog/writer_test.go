package metalog

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestSnapshotWriter(t *testing.T) {
	dir := t.TempDir()
	id := SnapshotID{EndOffset: 1234, Epoch: 5}
	path := filepath.Join(dir, id.FileName())
	v := workedValue(t)
	values := make([][]byte, 100)
	for i := range values {
		values[i] = v
	}
	opts := SnapshotOptions{Epoch: 5, Timestamp: 1700000000000, LastContainedLogTimestamp: 1699999999999,
		HeaderRecords: []ControlRecord{{Type: ControlKRaftVersion, Value: EncodeKRaftVersion(1)}},
		MaxBatchBytes: 1000}
	if err := WriteSnapshotFile(path, values, opts); err != nil {
		t.Fatal(err)
	}
	if err := WriteSnapshotFile(path, values, opts); !errors.Is(err, ErrExists) {
		t.Fatalf("second write: %v, want ErrExists", err)
	}
	opts.Write.Overwrite = true
	if err := WriteSnapshotFile(path, values, opts); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temp files left behind: %v", ents)
	}
	r, err := OpenReader(path, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var next int64
	var batches, data int
	var first, last ControlType
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.BaseOffset != next || b.PartitionLeaderEpoch != 5 || b.Size() > 1000 {
			t.Fatalf("batch %d: offset %d (want %d) epoch %d size %d", batches, b.BaseOffset, next, b.PartitionLeaderEpoch, b.Size())
		}
		next = b.NextOffset()
		it := b.Records()
		for it.Next() {
			if b.IsControl() {
				typ, _ := ParseControlKey(it.Record().Key)
				if batches == 0 && it.Record().Index == 0 {
					first = typ
				}
				last = typ
			} else {
				data++
			}
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
		batches++
	}
	if first != ControlSnapshotHeader || last != ControlSnapshotFooter || data != 100 || batches < 4 {
		t.Fatalf("first %v last %v data %d batches %d", first, last, data, batches)
	}
	rep, err := Check(path, CheckOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 {
		t.Fatalf("findings on a written snapshot: %+v", rep.Findings)
	}
}

func TestAtomicFileAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, BootstrapFileName)
	a, err := CreateAtomic(path, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("x"))
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("abort left %v", ents)
	}
	// A file appearing between create and commit is not clobbered.
	a, _ = CreateAtomic(path, WriteOptions{})
	os.WriteFile(path, []byte("theirs"), 0o644)
	if err := a.Commit(); !errors.Is(err, ErrExists) {
		t.Fatalf("commit over a new file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "theirs" {
		t.Fatalf("clobbered: %q", b)
	}
	// A directory that does not exist.
	if _, err := CreateAtomic(filepath.Join(dir, "nope", "x.log"), WriteOptions{}); err == nil || !IsOurs(err) {
		t.Fatalf("missing dir: %v", err)
	}
}

func TestSegmentWriter(t *testing.T) {
	dir := t.TempDir()
	w, err := CreateSegment(dir, 50, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := workedValue(t)
	if err := w.AppendControl(2, 1, []ControlRecord{{Type: ControlLeaderChange, Value: []byte{0, 0, 0, 0, 0, 1, 1, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.AppendData(2, 2, [][]byte{v, v, v}); err != nil {
		t.Fatal(err)
	}
	if w.NextOffset() != 54 {
		t.Fatalf("next offset %d", w.NextOffset())
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(filepath.Join(dir, SegmentFileName(50)), CheckOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 || rep.Files[0].FirstOffset != 50 || rep.Files[0].LastOffset != 53 || rep.LastGoodOffset != 53 {
		t.Fatalf("%+v", rep)
	}
}

// MkdirAll creates what is missing (each new directory fsynced into its
// parent), accepts what exists and refuses a file in the way.
func TestMkdirAll(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b", "__cluster_metadata-0")
	for range 2 {
		if err := MkdirAll(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(deep); err != nil || !fi.IsDir() {
			t.Fatalf("%s: %v %v", deep, fi, err)
		}
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(file, "x"), 0o755); err == nil || !IsOurs(err) {
		t.Fatalf("a file in the way: %v", err)
	}
}

// Overwriting keeps the replaced file's permission bits unless Perm says
// otherwise.
func TestAtomicOverwriteKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.properties")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		perm, want os.FileMode
	}{{0, 0o600}, {0o644, 0o644}} {
		a, err := CreateAtomic(path, WriteOptions{Overwrite: true, Perm: tc.perm})
		if err != nil {
			t.Fatal(err)
		}
		a.Write([]byte("new"))
		if err := a.Commit(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tc.want {
			t.Errorf("Perm %v: mode %v %v, want %v", tc.perm, fi.Mode().Perm(), err, tc.want)
		}
	}
}
