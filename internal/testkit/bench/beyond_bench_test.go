package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/roll"
)

// TestBenchBeyondLoading measures, at 1,000,000 partitions and at ten
// times less (the growth), what the commands that judge a loaded image
// or its copies cost beyond reading it (issue 32: under 1 s each), each
// side by side with its peer in the same run, KMETA_BENCH_RUNS runs per
// row:
//
//   - roll.Check of broker 0 and lint.Run, in this process, on the image
//     of lintCluster, against loading that image (source.Load);
//   - kmeta quorum survey of three copies of its metadata log dir (hard
//     links), against reading the three copies and CRC-32C over them;
//   - kmeta lint --history of a log of 1,000,000 partition changes
//     (100,000 at the smaller size; changeLog over 10,000 partitions),
//     against kmeta lint of the same log (the replay and one lint).
//
// KMETA_BENCH_SCALE=small: 100,000 and 10,000 partitions, 100,000 and
// 10,000 changes. Figures are reported, never asserted; the test fails
// only when a verdict does not say what the cluster holds.
func TestBenchBeyondLoading(t *testing.T) {
	bin := benchBin(t)
	big, changes := 1_000_000, 1_000_000
	if smallScale() {
		big, changes = 100_000, 100_000
	}
	const changeParts, factor = 10_000, 10
	dir := t.TempDir()
	if d := os.Getenv("KMETA_BENCH_DIR"); d != "" {
		dir = d
	}
	tb := &table{title: "kmeta beyond loading: roll check, lint, quorum survey, lint --history"}
	type sized struct{ load, roll, lint, survey, read, hist, plain stat }
	var small sized
	for i, parts := range []int{big / factor, big} {
		var s sized
		snap := lintSnapshot(t, mkdir(t, dir, fmt.Sprintf("lint-%d", parts)), parts)
		var loads, rolls, lints []stageCost
		for range benchRuns() {
			img, load := loadMeasured(t, "kraft:"+snap)
			loads = append(loads, load)
			in := roll.Input{Image: img, Quorum: roll.QuorumFromFiles(img, map[int32]map[string]string{0: {"controller.quorum.voters": "3000@c1:9093"}})}
			var v roll.Verdict
			rolls = append(rolls, measure(t, func() error { v = roll.Check(in, 0); return nil }))
			if v.Answer != roll.Unsafe {
				t.Fatalf("%d partitions: roll.Check of broker 0 says %s", parts, v.Answer)
			}
			var res *lint.Result
			lints = append(lints, measure(t, func() (err error) { res, err = lint.Run(img, lint.Options{}); return err }))
			if len(res.Findings) < parts/100*999/1000 {
				t.Fatalf("%d partitions: lint found %d findings", parts, len(res.Findings))
			}
		}
		s.load, s.roll, s.lint = costs(loads), costs(rolls), costs(lints)

		// Three copies of one node's dir, as survey is given them.
		copies := []string{snap}
		for c := range 2 {
			cp := filepath.Join(dir, fmt.Sprintf("lint-%d-copy%d", parts, c))
			copyTree(t, snap, cp)
			copies = append(copies, cp)
		}
		s.survey = stats(repeat(t, func() *exec.Cmd { return exec.Command(bin, append([]string{"quorum", "survey"}, copies...)...) },
			"CleanRebuild:   yes", func(r run) {
				if r.count != 1 {
					t.Fatalf("%d partitions: quorum survey of three copies does not call a clean rebuild possible", parts)
				}
			}))
		var reads []stageCost
		for range benchRuns() {
			reads = append(reads, measure(t, func() error {
				for _, c := range copies {
					readCRC(t, snapshotFile(t, c))
				}
				return nil
			}))
		}
		s.read = costs(reads)

		n := changes / factor
		if i == 1 {
			n = changes
		}
		logDir, _ := changeLog(t, mkdir(t, dir, fmt.Sprintf("changes-%d", n)), changeParts, n)
		s.hist = stats(repeat(t, func() *exec.Cmd { return exec.Command(bin, "lint", "--history", "-o", "json", logDir) }, `"since":`, nil))
		s.plain = stats(repeat(t, func() *exec.Cmd { return exec.Command(bin, "lint", "-o", "json", logDir) }, "", nil))

		rows := []struct {
			name, peer string
			s, p       stat
		}{
			{fmt.Sprintf("roll.Check of broker 0 beyond loading, %d partitions", parts), "loading the image (source.Load)", s.roll, s.load},
			{fmt.Sprintf("lint.Run beyond loading, %d partitions", parts), "loading the image (source.Load)", s.lint, s.load},
			{fmt.Sprintf("kmeta quorum survey of 3 copies, %d partitions", parts), "read + CRC-32C of the 3 copies", s.survey, s.read},
			{fmt.Sprintf("kmeta lint --history -o json, %d partition changes", n), "kmeta lint -o json of the same log", s.hist, s.plain},
		}
		olds := []stat{small.roll, small.lint, small.survey, small.hist}
		if i == 0 {
			tb.add(fmt.Sprintf("loading the image in process, %d partitions", parts), s.load, 0, "", nil, "")
		} else {
			tb.addGrowth(fmt.Sprintf("loading the image in process, %d partitions", parts), s.load, 0, "", nil, small.load, factor, "")
		}
		for j, r := range rows {
			if i == 0 {
				tb.add(r.name, r.s, 0, r.peer, &r.p, "")
			} else {
				tb.addGrowth(r.name, r.s, 0, r.peer, &r.p, olds[j], factor, "")
			}
		}
		small = s
	}
	report(t, "KMETA_BENCH_REPORT_BEYOND", tb)
}

// copyTree makes dst a copy of the dir src (files hard-linked where the
// file system allows, copied otherwise); an existing dst is kept (a
// KMETA_BENCH_DIR of an earlier run).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if _, err := os.Stat(dst); err == nil {
		return
	}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if os.Link(p, to) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshotFile is the one snapshot of lintSnapshot's dir.
func snapshotFile(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "__cluster_metadata-0", "*.checkpoint"))
	if len(m) != 1 {
		t.Fatalf("%s: %d snapshots", dir, len(m))
	}
	return m[0]
}
