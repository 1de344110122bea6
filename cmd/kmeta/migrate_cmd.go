package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

func init() { register(migrateCommand) }

// envKillAt is a fault-injection hook for tests: the process SIGKILLs
// itself at the N-th file boundary of apply or brokers (before or after
// each rename), so tests can prove a rerun completes after kill -9.
const envKillAt = "KMETA_MIGRATE_KILL_AT"

// killHook is the file hook that envKillAt asks for, nil without it.
func killHook() migrate.FileHook {
	n, err := strconv.Atoi(os.Getenv(envKillAt))
	if err != nil || n <= 0 {
		return nil
	}
	count := 0
	return func(string, string) {
		count++
		if count == n {
			// Process.Kill is SIGKILL on Unix (and TerminateProcess
			// elsewhere): no deferred cleanup runs, as with kill -9.
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Kill()
			}
		}
	}
}

// planFlags are the flags that make a plan, shared by plan, apply and
// brokers.
func planFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "zk", Usage: "the ZooKeeper `SOURCE` (zkdata:DIR, zk://HOST:PORT/CHROOT, zkdump:FILE)"},
		&cli.StringFlag{Name: "metadata-version", Usage: "target metadata.version `LEVEL|RELEASE` (e.g. 4.4, 4.0-IV3)", Value: "4.4"},
		&cli.StringFlag{Name: "controllers", Usage: "the KRaft quorum `ID@HOST:PORT[:DIRECTORY_ID],...` (controller.quorum.voters; with directory ids, Kafka's --initial-controllers)"},
		quorumFlag(),
		&cli.StringFlag{Name: "cluster-id", Usage: "cluster `ID` to use when ZooKeeper has no /cluster/id"},
		&cli.StringFlag{Name: "password-encoder-secret", Usage: "the brokers' password.encoder.secret `SECRET`, to decrypt password configs (better from the environment: a command line is visible to every user of the host)", EnvVars: []string{"KMETA_PASSWORD_ENCODER_SECRET"}},
		&cli.StringSliceFlag{Name: "override", Usage: "lift one blocker `NAME` (" + strings.Join(migrate.Overrides, ", ") + "); repeatable"},
	}, sourceFlags()...)
}

