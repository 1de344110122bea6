package main

// Conventions every kmeta command file follows. Read this before adding a
// command.
//
// # Registering a command
//
// Each area has its own file (features_cmd.go, zk_cmd.go, log_cmd.go, ...)
// holding a constructor and an init that registers it:
//
//	func init() { register(zkCommand) }
//
//	func zkCommand() *cli.Command {
//		return &cli.Command{
//			Name:  "zk",
//			Usage: "read Kafka's ZooKeeper data",
//			Subcommands: []*cli.Command{{
//				Name:      "dump",
//				ArgsUsage: "SOURCE",
//				Flags:     []cli.Flag{&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second}},
//				Action: func(c *cli.Context) error {
//					src, err := oneArg(c, "SOURCE")
//					if err != nil {
//						return err
//					}
//					...
//					return printer.WriteJSON(stdout(c), result)
//				},
//			}},
//		}
//	}
//
// register takes a constructor, not a *cli.Command, because urfave/cli
// mutates commands while running; every run (and every in-process test)
// builds a fresh tree. Keep per-command options in local variables or a
// struct inside the constructor, never in package-level variables.
// Top-level commands are listed sorted by name whatever the init order.
//
// # Common flags
//
// --output/-o text|table|json, --show-secrets, --verbose/-v and --no-progress
// are defined on the app and on every command, so both
// "kmeta -o json zk dump X" and "kmeta zk dump -o json X" work. Read them
// only through outputFormat(c), showSecrets(c), isVerbose(c) and
// newProgress(c, ...); those look at the closest command that set the flag.
// Do not define flags with these names yourself (they would be skipped).
// urfave/cli v2 stops parsing flags at the first argument; run reorders
// the command line first (args.go), so flags work before and after the
// positional arguments, and "--" ends them.
//
// # Output
//
// Results go to stdout(c), diagnostics to stderr(c) (verbosef writes there
// when -v is set). Never use os.Stdout/os.Stderr directly: tests run the app
// in-process with buffers. Printing goes through output.go and package
// internal/printer: writeImage(c, img) for a *model.Image (honours
// --output and --show-secrets), emit(c, r) for a report.Report, the
// document package internal/report builds from a library's result (its
// JSON struct, rows and lines, and its exit class, which emit maps to
// the command's error), and printer.WriteJSONLine(stdout(c), v) for
// JSON-lines streams. Long work
// reports through newProgress(c, label, progressBytes|progressCount),
// whose Update method is the func(done, total int64) libraries take.
//
// # Errors and exit codes
//
// Actions return errors; only main calls os.Exit.
//
//	0 (exitOK)        the command ran and found nothing to report
//	1 (exitFindings)  the command ran and found something: return findings(err)
//	                  or findingsf(...); errFindingsReported when the output
//	                  already said everything and no stderr message is wanted
//	2 (exitFailure)   could not run: any other error, usage errors
//	                  (usageErrorf, bad flags, unknown commands) included
//
// Errors are printed once, by run, to stderr as "kmeta: <message>".
// An error names each path once: internal/source's refusals and metalog's
// errors already start with the path, so do not wrap them with it again
// (pathErr adds it only when missing).
//
// # Sources and warnings
//
// A SOURCE argument goes through internal/source, the one place that
// parses source strings and infers kinds: loadSource/loadSpec for a view
// (image, features, zk image), source.ParseKRaft (kraftSpec) for the log
// commands, source.ReadZKTree for zk dump. What a result rests on comes
// back as typed warnings (model.Finding); printWarnings is the one place
// they are printed ("kmeta: warning: CODE: message"). A command whose
// result rests on damaged or partial input prints it and then returns
// partialResult(src, img) (exit 1); a torn tail of the active segment is
// not partial (exit 0 with the warning).
//
// # Finding codes
//
// Every code a command prints (a finding, a warning, a check) is declared
// once, as data, in a table of model.Check in the checks.go of the room
// that reports it (model's for what several rooms report), and read
// through internal/registry: `kmeta codes` lists them, and
// TestEveryPrintedCodeRegistered runs every command over the fixtures and
// fails on a code the registry does not hold, at a severity its check
// does not allow, or from a command its check does not name. A command
// adds no code of its own here: it prints what the rooms decided.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
)

