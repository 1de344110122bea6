package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/model"
)

const kraftFixture39 = "../../testdata/kraft/3.9.2/metadata"

// A ZooKeeper data dir and the dump `kmeta zk dump` writes of it without
// --show-secrets (SCRAM keys and sensitive values hashed) are the same
// view: diff compares the redacted side by fingerprint.
func TestDiffDataDirAgainstRedactedDump(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "dump.json")
	dataDir := "zkdata:" + filepath.Join(zkFixture, "datadir")
	if code, _, stderr := runKmeta(t, "zk", "dump", "--out", dump, dataDir); code != exitOK {
		t.Fatalf("zk dump: exit %d: %s", code, stderr)
	}
	code, out, stderr := runKmeta(t, "diff", "-o", "json", dataDir, "zkdump:"+dump)
	var rep struct {
		Result   string            `json:"result"`
		Findings []json.RawMessage `json:"findings"`
		Compared []struct {
			Class       string
			Left, Right int
		} `json:"compared"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
	}
	if code != exitOK || rep.Result != "equal" || len(rep.Findings) != 0 {
		t.Fatalf("exit %d, result %s, findings %s", code, rep.Result, out)
	}
	for _, c := range rep.Compared {
		if c.Class == "scram" && c.Left != 4 {
			t.Errorf("compared %d SCRAM credentials, the fixture holds 4", c.Left)
		}
	}
}

// A view resting on partial input is never reported as equal: a KRaft
// log whose replay stops at a damaged batch makes verify and diff exit 2
// and say what the view rests on; --allow-partial compares anyway.
func TestVerifyPartialView(t *testing.T) {
	damaged := fstree.Copy(t, kraftFixture39)
	seg := filepath.Join(damaged, "__cluster_metadata-0", "00000000000000000087.log")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[3000] ^= 0xff // inside the batch at offset 127: its CRC fails
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runKmeta(t, "diff", "-o", "json", "kraft:"+kraftFixture39, "kraft:"+damaged)
	var rep struct {
		Result string `json:"result"`
		Right  struct {
			Partial []string `json:"partial"`
		} `json:"right"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if code != exitFailure || rep.Result != "partial" || len(rep.Right.Partial) != 1 || !strings.Contains(rep.Right.Partial[0], "replay-stopped (") || !strings.Contains(rep.Right.Partial[0], "offset 127)") {
		t.Fatalf("exit %d, result %s, partial %q, stderr %s", code, rep.Result, rep.Right.Partial, stderr)
	}
	// The damaged copy against itself: no difference, but still not
	// "equal" unless allowed.
	if code, _, _ := runKmeta(t, "diff", "kraft:"+damaged, "kraft:"+damaged); code != exitFailure {
		t.Errorf("partial views called equal: exit %d", code)
	}
	code, out, _ = runKmeta(t, "diff", "--allow-partial", "kraft:"+damaged, "kraft:"+damaged)
	if code != exitOK || !strings.Contains(out, "a view is partial") {
		t.Errorf("--allow-partial: exit %d\n%s", code, out)
	}
}

func TestVerifyUsageErrors(t *testing.T) {
	zkSrc := "zkdata:" + filepath.Join(zkFixture, "datadir")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"sides swapped", []string{"verify", "--zk", "kraft:" + kraftFixture39, "--kraft", zkSrc}, "not a ZooKeeper source"},
		{"unknown class", []string{"verify", "--ignore", "bogus", "--zk", zkSrc, "--kraft", "kraft:" + kraftFixture39}, "unknown class"},
		{"unreadable source", []string{"verify", "--zk", zkSrc, "--kraft", "kraft:/nonexistent/dir"}, "reading kraft:/nonexistent/dir"},
		{"one argument", []string{"diff", "kraft:" + kraftFixture39}, "missing BEFORE AFTER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runKmeta(t, tc.args...)
			if code != exitFailure || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tc.want)
			}
			if out != "" {
				t.Errorf("an error printed a report: %s", out)
			}
		})
	}
}

