package features

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Severity of a finding, in sort order.
const (
	SevBlock = "block" // Kafka refuses the change (or kmeta must not do it)
	SevLoss  = "loss"  // the change is possible only by dropping content
	SevWarn  = "warn"
	SevInfo  = "info"
)

var sevRank = map[string]int{SevBlock: 0, SevLoss: 1, SevWarn: 2, SevInfo: 3}

// Finding kinds. They are stable: scripts may match on them.
const (
	KindUnknownLevel      = "unknown-level"
	KindUnstableLevel     = "unstable-level"
	KindBelowMinimum      = "below-minimum"
	KindNotLoadable4x     = "not-loadable-by-4x"
	KindMetadataChanged   = "downgrade-metadata-changed"
	KindMigrationActive   = "migration-in-progress"
	KindFeatureDependency = "feature-dependency"
	KindUnknownFeature    = "unknown-feature"
	KindUnknownFeatureLvl = "unknown-feature-level"
	KindNoMetadataVersion = "no-metadata-version"
	KindCurrentUnknown    = "current-level-unknown"
	KindUnchanged         = "unchanged"
	KindLossPrefix        = "lossy-" // + a Requirement kind
)

// Finding is one fact about a proposed metadata.version change.
type Finding struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Subject  string `json:"subject,omitempty"`
	// Level is the level the finding is about (a requirement's minimum, a
	// Δmeta level), 0 when none.
	Level   int16  `json:"level,omitempty"`
	Count   int    `json:"count,omitempty"`
	Message string `json:"message"`
}

// CheckOptions tunes Check.
type CheckOptions struct {
	// AllowUnstable is unstable.feature.versions.enable=true.
	AllowUnstable bool
}

// Verdict is the answer to "may this image move to that metadata.version?".
type Verdict struct {
	Catalog string    `json:"catalog"`
	Current *LevelRef `json:"current,omitempty"`
	Target  LevelRef  `json:"target"`
	// Direction is "upgrade", "downgrade", "unchanged" or "initial" (the
	// image has no metadata.version yet, e.g. a ZooKeeper image).
	Direction string `json:"direction"`
	// Allowed is true when no finding has severity block.
	Allowed bool `json:"allowed"`
	// Lossy is true when writing the image at Target drops content.
	Lossy bool `json:"lossy"`
	// RequiredMinimum is the lowest level the content can be written at,
	// nil when anything goes.
	RequiredMinimum *LevelRef     `json:"requiredMinimum,omitempty"`
	Requirements    []Requirement `json:"requirements"`
	// LoadableBy4x: Kafka 4.x can load metadata at Target (≥ 3.3-IV3).
	LoadableBy4x bool `json:"loadableBy4x"`
	// CurrentLoadableBy4x: the same for the image's current level.
	CurrentLoadableBy4x bool      `json:"currentLoadableBy4x"`
	Findings            []Finding `json:"findings"`
}

// Check is Default().Check.
func Check(img *model.Image, target Level, opts CheckOptions) Verdict {
	return catalog4x.Check(img, target, opts)
}

