package zkfile

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// TestEntriesPastZeroLength: a zero entry length in the middle of a log
// ends the replay there, as in ZooKeeper, and the well-formed transactions
// after it are reported (file, offset of the zero, how many), never dropped
// without a word; the view is partial.
func TestEntriesPastZeroLength(t *testing.T) {
	path, txns := lastLog(t)
	k := len(txns) / 2
	follow := len(txns) - k - 1
	// How the zero can come about: only entry k's length field, the whole
	// entry, or a run of zeroes from entry k into entry k+1 (a lost block),
	// which takes k+1 with it.
	cases := map[string]struct {
		from, to int64 // bytes zeroed
		follow   int
		first    int64
	}{
		"length": {txns[k].Offset + 8, txns[k].Offset + 12, follow, txns[k+1].Offset},
		"entry":  {txns[k].Offset, txns[k+1].Offset, follow, txns[k+1].Offset},
		"run":    {txns[k].Offset, txns[k+1].Offset + 20, follow - 1, txns[k+2].Offset},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := copyDir(t, onlyOldSnapshots(t, path))
			p := filepath.Join(dir, filepath.Base(path))
			b, _ := os.ReadFile(p)
			clear(b[c.from:c.to])
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := ReadDir(dir, DirOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 1 {
				t.Fatalf("warnings %+v", res.Warnings)
			}
			w := res.Warnings[0]
			if w.Code != model.WarnZKLogEntriesPastEnd || !model.Partial(w) || w.Where == nil || w.Where.File != p || w.Where.Position != txns[k].Offset {
				t.Errorf("warning %+v at %+v", w, w.Where)
			}
			for _, s := range []string{p, fmt.Sprintf("offset %d:", txns[k].Offset), fmt.Sprintf("but %d well-formed", c.follow), fmt.Sprintf("offsets %d to %d", c.first, txns[len(txns)-1].Offset)} {
				if !strings.Contains(w.Message, s) {
					t.Errorf("message %q lacks %q", w.Message, s)
				}
			}
			// Replay stops at the zero, as ZooKeeper's does.
			if res.Tree.LastZxid != txns[k-1].Zxid {
				t.Errorf("last zxid %#x, want %#x", res.Tree.LastZxid, txns[k-1].Zxid)
			}
			// A point in time before every hidden entry is whole.
			at, err := ReadDir(dir, DirOptions{AtZxid: txns[k-1].Zxid})
			if err != nil {
				t.Fatal(err)
			}
			if len(at.Warnings) != 0 {
				t.Errorf("at %#x: warnings %+v", txns[k-1].Zxid, at.Warnings)
			}
		})
	}

	t.Run("capped", func(t *testing.T) {
		old := pastEndScan
		pastEndScan = txns[k+2].Offset - txns[k].Offset
		defer func() { pastEndScan = old }()
		dir := copyDir(t, onlyOldSnapshots(t, path))
		p := filepath.Join(dir, filepath.Base(path))
		b, _ := os.ReadFile(p)
		clear(b[txns[k].Offset+8 : txns[k].Offset+12])
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := ReadDir(dir, DirOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "but at least 2 well-formed") {
			t.Errorf("warnings %+v", res.Warnings)
		}
	})
}

// TestPastEndGarbage: whatever follows a zero length, the scan ends, never
// panics and counts no entry in random bytes (an Adler32, a length in
// bounds, the 'B' and a decodable body all by chance).
func TestPastEndGarbage(t *testing.T) {
	path, txns := lastLog(t)
	src, _ := os.ReadFile(path)
	rng := rand.New(rand.NewSource(1))
	k := len(txns) / 2
	for i := range 200 {
		b := append([]byte(nil), src...)
		clear(b[txns[k].Offset+8 : txns[k].Offset+12])
		tail := b[txns[k].Offset+12:]
		switch i % 3 {
		case 0: // random bytes
			rng.Read(tail)
		case 1: // entries with random damage
			for j := 0; j < 20; j++ {
				tail[rng.Intn(len(tail))] = byte(rng.Intn(256))
			}
		case 2: // cut anywhere
			b = b[:txns[k].Offset+12+int64(rng.Intn(len(tail)))]
		}
		p := filepath.Join(t.TempDir(), "log.1")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := OpenTxnLog(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := l.Next(); err != nil {
				break
			}
		}
		pe, ok := l.PastEnd()
		l.Close()
		if ok && i%3 == 0 && pe.Count != 0 {
			t.Errorf("case %d: %d entries found in random bytes", i, pe.Count)
		}
	}
}