// version and commit are set at link time with -ldflags
// "-X main.version=... -X main.commit=..."; without them the commit comes
// from the build's VCS stamp when Go recorded one.
var (
	version = "dev"
	commit  = ""
)

// versionString is what --version prints: the release, the commit and the
// Go toolchain that built the binary.
func versionString() string {
	c, dirty := commit, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.modified" && s.Value == "true" && commit == "":
				dirty = "-dirty"
			}
		}
	}
	if c == "" {
		c = "unknown"
	} else if len(c) > 12 {
		c = c[:12]
	}
	return fmt.Sprintf("kmeta %s (commit %s%s, %s %s/%s)", version, c, dirty, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Exit codes. See the package comment above.
const (
	exitOK       = 0
	exitFindings = 1
	exitFailure  = 2
)

// Names of the common flags, for commands that need to mention them.
const (
	flagOutput      = "output"
	flagReportTime  = "report-time"
	flagShowSecrets = "show-secrets"
	flagVerbose     = "verbose"
	flagNoProgress  = "no-progress"
)

func init() {
	// urfave's default version flag takes -v, which kmeta uses for
	// --verbose as Kafka's tools do.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the release, the commit and the Go version"}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, versionString()) }
}

// constructors holds the registered command constructors. Only init
// functions append to it; newApp reads it.
var constructors []func() *cli.Command

// register adds a top-level command. Call it from an init function in the
// command's own file.
func register(newCommand func() *cli.Command) {
	constructors = append(constructors, newCommand)
}

// exitError carries the exit code a command's error maps to.
type exitError struct {
	code int
	err  error // nil for errFindingsReported: nothing to print
	// hint is an extra line printed after the message ("Run 'kmeta x --help'").
	hint string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// errFindingsReported makes the process exit 1 without printing anything
// more; use it when stdout already shows the differences.
var errFindingsReported error = &exitError{code: exitFindings}

// findings marks err as "the command ran and found something" (exit 1).
// findings(nil) is nil.
func findings(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitFindings, err: err}
}

// findingsf is findings(fmt.Errorf(format, a...)).
func findingsf(format string, a ...any) error {
	return findings(fmt.Errorf(format, a...))
}

// usageErrorf reports a misuse of command c (exit 2) with a hint pointing to
// its help.
func usageErrorf(c *cli.Context, format string, a ...any) error {
	return &exitError{code: exitFailure, err: fmt.Errorf(format, a...), hint: helpHint(c)}
}

// missingFlag reports a required flag left out, in one line
// ("migrate plan: --zk is required") and a pointer to the command's help,
// rather than the whole help.
func missingFlag(c *cli.Context, flag string) error {
	name := "kmeta"
	if c != nil && c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	return usageErrorf(c, "%s: --%s is required", strings.TrimPrefix(name, "kmeta "), flag)
}

func helpHint(c *cli.Context) string {
	name := "kmeta"
	if c != nil && c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	return fmt.Sprintf("Run '%s --help' for usage.", name)
}

// exitCode maps an error returned by the app to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Somebody returned cli.Exit: honour 0 and 1, everything else is a
	// failure to run (urfave uses 3 for "No help topic").
	var ec cli.ExitCoder
	if errors.As(err, &ec) && (ec.ExitCode() == exitOK || ec.ExitCode() == exitFindings) {
		return ec.ExitCode()
	}
	return exitFailure
}

// run builds the app, runs it with args (args[0] is the program name) and
// returns the exit code, having printed any error to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, constructors, args, stdout, stderr)
}

