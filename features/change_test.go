package features

import (
	"errors"
	"slices"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// cluster44 is a one-node 4.4.0 cluster finalized at mv with the given
// features, its node supporting what 4.4.0 supports.
func cluster44(mv int16, feats map[string]int16) ClusterFeatures {
	fin := map[string]int16{MetadataVersionFeature: mv}
	for k, v := range feats {
		fin[k] = v
	}
	sup := map[string][2]int16{MetadataVersionFeature: {7, 33}, KRaftVersion: {0, 1}, TransactionVersion: {0, 2},
		GroupVersion: {0, 1}, ELRVersion: {0, 1}, ShareVersion: {0, 2}, StreamsVersion: {0, 1}}
	return ClusterFeatures{Finalized: fin, Nodes: []NodeSupport{{Kind: "broker", ID: 1, Supported: sup}, {Kind: "controller", ID: 1, Supported: sup}}}
}

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == model.SevError {
			out = append(out, f.Code)
		}
	}
	return out
}

func TestTargets(t *testing.T) {
	c := Default()
	ts, err := c.Targets(ChangeRequest{Op: OpUpgrade, ReleaseVersion: "4.0"})
	if err != nil {
		t.Fatal(err)
	}
	// 4.0-IV3 (25): group.version 1, transaction.version 2; kraft.version 1
	// (default from 21); zeros are skipped on upgrade.
	want := []FeatureTarget{{GroupVersion, 1, Upgrade}, {KRaftVersion, 1, Upgrade}, {MetadataVersionFeature, 25, Upgrade}, {TransactionVersion, 2, Upgrade}}
	if !slices.Equal(ts, want) {
		t.Errorf("upgrade --release-version 4.0: %v, want %v", ts, want)
	}
	ts, _ = c.Targets(ChangeRequest{Op: OpDowngrade, ReleaseVersion: "3.9"})
	if len(ts) != 7 || ts[0].Type != SafeDowngrade {
		t.Errorf("downgrade --release-version 3.9 keeps zeros, SAFE_DOWNGRADE: %v", ts)
	}
	ts, _ = c.Targets(ChangeRequest{Op: OpDisable, Features: []string{"group.version"}, Unsafe: true})
	if !slices.Equal(ts, []FeatureTarget{{GroupVersion, 0, UnsafeDowngrade}}) {
		t.Errorf("disable --unsafe: %v", ts)
	}
	ts, _ = c.Targets(ChangeRequest{Op: OpUpgrade, Metadata: "3.9", Features: []string{"group.version=1"}})
	if !slices.Equal(ts, []FeatureTarget{{GroupVersion, 1, Upgrade}, {MetadataVersionFeature, 21, Upgrade}}) {
		t.Errorf("--metadata + --feature: %v", ts)
	}
	for _, bad := range []ChangeRequest{
		{Op: OpUpgrade, ReleaseVersion: "4.0", Metadata: "4.0"},
		{Op: OpUpgrade, ReleaseVersion: "4.0", Features: []string{"group.version=1"}},
		{Op: OpUpgrade},
		{Op: OpUpgrade, Metadata: "3.9", Features: []string{"metadata.version=21"}},
		{Op: OpUpgrade, Features: []string{"group.version"}},
		{Op: OpDisable, Features: []string{"group.version=0"}},
		{Op: OpUpgrade, Metadata: "3.9", Unsafe: true},
	} {
		if _, err := c.Targets(bad); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%+v: %v, want ErrBadRequest", bad, err)
		}
	}
}

