package printer

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// renderTable draws one ASCII-bordered table that fits the output's width
// (fit.go). Cells are passed through Clean. cols say which columns may
// wrap and which are essential (Column).
//
// The drawing is tablewriter's ASCII Blueprint style as kmeta configured
// it (headers as given, left-aligned, no wrapping of its own: fitTable
// wraps), done here in one pass over the rows: tablewriter kept a cache
// entry, behind one lock, for the width of every cell it measured, and a
// table of a million partitions (image -o table) took it 29 s and 2.4 GiB.
// TestDrawTableIsTablewriters holds the two to the same bytes.
//
// The cells are cleaned in place (a million rows' copy was a fifth of the
// table's memory): the rows are the caller's to draw, and Clean of a
// clean cell is that cell.
func renderTable(w io.Writer, cols []Column, rows [][]string) error {
	for _, row := range rows {
		for i, c := range row {
			row[i] = Clean(c)
		}
	}
	header, rows, note := fitTable(tableWidth(w), cols, rows)
	if err := drawTable(w, header, rows); err != nil {
		return err
	}
	if note != "" {
		_, err := fmt.Fprintln(w, note)
		return err
	}
	return nil
}

// drawTable writes header and rows framed in ASCII:
//
//	+------+-------+
//	| NAME | VALUE |
//	+------+-------+
//	| a    | b     |
//	|      | c     |
//	+------+-------+
//
// A column is as wide as its widest line (display width: a wide rune
// counts two, a combining mark none); a cell of several lines ("\n")
// makes its row that many lines high; each line is trimmed of white
// space at both ends. With no rows the header's rule is left out, the
// frame closing under the header. A row's missing cells are blank.
func drawTable(w io.Writer, header []string, rows [][]string) error {
	n := len(header)
	widths := make([]int, n)
	measure := func(cells []string) {
		for i := range min(n, len(cells)) {
			for rest, more := cells[i], true; more; {
				var line string
				line, rest, more = strings.Cut(rest, "\n")
				widths[i] = max(widths[i], displayWidth(strings.TrimSpace(line)))
			}
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var rule []byte
	rule = append(rule, '+')
	for _, cw := range widths {
		rule = append(rule, strings.Repeat("-", cw+2)...)
		rule = append(rule, '+')
	}
	rule = append(rule, '\n')
	var line []byte
	rest := make([]string, n) // each cell's lines not yet written
	more := make([]bool, n)
	// lines writes one row: as many lines as its tallest cell.
	lines := func(cells []string) {
		for i := range n {
			rest[i], more[i] = "", i < len(cells)
			if more[i] {
				rest[i] = cells[i]
			}
		}
		for first := true; ; first = false {
			left := false
			for i := range n {
				left = left || more[i]
			}
			if !left && !first {
				return
			}
			line = append(line[:0], '|')
			for i, cw := range widths {
				var text string
				if more[i] {
					text, rest[i], more[i] = strings.Cut(rest[i], "\n")
					text = strings.TrimSpace(text)
				}
				line = append(line, ' ')
				line = append(line, text...)
				for pad := cw - displayWidth(text); pad > 0; pad-- {
					line = append(line, ' ')
				}
				line = append(line, " |"...)
			}
			line = append(line, '\n')
			bw.Write(line)
		}
	}
	bw.Write(rule)
	lines(header)
	if len(rows) > 0 {
		bw.Write(rule)
		for _, r := range rows {
			lines(r)
		}
	}
	bw.Write(rule)
	return bw.Flush()
}

// displayWidth is the columns s takes in a terminal, as tablewriter
// measures it; printable ASCII, nearly every cell, is one a byte.
func displayWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return twwidth.WidthNoCache(s)
		}
	}
	return len(s)
}
