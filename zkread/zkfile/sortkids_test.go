package zkfile

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// TestSortKidsParallelIsSequential builds one tree of a few hundred
// thousand nodes with children added in a shuffled order, some names
// given twice and origins out of order, and lays it out once on one core
// and once on every core with blocks small enough that the duplicates fall
// in different workers' blocks: every run and the duplicate reported must
// be the same.
func TestSortKidsParallelIsSequential(t *testing.T) {
	build := func() *DataTree {
		rng := rand.New(rand.NewPCG(1, 2))
		b := NewBuilder()
		root := b.Add(NoRef, "", nil, Stat{}, nil)
		// Parents made all along, so that they lie in many blocks of
		// sortKids: a child goes to one of the last parents made.
		var parents []Ref
		for i := range 200_000 {
			if i%50 == 0 {
				// Unique: the root's run has no duplicate (its origins
				// are all 0, which would win every search).
				parents = append(parents, b.Add(root, "t"+strconv.Itoa(i), nil, Stat{}, nil))
			}
			p := parents[max(0, len(parents)-1-rng.IntN(3))]
			name := strconv.Itoa(rng.IntN(200))
			r := b.Add(p, name, nil, Stat{}, nil)
			// Origins that do not follow the Refs, so that "the later in
			// file order" and "the earliest such" are both exercised.
			b.t.setOrigin(r, b.t.at(r), 0, int64(rng.IntN(1<<30)))
		}
		return b.t
	}
	layout := func(parallel bool) ([][]string, Ref) {
		old, procs := parallelSortNodes, runtime.GOMAXPROCS(0)
		defer func() { parallelSortNodes = old; runtime.GOMAXPROCS(procs) }()
		if parallel {
			parallelSortNodes = 0
			runtime.GOMAXPROCS(max(4, procs))
		} else {
			parallelSortNodes = 1 << 30
		}
		tr := build()
		dup := tr.buildKids()
		if want := wantDup(tr); dup != want {
			t.Fatalf("parallel %v: duplicate %d, want %d", parallel, dup, want)
		}
		var runs [][]string
		for r := Ref(0); r < tr.n; r++ {
			var names []string
			for _, k := range tr.Kids(r) {
				names = append(names, tr.Name(k)+"@"+strconv.FormatInt(tr.off(k), 10))
			}
			runs = append(runs, names)
		}
		return runs, dup
	}
	seqRuns, seqDup := layout(false)
	parRuns, parDup := layout(true)
	if seqDup == NoRef {
		t.Fatal("the tree has no duplicate: the test does not exercise the duplicate search")
	}
	if seqDup != parDup {
		t.Fatalf("duplicate: sequential %d, parallel %d", seqDup, parDup)
	}
	for r := range seqRuns {
		if !slices.Equal(seqRuns[r], parRuns[r]) {
			t.Fatalf("node %d: sequential %v, parallel %v", r, seqRuns[r], parRuns[r])
		}
		if !slices.IsSorted(seqRuns[r]) && len(seqRuns[r]) > 1 {
			// The names compare by name first; "@offset" only breaks ties.
			for i := 1; i < len(seqRuns[r]); i++ {
				a, b := seqRuns[r][i-1], seqRuns[r][i]
				if name(a) > name(b) {
					t.Fatalf("node %d: run not in name order: %v", r, seqRuns[r])
				}
			}
		}
	}
}

func name(s string) string {
	for i := range s {
		if s[i] == '@' {
			return s[:i]
		}
	}
	return s
}

// wantDup is buildKids' duplicate found the plain way, from the laid out
// runs: of each two children of one parent with the same name, the later
// in file order; of those, the earliest (the first parent's on a tie).
func wantDup(tr *DataTree) Ref {
	dup := NoRef
	for r := Ref(0); r < tr.n; r++ {
		kids := tr.Kids(r)
		for i := 1; i < len(kids); i++ {
			a, b := kids[i-1], kids[i]
			if tr.Name(a) != tr.Name(b) {
				continue
			}
			later := b
			if tr.off(a) > tr.off(b) {
				later = a
			}
			if dup == NoRef || tr.off(later) < tr.off(dup) {
				dup = later
			}
		}
	}
	return dup
}
