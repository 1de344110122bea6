package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/quorum"
	"github.com/kmeta/kmeta/voters"
)

func init() { register(quorumCommand) }

func quorumCommand() *cli.Command {
	return &cli.Command{
		Name:        "quorum",
		Usage:       "the KRaft controller quorum: leader, voters, lag, and whether a controller can be restarted now",
		Subcommands: []*cli.Command{quorumDescribeCommand(), quorumSurveyCommand(), quorumRebuildCommand()},
	}
}

func quorumDescribeCommand() *cli.Command {
	return &cli.Command{
		Name:      "describe",
		Usage:     "describe the quorum as kafka-metadata-quorum describe --status and --replication do, with findings",
		ArgsUsage: "kafka://HOST:PORT[,HOST:PORT] | [--bootstrap-controller HOST:PORT,...] | DIR...",
		Description: "A live cluster (its leader's DescribeQuorum, and DescribeCluster for the id), through brokers\n" +
			"(kafka://HOST:PORT) or controllers (--bootstrap-controller HOST:PORT), or the metadata log dirs of\n" +
			"one or more controllers (kraft:DIR or DIR, one per controller), which hold the voters, the leader and\n" +
			"kraft.version but no fetch times, high watermark or observers (printed as not-reported).\n" +
			"Text prints the lines of kafka-metadata-quorum describe --status, then the --replication table with\n" +
			"a RestartSafe column, then the findings. A voter is caught up when the leader's last caught-up time\n" +
			"minus its own is under --controller-quorum-fetch-timeout-ms, and down when it has not fetched for\n" +
			"longer; restarting a controller is safe when the voters caught up without it are a majority.\n" +
			"Exit 0 when nothing is wrong, 1 on a finding at warning or above (a down or lagging voter, a\n" +
			"restart that would lose the majority, an even or single-voter quorum, a directory id mismatch),\n" +
			"2 when the quorum could not be read.\n" + htmlHelp,
		Flags: append(append(kafkaSourceFlags(),
			&cli.Int64Flag{Name: "controller-quorum-fetch-timeout-ms", Value: voters.DefaultFetchTimeoutMs,
				Usage: "the controllers' controller.quorum.fetch.timeout.ms, in `MS`: when a voter counts as down, and as caught up"},
		), reportFlags()...),
		Action: func(c *cli.Context) error {
			timeout := c.Int64("controller-quorum-fetch-timeout-ms")
			if timeout <= 0 {
				return usageErrorf(c, "--controller-quorum-fetch-timeout-ms %d: want a positive number of milliseconds", timeout)
			}
			st, warnings, err := quorumStatus(c)
			if err != nil {
				return err
			}
			printWarnings(c, warnings)
			o := voters.Options{FetchTimeoutMs: timeout}
			if strings.HasPrefix(st.Source, "kafka://") { // read live: liveArg named it
				// kmeta features reaches the cluster as this read did.
				o.Cluster = append(sourceWords(c), setFlagWords(c, "command-config", "controller-command-config", "kafka-timeout")...)
			}
			a := voters.Judge(st, o)
			if err := emit(c, report.Quorum(st, a)); err != nil {
				return err
			}
			if slices.ContainsFunc(warnings, model.Partial) {
				return findingsf("%s: the result rests on damaged or partial input (see the warnings above)", printer.Clean(st.Source))
			}
			return nil
		},
	}
}

// quorumStatus reads the status the arguments name: a live cluster, or
// controllers' metadata log dirs.
func quorumStatus(c *cli.Context) (*model.QuorumStatus, []model.Finding, error) {
	cfg, name, live, err := liveArg(c)
	if err != nil {
		return nil, nil, err
	}
	if live {
		cl, err := kafkaread.Dial(c.Context, cfg)
		if err != nil {
			return nil, nil, err
		}
		defer cl.Close()
		st, err := cl.QuorumStatus(c.Context)
		if err != nil {
			return nil, nil, err
		}
		st.Source = name
		return st, nil, nil
	}
	args := c.Args().Slice()
	if len(args) == 0 {
		return nil, nil, usageErrorf(c, "missing SOURCE: kafka://HOST:PORT, --bootstrap-controller HOST:PORT, or controllers' metadata log dirs")
	}
	var dirs []*metalog.LogDir
	var names []string
	for _, a := range args {
		spec, err := kraftSpec(c, a)
		if err != nil {
			return nil, nil, err
		}
		dirs = append(dirs, spec.Dir)
		names = append(names, spec.String())
	}
	st, warnings, err := quorum.FromLogDirs(dirs)
	if err != nil {
		return nil, nil, err
	}
	st.Source = strings.Join(names, ",")
	return st, warnings, nil
}
