package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/migrate"
)

const fixtureZK = "zkdata:../../testdata/zk/datadir"

// fixturePlan writes a plan of the ZooKeeper fixture for two controllers
// (its pending deletion and in-flight reassignment overridden) and returns
// its path.
func fixturePlan(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	plan := filepath.Join(dir, "plan.json")
	out, serr, code := kmetaRun(t, append([]string{"migrate", "plan", "--zk", fixtureZK, "--controllers", "3000@127.0.0.1:9093,3001@127.0.0.1:9094",
		"--override", migrate.OverrideDropPendingDeletions, "--override", migrate.OverrideKeepReassignments, "--write", plan}, extra...)...)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, serr)
	}
	return plan
}

// checkEachOldOrNew fails unless every file under got is either absent or
// byte-identical to the one under ref (temporary .part files aside).
func checkEachOldOrNew(t *testing.T, ref, got string) {
	t.Helper()
	filepath.WalkDir(got, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".part") {
			return err
		}
		rel, _ := filepath.Rel(got, p)
		a, _ := os.ReadFile(filepath.Join(ref, rel))
		b, _ := os.ReadFile(p)
		if string(a) != string(b) {
			t.Errorf("%s is neither absent nor complete after kill -9", rel)
		}
		return nil
	})
}

// TestMigrateApplyKillAtEveryBoundary: kmeta migrate apply SIGKILLed at
// every file boundary (before and after each rename) leaves each file
// absent or complete, a rerun completes the job to exactly the files of an
// uninterrupted run, and the ZooKeeper data dir is untouched; for a static
// quorum (bootstrap.checkpoint) and a dynamic one (the bootstrap snapshot
// in __cluster_metadata-0, a directory apply creates).
func TestMigrateApplyKillAtEveryBoundary(t *testing.T) {
	for _, q := range []string{migrate.QuorumStatic, migrate.QuorumDynamic} {
		t.Run(q, func(t *testing.T) { applyKillAtEveryBoundary(t, q) })
	}
}

func applyKillAtEveryBoundary(t *testing.T, quorum string) {
	work := t.TempDir()
	plan := fixturePlan(t, work, "--quorum", quorum)
	zkHash := fstree.Hash(t, "../../testdata/zk/datadir")
	ref := filepath.Join(work, "ref")
	if out, serr, code := kmetaRun(t, "migrate", "apply", "--plan", plan, "--out", ref); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, serr)
	}
	refHash := fstree.Hash(t, ref)
	const boundaries = 2 * 2 * 2 // 2 controllers x 2 files x (before, after)
	for k := 1; k <= boundaries+1; k++ {
		out := filepath.Join(work, fmt.Sprintf("kill-%d", k))
		o, err := kmetaProcess(t, []string{"KMETA_MIGRATE_KILL_AT=" + itoa(k)}, "migrate", "apply", "--plan", plan, "--out", out)
		if k <= boundaries && !isKilled(err) {
			t.Fatalf("kill at %d: not killed (%v)\n%s", k, err, o)
		}
		if k > boundaries && err != nil {
			t.Fatalf("kill at %d (past the last boundary): %v\n%s", k, err, o)
		}
		checkEachOldOrNew(t, ref, out)
		if o, serr, code := kmetaRun(t, "migrate", "apply", "--plan", plan, "--out", out); code != exitOK {
			t.Fatalf("rerun after kill at %d: exit %d\n%s%s", k, code, o, serr)
		}
		if h := fstree.Hash(t, out); h != refHash {
			t.Errorf("rerun after kill at %d: files differ from an uninterrupted apply", k)
		}
	}
	if fstree.Hash(t, "../../testdata/zk/datadir") != zkHash {
		t.Fatal("apply changed its input")
	}
	// A target holding other content is refused.
	os.WriteFile(filepath.Join(ref, "controller-3000", "meta.properties"), []byte("other"), 0o644)
	if _, serr, code := kmetaRun(t, "migrate", "apply", "--plan", plan, "--out", ref); code != exitFailure || !strings.Contains(serr, "--force") {
		t.Errorf("apply over other content: exit %d, %s", code, serr)
	}
}

