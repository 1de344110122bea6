package printer

import (
	"bytes"
	"testing"
)

// TestWriteDocument: sections are separated by one blank line, a section
// meant for the other format leaves no trace, and JSON prints JSON alone.
func TestWriteDocument(t *testing.T) {
	rows := Rows{Columns: []Column{{Header: "A", Key: "a"}, {Header: "B", Key: "b"}}, Rows: [][]string{{"1", "2"}}}
	d := Document{JSON: struct {
		X int `json:"x"`
	}{7}, Sections: []Section{
		{Lines: []string{"head"}},
		{Only: Table, Rows: &rows},
		{Only: Text, Lines: []string{"text only"}},
		{Rows: &rows},
	}}
	for f, want := range map[Format]string{
		Text: "head\n\ntext only\n\nA  B\n1  2\n",
		JSON: "{\n  \"x\": 7\n}\n",
	} {
		var b bytes.Buffer
		if err := WriteDocument(&b, f, d); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("%s:\n%q\nwant\n%q", f, b.String(), want)
		}
	}
	var b bytes.Buffer
	if err := WriteDocument(&b, Table, d); err != nil {
		t.Fatal(err)
	}
	var tb bytes.Buffer
	WriteRows(&tb, Table, rows)
	if want := "head\n\n" + tb.String() + "\n" + tb.String(); b.String() != want {
		t.Errorf("table:\n%s\nwant\n%s", b.String(), want)
	}
	if err := WriteDocument(&b, Format("html"), d); err == nil {
		t.Error("an unknown format printed")
	}
}

// TestTableLinesFitWidth: in a table output, a section's lines wrap at
// the tables' width, between words as a cell does; text keeps them whole,
// and without a width (a pipe) nothing wraps.
func TestTableLinesFitWidth(t *testing.T) {
	d := Document{Sections: []Section{{Lines: []string{"Restart one node at a time, in this order: 2, 3, 1 (kraft:/var/lib/kafka/metadata)", "short"}}}}
	for _, tc := range []struct {
		columns string
		f       Format
		want    string
	}{
		{"40", Table, "Restart one node at a time, in this\norder: 2, 3, 1\n(kraft:/var/lib/kafka/metadata)\nshort\n"},
		{"40", Text, "Restart one node at a time, in this order: 2, 3, 1 (kraft:/var/lib/kafka/metadata)\nshort\n"},
		{"", Table, "Restart one node at a time, in this order: 2, 3, 1 (kraft:/var/lib/kafka/metadata)\nshort\n"},
	} {
		t.Setenv("COLUMNS", tc.columns)
		var b bytes.Buffer
		if err := WriteDocument(&b, tc.f, d); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("COLUMNS=%q %s:\n%q\nwant\n%q", tc.columns, tc.f, b.String(), tc.want)
		}
	}
}
