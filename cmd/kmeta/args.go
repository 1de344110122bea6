package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// urfave/cli v2 stops parsing flags at a command's first positional
// argument, so "kmeta image DIR -o json" would take "-o" and "json" as
// arguments. reorderArgs rewrites the command line before urfave sees it:
// each flag moves to the command that defines it (the deepest one on the
// path), in front of that command's subcommand or arguments, and the
// positional arguments go last.
//
// What takes a value is read from the flag definitions themselves
// (TakesValue), never from a list here: "--type TOPIC_RECORD" keeps its
// value, "--records-only DIR" does not swallow DIR. "--" ends the flags;
// what follows stays positional. A token that looks like a flag but is
// defined on no command of the path is refused here, echoed as typed
// ("--bogus"), since urfave's own message would print it with one dash.
// Negative numbers that are no flag ("-1") stay positional.

// argLevel is one command on the path: its name as typed, its flags and
// the flag tokens collected for it.
type argLevel struct {
	name  string
	cmd   *cli.Command // nil for the app
	flags []cli.Flag
	subs  []*cli.Command
	out   []string
}

// unknownFlagError is a flag no command on the path defines.
type unknownFlagError struct {
	flag     string
	helpName string
}

func (e *unknownFlagError) Error() string {
	return fmt.Sprintf("unknown flag %s for %s", e.flag, e.helpName)
}

func reorderArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	root := &argLevel{name: args[0], flags: append(slices.Clone(app.Flags), cli.HelpFlag, cli.VersionFlag), subs: app.Commands}
	levels := []*argLevel{root}
	var pos []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		cur := levels[len(levels)-1]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			at, f := findFlag(levels, name)
			if f == nil {
				if isNumber(a) {
					pos = append(pos, a)
					continue
				}
				return nil, &unknownFlagError{flag: flagAsTyped(a), helpName: levelsHelpName(levels)}
			}
			levels[at].out = append(levels[at].out, a)
			if takesValue(f) && !hasValue && i+1 < len(rest) {
				i++
				levels[at].out = append(levels[at].out, rest[i])
			}
			continue
		}
		if len(pos) == 0 {
			if sub := findCommand(cur.subs, a); sub != nil {
				levels = append(levels, &argLevel{name: a, cmd: sub, flags: append(slices.Clone(sub.Flags), cli.HelpFlag), subs: sub.Subcommands})
				continue
			}
			if len(cur.subs) > 0 && (a == "help" || a == "h") {
				// urfave's help command: what follows names a command.
				levels = append(levels, &argLevel{name: a})
				pos = append(pos, rest[i+1:]...)
				break
			}
		}
		pos = append(pos, a)
	}
	out := []string{}
	for _, l := range levels {
		out = append(out, l.name)
		out = append(out, l.out...)
	}
	if slices.ContainsFunc(pos, func(p string) bool { return strings.HasPrefix(p, "-") }) {
		out = append(out, "--")
	}
	return append(out, pos...), nil
}

// findFlag finds the deepest command on the path defining name.
func findFlag(levels []*argLevel, name string) (int, cli.Flag) {
	for i := len(levels) - 1; i >= 0; i-- {
		for _, f := range levels[i].flags {
			if slices.Contains(f.Names(), name) {
				return i, f
			}
		}
	}
	return -1, nil
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	tv, ok := f.(interface{ TakesValue() bool })
	return ok && tv.TakesValue()
}

// flagAsTyped is the flag token without a value: "--bogus=1" → "--bogus".
func flagAsTyped(a string) string {
	name, _, _ := strings.Cut(a, "=")
	return name
}

func levelsHelpName(levels []*argLevel) string {
	names := []string{"kmeta"}
	for _, l := range levels[1:] {
		names = append(names, l.name)
	}
	return strings.Join(names, " ")
}
