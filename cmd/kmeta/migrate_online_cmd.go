package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/migrate/online"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkdeps"
	"github.com/kmeta/kmeta/zkread"
)

const onlineHelp = "Phases (Strimzi's names): ZooKeeper → KRaftMigration → KRaftDualWriting → KRaftPostMigration →\n" +
	"PreKRaft → KRaft. --zk is the cluster's ZooKeeper; --kraft (a controller's metadata log dir, kraft:DIR)\n" +
	"or --bootstrap-controller HOST:PORT the KRaft side once controllers exist; --config ID=FILE each\n" +
	"node's server.properties (repeatable). kmeta never restarts a process and never writes to ZooKeeper."

// onlineFlags are the flags migrate stage, status and rollback share;
// --at-offset and --at-zxid only where a point in time is allowed
// (status: onlineNow).
func onlineFlags(points bool) []cli.Flag {
	src := sourceFlags()
	if !points {
		src = withoutPointFlags(src)
	}
	return append([]cli.Flag{
		&cli.StringFlag{Name: "zk", Usage: "the ZooKeeper `SOURCE` (zk://HOST:PORT/CHROOT, zkdata:DIR, zkdump:FILE)", Required: true},
		&cli.StringFlag{Name: "kraft", Usage: "the KRaft `SOURCE`: a controller's metadata log dir (kraft:DIR), or --bootstrap-controller HOST:PORT"},
		&cli.StringSliceFlag{Name: "config", Usage: "a node's server.properties, `ID=FILE` (repeatable)"},
	}, src...)
}

// onlineNow says why the command refuses a point in time ("" when it
// takes one). Stage and rollback act on the cluster as it is: their entry
// checks, files and gated restarts (roll check and wait, which refuse a
// point) are about now. Status of a past point is a read, and prints no
// gate; --watch follows the cluster now, and a past point never moves.
func onlineNow(c *cli.Context) string {
	switch {
	case c.Command.Name == "stage":
		return "a stage is about the cluster now (its entry checks, files and gated restarts would answer for what the cluster was then)"
	case c.Command.Name == "rollback":
		return "a rollback is about the cluster now (its steps and gated restarts would answer for what the cluster was then)"
	case c.Bool("watch"):
		return "--watch follows the cluster now (a past point never changes)"
	}
	return ""
}

