package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestBenchMigrate times kmeta's offline migration (`migrate plan` then
// `migrate apply --plan`, each a process: wall time and peak RSS) side by
// side with Kafka 3.9.2's own ZooKeeper to KRaft migration of the same
// state: writeZKLayout's cluster (KMETA_BENCH_ZK_TOPICS x
// KMETA_BENCH_ZK_PARTITIONS, default 1,000 x 100) in a real ZooKeeper:
// kmeta from the live ZooKeeper, then (ZooKeeper stopped) from its data
// dir, then ZooKeeper restarted and Kafka's migration (kafkaMigrateZK, the
// figure its controller logs). kmeta alone at a size Kafka's is not run
// at is TestBenchMigrateAlone's.
//
// Timings are reported, never asserted; the test fails only when a tool
// cannot do the job.
func TestBenchMigrate(t *testing.T) {
	if os.Getenv("KMETA_BENCH") != "1" {
		t.Skip("benchmark: set KMETA_BENCH=1 (make bench)")
	}
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	bin := kmetaBin(t)
	topics := benchEnvInt("KMETA_BENCH_ZK_TOPICS", zkBenchTopics)
	parts := benchEnvInt("KMETA_BENCH_ZK_PARTITIONS", zkBenchPartitions)
	controllers := fmt.Sprintf("%d@127.0.0.1:9093", zkBenchController)
	var rows []string
	row := func(name string, wall, cpu time.Duration, rssKiB int64, note string) {
		c := "       n/a"
		if cpu > 0 {
			c = fmt.Sprintf("%8.2f s", cpu.Seconds())
		}
		rows = append(rows, fmt.Sprintf("| %-68s | %8.2f s | %s | %6d MiB | %s", name, wall.Seconds(), c, rssKiB/1024, note))
	}
	cpuOf := func(cmd *exec.Cmd) time.Duration {
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	// kmetaMigrate runs plan (writing the plan file) and apply of that
	// plan, and returns both runs. overrides are named by the caller.
	kmetaMigrate := func(label, src string, overrides ...string) {
		t.Helper()
		dir := t.TempDir()
		plan := filepath.Join(dir, "plan.json")
		args := []string{"migrate", "plan", "--zk", src, "--metadata-version", "3.9", "--controllers", controllers, "--write", plan, "-o", "json"}
		for _, o := range overrides {
			args = append(args, "--override", o)
		}
		pc := exec.Command(bin, args...)
		p := runProc(t, pc, `"code"`)
		if _, err := os.Stat(plan); err != nil {
			t.Fatalf("%s: plan wrote no plan file: %v", label, err)
		}
		cmd := exec.Command(bin, "migrate", "apply", "--plan", plan, "--out", filepath.Join(dir, "kraft"), "-o", "json")
		a := runProc(t, cmd, `"path"`)
		if cmd.ProcessState.ExitCode() != 0 {
			t.Fatalf("%s: apply exit %d", label, cmd.ProcessState.ExitCode())
		}
		boot := filepath.Join(dir, "kraft", fmt.Sprintf("controller-%d", zkBenchController), "bootstrap.checkpoint")
		st, err := os.Stat(boot)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		ps, _ := os.Stat(plan)
		row("kmeta migrate plan, "+label, p.wall, cpuOf(pc), p.maxRSS, fmt.Sprintf("plan file %d KiB", ps.Size()>>10))
		row("kmeta migrate apply --plan, "+label, a.wall, cpuOf(cmd), a.maxRSS, fmt.Sprintf("re-reads the source (zxid check); bootstrap.checkpoint %d KiB", st.Size()>>10))
		row("kmeta plan + apply, "+label, p.wall+a.wall, cpuOf(pc)+cpuOf(cmd), max(p.maxRSS, a.maxRSS), "")
	}

	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{"forceSync": "no"}, JVMOpts: zkScriptJVMOpts})
	start := time.Now()
	clusterID, nodes := writeZKLayout(t, zks.Addr(), topics, parts)
	t.Logf("wrote %d znodes (%d topics x %d partitions) in %s", nodes, topics, parts, time.Since(start).Round(time.Millisecond))
	n := topics * parts
	kmetaMigrate(fmt.Sprintf("%d partitions, live zk://", n), "zk://"+zks.Connect(zkBenchChroot))
	zks.Stop()
	kmetaMigrate(fmt.Sprintf("%d partitions, zkdata: (stopped)", n), "zkdata:"+zks.DataDir)
	zks.Restart()
	km := kafkaMigrateZK(t, d, zks, clusterID, topics, parts)
	row(fmt.Sprintf("Kafka 3.9.2 ZK→KRaft migration, %d partitions, live", n), km.wall, 0, km.rss,
		fmt.Sprintf("the controller's \"generated in M ms\" (%d records, %d batches); RSS: the JVM's peak over its life", km.records, km.batches))

	t.Logf("\nmigration, kmeta offline vs Kafka 3.9.2's own (loaded machine):\n| %-68s | %10s | %10s | %10s | note\n%s",
		"run", "wall", "CPU", "peak RSS", strings.Join(rows, "\n"))
}
