package zkfile

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// txnLogOracleJava loads each data dir given as an argument (the dir
// holding version-2) the way a ZooKeeper server does at startup:
// FileTxnSnapLog.restore into an empty DataTree (the newest valid
// snapshot, then FileTxnIterator over the logs after it). It prints
// "dir", then "zxid <hex>" (what restore returns, the last zxid applied)
// or "error <exception>", then every znode in path order with its client
// stat and data, the sessions, and "end".
const txnLogOracleJava = `
import java.io.File;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;

public class TxnLogOracle {
    public static void main(String[] args) throws Exception {
        for (String a : args) {
            System.out.println("dir");
            DataTree dt = new DataTree();
            Map<Long, Integer> sessions = new ConcurrentHashMap<>();
            FileTxnSnapLog snapLog = new FileTxnSnapLog(new File(a), new File(a));
            try {
                long z = snapLog.restore(dt, sessions, (hdr, rec, digest) -> {});
                System.out.println("zxid " + Long.toHexString(z));
                List<String> paths = new ArrayList<>();
                walk(dt, "/", paths);
                Collections.sort(paths);
                for (String p : paths) {
                    DataNode n = dt.getNode(p);
                    Stat s = new Stat();
                    n.copyStat(s);
                    byte[] d = n.getData();
                    System.out.println("node " + p + " " + s.getCzxid() + " " + s.getMzxid() + " " + s.getPzxid() + " " +
                        s.getCtime() + " " + s.getMtime() + " " + s.getVersion() + " " + s.getCversion() + " " +
                        s.getAversion() + " " + s.getEphemeralOwner() + " " + s.getDataLength() + " " + s.getNumChildren() + " " +
                        (d == null ? "null" : "b64:" + Base64.getEncoder().encodeToString(d)));
                }
                for (long id : new TreeSet<>(sessions.keySet())) {
                    System.out.println("session " + Long.toHexString(id) + " " + sessions.get(id));
                }
            } catch (Throwable e) {
                System.out.println("error " + e);
            }
            snapLog.close();
            System.out.println("end");
        }
    }

    static void walk(DataTree dt, String p, List<String> out) {
        out.add(p);
        for (String k : dt.getNode(p).getChildren()) {
            walk(dt, p.equals("/") ? "/" + k : p + "/" + k, out);
        }
    }
}
`

// oracleLines is what txnLogOracleJava prints for a tree kmeta read.
func oracleLines(res *DirResult) []string {
	out := []string{"dir", fmt.Sprintf("zxid %x", res.Tree.LastZxid)}
	nodes := nodesOf(res.Tree)
	for _, p := range slices.Sorted(maps.Keys(nodes)) {
		n := nodes[p]
		s := n.Stat
		d := "null"
		if n.Data != nil {
			d = "b64:" + base64.StdEncoding.EncodeToString(n.Data)
		}
		out = append(out, fmt.Sprintf("node %s %d %d %d %d %d %d %d %d %d %d %d %s", p, s.Czxid, s.Mzxid, s.Pzxid,
			s.Ctime, s.Mtime, s.Version, s.Cversion, s.Aversion, s.EphemeralOwner, s.DataLength, s.NumChildren, d))
	}
	for _, id := range slices.Sorted(maps.Keys(res.Tree.Sessions)) {
		out = append(out, fmt.Sprintf("session %x %d", id, res.Tree.Sessions[id]))
	}
	return append(out, "end")
}

