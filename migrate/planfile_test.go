package migrate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPlanFileRoundTrip: a written plan reads back whole with ReadPlan,
// without its topics with ReadPlanHeader, and Replan accepts the header
// against the same source; an existing file is replaced only when told.
func TestPlanFileRoundTrip(t *testing.T) {
	p, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: "4.0", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := WritePlan(path, p, false); err != nil {
		t.Fatal(err)
	}
	whole, err := ReadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Topics) != len(p.Topics) || whole.Records.SHA256 != p.Records.SHA256 || whole.ClusterID != p.ClusterID {
		t.Errorf("read back: %d topics, sha256 %s, cluster %s; wrote %d, %s, %s", len(whole.Topics), whole.Records.SHA256, whole.ClusterID,
			len(p.Topics), p.Records.SHA256, p.ClusterID)
	}
	head, err := ReadPlanHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if head.Topics != nil || head.Records.SHA256 != p.Records.SHA256 || len(head.Controllers) != len(ctrl) {
		t.Errorf("header: %d topics (want none), sha256 %s, %d controllers", len(head.Topics), head.Records.SHA256, len(head.Controllers))
	}
	if _, err := Replan(baseImage(), head, ReplanOptions{Source: "test"}); err != nil {
		t.Errorf("replan from the header: %v", err)
	}
	// The same content again is no change; other content needs overwrite.
	if err := WritePlan(path, p, false); err != nil {
		t.Errorf("rewriting the same plan: %v", err)
	}
	p.ClusterID = "other"
	if err := WritePlan(path, p, false); !errors.Is(err, ErrTargetNotEmpty) {
		t.Errorf("another plan over it: %v, want ErrTargetNotEmpty", err)
	}
	if err := WritePlan(path, p, true); err != nil {
		t.Errorf("another plan with overwrite: %v", err)
	}
}

// TestReadPlanRefusesOtherFiles: a file that is not JSON, or JSON of
// another format, is ErrBadInput naming the file.
func TestReadPlanRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"garbage": "not json", "other": `{"format":"something/2"}`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, read := range []func(string) (*Plan, error){ReadPlan, ReadPlanHeader} {
			if _, err := read(path); !errors.Is(err, ErrBadInput) {
				t.Errorf("%s: %v, want ErrBadInput", name, err)
			}
		}
	}
	if _, err := ReadPlan(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}

// TestApplyFileHook: the hook of one Apply call sees each file's two
// boundaries, before and after its rename, and a dry run none.
func TestApplyFileHook(t *testing.T) {
	p, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	hook := func(event, path string) { events = append(events, event+" "+filepath.Base(path)) }
	out := t.TempDir()
	if _, err := Apply(p, ApplyOptions{Out: out, DryRun: true, FileHook: hook}); err != nil || len(events) != 0 {
		t.Fatalf("dry run: %v, events %v", err, events)
	}
	if _, err := Apply(p, ApplyOptions{Out: out, FileHook: hook}); err != nil {
		t.Fatal(err)
	}
	want := []string{"before bootstrap.checkpoint", "after bootstrap.checkpoint", "before meta.properties", "after meta.properties"}
	if !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
}

// TestPlanFileContract: the file records the source with absolute paths
// (SourceFile) while the plan shows it as given; apply refuses a --node
// that is no controller of the plan; a --metadata-version that names no
// level and a log dir that is not there are bad input, not a plan.
func TestPlanFileContract(t *testing.T) {
	p, err := NewPlan(baseImage(), Options{Source: "zkdata:zk", SourceFile: "zkdata:/abs/zk", MetadataVersion: "4.0", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := WritePlan(path, p, false); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlanHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != "zkdata:zk" || back.Source != "zkdata:/abs/zk" {
		t.Errorf("source: plan %q, file %q; want zkdata:zk and zkdata:/abs/zk", p.Source, back.Source)
	}
	files, err := Apply(p, ApplyOptions{Out: t.TempDir(), Nodes: []int32{ctrl[0].ID + 1000}})
	if !errors.Is(err, ErrBadInput) || len(files) != 0 {
		t.Errorf("apply --node of no controller: %d files, %v; want ErrBadInput", len(files), err)
	}
	for _, level := range []string{"9.9", "2.8", "nonsense"} {
		if _, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: level, Controllers: ctrl}); !errors.Is(err, ErrBadInput) {
			t.Errorf("--metadata-version %s: %v, want ErrBadInput", level, err)
		}
	}
	if _, err := ConvertBrokers(p, BrokerOptions{LogDirs: []string{filepath.Join(t.TempDir(), "nope")}}); !errors.Is(err, ErrBadInput) {
		t.Errorf("a missing log dir: %v, want ErrBadInput", err)
	}
}
