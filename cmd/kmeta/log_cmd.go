package main

import (
	"bufio"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

func init() { register(logCommand) }

func logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "inspect KRaft __cluster_metadata segments, snapshots and bootstrap files",
		Subcommands: []*cli.Command{
			logDumpCommand(),
			logCheckCommand(),
			logStatsCommand(),
		},
	}
}

// kraftSpec parses a log command's PATH argument: any KRaft source string
// (kraft:DIR, a path inferred as KRaft), opened once.
func kraftSpec(c *cli.Context, raw string) (source.Spec, error) {
	spec, err := source.ParseKRaft(raw)
	if err != nil {
		return spec, err
	}
	if spec.At.HasOffset {
		return spec, usageErrorf(c, "%s: a point in time (@offset=) applies to image and features; log commands read whole files (log dump has --from-offset and --to-offset)", raw)
	}
	if spec.Inferred {
		verbosef(c, "%s: read as %s (%s)", raw, spec, spec.Why)
	}
	return spec, nil
}

const kraftPathHelp = "PATH is a KRaft source: kraft:DIR or a path (a metadata log dir, a __cluster_metadata-0 dir,\n" +
	"a .log segment, a .checkpoint snapshot or a bootstrap.checkpoint)."

func logDumpCommand() *cli.Command {
	return &cli.Command{
		Name:      "dump",
		Usage:     "print every batch and record (text: the lines Kafka 4.4's kafka-dump-log --cluster-metadata-decoder prints; json: one object per batch and record)",
		ArgsUsage: "PATH...",
		Description: "Exit 0 when everything decoded, 1 when a batch or record could not be read or decoded (a CRC\n" +
			"failure, bad framing, an undecodable record, a torn tail anywhere but at the end of the active\n" +
			"segment), 2 when a path could not be read. A torn tail of the active segment is what a crash leaves:\n" +
			"a warning saying how many bytes were lost, exit 0.\n\n" +
			"text and json stream: memory stays flat whatever the log's length. A table holds its rows until\n" +
			"their widths are known (9 million records: about 4 GiB): for a long log, narrow it (--type,\n" +
			"--from-offset, --to-offset) or print text or json.\n\n" + kraftPathHelp,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "type", Usage: "only records of this `TYPE` (TOPIC_RECORD, TopicRecord or an apiKey); repeatable"},
			&cli.Int64Flag{Name: "from-offset", Value: 0, Usage: "first `OFFSET` to print"},
			&cli.Int64Flag{Name: "to-offset", Usage: "last `OFFSET` to print", DefaultText: "to the end"},
			&cli.BoolFlag{Name: "records-only", Usage: "omit batch lines"},
			// kafka-dump-log's spellings, so that its command lines work
			// here: --files names the paths, and the decoder is the only
			// one kmeta has.
			&cli.StringSliceFlag{Name: "files", Usage: "`PATH,...` to dump, as kafka-dump-log takes them; the same as arguments"},
			&cli.BoolFlag{Name: "cluster-metadata-decoder", Usage: "accepted for kafka-dump-log's command line: kmeta always decodes metadata records"},
		},
		Action: logDump,
	}
}

func logDump(c *cli.Context) error {
	paths := append(c.StringSlice("files"), c.Args().Slice()...)
	if len(paths) == 0 {
		return usageErrorf(c, "missing PATH... (or --files PATH,...)")
	}
	f, err := dumpFilter(c)
	if err != nil {
		return err
	}
	specs := make([]source.Spec, 0, len(paths))
	for _, p := range paths {
		spec, err := kraftSpec(c, p)
		if err != nil {
			return err
		}
		specs = append(specs, spec)
	}
	lessGC()
	d, err := dumpSources(c, specs, metalog.DumpOptions{Filter: f, ShowSecrets: showSecrets(c)})
	if err != nil {
		return err
	}
	var unusable []model.Finding
	for _, spec := range specs {
		unusable = append(unusable, source.DirWarnings(spec.Dir)...)
	}
	printWarnings(c, unusable)
	printWarnings(c, d.Warnings())
	for _, t := range d.TornTails() {
		if t.Active {
			warnf(c, "%s: %s", model.WarnTornTail, t)
		}
	}
	return outcome(report.LogDump(d, len(unusable)))
}

// dumpFilter is log dump's flags as a metalog.DumpFilter.
func dumpFilter(c *cli.Context) (metalog.DumpFilter, error) {
	f := metalog.DumpFilter{From: c.Int64("from-offset"), To: -1, RecordsOnly: c.Bool("records-only")}
	if f.From < 0 {
		return f, usageErrorf(c, "--from-offset %d: must be 0 or more", f.From)
	}
	if c.IsSet("to-offset") {
		if f.To = c.Int64("to-offset"); f.To < 0 {
			return f, usageErrorf(c, "--to-offset %d: must be 0 or more (leave it out to print to the end)", f.To)
		}
		if f.To < f.From {
			return f, usageErrorf(c, "--from-offset %d is above --to-offset %d", f.From, f.To)
		}
	}
	for _, t := range c.StringSlice("type") {
		for _, p := range strings.Split(t, ",") {
			k, err := metalog.ParseRecordType(p)
			if err != nil {
				return f, usageErrorf(c, "--type: %v", err)
			}
			if f.APIKeys == nil {
				f.APIKeys = map[int16]bool{}
			}
			f.APIKeys[k] = true
		}
	}
	return f, nil
}

