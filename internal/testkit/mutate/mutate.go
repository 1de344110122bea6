package mutate

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Kind is a file kind the mutator knows the structure of.
type Kind string

// The kinds, one per file format kmeta reads.
const (
	Segment          Kind = "segment"            // KRaft __cluster_metadata .log segment
	Snapshot         Kind = "snapshot"           // KRaft .checkpoint snapshot
	Bootstrap        Kind = "bootstrap"          // bootstrap.checkpoint (or a 4.x bootstrap snapshot)
	QuorumState      Kind = "quorum-state"       // KRaft quorum-state JSON
	MetaProperties   Kind = "meta.properties"    // Kafka meta.properties (Java properties)
	ZKSnapshot       Kind = "zk-snapshot"        // ZooKeeper snapshot.<zxid>
	ZKSnapshotPacked Kind = "zk-snapshot-packed" // ZooKeeper snapshot.<zxid>.gz / .snappy
	ZKTxnLog         Kind = "zk-txnlog"          // ZooKeeper log.<zxid>
	Dump             Kind = "dump"               // kmeta zk dump JSON
)

// Kinds lists every kind in a fixed order.
var Kinds = []Kind{Segment, Snapshot, Bootstrap, QuorumState, MetaProperties, ZKSnapshot, ZKSnapshotPacked, ZKTxnLog, Dump}

// Context tells the validator what "another valid input" means for the file
// at its place: a segment that is not the last one must still end where the
// next begins.
type Context struct {
	// LastFile is true when nothing after this file continues its offsets
	// (the newest segment, the newest txn log).
	LastFile bool
}

// Mutant is one mutated copy of a file.
type Mutant struct {
	Kind  Kind
	Seed  uint64
	Index int
	Op    string // operator name, stable across runs
	Desc  string // what exactly was changed (positions, values)
	// Resealed is true when checksums were recomputed after the edit.
	Resealed bool
	// Preserving is true when the mutant is another valid input by the
	// format's own rules, as this package's validator (not kmeta's decoder)
	// judges it: the reader may then give another answer without a warning.
	Preserving bool
	// Why says why the validator accepts or refuses the mutant.
	Why  string
	Data []byte
}

func (m Mutant) String() string {
	p := "damage"
	if m.Preserving {
		p = "valid-other"
	}
	return fmt.Sprintf("%s seed=%d #%d %s [%s]: %s", m.Kind, m.Seed, m.Index, m.Op, p, m.Desc)
}

// op is one mutation operator: it edits a copy of the input in place (or
// returns a new slice) and describes what it did. ok=false: not applicable to
// this input (the caller draws another operator).
type op struct {
	name     string
	resealed bool
	apply    func(r *rand.Rand, b []byte) (out []byte, desc string, ok bool)
}

// Make returns mutant number index of orig. The same (kind, orig, seed,
// index) always gives the same mutant.
func Make(kind Kind, orig []byte, ctx Context, seed uint64, index int) (Mutant, error) {
	r := rand.New(rand.NewPCG(seed, uint64(index)*0x9E3779B97F4A7C15+uint64(len(kind))))
	ops, valid, err := kindOps(kind)
	if err != nil {
		return Mutant{}, err
	}
	for try := 0; try < 64; try++ {
		o := ops[r.IntN(len(ops))]
		b := append([]byte(nil), orig...)
		out, desc, ok := o.apply(r, b)
		if !ok || string(out) == string(orig) {
			continue
		}
		m := Mutant{Kind: kind, Seed: seed, Index: index, Op: o.name, Desc: desc, Resealed: o.resealed, Data: out}
		if err := valid(orig, out, ctx); err == nil {
			m.Preserving, m.Why = true, "validator accepts it"
		} else {
			m.Why = err.Error()
		}
		return m, nil
	}
	return Mutant{}, fmt.Errorf("mutate: no operator applies to this %s input", kind)
}