func onlineCommands() []*cli.Command {
	var stageW, rollbackW writeOptions
	return []*cli.Command{
		{
			Name:      "stage",
			Usage:     "online migration: check a phase's entry conditions and write every node's file for it, with the steps in order",
			ArgsUsage: "PHASE",
			Description: "For PHASE, the exact config changes for each controller and broker from their current\n" +
				"server.properties (a diff and the full file, written to --out DIR as server-ID.properties, mode 0600),\n" +
				"and the steps in order (which node to start or restart on which file). KRaftMigration also writes\n" +
				"each new controller's formatted metadata dir (DIR/controller-ID: ZooKeeper's cluster id, the brokers'\n" +
				"IBP as metadata.version, a static quorum) and needs --controllers and --metadata-dir. A phase whose\n" +
				"entry conditions do not hold is refused (exit 1), each condition named with its fix; nothing is\n" +
				"written then. --out DIR also gets stage.json (the -o json document, secrets as their hash).\n\n" +
				"The controller listener is secured as the brokers' inter-broker listener is (its protocol, TLS\n" +
				"stores, SASL mechanism and JAAS; PLAIN for an inter-broker SCRAM user, since SCRAM cannot\n" +
				"authenticate controllers), in the controllers' and brokers' files alike; the principals the nodes\n" +
				"present on it are added to the controllers' super.users, and a combination that cannot elect a\n" +
				"leader or register a broker is refused. --controller-listener-protocol chooses another protocol.\n" +
				"A point in time (SOURCE@offset=N, @zxid=N) is refused: a stage is about the cluster now.\n\n" + onlineHelp,
			Flags: append(append(append(onlineFlags(false), zkDependentsFlags()...),
				&cli.StringFlag{Name: "controllers", Usage: "KRaftMigration: the new controllers `ID@HOST:PORT,...` (controller.quorum.voters)"},
				&cli.StringFlag{Name: "metadata-dir", Usage: "KRaftMigration: each controller's metadata log `DIR` on its host ({id} is replaced by its id)"},
				&cli.StringFlag{Name: "metadata-version", Usage: "the brokers' `RELEASE` (e.g. 3.9), when no broker file sets inter.broker.protocol.version"},
				&cli.StringFlag{Name: "controller-listener-protocol", Usage: "KRaftMigration: the controller listener's security `PROTOCOL` (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; default: the brokers' inter-broker listener's)"}),
				stageW.flags(writeUsage{Out: "output `DIR`", Force: "replace files holding other content", DryRun: "check and show, write nothing"})...),
			Action: func(c *cli.Context) error { return migrateStage(c, stageW) },
		},
		{
			Name:      "status",
			Usage:     "online migration: the phase, each side's migration state, what is waited for and why, and whether ZooKeeper and KRaft agree",
			ArgsUsage: " ",
			Description: "The phase the cluster is in, ZooKeeper's /controller and /migration, the controllers'\n" +
				"ZkMigrationState, registrations and migration flags, each broker on both sides (and, with its\n" +
				"--config, why it is not where the phase needs it), and, while dual-writing, verify's verdict of\n" +
				"ZooKeeper against KRaft: whether a rollback now loses nothing. Exit 0 when healthy in its phase,\n" +
				"1 when something is waited for or wrong.\n" +
				"--watch follows the migration: it reads both sides every --interval and prints one line per change\n" +
				"(the phase, the brokers up in ZooKeeper, registered with KRaft and migrating, the records the copy\n" +
				"wrote, whether ZooKeeper agrees with KRaft, /migration's offset against KRaft's, whether a rollback\n" +
				"is safe, unsafe or no longer possible, a broker that went out or came back; -o json: one JSON object\n" +
				"per line). It exits 0 once --until PHASE is reached, 1 when something goes wrong: a broker out for\n" +
				"longer than --grace (a restart takes less), ZooKeeper differing from KRaft for longer than\n" +
				"--max-behind, or --timeout. KRaft brokers are seen through a controller's log dir (--kraft kraft:DIR),\n" +
				"which also gives the copy's records and the comparison. A point in time (SOURCE@offset=N, @zxid=N)\n" +
				"reads the status then (it prints no gate); --watch refuses one.\n\n" + onlineHelp,
			Flags: append(append(onlineFlags(true), zkDependentsFlags()...),
				&cli.BoolFlag{Name: "watch", Usage: "follow the migration: one line per change, until --until or something goes wrong"},
				&cli.DurationFlag{Name: "interval", Value: 2 * time.Second, Usage: "--watch: read both sides every `DURATION`"},
				&cli.StringFlag{Name: "until", Usage: "--watch: exit 0 once the cluster is in `PHASE` (or past it)"},
				&cli.DurationFlag{Name: "grace", Value: 2 * time.Minute, Usage: "--watch: how long a broker may be out (a restart) before the watch fails, `DURATION`"},
				&cli.DurationFlag{Name: "max-behind", Value: time.Minute, Usage: "--watch: how long ZooKeeper may differ from KRaft in dual-write before the watch fails, `DURATION`"},
				&cli.DurationFlag{Name: "timeout", Usage: "--watch: give up (exit 1) after `DURATION` (0: never)"}),
			Action: migrateStatus,
		},
		{
			Name:      "rollback",
			Usage:     "online migration: the rollback valid in the current phase, in order (refused from PreKRaft on)",
			ArgsUsage: " ",
			Description: "The steps back to ZooKeeper from the current phase, in order: which node to stop or restart on\n" +
				"which file, and the ZooKeeper cleanup (/controller, /migration) as commands of ZooKeeper's own CLI.\n" +
				"--config are each broker's ZooKeeper-mode files (those stage KRaftMigration read), and the\n" +
				"controllers' current files (their metadata dirs are cleared). --out DIR gets the files to restore.\n" +
				"From PreKRaft and KRaft there is no way back: refused, exit 1. A point in time (SOURCE@offset=N,\n" +
				"@zxid=N) is refused: a rollback is about the cluster now.\n\n" + onlineHelp,
			Flags: append(onlineFlags(false), rollbackW.flags(writeUsage{Out: "output `DIR` for the files to restore",
				Force: "replace files holding other content", DryRun: "show, write nothing"})...),
			Action: func(c *cli.Context) error { return migrateRollback(c, rollbackW) },
		},
	}
}