// runWith is run with an explicit command list, for tests.
func runWith(ctx context.Context, cmds []func() *cli.Command, args []string, stdout, stderr io.Writer) int {
	app := newApp(cmds, stdout, stderr)
	args, err := reorderArgs(app, args)
	if err == nil {
		err = app.RunContext(ctx, args)
	} else {
		var uf *unknownFlagError
		if errors.As(err, &uf) {
			err = &exitError{code: exitFailure, err: err, hint: fmt.Sprintf("Run '%s --help' for usage.", uf.helpName)}
		}
	}
	code := exitCode(err)
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "kmeta: %s\n", msg)
		}
		var ee *exitError
		if errors.As(err, &ee) && ee.hint != "" {
			fmt.Fprintln(stderr, ee.hint)
		}
	}
	return code
}

// newApp returns a fresh command tree of the given commands writing to
// stdout and stderr.
func newApp(constructors []func() *cli.Command, stdout, stderr io.Writer) *cli.App {
	cmds := make([]*cli.Command, 0, len(constructors))
	for _, newCommand := range constructors {
		cmds = append(cmds, newCommand())
	}
	slices.SortFunc(cmds, func(a, b *cli.Command) int { return strings.Compare(a.Name, b.Name) })
	for _, cmd := range cmds {
		prepareCommand(cmd)
	}

	app := &cli.App{
		Name:    "kmeta",
		Usage:   "read and check Kafka cluster metadata (ZooKeeper and KRaft) without a JVM",
		Version: version,
		Description: "Reads KRaft metadata logs, snapshots and bootstrap files, Kafka's ZooKeeper data (live, data dir\n" +
			"or dump) and running clusters (kafka://, through the admin API) into one cluster image; checks\n" +
			"metadata logs; verifies and diffs views; migrates ZooKeeper-mode clusters to KRaft, offline or phase\n" +
			"by phase; lints; gates rolling restarts; describes, surveys and rebuilds the controller quorum;\n" +
			"reads the metadata log as history; names what still uses ZooKeeper; gates and makes\n" +
			"metadata.version changes.\n" +
			"Only features upgrade, downgrade and disable, and restore, write to a cluster (each checks first,\n" +
			"takes --dry-run and asks unless --yes). Files are written only where a flag names them (--out,\n" +
			"--write), and never over other content unless --force. kmeta never writes to ZooKeeper.\n" +
			"Results go to stdout, diagnostics to stderr.\n" +
			"Exit status: 0 ok, 1 findings (or a result resting on damaged input), 2 could not run.",
		Commands:  cmds,
		Flags:     commonFlags(),
		Writer:    stdout,
		ErrWriter: stderr,
		// run maps errors to exit codes; stop urfave from calling os.Exit.
		ExitErrHandler:        func(*cli.Context, error) {},
		OnUsageError:          onUsageError,
		Before:                checkCommonFlags,
		Action:                groupAction,
		HideHelpCommand:       false,
		CustomAppHelpTemplate: "",
	}
	return app
}