// Two different clusters: verify runs, reports differences grouped by
// class in the table, and exits 1; --ignore drops a class and says so.
func TestVerifyDifferentClusters(t *testing.T) {
	zkSrc := "zkdata:" + filepath.Join(zkFixture, "datadir")
	code, out, stderr := runKmeta(t, "verify", "-o", "table", "--ignore", "runtime", "--zk", zkSrc, "--kraft", "kraft:"+kraftFixture39)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"result: DIFFERENT", "ignored: class runtime", "| cluster ", "missing-in-kraft", "expected-pending-deletion"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| runtime ") {
		t.Errorf("ignored class printed:\n%s", out)
	}
}

// kmeta verify between a ZooKeeper state and kmeta's own migration of it
// is exit 0: the fixture's snapshot keeps two broker registrations (its
// ZooKeeper stopped before its brokers) and a topic pending deletion,
// which an offline migration explains. A file that is not a plan is an
// error (exit 2).
func TestVerifyOwnMigration(t *testing.T) {
	work := t.TempDir()
	plan := filepath.Join(work, "plan.json")
	if out, serr, code := kmetaRun(t, "migrate", "plan", "--zk", fixtureZK, "--controllers", "3000@127.0.0.1:9093",
		"--override", "drop-pending-deletions", "--override", "keep-reassignments", "--write", plan); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, serr)
	}
	if out, serr, code := kmetaRun(t, "migrate", "apply", "--plan", plan, "--out", work); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, serr)
	}
	kraft := "kraft:" + filepath.Join(work, "controller-3000")
	code, v, stderr := runVerify(t, "--zk", fixtureZK, "--kraft", kraft, "--plan", plan)
	if code != exitOK || v.Result != "equal" {
		t.Fatalf("verify: exit %d (%s):%s\n%s", code, v.Result, showFindings(v.Findings), stderr)
	}
	for _, want := range []string{"expected-zookeeper-only broker 1 ", "expected-zookeeper-only broker 2 ", "no-broker-registered brokers ", "expected-pending-deletion topic doomed "} {
		if !strings.Contains(strings.Join(explained(v), "\n"), want) {
			t.Errorf("not explained: %q (explained %q)", want, explained(v))
		}
	}
	bad := filepath.Join(work, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"nope"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runKmeta(t, "verify", "--zk", fixtureZK, "--kraft", kraft, "--plan", bad); code != exitFailure {
		t.Errorf("verify --plan with a bad plan file: exit %d, want %d", code, exitFailure)
	}
}

// TestVerifyBootstrapFileClusterIDNotReported: a bootstrap.checkpoint
// holds no cluster id (meta.properties does), so verify leaves the id out
// of the comparison and says so; it reported a cluster-id difference
// against "" (an audit found it). The same records read with their
// meta.properties compare the id.
func TestVerifyBootstrapFileClusterIDNotReported(t *testing.T) {
	const dir = "../../testdata/kraft/bootstrap/3.9.2/3.9-IV0/metadata"
	for _, tc := range []struct {
		src         string
		idCompared  bool
		notCompared []model.Field
	}{
		{"kraft:" + dir + "/bootstrap.checkpoint", false, []model.Field{model.FieldClusterID}},
		{"kraft:" + dir, true, nil},
	} {
		code, out, stderr := runKmeta(t, "verify", "-o", "json", "--zk", "zkdata:../../testdata/zk/datadir", "--kraft", tc.src)
		var v struct {
			Findings          []model.Finding `json:"findings"`
			NotComparedFields []model.Field   `json:"notComparedFields"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitFindings {
			t.Fatalf("%s: exit %d, %v\n%s", tc.src, code, err, stderr)
		}
		cluster := 0
		for _, f := range v.Findings {
			if f.Class == "cluster" {
				cluster++
			}
		}
		if (cluster == 1) != tc.idCompared || cluster > 1 || !slices.Equal(v.NotComparedFields, tc.notCompared) {
			t.Errorf("%s: %d cluster findings, not compared %q", tc.src, cluster, v.NotComparedFields)
		}
	}
}
