package zkfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/model"
)

// testdata/zk/datadir was written by a real ZooKeeper 3.8.4 (Kafka 3.9.2's
// classpath) with snapCount=100: snapshot.0, .56, .96, .e8 and .10c with logs
// between them. snapshot.10c was written by the server at its last startup,
// after replaying everything, so it is ZooKeeper's own answer to "what does
// replaying the older snapshots and the logs give".
const dataDir = "../../testdata/zk/datadir"

func versionDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(dataDir, "version-2")
}

func snapshots(t *testing.T) []numbered {
	t.Helper()
	s, err := list(versionDir(t), "snapshot")
	if err != nil {
		t.Fatal(err)
	}
	if len(s) < 3 {
		t.Fatalf("fixture has %d snapshots", len(s))
	}
	return s
}

// copyDir copies the fixture's version-2 to a temp dir, keeping the files
// keep says yes to.
func copyDir(t *testing.T, keep func(name string) bool) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "version-2")
	fstree.CopyOnly(t, versionDir(t), dst, keep)
	return dst
}

// nodesOf is every node of a finished tree by path.
func nodesOf(t *DataTree) map[string]*Node {
	m := map[string]*Node{}
	t.Walk(t.Root(), "/", func(p string, r Ref) bool { m[p] = t.Node(r); return true })
	return m
}

// diffTrees compares content; Origins (which file a node was read from)
// differ by design between a snapshot and a replay.
func diffTrees(want, got *DataTree) string {
	return cmp.Diff(nodesOf(want), nodesOf(got)) + cmp.Diff(want.Sessions, got.Sessions)
}

func TestEverySnapshotDecodes(t *testing.T) {
	for _, s := range snapshots(t) {
		snap, err := ReadSnapshotFile(s.path, 0)
		if err != nil {
			t.Fatalf("%s: %v", s.path, err)
		}
		if snap.Tree.Get("/") == nil || snap.Tree.Get("/zookeeper") == nil {
			t.Errorf("%s: no root or /zookeeper", s.path)
		}
		for p, n := range nodesOf(snap.Tree) {
			for _, c := range n.Children {
				if snap.Tree.Get(strings.TrimSuffix(p, "/")+"/"+c) == nil {
					t.Errorf("%s: %s lists missing child %s", s.path, p, c)
				}
			}
		}
	}
}

