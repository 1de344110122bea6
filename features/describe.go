package features

import (
	"fmt"
	"maps"

	"github.com/kmeta/kmeta/model"
)

// State is what a source says about features: its finalized levels, what
// its content needs, and its ZooKeeper migration state. It is the JSON
// shape of `kmeta features describe`.
type State struct {
	Catalog         string    `json:"catalog"`
	MetadataVersion *LevelRef `json:"metadataVersion"`
	// MetadataVersionImplied: the source sets no metadata.version (a
	// KRaft log written before 3.3), which Kafka reads as 3.0-IV1.
	MetadataVersionImplied bool           `json:"metadataVersionImplied,omitempty"`
	Features               []FeatureState `json:"features"`
	Requirements           []Requirement  `json:"requirements"`
	// RequiredMinimum is the lowest level the content can be written at.
	RequiredMinimum *LevelRef `json:"requiredMinimum"`
	LoadableBy4x    bool      `json:"loadableBy4x"`
	// Migration is the ZK->KRaft migration state: the KRaft
	// ZkMigrationStateRecord, or ZooKeeper's /migration znode.
	Migration *MigrationState `json:"migration,omitempty"`
	// ZKFeatureStatus is /feature's status on a ZooKeeper source (1 enabled,
	// 0 disabled, -1 absent). ZooKeeper never holds metadata.version: a ZK
	// cluster's inter.broker.protocol.version is a static broker config.
	ZKFeatureStatus *int32 `json:"zkFeatureStatus,omitempty"`
	// Nodes are the supported feature ranges of every node a running
	// cluster listed, as each answered them (ApiVersions), brokers before
	// controllers; NodesNotReported names the nodes' fields the cluster
	// did not report (controllers read through a broker, a broker that did
	// not answer). Both are set for a live source only (NodeRanges).
	Nodes            []NodeSupport `json:"nodes,omitempty"`
	NodesNotReported []model.Field `json:"nodesNotReported,omitempty"`
}

// NodeRanges are the supported feature ranges of img's brokers and
// controllers that carry them, sorted, and the node fields img does not
// report (model.FieldBrokers, FieldBrokerFeatures, FieldControllers,
// FieldControllerFeatures).
func NodeRanges(img *model.Image) ([]NodeSupport, []model.Field) {
	var ns []NodeSupport
	ranges := func(fs []model.FeatureRange) map[string][2]int16 {
		m := make(map[string][2]int16, len(fs))
		for _, f := range fs {
			m[f.Name] = [2]int16{f.Min, f.Max}
		}
		return m
	}
	for id, b := range img.Brokers {
		if b.Features != nil {
			ns = append(ns, NodeSupport{Kind: "broker", ID: id, Supported: ranges(b.Features)})
		}
	}
	for id, c := range img.Controllers {
		if c.Features != nil {
			ns = append(ns, NodeSupport{Kind: "controller", ID: id, Supported: ranges(c.Features)})
		}
	}
	var missing []model.Field
	for _, f := range []model.Field{model.FieldBrokers, model.FieldBrokerFeatures, model.FieldControllers, model.FieldControllerFeatures} {
		if !img.Reports(f) {
			missing = append(missing, f)
		}
	}
	return sortedNodes(ns), missing
}

type MigrationState struct {
	State                string `json:"state,omitempty"`
	KRaftControllerID    *int32 `json:"kraftControllerId,omitempty"`
	KRaftMetadataOffset  *int64 `json:"kraftMetadataOffset,omitempty"`
	InitialMigrationDone *bool  `json:"initialMigrationDone,omitempty"`
}

type FeatureState struct {
	Name  string `json:"name"`
	Level int16  `json:"level"`
	Known bool   `json:"known"`
}

// ImpliedMetadataVersion is the level Kafka reads a KRaft log at when the
// log holds no metadata.version FeatureLevelRecord (one written before
// 3.3, KIP-778): 3.0-IV1, MetadataVersion.MINIMUM_KRAFT_VERSION.
const (
	ImpliedMetadataVersion     int16 = 1
	ImpliedMetadataVersionName       = "3.0-IV1"
)

// MetadataVersionOf is the metadata.version a view stands at, and
// whether it is implied: a KRaft log that applied records but set no
// metadata.version stands at 3.0-IV1, as Kafka reads it. A ZooKeeper view
// has none (0): its level is the brokers' inter.broker.protocol.version.
func MetadataVersionOf(img *model.Image) (int16, bool) {
	if mv := img.MetadataVersion(); mv != 0 {
		return mv, false
	}
	if img.ZK == nil && img.Provenance.Offset >= 0 && len(img.Provenance.Live) == 0 {
		return ImpliedMetadataVersion, true
	}
	return 0, false
}

func (cat *Catalog) Describe(img *model.Image) State {
	st := State{Catalog: cat.Name, Requirements: cat.Requirements(img), Features: []FeatureState{}}
	if st.Requirements == nil {
		st.Requirements = []Requirement{}
	}
	if mv, implied := MetadataVersionOf(img); mv != 0 {
		r := LevelRef{Level: mv, Name: fmt.Sprintf("level %d", mv)}
		if l, ok := cat.ByLevel(mv); ok {
			r = l.Ref()
		} else if implied {
			r.Name = ImpliedMetadataVersionName
		}
		st.MetadataVersion = &r
		st.MetadataVersionImplied = implied
		st.LoadableBy4x = mv >= catalog4x().MinimumLoadable
	}
	levels := maps.Clone(img.Features)
	// kraft.version is finalized in control records, not a
	// FeatureLevelRecord: the quorum's (a log's voter set, a live
	// cluster's ApiVersions), listed with the others as kafka-features
	// describe lists it.
	if q := img.Quorum; q != nil && img.Reports(model.FieldQuorum) {
		if _, ok := levels[KRaftVersion]; !ok {
			levels[KRaftVersion] = q.KRaftVersion
		}
	}
	for _, n := range sortedFeatureNames(levels) {
		if n == MetadataVersionFeature {
			continue
		}
		f, ok := cat.Feature(n)
		st.Features = append(st.Features, FeatureState{Name: n, Level: levels[n], Known: ok && levels[n] <= f.MaxLevel()})
	}
	for _, r := range st.Requirements {
		if st.RequiredMinimum == nil || r.Minimum.Level > st.RequiredMinimum.Level {
			m := r.Minimum
			st.RequiredMinimum = &m
		}
	}
	if m := img.Migration; m != nil {
		ms := &MigrationState{}
		if m.HasState {
			ms.State = m.State.String()
		}
		if m.HasZNode {
			id, off, done := m.KRaftControllerID, m.KRaftMetadataOffset, m.KRaftMetadataOffset > 0
			ms.KRaftControllerID, ms.KRaftMetadataOffset, ms.InitialMigrationDone = &id, &off, &done
		}
		st.Migration = ms
	}
	if img.ZK != nil {
		fs := img.ZK.FeatureStatus
		st.ZKFeatureStatus = &fs
	}
	return st
}
