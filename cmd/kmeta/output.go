package main

import (
	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
)

// writeImage prints img to stdout in the chosen --output format, redacted
// unless --show-secrets.
func writeImage(c *cli.Context, img *model.Image) error {
	return printer.WriteImage(stdout(c), outputFormat(c), img, printer.ImageOptions{ShowSecrets: showSecrets(c)})
}

// writeRows prints generic rows to stdout in the chosen --output format.
func writeRows(c *cli.Context, rows printer.Rows) error {
	return printer.WriteRows(stdout(c), outputFormat(c), rows)
}

// writeJSON prints v as one indented JSON document to stdout. Use it for
// --output json when a command's result is a struct (field order is then
// the struct's, which is stable).
func writeJSON(c *cli.Context, v any) error {
	return printer.WriteJSON(stdout(c), v)
}