// TestReplayMatchesZooKeeper: starting from each older snapshot and
// replaying the logs gives exactly the tree ZooKeeper itself wrote in the
// newest snapshot: data, ACLs, every stat field (cversion and pzxid
// included) and the session table.
func TestReplayMatchesZooKeeper(t *testing.T) {
	snaps := snapshots(t)
	newest := snaps[len(snaps)-1]
	want, err := ReadSnapshotFile(newest.path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps[:len(snaps)-1] {
		t.Run(filepath.Base(s.path), func(t *testing.T) {
			dir := copyDir(t, func(name string) bool {
				z, _ := ZxidFromName(name)
				return !strings.HasPrefix(name, "snapshot.") || z <= s.zxid
			})
			res, err := ReadDir(dir, DirOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(res.Snapshot) != filepath.Base(s.path) || len(res.Warnings) != 0 {
				t.Fatalf("used %s, warnings %v", res.Snapshot, res.Warnings)
			}
			if d := diffTrees(want.Tree, res.Tree); d != "" {
				t.Errorf("replay from %s differs from %s (-zookeeper +replay):\n%s", s.path, newest.path, d)
			}
			if res.Tree.Applied == 0 || res.Tree.Len() < 50 {
				t.Errorf("replayed %d txns into %d nodes", res.Tree.Applied, res.Tree.Len())
			}
			if res.Tree.LastZxid != newest.zxid {
				t.Errorf("last zxid %#x, want %#x", res.Tree.LastZxid, newest.zxid)
			}
		})
	}
}

func TestCompressedSnapshots(t *testing.T) {
	matches, _ := filepath.Glob("../../testdata/zk/compressed/snapshot.*")
	if len(matches) != 2 {
		t.Fatalf("compressed fixtures: %v", matches)
	}
	for _, m := range matches {
		got, err := ReadSnapshotFile(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		z, _ := ZxidFromName(m)
		plain, err := ReadSnapshotFile(filepath.Join(versionDir(t), strings.TrimSuffix(strings.TrimSuffix(filepath.Base(m), ".gz"), ".snappy")), 0)
		if err != nil {
			t.Fatalf("no plain snapshot at zxid %#x: %v", z, err)
		}
		if d := diffTrees(plain.Tree, got.Tree); d != "" {
			t.Errorf("%s differs from the plain snapshot:\n%s", m, d)
		}
	}
}

// TestCorruptNewestSnapshotFallsBack: a flipped byte in the newest snapshot
// makes the reader use the previous one plus logs, say so, and still reach
// the same tree.
func TestCorruptNewestSnapshotFallsBack(t *testing.T) {
	snaps := snapshots(t)
	newest := snaps[len(snaps)-1]
	want, err := ReadSnapshotFile(newest.path, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := copyDir(t, func(string) bool { return true })
	p := filepath.Join(dir, filepath.Base(newest.path))
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSnapshotFile(p, 0); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt snapshot: %v", err)
	}
	res, err := ReadDir(dir, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(res.Snapshot) != filepath.Base(snaps[len(snaps)-2].path) {
		t.Errorf("used %s", res.Snapshot)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, filepath.Base(newest.path)) || !strings.Contains(res.Warnings[0].Message, "offset") ||
		res.Warnings[0].Code != model.WarnSnapshotFallback || res.Warnings[0].Where.File != p || res.Warnings[0].Where.Position < 0 {
		t.Errorf("warnings %+v", res.Warnings)
	}
	if d := diffTrees(want.Tree, res.Tree); d != "" {
		t.Errorf("fallback tree differs:\n%s", d)
	}
}

// lastLog returns the newest log and its entries' offsets.
func lastLog(t *testing.T) (string, []*Txn) {
	t.Helper()
	logs, _ := list(versionDir(t), "log")
	l, err := OpenTxnLog(logs[len(logs)-1].path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var txns []*Txn
	for {
		txn, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		txns = append(txns, txn)
	}
	if len(txns) < 2 {
		t.Fatalf("last log has %d txns", len(txns))
	}
	return logs[len(logs)-1].path, txns
}

// onlyOldSnapshots keeps the logs and the snapshots before the last log,
// so the last log's txns must be replayed.
func onlyOldSnapshots(t *testing.T, lastLogPath string) func(string) bool {
	lz, _ := ZxidFromName(lastLogPath)
	return func(name string) bool {
		z, _ := ZxidFromName(name)
		return !strings.HasPrefix(name, "snapshot.") || z < lz
	}
}

func TestTornTail(t *testing.T) {
	path, txns := lastLog(t)
	dir := copyDir(t, onlyOldSnapshots(t, path))
	last := txns[len(txns)-1]
	p := filepath.Join(dir, filepath.Base(path))
	b, _ := os.ReadFile(p)
	// Cut the last entry in the middle of its body.
	if err := os.WriteFile(p, b[:last.Offset+20], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ReadDir(dir, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "torn") || res.Warnings[0].Code != model.WarnTornTail ||
		res.Warnings[0].Where.File != p || res.Warnings[0].Where.Position != last.Offset {
		t.Errorf("warnings %+v", res.Warnings)
	}
	prev := txns[len(txns)-2].Zxid
	if res.Tree.LastZxid != prev {
		t.Errorf("last zxid %#x, want %#x", res.Tree.LastZxid, prev)
	}
	at, err := ReadDir(copyDir(t, onlyOldSnapshots(t, path)), DirOptions{AtZxid: prev})
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(at.Tree, res.Tree); d != "" {
		t.Errorf("torn read differs from AtZxid(prev):\n%s", d)
	}
	// The torn entry on its own: Next reports ErrTornTail with the offset.
	l, err := OpenTxnLog(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for {
		_, err := l.Next()
		if err == nil {
			continue
		}
		var fe *FileError
		if !errors.Is(err, ErrTornTail) || !errors.As(err, &fe) || fe.Offset != last.Offset {
			t.Errorf("torn entry error: %v", err)
		}
		break
	}
}

func TestLogChecksumMismatch(t *testing.T) {
	path, txns := lastLog(t)
	dir := copyDir(t, onlyOldSnapshots(t, path))
	p := filepath.Join(dir, filepath.Base(path))
	b, _ := os.ReadFile(p)
	victim := txns[len(txns)/2]
	b[victim.Offset+12+20] ^= 1 // inside the body (the txn time)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadDir(dir, DirOptions{})
	var fe *FileError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || fe.Offset != victim.Offset || fe.File != p {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), filepath.Base(path)) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("message %q", err)
	}
}

func TestAtZxid(t *testing.T) {
	path, txns := lastLog(t)
	mid := txns[len(txns)/2].Zxid
	res, err := ReadDir(dataDir, DirOptions{AtZxid: mid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tree.LastZxid != mid {
		t.Errorf("last zxid %#x, want %#x", res.Tree.LastZxid, mid)
	}
	for _, n := range nodesOf(res.Tree) {
		if n.Stat.Czxid > mid || n.Stat.Mzxid > mid || n.Stat.Pzxid > mid {
			t.Fatalf("node newer than %#x: %+v", mid, n.Stat)
		}
	}
	if lz, _ := ZxidFromName(path); res.Tree.SnapshotZxid >= lz {
		t.Errorf("used snapshot %#x for zxid %#x", res.Tree.SnapshotZxid, mid)
	}
}

func TestNoSnapshot(t *testing.T) {
	dir := copyDir(t, func(name string) bool { return strings.HasPrefix(name, "log.") })
	if _, err := ReadDir(dir, DirOptions{}); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("err = %v", err)
	}
}

// TestGap: an old snapshot whose logs were purged must not silently give
// a stale tree.
func TestGap(t *testing.T) {
	snaps := snapshots(t)
	logs, _ := list(versionDir(t), "log")
	dir := copyDir(t, func(name string) bool {
		z, _ := ZxidFromName(name)
		if strings.HasPrefix(name, "snapshot.") {
			return z == snaps[0].zxid
		}
		return z > logs[0].zxid
	})
	if _, err := ReadDir(dir, DirOptions{}); !errors.Is(err, ErrGap) {
		t.Errorf("err = %v", err)
	}
}

func TestSnapshotTruncations(t *testing.T) {
	snaps := snapshots(t)
	b, err := os.ReadFile(snaps[len(snaps)-1].path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 3, 16, 100, len(b) / 2, len(b) - 14, len(b) - 1} {
		_, err := DecodeSnapshot("x", b[:n])
		var fe *FileError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) {
			t.Errorf("truncated to %d: %v", n, err)
		}
	}
	if _, err := DecodeSnapshot("x", append(append([]byte{}, b...), 0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: %v", err)
	}
}

// TestOldest: DirOptions.Oldest starts from snapshot.0 and replays every
// logged transaction to the same tree ZooKeeper wrote in its newest
// snapshot, calling Base once and Step after each transaction with the
// znodes it changed (creates, setData, closeSession for ephemerals).
// Without the last log the replay stops
// short of the newest snapshot, and the read starts from the newest after
// all, with a coverage-hole warning.
func TestOldest(t *testing.T) {
	snaps := snapshots(t)
	newest := snaps[len(snaps)-1]
	want, err := ReadSnapshotFile(newest.path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var bases, steps int
	ops := map[int32]int{}
	res, err := ReadDir(dataDir, DirOptions{Oldest: true,
		Base: func(t *DataTree) { bases++ },
		Step: func(_ *DataTree, _ *Txn, changed []Changed) {
			steps++
			for _, c := range changed {
				ops[c.Op]++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(res.Snapshot) != "snapshot.0" || len(res.Warnings) != 0 {
		t.Fatalf("used %s, warnings %v", res.Snapshot, res.Warnings)
	}
	if d := diffTrees(want.Tree, res.Tree); d != "" {
		t.Errorf("replay from snapshot.0 differs from %s (-zookeeper +replay):\n%s", newest.path, d)
	}
	if bases != 1 || steps != res.Tree.Applied || steps < 200 {
		t.Errorf("Base called %d times, Step %d for %d transactions", bases, steps, res.Tree.Applied)
	}
	for _, op := range []int32{OpCreate, OpSetData, OpCloseSession} { // the fixture deletes nothing but ephemerals
		if ops[op] == 0 {
			t.Errorf("no change of op %d reported: %v", op, ops)
		}
	}

	logs, _ := list(versionDir(t), "log")
	dir := copyDir(t, func(name string) bool { return name != filepath.Base(logs[len(logs)-1].path) })
	res, err = ReadDir(dir, DirOptions{Oldest: true})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(res.Snapshot) != filepath.Base(newest.path) || len(res.Warnings) == 0 || res.Warnings[0].Code != model.WarnCoverageHole {
		t.Errorf("without the last log: used %s, warnings %v", res.Snapshot, res.Warnings)
	}
}
