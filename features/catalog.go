package features

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	version "github.com/hashicorp/go-version"
)

// Sentinel errors. Every error this package returns wraps one of them.
var (
	// ErrUnknownLevel: a level, level name or release the catalog does not
	// know.
	ErrUnknownLevel = errors.New("features: unknown metadata.version")
	// ErrNotKRaft: a release or IBP older than 3.0-IV1, which has no KRaft
	// feature level (ZooKeeper-only inter.broker.protocol.version values).
	ErrNotKRaft = errors.New("features: not a KRaft metadata.version")
	// ErrUnknownFeature: a feature name the catalog does not know.
	ErrUnknownFeature = errors.New("features: unknown feature")
	// ErrUnknownCatalog: a Kafka software release kmeta has no catalog for.
	ErrUnknownCatalog = errors.New("features: no catalog for this Kafka release")
	// ErrBelowMinimum: a level the Kafka line cannot bootstrap or finalize
	// (3.x: below 3.3-IV0; 4.x: below 3.3-IV3).
	ErrBelowMinimum = errors.New("features: metadata.version below the minimum")
)

// MetadataVersionFeature is the feature name of metadata.version.
const MetadataVersionFeature = "metadata.version"

// Names of the other features Kafka registers (4.4.0).
const (
	KRaftVersion       = "kraft.version"
	TransactionVersion = "transaction.version"
	GroupVersion       = "group.version"
	ELRVersion         = "eligible.leader.replicas.version"
	ShareVersion       = "share.version"
	StreamsVersion     = "streams.version"
)

// Level is one metadata.version feature level as a given Kafka release
// defines it.
type Level struct {
	Level int16 `json:"level"`
	// Name is Kafka's display string, e.g. "3.7-IV4".
	Name string `json:"name"`
	// Release is the major.minor release the level belongs to, e.g. "3.7".
	Release string `json:"release"`
	// MetadataChanged is Kafka's didMetadataChange: a downgrade across this
	// level is refused.
	MetadataChanged bool `json:"metadataChanged"`
	// Production is false for levels only usable with
	// unstable.feature.versions.enable=true.
	Production bool   `json:"production"`
	Enables    string `json:"enables"`
	// Records lists the metadata record types a writer may emit at this
	// level, by apiKey, with the highest record version allowed.
	Records []RecordRule `json:"records,omitempty"`
}

// String returns the level's name.
func (l Level) String() string { return l.Name }

// LevelRef is a short reference to a level, for findings and verdicts.
type LevelRef struct {
	Level int16  `json:"level"`
	Name  string `json:"name"`
}

func (l Level) Ref() LevelRef { return LevelRef{Level: l.Level, Name: l.Name} }

// FeatureLevel is one level of a non-metadata.version feature.
type FeatureLevel struct {
	Level int16 `json:"level"`
	// BootstrapMV is the metadata.version from which this level is the
	// default (Kafka's bootstrapMetadataVersion).
	BootstrapMV  int16        `json:"bootstrapMetadataVersion"`
	Dependencies []Dependency `json:"dependencies"`
	Enables      string       `json:"enables"`
}

// Dependency says that a feature level needs another feature at Level or
// higher.
type Dependency struct {
	Feature string `json:"feature"`
	Level   int16  `json:"level"`
}

// Feature is a finalized feature other than metadata.version.
type Feature struct {
	Name string `json:"name"`
	// Levels are indexed by level, starting at 0.
	Levels           []FeatureLevel `json:"levels"`
	LatestProduction int16          `json:"latestProduction"`
	// InFeatureLevelRecord is false for kraft.version, which lives in raft
	// control records and never in a FeatureLevelRecord.
	InFeatureLevelRecord bool `json:"inFeatureLevelRecord"`
}

// MaxLevel is the highest level the feature defines.
func (f *Feature) MaxLevel() int16 { return int16(len(f.Levels) - 1) }

// DefaultLevel is Kafka's defaultLevel(mv): the highest level whose
// bootstrap metadata.version is at most mv.
func (f *Feature) DefaultLevel(mv int16) int16 {
	var best int16
	for _, l := range f.Levels {
		if l.BootstrapMV <= mv && l.Level > best {
			best = l.Level
		}
	}
	return best
}

