package main

import (
	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/registry"
	"github.com/kmeta/kmeta/internal/report"
)

func init() { register(codesCommand) }

func codesCommand() *cli.Command {
	return &cli.Command{
		Name:      "codes",
		Usage:     "list the finding codes every command can print, or explain one (its severity, meaning and fix)",
		ArgsUsage: "[CODE]",
		Description: "Every finding and warning kmeta prints carries a stable code. Without CODE, every code is listed\n" +
			"with its severity (and, in brackets, the other severities a documented condition gives some of its\n" +
			"findings), the room (package) that declares it and its title; -o table adds the class, what it\n" +
			"means and the fix, -o json every field, the commands that can print it included.\n" +
			"With CODE, that code in full: the conditions of its other severities, what it means and why it\n" +
			"matters, the fix (placeholders in capitals are filled in by the finding), and the commands.\n" +
			"Exit 0, or 2 for a code kmeta does not have.",
		Action: func(c *cli.Context) error {
			args, err := checkArgs(c, 0, 1, "[CODE]")
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return emit(c, report.Codes(registry.All()))
			}
			chk, ok := registry.Lookup(args[0])
			if !ok {
				var codes []string
				for _, k := range registry.All() {
					codes = append(codes, k.Code)
				}
				if s := closest(args[0], codes); s != "" {
					return usageErrorf(c, "no finding code %q (did you mean %s?)", args[0], s)
				}
				return usageErrorf(c, "no finding code %q (kmeta codes lists them)", args[0])
			}
			return emit(c, report.Code(chk))
		},
	}
}
