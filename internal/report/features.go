package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/printer"
)

// Levels is the report of features list: every level the catalog knows.
func Levels(cat *features.Catalog) Report {
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "LEVEL", Key: "level"}, {Header: "NAME", Key: "name"}, {Header: "RELEASE", Key: "release"},
		{Header: "META-CHANGE", Key: "metadataChanged"}, {Header: "STATUS", Key: "status"}, {Header: "ENABLES", Key: "enables"},
	}}
	for _, l := range cat.Levels {
		status := "production"
		switch {
		case !l.Production:
			status = "unstable"
		case l.Level < cat.MinimumLoadable:
			status = "not loadable"
		case l.Level < cat.MinimumBootstrap:
			status = "load only"
		}
		if l.Level == cat.LatestProduction {
			status += ", default"
		}
		rows.Rows = append(rows.Rows, []string{strconv.Itoa(int(l.Level)), l.Name, l.Release,
			yesNo(l.MetadataChanged), status, l.Enables})
	}
	return Report{Document: printer.Document{JSON: cat, Sections: []printer.Section{{Rows: &rows}}}}
}

// ReleaseMapping is the JSON shape of `features list --release X`.
type ReleaseMapping struct {
	Catalog string         `json:"catalog"`
	Release string         `json:"release"`
	Level   features.Level `json:"metadataVersion"`
	// Features is what `kafka-features version-mapping` prints, sorted
	// by name, metadata.version excluded.
	Features []features.FeatureLevelRecord `json:"features"`
	// BootstrapRecords is what `kafka-storage format` writes.
	BootstrapRecords []features.FeatureLevelRecord `json:"bootstrapRecords"`
}

// Release is the report of features list --release: the level rel names
// (lvl), the feature levels format uses for it (boot) and the records it
// writes (recs). Text prints the lines kafka-features version-mapping
// prints, then the level's details; table the feature levels.
func Release(cat *features.Catalog, rel string, lvl features.Level, boot map[string]int16, recs []features.FeatureLevelRecord) Report {
	m := ReleaseMapping{Catalog: cat.Name, Release: rel, Level: lvl, BootstrapRecords: recs, Features: []features.FeatureLevelRecord{}}
	for _, f := range cat.Features {
		m.Features = append(m.Features, features.FeatureLevelRecord{Name: f.Name, Level: boot[f.Name]})
	}
	mapping := []string{fmt.Sprintf("metadata.version=%d (%s)", lvl.Level, rel)}
	for _, f := range m.Features {
		mapping = append(mapping, fmt.Sprintf("%s=%d", f.Name, f.Level))
	}
	var rs []string
	for _, r := range lvl.Records {
		rs = append(rs, fmt.Sprintf("%s v%d", r.Name, r.Version))
	}
	var br []string
	for _, r := range recs {
		br = append(br, fmt.Sprintf("%s=%d", r.Name, r.Level))
	}
	details := []string{
		fmt.Sprintf("level %d is %s (release %s, metadata format change: %s, %s)", lvl.Level, lvl.Name, lvl.Release,
			yesNo(lvl.MetadataChanged), map[bool]string{true: "production", false: "unstable"}[lvl.Production]),
		"enables: " + lvl.Enables,
		"records: " + strings.Join(rs, ", "),
		"format writes: " + strings.Join(br, ", "),
	}
	rows := printer.Rows{Columns: []printer.Column{{Header: "FEATURE", Key: "feature"}, {Header: "LEVEL", Key: "level"}}}
	rows.Rows = append(rows.Rows, []string{features.MetadataVersionFeature, fmt.Sprintf("%d (%s)", lvl.Level, lvl.Name)})
	for _, f := range m.Features {
		rows.Rows = append(rows.Rows, []string{f.Name, strconv.Itoa(int(f.Level))})
	}
	return Report{Document: printer.Document{JSON: m, Sections: []printer.Section{
		{Only: printer.Text, Lines: mapping},
		{Only: printer.Text, Lines: details},
		{Only: printer.Table, Rows: &rows},
	}}}
}

// FeatureDeps is what one FEATURE=LEVEL of features deps requires.
type FeatureDeps struct {
	Feature      string                `json:"feature"`
	Level        int16                 `json:"level"`
	Dependencies []features.Dependency `json:"dependencies"`
}

