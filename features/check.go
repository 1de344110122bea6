package features

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Findings are model.Finding, the one findings type, with Class
// "features", Code one of the Kind* strings below (stable), and Entity the
// subject (a feature, a node, a kind of content). Severities map:
//
//	a refusal (Kafka refuses the change, or kmeta must not do it) → error
//	a loss (possible only by dropping content; code "lossy-…")   → error
//	a warning                                                      → warning
//	a fact                                                         → info
//
// A lossy change is an error because writing it drops content: `features
// check` exits 1 for it as for a refusal; IsLoss tells them apart (and
// Verdict.Allowed and Verdict.Lossy say which happened).
type Finding = model.Finding

// Class is the Class of every features finding.
const Class = "features"

// IsLoss reports whether f says the change drops content.
func IsLoss(f Finding) bool { return strings.HasPrefix(f.Code, KindLossPrefix) }

// IsBlock reports whether f says Kafka refuses the change.
func IsBlock(f Finding) bool { return f.Severity == model.SevError && !IsLoss(f) }

// withClass sets the features class on findings.
func withClass(fs []Finding) []Finding {
	for i := range fs {
		fs[i].Class = Class
	}
	return fs
}

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
	// KindNodeUnsupported: a registered broker or controller does not
	// support the target level (its registration's supported range).
	KindNodeUnsupported = "unsupported-by-node"
	KindLossPrefix      = "lossy-" // + a Requirement kind
)

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
	return catalog4x().Check(img, target, opts)
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
		add(checks.Must(KindUnknownLevel).Finding("", fmt.Sprintf("%s (%d) is not a level of the %s catalog", target.Name, target.Level, c.Name), ""))
	} else {
		target = known
		if !target.Production {
			chk := checks.Must(KindUnstableLevel)
			f := chk.Finding("", target.Name+" is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true", "")
			if opts.AllowUnstable {
				f = chk.Relax(chk.Finding("", target.Name+" is not a production level (allowed by unstable.feature.versions.enable)", ""))
			}
			add(f)
		}
	}
	if target.Level < c.MinimumBootstrap {
		add(checks.Must(KindBelowMinimum).Finding("", fmt.Sprintf("%s is below the %s minimum %s", target.Name, c.Name, c.name(c.MinimumBootstrap)), ""))
	}
	v.LoadableBy4x = target.Level >= catalog4x().MinimumLoadable
	if !v.LoadableBy4x {
		add(checks.Must(KindNotLoadable4x).Finding("", fmt.Sprintf("Kafka 4.x cannot load metadata at %s; it needs at least %s", target.Name, catalog4x().name(catalog4x().MinimumLoadable)), ""))
	}

	cur := img.MetadataVersion()
	switch {
	case cur == 0:
		v.Direction = "initial"
		add(checks.Must(KindNoMetadataVersion).Finding("", "the image has no metadata.version; the target is its first level", ""))
	default:
		v.CurrentLoadableBy4x = cur >= catalog4x().MinimumLoadable
		r := c.ref(cur)
		v.Current = &r
		if _, ok := c.ByLevel(cur); !ok {
			add(checks.Must(KindCurrentUnknown).Finding("", fmt.Sprintf("the image's metadata.version %d is not a level of the %s catalog", cur, c.Name), ""))
		}
		switch {
		case target.Level > cur:
			v.Direction = "upgrade"
		case target.Level < cur:
			v.Direction = "downgrade"
			var changed []string
			for l := cur; l > target.Level; l-- {
				if lv, ok := c.ByLevel(l); ok && lv.MetadataChanged {
					changed = append([]string{lv.Name}, changed...)
				}
			}
			if len(changed) > 0 {
				add(checks.Must(KindMetadataChanged).Finding("", fmt.Sprintf("downgrade from %s to %s crosses %d level(s) that changed the metadata format (%s); Kafka refuses it and has no unsafe downgrade",
					r.Name, target.Name, len(changed), strings.Join(changed, ", ")), ""))
			}
		default:
			v.Direction = "unchanged"
			add(checks.Must(KindUnchanged).Finding("", "the image is already at "+r.Name, ""))
		}
	}

	if v.Direction != "unchanged" {
		for _, f := range unsupportedByNodes(img, target) {
			add(f)
		}
	}

	if m := img.Migration; m != nil && m.HasState && v.Direction != "unchanged" &&
		(m.State == model.MigrationPreMigration || m.State == model.MigrationMigration) {
		add(checks.Must(KindMigrationActive).Finding("", fmt.Sprintf("metadata.version cannot change while the ZooKeeper migration state is %s", m.State), ""))
	}

	for _, name := range sortedFeatureNames(img.Features) {
		if name == MetadataVersionFeature {
			continue
		}
		lvl := img.Features[name]
		f, ok := c.Feature(name)
		switch {
		case !ok:
			// The image holds it: a fact to know, not a request to refuse.
			chk := checks.Must(KindUnknownFeature)
			add(chk.Relax(chk.Finding(name, fmt.Sprintf("feature %s=%d is not known to the %s catalog", name, lvl, c.Name), "")))
		case lvl > f.MaxLevel() || lvl < 0:
			chk := checks.Must(KindUnknownFeatureLvl)
			add(chk.Relax(chk.Finding(name, fmt.Sprintf("feature %s has no level %d in the %s catalog", name, lvl, c.Name), "")))
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
			add(checks.Must(KindFeatureDependency).Finding(r.Subject, r.Reason+"; lower or disable the feature first", ""))
			continue
		}
		msg := fmt.Sprintf("%s; it cannot be written at %s", r.Reason, target.Name)
		if r.Silent {
			msg += " (Kafka drops it without reporting a loss)"
		}
		v.Lossy = true
		add(checks.Must(KindLossPrefix+r.Kind).Finding(r.Subject, msg, ""))
	}
	if maxReq > 0 {
		r := c.ref(maxReq)
		v.RequiredMinimum = &r
	}

	v.Allowed = !slices.ContainsFunc(v.Findings, IsBlock)
	withClass(v.Findings)
	model.SortFindings(v.Findings)
	if v.Findings == nil {
		v.Findings = []Finding{}
	}
	return v
}