// Generic byte-level operators: they know nothing of the format.
func byteOps() []op {
	return []op{
		{name: "bitflip", apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			if len(b) == 0 {
				return nil, "", false
			}
			p, bit := r.IntN(len(b)), r.IntN(8)
			b[p] ^= 1 << bit
			return b, fmt.Sprintf("flip bit %d of byte %d", bit, p), true
		}},
		{name: "byteset", apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			if len(b) == 0 {
				return nil, "", false
			}
			p := r.IntN(len(b))
			n := 1 + r.IntN(4)
			if p+n > len(b) {
				n = len(b) - p
			}
			v := []byte{0x00, 0xff, 0x7f, 0x80, byte(r.IntN(256))}[r.IntN(5)]
			for i := 0; i < n; i++ {
				b[p+i] = v
			}
			return b, fmt.Sprintf("set bytes %d..%d to 0x%02x", p, p+n-1, v), true
		}},
		{name: "truncate", apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			if len(b) < 2 {
				return nil, "", false
			}
			p := r.IntN(len(b))
			return b[:p], fmt.Sprintf("truncate to %d of %d bytes", p, len(b)), true
		}},
		{name: "insert", apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			p, n := r.IntN(len(b)+1), 1+r.IntN(16)
			ins := make([]byte, n)
			for i := range ins {
				ins[i] = byte(r.IntN(256))
			}
			return splice(b, p, p, ins), fmt.Sprintf("insert %d random bytes at %d", n, p), true
		}},
		{name: "delete", apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			if len(b) < 2 {
				return nil, "", false
			}
			p := r.IntN(len(b) - 1)
			n := 1 + r.IntN(16)
			if p+n > len(b) {
				n = len(b) - p
			}
			return splice(b, p, p+n, nil), fmt.Sprintf("delete bytes %d..%d", p, p+n-1), true
		}},
	}
}

// splice replaces b[from:to] with ins, in a new slice.
func splice(b []byte, from, to int, ins []byte) []byte {
	out := make([]byte, 0, len(b)-(to-from)+len(ins))
	out = append(out, b[:from]...)
	out = append(out, ins...)
	return append(out, b[to:]...)
}

// pick returns one of vs.
func pick[T any](r *rand.Rand, vs ...T) T { return vs[r.IntN(len(vs))] }

// kindOps are a kind's operators and its validator.
func kindOps(kind Kind) (ops []op, valid func(orig, mut []byte, ctx Context) error, err error) {
	switch kind {
	case Segment, Snapshot, Bootstrap:
		ops, valid = kafkaOps(kind), func(o, m []byte, c Context) error { return validKafka(kind, o, m, c) }
	case QuorumState:
		ops, valid = textOps(quorumEdits), validQuorumState
	case MetaProperties:
		ops, valid = textOps(propsEdits), validProps
	case ZKSnapshot:
		ops, valid = zkSnapOps(), validZKSnap
	case ZKSnapshotPacked:
		ops, valid = packedOps(), validPacked
	case ZKTxnLog:
		ops, valid = txnOps(), validTxnLog
	case Dump:
		ops, valid = textOps(dumpEdits), validDump
	case ClientConfig:
		ops, valid = textOps(append(slices.Clone(propsEdits), jaasEdits...)), noValidator
	case ServerProperties:
		ops, valid = textOps(propsEdits), noValidator
	case Exceptions:
		ops, valid = textOps(exceptionsEdits), validExceptions
	default:
		return nil, nil, fmt.Errorf("mutate: unknown kind %q", kind)
	}
	return ops, valid, nil
}

// Valid says whether mut is sound by the rules the real reader applies
// to a file of the kind (the validator Make sets Mutant.Preserving with):
// nil, or the first rule it breaks.
func Valid(kind Kind, orig, mut []byte, ctx Context) error {
	_, valid, err := kindOps(kind)
	if err != nil {
		return err
	}
	return valid(orig, mut, ctx)
}
