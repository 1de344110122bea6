package features

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	version "github.com/hashicorp/go-version"

	"github.com/kmeta/kmeta/model"
)

// UpgradeType is the upgrade type UpdateFeatures carries per feature
// (Kafka's FeatureUpdate.UpgradeType).
type UpgradeType string

// The upgrade types, as Kafka names them.
const (
	Upgrade         UpgradeType = "UPGRADE"
	SafeDowngrade   UpgradeType = "SAFE_DOWNGRADE"
	UnsafeDowngrade UpgradeType = "UNSAFE_DOWNGRADE"
)

// Wire is the type's value in UpdateFeatures v1+ (UpgradeType: 1, 2, 3).
func (u UpgradeType) Wire() int8 {
	switch u {
	case SafeDowngrade:
		return 2
	case UnsafeDowngrade:
		return 3
	}
	return 1
}

// The feature-change operations, as kafka-features names its commands.
const (
	OpUpgrade   = "upgrade"
	OpDowngrade = "downgrade"
	OpDisable   = "disable"
)

// Finding kinds of a feature change (Judge), besides Check's.
const (
	// KindWrongDirection: a lower level asked for as an upgrade, or a
	// higher one as a downgrade; Kafka refuses both.
	KindWrongDirection = "wrong-upgrade-type"
	// KindKRaftVersionDowngrade: Kafka never lowers kraft.version.
	KindKRaftVersionDowngrade = "kraft-version-downgrade"
	// KindKRaftVersionUpgrade: kraft.version 0→1 online needs Kafka 4.1+.
	KindKRaftVersionUpgrade = "kraft-version-upgrade-unsupported"
	// KindQuorumConfigRoll: after kraft.version 0→1, every node's config
	// must move from controller.quorum.voters to
	// controller.quorum.bootstrap.servers.
	KindQuorumConfigRoll = "quorum-config-roll"
	// KindDowngradeDisables: what a downgrade turns off (the levels'
	// "enables" it crosses).
	KindDowngradeDisables = "downgrade-disables"
	// KindNodeMissingFeature: a registered node lists no range for the
	// feature at all, so any level above 0 is refused.
	KindNodeMissingFeature = "feature-unknown-to-node"
)

// ChangeRequest is a kafka-features upgrade, downgrade or disable, as its
// flags spell it.
type ChangeRequest struct {
	// Op is OpUpgrade, OpDowngrade or OpDisable.
	Op string
	// Metadata is --metadata LEVEL|RELEASE.
	Metadata string
	// ReleaseVersion is --release-version X (4.x): metadata.version and
	// every production feature at its default for X. It combines with
	// nothing else.
	ReleaseVersion string
	// Features are --feature NAME=LEVEL (disable: NAME).
	Features []string
	// Unsafe is --unsafe: UNSAFE_DOWNGRADE instead of SAFE_DOWNGRADE.
	Unsafe bool
}

// FeatureTarget is one feature of a request with its level and type.
type FeatureTarget struct {
	Feature string      `json:"feature"`
	Level   int16       `json:"level"`
	Type    UpgradeType `json:"upgradeType"`
}

// ErrBadRequest: a request kafka-features would not send.
var ErrBadRequest = fmt.Errorf("features: bad feature change")

