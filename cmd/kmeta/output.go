package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/model"
)

// writeImage prints img to stdout in the chosen --output format, redacted
// unless --show-secrets.
func writeImage(c *cli.Context, img *model.Image) error {
	return printer.WriteImage(stdout(c), outputFormat(c), img, printer.ImageOptions{ShowSecrets: showSecrets(c)})
}

// emit prints r's document in the chosen --output format and returns the
// error its exit class maps to.
func emit(c *cli.Context, r report.Report) error {
	if err := printer.WriteDocument(stdout(c), outputFormat(c), r.Document); err != nil {
		return err
	}
	return outcome(r)
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