// dumpSources streams the dump of each source to stdout in the chosen
// format (a table per source for -o table) and returns the dumper, whose
// verdict covers them all.
func dumpSources(c *cli.Context, specs []source.Spec, opts metalog.DumpOptions) (*metalog.Dumper, error) {
	w := bufio.NewWriterSize(stdout(c), 1<<16)
	format := outputFormat(c)
	var rows []metalog.DumpRow
	switch format {
	case printer.JSON:
		opts.Format = metalog.DumpJSON
	case printer.Table:
		opts.Format = metalog.DumpRows
		opts.Row = func(r metalog.DumpRow) { rows = append(rows, r) }
	}
	p := newProgress(c, "dumping", progressBytes)
	opts.Progress = p.Update
	d := metalog.NewDumper(w, opts)
	var err error
	for _, spec := range specs {
		if err = d.DumpDir(spec.Dir); err != nil {
			break
		}
		if format == printer.Table {
			err = printer.WriteRows(w, printer.Table, report.DumpTable(rows))
			rows = nil
		}
	}
	p.Done()
	if ferr := w.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	return d, err
}

func logCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "integrity verdict: CRC failures, offset gaps and overlaps, epoch regressions, torn tail, snapshot/log coverage holes, undecodable records",
		ArgsUsage: "PATH",
		Description: "Exit 0 when healthy, 1 when problems were found, 2 when the path could not be read.\n" +
			"Every finding names the file, the byte position and the offset; the last known-good offset says\n" +
			"how far the log can be trusted. Inputs are opened read-only and Kafka's .lock is never taken,\n" +
			"so a directory a running Kafka uses can be checked (its active segment may end in a torn tail:\n" +
			"that is a warning, exit 0, as Kafka truncates it on recovery; --strict makes it fail).\n\n" + kraftPathHelp,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "strict", Usage: "fail (exit 1) on any torn tail too, also at the end of the active segment"},
			&cli.BoolFlag{Name: "no-strict", Usage: "skip the rules KRaft's raft layer enforces on metadata batches"},
			&cli.BoolFlag{Name: "frames-only", Usage: "check framing and CRCs and record frame headers, without decoding record bodies"},
			&cli.IntFlag{Name: "max-per-kind", Value: 100, Usage: "report at most `N` findings of one kind per file"},
		},
		Action: func(c *cli.Context) error {
			path, err := oneArg(c, "PATH")
			if err != nil {
				return err
			}
			if c.Bool("strict") && c.Bool("no-strict") {
				return usageErrorf(c, "--strict and --no-strict contradict each other")
			}
			spec, err := kraftSpec(c, path)
			if err != nil {
				return err
			}
			lessGC()
			opts := metalog.CheckOptions{Strict: !c.Bool("no-strict"), MaxPerKind: c.Int("max-per-kind")}
			if !c.Bool("frames-only") {
				opts.DecodeValue, opts.ValidValue = decodeForCheck, records.ValidMetadata
			}
			p := newProgress(c, "checking "+path, progressBytes)
			opts.Progress = p.Update
			rep, err := metalog.CheckDir(spec.Dir, opts)
			p.Done()
			if err != nil {
				return pathErr(path, err)
			}
			return emit(c, report.LogCheck(rep, c.Bool("strict")))
		},
	}
}

// decodeForCheck checks that a record body decodes (records.ValidateMetadata:
// the full decoder's verdict and error, without building the record). The
// checker tells an unknown type or version (record-unknown, a warning that
// still fails log check: image and log dump cannot read the record) from
// a body that does not decode (record-decode, damage).
func decodeForCheck(value []byte) error { return records.ValidateMetadata(value) }

func logStatsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "the log's records and bytes per record type, batches, epochs, time range; snapshots apart",
		ArgsUsage: "PATH",
		Description: "The statistics describe the log: its segments. Each snapshot and bootstrap file (whose offsets\n" +
			"restart at 0 and whose batches carry the snapshot's epoch, 0 in a bootstrap) is counted apart, in a\n" +
			"table of its own (json: snapshots).\n" +
			"Exit 0 when every file was read to its end (a torn tail of the active segment is what a crash\n" +
			"leaves: counted up to the last whole batch), 1 when a batch failed its CRC or reading stopped at damage\n" +
			"(the statistics are printed, up to there), 2 when the path could not be read.\n" + htmlHelp + "\n\n" + kraftPathHelp,
		Flags: reportFlags(),
		Action: func(c *cli.Context) error {
			path, err := oneArg(c, "PATH")
			if err != nil {
				return err
			}
			spec, err := kraftSpec(c, path)
			if err != nil {
				return err
			}
			lessGC()
			// One pass through the checker: the statistics, and log check's
			// verdict on the same bytes, so stats never exits 0 on a log
			// that check calls damaged.
			rep, err := metalog.CheckDir(spec.Dir, metalog.CheckOptions{Strict: true, Stats: true})
			if err != nil {
				return pathErr(path, err)
			}
			unusable := source.DirWarnings(spec.Dir)
			printWarnings(c, unusable)
			var warnings []model.Finding
			for _, f := range rep.Findings {
				if f.Severity == model.SevWarning {
					warnings = append(warnings, f)
				}
			}
			printWarnings(c, warnings)
			return emit(c, report.LogStats(rep, len(unusable)))
		},
	}
}

// lessGC raises the garbage collector's target to 400% for work whose
// collections find little to free, and returns what restores it; GOGC
// still wins when set. Commands that stream (log dump, check, stats) hold
// one batch while they allocate short-lived records quickly, so the
// default target spends much of a dump collecting: a few MiB buy a large
// share of throughput. A replayed KRaft image is nearly all that its
// replay allocates (297 of 324 MB at a million partitions) and is kept to
// the end, so each collection while it grows marks all of it again: three
// collections instead of seven, with the same peak memory.
func lessGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}
