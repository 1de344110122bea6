package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
)

func init() {
	register(func() *cli.Command { return featuresCommand(loadImageSource) })
}

const catalogFlagUsage = "Kafka `RELEASE` whose level table to use: 3.9 (3.x) or 4.x; 4.0 … 4.3 cut it at that release (default: the newest, 4.4.0)"

const sourceCatalogFlagUsage = "Kafka `RELEASE` whose level table to use: 3.9 (3.x) or 4.x; 4.0 … 4.3 cut it at that release (default: what the source's registered nodes support)"

func catalogFlag() cli.Flag {
	return &cli.StringFlag{Name: "kafka", Usage: catalogFlagUsage}
}

func sourceCatalogFlag() cli.Flag {
	return &cli.StringFlag{Name: "kafka", Usage: sourceCatalogFlagUsage}
}

// catalogOf is the catalog --kafka names, the newest without it.
func catalogOf(c *cli.Context) (*features.Catalog, error) {
	if c.String("kafka") == "" {
		return features.Default(), nil
	}
	cat, err := features.CatalogFor(c.String("kafka"))
	if err != nil {
		return nil, usageErrorf(c, "--kafka: %v", err)
	}
	return cat, nil
}

// catalogForSource is the catalog --kafka names, or the one the source's
// own software uses.
// loadWithCatalog checks --kafka before reading anything (a bad flag is
// reported without reading the source), loads src and picks its catalog.
func loadWithCatalog(c *cli.Context, load imageLoader, src string) (*model.Image, *features.Catalog, error) {
	if _, err := catalogOf(c); err != nil {
		return nil, nil, err
	}
	img, err := load(c, src)
	if err != nil {
		return nil, nil, err
	}
	cat, err := catalogForSource(c, img)
	if err != nil {
		return nil, nil, err
	}
	return img, cat, nil
}

func catalogForSource(c *cli.Context, img *model.Image) (*features.Catalog, error) {
	if c.String("kafka") != "" {
		return catalogOf(c)
	}
	cat, why := features.CatalogForImage(img)
	verbosef(c, "catalog %s: %s (--kafka chooses another)", cat.Name, why)
	return cat, nil
}

func featuresCommand(load imageLoader) *cli.Command {
	return &cli.Command{
		Name:  "features",
		Usage: "metadata.version levels, feature defaults and upgrade/downgrade gating",
		Subcommands: []*cli.Command{
			featuresListCommand(),
			featuresDepsCommand(),
			featuresDescribeCommand(load),
			featuresCheckCommand(load),
		},
	}
}

// releaseMapping is the JSON shape of `features list --release X`.
type releaseMapping struct {
	Catalog string         `json:"catalog"`
	Release string         `json:"release"`
	Level   features.Level `json:"metadataVersion"`
	// Features is what `kafka-features version-mapping` prints, sorted
	// by name, metadata.version excluded.
	Features []features.FeatureLevelRecord `json:"features"`
	// BootstrapRecords is what `kafka-storage format` writes.
	BootstrapRecords []features.FeatureLevelRecord `json:"bootstrapRecords"`
}

func featuresListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list metadata.version levels, or what one release bootstraps",
		Description: "Without --release: every level the catalog knows. With --release (3.7, 3.7.2, 3.7-IV2 or a level\n" +
			"number): the level and the feature levels kafka-storage format uses for it, as\n" +
			"kafka-features version-mapping prints them.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "release", Aliases: []string{"r"}, Usage: "show the mapping for `RELEASE`"},
			catalogFlag(),
		},
		Action: func(c *cli.Context) error {
			if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
				return err
			}
			cat, err := catalogOf(c)
			if err != nil {
				return err
			}
			if rel := c.String("release"); rel != "" {
				return writeReleaseMapping(c, cat, rel)
			}
			if outputFormat(c) == printer.JSON {
				return writeJSON(c, cat)
			}
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
			return writeRows(c, rows)
		},
	}
}

