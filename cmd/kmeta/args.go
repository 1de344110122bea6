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
//
// Kafka's ZooKeeper-mode tools name the ensemble --zookeeper
// HOST:PORT[,HOST:PORT][/CHROOT] (kafka-configs, kafka-topics,
// kafka-acls): a command that reads a ZooKeeper source takes it too, as
// --zk zk://... where it has --zk, else as the SOURCE argument zk://...
// (last, as --bootstrap-server stands for the last SOURCE left out).

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
	suggest  string // the closest defined flag, "" when none is close
}

func (e *unknownFlagError) Error() string {
	msg := fmt.Sprintf("unknown flag %s for %s", e.flag, e.helpName)
	if e.suggest != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", e.suggest)
	}
	return msg
}

// suggestFlag is the flag on the path whose name is closest to name, as
// "--name", or "".
func suggestFlag(levels []*argLevel, name string) string {
	var names []string
	for _, l := range levels {
		for _, f := range l.flags {
			for _, n := range flagNames(f) {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
	}
	if s := closest(name, names); s != "" {
		return "--" + s
	}
	return ""
}

// closest is the candidate nearest to s by edit distance, when it is near
// enough to be a typo (at most a third of its length, and 2, away), else "".
func closest(s string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := editDistance(s, c)
		if d <= 2 && d*3 <= len(c) && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, counting an
// adjacent transposition ("outptu") as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func reorderArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	root := &argLevel{name: args[0], flags: append(slices.Clone(app.Flags), cli.HelpFlag, cli.VersionFlag), subs: app.Commands}
	levels := []*argLevel{root}
	var pos, zookeeper []string
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
			if f == nil && !strings.HasPrefix(a, "--") && !hasValue && len(name) > 1 {
				// A short flag with its value glued on, as Kafka's
				// tools and getopt take it: "-ojson" is "-o json".
				if at2, f2 := findFlag(levels, name[:1]); f2 != nil && takesValue(f2) {
					levels[at2].out = append(levels[at2].out, "-"+name[:1], name[1:])
					continue
				}
			}
			if f == nil && name == kafkaZKFlag && strings.HasPrefix(a, "--") {
				v, _ := strings.CutPrefix(a, "--"+kafkaZKFlag+"=")
				if !hasValue {
					if i+1 == len(rest) {
						return nil, &exitError{code: exitFailure, err: fmt.Errorf("flag needs an argument: --%s", kafkaZKFlag),
							hint: fmt.Sprintf("Run '%s --help' for usage.", levelsHelpName(levels))}
					}
					i++
					v = rest[i]
				}
				zookeeper = append(zookeeper, v)
				continue
			}
			if f == nil {
				if isNumber(a) {
					pos = append(pos, a)
					continue
				}
				return nil, &unknownFlagError{flag: flagAsTyped(a), helpName: levelsHelpName(levels), suggest: suggestFlag(levels, name)}
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
				// urfave would show only the first level's help
				// ("kmeta help migrate plan" showed migrate's), so a
				// path of known commands becomes "PATH --help".
				if path, ok := commandPath(cur.subs, rest[i+1:]); ok {
					for _, sub := range path {
						levels = append(levels, &argLevel{name: sub.Name})
					}
					levels[len(levels)-1].out = []string{"--help"}
					break
				}
				levels = append(levels, &argLevel{name: a})
				pos = append(pos, rest[i+1:]...)
				break
			}
		}
		pos = append(pos, a)
	}
	if len(zookeeper) > 0 {
		var err error
		if pos, err = placeZooKeeper(levels, pos, zookeeper); err != nil {
			return nil, err
		}
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

// kafkaZKFlag is Kafka's ZooKeeper-mode tools' name for the ensemble.
const kafkaZKFlag = "zookeeper"

// placeZooKeeper puts each --zookeeper value where the command takes a
// ZooKeeper source (see reorderArgs): --zk zk://VALUE, or the SOURCE
// argument zk://VALUE. A command that reads no ZooKeeper refuses it as
// any unknown flag.
func placeZooKeeper(levels []*argLevel, pos, values []string) ([]string, error) {
	cmd := levels[len(levels)-1]
	at, zk := findFlag(levels, "zk")
	_, reads := findFlag(levels, "zk-session-timeout")
	if zk == nil && (reads == nil || len(cmd.subs) > 0) {
		return nil, &unknownFlagError{flag: "--" + kafkaZKFlag, helpName: levelsHelpName(levels)}
	}
	for _, v := range values {
		if !strings.HasPrefix(v, "zk://") {
			v = "zk://" + v
		}
		if zk != nil {
			levels[at].out = append(levels[at].out, "--zk", v)
		} else {
			pos = append(pos, v)
		}
	}
	return pos, nil
}

// findFlag finds the deepest command on the path defining name.
func findFlag(levels []*argLevel, name string) (int, cli.Flag) {
	for i := len(levels) - 1; i >= 0; i-- {
		for _, f := range levels[i].flags {
			if slices.Contains(flagNames(f), name) {
				return i, f
			}
		}
	}
	return -1, nil
}

// commandPath resolves names to a path of nested commands starting among
// cmds; ok only when there is at least one name and all resolve.
func commandPath(cmds []*cli.Command, names []string) ([]*cli.Command, bool) {
	var path []*cli.Command
	for _, n := range names {
		c := findCommand(cmds, n)
		if c == nil {
			return nil, false
		}
		path = append(path, c)
		cmds = c.Subcommands
	}
	return path, len(path) > 0
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