// Catalog is the metadata.version table and feature set of one line of Kafka
// releases. Levels 22 and 23 mean different things in the 3.9 and 4.x
// catalogs, so every lookup goes through a catalog.
type Catalog struct {
	// Name is "3.9" or "4.x"; Software is the Kafka release whose code the
	// tables were taken from.
	Name     string `json:"name"`
	Software string `json:"software"`
	// Levels in ascending order; Levels[i].Level == MinimumLoadable+i.
	Levels []Level `json:"levels"`
	// MinimumLoadable is the lowest level this Kafka line can load from a
	// log (3.x: 3.0-IV1; 4.x: 3.3-IV3).
	MinimumLoadable int16 `json:"minimumLoadable"`
	// MinimumBootstrap is the lowest level format, bootstrap and
	// UpdateFeatures accept (3.x: 3.3-IV0; 4.x: 3.3-IV3).
	MinimumBootstrap int16 `json:"minimumBootstrap"`
	// LatestProduction is the format default.
	LatestProduction int16 `json:"latestProduction"`
	// ELRLevel is the first level with ELR records (3.9: 22; 4.x: 23).
	ELRLevel int16      `json:"elrLevel"`
	Features []*Feature `json:"features"`
	// writesZkMigrationState is true for 3.x, whose writers emit
	// ZkMigrationStateRecord; 4.x only reads and ignores it.
	writesZkMigrationState bool
	// highestRecordKey is the highest metadata record apiKey this line
	// knows.
	highestRecordKey int16
}

// ByLevel returns the level with that number.
func (c *Catalog) ByLevel(n int16) (Level, bool) {
	if len(c.Levels) == 0 {
		return Level{}, false
	}
	i := int(n) - int(c.Levels[0].Level)
	if i < 0 || i >= len(c.Levels) {
		return Level{}, false
	}
	return c.Levels[i], true
}

// Latest is the highest level the catalog knows, unstable ones included.
func (c *Catalog) Latest() Level { return c.Levels[len(c.Levels)-1] }

// LatestProductionLevel is the format default of this Kafka line.
func (c *Catalog) LatestProductionLevel() Level {
	l, _ := c.ByLevel(c.LatestProduction)
	return l
}

