package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
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
		Subcommands: append([]*cli.Command{
			featuresListCommand(),
			featuresDepsCommand(),
			featuresDescribeCommand(load),
			featuresCheckCommand(load),
		}, featuresChangeCommands()...),
	}
}

func featuresListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list metadata.version levels, or what one release bootstraps",
		Description: "Without --release: every level the catalog knows. With --release (3.7, 3.7.2, 3.7-IV2 or a level\n" +
			"number): the level and the feature levels kafka-storage format uses for it, as\n" +
			"kafka-features version-mapping prints them.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "release", Aliases: []string{"r", "release-version"}, Usage: "show the mapping for `RELEASE` (--release-version: kafka-features' spelling)"},
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
				return listRelease(c, cat, rel)
			}
			return emit(c, report.Levels(cat))
		},
	}
}

func listRelease(c *cli.Context, cat *features.Catalog, rel string) error {
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
	return emit(c, report.Release(cat, rel, lvl, boot, recs))
}

func featuresDepsCommand() *cli.Command {
	return &cli.Command{
		Name:      "deps",
		Usage:     "what feature levels require, as kafka-features feature-dependencies prints it",
		ArgsUsage: "FEATURE=LEVEL...",
		Flags: []cli.Flag{catalogFlag(),
			&cli.StringSliceFlag{Name: "feature", Usage: "a `FEATURE=LEVEL` to look up, as kafka-features feature-dependencies takes it; repeatable, and the same as an argument"}},
		Action: func(c *cli.Context) error {
			args := append(c.StringSlice("feature"), c.Args().Slice()...)
			if len(args) == 0 {
				return usageErrorf(c, "missing FEATURE=LEVEL... (or --feature FEATURE=LEVEL)")
			}
			cat, err := catalogOf(c)
			if err != nil {
				return err
			}
			var deps []report.FeatureDeps
			for _, a := range args {
				name, lv, ok := strings.Cut(a, "=")
				n, perr := strconv.ParseInt(lv, 10, 16)
				if !ok || perr != nil {
					return usageErrorf(c, "%q is not FEATURE=LEVEL", a)
				}
				d, err := cat.Dependencies(name, int16(n))
				if err != nil {
					return err
				}
				deps = append(deps, report.FeatureDeps{Feature: name, Level: int16(n), Dependencies: d})
			}
			return emit(c, report.Deps(cat, deps))
		},
	}
}

func featuresDescribeCommand(load imageLoader) *cli.Command {
	return &cli.Command{
		Name:      "describe",
		Usage:     "show a source's finalized features and the minimum metadata.version its content needs",
		ArgsUsage: "SOURCE",
		Flags:     append([]cli.Flag{sourceCatalogFlag()}, sourceFlags()...),
		Description: "kraft.version (the quorum's, from control records or a live cluster's ApiVersions) is listed with the\n" +
			"other features. A live cluster's brokers (kafka://... or --bootstrap-server) and its controllers\n" +
			"(--bootstrap-controller) given together are one view: every node's supported ranges, brokers' and\n" +
			"controllers' (--controller-command-config when their listener needs other client settings).\n" +
			"Exit 0, or 1 when the source rests on damaged or partial input, 2 when it cannot be read.\n\n" + sourceHelp,
		Action: func(c *cli.Context) error {
			src, ctlSrc, err := describeSources(c)
			if err != nil {
				return err
			}
			img, cat, err := loadWithCatalog(c, load, src)
			if err != nil {
				return err
			}
			if ctlSrc != "" {
				ctl, err := load(c, ctlSrc)
				if err != nil {
					return err
				}
				if err := withControllers(img, ctl); err != nil {
					return err
				}
			}
			st := cat.Describe(img)
			if spec, err := source.Parse(src); err == nil && spec.World == model.WorldKafka {
				// A running cluster answers each node's ranges now (a
				// log's registrations are shown by image).
				st.Nodes, st.NodesNotReported = features.NodeRanges(img)
			}
			if err := emit(c, report.Describe(cat, st)); err != nil {
				return err
			}
			return partialResult(src, img)
		},
	}
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
			src, err := sourceArg(c)
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
			if err := emit(c, report.FeatureCheck(v)); err != nil {
				return err
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

// describeSources is features describe's SOURCE, and the controllers'
// view to add to it: a live cluster's brokers (kafka://... or
// --bootstrap-server) with --bootstrap-controller are one cluster, read
// twice and shown as one view.
func describeSources(c *cli.Context) (src, ctl string, err error) {
	ctlAddr := c.String("bootstrap-controller")
	brokers := ""
	switch args := c.Args().Slice(); {
	case ctlAddr == "":
	case len(args) == 1 && strings.HasPrefix(args[0], "kafka://") && c.String("bootstrap-server") == "":
		brokers = args[0]
	case len(args) == 0 && c.String("bootstrap-server") != "":
		brokers = "kafka://" + c.String("bootstrap-server")
	}
	if brokers == "" {
		src, err = sourceArg(c)
		return src, "", err
	}
	if _, err := source.Live(ctlAddr, true); err != nil {
		return "", "", usageErrorf(c, "%v", err)
	}
	return brokers, "kafka://" + ctlAddr, nil
}

// withControllers gives a live brokers' view what the controllers' view
// of the same cluster holds and the brokers do not answer: the
// controllers (their supported ranges and migration flags) and, where
// the brokers' lacks it, the quorum.
func withControllers(img, ctl *model.Image) error {
	if ctl.ClusterID != "" && img.ClusterID != "" && ctl.ClusterID != img.ClusterID {
		return fmt.Errorf("--bootstrap-controller answers for cluster %s, the brokers for cluster %s: not one cluster", ctl.ClusterID, img.ClusterID)
	}
	img.Controllers = ctl.Controllers
	if img.Quorum == nil && ctl.Quorum != nil {
		img.Quorum = ctl.Quorum
	}
	ctlFields := []model.Field{model.FieldControllers, model.FieldControllerFeatures, model.FieldControllerZkMigrationReady,
		model.FieldControllerIncarnationID, model.FieldControllerEndpoints}
	img.NotReported = slices.DeleteFunc(img.NotReported, func(f model.Field) bool {
		return slices.Contains(ctlFields, f) || f == model.FieldQuorum && img.Quorum != nil
	})
	for _, f := range ctlFields {
		if !ctl.Reports(f) {
			img.MarkNotReported(f)
		}
	}
	for _, w := range ctl.Warnings {
		if strings.HasPrefix(w.Entity, "controller") {
			img.Warnings = append(img.Warnings, w)
		}
	}
	return nil
}