func migrateCommand() *cli.Command {
	var planW, applyW, brokersW, configsW writeOptions
	return &cli.Command{
		Name:  "migrate",
		Usage: "move a ZooKeeper-mode cluster to KRaft: offline (plan, apply, brokers, configs) or online, phase by phase (stage, status, rollback)",
		Description: "Offline, for a stopped cluster: 'migrate plan' (preflight: every blocker with its fix), stop the\n" +
			"cluster, 'migrate apply' (one metadata log dir per controller), 'migrate brokers' on each broker host,\n" +
			"'migrate configs --plan' for each node, then start the controllers and the brokers on Kafka 4.x.\n" +
			"Online, for a running 3.4-3.9 cluster (Kafka's KIP-866 migration): 'migrate stage PHASE' for each\n" +
			"phase in turn, 'migrate status' at any time, 'migrate rollback' while one is valid.",
		Subcommands: append([]*cli.Command{
			{
				Name:      "plan",
				Usage:     "preflight: what blocks, and exactly what apply would write",
				ArgsUsage: " ",
				Description: "Reads the ZooKeeper state (--zk), builds the KRaft records a controller would start from and\n" +
					"checks them: every blocker comes with its fix. Writes nothing unless --write FILE, a plan that\n" +
					"'migrate apply --plan', 'brokers --plan' and 'configs --plan' then follow. Exit 1 when blocked.\n" + htmlHelp,
				Flags: slices.Concat(planFlags(),
					[]cli.Flag{&cli.StringFlag{Name: "write", Usage: "also write the plan as JSON to `FILE` (for apply --plan and brokers --plan)"}},
					planW.flags(writeUsage{Force: "replace an existing --write file"}), reportFlags()),
				Action: func(c *cli.Context) error { return migratePlan(c, planW) },
			},
			{
				Name:      "apply",
				Usage:     "write one ready KRaft metadata log dir per controller (DIR/controller-ID)",
				ArgsUsage: " ",
				Description: "Plans again (from --zk, or from --plan FILE, whose source must not have changed) and, when\n" +
					"nothing blocks, writes each controller's metadata log dir under --out: bootstrap.checkpoint and\n" +
					"meta.properties. Run it with the cluster stopped. --dry-run shows the files and writes nothing.",
				Flags: slices.Concat(planFlags(), []cli.Flag{
					&cli.StringFlag{Name: "plan", Usage: "execute the plan `FILE` written by 'migrate plan --write' (its source must not have changed)"},
					&cli.StringFlag{Name: "node", Usage: "only these controller `IDS` (comma-separated)"},
				}, applyW.flags(writeUsage{Out: "output `DIR`", Force: "replace files holding other content",
					DryRun: "show each file and its content, write nothing"})),
				Action: func(c *cli.Context) error { return migrateApply(c, applyW) },
			},
			{
				Name:      "brokers",
				Usage:     "check and convert ZooKeeper-mode broker log dirs in place (meta.properties, partition.metadata)",
				ArgsUsage: " ",
				Description: "On each broker host, with the broker stopped: checks every --log-dirs dir against the plan\n" +
					"(cluster id, partitions, topic ids) and rewrites meta.properties and partition.metadata for\n" +
					"KRaft. --dry-run checks and shows what would be written.",
				Flags: slices.Concat(planFlags(), []cli.Flag{
					&cli.StringFlag{Name: "plan", Usage: "check against the plan `FILE` instead of reading --zk"},
					&cli.StringSliceFlag{Name: "log-dirs", Usage: "the broker's log.dirs `DIR,...`"},
					&cli.BoolFlag{Name: "allow-stray", Usage: "leave partition dirs ZooKeeper does not account for (Kafka renames them *-stray)"},
				}, brokersW.flags(writeUsage{DryRun: "check and show what would be written, write nothing"})),
				Action: func(c *cli.Context) error { return migrateBrokers(c, brokersW) },
			},
			{
				Name:      "configs",
				Usage:     "write a node's KRaft server.properties from its ZooKeeper-mode one",
				ArgsUsage: " ",
				Description: "Turns the ZooKeeper-mode broker's --server-properties into a KRaft broker's or controller's\n" +
					"(--role): drops the ZooKeeper settings, adds process.roles, node.id and the quorum (from --plan\n" +
					"or --controllers), and says which settings it removed or replaced. Prints it, or writes --out.",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "server-properties", Usage: "the ZooKeeper-mode broker's `FILE`"},
					&cli.StringFlag{Name: "role", Usage: "the node's `ROLE`: broker or controller", Value: "broker"},
					&cli.Int64Flag{Name: "node-id", Value: -1, Usage: "node.id `ID`", DefaultText: "the file's broker.id"},
					&cli.StringFlag{Name: "plan", Usage: "take the controllers and the quorum from the plan `FILE` written by 'migrate plan --write' (--controllers and --quorum, if given, must agree)"},
					&cli.StringFlag{Name: "controllers", Usage: "the KRaft quorum `ID@HOST:PORT[:DIRECTORY_ID],...` (required without --plan)"},
					quorumFlag(),
					&cli.StringFlag{Name: "metadata-dir", Usage: "controller: its metadata log `DIR` (from apply); broker: metadata.log.dir"},
					&cli.GenericFlag{Name: "set", Value: &wholeValues{}, Usage: "extra setting `KEY=VALUE`, the value taken whole (commas included); repeatable"},
				}, configsW.flags(writeUsage{
					Out:    "write to `FILE`, mode 0600, never the --server-properties file (default: print it, passwords redacted unless --show-secrets)",
					Force:  "replace an existing --out file",
					DryRun: "show what would be written",
				})...),
				Action: func(c *cli.Context) error { return migrateConfigs(c, configsW) },
			},
		}, onlineCommands()...),
	}
}

