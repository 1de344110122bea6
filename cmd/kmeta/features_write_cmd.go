package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/shellword"
)

// The three commands of kmeta that write to a cluster: features upgrade,
// downgrade and disable. Each first judges the change on the live
// cluster (features.Judge: kmeta's refusal sends nothing), then asks Kafka
// with validate-only, then, unless --dry-run and after a confirmation,
// sends the real request from kafkaread/writes.go and reads the levels
// again.

const featureChangeHelp = "Order: kmeta's own gating on the live cluster (every registered broker's and controller's supported\n" +
	"range, Kafka's controller rules, dependencies between features, what a downgrade turns off); when kmeta\n" +
	"refuses, nothing is sent. Then UpdateFeatures with validate-only; then, unless --dry-run, the real\n" +
	"request after a confirmation prompt (--yes skips it; without a terminal, --yes is required). The output\n" +
	"shows the levels before and after as Kafka reports them.\n" +
	"Exit status 0 when done (or, with --dry-run, when it would be done), 1 when kmeta or Kafka refuses it or\n" +
	"it is not confirmed, 2 when it could not run.\n\n" +
	"SOURCE is kafka://HOST:PORT[,HOST:PORT...], or --bootstrap-server / --bootstrap-controller as Kafka's\n" +
	"tools take them, with Kafka's client settings in --command-config."

func featuresChangeCommands() []*cli.Command {
	return []*cli.Command{
		featuresChangeCommand(features.OpUpgrade, "raise metadata.version or other features on a live cluster (writes to the cluster)"),
		featuresChangeCommand(features.OpDowngrade, "lower metadata.version or other features on a live cluster (writes to the cluster)"),
		featuresChangeCommand(features.OpDisable, "set features to level 0 on a live cluster (writes to the cluster)"),
	}
}

func featuresChangeCommand(op, usage string) *cli.Command {
	var w writeOptions
	flags := []cli.Flag{}
	if op != features.OpDisable {
		flags = append(flags,
			&cli.StringFlag{Name: "metadata", Usage: "metadata.version `LEVEL|RELEASE` (3.9, 3.9-IV0 or 21)"},
			&cli.StringFlag{Name: "release-version", Usage: "`RELEASE` whose metadata.version and feature defaults to set (as kafka-features; combines with nothing else)"},
			&cli.StringSliceFlag{Name: "feature", Usage: "`NAME=LEVEL` to set; repeatable"},
		)
	} else {
		flags = append(flags, &cli.StringSliceFlag{Name: "feature", Usage: "feature `NAME` to disable (level 0); repeatable"})
	}
	if op != features.OpUpgrade {
		flags = append(flags, &cli.BoolFlag{Name: "unsafe", Usage: "send UNSAFE_DOWNGRADE (Kafka still refuses an unsafe metadata.version downgrade)"})
	}
	flags = append(flags, w.flags(writeUsage{DryRun: "gate and validate with Kafka (validate-only), write nothing"})...)
	flags = append(flags,
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation before writing"},
		&cli.BoolFlag{Name: "allow-unstable", Usage: "the cluster runs with unstable.feature.versions.enable=true"},
		sourceCatalogFlag(),
	)
	flags = append(flags, kafkaSourceFlags()...)
	return &cli.Command{
		Name:        op,
		Usage:       usage,
		ArgsUsage:   "[SOURCE]",
		Description: featureChangeHelp,
		Flags:       flags,
		Action:      func(c *cli.Context) error { return featuresChange(c, op, w) },
	}
}

