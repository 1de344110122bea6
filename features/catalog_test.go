package features

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestLevelsContiguousAndNamed(t *testing.T) {
	for _, c := range []*Catalog{Default(), Catalog39()} {
		for i, l := range c.Levels {
			if l.Level != int16(i+1) {
				t.Fatalf("%s: Levels[%d] is level %d", c.Name, i, l.Level)
			}
			got, ok := c.ByLevel(l.Level)
			if !ok || got.Name != l.Name {
				t.Errorf("%s: ByLevel(%d) = %v, %v", c.Name, l.Level, got, ok)
			}
			byName, err := c.LevelFor(l.Name)
			if err != nil || byName.Level != l.Level {
				t.Errorf("%s: LevelFor(%q) = %v, %v", c.Name, l.Name, byName, err)
			}
		}
	}
}

// Δmeta and production sets, as MetadataVersion.didMetadataChange and
// isProduction report them in 4.4.0 and 3.9.2.
func TestMetadataChangedAndProduction(t *testing.T) {
	tests := []struct {
		c          *Catalog
		changed    []int16
		production int16
		latest     int16
	}{
		{Default(), []int16{1, 3, 5, 6, 7, 8, 11, 13, 14, 15, 17, 23, 30, 32, 33}, 33, 34},
		{Catalog39(), []int16{1, 3, 5, 6, 7, 8, 11, 13, 14, 15, 17, 22}, 21, 23},
	}
	for _, tt := range tests {
		want := map[int16]bool{}
		for _, l := range tt.changed {
			want[l] = true
		}
		for _, l := range tt.c.Levels {
			if l.MetadataChanged != want[l.Level] {
				t.Errorf("%s: %s MetadataChanged = %v", tt.c.Name, l.Name, l.MetadataChanged)
			}
			if l.Production != (l.Level <= tt.production) {
				t.Errorf("%s: %s Production = %v", tt.c.Name, l.Name, l.Production)
			}
		}
		if tt.c.LatestProductionLevel().Level != tt.production || tt.c.Latest().Level != tt.latest {
			t.Errorf("%s: latest production %v, latest %v", tt.c.Name, tt.c.LatestProductionLevel(), tt.c.Latest())
		}
	}
	if l, _ := Default().ByLevel(22); l.Name != "4.0-IV0" || l.MetadataChanged {
		t.Errorf("4.x level 22 = %+v", l)
	}
	if l, _ := Catalog39().ByLevel(22); l.Name != "4.0-IV0" || !l.MetadataChanged || l.Production {
		t.Errorf("3.9 level 22 = %+v", l)
	}
}