// onlineInput reads both sides concurrently and the nodes' files.
func onlineInput(c *cli.Context) (online.Input, error) {
	return onlineInputWarn(c, func(ws []model.Finding) { printWarnings(c, ws) })
}

// onlineInputWarn is onlineInput with the sources' warnings handed to
// warn (status --watch says each once).
func onlineInputWarn(c *cli.Context, warn func([]model.Finding)) (online.Input, error) {
	var in online.Input
	kraft, err := liveFlag(c)
	switch {
	case err != nil:
		return in, err
	case kraft != "" && c.String("kraft") != "":
		return in, usageErrorf(c, "two KRaft sources: --kraft %s and %s", c.String("kraft"), kraft)
	case kraft == "":
		kraft = c.String("kraft")
	}
	zs, err := source.Parse(c.String("zk"))
	if err != nil {
		return in, usageErrorf(c, "%v", err)
	}
	zs = liveSpec(c, zs)
	if zs.World != model.WorldZooKeeper {
		return in, usageErrorf(c, "--zk %s is not a ZooKeeper source", zs.Raw)
	}
	specs := []source.Spec{zs}
	if kraft != "" {
		ks, err := source.Parse(kraft)
		if err != nil {
			return in, usageErrorf(c, "%v", err)
		}
		ks = liveSpec(c, ks)
		if ks.World != model.WorldKRaft && ks.World != model.WorldKafka {
			return in, usageErrorf(c, "--kraft %s is not a KRaft source", ks.Raw)
		}
		specs = append(specs, ks)
	}
	at, err := pointFlags(c)
	if err != nil {
		return in, err
	}
	ptrs := []*source.Spec{&specs[0]}
	if len(specs) > 1 {
		ptrs = append(ptrs, &specs[1])
	}
	if err := source.WithPoints(at, ptrs...); err != nil {
		return in, usageErrorf(c, "%v", err)
	}
	if now := onlineNow(c); now != "" {
		// Before any read: the same check as roll's gates.
		for _, sp := range ptrs {
			if err := refusePoint(c, sp.Raw, *sp, now); err != nil {
				return in, err
			}
		}
	}
	in.Nodes, err = readNodeConfigs(c)
	if err != nil {
		return in, err
	}
	watch := online.NewLogWatch()
	views, err := loadViewsWarn(c, specs, func(spec source.Spec) source.Options {
		if spec.World == model.WorldKRaft {
			// The controllers' log also says when each migration state
			// was written and what the copy wrote.
			return source.Options{Observe: watch.Observe}
		}
		return source.Options{}
	}, func(ws []model.Finding) {
		// Live controllers answer for the quorum and features only: the
		// status report says once what that source cannot show and how
		// to get it, rather than a warning on every call.
		if len(specs) > 1 && specs[1].World == model.WorldKafka && specs[1].Controllers {
			ws = slices.DeleteFunc(slices.Clone(ws), func(f model.Finding) bool {
				return f.Code == kafkaread.WarnNotAnswered && strings.Contains(f.Message, "--bootstrap-controller")
			})
		}
		warn(ws)
	})
	if err != nil && len(views) > 1 && views[0] != nil && views[1] == nil && errors.Is(err, kafkaread.ErrControllerNotLoaded) {
		// Live controllers that cannot answer yet (no leader): say so,
		// and go on with ZooKeeper's view.
		in.KRaftUnanswered, err = err.Error(), nil
		views = views[:1]
	}
	if err != nil {
		return in, err
	}
	in.ZK, in.ZKSource = views[0], specs[0].String()
	in.ZKTLS, in.ZKDigest = zkReachedWith(c) // for a live source (zk://) only
	in.ZKDeleteSchemes = zkDeleteSchemes(c, specs[0], in)
	if len(views) > 1 {
		in.KRaft, in.KRaftSource = views[1], specs[1].String()
		in.VerifySources = verifySources(c, specs[0], specs[1])
		in.Migrated = watch.Result()
		if s := specs[1]; s.World == model.WorldKRaft {
			in.Election = election(s)
		}
	}
	in.Stores = online.FileStores{}
	return in, nil
}

