package printer

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
)

// Tables fit the terminal. The width is COLUMNS when it is set (so that
// scripts and tests can ask for one), else the terminal's when the output
// is a terminal, else unlimited: a pipe gets whole cells. A table that is
// wider is fitted in steps, each taken only when the previous did not
// suffice, so that what carries the answer survives longest:
//
//  1. columns empty in every row go (they say nothing);
//  2. wrappable columns wrap, the non-essential ones first, down to
//     minWrapWidth (or their longest header word);
//  3. non-essential columns are left out from the right, and a note under
//     the table names them;
//  4. essential columns wrap narrower still, even those that do not
//     otherwise wrap (Column.Wrap unset: codes and numbers are kept whole
//     as long as the table can fit without cutting them).
//
// Essential columns (Column.Essential) are never left out. Cells break at
// spaces, else after punctuation, and only a word longer than its column
// is cut. Every line, the note included, fits the width.

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

// fitTable returns the header and rows to draw (cells already Clean; a
// header or cell may hold several lines) and the note to print under the
// table ("" when nothing was left out). When no column sets Wrap or
// Essential, every column may wrap.
func fitTable(width int, cols []Column, rows [][]string) ([]string, [][]string, string) {
	n := len(cols)
	header := make([]string, n)
	natural := make([]int, n)
	empty := make([]bool, n)
	for i, c := range cols {
		header[i] = c.Header
		natural[i] = utf8.RuneCountInString(c.Header)
		empty[i] = true
	}
	for _, r := range rows {
		for i, c := range r {
			natural[i] = max(natural[i], utf8.RuneCountInString(c))
			if c != "" {
				empty[i] = false
			}
		}
	}
	if width <= 0 || total(natural) <= width {
		return header, rows, ""
	}

	anyMarked := false
	for _, c := range cols {
		anyMarked = anyMarked || c.Wrap || c.Essential
	}
	canWrap := func(i int) bool { return !anyMarked || cols[i].Wrap }
	lo := make([]int, n)
	for i, c := range cols {
		lo[i] = min(natural[i], max(minWrapWidth, longestWord(c.Header)))
	}

	keep := make([]bool, n)
	for i := range keep {
		keep[i] = len(rows) == 0 || !empty[i]
	}
	var widths []int
	// shrink narrows the kept columns that pass ok, the widest first (the
	// result depends on the widths, not on the column order), down to
	// floor, until the table fits.
	shrink := func(ok func(int) bool, floor func(int) int) {
		for sum(widths, keep) > width {
			best := -1
			for i := range widths {
				if keep[i] && ok(i) && widths[i] > floor(i) && (best < 0 || widths[i] > widths[best]) {
					best = i
				}
			}
			if best < 0 {
				return
			}
			widths[best]--
		}
	}
	fit := func() bool {
		widths = append(widths[:0], natural...)
		shrink(func(i int) bool { return canWrap(i) && !cols[i].Essential }, func(i int) int { return lo[i] })
		shrink(canWrap, func(i int) int { return lo[i] })
		return sum(widths, keep) <= width
	}
	var left []string
	for !fit() {
		drop := -1
		for i := n - 1; i >= 0; i-- {
			if keep[i] && !cols[i].Essential && kept(keep) > 1 {
				drop = i
				break
			}
		}
		if drop < 0 {
			// Only essential columns are left: they wrap as narrow as it
			// takes, down to one rune.
			shrink(func(i int) bool { return cols[i].Essential || kept(keep) == 1 }, func(int) int { return 1 })
			break
		}
		keep[drop] = false
		left = append([]string{cols[drop].Header}, left...)
	}

	var outHeader []string
	for i := range n {
		if keep[i] {
			outHeader = append(outHeader, wrapCell(header[i], widths[i]))
		}
	}
	outRows := make([][]string, len(rows))
	for j, r := range rows {
		var cells []string
		for i := range n {
			if keep[i] {
				cells = append(cells, wrapCell(r[i], widths[i]))
			}
		}
		outRows[j] = cells
	}
	note := ""
	if len(left) > 0 {
		note = fmt.Sprintf("(%s left out to fit %d columns: %s; widen the terminal, set COLUMNS, or use -o json)",
			Count(len(left), "column"), width, strings.Join(left, ", "))
		note = wrapCell(note, width)
	}
	return outHeader, outRows, note
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

// sum is total over the kept columns.
func sum(widths []int, keep []bool) int {
	t := 1
	for i, w := range widths {
		if keep[i] {
			t += w + 3
		}
	}
	return t
}

func kept(keep []bool) int {
	k := 0
	for _, b := range keep {
		if b {
			k++
		}
	}
	return k
}

func longestWord(s string) int {
	m := 0
	for _, w := range strings.Fields(s) {
		m = max(m, utf8.RuneCountInString(w))
	}
	return m
}

// wrapCell breaks s into lines of at most w runes: at the last space that
// fits, else after the last punctuation that fits (a dot, comma, slash,
// dash, colon or equals sign: names, endpoints and codes break there), else,
// for a word longer than the line, at w.
// Lines s already holds are kept.
func wrapCell(s string, w int) string {
	if w <= 0 || utf8.RuneCountInString(s) <= w {
		return s
	}
	if strings.Contains(s, "\n") {
		parts := strings.Split(s, "\n")
		for i, p := range parts {
			parts[i] = wrapCell(p, w)
		}
		return strings.Join(parts, "\n")
	}
	var lines []string
	rs := []rune(s)
	for len(rs) > w {
		cut := 0
		for k := w; k > 0; k-- {
			if rs[k] == ' ' {
				cut = k
				break
			}
		}
		if cut == 0 {
			for k := w; k > 1; k-- {
				if breakable(rs, k) {
					cut = k
					break
				}
			}
		}
		if cut == 0 {
			cut = w
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

// breakable reports whether a line may end before rs[k] inside a word:
// between punctuation and a letter or digit ("orders." "v1",
// "kafka-" "features"), or before the "(" of "host:9092(PLAINTEXT)"; not
// at the start of a word, so "--flag" and "://" stay whole.
func breakable(rs []rune, k int) bool {
	if !slices.ContainsFunc(rs[:k-1], alnum) {
		return false
	}
	return strings.ContainsRune(".,/-:=", rs[k-1]) && alnum(rs[k]) || rs[k] == '(' && alnum(rs[k-1])
}

func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
