package printer

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// Tables fit the terminal. The width is COLUMNS when it is set (so that
// scripts and tests can ask for one), else the terminal's when the output
// is a terminal, else unlimited: a pipe gets whole cells. When a table is
// wider, the widest wrappable columns are wrapped (cells become several
// lines) down to minWrapWidth; if it still does not fit, columns are
// dropped from the right and a note under the table names them.

const minWrapWidth = 12

// tableWidth is the width tables written to w must fit, 0 for unlimited.
func tableWidth(w io.Writer) int {
	if s := os.Getenv("COLUMNS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// fitTable returns the header and rows to draw (cells already Clean) and
// the note to print under the table ("" when nothing was dropped). wrap
// says which columns may wrap; nil lets every column wrap.
func fitTable(width int, header []string, rows [][]string, wrap []bool) ([]string, [][]string, string) {
	n := len(header)
	widths := make([]int, n)
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	if width <= 0 || total(widths) <= width {
		return header, rows, ""
	}
	canWrap := func(i int) bool { return wrap == nil || (i < len(wrap) && wrap[i]) }
	// Shrink the widest wrappable column one step at a time: the result
	// does not depend on column order, only on the widths.
	for total(widths) > width {
		best := -1
		for i := range widths {
			lo := max(minWrapWidth, utf8.RuneCountInString(header[i]))
			if canWrap(i) && widths[i] > lo && (best < 0 || widths[i] > widths[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		widths[best]--
	}
	keep := n
	for keep > 1 && total(widths[:keep]) > width {
		keep--
	}
	note := ""
	if keep < n {
		note = fmt.Sprintf("(%d column(s) left out to fit %d columns: %s; widen the terminal, set COLUMNS, or use -o json)",
			n-keep, width, strings.Join(header[keep:], ", "))
	}
	outRows := make([][]string, len(rows))
	for j, r := range rows {
		cells := make([]string, keep)
		for i := range keep {
			cells[i] = wrapCell(r[i], widths[i])
		}
		outRows[j] = cells
	}
	return header[:keep], outRows, note
}

// total is the drawn width of an ASCII table with these column widths:
// "| " before each cell, " " after, and the closing "|".
func total(widths []int) int {
	t := 1
	for _, w := range widths {
		t += w + 3
	}
	return t
}

// wrapCell breaks s into lines of at most w runes, at a space or after a
// comma when one is near, else anywhere.
func wrapCell(s string, w int) string {
	if utf8.RuneCountInString(s) <= w || w <= 0 {
		return s
	}
	var lines []string
	rs := []rune(s)
	for len(rs) > w {
		cut := w
		for k := w; k > w/2; k-- {
			if rs[k-1] == ' ' || rs[k-1] == ',' {
				cut = k
				break
			}
		}
		lines = append(lines, strings.TrimRight(string(rs[:cut]), " "))
		rs = rs[cut:]
		for len(rs) > 0 && rs[0] == ' ' {
			rs = rs[1:]
		}
	}
	if len(rs) > 0 {
		lines = append(lines, string(rs))
	}
	return strings.Join(lines, "\n")
}
