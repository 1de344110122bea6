package printer

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTablesFitWidth: with COLUMNS set, a table wraps its wrappable
// columns to fit; when it still cannot, it leaves columns out and says so.
func TestTablesFitWidth(t *testing.T) {
	long := strings.Repeat("word ", 40)
	r := Rows{Columns: []Column{{Header: "ID", Key: "id"}, {Header: "MESSAGE", Key: "message", Wrap: true}},
		Rows: [][]string{{"1", long}, {"2", "short"}}}
	t.Setenv("COLUMNS", "60")
	var b bytes.Buffer
	if err := WriteRows(&b, Table, r); err != nil {
		t.Fatal(err)
	}
	for _, ln := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(ln); n > 60 {
			t.Errorf("line of %d columns: %q", n, ln)
		}
	}
	if got := strings.Count(b.String(), "word"); got != 40 {
		t.Errorf("wrapping lost words: %d of 40", got)
	}

	// Ten columns that cannot wrap below their headers do not fit in 40:
	// the rightmost go, named in a note.
	var cols []Column
	var row []string
	for i := range 10 {
		h := "COLUMN" + string(rune('A'+i))
		cols = append(cols, Column{Header: h, Key: h})
		row = append(row, "value")
	}
	t.Setenv("COLUMNS", "40")
	b.Reset()
	if err := WriteRows(&b, Table, Rows{Columns: cols, Rows: [][]string{row}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "column(s) left out to fit 40 columns: ") || !strings.Contains(out, "COLUMNJ") {
		t.Errorf("no note naming the dropped columns:\n%s", out)
	}
	for _, ln := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(ln, "|") || strings.HasPrefix(ln, "+") {
			if n := utf8.RuneCountInString(ln); n > 40 {
				t.Errorf("table line of %d columns: %q", n, ln)
			}
		}
	}

	// Without COLUMNS and not a terminal (a buffer), nothing is cut.
	t.Setenv("COLUMNS", "")
	b.Reset()
	WriteRows(&b, Table, r)
	if !strings.Contains(b.String(), strings.TrimSpace(long)) {
		t.Error("a pipe got wrapped cells")
	}
}
