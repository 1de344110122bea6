package features

import (
	"testing"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// TestNamedLevels: each named level is the level of that name in the
// catalogs it is said to hold in.
func TestNamedLevels(t *testing.T) {
	for _, n := range namedLevels {
		cats := []*Catalog{Default(), Catalog39()}
		if n.only4x {
			cats = cats[:1]
		}
		for _, c := range cats {
			l, ok := c.ByLevel(n.level)
			if !ok || l.Name != n.name {
				t.Errorf("%s = %d: the %s catalog names level %d %q, want %q", n.constant, n.level, c.Name, n.level, l.Name, n.name)
			}
		}
	}
	for _, c := range []*Catalog{Default(), Catalog39()} {
		if f, ok := c.Feature(KRaftVersion); !ok || f.Levels[1].BootstrapMV != LevelDynamicQuorum {
			t.Errorf("the %s catalog's kraft.version 1 does not bootstrap at LevelDynamicQuorum (%d)", c.Name, LevelDynamicQuorum)
		}
	}
}

// TestRecordRegistryMatchesGenerated ties features' record registry (the
// apiKeys and names its version rules use) to the record definitions
// generated from records.def: same apiKeys, same names, and every
// version a rule allows is one the codec can write.
func TestRecordRegistryMatchesGenerated(t *testing.T) {
	gen := map[int16]records.MetadataType{}
	for _, mt := range records.MetadataTypes() {
		gen[mt.APIKey] = mt
	}
	for k, name := range recordNames {
		mt, ok := gen[k]
		if !ok {
			t.Errorf("features knows apiKey %d (%s); records.def does not", k, name)
			continue
		}
		if mt.Name != name {
			t.Errorf("apiKey %d: features calls it %s, records.def %s", k, name, mt.Name)
		}
	}
	for k, mt := range gen {
		if _, ok := recordNames[k]; !ok {
			t.Errorf("records.def defines apiKey %d (%s); features' registry lacks it", k, mt.Name)
		}
	}
	for _, c := range []*Catalog{Default(), Catalog39()} {
		for _, l := range c.Levels {
			for _, r := range c.recordRules(l.Level) {
				mt := gen[r.APIKey]
				if r.Version < mt.MinVersion || r.Version > mt.MaxVersion {
					t.Errorf("%s catalog, level %s: %s v%d, but records.def has v%d-v%d", c.Name, l.Name, r.Name, r.Version, mt.MinVersion, mt.MaxVersion)
				}
			}
		}
	}
}

// TestImpliedMetadataVersion: a KRaft log that applied records but sets
// no metadata.version (written before 3.3) stands at 3.0-IV1, as Kafka
// reads it, and features describe says it is implied; a ZooKeeper view, a
// live one and an empty log have no level.
func TestImpliedMetadataVersion(t *testing.T) {
	img := model.NewImage()
	img.Provenance = model.Provenance{Source: "kraft:/old", Offset: 41}
	st := Default().Describe(img)
	if mv, implied := MetadataVersionOf(img); mv != 1 || !implied || st.MetadataVersion == nil || st.MetadataVersion.Name != "3.0-IV1" || !st.MetadataVersionImplied {
		t.Fatalf("a log without a level: %d %v, describe %+v", mv, implied, st.MetadataVersion)
	}
	img.Features["metadata.version"] = 7
	if mv, implied := MetadataVersionOf(img); mv != 7 || implied {
		t.Errorf("a log with a level: %d %v", mv, implied)
	}
	for name, o := range map[string]*model.Image{
		"empty log": {Provenance: model.Provenance{Source: "kraft:/x", Offset: -1}},
		"zookeeper": {ZK: &model.ZKState{}, Provenance: model.Provenance{Offset: 3}},
		"live":      {Provenance: model.Provenance{Source: "kafka://h:9092", Offset: 3, Live: []string{"h:9092"}}},
	} {
		if mv, _ := MetadataVersionOf(o); mv != 0 {
			t.Errorf("%s: level %d, want none", name, mv)
		}
	}
}