// Check applies Kafka's rules for changing metadata.version (controller
// FeatureControlManager and the image writer's loss checks) to img:
//
//   - the target must be a known level of this catalog, production unless
//     opts.AllowUnstable, and not below the catalog's bootstrap minimum;
//   - a downgrade is refused when any level in (target, current] changed
//     the metadata format (Kafka has no unsafe downgrade);
//   - no change while the ZooKeeper migration state is PRE_MIGRATION or
//     MIGRATION;
//   - finalized features whose dependencies the target breaks block it;
//   - content that needs a higher level than the target is reported as loss.
func (c *Catalog) Check(img *model.Image, target Level, opts CheckOptions) Verdict {
	if img == nil {
		img = model.NewImage()
	}
	v := Verdict{Catalog: c.Name, Target: target.Ref(), Requirements: c.Requirements(img)}
	if v.Requirements == nil {
		v.Requirements = []Requirement{}
	}
	add := func(f Finding) { v.Findings = append(v.Findings, f) }

	known, ok := c.ByLevel(target.Level)
	// Compare more than the name: 3.9 and 4.x share names for 22 and 23.
	if !ok || known.Name != target.Name || known.MetadataChanged != target.MetadataChanged || known.Enables != target.Enables {
		add(Finding{Severity: SevBlock, Kind: KindUnknownLevel, Level: target.Level,
			Message: fmt.Sprintf("%s (%d) is not a level of the %s catalog", target.Name, target.Level, c.Name)})
	} else {
		target = known
		if !target.Production {
			sev, msg := SevBlock, "is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true"
			if opts.AllowUnstable {
				sev, msg = SevWarn, "is not a production level (allowed by unstable.feature.versions.enable)"
			}
			add(Finding{Severity: sev, Kind: KindUnstableLevel, Level: target.Level, Message: target.Name + " " + msg})
		}
	}
	if target.Level < c.MinimumBootstrap {
		add(Finding{Severity: SevBlock, Kind: KindBelowMinimum, Level: c.MinimumBootstrap,
			Message: fmt.Sprintf("%s is below the %s minimum %s", target.Name, c.Name, c.name(c.MinimumBootstrap))})
	}
	v.LoadableBy4x = target.Level >= catalog4x.MinimumLoadable
	if !v.LoadableBy4x {
		add(Finding{Severity: SevWarn, Kind: KindNotLoadable4x, Level: catalog4x.MinimumLoadable,
			Message: fmt.Sprintf("Kafka 4.x cannot load metadata at %s; it needs at least %s", target.Name, catalog4x.name(catalog4x.MinimumLoadable))})
	}

	cur := img.MetadataVersion()
	switch {
	case cur == 0:
		v.Direction = "initial"
		add(Finding{Severity: SevInfo, Kind: KindNoMetadataVersion,
			Message: "the image has no metadata.version; the target is its first level"})
	default:
		v.CurrentLoadableBy4x = cur >= catalog4x.MinimumLoadable
		r := c.ref(cur)
		v.Current = &r
		if _, ok := c.ByLevel(cur); !ok {
			add(Finding{Severity: SevBlock, Kind: KindCurrentUnknown, Level: cur,
				Message: fmt.Sprintf("the image's metadata.version %d is not a level of the %s catalog", cur, c.Name)})
		}
		switch {
		case target.Level > cur:
			v.Direction = "upgrade"
		case target.Level < cur:
			v.Direction = "downgrade"
			var changed []string
			var lowest int16
			for l := cur; l > target.Level; l-- {
				if lv, ok := c.ByLevel(l); ok && lv.MetadataChanged {
					changed = append([]string{lv.Name}, changed...)
					lowest = l
				}
			}
			if len(changed) > 0 {
				add(Finding{Severity: SevBlock, Kind: KindMetadataChanged, Level: lowest, Count: len(changed),
					Message: fmt.Sprintf("downgrade from %s to %s crosses %d level(s) that changed the metadata format (%s); Kafka refuses it and has no unsafe downgrade",
						r.Name, target.Name, len(changed), strings.Join(changed, ", "))})
			}
		default:
			v.Direction = "unchanged"
			add(Finding{Severity: SevInfo, Kind: KindUnchanged, Level: cur, Message: "the image is already at " + r.Name})
		}
	}

	if m := img.Migration; m != nil && m.HasState && v.Direction != "unchanged" &&
		(m.State == model.MigrationPreMigration || m.State == model.MigrationMigration) {
		add(Finding{Severity: SevBlock, Kind: KindMigrationActive,
			Message: fmt.Sprintf("metadata.version cannot change while the ZooKeeper migration state is %s", m.State)})
	}

	for _, name := range sortedFeatureNames(img.Features) {
		if name == MetadataVersionFeature {
			continue
		}
		lvl := img.Features[name]
		f, ok := c.Feature(name)
		switch {
		case !ok:
			add(Finding{Severity: SevWarn, Kind: KindUnknownFeature, Subject: name,
				Message: fmt.Sprintf("feature %s=%d is not known to the %s catalog", name, lvl, c.Name)})
		case lvl > f.MaxLevel() || lvl < 0:
			add(Finding{Severity: SevWarn, Kind: KindUnknownFeatureLvl, Subject: name, Level: lvl,
				Message: fmt.Sprintf("feature %s has no level %d in the %s catalog", name, lvl, c.Name)})
		}
	}

	var maxReq int16
	for _, r := range v.Requirements {
		if r.Minimum.Level > maxReq {
			maxReq = r.Minimum.Level
		}
		if r.Minimum.Level <= target.Level {
			continue
		}
		if r.Kind == ReqFeatureDependency {
			add(Finding{Severity: SevBlock, Kind: KindFeatureDependency, Subject: r.Subject, Level: r.Minimum.Level, Count: r.Count,
				Message: r.Reason + "; lower or disable the feature first"})
			continue
		}
		msg := fmt.Sprintf("%s; it cannot be written at %s", r.Reason, target.Name)
		if r.Silent {
			msg += " (Kafka drops it without reporting a loss)"
		}
		v.Lossy = true
		add(Finding{Severity: SevLoss, Kind: KindLossPrefix + r.Kind, Subject: r.Subject, Level: r.Minimum.Level, Count: r.Count, Message: msg})
	}
	if maxReq > 0 {
		r := c.ref(maxReq)
		v.RequiredMinimum = &r
	}

	v.Allowed = true
	for _, f := range v.Findings {
		if f.Severity == SevBlock {
			v.Allowed = false
		}
	}
	sortFindings(v.Findings)
	if v.Findings == nil {
		v.Findings = []Finding{}
	}
	return v
}

