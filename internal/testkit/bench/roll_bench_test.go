package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/roll"
)

// TestBenchRoll measures roll at a million partitions (issue 30), on
// the image TestBenchLint lints (lintCluster: three brokers, a cluster
// default min.insync.replicas of 2, every hundredth partition with an
// ISR of 2, every thousandth topic of replication factor 1), side by
// side with loading it and with lint.Run's figure in the same table:
//
//   - in this process: loading the image, then roll.Check of broker 0
//     beyond loading (the acceptance: under 1 s), roll.Back and
//     roll.Order of every broker;
//   - kmeta roll check -o json end to end (the voters from a broker's
//     file, as an operator passes a static quorum's), with its peak RSS.
//
// KMETA_BENCH_SCALE=small: 100,000 partitions. Figures are reported,
// never asserted; the test fails only when the verdict does not say what
// the image holds.
func TestBenchRoll(t *testing.T) {
	bin := benchBin(t)
	parts := 1_000_000
	if smallScale() {
		parts = 100_000
	}
	dir := t.TempDir()
	if d := os.Getenv("KMETA_BENCH_DIR"); d != "" {
		dir = d
	}
	var rows []string
	row := func(format string, a ...any) { rows = append(rows, fmt.Sprintf(format, a...)) }
	start := time.Now()
	snap := lintSnapshot(t, mkdir(t, dir, fmt.Sprintf("lint-%d", parts)), parts)
	gen := time.Since(start)
	img, load := loadMeasured(t, "kraft:"+snap)
	row("image of %d partitions (snapshot generated in %s): load %s, %d MiB live heap", parts, gen.Round(time.Second), load, load.heap>>20)
	// A dedicated controller quorum: broker 0 is a broker only.
	in := roll.Input{Image: img, Quorum: roll.QuorumFromFiles(img, map[int32]map[string]string{0: {"controller.quorum.voters": "3000@c1:9093"}})}
	var v roll.Verdict
	check := measure(t, func() error { v = roll.Check(in, 0); return nil })
	// Partition 50 of every RF 3 topic has an ISR of 2 holding broker 0
	// (at min ISR 2); broker 0 is the only replica of a third of the RF 1
	// topics' partitions.
	wantUnder := parts / 100 * 999 / 1000
	under, offline := 0, 0
	for _, b := range v.Blocking {
		switch b.Rule {
		case roll.CodeUnderMinISR:
			under++
		case roll.CodeTakesOffline:
			offline++
		}
	}
	if v.Answer != roll.Unsafe || under != wantUnder || offline == 0 {
		t.Fatalf("roll.Check of broker 0: %s, %d under min ISR (want %d), %d offline", v.Answer, under, wantUnder, offline)
	}
	row("roll.Check of broker 0 beyond loading: %s (target: under 1 s), %d of its %d partitions blocking (%d under min ISR, %d offline), %d findings",
		check, len(v.Blocking), v.Hosted, under, offline, len(v.Findings))
	back := measure(t, func() error { roll.Back(in, 0); return nil })
	row("roll.Back of broker 0 beyond loading: %s", back)
	order := measure(t, func() error {
		_, err := roll.Order(in, roll.Brokers(in))
		return err
	})
	row("roll.Order of every broker beyond loading: %s", order)
	img, in = nil, roll.Input{}

	cfg := filepath.Join(t.TempDir(), "server-0.properties")
	if err := os.WriteFile(cfg, []byte("process.roles=broker\nnode.id=0\ncontroller.quorum.voters=3000@c1:9093\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wall, cpu, rss, out := kmetaCost(t, bin, "roll", "check", "--node", "0", "-o", "json", "--config", "0="+cfg, snap)
	var doc roll.Verdict
	if err := json.Unmarshal(out, &doc); err != nil || doc.Answer != roll.Unsafe || len(doc.Blocking) != len(v.Blocking) {
		t.Fatalf("kmeta roll check -o json: %v, %s, %d blocking", err, doc.Answer, len(doc.Blocking))
	}
	row("kmeta roll check -o json, end to end (load included): %.2f s, %.2f s CPU, peak RSS %d MiB, %d MiB of JSON", wall.Seconds(), cpu.Seconds(), rss>>10, len(out)>>20)
	t.Logf("\nkmeta roll at scale (%s):\n%s", machine(), strings.Join(rows, "\n"))
}
