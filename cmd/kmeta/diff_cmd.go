package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/verify"
)

func init() { register(diffCommand) }

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "what changed between two views, entity by entity (exit 0 same, 1 changed, 2 could not run)",
		ArgsUsage: "BEFORE AFTER",
		Description: "Any two views: two points of one KRaft log (kraft:DIR@offset=N), two zxids of one ZooKeeper\n" +
			"data dir (zkdata:DIR@zxid=N), or two different sources. Between two views of one kind findings\n" +
			"are added/removed/changed; between a ZooKeeper and a KRaft view the rules of verify apply\n" +
			"(without its readiness findings only when both sides are one kind).\n\nClasses: " +
			strings.Join(verify.Classes, ", ") + "\n\n" + sourceHelp,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "ignore", Usage: "leave `CLASS` out (repeatable)"},
			&cli.BoolFlag{Name: "allow-partial", Usage: "compare even when a view rests on partial input"},
		}, sourceFlags()...),
		Action: func(c *cli.Context) error {
			args, err := sourceArgs(c, 2, "BEFORE AFTER")
			if err != nil {
				return err
			}
			return compareSources(c, "diff", args[0], args[1], func(source.Spec, source.Spec) error { return nil }, verify.Options{})
		},
	}
}
