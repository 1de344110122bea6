package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// writeImage prints img to stdout in the chosen --output format, redacted
// unless --show-secrets.
func writeImage(c *cli.Context, img *model.Image) error { return writeImageTimeline(c, img, nil) }

// writeImageTimeline is writeImage whose html report also shows tl, the
// records of the KRaft log the image was replayed from (nil: none).
func writeImageTimeline(c *cli.Context, img *model.Image, tl *metalog.Timeline) error {
	opt := printer.ImageOptions{ShowSecrets: showSecrets(c)}
	if outputFormat(c) == printer.HTML {
		h, err := htmlOptions(c)
		if err != nil {
			return err
		}
		opt.HTML = h
		if tl != nil {
			opt.Charts, opt.Sections = report.RecordTimeline(tl)
		}
	}
	return printer.WriteImage(stdout(c), outputFormat(c), img, opt)
}

// emit prints r's document in the chosen --output format and returns the
// error its exit class maps to. A command offers -o html by taking
// reportFlags (see isReportCommand) and building a report whose document
// has a Page; emit then writes the page (this is the whole hook a new
// command, such as lint, needs).
func emit(c *cli.Context, r report.Report) error {
	var err error
	if outputFormat(c) == printer.HTML {
		var opt printer.HTMLOptions
		if opt, err = htmlOptions(c); err == nil {
			err = printer.WriteHTML(stdout(c), r.Document, opt)
		}
	} else {
		err = printer.WriteDocument(stdout(c), outputFormat(c), r.Document)
	}
	if err != nil {
		return err
	}
	return outcome(r)
}

// htmlHelp is the help text's sentence on -o html, the same for every
// command that offers it.
const htmlHelp = "-o html writes one self-contained report page (summary, pictures, every finding; nothing fetched\n" +
	"when opened) for people who review the change in a browser; --report-time fixes its creation time."

// reportFlags are the flags of a command with an html report: their
// presence is what isReportCommand looks for.
func reportFlags() []cli.Flag {
	return []cli.Flag{&cli.StringFlag{Name: flagReportTime, Category: "Common",
		Usage: "with -o html, the report's creation `TIME` (RFC 3339) instead of now, for reports that compare byte for byte"}}
}

// isReportCommand reports whether cmd writes an html report (-o html).
func isReportCommand(cmd *cli.Command) bool { return hasFlagName(cmd.Flags, []string{flagReportTime}) }

// reportTime is --report-time, or the zero time when not given.
func reportTime(c *cli.Context) (time.Time, error) {
	s := c.String(flagReportTime)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("want an RFC 3339 time such as 2026-01-02T15:04:05Z: %w", err)
	}
	return t, nil
}

// htmlOptions are the html report's version and creation time.
func htmlOptions(c *cli.Context) (printer.HTMLOptions, error) {
	t, err := reportTime(c)
	if err != nil {
		return printer.HTMLOptions{}, err
	}
	if t.IsZero() {
		t = time.Now()
	}
	return printer.HTMLOptions{Version: version, Made: t}, nil
}

// outcome maps a report's exit class to the command's error: nil (exit
// 0), findings (exit 1, with the report's diagnostic if any) or a failure
// (exit 2).
func outcome(r report.Report) error {
	switch r.Exit {
	case report.Findings:
		if r.Why == "" {
			return errFindingsReported
		}
		return findings(errors.New(r.Why))
	case report.Failed:
		return errors.New(r.Why)
	}
	return nil
}