// prepareCommand gives every command the common flags, usage-error
// handling that prints nothing (run prints), early validation of the common
// flags, and for groups an action that rejects unknown subcommands.
func prepareCommand(cmd *cli.Command) {
	for _, f := range commonFlags() {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == flagOutput && isReportCommand(cmd) {
			sf.Usage = "output `FORMAT`: " + printer.FormatList(printer.ReportFormats, "or")
		}
		if !hasFlagName(cmd.Flags, flagNames(f)) {
			cmd.Flags = append(cmd.Flags, f)
		}
	}
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = onUsageError
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		if err := checkCommonFlags(c); err != nil {
			return err
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
	if cmd.Action == nil && len(cmd.Subcommands) > 0 {
		cmd.Action = groupAction
	}
	for _, sub := range cmd.Subcommands {
		prepareCommand(sub)
	}
}

func hasFlagName(flags []cli.Flag, names []string) bool {
	for _, f := range flags {
		for _, n := range flagNames(f) {
			if slices.Contains(names, n) {
				return true
			}
		}
	}
	return false
}

// flagNames is f.Names(): the flag's name, then its aliases. urfave's
// Names runs a regular expression over each name (stripping what a v1
// "name, alias" string would leave), and every command's flags are asked
// for their names each time kmeta starts: over the whole command tree that
// was an eighth of a short command's run (about 1.2 ms of 9.6 ms for
// `kmeta log check` of a small log, by perf). kmeta's names hold nothing
// for it to strip (TestFlagNamesAreUrfaves).
func flagNames(f cli.Flag) []string {
	var name string
	var aliases []string
	switch f := f.(type) {
	case *cli.StringFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.BoolFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.StringSliceFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.IntFlag:
		name, aliases = f.Name, f.Aliases
	case *cli.Int64Flag:
		name, aliases = f.Name, f.Aliases
	case *cli.DurationFlag:
		name, aliases = f.Name, f.Aliases
	default:
		return f.Names()
	}
	return append([]string{name}, aliases...)
}

// commonFlags returns fresh flag values: urfave records state in them, so
// they are never shared between commands or runs.
func commonFlags() []cli.Flag {
	const cat = "Common"
	return []cli.Flag{
		&cli.StringFlag{Name: flagOutput, Aliases: []string{"o"}, Value: string(printer.Text),
			Usage: "output `FORMAT`: text, table or json", Category: cat},
		&cli.BoolFlag{Name: flagShowSecrets,
			Usage: "print SCRAM keys and sensitive config values instead of a short hash", Category: cat},
		&cli.BoolFlag{Name: flagVerbose, Aliases: []string{"v"},
			Usage: "print diagnostics to stderr", Category: cat},
		&cli.BoolFlag{Name: flagNoProgress,
			Usage: "never show progress (it is shown only when stderr is a terminal)", Category: cat},
	}
}

// onUsageError turns urfave's flag-parsing errors into usage errors
// (exit 2). urfave would otherwise print help to stdout, mixing it with
// results.
func onUsageError(c *cli.Context, err error, _ bool) error {
	return &exitError{code: exitFailure, err: err, hint: helpHint(c)}
}

// checkCommonFlags validates the common flags before any action runs.
func checkCommonFlags(c *cli.Context) error {
	// A group and the app let html through: the command run decides.
	fs := printer.Formats
	if c.Command == nil || isGroup(c.Command) || isReportCommand(c.Command) {
		fs = printer.ReportFormats
	}
	if _, err := printer.ParseFormatIn(commonString(c, flagOutput), fs); err != nil {
		return usageErrorf(c, "--%s: %v", flagOutput, err)
	}
	if c.Command != nil && isReportCommand(c.Command) {
		if _, err := reportTime(c); err != nil {
			return usageErrorf(c, "--%s: %v", flagReportTime, err)
		}
	}
	return nil
}

// isGroup reports whether cmd holds subcommands (urfave's own "help"
// subcommand, added to every command, does not count).
func isGroup(cmd *cli.Command) bool {
	return slices.ContainsFunc(cmd.Subcommands, func(s *cli.Command) bool { return s.Name != "help" })
}

// groupAction runs for the app and for commands that only hold
// subcommands, when no subcommand matched.
func groupAction(c *cli.Context) error {
	if c.Args().Present() {
		subs, helpName := c.App.Commands, c.App.Name
		if c.Command != nil && c.Command.HelpName != "" {
			subs, helpName = c.Command.Subcommands, c.Command.HelpName
		}
		var names []string
		for _, s := range subs {
			names = append(names, s.Name)
		}
		if s := closest(c.Args().First(), names); s != "" {
			return usageErrorf(c, "unknown command %q for %q (did you mean %q?)", c.Args().First(), helpName, s)
		}
		return usageErrorf(c, "unknown command %q for %q", c.Args().First(), c.Command.HelpName)
	}
	// A bare group: show what it offers, but still exit 2 as nothing ran.
	if err := cli.ShowSubcommandHelp(c); err != nil {
		return err
	}
	return &exitError{code: exitFailure, err: errors.New("missing command")}
}

// commonLookup finds the value of a common flag: the closest command in
// the lineage that set it wins, then the default of the closest command
// that defines it.
func commonLookup(c *cli.Context, name string) *cli.Context {
	var defining *cli.Context
	for _, cc := range c.Lineage() {
		if cc.Command == nil {
			continue // urfave's synthetic outermost context has no flags
		}
		if slices.Contains(cc.LocalFlagNames(), name) {
			return cc
		}
		if defining == nil && hasFlagName(cc.Command.Flags, []string{name}) {
			defining = cc
		}
	}
	return defining
}

func commonString(c *cli.Context, name string) string {
	if cc := commonLookup(c, name); cc != nil {
		return cc.String(name)
	}
	return ""
}

func commonBool(c *cli.Context, name string) bool {
	if cc := commonLookup(c, name); cc != nil {
		return cc.Bool(name)
	}
	return false
}

// outputFormat is the chosen --output format. It was validated before the
// action ran.
func outputFormat(c *cli.Context) printer.Format {
	f, err := printer.ParseFormatIn(commonString(c, flagOutput), printer.ReportFormats)
	if err != nil {
		return printer.Text
	}
	return f
}

// outputSet reports whether --output was given anywhere on the command
// line (commands whose natural output is one format refuse the others).
func outputSet(c *cli.Context) bool {
	for _, cc := range c.Lineage() {
		if cc.Command != nil && slices.Contains(cc.LocalFlagNames(), flagOutput) {
			return true
		}
	}
	return false
}

// showSecrets reports whether --show-secrets was given.
func showSecrets(c *cli.Context) bool { return commonBool(c, flagShowSecrets) }

// isVerbose reports whether --verbose was given.
func isVerbose(c *cli.Context) bool { return commonBool(c, flagVerbose) }

// stdout is where results go.
func stdout(c *cli.Context) io.Writer { return c.App.Writer }

// stderr is where diagnostics and progress go.
func stderr(c *cli.Context) io.Writer { return c.App.ErrWriter }

// verbosef prints a diagnostic line to stderr when --verbose is set.
func verbosef(c *cli.Context, format string, a ...any) {
	if !isVerbose(c) {
		return
	}
	msg := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	_, _ = io.WriteString(stderr(c), msg)
}

// warnf reports something the command survived (a torn tail, a damaged
// batch where replay stopped, skipped records, a detected chroot) on stderr,
// always: the result on stdout is still valid, but the user must know what
// it rests on.
func warnf(c *cli.Context, format string, a ...any) {
	msg := "kmeta: warning: " + printer.Clean(fmt.Sprintf(format, a...))
	_, _ = io.WriteString(stderr(c), msg+"\n")
}

// checkArgs requires between min and max positional arguments (max < 0:
// unbounded). Flags given after the arguments were moved before them by
// reorderArgs; what remains here is positional ("--" lets an argument
// start with '-').
func checkArgs(c *cli.Context, min, max int, usage string) ([]string, error) {
	args := c.Args().Slice()
	switch {
	case len(args) < min:
		return nil, usageErrorf(c, "missing %s", usage)
	case max >= 0 && len(args) > max:
		return nil, usageErrorf(c, "too many arguments (want %s)", usage)
	}
	return args, nil
}

// oneArg requires exactly one positional argument, named name in messages.
func oneArg(c *cli.Context, name string) (string, error) {
	args, err := checkArgs(c, 1, 1, name)
	if err != nil {
		return "", err
	}
	return args[0], nil
}

// isNumber tells a negative number ("-1") from a flag in reorderArgs.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