func migratePlan(c *cli.Context, w writeOptions) error {
	if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
		return err
	}
	p, _, err := migratePlanFromFlags(c)
	if err != nil {
		return err
	}
	if file := c.String("write"); file != "" {
		if err := migrate.WritePlan(file, p, w.Force); err != nil {
			return err
		}
	}
	return emit(c, report.Plan(p))
}

func migrateApply(c *cli.Context, w writeOptions) error {
	if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
		return err
	}
	if w.Out == "" {
		return missingFlag(c, "out")
	}
	p, _, err := migratePlanFromFlags(c)
	if err != nil {
		return err
	}
	if p.Blocked {
		_ = printer.WriteDocument(stdout(c), outputFormat(c), report.Plan(p).Document)
		return findingsf("refusing to apply: the plan has %s (each names its fix or override)", printer.Count(len(p.Blockers()), "blocker"))
	}
	o, err := applyOptions(c, w)
	if err != nil {
		return err
	}
	prog := newProgress(c, "writing the controllers' metadata dirs", progressBytes)
	o.Progress = prog.Update
	files, err := migrate.Apply(p, o)
	prog.Done()
	if err != nil {
		return err
	}
	// apply reports what the plan it carries out says (its warnings and
	// notes: a torn tail, an override, a missing partition state).
	return emit(c, report.Files(files, p.Findings))
}

// applyOptions are apply's flags as migrate.ApplyOptions (without
// progress).
func applyOptions(c *cli.Context, w writeOptions) (migrate.ApplyOptions, error) {
	o := migrate.ApplyOptions{Out: w.Out, Force: w.Force, DryRun: w.DryRun, FileHook: killHook()}
	if s := c.String("node"); s != "" {
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
			if err != nil {
				return o, usageErrorf(c, "--node %q: not a node id", f)
			}
			o.Nodes = append(o.Nodes, int32(n))
		}
	}
	return o, nil
}

func migrateBrokers(c *cli.Context, w writeOptions) error {
	if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
		return err
	}
	o := migrate.BrokerOptions{AllowStray: c.Bool("allow-stray"), DryRun: w.DryRun, FileHook: killHook()}
	for _, d := range c.StringSlice("log-dirs") {
		for _, s := range strings.Split(d, ",") {
			if s = strings.TrimSpace(s); s != "" {
				o.LogDirs = append(o.LogDirs, s)
			}
		}
	}
	if len(o.LogDirs) == 0 {
		return missingFlag(c, "log-dirs")
	}
	// Before the plan: a mistyped dir should not wait for a source read.
	if err := migrate.CheckLogDirs(o.LogDirs); err != nil {
		return usageErrorf(c, "--log-dirs: %v", err)
	}
	var p *migrate.Plan
	var err error
	if c.String("plan") != "" && c.String("zk") == "" {
		// Broker hosts may not reach ZooKeeper: the plan file carries
		// the assignment and topic ids.
		p, err = migrate.ReadPlan(c.String("plan"))
	} else {
		p, _, err = migratePlanFromFlags(c)
	}
	if err != nil {
		return err
	}
	// Broker dirs do not depend on the quorum: a plan made with --zk
	// alone is enough for them, and the plan printed on a refusal lists
	// only what blocks them.
	p = p.ForBrokers()
	if p.Blocked {
		_ = printer.WriteDocument(stdout(c), outputFormat(c), report.Plan(p).Document)
		return findingsf("refusing to convert broker dirs: the plan has %s", printer.Count(len(p.Blockers()), "blocker"))
	}
	r, err := migrate.ConvertBrokers(p, o)
	if r != nil {
		if werr := emit(c, report.Brokers(r)); werr != nil {
			return werr
		}
	}
	if errors.Is(err, migrate.ErrBrokerDir) {
		return findings(err)
	}
	return err
}