// verifySources name ZooKeeper and KRaft to kmeta verify as this command
// read them, for the verify line printed when the two differ: a live
// quorum as --bootstrap-controller (kafka:// would ask it as brokers),
// and the flags set that reach either side, so that the line runs where
// it is pasted (the digest login is online's to guard).
func verifySources(c *cli.Context, zk, kraft source.Spec) []string {
	w := []string{"--zk", zk.String()}
	if kraft.World == model.WorldKafka && kraft.Controllers {
		w = append(w, "--bootstrap-controller", strings.Join(kraft.Bootstrap, ","))
	} else {
		w = append(w, "--kraft", kraft.String())
	}
	return append(w, setFlagWords(c, append(zkReadFlags(), "command-config", "controller-command-config", "kafka-timeout")...)...)
}

// zkDeleteSchemes reads whose logins may delete the chroot's children
// (zkread.DeleteSchemes), for the ZooKeeper commands stage and rollback
// print where no node's file says how to reach the ensemble (stage KRaft;
// rollback from it): only for a live source, and nil when the ACL cannot
// be read (the commands then log in as kmeta read).
func zkDeleteSchemes(c *cli.Context, spec source.Spec, in online.Input) []string {
	if c.Command.Name == "status" || spec.World != model.WorldZooKeeper || spec.ZK.Access != zkread.AccessLive || in.ZK == nil || in.ZK.ZK == nil {
		return nil
	}
	for _, n := range in.Nodes {
		if n.Props["zookeeper.connect"] != "" {
			return nil
		}
	}
	opts, err := zkReadOptions(c)
	if err != nil {
		return nil
	}
	opts.Live.Servers = spec.ZK.Servers
	chroot := in.ZK.ZK.Chroot
	if chroot == "" {
		chroot = "/"
	}
	schemes, err := zkread.DeleteSchemes(c.Context, opts.Live, chroot)
	if err != nil {
		verbosef(c, "the ACL of %s: %v (the ZooKeeper commands log in as kmeta read)", chroot, err)
		return nil
	}
	return schemes
}

// election reads the quorum-state of a controller's metadata log dir
// (nil when it has none: a dir of a controller never started).
func election(s source.Spec) *online.Election {
	d := s.Dir
	if d == nil {
		var err error
		if d, err = metalog.OpenLogDir(s.Path); err != nil {
			return nil
		}
	}
	if q := d.QuorumState; q != nil {
		return &online.Election{LeaderID: q.LeaderID, LeaderEpoch: q.LeaderEpoch, VotedID: q.VotedID}
	}
	return nil
}

// readNodeConfigs reads --config ID=FILE.
func readNodeConfigs(c *cli.Context) (map[int32]*online.Node, error) {
	out := map[int32]*online.Node{}
	for _, kv := range c.StringSlice("config") {
		idS, path, ok := strings.Cut(kv, "=")
		id, err := strconv.ParseInt(strings.TrimSpace(idS), 10, 32)
		if !ok || err != nil || id < 0 || path == "" {
			return nil, usageErrorf(c, "--config %q: want ID=FILE (the node id, then its server.properties)", kv)
		}
		if out[int32(id)] != nil {
			return nil, usageErrorf(c, "--config: node %d given twice", id)
		}
		props, err := javaprops.Read(path)
		if err != nil {
			return nil, fmt.Errorf("--config %d: %w", id, err)
		}
		if len(props) == 0 {
			// Read as a node with every setting at Kafka's default, it
			// would pass for a ZooKeeper-mode broker's file.
			return nil, fmt.Errorf("--config %d: %s holds no settings: not a node's server.properties", id, path)
		}
		abs, _ := filepath.Abs(path)
		out[int32(id)] = &online.Node{ID: int32(id), Path: abs, Props: props}
	}
	return out, nil
}

