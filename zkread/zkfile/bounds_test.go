package zkfile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/model"
)

// rewriteZxid sets the zxid of the log entry at off and reseals its
// Adler32, so the change reaches the replay rather than the checksum.
func rewriteZxid(b []byte, off, zxid int64) {
	n := int64(binary.BigEndian.Uint32(b[off+8:]))
	body := b[off+12 : off+12+n]
	binary.BigEndian.PutUint64(body[12:], uint64(zxid)) // session 8, cxid 4
	binary.BigEndian.PutUint64(b[off:], uint64(adler32.Checksum(body)))
}

// TestZxidOutOfOrder: a log entry whose zxid repeats the previous one or
// goes back stops the replay there, with a zk-log-damaged warning naming
// the file and the entry's byte position; the tree is the one as of the
// last good transaction.
func TestZxidOutOfOrder(t *testing.T) {
	path, txns := lastLog(t)
	k := len(txns) / 2
	for name, zxid := range map[string]int64{"repeats": txns[k-1].Zxid, "goes-back": txns[k-2].Zxid} {
		t.Run(name, func(t *testing.T) {
			_, p, res := readDamaged(t, path, func(b []byte) []byte { rewriteZxid(b, txns[k].Offset, zxid); return b })
			w := res.Warnings[0]
			if w.Code != model.WarnZKLogDamaged || !model.Partial(w) || w.Where == nil || w.Where.File != p || w.Where.Position != txns[k].Offset || w.Where.Zxid != zxid {
				t.Errorf("warning %+v at %+v", w, w.Where)
			}
			if res.Tree.LastZxid != txns[k-1].Zxid {
				t.Errorf("last zxid %#x, want %#x", res.Tree.LastZxid, txns[k-1].Zxid)
			}
			want, err := ReadDir(copyDir(t, onlyOldSnapshots(t, path)), DirOptions{AtZxid: txns[k-1].Zxid})
			if err != nil {
				t.Fatal(err)
			}
			if d := diffTrees(want.Tree, res.Tree); d != "" {
				t.Errorf("stopped replay differs from the tree at %#x:\n%s", txns[k-1].Zxid, d)
			}
		})
	}
}

// TestLogEntryLengthBound: an entry length above what ZooKeeper's
// BinaryInputArchive accepts (jute.maxbuffer + extrasize) is corruption
// at the length field, not a torn tail, and is never allocated.
func TestLogEntryLengthBound(t *testing.T) {
	path, txns := lastLog(t)
	dir := copyDir(t, onlyOldSnapshots(t, path))
	p := filepath.Join(dir, filepath.Base(path))
	b, _ := os.ReadFile(p)
	victim := txns[len(txns)/2]
	binary.BigEndian.PutUint32(b[victim.Offset+8:], 0x7fffffff)
	// A sparse 2 GiB file: the length fits in the file, so only the
	// jute bound can refuse it.
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 3<<30); err != nil {
		t.Fatal(err)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadDir(dir, DirOptions{})
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	var fe *FileError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || fe.File != p || fe.Offset != victim.Offset+8 || !strings.Contains(err.Error(), "jute.maxbuffer") {
		t.Fatalf("err = %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d MiB reading a log with a 2 GiB entry length", got>>20)
	}
}

// snapshotWith builds a minimal snapshot: the root, /zookeeper, one node
// /big holding data, and the seal.
func snapshotWith(data []byte) []byte {
	w := newSnapWriter()
	w.node("", []byte{}, 1)
	w.node("/zookeeper", []byte{}, 1)
	w.node("/big", append([]byte{}, data...), 1)
	return w.seal()
}