// liveNotMigrationSource is why a live cluster (kafka://, --bootstrap-*)
// is refused before it is read: its admin API does not report what a
// migration writes (the fields are the model's, as a live view lists them
// in notReported), and it is a KRaft cluster already (Dial names a
// ZooKeeper-mode one as such).
var liveNotMigrationSource = fmt.Sprintf("a live cluster is never a migration source: its admin API does not report what a migration writes (%s, %s, %s, %s), "+
	"and it runs KRaft already; migrate reads ZooKeeper (zkdata:DIR, zk://HOST:PORT/CHROOT, zkdump:FILE)",
	model.FieldSCRAMSecrets, model.FieldSensitiveConfigs, model.FieldPartitionEpoch, model.FieldProducerIDs)

// migratePlanFromFlags builds the plan apply or brokers executes: from
// --plan FILE (re-checked against its source) or from --zk and the plan
// flags.
func migratePlanFromFlags(c *cli.Context) (*migrate.Plan, *model.Image, error) {
	var old *migrate.Plan
	src := c.String("zk")
	if f := c.String("plan"); f != "" {
		var err error
		// Replan needs the header only: the topics come from the source.
		if old, err = migrate.ReadPlanHeader(f); err != nil {
			return nil, nil, err
		}
		if src == "" {
			src = old.Source
		}
	}
	if lf, err := liveFlag(c); err != nil {
		return nil, nil, err
	} else if lf != "" {
		return nil, nil, usageErrorf(c, "%s: %s", lf, liveNotMigrationSource)
	}
	if src == "" {
		return nil, nil, missingFlag(c, "zk")
	}
	spec, err := parseSource(c, src)
	if err != nil {
		return nil, nil, usageErrorf(c, "--zk: %v", err)
	}
	if spec.World == model.WorldKafka {
		return nil, nil, usageErrorf(c, "--zk %s: %s", src, liveNotMigrationSource)
	}
	if spec.World != model.WorldZooKeeper {
		return nil, nil, usageErrorf(c, "--zk %s is a KRaft source; migrate reads ZooKeeper", src)
	}
	// The plan file records the source with absolute paths, so that it
	// applies from any directory.
	fileSrc, err := spec.Absolute()
	if err != nil {
		return nil, nil, err
	}
	res, err := loadSpec(c, spec)
	if err != nil && !(errors.Is(err, source.ErrDataDirsDiverge) && res != nil) {
		return nil, nil, fmt.Errorf("reading %s: %w", src, err)
	}
	// Several data dirs that are not one history still make a plan: a
	// blocked one, naming them (zk-data-dirs-diverge).
	var dirs []migrate.ZKDataDir
	for _, d := range res.DataDirs {
		dirs = append(dirs, migrate.ZKDataDir{Path: d.Path, MaxZxid: d.MaxZxid, Used: d.Used, Diverged: d.Diverged})
	}
	live := spec.ZK.Access == zkread.AccessLive
	if old != nil {
		prog := newProgress(c, "planning: partitions to records", progressCount)
		p, err := migrate.Replan(res.Image, old, migrate.ReplanOptions{Source: src, SourceFile: fileSrc, Live: live,
			PasswordEncoderSecret: c.String("password-encoder-secret"), ZKDataDirs: dirs, Progress: prog.Update})
		prog.Done()
		if err != nil {
			return nil, nil, findings(err)
		}
		return p, res.Image, nil
	}
	var cs []controllers.Spec
	if s := c.String("controllers"); s != "" {
		if cs, err = controllers.Parse(s); err != nil {
			return nil, nil, usageErrorf(c, "--controllers: %v", err)
		}
	}
	quorum, err := migrate.ParseQuorum(c.String("quorum"))
	if err != nil {
		return nil, nil, usageErrorf(c, "--quorum: %v", err)
	}
	prog := newProgress(c, "planning: partitions to records", progressCount)
	defer prog.Done()
	p, err := migrate.NewPlan(res.Image, migrate.Options{Source: src, SourceFile: fileSrc, Live: live, MetadataVersion: c.String("metadata-version"), Progress: prog.Update,
		Controllers: cs, Quorum: quorum, ZKDataDirs: dirs, ClusterID: c.String("cluster-id"), PasswordEncoderSecret: c.String("password-encoder-secret"),
		Overrides: c.StringSlice("override")})
	if err != nil {
		if errors.Is(err, migrate.ErrBadInput) {
			return nil, nil, usageErrorf(c, "%v", err)
		}
		return nil, nil, err
	}
	return p, res.Image, nil
}

