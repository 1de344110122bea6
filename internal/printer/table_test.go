package printer

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// tablewriters draws header and rows as kmeta drew every table until
// drawTable: tablewriter v1's ASCII Blueprint style, options pinned.
func tablewriters(t *testing.T, header []string, rows [][]string) string {
	t.Helper()
	var b bytes.Buffer
	tb := tablewriter.NewTable(&b,
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
	tb.Header(hdr...)
	for _, r := range rows {
		if err := tb.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDrawTableIsTablewriters: drawTable writes, byte for byte, what
// tablewriter wrote for the tables kmeta draws: cells as Clean and
// fitTable leave them (no control characters, no white space at either
// end of a line, several lines where a cell wrapped), ASCII and not (an
// accented letter, wide CJK runes, a combining mark, an emoji), empty
// cells and headers, no rows, one column.
func TestDrawTableIsTablewriters(t *testing.T) {
	fixed := []struct {
		header []string
		rows   [][]string
	}{
		{[]string{"A", "BB"}, nil},
		{[]string{"A", "BB"}, [][]string{{"x", "yyyy"}}},
		{[]string{"A", "BB"}, [][]string{{"x\nsecond", "y"}, {"", "z"}}},
		{[]string{"HEAD\nER", "B"}, [][]string{{"日本", "é"}}},
		{[]string{"", ""}, [][]string{{"", ""}}},
		{[]string{"ONE"}, [][]string{{"a  b"}, {"e\u0301"}, {"🙂 ok"}}},
		{[]string{"A", "B", "C"}, [][]string{{"1", "", "3\n4\n5"}, {"", "", ""}}},
	}
	for _, c := range fixed {
		var got bytes.Buffer
		if err := drawTable(&got, c.header, c.rows); err != nil {
			t.Fatal(err)
		}
		if want := tablewriters(t, c.header, c.rows); got.String() != want {
			t.Errorf("%q %q:\ngot\n%s\nwant (tablewriter)\n%s", c.header, c.rows, got.String(), want)
		}
	}
	words := []string{"a", "orders", "kafka-1:9092", "PLAINTEXT", "é", "日本語", "x\u0301", "🙂", "-", "1", "42", "not reported", "a  b", "min.insync.replicas=2"}
	rng := rand.New(rand.NewPCG(1, 2))
	cell := func() string {
		if rng.IntN(6) == 0 {
			return ""
		}
		var ws []string
		for range 1 + rng.IntN(4) {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		s := Clean(strings.Join(ws, " "))
		if rng.IntN(3) == 0 {
			s = wrapCell(s, 3+rng.IntN(10))
		}
		return s
	}
	for range 500 {
		n := 1 + rng.IntN(6)
		header := make([]string, n)
		for i := range header {
			header[i] = strings.ToUpper(cell())
		}
		var rows [][]string
		for range rng.IntN(8) {
			r := make([]string, n)
			for i := range r {
				r[i] = cell()
			}
			rows = append(rows, r)
		}
		var got bytes.Buffer
		if err := drawTable(&got, header, rows); err != nil {
			t.Fatal(err)
		}
		if want := tablewriters(t, header, rows); got.String() != want {
			t.Fatalf("%q %q:\ngot\n%s\nwant (tablewriter)\n%s", header, rows, got.String(), want)
		}
	}
}