// TestSnapshotJuteMaxBuffer: node data longer than jute.maxbuffer allows
// is refused by default, at the length field, and read when the option
// raises the limit (as -Djute.maxbuffer does for ZooKeeper).
func TestSnapshotJuteMaxBuffer(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte{'x'}, 3<<20)
	p := filepath.Join(dir, "snapshot.1")
	if err := os.WriteFile(p, snapshotWith(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadSnapshotFile(p, 0)
	var fe *FileError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "jute.maxbuffer") {
		t.Fatalf("default limit: %v", err)
	}
	// The length field of /big's data: after the header (16), two empty
	// counts (8), the root and /zookeeper records and /big's path.
	if want := int64(16 + 8 + (4 + 4 + 8 + 32 + 12 + 16) + (4 + 10 + 4 + 8 + 32 + 12 + 16) + 4 + 4); fe.Offset != want {
		t.Errorf("offset %d, want %d", fe.Offset, want)
	}
	snap, err := ReadSnapshotFile(p, 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	if n := snap.Tree.Get("/big"); n == nil || !bytes.Equal(n.Data, big) {
		t.Error("/big not read with a raised jute.maxbuffer")
	}
	// 2 GiB: refused however the file continues, without allocating it.
	b := snapshotWith([]byte("tiny"))
	at := bytes.Index(b, []byte("/big")) + 4
	binary.BigEndian.PutUint32(b[at:], 0x7fffffff)
	if _, err := DecodeSnapshot("x", b); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "unreasonable length 2147483647") {
		t.Errorf("2 GiB length: %v", err)
	}
}

// TestGzipBombBounded: a compressed snapshot whose stream goes on far past
// its last seal is refused after reading only a look-ahead past the seal,
// so neither memory nor time grow with what the file inflates to.
func TestGzipBombBounded(t *testing.T) {
	snaps := snapshots(t)
	good, err := os.ReadFile(snaps[len(snaps)-1].path)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write(good)
	zeros := make([]byte, 1<<20)
	for range 128 { // 128 MiB inflated
		zw.Write(zeros)
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), filepath.Base(snaps[len(snaps)-1].path)+".gz")
	if err := os.WriteFile(p, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err = ReadSnapshotFile(p, 0)
	took := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("allocated %d MiB for a %d KiB bomb", got>>20, gz.Len()>>10)
	}
	if took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	// The same file without the padding is read, and equals the plain one.
	gz.Reset()
	zw.Reset(&gz)
	zw.Write(good)
	zw.Close()
	os.WriteFile(p, gz.Bytes(), 0o644)
	got, err := ReadSnapshotFile(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := DecodeSnapshot(snaps[len(snaps)-1].path, good)
	if d := diffTrees(want.Tree, got.Tree); d != "" {
		t.Error(d)
	}
}

// TestNotRegularRefused: a snapshot or log that is a symlink to a device
// (read without end) is refused on the open descriptor; a symlink to a
// regular file is read. The data dir falls back past the refused snapshot.
func TestNotRegularRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	snaps := snapshots(t)
	newest := snaps[len(snaps)-1]
	dir := copyDir(t, func(string) bool { return true })
	p := filepath.Join(dir, filepath.Base(newest.path))
	os.Remove(p)
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadSnapshotFile(p, 0); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a symlink to /dev/zero did not end")
	}
	res, err := ReadDir(dir, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Code != model.WarnSnapshotFallback || !strings.Contains(res.Warnings[0].Message, "not a regular file") {
		t.Errorf("warnings %+v", res.Warnings)
	}
	// A symlink to a regular file is fine.
	os.Remove(p)
	if err := os.Symlink(newest.path, p); err == nil {
		abs, _ := filepath.Abs(newest.path)
		os.Remove(p)
		os.Symlink(abs, p)
	}
	if _, err := ReadSnapshotFile(p, 0); err != nil {
		t.Errorf("symlink to a regular snapshot: %v", err)
	}
	// A log that is a device is an error, not an endless read.
	logs, _ := list(dir, "log")
	lp := logs[len(logs)-1].path
	os.Remove(lp)
	os.Symlink("/dev/zero", lp)
	if _, err := OpenTxnLog(lp, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("log symlinked to /dev/zero: %v", err)
	}
}