// Targets turns a request into the per-feature levels and types
// kafka-features sends (FeatureCommand): --release-version sets
// metadata.version and every production feature to its default for the
// release, and on upgrade leaves out the features whose default is 0;
// --metadata and --feature name one each. Sorted by feature name.
func (c *Catalog) Targets(req ChangeRequest) ([]FeatureTarget, error) {
	typ := Upgrade
	switch req.Op {
	case OpUpgrade:
		if req.Unsafe {
			return nil, fmt.Errorf("%w: --unsafe applies to downgrade and disable only", ErrBadRequest)
		}
	case OpDowngrade, OpDisable:
		typ = SafeDowngrade
		if req.Unsafe {
			typ = UnsafeDowngrade
		}
	default:
		return nil, fmt.Errorf("%w: unknown operation %q", ErrBadRequest, req.Op)
	}
	out := map[string]int16{}
	set := func(name string, lvl int16, what string) error {
		if _, dup := out[name]; dup {
			return fmt.Errorf("%w: %s is given twice (%s)", ErrBadRequest, name, what)
		}
		out[name] = lvl
		return nil
	}
	if req.ReleaseVersion != "" {
		if req.Op == OpDisable {
			return nil, fmt.Errorf("%w: disable takes --feature NAME only", ErrBadRequest)
		}
		if req.Metadata != "" || len(req.Features) > 0 {
			return nil, fmt.Errorf("%w: --release-version cannot be combined with --metadata or --feature", ErrBadRequest)
		}
		l, err := c.changeLevel(req.ReleaseVersion)
		if err != nil {
			return nil, err
		}
		out[MetadataVersionFeature] = l.Level
		for _, f := range c.Features {
			d := f.DefaultLevel(l.Level)
			if typ == Upgrade && d == 0 {
				continue
			}
			out[f.Name] = d
		}
	}
	if req.Metadata != "" {
		if req.Op == OpDisable {
			return nil, fmt.Errorf("%w: disable takes --feature NAME only", ErrBadRequest)
		}
		l, err := c.changeLevel(req.Metadata)
		if err != nil {
			return nil, err
		}
		out[MetadataVersionFeature] = l.Level
	}
	for _, f := range req.Features {
		name, lv, hasLevel := strings.Cut(f, "=")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("%w: --feature %q has no name", ErrBadRequest, f)
		}
		if req.Op == OpDisable {
			if hasLevel {
				return nil, fmt.Errorf("%w: disable takes --feature NAME (it sets the level to 0), not %q", ErrBadRequest, f)
			}
			if err := set(name, 0, "--feature "+f); err != nil {
				return nil, err
			}
			continue
		}
		if !hasLevel {
			return nil, fmt.Errorf("%w: --feature %q is not NAME=LEVEL", ErrBadRequest, f)
		}
		var lvl int16
		if name == MetadataVersionFeature {
			l, err := c.changeLevel(lv)
			if err != nil {
				return nil, err
			}
			lvl = l.Level
		} else {
			n, err := strconv.ParseInt(strings.TrimSpace(lv), 10, 16)
			if err != nil {
				return nil, fmt.Errorf("%w: --feature %q: the level is not a number", ErrBadRequest, f)
			}
			lvl = int16(n)
		}
		if err := set(name, lvl, "--feature "+f); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: nothing to %s: give --release-version, --metadata or --feature", ErrBadRequest, req.Op)
	}
	var ts []FeatureTarget
	for _, n := range sortedFeatureNames(out) {
		ts = append(ts, FeatureTarget{Feature: n, Level: out[n], Type: typ})
	}
	return ts, nil
}

// changeLevel resolves a metadata.version argument. A level this catalog
// does not have but the newest one names (4.4 asked of a 3.9 cluster) is
// returned from the newest catalog so that Judge refuses it as Kafka does
// (the nodes do not support it), rather than failing as a typo.
func (c *Catalog) changeLevel(s string) (Level, error) {
	l, err := c.LevelFor(s)
	if err == nil {
		return l, nil
	}
	if c != catalog4x() {
		if l2, err2 := catalog4x().LevelFor(s); err2 == nil {
			return l2, nil
		}
	}
	return Level{}, err
}

// NodeSupport is what one registered node supports: its kind ("broker"
// or "controller"), id and supported range per feature.
type NodeSupport struct {
	Kind      string              `json:"kind"`
	ID        int32               `json:"id"`
	Supported map[string][2]int16 `json:"supported"`
}

// ClusterFeatures is what a feature change is judged against.
type ClusterFeatures struct {
	// Finalized are the finalized levels (kraft.version included; a
	// feature missing is at 0).
	Finalized map[string]int16
	// Nodes are every registered broker and controller with its ranges.
	Nodes []NodeSupport
	// Migration is the ZooKeeper migration state where known (3.x), nil
	// otherwise.
	Migration *model.Migration
}

// FeatureChange is the verdict on one feature of a request.
type FeatureChange struct {
	Feature string `json:"feature"`
	From    int16  `json:"from"`
	To      int16  `json:"to"`
	// FromName and ToName are metadata.version's level names.
	FromName    string      `json:"fromName,omitempty"`
	ToName      string      `json:"toName,omitempty"`
	UpgradeType UpgradeType `json:"upgradeType"`
	// Direction is "upgrade", "downgrade" or "unchanged".
	Direction string `json:"direction"`
	Allowed   bool   `json:"allowed"`
	// Loses is what the downgrade turns off, level by level.
	Loses    []string  `json:"loses,omitempty"`
	Findings []Finding `json:"findings"`
}

