package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// TestMigrateBrokersWithoutControllers: migrate brokers needs no
// controllers (a broker's meta.properties v1 names no voter), so a plan
// made with --zk alone neither blocks it nor lists no-controllers. Before,
// the refusal printed the plan with no-controllers among its errors
// ("BLOCKED (3 blockers)") and then said "the plan has 2 blockers": a
// blocker listed and ignored.
func TestMigrateBrokersWithoutControllers(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, "logs-1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	chroot := "kmeta: warning: chroot-detected: chroot /kafka/prod detected in the data dir (../../testdata/zk/datadir, znode /kafka/prod)\n"

	// Blocked by what does block broker dirs, and by nothing else.
	out, serr, code := kmetaRun(t, "migrate", "brokers", "--zk", fixtureZK, "--log-dirs", dir, "--dry-run", "-o", "json")
	var doc struct {
		Blocked  bool            `json:"blocked"`
		Findings []model.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("exit %d, not JSON (%v):\n%s%s", code, err, out, serr)
	}
	var errs []string
	for _, f := range doc.Findings {
		if f.Severity == model.SevError {
			errs = append(errs, f.Code)
		}
	}
	wantErr := chroot + "kmeta: refusing to convert broker dirs: the plan has 2 blockers\n"
	if code != exitFindings || !doc.Blocked || !slices.Equal(errs, []string{migrate.CodeReassignmentInFlight, migrate.CodePendingDeletion}) || serr != wantErr {
		t.Errorf("blocked: exit %d, blocked %v, errors %v\nstderr %q\n  want %q", code, doc.Blocked, errs, serr, wantErr)
	}
	out, _, _ = kmetaRun(t, "migrate", "brokers", "--zk", fixtureZK, "--log-dirs", dir, "--dry-run")
	if want := "verdict             BLOCKED (2 blockers)"; !slices.Contains(strings.Split(out, "\n"), want) {
		t.Errorf("the plan printed does not say %q:\n%s", want, out)
	}

	// Those two overridden: ready, with --zk and with the plan file
	// migrate plan wrote (exit 1 there: no controllers), each the same.
	over := []string{"--override", migrate.OverrideDropPendingDeletions, "--override", migrate.OverrideKeepReassignments}
	plan := filepath.Join(work, "plan.json")
	if out, serr, code := kmetaRun(t, append([]string{"migrate", "plan", "--zk", fixtureZK, "--write", plan}, over...)...); code != exitFindings {
		t.Fatalf("plan without --controllers: exit %d, want 1\n%s%s", code, out, serr)
	}
	p, err := migrate.ReadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte("broker.id=1\nversion=0\ncluster.id="+p.ClusterID+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tp := range p.Topics {
		for _, pp := range tp.Partitions {
			if !tp.Skipped && slices.Contains(pp.Replicas, 1) {
				if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("%s-%d", tp.Name, pp.ID)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for name, args := range map[string][]string{
		"--zk":   append([]string{"migrate", "brokers", "--zk", fixtureZK, "--log-dirs", dir, "--dry-run", "-o", "json"}, over...),
		"--plan": {"migrate", "brokers", "--plan", plan, "--log-dirs", dir, "--dry-run", "-o", "json"},
	} {
		out, serr, code := kmetaRun(t, args...)
		var r migrate.BrokerReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: exit %d, not JSON (%v):\n%s%s", name, code, err, out, serr)
		}
		var codes []string
		for _, f := range r.Findings {
			codes = append(codes, f.Code)
		}
		if code != exitOK || r.Blocked || !slices.Equal(codes, []string{migrate.CodeBrokerConverted, migrate.CodePartitionMetaMissing}) || len(r.Files) == 0 {
			t.Errorf("%s: exit %d, blocked %v, findings %v, %d files\n%s", name, code, r.Blocked, codes, len(r.Files), serr)
		}
	}
}