func migrateStatus(c *cli.Context) error {
	if _, err := checkArgs(c, 0, 0, "no arguments (use --zk, --kraft and --config)"); err != nil {
		return err
	}
	if c.Bool("watch") {
		return migrateStatusWatch(c)
	}
	in, err := onlineInput(c)
	if err != nil {
		return err
	}
	if err := withZKDependents(c, &in); err != nil {
		return err
	}
	st, err := online.Observe(in)
	if err != nil {
		return err
	}
	return emit(c, report.OnlineStatus(st))
}

func migrateStage(c *cli.Context, w writeOptions) error {
	args, err := checkArgs(c, 1, 1, "PHASE (KRaftMigration, KRaftDualWriting, KRaftPostMigration, PreKRaft, KRaft)")
	if err != nil {
		return err
	}
	phase, err := online.ParsePhase(args[0])
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	o := online.StageOptions{Phase: phase, MetadataDir: c.String("metadata-dir"), Release: c.String("metadata-version")}
	if v := c.String("controller-listener-protocol"); v != "" {
		if o.ControllerProtocol, err = online.ParseProtocol(v); err != nil {
			return usageErrorf(c, "--controller-listener-protocol: %v", err)
		}
	}
	if s := c.String("controllers"); s != "" {
		if o.Controllers, err = controllers.Parse(s); err != nil {
			return usageErrorf(c, "--controllers: %v", err)
		}
	}
	in, err := onlineInput(c)
	if err != nil {
		return err
	}
	if in.Gates, err = onlineGates(c, in); err != nil {
		return err
	}
	if phase == online.KRaft {
		if err := withZKDependents(c, &in); err != nil {
			return err
		}
	}
	r, err := online.Stage(in, o)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	d := report.StageDoc{Command: "stage", Phase: r.Phase, Current: r.Current, Ready: r.Ready, Refused: !r.Ready, Checks: r.Checks,
		Nodes: r.Nodes, Steps: r.Steps, Format: r.Format, Status: r.Status, Out: w.Out, DryRun: w.DryRun}
	if r.Ready {
		if d.Out == "" && !d.DryRun {
			return missingFlag(c, "out")
		}
		if d.Out != "" {
			if d.Files, err = r.Write(online.WriteOptions{Out: d.Out, Force: w.Force, DryRun: d.DryRun, Source: in.ZKSource}); err != nil {
				return err
			}
			if err := writeStageDoc(c, d); err != nil {
				return err
			}
		}
	}
	return emit(c, report.Stage(d, showSecrets(c)))
}

// writeStageDoc writes the JSON document beside the files, as -o json
// prints it (secrets as their hash: it is a preview).
func writeStageDoc(c *cli.Context, d report.StageDoc) error {
	b, err := json.MarshalIndent(d.Redacted(), "", "  ")
	if err != nil {
		return err
	}
	_, err = migrate.WriteConfig(filepath.Join(d.Out, "stage.json"), append(b, '\n'), true, d.DryRun)
	return err
}

func migrateRollback(c *cli.Context, w writeOptions) error {
	if _, err := checkArgs(c, 0, 0, "no arguments (use --zk, --kraft and --config)"); err != nil {
		return err
	}
	in, err := onlineInput(c)
	if err != nil {
		return err
	}
	if in.Gates, err = onlineGates(c, in); err != nil {
		return err
	}
	r, err := online.Rollback(in)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	d := report.StageDoc{Command: "rollback", Phase: online.ZooKeeper, Current: r.Phase, Ready: !r.Refused, Refused: r.Refused, Checks: r.Checks,
		Nodes: r.Nodes, Steps: r.Steps, Status: r.Status, Out: w.Out, DryRun: w.DryRun}
	if !r.Refused && d.Out != "" && len(r.Nodes) > 0 {
		if d.Files, err = r.Write(online.WriteOptions{Out: d.Out, Force: w.Force, DryRun: d.DryRun, Source: in.ZKSource}); err != nil {
			return err
		}
		if err := writeStageDoc(c, d); err != nil {
			return err
		}
	}
	return emit(c, report.Stage(d, showSecrets(c)))
}

