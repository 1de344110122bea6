package zkfile

import (
	"errors"
	"fmt"
	"io"
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
	// How the zero can come about (pastEndDamages): only entry k's length
	// field, the whole entry, or a run of zeroes from entry k into entry
	// k+1 (a lost block), which takes k+1 with it.
	damages := pastEndDamages(txns)
	cases := map[string]struct {
		follow int
		first  int64
	}{
		"zero length": {follow, txns[k+1].Offset},
		"zero entry":  {follow, txns[k+1].Offset},
		"zero run":    {follow - 1, txns[k+2].Offset},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir, p, res := readDamaged(t, path, damages[name])
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

// TestTornEntryWithEntriesAfter: an entry that looks torn (its
// end-of-record byte is not 'B', its length runs past the end of the
// file) ends the log for ZooKeeper as for kmeta, but a crash cuts only
// the last entry written: well-formed entries after it mean damage in the
// middle of the file, reported as such (partial), never as a torn tail.
// A log cut in the middle of an entry, with nothing after it, stays a
// torn tail.
func TestTornEntryWithEntriesAfter(t *testing.T) {
	path, txns := lastLog(t)
	k := len(txns) / 2
	victim, next, final := txns[k], txns[k+1], txns[len(txns)-1]
	bodyLen := next.Offset - victim.Offset - 13
	// The length with bit 4 of its third byte set (pastEndDamages).
	bigLen := bodyLen | 1<<20
	damages := pastEndDamages(txns)
	follow := fmt.Sprintf("but %d well-formed transaction(s) follow it (offsets %d to %d, zxids %#x to %#x); they are not in the tree: the log is damaged, not torn by a crash",
		len(txns)-k-1, next.Offset, final.Offset, next.Zxid, final.Zxid)
	cases := map[string]struct {
		damage func(b []byte) []byte
		code   string
		pos    int64
		msg    string // %[1]s is the file
	}{
		"end-of-record byte": {
			damage: damages["end-of-record byte"],
			code:   model.WarnZKLogEntriesPastEnd,
			pos:    next.Offset - 1,
			msg:    fmt.Sprintf("%%[1]s: offset %d: the entry at offset %d looks torn (end-of-record byte: 0x43, not 'B'), which ends the log here (for ZooKeeper as for kmeta), %s", next.Offset-1, victim.Offset, follow),
		},
		"length bit": {
			damage: damages["length bit"],
			code:   model.WarnZKLogEntriesPastEnd,
			pos:    victim.Offset,
			msg:    fmt.Sprintf("%%[1]s: offset %d: the entry at offset %d looks torn (entry length: length %d runs past the end of the file), which ends the log here (for ZooKeeper as for kmeta), %s", victim.Offset, victim.Offset, bigLen, follow),
		},
		"zeroes in the entry": {
			damage: damages["zeroes in the entry"],
			code:   model.WarnZKLogEntriesPastEnd,
			pos:    next.Offset - 1,
			msg:    fmt.Sprintf("%%[1]s: offset %d: the entry at offset %d looks torn (end-of-record byte: 0x0, not 'B'), which ends the log here (for ZooKeeper as for kmeta), %s", next.Offset-1, victim.Offset, follow),
		},
		"zeroes from the entry on": {
			damage: damages["zeroes from the entry on"],
			code:   model.WarnTornTail,
			pos:    next.Offset - 1,
			msg:    fmt.Sprintf("ignored a torn transaction at the end of the last log: %%[1]s: offset %d: end-of-record byte: zkfile: torn tail: 0x0, not 'B'", next.Offset-1),
		},
		"cut in the entry": {
			damage: damages["cut in the entry"],
			code:   model.WarnTornTail,
			pos:    victim.Offset,
			msg:    fmt.Sprintf("ignored a torn transaction at the end of the last log: %%[1]s: offset %d: entry length: zkfile: torn tail: length %d runs past the end of the file", victim.Offset, bodyLen),
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir, p, res := readDamaged(t, path, c.damage)
			w := res.Warnings[0]
			if want := fmt.Sprintf(c.msg, p); w.Code != c.code || w.Message != want {
				t.Errorf("warning %s %q\nwant      %s %q", w.Code, w.Message, c.code, want)
			}
			if w.Where == nil || w.Where.File != p || w.Where.Position != c.pos {
				t.Errorf("warning at %+v, want %s position %d", w.Where, p, c.pos)
			}
			// Damage makes the view partial; a torn tail does not.
			if model.Partial(w) != (c.code != model.WarnTornTail) {
				t.Errorf("partial %v", model.Partial(w))
			}
			// Replay stops before the entry, as ZooKeeper's does.
			if res.Tree.LastZxid != txns[k-1].Zxid {
				t.Errorf("last zxid %#x, want %#x", res.Tree.LastZxid, txns[k-1].Zxid)
			}
			// Next ends the file at the torn entry, as FileTxnIterator
			// does: io.EOF after the error, not entries read from the
			// middle of the damage.
			l, err := OpenTxnLog(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			for err == nil {
				_, err = l.Next()
			}
			if !errors.Is(err, ErrTornTail) {
				t.Errorf("Next: %v, want a torn entry", err)
			}
			if txn, err := l.Next(); err != io.EOF {
				t.Errorf("Next after the torn entry: %+v, %v; want io.EOF", txn, err)
			}
			if c.code == model.WarnTornTail {
				return
			}
			// At a point before the damage or at the damaged entry, the
			// entries after it are later state (Later): the tree reaches
			// the first point, and stops short of the second, which
			// zkread reports as a coverage hole, never as a quiet tree one
			// transaction short (nor as a point past the files' end).
			for _, at := range []int64{txns[k-1].Zxid, victim.Zxid} {
				res, err := ReadDir(dir, DirOptions{AtZxid: at})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Warnings) != 0 || !res.Later || res.Tree.LastZxid != txns[k-1].Zxid {
					t.Errorf("at %#x: warnings %+v, later %v, last zxid %#x", at, res.Warnings, res.Later, res.Tree.LastZxid)
				}
			}
		})
	}
}

// pastEndDamages are the ways TestEntriesPastZeroLength and
// TestTornEntryWithEntriesAfter damage a copy of the last log, by case
// name; entry k = len(txns)/2 is the one damaged. TestTornLogMatchesZooKeeper
// has ZooKeeper read the same copies.
func pastEndDamages(txns []*Txn) map[string]func([]byte) []byte {
	k := len(txns) / 2
	victim, next := txns[k], txns[k+1]
	zero := func(from, to int64) func([]byte) []byte {
		return func(b []byte) []byte { clear(b[from:to]); return b }
	}
	return map[string]func([]byte) []byte{
		// A zero entry length: only the length field, the whole entry, or
		// a run of zeroes from entry k into entry k+1 (a lost block).
		"zero length": zero(victim.Offset+8, victim.Offset+12),
		"zero entry":  zero(victim.Offset, next.Offset),
		"zero run":    zero(victim.Offset, next.Offset+20),
		// Entries that look torn with well-formed entries after them:
		// the end-of-record byte changed; the length with bit 4 of its
		// third byte set, 1 MiB more, past the end of the file but within
		// jute.maxbuffer; a block lost in the middle of the file, the
		// entry's tail and its end-of-record byte read as zeroes (its
		// checksum fails too).
		"end-of-record byte":  func(b []byte) []byte { b[next.Offset-1] = 'C'; return b },
		"length bit":          func(b []byte) []byte { b[victim.Offset+9] ^= 0x10; return b },
		"zeroes in the entry": zero(victim.Offset+20, next.Offset),
		// Torn tails: a crash in a preallocated file, the entry written in
		// part and zeroes after it (as ZooKeeper's padding leaves them);
		// a file cut in the entry.
		"zeroes from the entry on": func(b []byte) []byte { clear(b[victim.Offset+20:]); return b },
		"cut in the entry":         func(b []byte) []byte { return b[:victim.Offset+20] },
	}
}

// readDamaged copies the data dir of the log at path (with its older
// snapshots only), lets damage edit the copy of the log, and reads the
// copy, which must give exactly one warning: the copy's dir, the log's
// path in it, and the result.
func readDamaged(t *testing.T, path string, damage func([]byte) []byte) (string, string, *DirResult) {
	t.Helper()
	dir := copyDir(t, onlyOldSnapshots(t, path))
	p := filepath.Join(dir, filepath.Base(path))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, damage(b), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ReadDir(dir, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 {
		t.Fatalf("warnings %+v", res.Warnings)
	}
	return dir, p, res
}
