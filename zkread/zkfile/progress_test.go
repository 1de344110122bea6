package zkfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadDirProgress: Progress counts every byte of the snapshot read and
// of the logs, never goes back, ends at done == total, and reading with it
// gives the same tree as without.
func TestReadDirProgress(t *testing.T) {
	old := meterEvery
	meterEvery = 512
	defer func() { meterEvery = old }()

	var total int64
	snaps := snapshots(t)
	st, err := os.Stat(snaps[len(snaps)-1].path)
	if err != nil {
		t.Fatal(err)
	}
	total += st.Size()
	logs, err := list(versionDir(t), "log")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		st, err := os.Stat(l.path)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}

	var calls [][2]int64
	res, err := ReadDir(dataDir, DirOptions{Progress: func(done, tot int64) { calls = append(calls, [2]int64{done, tot}) }})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ReadDir(dataDir, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tree.Len() != plain.Tree.Len() || res.Tree.LastZxid != plain.Tree.LastZxid {
		t.Fatalf("with progress: %d nodes at %#x; without: %d at %#x", res.Tree.Len(), res.Tree.LastZxid, plain.Tree.Len(), plain.Tree.LastZxid)
	}
	if len(calls) < 3 {
		t.Fatalf("%d progress calls over %d bytes, want several", len(calls), total)
	}
	for i, c := range calls {
		if c[0] > c[1] || (i > 0 && c[0] < calls[i-1][0]) {
			t.Fatalf("call %d: %d of %d after %v", i, c[0], c[1], calls[max(i-1, 0)])
		}
	}
	last := calls[len(calls)-1]
	// Every log is read to its end here (the fixture has no AtZxid), so
	// the bytes read are the files' sizes; bufio may stop reading a log at
	// its zeroed preallocated tail, so done can fall short of the total but
	// never pass it.
	if last[1] != total {
		t.Fatalf("total %d, files hold %d (%s and %d logs)", last[1], total, filepath.Base(snaps[len(snaps)-1].path), len(logs))
	}
	if last[0] == 0 || last[0] > total {
		t.Fatalf("done %d of %d", last[0], total)
	}
}