// TestACLBombBounded: an ACL list longer than a request of jute.maxbuffer
// could carry is refused at its count; a gzip of millions of identical
// entries would otherwise inflate into gigabytes of ACLs.
func TestACLBombBounded(t *testing.T) {
	var b bytes.Buffer
	i32 := func(v int32) { binary.Write(&b, binary.BigEndian, v) }
	i32(snapMagic)
	i32(2)
	binary.Write(&b, binary.BigEndian, int64(0))
	i32(0) // sessions
	i32(1) // one ACL cache entry
	binary.Write(&b, binary.BigEndian, int64(1))
	i32(0x7ffffff0)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(b.Bytes())
	entry := make([]byte, 12) // perms 0, empty scheme, empty id
	for range 1 << 20 {
		zw.Write(entry)
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "snapshot.1.gz")
	os.WriteFile(p, gz.Bytes(), 0o644)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadSnapshotFile(p, 0)
	runtime.ReadMemStats(&after)
	var fe *FileError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || fe.Offset != int64(b.Len()-4) || !strings.Contains(err.Error(), "ACL entries") {
		t.Fatalf("err = %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("allocated %d MiB", got>>20)
	}
}

// TestSessionAndACLCacheBounds: a session table or ACL cache far beyond
// any real ensemble's is refused at its count or entry, not allocated.
func TestSessionAndACLCacheBounds(t *testing.T) {
	head := func(sessions int32) *bytes.Buffer {
		var b bytes.Buffer
		binary.Write(&b, binary.BigEndian, int32(snapMagic))
		binary.Write(&b, binary.BigEndian, int32(2))
		binary.Write(&b, binary.BigEndian, int64(0))
		binary.Write(&b, binary.BigEndian, sessions)
		return &b
	}
	b := head(maxSessions + 1)
	if _, err := DecodeSnapshot("x", b.Bytes()); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "sessions") {
		t.Errorf("sessions: %v", err)
	}
	// ACL lists of the largest size a request allows, until the cache
	// holds too many entries.
	b = head(0)
	per := LengthLimit(0) / 12
	n := maxACLCacheEntries/per + 1
	binary.Write(b, binary.BigEndian, int32(n))
	for i := range n {
		binary.Write(b, binary.BigEndian, int64(i))
		binary.Write(b, binary.BigEndian, int32(per))
		b.Write(make([]byte, 12*per))
	}
	if _, err := DecodeSnapshot("x", b.Bytes()); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "ACL cache") {
		t.Errorf("ACL cache: %v", err)
	}
}

// TestSparseSnapshotAllocation: a snapshot file that claims 2 GiB but
// holds a header and zeroes (a sparse file) is refused at its first node
// without reserving memory for the nodes its size claims (it reserved
// about 1.2 GB: the maps were sized from the file's size).
func TestSparseSnapshotAllocation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "version-2")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "snapshot.10")
	hdr := binary.BigEndian.AppendUint32(nil, snapMagic)
	hdr = binary.BigEndian.AppendUint32(hdr, 2)
	hdr = binary.BigEndian.AppendUint64(hdr, 0)
	if err := os.WriteFile(p, hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 2<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	const bound = 32 << 20
	for name, read := range map[string]func() error{
		"snapshot": func() error { _, err := ReadSnapshotFile(p, 0); return err },
		"data dir": func() error { _, err := ReadDir(dir, DirOptions{}); return err },
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := read()
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: a header and zeroes decoded", name)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > bound {
			t.Errorf("%s: %d MiB allocated to read a header and one node (bound %d MiB)", name, n>>20, bound>>20)
		}
	}
}

// TestNodeBlocks: nodes live in blocks that grow from 64 to 4096 and are
// never copied; a Ref finds its node in them, past the growing blocks
// too.
func TestNodeBlocks(t *testing.T) {
	tr := newDataTree()
	const n = smallNodes + 3<<maxBlockBits + 5
	for i := range n {
		r, c := tr.newNode()
		if int(r) != i {
			t.Fatalf("node %d got Ref %d", i, r)
		}
		c.czxid = int64(i)
	}
	for r := Ref(0); r < n; r++ {
		if got := tr.at(r).czxid; got != int64(r) {
			t.Fatalf("Ref %d finds node %d", r, got)
		}
	}
	if len(tr.blocks) != maxBlockBits-minBlockBits+4 || len(tr.blocks[0]) != 1<<minBlockBits || len(tr.blocks[len(tr.blocks)-1]) != 1<<maxBlockBits {
		t.Errorf("%d blocks", len(tr.blocks))
	}
}