// unsupportedByNodes is Kafka's cluster-support gate: the controller
// refuses a metadata.version that any registered broker (fenced ones
// included: they are still registered) or controller does not list in its
// registration's supported range. One finding per node, brokers first, by
// id; a node that registered no metadata.version range is not judged.
func unsupportedByNodes(img *model.Image, target Level) []Finding {
	var out []Finding
	check := func(kind string, id int32, ranges []model.FeatureRange, fenced bool) {
		for _, r := range ranges {
			if r.Name != MetadataVersionFeature {
				continue
			}
			if target.Level < r.Min || target.Level > r.Max {
				state := ""
				if fenced {
					state = " (fenced, still registered)"
				}
				out = append(out, checks.Must(KindNodeUnsupported).Finding(fmt.Sprintf("%s %d", kind, id),
					fmt.Sprintf("%s %d%s supports metadata.version %d-%d, not %s (%d); Kafka refuses the change until every node runs software that supports it",
						kind, id, state, r.Min, r.Max, target.Name, target.Level), ""))
			}
		}
	}
	for _, id := range sortedIDs(img.Brokers) {
		b := img.Brokers[id]
		check("broker", id, b.Features, b.Fenced)
	}
	for _, id := range sortedIDs(img.Controllers) {
		check("controller", id, img.Controllers[id].Features, false)
	}
	return out
}

func sortedIDs[V any](m map[int32]V) []int32 {
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// CatalogForImage chooses the catalog a source's own software uses: 3.9
// when any registered node's highest supported metadata.version is a 3.x
// level (≤ 3.9-IV0, 21) or the image comes from ZooKeeper, 4.x otherwise.
// The second result says why, for verbose output.
func CatalogForImage(img *model.Image) (*Catalog, string) {
	if img == nil {
		return catalog4x(), "no image"
	}
	if img.ZK != nil {
		return catalog39(), "a ZooKeeper source: ZooKeeper mode ends with Kafka 3.9"
	}
	maxSupported := int16(-1)
	seen := func(ranges []model.FeatureRange) {
		for _, r := range ranges {
			if r.Name == MetadataVersionFeature {
				maxSupported = max(maxSupported, r.Max)
			}
		}
	}
	for _, b := range img.Brokers {
		seen(b.Features)
	}
	for _, c := range img.Controllers {
		seen(c.Features)
	}
	last39 := catalog39().Levels[len(catalog39().Levels)-1].Level
	switch {
	case maxSupported < 0:
		// A 4.x cluster may still run at a 3.x level: without ranges the
		// level says nothing about the software.
		return catalog4x(), "no node registered its supported range; the newest catalog"
	case maxSupported <= last39:
		return catalog39(), fmt.Sprintf("the registered nodes support metadata.version up to %d, a Kafka 3.9 software range", maxSupported)
	}
	return catalog4x(), fmt.Sprintf("the registered nodes support metadata.version up to %d, a Kafka 4.x software range", maxSupported)
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
			out = append(out, checks.Must(KindUnknownLevel).Finding(MetadataVersionFeature, fmt.Sprintf("metadata.version %d is not a level of the %s catalog", mv, c.Name), ""))
		case mv < c.MinimumBootstrap:
			out = append(out, checks.Must(KindBelowMinimum).Finding(MetadataVersionFeature, fmt.Sprintf("metadata.version %s is below the %s minimum %s", l.Name, c.Name, c.name(c.MinimumBootstrap)), ""))
		case !l.Production && !opts.AllowUnstable:
			out = append(out, checks.Must(KindUnstableLevel).Finding(MetadataVersionFeature, fmt.Sprintf("metadata.version %s is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true", l.Name), ""))
		}
	}
	for _, name := range sortedFeatureNames(levels) {
		if name == MetadataVersionFeature {
			continue
		}
		lvl := levels[name]
		f, ok := c.Feature(name)
		if !ok {
			out = append(out, checks.Must(KindUnknownFeature).Finding(name, "unknown feature "+name, ""))
			continue
		}
		if lvl < 0 || lvl > f.MaxLevel() {
			out = append(out, checks.Must(KindUnknownFeatureLvl).Finding(name, fmt.Sprintf("feature level %d is not supported for feature %s", lvl, name), ""))
			continue
		}
		if lvl > f.LatestProduction && !opts.AllowUnstable {
			out = append(out, checks.Must(KindUnstableLevel).Finding(name, fmt.Sprintf("%s=%d is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true", name, lvl), ""))
			continue
		}
		if lvl >= 1 && hasMV && mv < c.MinimumBootstrap {
			out = append(out, checks.Must(KindFeatureDependency).Finding(name, fmt.Sprintf("%s=%d needs metadata.version at least %s", name, lvl, c.name(c.MinimumBootstrap)), ""))
		}
		for _, d := range f.Levels[lvl].Dependencies {
			have := levels[d.Feature]
			if have < d.Level {
				need := fmt.Sprint(d.Level)
				if d.Feature == MetadataVersionFeature {
					need = fmt.Sprintf("%d (%s)", d.Level, c.name(d.Level))
				}
				out = append(out, checks.Must(KindFeatureDependency).Finding(name, fmt.Sprintf("%s=%d requires %s=%s, have %d", name, lvl, d.Feature, need, have), ""))
			}
		}
	}
	withClass(out)
	model.SortFindings(out)
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