// TestTornLogMatchesZooKeeper has ZooKeeper 3.8.4 (Kafka 3.9.2's
// classpath) load the damaged copies of the fixture's last log that
// TestEntriesPastZeroLength and TestTornEntryWithEntriesAfter read
// (pastEndDamages: entry k, the middle one, damaged), the intact log, and
// the most common crash: the last entry half written, the preallocated
// zeroes after it. ZooKeeper loads each without an error and stops before
// the damaged or torn entry: Util.readTxnBytes takes a zero length for
// the end of the data, and a missing end-of-record 'B' or a length past
// the end of the file for a partial last transaction, before any
// checksum, and FileTxnIterator goes on with the next log. So where
// well-formed entries follow (zero lengths, a changed 'B', a changed
// length, zeroes inside one entry), ZooKeeper drops them without a word:
// kmeta stops at the same entry, with the same tree, and calls it damage
// (zk-log-entries-past-end, partial: exit 1); where nothing follows it is
// a torn tail (a warning, exit 0). kmeta's tree must equal ZooKeeper's
// exactly: last zxid, every znode's stat and data, the sessions.
func TestTornLogMatchesZooKeeper(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	path, txns := lastLog(t)
	k := len(txns) / 2
	final := txns[len(txns)-1]
	damages := pastEndDamages(txns)
	damages["intact"] = func(b []byte) []byte { return b }
	damages["last entry torn"] = func(b []byte) []byte { clear(b[final.Offset+20:]); return b }
	// Not torn: the 'B' in place, a body byte changed.
	damages["checksum"] = func(b []byte) []byte { b[txns[k].Offset+20] ^= 1; return b }
	// Both refuse to load it: ZooKeeper's FileTxnIterator throws (what
	// restore then throws is this), kmeta returns an ErrCorrupt error.
	refusal := map[string]string{"checksum": "error java.io.IOException: CRC check failed"}
	// ZooKeeper's last zxid and kmeta's warning, by case.
	type want struct {
		zxid int64
		code string
	}
	wants := map[string]want{
		"intact":          {final.Zxid, ""},
		"last entry torn": {txns[len(txns)-2].Zxid, model.WarnTornTail},
	}
	for name := range damages {
		if _, ok := wants[name]; ok || refusal[name] != "" {
			continue
		}
		code := model.WarnZKLogEntriesPastEnd
		if name == "zeroes from the entry on" || name == "cut in the entry" {
			code = model.WarnTornTail
		}
		wants[name] = want{txns[k-1].Zxid, code}
	}
	names := slices.Sorted(maps.Keys(damages))
	var dirs []string
	kmeta := map[string][]string{}
	kmetaCodes := map[string][]string{}
	for _, name := range names {
		dir := copyDir(t, onlyOldSnapshots(t, path))
		p := filepath.Join(dir, filepath.Base(path))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = damages[name](b)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := ReadDir(dir, DirOptions{})
		if r := refusal[name]; r != "" {
			at := txns[k].Offset
			body := b[at+12 : txns[k+1].Offset-1]
			want := fmt.Sprintf("%s: offset %d: entry checksum: zkfile: corrupt file: Adler32 %#x, stored %#x", p, at, adler32.Checksum(body), binary.BigEndian.Uint64(b[at:]))
			if err == nil || err.Error() != want || !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: kmeta: %v\nwant %s", name, err, want)
			}
			kmeta[name] = []string{"dir", r, "end"}
			dirs = append(dirs, filepath.Dir(dir))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var codes []string
		for _, w := range res.Warnings {
			codes = append(codes, w.Code)
		}
		w := wants[name]
		if wantCodes := slices.DeleteFunc([]string{w.code}, func(c string) bool { return c == "" }); !slices.Equal(codes, wantCodes) || res.Tree.LastZxid != w.zxid {
			t.Errorf("%s: kmeta warns %v, last zxid %#x; want %v, %#x", name, codes, res.Tree.LastZxid, wantCodes, w.zxid)
		}
		kmeta[name], kmetaCodes[name] = oracleLines(res), codes
		dirs = append(dirs, filepath.Dir(dir))
	}
	src := filepath.Join(t.TempDir(), "TxnLogOracle.java")
	if err := os.WriteFile(src, []byte(txnLogOracleJava), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, stderr, err := d.Run(ctx, src, dirs...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	runs := strings.SplitAfter(strings.TrimSpace(string(out)), "\nend")
	runs = runs[:len(runs)-1] // after the last "end"
	if len(runs) != len(names) {
		t.Fatalf("ZooKeeper printed %d runs for %d dirs:\n%s", len(runs), len(names), out)
	}
	for i, name := range names {
		zk := strings.Split(strings.TrimSpace(runs[i]), "\n")
		if len(zk) < 3 {
			t.Fatalf("%s: ZooKeeper printed %q", name, zk)
		}
		// ZooKeeper itself: loaded, up to the entry before the damage
		// (the intact log goes on to the last entry: those after the
		// damage are dropped).
		if want := fmt.Sprintf("zxid %x", wants[name].zxid); refusal[name] == "" && zk[1] != want {
			t.Errorf("%s: ZooKeeper: %q, want %q", name, zk[1], want)
		}
		if !slices.Equal(kmeta[name], zk) {
			t.Errorf("%s: kmeta's tree differs from ZooKeeper's:\nkmeta\n%s\nZooKeeper\n%s", name, strings.Join(kmeta[name], "\n"), strings.Join(zk, "\n"))
		}
		znodes := 0
		for _, l := range zk {
			if strings.HasPrefix(l, "node ") {
				znodes++
			}
		}
		t.Logf("%s: ZooKeeper: %s, %d znodes; kmeta warns %v", name, zk[1], znodes, kmetaCodes[name])
	}
}
