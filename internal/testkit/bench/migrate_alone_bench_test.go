package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestBenchMigrateAlone times kmeta's offline migration of
// writeVerifyPair's synthesized data dir (`migrate plan` writing the plan,
// then `migrate apply --plan`, each a process) at 1,000,000 partitions
// (KMETA_BENCH_MIGRATE_ALONE) and at ten times less, KMETA_BENCH_RUNS runs
// each (issue 32: plan + apply under 8 s, each under 1 GiB). Kafka's own
// migration is not run at this size: TestBenchMigrate compares the two at
// 100,000 partitions. The snapshot is a cluster as Kafka's migration
// leaves it: it holds /migration and three broker registrations, so the
// plan needs ignore-migration-znode (a blocker) and warns about the
// registrations (an offline snapshot: the brokers are stopped).
// KMETA_BENCH_SCALE=small: 100,000 and 10,000 partitions. It fails only
// when plan or apply does not do the job.
func TestBenchMigrateAlone(t *testing.T) {
	bin := benchBin(t)
	big := benchEnvInt("KMETA_BENCH_MIGRATE_ALONE", 1_000_000)
	if smallScale() {
		big = 100_000
	}
	const factor = 10
	controllers := fmt.Sprintf("%d@127.0.0.1:9093", zkBenchController)
	tb := &table{title: "kmeta migrate plan + apply of a synthesized ZooKeeper data dir"}
	var prev [3]stat
	for i, parts := range []int{big / factor, big} {
		dir := t.TempDir()
		if d := os.Getenv("KMETA_BENCH_DIR"); d != "" {
			dir = filepath.Join(d, "migrate-"+strconv.Itoa(parts))
		}
		zkDir, _, _, _ := writeVerifyPair(t, dir, parts/100, 100)
		var plans, applies, both []run
		for range benchRuns() {
			out := t.TempDir()
			plan := filepath.Join(out, "plan.json")
			p := runProc(t, exec.Command(bin, "migrate", "plan", "--zk", "zkdata:"+zkDir, "--metadata-version", "3.9", "--controllers", controllers,
				"--write", plan, "-o", "json", "--override", "ignore-migration-znode"), "")
			if _, err := os.Stat(plan); err != nil {
				t.Fatalf("%d partitions: plan wrote no plan file: %v", parts, err)
			}
			cmd := exec.Command(bin, "migrate", "apply", "--plan", plan, "--out", filepath.Join(out, "kraft"), "-o", "json")
			a := runProc(t, cmd, "")
			if cmd.ProcessState.ExitCode() != 0 {
				t.Fatalf("%d partitions: apply exit %d", parts, cmd.ProcessState.ExitCode())
			}
			if _, err := os.Stat(filepath.Join(out, "kraft", fmt.Sprintf("controller-%d", zkBenchController), "bootstrap.checkpoint")); err != nil {
				t.Fatalf("%d partitions: %v", parts, err)
			}
			plans, applies = append(plans, p), append(applies, a)
			both = append(both, run{wall: p.wall + a.wall, cpu: p.cpu + a.cpu, maxRSS: max(p.maxRSS, a.maxRSS)})
			os.RemoveAll(out)
		}
		cur := [3]stat{stats(plans), stats(applies), stats(both)}
		for j, name := range []string{"kmeta migrate plan", "kmeta migrate apply --plan", "kmeta migrate plan + apply"} {
			name = fmt.Sprintf("%s, %d partitions, data dir", name, parts)
			if i == 0 {
				tb.add(name, cur[j], 0, "", nil, "")
			} else {
				tb.addGrowth(name, cur[j], 0, "", nil, prev[j], factor, "")
			}
		}
		prev = cur
	}
	report(t, "KMETA_BENCH_REPORT_MIGRATE", tb)
}