func writeReleaseMapping(c *cli.Context, cat *features.Catalog, rel string) error {
	lvl, err := cat.LevelFor(rel)
	if err != nil {
		return usageErrorf(c, "--release: %v", err)
	}
	boot, err := cat.Bootstrap(rel)
	if err != nil {
		return usageErrorf(c, "--release: %v", err)
	}
	recs, err := cat.BootstrapRecords(rel)
	if err != nil {
		return usageErrorf(c, "--release: %v", err)
	}
	m := releaseMapping{Catalog: cat.Name, Release: rel, Level: lvl, BootstrapRecords: recs, Features: []features.FeatureLevelRecord{}}
	for _, f := range cat.Features {
		m.Features = append(m.Features, features.FeatureLevelRecord{Name: f.Name, Level: boot[f.Name]})
	}
	switch outputFormat(c) {
	case printer.JSON:
		return writeJSON(c, m)
	case printer.Text:
		// The same lines kafka-features version-mapping prints, then the
		// level's details.
		w := stdout(c)
		fmt.Fprintf(w, "metadata.version=%d (%s)\n", lvl.Level, rel)
		for _, f := range m.Features {
			fmt.Fprintf(w, "%s=%d\n", f.Name, f.Level)
		}
		fmt.Fprintf(w, "\nlevel %d is %s (release %s, metadata format change: %s, %s)\n", lvl.Level, lvl.Name, lvl.Release,
			yesNo(lvl.MetadataChanged), map[bool]string{true: "production", false: "unstable"}[lvl.Production])
		fmt.Fprintf(w, "enables: %s\n", lvl.Enables)
		var rs []string
		for _, r := range lvl.Records {
			rs = append(rs, fmt.Sprintf("%s v%d", r.Name, r.Version))
		}
		fmt.Fprintf(w, "records: %s\n", strings.Join(rs, ", "))
		var br []string
		for _, r := range recs {
			br = append(br, fmt.Sprintf("%s=%d", r.Name, r.Level))
		}
		fmt.Fprintf(w, "format writes: %s\n", strings.Join(br, ", "))
		return nil
	}
	rows := printer.Rows{Columns: []printer.Column{{Header: "FEATURE", Key: "feature"}, {Header: "LEVEL", Key: "level"}}}
	rows.Rows = append(rows.Rows, []string{features.MetadataVersionFeature, fmt.Sprintf("%d (%s)", lvl.Level, lvl.Name)})
	for _, f := range m.Features {
		rows.Rows = append(rows.Rows, []string{f.Name, strconv.Itoa(int(f.Level))})
	}
	return writeRows(c, rows)
}