// ValidateFeatures checks a full set of finalized levels (metadata.version
// included) the way format and the controller validate features: known
// names and levels; metadata.version not below the catalog's bootstrap
// minimum; no level above a feature's latest production level (for
// metadata.version: no unstable level) unless opts.AllowUnstable, since
// Kafka then does not even list it as supported; non-MV features at ≥ 1
// need metadata.version at the catalog's minimum; and every dependency
// holds. It returns block findings, sorted; none means valid.
func (c *Catalog) ValidateFeatures(levels map[string]int16, opts CheckOptions) []Finding {
	var out []Finding
	mv, hasMV := levels[MetadataVersionFeature]
	if hasMV {
		l, ok := c.ByLevel(mv)
		switch {
		case !ok:
			out = append(out, Finding{Severity: SevBlock, Kind: KindUnknownLevel, Subject: MetadataVersionFeature, Level: mv,
				Message: fmt.Sprintf("metadata.version %d is not a level of the %s catalog", mv, c.Name)})
		case mv < c.MinimumBootstrap:
			out = append(out, Finding{Severity: SevBlock, Kind: KindBelowMinimum, Subject: MetadataVersionFeature, Level: c.MinimumBootstrap,
				Message: fmt.Sprintf("metadata.version %s is below the %s minimum %s", l.Name, c.Name, c.name(c.MinimumBootstrap))})
		case !l.Production && !opts.AllowUnstable:
			out = append(out, Finding{Severity: SevBlock, Kind: KindUnstableLevel, Subject: MetadataVersionFeature, Level: mv,
				Message: fmt.Sprintf("metadata.version %s is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true", l.Name)})
		}
	}
	for _, name := range sortedFeatureNames(levels) {
		if name == MetadataVersionFeature {
			continue
		}
		lvl := levels[name]
		f, ok := c.Feature(name)
		if !ok {
			out = append(out, Finding{Severity: SevBlock, Kind: KindUnknownFeature, Subject: name,
				Message: "unknown feature " + name})
			continue
		}
		if lvl < 0 || lvl > f.MaxLevel() {
			out = append(out, Finding{Severity: SevBlock, Kind: KindUnknownFeatureLvl, Subject: name, Level: lvl,
				Message: fmt.Sprintf("feature level %d is not supported for feature %s", lvl, name)})
			continue
		}
		if lvl > f.LatestProduction && !opts.AllowUnstable {
			out = append(out, Finding{Severity: SevBlock, Kind: KindUnstableLevel, Subject: name, Level: lvl,
				Message: fmt.Sprintf("%s=%d is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true", name, lvl)})
			continue
		}
		if lvl >= 1 && hasMV && mv < c.MinimumBootstrap {
			out = append(out, Finding{Severity: SevBlock, Kind: KindFeatureDependency, Subject: name, Level: c.MinimumBootstrap,
				Message: fmt.Sprintf("%s=%d needs metadata.version at least %s", name, lvl, c.name(c.MinimumBootstrap))})
		}
		for _, d := range f.Levels[lvl].Dependencies {
			have := levels[d.Feature]
			if have < d.Level {
				need := fmt.Sprint(d.Level)
				if d.Feature == MetadataVersionFeature {
					need = fmt.Sprintf("%d (%s)", d.Level, c.name(d.Level))
				}
				out = append(out, Finding{Severity: SevBlock, Kind: KindFeatureDependency, Subject: name, Level: d.Level,
					Message: fmt.Sprintf("%s=%d requires %s=%s, have %d", name, lvl, d.Feature, need, have)})
			}
		}
	}
	sortFindings(out)
	return out
}

func sortedFeatureNames(m map[string]int16) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if sevRank[a.Severity] != sevRank[b.Severity] {
			return sevRank[a.Severity] < sevRank[b.Severity]
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.Level < b.Level
	})
}