func TestJudge(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		name  string
		cl    ClusterFeatures
		op    string
		ts    []FeatureTarget
		allow bool
		codes []string
	}{
		{"safe downgrade 31→30", cluster44(31, nil), OpDowngrade, []FeatureTarget{{MetadataVersionFeature, 30, SafeDowngrade}}, true, nil},
		{"unsafe downgrade 31→30 (nothing changed)", cluster44(31, nil), OpDowngrade, []FeatureTarget{{MetadataVersionFeature, 30, UnsafeDowngrade}}, true, nil},
		{"downgrade across a metadata change", cluster44(30, nil), OpDowngrade, []FeatureTarget{{MetadataVersionFeature, 29, SafeDowngrade}}, false, []string{KindMetadataChanged}},
		{"unsafe downgrade across a metadata change", cluster44(30, nil), OpDowngrade, []FeatureTarget{{MetadataVersionFeature, 29, UnsafeDowngrade}}, false, []string{KindMetadataChanged}},
		{"downgrade as an upgrade", cluster44(31, nil), OpUpgrade, []FeatureTarget{{MetadataVersionFeature, 30, Upgrade}}, false, []string{KindWrongDirection}},
		{"upgrade as a downgrade", cluster44(30, nil), OpDowngrade, []FeatureTarget{{MetadataVersionFeature, 31, SafeDowngrade}}, false, []string{KindWrongDirection}},
		{"unstable level", cluster44(33, nil), OpUpgrade, []FeatureTarget{{MetadataVersionFeature, 34, Upgrade}}, false, []string{KindUnstableLevel, KindNodeUnsupported, KindNodeUnsupported}},
		{"ELR needs 23", cluster44(11, nil), OpUpgrade, []FeatureTarget{{ELRVersion, 1, Upgrade}}, false, []string{KindFeatureDependency}},
		{"ELR with MV 23 in one request", cluster44(11, nil), OpUpgrade, []FeatureTarget{{ELRVersion, 1, Upgrade}, {MetadataVersionFeature, 25, Upgrade}}, true, nil},
		{"group.version up", cluster44(11, nil), OpUpgrade, []FeatureTarget{{GroupVersion, 1, Upgrade}}, true, nil},
		{"kraft.version down", cluster44(33, map[string]int16{KRaftVersion: 1}), OpDowngrade, []FeatureTarget{{KRaftVersion, 0, SafeDowngrade}}, false, []string{KindKRaftVersionDowngrade}},
		{"below minimum", cluster44(11, nil), OpDowngrade, []FeatureTarget{{MetadataVersionFeature, 5, SafeDowngrade}}, false, []string{KindBelowMinimum, KindMetadataChanged, KindNodeUnsupported, KindNodeUnsupported}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := c.Judge(tc.cl, tc.op, tc.ts, CheckOptions{})
			if v.Allowed != tc.allow {
				t.Errorf("allowed %v, want %v: %+v", v.Allowed, tc.allow, v.Findings)
			}
			got := codes(v.Findings)
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(tc.codes))) {
				t.Errorf("codes %v, want %v", got, tc.codes)
			}
		})
	}

	v := c.Judge(cluster44(33, map[string]int16{GroupVersion: 1}), OpDisable, []FeatureTarget{{GroupVersion, 0, SafeDowngrade}}, CheckOptions{})
	if !v.Allowed || len(v.Changes[0].Loses) != 1 {
		t.Errorf("disable group.version: %+v", v)
	}
	v = c.Judge(cluster44(33, nil), OpUpgrade, []FeatureTarget{{KRaftVersion, 1, Upgrade}}, CheckOptions{})
	if !v.Allowed || len(v.ConfigRoll) == 0 {
		t.Errorf("kraft.version 0→1 on 4.4: %+v", v)
	}
	cut, _ := CatalogFor("4.0")
	v = cut.Judge(cluster44(25, nil), OpUpgrade, []FeatureTarget{{KRaftVersion, 1, Upgrade}}, CheckOptions{})
	if v.Allowed || !slices.Contains(codes(v.Findings), KindKRaftVersionUpgrade) {
		t.Errorf("kraft.version 0→1 on 4.0: %+v", v)
	}
	// A node without the feature refuses any level above 0.
	cl := cluster44(33, nil)
	delete(cl.Nodes[0].Supported, ShareVersion)
	v = c.Judge(cl, OpUpgrade, []FeatureTarget{{ShareVersion, 1, Upgrade}}, CheckOptions{})
	if v.Allowed || !slices.Contains(codes(v.Findings), KindNodeMissingFeature) {
		t.Errorf("node without share.version: %+v", v)
	}
	// 3.x: no metadata.version change during a migration.
	cl39 := ClusterFeatures{Finalized: map[string]int16{MetadataVersionFeature: 19}, Migration: &model.Migration{HasState: true, State: model.MigrationMigration}}
	v = Catalog39().Judge(cl39, OpUpgrade, []FeatureTarget{{MetadataVersionFeature, 21, Upgrade}}, CheckOptions{})
	if v.Allowed || !slices.Contains(codes(v.Findings), KindMigrationActive) {
		t.Errorf("3.9 migration: %+v", v)
	}
}
