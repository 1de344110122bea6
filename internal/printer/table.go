package printer

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// renderTable draws one ASCII-bordered table that fits the output's width
// (fit.go). Options are pinned (no header auto-format, which would
// upper-case and rewrite headers; left alignment; tablewriter's own
// wrapping off: fitTable wraps) so output only changes when data or width
// does. Cells are passed through Clean. cols say which columns may wrap
// and which are essential (Column).
func renderTable(w io.Writer, cols []Column, rows [][]string) error {
	clean := make([][]string, len(rows))
	for j, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = Clean(c)
		}
		clean[j] = cells
	}
	header, rows, note := fitTable(tableWidth(w), cols, clean)
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	hdr := make([]any, len(header))
	for i, h := range header {
		hdr[i] = h
	}
	t.Header(hdr...)
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if note != "" {
		_, err := fmt.Fprintln(w, note)
		return err
	}
	return nil
}
