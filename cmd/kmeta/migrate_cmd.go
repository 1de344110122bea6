package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

func init() { register(migrateCommand) }

// envKillAt is a fault-injection hook for tests: the process SIGKILLs
// itself at the N-th file boundary of apply or brokers (before or after
// each rename), so tests can prove a rerun completes after kill -9.
const envKillAt = "KMETA_MIGRATE_KILL_AT"

func installKillHook() {
	n, err := strconv.Atoi(os.Getenv(envKillAt))
	if err != nil || n <= 0 {
		return
	}
	count := 0
	migrate.Hook = func(string, string) {
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

func migrateCommand() *cli.Command {
	planFlags := func() []cli.Flag {
		return append([]cli.Flag{
			&cli.StringFlag{Name: "zk", Usage: "the ZooKeeper `SOURCE` (zkdata:DIR, zk://HOST:PORT/CHROOT, zkdump:FILE)"},
			&cli.StringFlag{Name: "metadata-version", Usage: "target metadata.version `LEVEL|RELEASE` (e.g. 4.4, 4.0-IV3)", Value: "4.4"},
			&cli.StringFlag{Name: "controllers", Usage: "the KRaft quorum `ID@HOST:PORT[:DIRECTORY_ID],...` (controller.quorum.voters; with directory ids, Kafka's --initial-controllers)"},
			quorumFlag(),
			&cli.StringFlag{Name: "cluster-id", Usage: "cluster id to use when ZooKeeper has no /cluster/id"},
			&cli.StringFlag{Name: "password-encoder-secret", Usage: "the brokers' password.encoder.secret, to decrypt password configs"},
			&cli.StringSliceFlag{Name: "override", Usage: "lift one blocker `NAME` (" + strings.Join(migrate.Overrides, ", ") + "); repeatable"},
		}, sourceFlags()...)
	}
	return &cli.Command{
		Name:  "migrate",
		Usage: "convert a stopped ZooKeeper-mode cluster into a Kafka 4.x KRaft cluster, offline",
		Description: "The procedure: 'migrate plan' (preflight: every blocker with its fix), stop the cluster,\n" +
			"'migrate apply' (one metadata log dir per controller), 'migrate brokers' on each broker host,\n" +
			"'migrate configs --plan' for each node, then start the controllers and the brokers on Kafka 4.x.",
		Subcommands: []*cli.Command{
			{
				Name:      "plan",
				Usage:     "preflight: what blocks, and exactly what apply would write",
				ArgsUsage: " ",
				Flags: append(planFlags(),
					&cli.StringFlag{Name: "write", Usage: "also write the plan as JSON to `FILE` (for apply --plan and brokers --plan)"},
					&cli.BoolFlag{Name: "force", Usage: "replace an existing --write file"}),
				Action: func(c *cli.Context) error {
					if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
						return err
					}
					p, _, err := migratePlanFromFlags(c)
					if err != nil {
						return err
					}
					if w := c.String("write"); w != "" {
						// Compact: at a million partitions an indented
						// plan is three times the size to write and read.
						b, err := json.Marshal(p)
						if err != nil {
							return err
						}
						if _, err := migrate.WriteConfig(w, append(b, '\n'), c.Bool("force"), false); err != nil {
							return err
						}
					}
					if err := writePlan(c, p); err != nil {
						return err
					}
					if p.Blocked {
						return errFindingsReported
					}
					return nil
				},
			},
			{
				Name:      "apply",
				Usage:     "write one ready KRaft metadata log dir per controller (DIR/controller-ID)",
				ArgsUsage: " ",
				Flags: append(planFlags(),
					&cli.StringFlag{Name: "plan", Usage: "execute the plan `FILE` written by 'migrate plan --write' (its source must not have changed)"},
					&cli.StringFlag{Name: "out", Usage: "output `DIR`"},
					&cli.StringFlag{Name: "node", Usage: "only these controller `IDS` (comma-separated)"},
					&cli.BoolFlag{Name: "force", Usage: "replace files holding other content"},
					&cli.BoolFlag{Name: "dry-run", Usage: "show each file and its content, write nothing"}),
				Action: func(c *cli.Context) error {
					if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
						return err
					}
					if c.String("out") == "" {
						return usageErrorf(c, "--out DIR is required")
					}
					p, _, err := migratePlanFromFlags(c)
					if err != nil {
						return err
					}
					if p.Blocked {
						_ = writePlan(c, p)
						return findingsf("refusing to apply: the plan has %d blockers (each names its fix or override)", len(p.Blockers()))
					}
					var nodes []int32
					if s := c.String("node"); s != "" {
						for _, f := range strings.Split(s, ",") {
							n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
							if err != nil {
								return usageErrorf(c, "--node %q: not a node id", f)
							}
							nodes = append(nodes, int32(n))
						}
					}
					installKillHook()
					prog := newProgress(c, "writing the controllers' metadata dirs", progressBytes)
					files, err := migrate.Apply(p, migrate.ApplyOptions{Out: c.String("out"), Nodes: nodes, Force: c.Bool("force"), DryRun: c.Bool("dry-run"),
						Progress: prog.Update})
					prog.Done()
					if err != nil {
						return err
					}
					return writeFiles(c, files, nil)
				},
			},
			{
				Name:      "brokers",
				Usage:     "check and convert ZooKeeper-mode broker log dirs in place (meta.properties, partition.metadata)",
				ArgsUsage: " ",
				Flags: append(planFlags(),
					&cli.StringFlag{Name: "plan", Usage: "check against the plan `FILE` instead of reading --zk"},
					&cli.StringSliceFlag{Name: "log-dirs", Usage: "the broker's log.dirs `DIR,...`"},
					&cli.BoolFlag{Name: "allow-stray", Usage: "leave partition dirs ZooKeeper does not account for (Kafka renames them *-stray)"},
					&cli.BoolFlag{Name: "dry-run", Usage: "check and show what would be written, write nothing"}),
				Action: func(c *cli.Context) error {
					if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
						return err
					}
					var dirs []string
					for _, d := range c.StringSlice("log-dirs") {
						for _, s := range strings.Split(d, ",") {
							if s = strings.TrimSpace(s); s != "" {
								dirs = append(dirs, s)
							}
						}
					}
					if len(dirs) == 0 {
						return usageErrorf(c, "--log-dirs is required")
					}
					var p *migrate.Plan
					var err error
					if c.String("plan") != "" && c.String("zk") == "" {
						// Broker hosts may not reach ZooKeeper: the plan
						// file carries the assignment and topic ids.
						p, err = readPlanFile(c.String("plan"))
					} else {
						p, _, err = migratePlanFromFlags(c)
					}
					if err != nil {
						return err
					}
					// Broker dirs do not depend on the quorum: a plan made
					// with --zk alone is enough for them.
					var blockers int
					for _, f := range p.Blockers() {
						if f.Code != migrate.CodeNoControllers {
							blockers++
						}
					}
					if blockers > 0 {
						_ = writePlan(c, p)
						return findingsf("refusing to convert broker dirs: the plan has %d blockers", blockers)
					}
					installKillHook()
					r, err := migrate.ConvertBrokers(p, migrate.BrokerOptions{LogDirs: dirs, AllowStray: c.Bool("allow-stray"), DryRun: c.Bool("dry-run")})
					if r != nil {
						if outputFormat(c) == printer.JSON {
							if werr := writeJSON(c, r); werr != nil {
								return werr
							}
						} else if werr := writeFiles(c, r.Files, r.Findings); werr != nil {
							return werr
						}
					}
					if errors.Is(err, migrate.ErrBrokerDir) {
						return findings(err)
					}
					return err
				},
			},
			{
				Name:      "configs",
				Usage:     "write a node's KRaft server.properties from its ZooKeeper-mode one",
				ArgsUsage: " ",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "server-properties", Usage: "the ZooKeeper-mode broker's `FILE`"},
					&cli.StringFlag{Name: "role", Usage: "broker or controller", Value: "broker"},
					&cli.Int64Flag{Name: "node-id", Value: -1, Usage: "node.id (default: the file's broker.id)"},
					&cli.StringFlag{Name: "plan", Usage: "take the controllers and the quorum from the plan `FILE` written by 'migrate plan --write' (--controllers and --quorum, if given, must agree)"},
					&cli.StringFlag{Name: "controllers", Usage: "the KRaft quorum `ID@HOST:PORT[:DIRECTORY_ID],...` (required without --plan)"},
					quorumFlag(),
					&cli.StringFlag{Name: "metadata-dir", Usage: "controller: its metadata log `DIR` (from apply); broker: metadata.log.dir"},
					&cli.StringSliceFlag{Name: "set", Usage: "extra setting `KEY=VALUE`; repeatable"},
					&cli.StringFlag{Name: "out", Usage: "write to `FILE` (default: print it)"},
					&cli.BoolFlag{Name: "force", Usage: "replace an existing --out file"},
					&cli.BoolFlag{Name: "dry-run", Usage: "show what would be written"},
				},
				Action: migrateConfigs,
			},
		},
	}
}