// ChangeVerdict is kmeta's verdict on a feature change request.
type ChangeVerdict struct {
	Catalog string          `json:"catalog"`
	Op      string          `json:"op"`
	Changes []FeatureChange `json:"changes"`
	// Allowed is true when every change is: Kafka applies an
	// UpdateFeatures request whole or not at all.
	Allowed bool `json:"allowed"`
	// ConfigRoll is what must follow a kraft.version 0→1 upgrade, in
	// order; empty otherwise.
	ConfigRoll []string `json:"configRoll,omitempty"`
	// Findings are every change's findings, sorted.
	Findings []Finding `json:"findings"`
}

// kraftUpgradeRelease is the first Kafka release whose controller moves
// kraft.version from 0 to 1 online (KIP-853).
var kraftUpgradeRelease = sync.OnceValue(func() *version.Version { return version.Must(version.NewVersion("4.1")) })

// Judge applies the controller's rules (FeatureControlManager.updateFeature
// and updateMetadataVersion, Kafka 3.9 and 4.x) to each target:
//
//   - the type must fit the direction: a lower level needs a downgrade
//     type, a higher one UPGRADE;
//   - the feature must be known, the level within the supported range of
//     every registered broker and controller (a node with no range for the
//     feature refuses every level above 0), and production unless
//     unstable levels are enabled (Kafka then lists them as supported);
//   - metadata.version: not below the catalog's minimum; a downgrade only
//     when no level in (target, current] changed the metadata format,
//     with or without --unsafe (Kafka has no unsafe metadata downgrade);
//     no change while a ZooKeeper migration is in PRE_MIGRATION or
//     MIGRATION (3.x);
//   - kraft.version: upgrade only, and 0→1 only from Kafka 4.1;
//   - other features: their dependencies must hold against the levels the
//     request leaves (4.x Features.validateVersion); and kmeta also refuses
//     a metadata.version the finalized features still depend on.
//
// A downgrade lists what it turns off (the crossed levels' "enables").
func (c *Catalog) Judge(cl ClusterFeatures, op string, targets []FeatureTarget, opts CheckOptions) ChangeVerdict {
	v := ChangeVerdict{Catalog: c.Name, Op: op, Changes: []FeatureChange{}}
	proposed := map[string]int16{}
	for k, l := range cl.Finalized {
		proposed[k] = l
	}
	for _, t := range targets {
		proposed[t.Feature] = t.Level
	}
	for _, t := range targets {
		ch := c.judgeOne(cl, t, proposed, opts)
		if t.Feature == KRaftVersion && ch.From == 0 && ch.To == 1 && ch.Allowed {
			v.ConfigRoll = []string{
				"check that kraft.version is 1 (kafka-features describe) and that kafka-metadata-quorum describe --status lists every voter with its directory id",
				"then, one node at a time (controllers first, then brokers): set controller.quorum.bootstrap.servers to the controllers' host:port list, remove controller.quorum.voters, restart the node and wait until it has caught up",
				"then voters can be added and removed online (kafka-metadata-quorum add-controller / remove-controller)",
			}
			ch.Findings = append(ch.Findings, checks.Must(KindQuorumConfigRoll).Finding(KRaftVersion,
				"kraft.version 1 makes the quorum dynamic; roll the configs afterwards: controller.quorum.bootstrap.servers replaces controller.quorum.voters", ""))
		}
		v.Changes = append(v.Changes, ch)
	}
	// kmeta's own rule: a metadata.version the finalized features still
	// depend on is refused, not left for the brokers to discover.
	if mv, ok := proposed[MetadataVersionFeature]; ok {
		for i := range v.Changes {
			ch := &v.Changes[i]
			if ch.Feature != MetadataVersionFeature || ch.Direction != "downgrade" {
				continue
			}
			for _, name := range sortedFeatureNames(proposed) {
				f, ok := c.Feature(name)
				lvl := proposed[name]
				if !ok || lvl <= 0 || lvl > f.MaxLevel() {
					continue
				}
				for _, d := range f.Levels[lvl].Dependencies {
					if d.Feature == MetadataVersionFeature && mv < d.Level {
						ch.Findings = append(ch.Findings, checks.Must(KindFeatureDependency).Finding(name,
							fmt.Sprintf("%s=%d depends on metadata.version %s (%d); lower or disable it first", name, lvl, c.name(d.Level), d.Level), ""))
					}
				}
			}
			ch.Allowed = !slices.ContainsFunc(ch.Findings, IsBlock)
		}
	}
	v.Allowed = len(v.Changes) > 0
	for i := range v.Changes {
		ch := &v.Changes[i]
		withClass(ch.Findings)
		model.SortFindings(ch.Findings)
		if ch.Findings == nil {
			ch.Findings = []Finding{}
		}
		v.Allowed = v.Allowed && ch.Allowed
		v.Findings = append(v.Findings, ch.Findings...)
	}
	model.SortFindings(v.Findings)
	if v.Findings == nil {
		v.Findings = []Finding{}
	}
	return v
}