func quorumFlag() cli.Flag {
	return &cli.StringFlag{Name: "quorum", Value: migrate.QuorumStatic,
		Usage: "`static` (kraft.version 0, controller.quorum.voters) or dynamic (kraft.version 1, KIP-853: the controllers are the initial voters, controller.quorum.bootstrap.servers; needs metadata.version 3.9-IV0 or later)"}
}

func migrateConfigs(c *cli.Context, w writeOptions) error {
	if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
		return err
	}
	in := c.String("server-properties")
	if in == "" {
		return missingFlag(c, "server-properties")
	}
	o, err := configOptions(c)
	if err != nil {
		return err
	}
	props, err := javaprops.Read(in)
	if err != nil {
		return err
	}
	if len(props) == 0 {
		return fmt.Errorf("--server-properties: %s holds no settings: not a node's server.properties", in)
	}
	for _, kv := range *c.Generic("set").(*wholeValues) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErrorf(c, "--set %q: want KEY=VALUE", kv)
		}
		o.Set[k] = v
	}
	out, fs, err := migrate.KRaftConfig(props, o)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	abs, _ := filepath.Abs(in)
	if path := w.Out; path != "" {
		if err := migrate.CheckConfigOut(path, in); err != nil {
			return usageErrorf(c, "%v", err)
		}
		fr, err := migrate.WriteConfig(path, migrate.FormatConfig(out, abs), w.Force, w.DryRun)
		if err != nil {
			return err
		}
		fr.Summary = report.ConfigSummary(out)
		return emit(c, report.Files([]migrate.FileResult{fr}, fs))
	}
	if err := emit(c, report.Config(out, abs, fs, showSecrets(c))); err != nil {
		return err
	}
	if outputFormat(c) != printer.JSON {
		// stdout is the file: its findings are diagnostics.
		for _, n := range report.ConfigNotes(fs) {
			fmt.Fprintln(stderr(c), "kmeta: "+n)
		}
	}
	return nil
}

// configOptions are configs' flags as migrate.ConfigOptions: the
// controllers and the quorum from --plan or the flags.
func configOptions(c *cli.Context) (migrate.ConfigOptions, error) {
	o := migrate.ConfigOptions{Role: c.String("role"), NodeID: int32(c.Int64("node-id")), MetadataDir: c.String("metadata-dir"), Set: map[string]string{}}
	if f := c.String("plan"); f != "" {
		p, err := migrate.ReadPlanHeader(f)
		if err != nil {
			return o, err
		}
		o.Plan = p
	}
	if s := c.String("controllers"); s != "" || o.Plan == nil {
		cs, err := controllers.Parse(s)
		switch {
		case err != nil:
			return o, usageErrorf(c, "--controllers: %v", err)
		case len(cs) == 0:
			return o, usageErrorf(c, "--controllers ID@HOST:PORT,... (or --plan FILE) is required")
		}
		o.Controllers = cs
	}
	// With a plan, only a --quorum the operator gave is checked against
	// it; the flag's default must not contradict a dynamic plan.
	if o.Plan == nil || c.IsSet("quorum") {
		o.Quorum = c.String("quorum")
	}
	return o, nil
}

// wholeValues is a repeatable flag whose values are taken whole. A
// StringSliceFlag splits each at its commas, and a setting's value often
// holds some (listeners, log.dirs, listener.security.protocol.map, a JAAS
// line), which --set KEY=VALUE then cut into other settings. Commands are
// built afresh for each run (newApp), so the slice never carries over.
type wholeValues []string

func (w *wholeValues) Set(v string) error {
	*w = append(*w, v)
	return nil
}

func (w *wholeValues) String() string { return strings.Join(*w, " ") }
