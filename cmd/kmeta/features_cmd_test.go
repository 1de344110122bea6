package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/model"
)

func featuresTestCommands(img *model.Image) []func() *cli.Command {
	load := func(c *cli.Context, source string) (*model.Image, error) {
		if source == "missing" {
			return nil, errors.New("no such file")
		}
		return img, nil
	}
	return []func() *cli.Command{func() *cli.Command { return featuresCommand(load) }}
}

func TestFeaturesList(t *testing.T) {
	cmds := featuresTestCommands(nil)
	// The first lines are exactly kafka-features version-mapping's output
	// for 4.0 (see testdata/features/kafka-4.4.0.json).
	r := runTest(t, cmds, "features", "list", "--release", "4.0")
	want := "metadata.version=25 (4.0)\nkraft.version=1\ntransaction.version=2\ngroup.version=1\n" +
		"eligible.leader.replicas.version=0\nshare.version=0\nstreams.version=0\n\nlevel 25 is 4.0-IV3"
	if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("list --release 4.0: code %d\n%s", r.code, r.stdout)
	}
	r = runTest(t, cmds, "features", "list", "-o", "json", "--release", "3.9")
	var m report.ReleaseMapping
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || r.code != 0 {
		t.Fatalf("json: %v code %d %s", err, r.code, r.stdout)
	}
	if m.Level.Name != "3.9-IV0" || len(m.BootstrapRecords) != 1 || m.Features[0].Name != features.KRaftVersion || m.Features[0].Level != 1 {
		t.Errorf("json mapping %+v", m)
	}
	r = runTest(t, cmds, "features", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "33     4.4-IV2  4.4      yes          production, default") {
		t.Errorf("list: %d\n%s", r.code, r.stdout)
	}
	r = runTest(t, cmds, "features", "list", "--kafka", "3.9", "-o", "json")
	var cat features.Catalog
	if err := json.Unmarshal([]byte(r.stdout), &cat); err != nil || cat.Name != "3.9" || len(cat.Levels) != 23 {
		t.Errorf("3.9 json: %v %s %d", err, cat.Name, len(cat.Levels))
	}
	for _, args := range [][]string{{"features", "list", "-r", "4.5"}, {"features", "list", "--kafka", "2.8"}, {"features", "list", "x"}} {
		if r := runTest(t, cmds, args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%v: code %d stdout %q", args, r.code, r.stdout)
		}
	}
}

func TestFeaturesDeps(t *testing.T) {
	cmds := featuresTestCommands(nil)
	r := runTest(t, cmds, "features", "deps", "-o", "json", "eligible.leader.replicas.version=1")
	if r.code != 0 || !strings.Contains(r.stdout, `"feature": "metadata.version",`) || !strings.Contains(r.stdout, `"level": 23`) {
		t.Errorf("deps: %d %s", r.code, r.stdout)
	}
	if r := runTest(t, cmds, "features", "deps", "share.version=9"); r.code != 2 {
		t.Errorf("unknown level: %+v", r)
	}
}

func TestFeaturesCheckAndDescribe(t *testing.T) {
	img := model.NewImage()
	img.Features["metadata.version"] = 21
	img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "alice"}
	cmds := featuresTestCommands(img)

	r := runTest(t, cmds, "features", "check", "--target", "4.4", "kraft:/x")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "allowed: 3.9-IV0 -> 4.4-IV2 (upgrade, 4.x catalog)\n") {
		t.Errorf("upgrade: %d %q", r.code, r.stdout)
	}
	r = runTest(t, cmds, "features", "check", "-o", "json", "--target", "3.5-IV1", "kraft:/x")
	var v features.Verdict
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 1 || v.Allowed || !v.Lossy {
		t.Fatalf("downgrade: %v code %d %s", err, r.code, r.stdout)
	}
	if r := runTest(t, cmds, "features", "check", "--target", "4.4", "missing"); r.code != 2 {
		t.Errorf("missing: %+v", r)
	}
	if r := runTest(t, cmds, "features", "check", "kraft:/x"); r.code != 2 {
		t.Errorf("no target: %+v", r)
	}
	r = runTest(t, cmds, "features", "describe", "-o", "json", "kraft:/x")
	var st features.State
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || r.code != 0 {
		t.Fatalf("describe: %v %s", err, r.stdout)
	}
	if st.MetadataVersion.Name != "3.9-IV0" || st.RequiredMinimum.Name != "3.5-IV2" || !st.LoadableBy4x || st.Requirements[0].Count != 1 {
		t.Errorf("describe: %+v", st)
	}
}