func (c *Catalog) judgeOne(cl ClusterFeatures, t FeatureTarget, proposed map[string]int16, opts CheckOptions) FeatureChange {
	cur := cl.Finalized[t.Feature]
	ch := FeatureChange{Feature: t.Feature, From: cur, To: t.Level, UpgradeType: t.Type}
	add := func(code, msg string) {
		ch.Findings = append(ch.Findings, checks.Must(code).Finding(t.Feature, msg, ""))
	}
	isMV := t.Feature == MetadataVersionFeature
	show := func(n int16) string {
		if isMV {
			return fmt.Sprintf("%s (%d)", c.name(n), n)
		}
		return strconv.Itoa(int(n))
	}
	if isMV {
		ch.FromName, ch.ToName = c.name(cur), c.name(t.Level)
	}
	switch {
	case t.Level > cur:
		ch.Direction = "upgrade"
		if t.Type != Upgrade {
			add(KindWrongDirection, fmt.Sprintf("%s %s is higher than the finalized %s: that is an upgrade, not a downgrade", t.Feature, show(t.Level), show(cur)))
		}
	case t.Level < cur:
		ch.Direction = "downgrade"
		if t.Type == Upgrade {
			add(KindWrongDirection, fmt.Sprintf("%s %s is lower than the finalized %s: Kafka downgrades only when asked to (kmeta features downgrade)", t.Feature, show(t.Level), show(cur)))
		}
	default:
		ch.Direction = "unchanged"
		add(KindUnchanged, fmt.Sprintf("%s is already at %s", t.Feature, show(cur)))
	}

	// Known feature and level, production unless allowed.
	var feat *Feature
	if isMV {
		l, ok := c.ByLevel(t.Level)
		switch {
		case t.Level < 0:
			add(KindUnknownLevel, fmt.Sprintf("metadata.version %d: a feature level cannot be below 0", t.Level))
		case !ok:
			add(KindUnknownLevel, fmt.Sprintf("metadata.version %d is not a level of the %s catalog (%s)", t.Level, c.Name, c.rangeText()))
		case t.Level < c.MinimumBootstrap:
			add(KindBelowMinimum, fmt.Sprintf("metadata.version %s is below the %s minimum %s", l.Name, c.Name, c.name(c.MinimumBootstrap)))
		case !l.Production && !opts.AllowUnstable:
			add(KindUnstableLevel, fmt.Sprintf("%s is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true", l.Name))
		}
	} else {
		f, ok := c.Feature(t.Feature)
		switch {
		case !ok:
			add(KindUnknownFeature, fmt.Sprintf("%s is not a feature of the %s catalog", t.Feature, c.Name))
		case t.Level < 0 || t.Level > f.MaxLevel():
			add(KindUnknownFeatureLvl, fmt.Sprintf("%s has no level %d (0 to %d)", t.Feature, t.Level, f.MaxLevel()))
		case t.Level > f.LatestProduction && !opts.AllowUnstable:
			add(KindUnstableLevel, fmt.Sprintf("%s=%d is not a production level; Kafka accepts it only with unstable.feature.versions.enable=true", t.Feature, t.Level))
		default:
			feat = f
		}
	}

	// Every registered node must support the level.
	for _, n := range sortedNodes(cl.Nodes) {
		r, ok := n.Supported[t.Feature]
		switch {
		case !ok && t.Level > 0:
			add(KindNodeMissingFeature, fmt.Sprintf("%s %d does not support %s at all; Kafka refuses any level above 0 until it runs software that does", n.Kind, n.ID, t.Feature))
		case ok && (t.Level < r[0] || t.Level > r[1]):
			add(KindNodeUnsupported, fmt.Sprintf("%s %d supports %s %s to %s, not %s", n.Kind, n.ID, t.Feature, show(r[0]), show(r[1]), show(t.Level)))
		}
	}

	switch {
	case isMV:
		if ch.Direction == "downgrade" {
			var changed []string
			for l := cur; l > t.Level; l-- {
				if lv, ok := c.ByLevel(l); ok && lv.MetadataChanged {
					changed = append([]string{lv.Name}, changed...)
				}
			}
			if len(changed) > 0 {
				how := "Kafka refuses it"
				if t.Type == UnsafeDowngrade {
					how = "Kafka refuses it even with --unsafe (no unsafe metadata downgrade exists)"
				}
				add(KindMetadataChanged, fmt.Sprintf("downgrade from %s to %s crosses %d level(s) that changed the metadata format (%s); %s",
					c.name(cur), c.name(t.Level), len(changed), strings.Join(changed, ", "), how))
			}
			ch.Loses = c.mvLoses(cur, t.Level)
		}
		if m := cl.Migration; m != nil && m.HasState && ch.Direction != "unchanged" &&
			(m.State == model.MigrationPreMigration || m.State == model.MigrationMigration) {
			add(KindMigrationActive, fmt.Sprintf("metadata.version cannot change while the ZooKeeper migration state is %s", m.State))
		}
	case t.Feature == KRaftVersion:
		if t.Type != Upgrade {
			add(KindKRaftVersionDowngrade, "Kafka never lowers kraft.version: a dynamic quorum cannot become static again")
		} else if ch.Direction == "upgrade" && !c.movesKRaftVersion() {
			// Kafka 3.9.2 accepts the request, but finalizes kraft.version 1
			// with voters that have no directory id (kafka-metadata-quorum
			// shows "directoryId": null): not a working dynamic quorum.
			// kmeta refuses where Kafka would leave that state.
			add(KindKRaftVersionUpgrade, fmt.Sprintf("Kafka %s does not move a quorum to kraft.version 1 online properly (it finalizes the level but leaves the voters without directory ids); upgrade to Kafka 4.1 or newer first", c.Software))
		}
	case feat != nil:
		if t.Level >= 1 && proposed[MetadataVersionFeature] < c.MinimumBootstrap {
			add(KindFeatureDependency, fmt.Sprintf("%s=%d needs metadata.version at least %s", t.Feature, t.Level, c.name(c.MinimumBootstrap)))
		}
		for _, d := range feat.Levels[t.Level].Dependencies {
			if have := proposed[d.Feature]; have < d.Level {
				need := strconv.Itoa(int(d.Level))
				if d.Feature == MetadataVersionFeature {
					need = fmt.Sprintf("%s (%d)", c.name(d.Level), d.Level)
				}
				add(KindFeatureDependency, fmt.Sprintf("%s=%d depends on %s %s, which would be %s", t.Feature, t.Level, d.Feature, need, c.levelText(d.Feature, have)))
			}
		}
		if ch.Direction == "downgrade" {
			for l := cur; l > t.Level; l-- {
				if int(l) < len(feat.Levels) {
					ch.Loses = append(ch.Loses, fmt.Sprintf("%s %d: %s", t.Feature, l, feat.Levels[l].Enables))
				}
			}
		}
	}
	if len(ch.Loses) > 0 {
		add(KindDowngradeDisables, fmt.Sprintf("the downgrade turns off: %s", strings.Join(ch.Loses, "; ")))
	}
	ch.Allowed = !slices.ContainsFunc(ch.Findings, IsBlock)
	return ch
}

