package quorum

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

func open(t *testing.T, dirs ...string) (*model.QuorumStatus, error) {
	t.Helper()
	var ds []*metalog.LogDir
	for _, p := range dirs {
		d, err := metalog.OpenLogDir(p)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	st, _, err := FromLogDirs(ds)
	return st, err
}

// The 4.4.0 fixture is a dynamic quorum of one controller (3000): its
// voter set (VotersRecord) carries the directory id meta.properties has.
func TestFromLogDirs(t *testing.T) {
	fixture := filepath.Join("..", "testdata", "kraft", "4.4.0", "metadata")
	st, err := open(t, fixture)
	if err != nil {
		t.Fatal(err)
	}
	if st.LeaderID != 3000 || st.LeaderEpoch != 1 || st.KRaftVersion != 1 || len(st.Voters) != 1 || st.ClusterID != "ToAmJGLdjtzIec30sLZozA" {
		t.Fatalf("status %+v", st)
	}
	v := st.Voters[0]
	if v.ID != 3000 || v.DirectoryID.String() != "vRbNb5yoRRC4RtSsqMlYiA" || v.MetaDirectoryID != v.DirectoryID || v.LogEndOffset != 194 ||
		len(v.Endpoints) != 1 || v.Endpoints[0].Name != "CONTROLLER" {
		t.Fatalf("voter %+v", v)
	}
	want := []model.Field{model.QuorumFieldHighWatermark, model.QuorumFieldLastCaughtUp, model.QuorumFieldLastFetch, model.QuorumFieldObservers}
	if !slices.Equal(st.NotReported, want) {
		t.Fatalf("not reported %q, want %q", st.NotReported, want)
	}
	if a := voters.Judge(st, voters.Options{}); slices.ContainsFunc(a.Findings, func(f model.Finding) bool { return f.Code == voters.CodeDirectoryIDMismatch }) {
		t.Fatalf("findings %v", a.Findings)
	}

	// The same dir with another directory.id in meta.properties: the
	// voter set no longer names this dir.
	dir := fstree.Copy(t, fixture)
	mp := filepath.Join(dir, "meta.properties")
	b, _ := os.ReadFile(mp)
	if err := os.WriteFile(mp, []byte(strings.Replace(string(b), "vRbNb5yoRRC4RtSsqMlYiA", "AAAAAAAAAAAAAAAAAAAAZA", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err = open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	a := voters.Judge(st, voters.Options{})
	if !slices.ContainsFunc(a.Findings, func(f model.Finding) bool {
		return f.Code == voters.CodeDirectoryIDMismatch && f.Severity == model.SevError && f.Entity == "controller 3000"
	}) {
		t.Fatalf("findings %v", a.Findings)
	}

	// Two dirs of one node, or of two clusters, are refused.
	if _, err := open(t, fixture, dir); err == nil || !strings.Contains(err.Error(), "both node 3000's") {
		t.Fatalf("one node twice: %v", err)
	}
	other := filepath.Join("..", "testdata", "kraft", "3.9.2", "metadata")
	if _, err := open(t, fixture, other); err == nil || !strings.Contains(err.Error(), "belongs to cluster") {
		t.Fatalf("two clusters: %v", err)
	}
}