// Deps is the report of features deps, as kafka-features
// feature-dependencies prints it.
func Deps(cat *features.Catalog, deps []FeatureDeps) Report {
	rows := printer.Rows{Columns: []printer.Column{{Header: "FEATURE", Key: "feature"}, {Header: "REQUIRES", Key: "requires"}}}
	for _, e := range deps {
		req := "nothing"
		var parts []string
		for _, d := range e.Dependencies {
			p := fmt.Sprintf("%s=%d", d.Feature, d.Level)
			if d.Feature == features.MetadataVersionFeature {
				if l, ok := cat.ByLevel(d.Level); ok {
					p += " (" + l.Name + ")"
				}
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			req = strings.Join(parts, ", ")
		}
		rows.Rows = append(rows.Rows, []string{fmt.Sprintf("%s=%d", e.Feature, e.Level), req})
	}
	return Report{Document: printer.Document{JSON: deps, Sections: []printer.Section{{Rows: &rows}}}}
}

// Describe is the report of features describe: a source's finalized
// features and what its content needs.
func Describe(cat *features.Catalog, st features.State) Report {
	rows := printer.Rows{Columns: []printer.Column{{Header: "ITEM", Key: "item"}, {Header: "VALUE", Key: "value"}}}
	mv := "none"
	if st.MetadataVersion != nil {
		mv = fmt.Sprintf("%d (%s)", st.MetadataVersion.Level, st.MetadataVersion.Name)
		if st.MetadataVersionImplied {
			mv = fmt.Sprintf("%d (%s, implied: the log sets no metadata.version, and Kafka reads such a log, written before 3.3, as %s)",
				st.MetadataVersion.Level, st.MetadataVersion.Name, st.MetadataVersion.Name)
		}
	}
	rows.Rows = append(rows.Rows, []string{features.MetadataVersionFeature, mv})
	for _, f := range st.Features {
		v := strconv.Itoa(int(f.Level))
		if !f.Known {
			v += " (unknown to the " + cat.Name + " catalog)"
		}
		rows.Rows = append(rows.Rows, []string{f.Name, v})
	}
	min := "any"
	if st.RequiredMinimum != nil {
		min = st.RequiredMinimum.Name
	}
	rows.Rows = append(rows.Rows, []string{"content needs at least", min})
	if m := st.Migration; m != nil {
		v := m.State
		if m.KRaftMetadataOffset != nil {
			v = strings.TrimSpace(fmt.Sprintf("%s /migration: controller %d, offset %d (initial migration done: %v)", v, *m.KRaftControllerID, *m.KRaftMetadataOffset, *m.InitialMigrationDone))
		}
		rows.Rows = append(rows.Rows, []string{"zk migration", v})
	}
	if st.ZKFeatureStatus != nil {
		rows.Rows = append(rows.Rows, []string{"zookeeper /feature status", strconv.Itoa(int(*st.ZKFeatureStatus)) + " (metadata.version is not kept in ZooKeeper: inter.broker.protocol.version is a static broker config)"})
	}
	for _, r := range st.Requirements {
		rows.Rows = append(rows.Rows, []string{"needs: " + r.Kind, r.Reason})
	}
	// A running cluster's nodes: one row each, its supported ranges as
	// kafka-features describe prints them per feature (min-max).
	for _, n := range st.Nodes {
		var rs []string
		for _, f := range slices.Sorted(maps.Keys(n.Supported)) {
			r := n.Supported[f]
			rs = append(rs, fmt.Sprintf("%s %d-%d", f, r[0], r[1]))
		}
		v := strings.Join(rs, ", ")
		if v == "" {
			v = "no feature"
		}
		rows.Rows = append(rows.Rows, []string{fmt.Sprintf("%s %d supports", n.Kind, n.ID), v})
	}
	if len(st.NodesNotReported) > 0 {
		names := make([]string, len(st.NodesNotReported))
		for i, f := range st.NodesNotReported {
			names[i] = string(f)
		}
		rows.Rows = append(rows.Rows, []string{"not reported", strings.Join(names, ", ")})
	}
	return Report{Document: printer.Document{JSON: st, Sections: []printer.Section{{Rows: &rows}}}}
}

// FeatureCheck is the report of features check: the verdict line and the
// findings; a refused or lossy change is Findings.
func FeatureCheck(v features.Verdict) Report {
	cur := "none"
	if v.Current != nil {
		cur = v.Current.Name
	}
	verdict := "allowed"
	switch {
	case !v.Allowed:
		verdict = "refused"
	case v.Lossy:
		verdict = "allowed but lossy"
	}
	ls := []string{fmt.Sprintf("%s: %s -> %s (%s, %s catalog)", verdict, cur, v.Target.Name, v.Direction, v.Catalog)}
	if v.RequiredMinimum != nil {
		ls = append(ls, "content needs at least "+v.RequiredMinimum.Name)
	}
	rows := printer.FindingsRows(v.Findings)
	out := Report{Document: printer.Document{JSON: v, Sections: []printer.Section{
		{Only: printer.Text, Lines: append(ls, printer.FindingsLines(v.Findings)...)},
		{Only: printer.Table, Rows: &rows},
	}}}
	if !v.Allowed || v.Lossy {
		out.Exit = Findings
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