// levelText shows a level of a feature, metadata.version by name.
func (c *Catalog) levelText(feature string, lvl int16) string {
	if feature == MetadataVersionFeature {
		return fmt.Sprintf("%s (%d)", c.name(lvl), lvl)
	}
	return strconv.Itoa(int(lvl))
}

// mvLoses lists what the metadata.version levels in (to, from] enabled.
func (c *Catalog) mvLoses(from, to int16) []string {
	var out []string
	for l := from; l > to; l-- {
		if lv, ok := c.ByLevel(l); ok && lv.Enables != "" {
			out = append(out, lv.Name+": "+lv.Enables)
		}
	}
	return out
}

// movesKRaftVersion says whether this catalog's Kafka upgrades
// kraft.version online (4.1+).
func (c *Catalog) movesKRaftVersion() bool {
	if c.Name != "4.x" {
		return false
	}
	v, err := version.NewVersion(c.Software)
	return err == nil && v.GreaterThanOrEqual(kraftUpgradeRelease())
}

func sortedNodes(ns []NodeSupport) []NodeSupport {
	out := slices.Clone(ns)
	slices.SortFunc(out, func(a, b NodeSupport) int {
		if a.Kind != b.Kind {
			return strings.Compare(a.Kind, b.Kind) // broker before controller
		}
		return int(a.ID) - int(b.ID)
	})
	return out
}