// migrateStatusWatch is migrate status --watch: Observe again every
// --interval, one line per change (online.Watch decides), until --until
// (exit 0) or something goes wrong (exit 1). A read that fails is said
// once and tried again.
func migrateStatusWatch(c *cli.Context) error {
	opts := online.WatchOptions{Grace: c.Duration("grace"), MaxBehind: c.Duration("max-behind")}
	if u := c.String("until"); u != "" {
		p, err := online.ParsePhase(u)
		if err != nil {
			return usageErrorf(c, "--until: %v", err)
		}
		opts.Until, opts.HasUntil = p, true
	}
	interval, timeout := c.Duration("interval"), c.Duration("timeout")
	if interval <= 0 || timeout < 0 {
		return usageErrorf(c, "--interval %s, --timeout %s: want a positive interval and a timeout of 0 or more", interval, timeout)
	}
	w := online.NewWatch(opts)
	said := map[string]bool{}
	warn := func(ws []model.Finding) {
		for _, f := range ws {
			if k := f.Code + "\x00" + f.Message; !said[k] {
				said[k] = true
				printWarnings(c, []model.Finding{f})
			}
		}
	}
	start := time.Now()
	asJSON := outputFormat(c) == printer.JSON
	for {
		in, err := onlineInputWarn(c, warn)
		var ue *exitError
		switch {
		case errors.As(err, &ue):
			return err
		case err != nil:
			if msg := err.Error(); !said[msg] {
				said[msg] = true
				warnf(c, "%v (trying again every %s)", err, interval)
			}
		default:
			st, err := online.Observe(in)
			if err != nil {
				return err
			}
			off := int64(-1)
			if in.KRaft != nil {
				off = in.KRaft.Provenance.Offset
			}
			if ev := w.Next(online.Point(st, off), time.Now()); ev != nil {
				if asJSON {
					err = printer.WriteJSONLine(stdout(c), ev)
				} else {
					_, err = io.WriteString(stdout(c), printer.Clean(ev.Line())+"\n")
				}
				if err != nil {
					return err
				}
				switch {
				case ev.Failed != "":
					return findings(errors.New(ev.Failed))
				case ev.Reached:
					return nil
				}
			}
		}
		if timeout > 0 && time.Since(start) > timeout {
			return findingsf("--timeout %s: %s not reached", timeout, c.String("until"))
		}
		select {
		case <-c.Context.Done():
			return c.Context.Err()
		case <-time.After(interval):
		}
	}
}

// withZKDependents runs zk dependents on --zk once the cluster is in
// PreKRaft or KRaft (ZooKeeper about to be, or just, let go), for status
// and stage KRaft: what else still uses the ensemble, and what could not
// be checked (a read that fails is said so, not taken for nothing).
func withZKDependents(c *cli.Context, in *online.Input) error {
	st, err := online.Observe(*in)
	if err != nil || st.Phase < online.PreKRaft {
		return err
	}
	spec, err := source.Parse(c.String("zk"))
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	if spec, err = withPointFlags(c, liveSpec(c, spec)); err != nil {
		return err
	}
	res, _, err := zkDependents(c, spec)
	if err != nil {
		in.ZKNotChecked = []model.Finding{zkdeps.Checks().Must(zkdeps.CodeNotChecked).Findingf(spec.String(), "zk dependents could not read the ensemble: %v", err)}
		return nil
	}
	in.ZKDependents = res.Findings
	if f, ok := res.NotCheckedFinding(); ok {
		in.ZKNotChecked = []model.Finding{f}
	}
	return nil
}