// TestMigrateBrokersKillAtEveryBoundary: the same for migrate brokers on a
// ZooKeeper-mode broker dir laid out as Kafka 3.9 leaves it.
func TestMigrateBrokersKillAtEveryBoundary(t *testing.T) {
	work := t.TempDir()
	plan := fixturePlan(t, work)
	p, err := migrate.ReadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(dir string) {
		write := func(rel, s string) {
			path := filepath.Join(dir, rel)
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("meta.properties", "#\n#Tue Dec 01 09:00:00 UTC 2026\nbroker.id=1\nversion=0\ncluster.id="+p.ClusterID+"\n")
		n := 0
		for _, tp := range p.Topics {
			for _, pp := range tp.Partitions {
				if tp.Skipped || !containsID(pp.Replicas, 1) {
					continue
				}
				d := fmt.Sprintf("%s-%d", tp.Name, pp.ID)
				write(d+"/00000000000000000000.log", "segment "+d)
				if n%2 == 0 {
					write(d+"/partition.metadata", "version: 0\ntopic_id: "+tp.ID.String())
				}
				n++
			}
		}
	}
	ref := filepath.Join(work, "ref")
	mk(ref)
	before := logDataHash(t, ref)
	if out, serr, code := kmetaRun(t, "migrate", "brokers", "--plan", plan, "--log-dirs", ref); code != exitOK {
		t.Fatalf("brokers: exit %d\n%s%s", code, out, serr)
	}
	if logDataHash(t, ref) != before {
		t.Fatal("log data changed")
	}
	// Count the boundaries with the library's file hook, the option the
	// command arms from KMETA_MIGRATE_KILL_AT.
	boundaries := 0
	tmp := filepath.Join(work, "count")
	mk(tmp)
	if _, err := migrate.ConvertBrokers(p, migrate.BrokerOptions{LogDirs: []string{tmp}, FileHook: func(string, string) { boundaries++ }}); err != nil {
		t.Fatal(err)
	}
	if boundaries < 6 {
		t.Fatalf("only %d file boundaries", boundaries)
	}
	for k := 1; k <= boundaries; k++ {
		// directory.id derives from the dir's path: make the reference
		// at the same path first.
		dir := filepath.Join(work, fmt.Sprintf("kill-%d", k))
		mk(dir)
		kmetaRun(t, "migrate", "brokers", "--plan", plan, "--log-dirs", dir)
		ref, refHash := filepath.Join(work, fmt.Sprintf("ref-%d", k)), fstree.Hash(t, dir)
		if err := os.Rename(dir, ref); err != nil {
			t.Fatal(err)
		}
		mk(dir)
		if o, err := kmetaProcess(t, []string{"KMETA_MIGRATE_KILL_AT=" + itoa(k)}, "migrate", "brokers", "--plan", plan, "--log-dirs", dir); !isKilled(err) {
			t.Fatalf("kill at %d: not killed (%v)\n%s", k, err, o)
		}
		checkEachOldOrNewBroker(t, ref, dir)
		if o, serr, code := kmetaRun(t, "migrate", "brokers", "--plan", plan, "--log-dirs", dir); code != exitOK {
			t.Fatalf("rerun after kill at %d: exit %d\n%s%s", k, code, o, serr)
		}
		if fstree.Hash(t, dir) != refHash {
			t.Errorf("rerun after kill at %d: the dir differs from an uninterrupted conversion", k)
		}
	}
}

// checkEachOldOrNewBroker: every file is the original or the converted one.
func checkEachOldOrNewBroker(t *testing.T, ref, got string) {
	t.Helper()
	filepath.WalkDir(got, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".part") {
			return err
		}
		rel, _ := filepath.Rel(got, p)
		a, _ := os.ReadFile(filepath.Join(ref, rel))
		b, _ := os.ReadFile(p)
		if string(a) != string(b) && !(rel == "meta.properties" && strings.Contains(string(b), "version=0")) {
			t.Errorf("%s is neither the old nor the new file after kill -9", rel)
		}
		return nil
	})
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func itoa(n int) string { return fmt.Sprint(n) }