func featuresDepsCommand() *cli.Command {
	return &cli.Command{
		Name:      "deps",
		Usage:     "what feature levels require, as kafka-features feature-dependencies prints it",
		ArgsUsage: "FEATURE=LEVEL...",
		Flags:     []cli.Flag{catalogFlag()},
		Action: func(c *cli.Context) error {
			args, err := checkArgs(c, 1, -1, "FEATURE=LEVEL...")
			if err != nil {
				return err
			}
			cat, err := catalogOf(c)
			if err != nil {
				return err
			}
			type entry struct {
				Feature      string                `json:"feature"`
				Level        int16                 `json:"level"`
				Dependencies []features.Dependency `json:"dependencies"`
			}
			var out []entry
			for _, a := range args {
				name, lv, ok := strings.Cut(a, "=")
				n, perr := strconv.ParseInt(lv, 10, 16)
				if !ok || perr != nil {
					return usageErrorf(c, "%q is not FEATURE=LEVEL", a)
				}
				deps, err := cat.Dependencies(name, int16(n))
				if err != nil {
					return err
				}
				out = append(out, entry{name, int16(n), deps})
			}
			if outputFormat(c) == printer.JSON {
				return writeJSON(c, out)
			}
			rows := printer.Rows{Columns: []printer.Column{{Header: "FEATURE", Key: "feature"}, {Header: "REQUIRES", Key: "requires"}}}
			for _, e := range out {
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
			return writeRows(c, rows)
		},
	}
}

func featuresDescribeCommand(load imageLoader) *cli.Command {
	return &cli.Command{
		Name:        "describe",
		Usage:       "show a source's finalized features and the minimum metadata.version its content needs",
		ArgsUsage:   "SOURCE",
		Flags:       append([]cli.Flag{sourceCatalogFlag()}, sourceFlags()...),
		Description: "Exit 0, or 1 when the source rests on damaged or partial input, 2 when it cannot be read.\n\n" + sourceHelp,
		Action: func(c *cli.Context) error {
			src, err := oneArg(c, "SOURCE")
			if err != nil {
				return err
			}
			img, cat, err := loadWithCatalog(c, load, src)
			if err != nil {
				return err
			}
			if err := writeDescribe(c, cat, cat.Describe(img)); err != nil {
				return err
			}
			return partialResult(src, img)
		},
	}
}

func writeDescribe(c *cli.Context, cat *features.Catalog, st features.State) error {
	if outputFormat(c) == printer.JSON {
		return writeJSON(c, st)
	}
	rows := printer.Rows{Columns: []printer.Column{{Header: "ITEM", Key: "item"}, {Header: "VALUE", Key: "value"}}}
	mv := "none"
	if st.MetadataVersion != nil {
		mv = fmt.Sprintf("%d (%s)", st.MetadataVersion.Level, st.MetadataVersion.Name)
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
	return writeRows(c, rows)
}

func featuresCheckCommand(load imageLoader) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "would Kafka allow moving a source's metadata.version to a target, and what would be lost",
		ArgsUsage: "SOURCE",
		Description: "Exit status 0 when the change is allowed and loses nothing, 1 when it is refused or lossy (or the\n" +
			"source rests on damaged or partial input), 2 when it could not run. Refused as Kafka refuses: an unknown or\n" +
			"unstable level, a downgrade across a metadata format change, a migration in progress, broken feature\n" +
			"dependencies, and a level that a registered broker or controller does not support.\n" +
			"The catalog is the one the source's registered nodes run (3.9 or 4.x) unless --kafka says otherwise.\n" +
			"Kafka's own spellings work too: --release-version 3.9, --metadata 3.9, --feature metadata.version=21.\n" +
			"Finding codes (JSON \"code\") are stable.\n\n" + sourceHelp,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "to", Aliases: []string{"target", "t", "release-version", "metadata"}, Usage: "target `RELEASE` (3.7, 3.7-IV2 or a level number)"},
			&cli.StringSliceFlag{Name: "feature", Usage: "as kafka-features: `metadata.version=LEVEL` (the only feature check gates)"},
			&cli.BoolFlag{Name: "allow-unstable", Usage: "as unstable.feature.versions.enable=true"},
			sourceCatalogFlag(),
		}, sourceFlags()...),
		Action: func(c *cli.Context) error {
			src, err := oneArg(c, "SOURCE")
			if err != nil {
				return err
			}
			want, err := targetArg(c)
			if err != nil {
				return err
			}
			img, cat, err := loadWithCatalog(c, load, src)
			if err != nil {
				return err
			}
			target, err := cat.LevelFor(want)
			if err != nil && c.String("kafka") == "" && cat != features.Default() {
				// A level the source's software does not have yet (4.4 on
				// a 3.9 cluster) is a refusal Kafka would give, not a
				// typo: name it in the newest catalog and let Check refuse.
				if l, err2 := features.Default().LevelFor(want); err2 == nil {
					target, err = l, nil
				}
			}
			if err != nil {
				return usageErrorf(c, "--to: %v", err)
			}
			v := cat.Check(img, target, features.CheckOptions{AllowUnstable: c.Bool("allow-unstable")})
			if err := writeVerdict(c, v); err != nil {
				return err
			}
			if !v.Allowed || v.Lossy {
				return errFindingsReported
			}
			return partialResult(src, img)
		},
	}
}

// targetArg is the target level as given: --to (or Kafka's
// --release-version / --metadata), or --feature metadata.version=N.
func targetArg(c *cli.Context) (string, error) {
	want := c.String("to")
	for _, f := range c.StringSlice("feature") {
		name, lvl, ok := strings.Cut(f, "=")
		if !ok || strings.TrimSpace(name) != features.MetadataVersionFeature {
			return "", usageErrorf(c, "--feature %s: features check gates metadata.version only (--feature metadata.version=LEVEL)", f)
		}
		if want != "" && want != strings.TrimSpace(lvl) {
			return "", usageErrorf(c, "two targets: --to %s and --feature %s", want, f)
		}
		want = strings.TrimSpace(lvl)
	}
	if want == "" {
		return "", usageErrorf(c, "missing the target: --to RELEASE (or --release-version, --metadata, --feature metadata.version=LEVEL)")
	}
	return want, nil
}

func writeVerdict(c *cli.Context, v features.Verdict) error {
	if outputFormat(c) == printer.JSON {
		return writeJSON(c, v)
	}
	if outputFormat(c) == printer.Text {
		w := stdout(c)
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
		fmt.Fprintf(w, "%s: %s -> %s (%s, %s catalog)\n", verdict, cur, v.Target.Name, v.Direction, v.Catalog)
		if v.RequiredMinimum != nil {
			fmt.Fprintf(w, "content needs at least %s\n", v.RequiredMinimum.Name)
		}
		return printer.WriteFindingsText(w, v.Findings)
	}
	return writeRows(c, printer.FindingsRows(v.Findings))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