func featuresChange(c *cli.Context, op string, w writeOptions) error {
	args, err := checkArgs(c, 0, 1, "SOURCE")
	if err != nil {
		return err
	}
	req := features.ChangeRequest{Op: op, Features: c.StringSlice("feature")}
	if op != features.OpDisable {
		req.Metadata, req.ReleaseVersion = c.String("metadata"), c.String("release-version")
	}
	if op != features.OpUpgrade {
		req.Unsafe = c.Bool("unsafe")
	}
	if _, err := catalogOf(c); err != nil {
		return err
	}
	// Parse the request once before connecting: a malformed one is a
	// usage error whatever the cluster.
	if _, err := features.Default().Targets(req); errors.Is(err, features.ErrBadRequest) {
		return usageErrorf(c, "%v", err)
	}
	cfg, src, err := liveConfig(c, args)
	if err != nil {
		return err
	}
	ctx := c.Context
	cl, err := kafkaread.Dial(ctx, cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	view, err := cl.Features(ctx)
	if err != nil {
		return err
	}
	cat, why := liveCatalog(view)
	if c.String("kafka") != "" {
		cat, _ = catalogOf(c)
		why = "--kafka"
	}
	verbosef(c, "catalog %s (Kafka %s): %s", cat.Name, cat.Software, why)
	targets, err := cat.Targets(req)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	cluster := features.ClusterFeatures{Finalized: view.Finalized}
	for _, n := range view.Nodes {
		cluster.Nodes = append(cluster.Nodes, features.NodeSupport{Kind: n.Kind, ID: n.ID, Supported: n.Supported})
	}
	d := report.FeatureChange{Source: src, Op: op, DryRun: w.DryRun, Gaps: view.Gaps,
		Before:  maps.Clone(view.Finalized),
		Verdict: cat.Judge(cluster, op, targets, features.CheckOptions{AllowUnstable: c.Bool("allow-unstable")})}
	if !d.Verdict.Allowed {
		d.Outcome = report.ChangeRefusedByKmeta
		return emit(c, report.FeatureChangeReport(d))
	}
	d.BrokersRoll = brokersRollLine(c, cfg, d.Verdict)

	updates := make([]kafkaread.FeatureUpdate, 0, len(targets))
	for _, t := range targets {
		updates = append(updates, kafkaread.FeatureUpdate{Feature: t.Feature, Level: t.Level, UpgradeType: t.Type.Wire()})
	}
	answers, err := cl.ChangeFeatures(ctx, updates, true)
	d.Sent = true
	if err != nil {
		return err
	}
	d.Validated = kafkaAnswers(answers)
	if refused(answers) {
		d.Outcome = report.ChangeRefusedByKafka
		return emit(c, report.FeatureChangeReport(d))
	}
	if d.DryRun {
		d.Outcome = report.ChangeWouldDo
		return emit(c, report.FeatureChangeReport(d))
	}
	if !c.Bool("yes") {
		ok, err := confirm(c, op, src, targets)
		if err != nil {
			return err
		}
		if !ok {
			d.Outcome = report.ChangeNotConfirmed
			return emit(c, report.FeatureChangeReport(d))
		}
	}
	answers, err = cl.ChangeFeatures(ctx, updates, false)
	if err != nil {
		return err
	}
	d.Applied, d.Written = kafkaAnswers(answers), true
	if refused(answers) {
		d.Outcome = report.ChangeRefusedByKafka
		d.After, _, _ = cl.Finalize(ctx)
		return emit(c, report.FeatureChangeReport(d))
	}
	after, err := waitLevels(ctx, cl, targets, cfg.Timeout)
	if err != nil {
		return err
	}
	d.After, d.Outcome = after, report.ChangeDone
	if len(d.Verdict.ConfigRoll) > 0 {
		d.Roll, d.BootstrapServers = quorumConfigRoll(c, cl)
	}
	return emit(c, report.FeatureChangeReport(d))
}

// bootstrapServerVar is the variable the brokers' roll line reads their
// address from, where kmeta has none (through a controller).
const bootstrapServerVar = "BOOTSTRAP_SERVER"

// brokersRollLine is, when a change needs every node's config rolled
// (kraft.version 0→1: Verdict.ConfigRoll) and was asked through the
// controllers, the line that lists the brokers and prints their gated
// roll through a broker: a controller lists no broker (DescribeCluster
// answers for controllers only, KIP-919; kafkaread names them a gap), so
// the roll quorumConfigRoll orders holds the controllers alone. No
// broker's address is known through a controller either: the line reads
// it from $BOOTSTRAP_SERVER, and the shell stops, saying what to set,
// when that is unset. --command-config (the brokers' client settings)
// and --kafka-timeout go with it as given. "" otherwise.
func brokersRollLine(c *cli.Context, cfg kafkaread.Config, v features.ChangeVerdict) string {
	if !cfg.Controllers || len(v.ConfigRoll) == 0 {
		return ""
	}
	line := `kmeta roll plan --bootstrap-server "` + shellword.Require(bootstrapServerVar, "a broker HOST:PORT") + `" --all-brokers`
	if rest := setFlagWords(c, "command-config", "kafka-timeout"); len(rest) > 0 {
		line += " " + shellword.Join(rest)
	}
	return line
}

func kafkaAnswers(rs []kafkaread.FeatureResult) []report.KafkaAnswer {
	out := make([]report.KafkaAnswer, 0, len(rs))
	for _, r := range rs {
		out = append(out, report.KafkaAnswer{Feature: r.Feature, Error: r.Error, Message: r.Message})
	}
	return out
}

func refused(rs []kafkaread.FeatureResult) bool {
	for _, r := range rs {
		if !r.Accepted() {
			return true
		}
	}
	return false
}

// waitLevels reads the finalized levels again until they show every
// target (a broker learns them from the metadata log a moment after the
// controller wrote them), or the timeout passes; then it returns what
// Kafka reports.
func waitLevels(ctx context.Context, cl *kafkaread.Client, targets []features.FeatureTarget, timeout time.Duration) (map[string]int16, error) {
	if timeout <= 0 {
		timeout = kafkaread.DefaultTimeout
	}
	deadline := time.Now().Add(timeout)
	for {
		fin, _, err := cl.Finalize(ctx)
		if err != nil {
			return nil, err
		}
		done := true
		for _, t := range targets {
			if fin[t.Feature] != t.Level {
				done = false
			}
		}
		if done || time.Now().After(deadline) {
			return maps.Clone(fin), nil
		}
		select {
		case <-ctx.Done():
			return maps.Clone(fin), nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// confirm asks on stderr and reads the answer from stdin. Without a
// terminal there is nobody to ask: that is a refusal to run (exit 2),
// never a silent yes.
func confirm(c *cli.Context, op, src string, targets []features.FeatureTarget) (bool, error) {
	var parts []string
	for _, t := range targets {
		parts = append(parts, fmt.Sprintf("%s=%d (%s)", t.Feature, t.Level, t.Type))
	}
	return askYes(c, "features "+op, fmt.Sprintf("%s %s on %s: Kafka validated it. Write it now? [y/N] ", op, strings.Join(parts, ", "), src))
}

// askYes asks question on stderr and reads a yes or no from stdin: the
// confirmation of every command that writes to a cluster (what, e.g.
// "features upgrade", names it). Without a terminal it refuses to run
// (exit 2): --yes says yes on the command line.
func askYes(c *cli.Context, what, question string) (bool, error) {
	in := c.App.Reader
	if in == nil {
		in = os.Stdin
	}
	f, isFile := in.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return false, usageErrorf(c, "%s writes to the cluster and asks for confirmation first, but stdin is not a terminal: add --yes to confirm on the command line (or --dry-run to only validate)", what)
	}
	fmt.Fprint(stderr(c), question)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

// liveCatalog is the catalog of the software the registered nodes run:
// 3.9 when none supports a metadata.version past 3.x, else the 4.x release
// whose latest production level is the highest supported one (kraft.version
// moves online only from 4.1), else the newest.
func liveCatalog(v *kafkaread.FeatureView) (*features.Catalog, string) {
	maxMV := int16(-1)
	for _, n := range v.Nodes {
		if r, ok := n.Supported[features.MetadataVersionFeature]; ok {
			maxMV = max(maxMV, r[1])
		}
	}
	if maxMV < 0 {
		return features.Default(), "no node reported a metadata.version range; the newest catalog"
	}
	if maxMV <= features.Catalog39().Latest().Level {
		return features.Catalog39(), fmt.Sprintf("the nodes support metadata.version up to %d, a Kafka 3.x range", maxMV)
	}
	for _, rel := range []string{"4.0", "4.1", "4.2", "4.3"} {
		if cat, err := features.CatalogFor(rel); err == nil && cat.LatestProduction == maxMV {
			return cat, fmt.Sprintf("the nodes support metadata.version up to %d, Kafka %s's latest", maxMV, rel)
		}
	}
	return features.Default(), fmt.Sprintf("the nodes support metadata.version up to %d", maxMV)
}

// liveConfig is the live cluster the command writes to: its kafka://
// SOURCE or --bootstrap-server / --bootstrap-controller, and the name
// printed for it.
func liveConfig(c *cli.Context, args []string) (kafkaread.Config, string, error) {
	cfg, src, ok, err := liveArg(c)
	if err != nil {
		return cfg, "", err
	}
	if !ok {
		if len(args) > 0 {
			return cfg, "", usageErrorf(c, "SOURCE %q: features %s writes to a live cluster: give kafka://HOST:PORT[,...] (or --bootstrap-server)", printer.Clean(args[0]), c.Command.Name)
		}
		return cfg, "", usageErrorf(c, "missing the cluster: kafka://HOST:PORT, --bootstrap-server or --bootstrap-controller")
	}
	return cfg, src, nil
}