func TestLevelFor(t *testing.T) {
	tests := []struct {
		c    *Catalog
		in   string
		want int16
		err  error
	}{
		{Default(), "3.7", 19, nil},
		{Default(), "3.7.2", 19, nil},
		{Default(), " 3.7-IV2 ", 17, nil},
		{Default(), "17", 17, nil},
		{Default(), "3.3", 7, nil},
		{Default(), "3.5", 11, nil},
		{Default(), "3.6", 14, nil},
		{Default(), "3.9", 21, nil},
		{Default(), "4.0", 25, nil},
		{Default(), "4.1", 27, nil},
		{Default(), "4.2.0-rc1", 29, nil},
		{Default(), "4.3.1", 30, nil},
		{Default(), "4.4", 33, nil},
		{Default(), "4.4.0", 33, nil},
		{Default(), "4.5-IV0", 34, nil},
		{Default(), "4.5", 0, ErrUnknownLevel},
		{Default(), "4.4-IV9", 0, ErrUnknownLevel},
		{Default(), "35", 0, ErrUnknownLevel},
		{Default(), "0", 0, ErrUnknownLevel},
		{Default(), "-1", 0, ErrUnknownLevel},
		{Default(), "99999", 0, ErrUnknownLevel},
		{Default(), "2.8", 0, ErrNotKRaft},
		{Default(), "2.8-IV1", 0, ErrNotKRaft},
		{Default(), "3.0-IV0", 0, ErrNotKRaft},
		{Default(), "3", 3, nil}, // a bare level number
		{Default(), "v3.7", 0, ErrUnknownLevel},
		{Default(), "", 0, ErrUnknownLevel},
		{Default(), "latest", 0, ErrUnknownLevel},
		{Catalog39(), "3.9", 21, nil},
		{Catalog39(), "3.0", 1, nil},
		{Catalog39(), "3.2", 3, nil},
		{Catalog39(), "4.0", 0, ErrUnknownLevel},
		{Catalog39(), "4.0-IV0", 22, nil},
	}
	for _, tt := range tests {
		got, err := tt.c.LevelFor(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("%s LevelFor(%q) error = %v, want %v", tt.c.Name, tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got.Level != tt.want {
			t.Errorf("%s LevelFor(%q) = %d, %v; want %d", tt.c.Name, tt.in, got.Level, err, tt.want)
		}
	}
}

func TestCatalogFor(t *testing.T) {
	tests := []struct {
		in         string
		name       string
		production int16
		latest     int16
		err        bool
	}{
		{"3.9.2", "3.9", 21, 23, false},
		{"3.7", "3.9", 21, 23, false},
		{"4.x", "4.x", 33, 34, false},
		{"4.4.0", "4.x", 33, 34, false},
		{"4.0.1", "4.x", 25, 25, false},
		{"4.3", "4.x", 30, 30, false},
		{"2.8", "", 0, 0, true},
		{"5.0", "", 0, 0, true},
		{"nope", "", 0, 0, true},
	}
	for _, tt := range tests {
		c, err := CatalogFor(tt.in)
		if tt.err {
			if !errors.Is(err, ErrUnknownCatalog) {
				t.Errorf("CatalogFor(%q) error = %v", tt.in, err)
			}
			continue
		}
		if err != nil || c.Name != tt.name || c.LatestProduction != tt.production || c.Latest().Level != tt.latest {
			t.Errorf("CatalogFor(%q) = %v %v %v, %v", tt.in, c.Name, c.LatestProduction, c.Latest(), err)
		}
	}
	// 4.3 knew share.version 0 and 1 only (4.3.1's ShareVersion).
	c, _ := CatalogFor("4.3")
	if f, _ := c.Feature(ShareVersion); f.MaxLevel() != 1 || f.LatestProduction != 1 {
		t.Errorf("4.3 share.version max %d latest %d", f.MaxLevel(), f.LatestProduction)
	}
}

func TestRecordVersion(t *testing.T) {
	tests := []struct {
		c       *Catalog
		mv, key int16
		want    int16
		ok      bool
	}{
		{Default(), 7, RegisterBrokerRecord, 1, true},
		{Default(), 8, RegisterBrokerRecord, 2, true},
		{Default(), 17, RegisterBrokerRecord, 3, true},
		{Default(), 29, RegisterBrokerRecord, 3, true},
		{Default(), 30, RegisterBrokerRecord, 4, true},
		{Catalog39(), 1, RegisterBrokerRecord, 0, true},
		{Catalog39(), 23, RegisterBrokerRecord, 3, true},
		{Default(), 16, PartitionRecord, 0, true},
		{Default(), 17, PartitionRecord, 1, true},
		{Default(), 22, PartitionChangeRecord, 1, true},
		{Default(), 23, PartitionChangeRecord, 2, true},
		{Catalog39(), 22, PartitionRecord, 2, true},
		{Catalog39(), 21, PartitionRecord, 1, true},
		{Catalog39(), 5, FenceBrokerRecord, 0, true},
		{Catalog39(), 6, FenceBrokerRecord, 0, false},
		{Default(), 7, UnfenceBrokerRecord, 0, false},
		{Catalog39(), 5, BrokerRegistrationChangeRecord, 0, false},
		{Catalog39(), 6, BrokerRegistrationChangeRecord, 0, true},
		{Default(), 7, BrokerRegistrationChangeRecord, 1, true},
		{Default(), 17, BrokerRegistrationChangeRecord, 2, true},
		{Default(), 30, BrokerRegistrationChangeRecord, 3, true},
		{Default(), 10, UserScramCredentialRecord, 0, false},
		{Default(), 11, UserScramCredentialRecord, 0, true},
		{Default(), 11, RemoveUserScramCredentialRecord, 0, true},
		{Default(), 13, DelegationTokenRecord, 0, false},
		{Default(), 14, RemoveDelegationTokenRecord, 0, true},
		{Default(), 12, BeginTransactionRecord, 0, false},
		{Default(), 13, AbortTransactionRecord, 0, true},
		{Default(), 14, RegisterControllerRecord, 0, false},
		{Default(), 15, RegisterControllerRecord, 0, true},
		{Default(), 22, ClearElrRecord, 0, false},
		{Default(), 23, ClearElrRecord, 0, true},
		{Catalog39(), 22, ClearElrRecord, 0, false}, // no ClearElrRecord schema in 3.9
		{Default(), 32, UnregisterControllerRecord, 0, false},
		{Default(), 33, UnregisterControllerRecord, 0, true},
		{Catalog39(), 8, ZkMigrationStateRecord, 0, true},
		{Catalog39(), 7, ZkMigrationStateRecord, 0, false},
		{Default(), 21, ZkMigrationStateRecord, 0, false},
		{Catalog39(), 3, FeatureLevelRecordKey, 0, false},
		{Catalog39(), 4, FeatureLevelRecordKey, 0, true},
		{Catalog39(), 4, NoOpRecord, 0, false},
		{Catalog39(), 5, NoOpRecord, 0, true},
		{Default(), 7, TopicRecord, 0, true},
		{Default(), 33, AccessControlEntryRecord, 0, true},
		{Default(), 33, 6, 0, false},  // retired AccessControlRecord
		{Default(), 33, 16, 0, false}, // retired RemoveFeatureLevelRecord
		{Default(), 33, 30, 0, false},
		{Default(), 35, TopicRecord, 0, false},
		{Default(), 0, TopicRecord, 0, false},
	}
	for _, tt := range tests {
		got, ok := tt.c.RecordVersion(tt.mv, tt.key)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s RecordVersion(%d, %d %s) = %d, %v; want %d, %v", tt.c.Name, tt.mv, tt.key, RecordName(tt.key), got, ok, tt.want, tt.ok)
		}
	}
	if v, ok := RecordVersion(33, RegisterBrokerRecord); v != 4 || !ok {
		t.Errorf("package RecordVersion = %d %v", v, ok)
	}
}

func TestBootstrapErrors(t *testing.T) {
	if _, err := Bootstrap("3.3-IV2"); !errors.Is(err, ErrBelowMinimum) {
		t.Errorf("Bootstrap(3.3-IV2) error = %v", err)
	}
	if _, err := Catalog39().Bootstrap("3.2"); !errors.Is(err, ErrBelowMinimum) {
		t.Errorf("3.9 Bootstrap(3.2) error = %v", err)
	}
	if m, err := Catalog39().Bootstrap("3.3"); err != nil || m[MetadataVersionFeature] != 7 || m[KRaftVersion] != 0 {
		t.Errorf("3.9 Bootstrap(3.3) = %v, %v", m, err)
	}
	// 3.9: transaction.version 2 only from the unstable 4.0-IV0.
	if m, _ := Catalog39().Bootstrap("4.0-IV0"); m[TransactionVersion] != 2 || m[KRaftVersion] != 1 {
		t.Errorf("3.9 Bootstrap(4.0-IV0) = %v", m)
	}
	if _, err := Bootstrap("bogus"); !errors.Is(err, ErrUnknownLevel) {
		t.Errorf("Bootstrap(bogus) error = %v", err)
	}
}

func TestGolden(t *testing.T) {
	doc := struct {
		Catalogs []*Catalog `json:"catalogs"`
	}{[]*Catalog{Default(), Catalog39()}}
	got, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("..", "testdata", "features", "catalog.golden.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./features -run TestGolden -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("catalog differs from %s; run with -update if the change is intended", path)
	}
}
