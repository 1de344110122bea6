package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/quorum"
)

func quorumRebuildCommand() *cli.Command {
	var w writeOptions
	return &cli.Command{
		Name:      "rebuild",
		Usage:     "write a new controller quorum's metadata log dirs from a surviving copy of the metadata log",
		ArgsUsage: "[OTHER_COPY...]",
		Description: "Disaster recovery when a majority of KRaft controllers is lost. --from is the copy to rebuild\n" +
			"from (a surviving controller's or a broker's metadata log dir); it is only read. For each controller of\n" +
			"--controllers, a dir --out/controller-ID gets meta.properties (the copy's cluster id, the node id, a\n" +
			"fresh directory.id unless given) and __cluster_metadata-0/N-E.checkpoint: a snapshot of the image at\n" +
			"the copy's end (N its next offset, E its last epoch) holding every record the image holds, at the\n" +
			"record versions of its metadata.version, with KRaftVersion and Voters records for a dynamic quorum\n" +
			"(kraft.version 1) and none for a static one. Put each dir in place as the controller's\n" +
			"metadata.log.dir, start the controllers, then the brokers (not reformatted).\n" +
			"The other copies still at hand are given as arguments: the rebuild is refused when one is further\n" +
			"than --from by Raft's vote rule (the highest last epoch, then the highest end offset) or disagrees\n" +
			"with it on an offset both hold, unless --accept-loss names the offsets given up (the refusal prints\n" +
			"them); a damaged --from is refused, naming the file and offset.\n" +
			"It prints what the brokers need: nothing when the voters keep their ids and endpoints, otherwise\n" +
			"the controller.quorum.voters (static) or controller.quorum.bootstrap.servers (dynamic) value, and\n" +
			"the gated restarts: kmeta roll wait per new controller, and the brokers' roll, each on the listener\n" +
			"of --command-config's security.protocol (PLAINTEXT without it), the commands naming the file; the\n" +
			"controllers' waits name --controller-command-config where their listener takes other settings.\n" +
			"Files are written atomically; a dir holding files is refused unless --force. Exit 0 when written\n" +
			"(or planned with --dry-run), 1 when refused, 2 on bad input.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the copy to rebuild from: a metadata log `DIR`"},
			&cli.StringFlag{Name: "controllers", Usage: "the new voters, `ID@HOST:PORT[:DIRECTORY_ID],...`"},
			&cli.StringFlag{Name: "accept-loss", Usage: "give up the `OFFSETS` (FIRST-LAST) other copies hold beyond --from"},
			&cli.StringFlag{Name: "release-version", Usage: "the Kafka `RELEASE` the new controllers run (default: the copy's software)"},
			&cli.StringFlag{Name: "command-config", Usage: "Kafka client settings `FILE` the printed roll check and roll wait commands connect with (its security.protocol picks each broker's listener)"},
			&cli.StringFlag{Name: "controller-command-config", Usage: "client settings `FILE` for the new controllers' listener, where it differs from the brokers': each controller's printed roll wait connects with it (without it, --command-config)"},
		}, w.flags(writeUsage{Out: "`DIR` receiving controller-ID/ for each controller",
			Force: "write into output dirs that hold files", DryRun: "print the plan, write nothing"})...),
		Action: func(c *cli.Context) error {
			for _, f := range []string{"from", "controllers", "out"} {
				if c.String(f) == "" {
					return missingFlag(c, f)
				}
			}
			// Read now: a file the printed commands cannot use is
			// refused before anything is written.
			var props map[string]string
			for _, flag := range []string{"command-config", "controller-command-config"} {
				p, f, err := clientSettings(c, flag)
				if err != nil {
					return err
				}
				if f == "" {
					continue
				}
				if err := (kafkaread.Config{Properties: p, PropertiesFile: f}).Check(); err != nil {
					return fmt.Errorf("--%s: %w", flag, err)
				}
				if flag == "command-config" {
					props = p
				}
			}
			cs, err := controllers.Parse(c.String("controllers"))
			if err != nil {
				return usageErrorf(c, "--controllers: %v", err)
			}
			p, err := quorum.PlanRebuild(quorum.RebuildOptions{From: c.String("from"), Others: c.Args().Slice(), Controllers: cs,
				AcceptLoss: c.String("accept-loss"), Release: c.String("release-version"), Out: w.Out})
			if err != nil {
				return rebuildError(c, err)
			}
			if err := p.Write(quorum.WriteOptions{Force: w.Force, DryRun: w.DryRun}); err != nil {
				return rebuildError(c, err)
			}
			waits, roll, needs := rebuildGates(p, cs, c.String("command-config"), c.String("controller-command-config"), props)
			return emit(c, report.Rebuild(p, !w.DryRun, waits, roll, needs))
		},
	}
}

func rebuildError(c *cli.Context, err error) error {
	switch {
	case errors.Is(err, quorum.ErrBadInput):
		return usageErrorf(c, "%v", err)
	case errors.Is(err, quorum.ErrRefused), errors.Is(err, quorum.ErrTargetNotEmpty):
		return findings(err)
	}
	return err
}
