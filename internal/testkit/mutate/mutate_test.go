package mutate

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"os"
	"path/filepath"
	"testing"
)

const td = "../../../testdata/"

type fixture struct {
	kind Kind
	path string
	ctx  Context
}

var fixtures = []fixture{
	{Segment, td + "kraft/4.4.0/metadata/__cluster_metadata-0/00000000000000000000.log", Context{}},
	{Segment, td + "kraft/4.4.0/metadata/__cluster_metadata-0/00000000000000000086.log", Context{LastFile: true}},
	{Segment, td + "kraft/3.9.2/metadata/__cluster_metadata-0/00000000000000000087.log", Context{LastFile: true}},
	{Snapshot, td + "kraft/4.4.0/metadata/__cluster_metadata-0/00000000000000000099-0000000001.checkpoint", Context{}},
	{Snapshot, td + "kraft/3.9.2/metadata/__cluster_metadata-0/00000000000000000090-0000000001.checkpoint", Context{}},
	{Bootstrap, td + "kraft/bootstrap/3.9.2/3.9-IV0-scram/metadata/bootstrap.checkpoint", Context{}},
	{Bootstrap, td + "kraft/bootstrap/4.4.0/4.4-IV2-scram/metadata/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint", Context{}},
	{QuorumState, td + "kraft/4.4.0/metadata/__cluster_metadata-0/quorum-state", Context{}},
	{QuorumState, td + "kraft/3.9.2/metadata/__cluster_metadata-0/quorum-state", Context{}},
	{MetaProperties, td + "kraft/4.4.0/metadata/meta.properties", Context{}},
	{ZKSnapshot, td + "zk/datadir/version-2/snapshot.10c", Context{}},
	{ZKSnapshot, td + "zk/datadir/version-2/snapshot.0", Context{}},
	{ZKSnapshotPacked, td + "zk/compressed/snapshot.10c.gz", Context{}},
	{ZKSnapshotPacked, td + "zk/compressed/snapshot.10c.snappy", Context{}},
	{ZKTxnLog, td + "zk/datadir/version-2/log.98", Context{}},
	{ZKTxnLog, td + "zk/datadir/version-2/log.ea", Context{LastFile: true}},
	{Dump, td + "zk/dump.json", Context{}},
}

var validators = map[Kind]func(o, m []byte, c Context) error{
	Segment:          func(o, m []byte, c Context) error { return validKafka(Segment, o, m, c) },
	Snapshot:         func(o, m []byte, c Context) error { return validKafka(Snapshot, o, m, c) },
	Bootstrap:        func(o, m []byte, c Context) error { return validKafka(Bootstrap, o, m, c) },
	QuorumState:      validQuorumState,
	MetaProperties:   validProps,
	ZKSnapshot:       validZKSnap,
	ZKSnapshotPacked: validPacked,
	ZKTxnLog:         validTxnLog,
	Dump:             validDump,
}

// The validator must accept every real file Kafka and ZooKeeper wrote: a
// validator that refused them would call every valid mutant damage.
func TestValidatorAcceptsFixtures(t *testing.T) {
	for _, f := range fixtures {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := validators[f.kind](b, b, f.ctx); err != nil {
			t.Errorf("%s (%s): %v", filepath.Base(f.path), f.kind, err)
		}
	}
}

// The structure parsers see what the files hold: batches, entries, znodes
// and seals, checked against facts the fixture READMEs state.
func TestParsersSeeTheStructure(t *testing.T) {
	b, _ := os.ReadFile(td + "kraft/4.4.0/metadata/__cluster_metadata-0/00000000000000000086.log")
	bs, err := parseKafka(b)
	if err != nil || len(bs) < 2 || bs[0].base != 86 {
		t.Fatalf("segment 86: %d batches, first base %d, %v", len(bs), bs[0].base, err)
	}
	s, _ := os.ReadFile(td + "zk/datadir/version-2/snapshot.10c")
	zs, err := parseZKSnap(s)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range zs.nodes {
		found = found || n.path == "/kafka/prod/brokers/topics/orders.v1"
	}
	if !found || len(zs.seals) < 2 {
		t.Fatalf("snapshot.10c: %d znodes, orders.v1 found %v, %d seals", len(zs.nodes), found, len(zs.seals))
	}
	l, _ := os.ReadFile(td + "zk/datadir/version-2/log.98")
	es, err := parseTxnLog(l)
	if err != nil || len(es) == 0 || es[0].zxid != 0x98 {
		t.Fatalf("log.98: %d entries, %v", len(es), err)
	}
}

// Resealing really reseals: a resealed edit passes the checksum, the same
// edit without reseal does not.
func TestReseal(t *testing.T) {
	b, _ := os.ReadFile(td + "kraft/4.4.0/metadata/__cluster_metadata-0/00000000000000000086.log")
	bs, _ := parseKafka(b)
	m := append([]byte(nil), b...)
	m[bs[1].start+30] ^= 1 // baseTimestamp
	if _, err := parseKafka(m); err == nil {
		t.Fatal("unsealed timestamp edit passes the CRC")
	}
	reseal(m, bs[1])
	if _, err := parseKafka(m); err != nil {
		t.Fatalf("resealed edit: %v", err)
	}

	s, _ := os.ReadFile(td + "zk/datadir/version-2/snapshot.10c")
	zs, _ := parseZKSnap(s)
	n := zs.nodes[len(zs.nodes)/2]
	binary.BigEndian.PutUint64(s[n.stat:], 12345)
	if validZKSnap(nil, s, Context{}) == nil {
		t.Fatal("unsealed stat edit passes the seal")
	}
	resealSnap(s, zs)
	if err := validZKSnap(nil, s, Context{}); err != nil {
		t.Fatalf("resealed: %v", err)
	}
	at := zs.seals[0]
	if uint64(adler32.Checksum(s[:at])) != binary.BigEndian.Uint64(s[at:]) {
		t.Fatal("seal 0 is not the Adler32 of the stream before it")
	}
}

// Same arguments, same mutant; every kind yields mutants of both classes
// over a few hundred draws, and the operator mix reaches every operator.
func TestMakeDeterministicAndVaried(t *testing.T) {
	for _, f := range fixtures {
		b, _ := os.ReadFile(f.path)
		ops := map[string]bool{}
		var pres, dam int
		for i := 0; i < 300; i++ {
			m1, err := Make(f.kind, b, f.ctx, 7, i)
			if err != nil {
				t.Fatal(err)
			}
			if i%10 == 0 {
				if m2, _ := Make(f.kind, b, f.ctx, 7, i); !bytes.Equal(m1.Data, m2.Data) || m1.Desc != m2.Desc {
					t.Fatalf("%s #%d: not deterministic", f.kind, i)
				}
			}
			if bytes.Equal(m1.Data, b) {
				t.Fatalf("%s #%d (%s): mutant equals the original", f.kind, i, m1.Op)
			}
			ops[m1.Op] = true
			if m1.Preserving {
				pres++
			} else {
				dam++
			}
		}
		if dam < 75 || len(ops) < 8 {
			t.Errorf("%s %s: %d damage, %d valid-other, %d operators", f.kind, filepath.Base(f.path), dam, pres, len(ops))
		}
		t.Logf("%-18s %-60s damage %3d valid-other %3d operators %d", f.kind, filepath.Base(f.path), dam, pres, len(ops))
	}
}