// migratePlanFromFlags builds the plan apply or brokers executes: from
// --plan FILE (re-checked against its source) or from --zk and the plan
// flags.
func migratePlanFromFlags(c *cli.Context) (*migrate.Plan, *model.Image, error) {
	var old *migrate.Plan
	src := c.String("zk")
	if f := c.String("plan"); f != "" {
		var err error
		// Replan needs the header only: the topics come from the source.
		if old, err = readPlan(f, false); err != nil {
			return nil, nil, err
		}
		if src == "" {
			src = old.Source
		}
	}
	if src == "" {
		return nil, nil, usageErrorf(c, "--zk SOURCE is required")
	}
	spec, err := source.Parse(src)
	if err != nil {
		return nil, nil, usageErrorf(c, "--zk: %v", err)
	}
	if spec.World != model.WorldZooKeeper {
		return nil, nil, usageErrorf(c, "--zk %s is a KRaft source; migrate reads ZooKeeper", src)
	}
	res, err := loadSource(c, src)
	if err != nil && !(errors.Is(err, source.ErrDataDirsDiverge) && res != nil) {
		return nil, nil, fmt.Errorf("reading %s: %w", src, err)
	}
	// Several data dirs that are not one history still make a plan: a
	// blocked one, naming them (MIGRATE_ZK_DATA_DIRS_DIVERGE).
	var dirs []migrate.ZKDataDir
	for _, d := range res.DataDirs {
		dirs = append(dirs, migrate.ZKDataDir{Path: d.Path, MaxZxid: d.MaxZxid, Used: d.Used, Diverged: d.Diverged})
	}
	live := spec.ZK.Access == zkread.AccessLive
	if old != nil {
		prog := newProgress(c, "planning: partitions to records", progressCount)
		p, err := migrate.Replan(res.Image, old, migrate.ReplanOptions{Source: src, Live: live,
			PasswordEncoderSecret: c.String("password-encoder-secret"), ZKDataDirs: dirs, Progress: prog.Update})
		prog.Done()
		if err != nil {
			return nil, nil, findings(err)
		}
		return p, res.Image, nil
	}
	var cs []migrate.ControllerSpec
	if s := c.String("controllers"); s != "" {
		if cs, err = migrate.ParseControllers(s); err != nil {
			return nil, nil, usageErrorf(c, "--controllers: %v", err)
		}
	}
	quorum, err := migrate.ParseQuorum(c.String("quorum"))
	if err != nil {
		return nil, nil, usageErrorf(c, "--quorum: %v", err)
	}
	prog := newProgress(c, "planning: partitions to records", progressCount)
	defer prog.Done()
	p, err := migrate.NewPlan(res.Image, migrate.Options{Source: src, Live: live, MetadataVersion: c.String("metadata-version"), Progress: prog.Update,
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

func quorumSummary(p *migrate.Plan) string {
	if p.Quorum == migrate.QuorumDynamic {
		return "dynamic, kraft.version 1, initial voters " + migrate.InitialControllers(p.Controllers)
	}
	return migrate.QuorumVoters(p.Controllers) + " (static, kraft.version 0)"
}

func readPlanFile(path string) (*migrate.Plan, error) { return readPlan(path, true) }

// skipJSON decodes nothing: the decoder only finds where the value ends.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

// readPlan reads a plan file. Without topics the per-partition assignment
// (most of the file at scale) is skipped, not decoded: apply re-plans from
// the source and needs only the header to check against.
func readPlan(path string, topics bool) (*migrate.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p migrate.Plan
	if topics {
		err = json.Unmarshal(b, &p)
	} else {
		err = json.Unmarshal(b, &struct {
			*migrate.Plan
			Topics skipJSON `json:"topics"`
		}{Plan: &p})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, migrate.ErrBadInput, err)
	}
	if p.Format != migrate.PlanFormat {
		return nil, fmt.Errorf("%s: %w: format %q, want %q", path, migrate.ErrBadInput, p.Format, migrate.PlanFormat)
	}
	return &p, nil
}

// writePlan prints the plan: JSON as the plan file holds it; text and
// table as a summary, the findings, the record counts and the files.
func writePlan(c *cli.Context, p *migrate.Plan) error {
	if outputFormat(c) == printer.JSON {
		return writeJSON(c, p)
	}
	out := stdout(c)
	verdict := "ready"
	if p.Blocked {
		verdict = fmt.Sprintf("BLOCKED (%d blockers)", len(p.Blockers()))
	}
	var feats []string
	for _, f := range p.Features {
		feats = append(feats, fmt.Sprintf("%s=%d", f.Name, f.Level))
	}
	summary := printer.Rows{Columns: []printer.Column{{Header: "PLAN", Key: "key"}, {Header: "", Key: "value"}}, Rows: [][]string{
		{"verdict", verdict},
		{"source", fmt.Sprintf("%s (zxid %#x)", p.Source, p.SourceZxid)},
		{"cluster id", p.ClusterID},
		{"metadata.version", fmt.Sprintf("%s (%d)", p.MetadataVersion.Name, p.MetadataVersion.Level)},
		{"features", strings.Join(feats, " ")},
		{"quorum", quorumSummary(p)},
		{"brokers to convert", fmt.Sprint(p.Brokers)},
		{"records", fmt.Sprintf("%d (%d bytes, sha256 %s)", p.Records.Total, p.Records.Bytes, p.Records.SHA256)},
	}}
	if err := writeRows(c, summary); err != nil {
		return err
	}
	fmt.Fprintln(out)
	rc := printer.Rows{Columns: []printer.Column{{Header: "RECORD TYPE", Key: "type"}, {Header: "VERSION", Key: "version"}, {Header: "COUNT", Key: "count"}}}
	for _, t := range p.Records.ByType {
		rc.Rows = append(rc.Rows, []string{t.Name, strconv.Itoa(int(t.Version)), strconv.Itoa(t.Count)})
	}
	if err := writeRows(c, rc); err != nil {
		return err
	}
	fmt.Fprintln(out)
	st := printer.Rows{Columns: []printer.Column{{Header: "NODE", Key: "node"}, {Header: "FILE", Key: "file"}, {Header: "CONTENT", Key: "summary"}}}
	for _, s := range p.Steps {
		st.Rows = append(st.Rows, []string{strconv.Itoa(int(s.Node)), s.File, s.Summary})
	}
	if err := writeRows(c, st); err != nil {
		return err
	}
	if len(p.Findings) > 0 {
		fmt.Fprintln(out)
		return writeRows(c, printer.FindingsRows(p.Findings))
	}
	return nil
}

func writeFiles(c *cli.Context, files []migrate.FileResult, fs []model.Finding) error {
	if outputFormat(c) == printer.JSON {
		return writeJSON(c, struct {
			Files    []migrate.FileResult `json:"files"`
			Findings []model.Finding      `json:"findings"`
		}{append([]migrate.FileResult{}, files...), append([]model.Finding{}, fs...)})
	}
	r := printer.Rows{Columns: []printer.Column{{Header: "ACTION", Key: "action"}, {Header: "FILE", Key: "path"},
		{Header: "BYTES", Key: "bytes"}, {Header: "CONTENT", Key: "summary"}}}
	for _, f := range files {
		r.Rows = append(r.Rows, []string{f.Action, f.Path, strconv.Itoa(f.Bytes), f.Summary})
	}
	if err := writeRows(c, r); err != nil {
		return err
	}
	if len(fs) > 0 {
		fmt.Fprintln(stdout(c))
		return writeRows(c, printer.FindingsRows(fs))
	}
	return nil
}

func migrateConfigs(c *cli.Context) error {
	if _, err := checkArgs(c, 0, 0, "no arguments"); err != nil {
		return err
	}
	in := c.String("server-properties")
	if in == "" {
		return usageErrorf(c, "--server-properties FILE is required")
	}
	o := migrate.ConfigOptions{Role: c.String("role"), NodeID: int32(c.Int64("node-id")), MetadataDir: c.String("metadata-dir"), Set: map[string]string{}}
	if f := c.String("plan"); f != "" {
		p, err := readPlan(f, false)
		if err != nil {
			return err
		}
		o.Plan = p
	}
	if s := c.String("controllers"); s != "" || o.Plan == nil {
		cs, err := migrate.ParseControllers(s)
		if err != nil || len(cs) == 0 {
			return usageErrorf(c, "--controllers ID@HOST:PORT,... (or --plan FILE) is required (%v)", err)
		}
		o.Controllers = cs
	}
	// With a plan, only a --quorum the operator gave is checked against
	// it; the flag's default must not contradict a dynamic plan.
	if o.Plan == nil || c.IsSet("quorum") {
		o.Quorum = c.String("quorum")
	}
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	props, err := metalog.ParseJavaProperties(b)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	for _, kv := range c.StringSlice("set") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErrorf(c, "--set %q: want KEY=VALUE", kv)
		}
		o.Set[k] = v
	}
	abs, _ := filepath.Abs(in)
	out, fs, err := migrate.KRaftConfig(props, o)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	data := migrate.FormatConfig(out, abs)
	if path := c.String("out"); path != "" {
		fr, err := migrate.WriteConfig(path, data, c.Bool("force"), c.Bool("dry-run"))
		if err != nil {
			return err
		}
		fr.Summary = fmt.Sprintf("process.roles=%s node.id=%s, %d settings", out["process.roles"], out["node.id"], len(out))
		return writeFiles(c, []migrate.FileResult{fr}, fs)
	}
	if outputFormat(c) == printer.JSON {
		return writeJSON(c, struct {
			Properties map[string]string `json:"properties"`
			Findings   []model.Finding   `json:"findings"`
		}{out, append([]model.Finding{}, fs...)})
	}
	if _, err := stdout(c).Write(data); err != nil {
		return err
	}
	for _, f := range fs {
		fmt.Fprintf(stderr(c), "kmeta: %s %s: %s", f.Code, f.Entity, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(stderr(c), " (instead: %s)", f.Fix)
		}
		fmt.Fprintln(stderr(c))
	}
	return nil
}
