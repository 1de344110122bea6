package printer

import (
	"fmt"
	"io"
)

// Document is one command's result as plain data, in every form the
// printer renders: JSON for -o json, and for text and table a list of
// sections printed one after the other with a blank line between them.
// internal/report builds documents from library results, so a new output
// format is one more renderer here, not one more copy per command.
type Document struct {
	// JSON is printed as one indented document (WriteJSON) for -o json:
	// a struct, so field names and order are stable.
	JSON any
	// Sections are the text and table forms; the html form shows them
	// too (as tables and lines), after Page.
	Sections []Section
	// Page, when set, is what the html report adds: verdict, facts,
	// findings, pictures (WriteHTML). Commands without one have no html
	// report.
	Page *Page
}

// Section is one block of a document: lines, then rows (either may be
// empty). Only, when set, restricts it to that format, for a result that
// text shows as lines and table as a table of its own.
type Section struct {
	// Lines are printed as they are, one per line: whoever builds them
	// passes cluster strings through Clean. In a table output a line
	// wider than the tables' width (tableWidth) wraps between words, as
	// a cell does, so that every line fits.
	Lines []string
	// Rows, when not nil, are printed with WriteRows.
	Rows *Rows
	Only Format
	// Findings marks the findings table: the html report lists the
	// findings from Page.Findings (grouped, with copyable fixes) instead.
	Findings bool
}

// WriteDocument renders d in format f.
func WriteDocument(w io.Writer, f Format, d Document) error {
	if f == JSON {
		return WriteJSON(w, d.JSON)
	}
	if f == HTML {
		return fmt.Errorf("printer: the html report is written by WriteHTML")
	}
	if f != Text && f != Table {
		return fmt.Errorf("printer: unknown format %q", f)
	}
	width := 0
	if f == Table {
		width = tableWidth(w)
	}
	first := true
	for _, s := range d.Sections {
		if s.Only != "" && s.Only != f {
			continue
		}
		if !first {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		first = false
		for _, l := range s.Lines {
			if width > 0 {
				l = wrapCell(l, width)
			}
			if _, err := io.WriteString(w, l+"\n"); err != nil {
				return err
			}
		}
		if s.Rows != nil {
			if err := WriteRows(w, f, *s.Rows); err != nil {
				return err
			}
		}
	}
	return nil
}