// Feature returns a feature by name (not metadata.version).
func (c *Catalog) Feature(name string) (*Feature, bool) {
	for _, f := range c.Features {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// name returns a level's display name, or its number when unknown.
func (c *Catalog) name(n int16) string {
	if l, ok := c.ByLevel(n); ok {
		return l.Name
	}
	return fmt.Sprintf("level %d", n)
}

func (c *Catalog) ref(n int16) LevelRef { return LevelRef{Level: n, Name: c.name(n)} }

// Default is the catalog of the newest Kafka kmeta knows (4.4.0).
func Default() *Catalog { return catalog4x() }

// Catalog39 is the catalog of Kafka 3.9.x, the last line with ZooKeeper
// and migration. It also describes 3.3–3.8 for their production levels.
func Catalog39() *Catalog { return catalog39() }

// CatalogFor returns the catalog for a Kafka software release: "3.9",
// "3.9.2", "3.7.1" (3.x), "4.0" … "4.4.0" (4.x), or the catalog names "3.9"
// and "4.x". Releases 4.0–4.3 get the 4.x catalog cut at that release's
// latest production level, because the levels above it did not exist yet
// (their unstable levels of the time are not modelled).
func CatalogFor(software string) (*Catalog, error) {
	s := strings.TrimSpace(software)
	switch s {
	case "4.x", "4":
		return catalog4x(), nil
	case "3.x", "3":
		return catalog39(), nil
	}
	v, err := version.NewVersion(s)
	if err != nil || !strings.Contains(s, ".") {
		return nil, fmt.Errorf("%w: %q", ErrUnknownCatalog, software)
	}
	seg := v.Segments()
	switch {
	case seg[0] == 3 && seg[1] >= 3:
		return catalog39(), nil
	case seg[0] == 4 && seg[1] >= 4:
		return catalog4x(), nil
	case seg[0] == 4:
		return cutCatalog(catalog4x(), fmt.Sprintf("4.%d", seg[1])), nil
	}
	return nil, fmt.Errorf("%w: %q (kmeta knows 3.3 to 4.4)", ErrUnknownCatalog, software)
}

// cutCatalog derives the catalog of an older 4.x release: levels up to the
// release's latest production level, feature levels that bootstrap at or
// below it.
func cutCatalog(src *Catalog, release string) *Catalog {
	var top int16
	for _, l := range src.Levels {
		if l.Release == release && l.Production {
			top = l.Level
		}
	}
	c := *src
	c.Name = "4.x"
	c.Software = release
	c.LatestProduction = top
	c.Levels = nil
	for _, l := range src.Levels {
		if l.Level <= top {
			c.Levels = append(c.Levels, l)
		}
	}
	c.Features = nil
	for _, f := range src.Features {
		nf := *f
		nf.Levels = nil
		for _, fl := range f.Levels {
			if fl.BootstrapMV <= top {
				nf.Levels = append(nf.Levels, fl)
			}
		}
		if nf.LatestProduction > nf.MaxLevel() {
			nf.LatestProduction = nf.MaxLevel()
		}
		c.Features = append(c.Features, &nf)
	}
	return &c
}

// Package-level shortcuts use the newest catalog.

// LevelFor parses a release ("3.7", "3.7.2"), a level name ("3.7-IV2") or a
// bare level number ("17") in the newest catalog.
func LevelFor(release string) (Level, error) { return catalog4x().LevelFor(release) }

// ByLevel looks a level up in the newest catalog.
func ByLevel(n int16) (Level, bool) { return catalog4x().ByLevel(n) }

// Latest is the newest catalog's highest level (unstable included).
func Latest() Level { return catalog4x().Latest() }

// LatestProduction is the newest catalog's format default (4.4-IV2).
func LatestProduction() Level { return catalog4x().LatestProductionLevel() }

// Bootstrap is Default().Bootstrap.
func Bootstrap(release string) (map[string]int16, error) { return catalog4x().Bootstrap(release) }

// Bootstrap returns the feature levels `kafka-storage format
// --release-version X` uses, as `kafka-features version-mapping
// --release-version X` prints them: metadata.version and every production
// feature at its default level for X, zeros and kraft.version included.
func (c *Catalog) Bootstrap(release string) (map[string]int16, error) {
	l, err := c.LevelFor(release)
	if err != nil {
		return nil, err
	}
	if l.Level < c.MinimumBootstrap {
		return nil, fmt.Errorf("%w: %s (%d); the %s minimum is %s", ErrBelowMinimum, l.Name, l.Level, c.Name, c.name(c.MinimumBootstrap))
	}
	m := map[string]int16{MetadataVersionFeature: l.Level}
	for _, f := range c.Features {
		m[f.Name] = f.DefaultLevel(l.Level)
	}
	return m, nil
}

// FeatureLevelRecord is one FeatureLevelRecord of a bootstrap file.
type FeatureLevelRecord struct {
	Name  string `json:"name"`
	Level int16  `json:"featureLevel"`
}

// BootstrapRecords returns the FeatureLevelRecords format writes for a
// release, in Kafka's order: metadata.version first, then every feature
// whose default is above 0, sorted by name; kraft.version never appears.
func (c *Catalog) BootstrapRecords(release string) ([]FeatureLevelRecord, error) {
	m, err := c.Bootstrap(release)
	if err != nil {
		return nil, err
	}
	out := []FeatureLevelRecord{{MetadataVersionFeature, m[MetadataVersionFeature]}}
	var rest []FeatureLevelRecord
	for _, f := range c.Features {
		if f.InFeatureLevelRecord && m[f.Name] > 0 {
			rest = append(rest, FeatureLevelRecord{f.Name, m[f.Name]})
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].Name < rest[j].Name })
	return append(out, rest...), nil
}

// Dependencies returns what a feature level requires, as `kafka-features
// feature-dependencies --feature name=level` prints it. metadata.version
// levels have none.
func (c *Catalog) Dependencies(name string, level int16) ([]Dependency, error) {
	if name == MetadataVersionFeature {
		if _, ok := c.ByLevel(level); !ok || level < c.MinimumLoadable {
			return nil, fmt.Errorf("%w: level %d", ErrUnknownLevel, level)
		}
		return []Dependency{}, nil
	}
	f, ok := c.Feature(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownFeature, name)
	}
	if level < 0 || level > f.MaxLevel() {
		return nil, fmt.Errorf("%w: %s has no level %d", ErrUnknownFeature, name, level)
	}
	return append([]Dependency{}, f.Levels[level].Dependencies...), nil
}
