package main

import "github.com/urfave/cli/v2"

// writeOptions are the flags of a command that writes files, bound to
// their values: where to write (--out), whether to replace what is there
// (--force) and whether to write at all (--dry-run). Each command makes
// its own (in its constructor, never package-level: urfave/cli runs a
// fresh tree every time) and says what each flag means for it.
type writeOptions struct {
	Out    string
	Force  bool
	DryRun bool
}

// writeUsage is what each write flag means for one command; a usage left
// empty leaves that flag out (migrate brokers writes in place: no --out,
// no --force).
type writeUsage struct{ Out, Force, DryRun string }

// flags returns the write flags u names, bound to o.
func (o *writeOptions) flags(u writeUsage) []cli.Flag {
	var fs []cli.Flag
	if u.Out != "" {
		fs = append(fs, &cli.StringFlag{Name: "out", Usage: u.Out, Destination: &o.Out})
	}
	if u.Force != "" {
		fs = append(fs, &cli.BoolFlag{Name: "force", Usage: u.Force, Destination: &o.Force})
	}
	if u.DryRun != "" {
		fs = append(fs, &cli.BoolFlag{Name: "dry-run", Usage: u.DryRun, Destination: &o.DryRun})
	}
	return fs
}