// TestNodeOrigins: a node's file and offset are packed in one word; an
// offset past a terabyte or a file number past what the word holds is
// kept aside, and every one reads back as it was set; a deleted node is
// gone whatever its offset was.
func TestNodeOrigins(t *testing.T) {
	tr := newDataTree()
	for _, o := range []bigOrigin{{-1, 0}, {0, 0}, {3, 1<<40 - 1}, {3, 1 << 40}, {1<<24 - 3, 5}, {1<<24 - 2, 5}, {1<<31 - 1, 1<<63 - 1}, {fileGone, 7}, {fileGone, 1 << 50}} {
		r, c := tr.newNode()
		if f, off := tr.nodeOrigin(r, c); f != -1 || off != 0 || c.gone() {
			t.Fatalf("new node: file %d offset %d gone %v", f, off, c.gone())
		}
		tr.setOrigin(r, c, o.file, o.off)
		if o.file == fileGone {
			o.off = 0 // a deleted node keeps no offset
		}
		if f, off := tr.nodeOrigin(r, c); f != o.file || off != o.off {
			t.Errorf("set %+v, read file %d offset %d", o, f, off)
		}
		if c.gone() != (o.file == fileGone) {
			t.Errorf("set %+v: gone %v", o, c.gone())
		}
		tr.setOrigin(r, c, 1, 2) // back in the word: nothing left aside
		if _, ok := tr.bigOrg[r]; ok {
			t.Errorf("set %+v then {1 2}: still kept aside", o)
		}
	}
}

// TestSetDataKeepsStat: a node's DataLength is derived from its data once
// the tree is finished, so data replaced after that (a redaction) must
// not change the stat read; data handed back as it was changes nothing,
// and nothing is kept aside for it.
func TestSetDataKeepsStat(t *testing.T) {
	b := NewBuilder()
	root := b.Add(NoRef, "", nil, Stat{}, nil)
	b.Add(root, "a", []byte("secret"), Stat{DataLength: 6}, nil)
	given := b.Finish()
	r := given.Lookup("/a")
	given.SetData(r, []byte("xx"))
	if st := given.Stat(r); st.DataLength != 6 || string(given.Data(r)) != "xx" {
		t.Errorf("builder's tree: DataLength %d, data %q", st.DataLength, given.Data(r))
	}

	tr := newDataTree()
	rr, c := tr.newNode()
	c.data = tr.keep([]byte{})
	tr.root = rr
	tr.attach(rr, c, NoRef)
	a, ca := tr.newNode()
	ca.name, ca.data = tr.keep([]byte("a")), tr.keep([]byte("secret"))
	tr.attach(a, ca, rr)
	tr.finish()
	tr.SetData(a, tr.Data(a))
	if len(tr.lens) != 0 {
		t.Errorf("data handed back as it was: %d lengths kept aside", len(tr.lens))
	}
	tr.SetData(a, []byte("xx"))
	tr.SetData(a, []byte("yyyy"))
	if st := tr.Stat(a); st.DataLength != 6 || string(tr.Data(a)) != "yyyy" {
		t.Errorf("finished tree: DataLength %d, data %q", st.DataLength, tr.Data(a))
	}
	b2, _ := tr.newNode()
	if st := tr.Stat(b2); st.DataLength != 0 || st.NumChildren != 0 {
		t.Errorf("a node never set: %+v", st)
	}
	if st := tr.Stat(rr); st.NumChildren != 1 {
		t.Errorf("root: NumChildren %d", st.NumChildren)
	}
}
