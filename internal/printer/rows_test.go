package printer

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testRows() Rows {
	return Rows{
		Columns: []Column{{Header: "TOPIC", Key: "topic"}, {Header: "PARTITION", Key: "partition"}, {Header: "NOTE", Key: "aNote"}},
		Rows: [][]string{
			{"orders", "0", "ok"},
			{"a-much-longer-topic", "12", "line\nbreak"},
		},
	}
}

func TestWriteRows(t *testing.T) {
	for _, tt := range []struct {
		f    Format
		want string
	}{
		{Text, "TOPIC                PARTITION  NOTE\n" +
			"orders               0          ok\n" +
			"a-much-longer-topic  12         \"line\\nbreak\"\n"},
		{Table, "+---------------------+-----------+---------------+\n" +
			"| TOPIC               | PARTITION | NOTE          |\n" +
			"+---------------------+-----------+---------------+\n" +
			"| orders              | 0         | ok            |\n" +
			"| a-much-longer-topic | 12        | \"line\\nbreak\" |\n" +
			"+---------------------+-----------+---------------+\n"},
		// Keys keep column order (aNote last although it sorts first).
		{JSON, "[\n" +
			"  {\"topic\": \"orders\", \"partition\": \"0\", \"aNote\": \"ok\"},\n" +
			"  {\"topic\": \"a-much-longer-topic\", \"partition\": \"12\", \"aNote\": \"line\\nbreak\"}\n" +
			"]\n"},
	} {
		var buf bytes.Buffer
		if err := WriteRows(&buf, tt.f, testRows()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.f, diff)
		}
	}

	var buf bytes.Buffer
	if err := WriteRows(&buf, JSON, Rows{Columns: testRows().Columns}); err != nil || buf.String() != "[]\n" {
		t.Errorf("empty JSON rows = %q, %v", buf.String(), err)
	}
	var v any
	if err := WriteRows(&buf, JSON, testRows()); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bytes.TrimPrefix(buf.Bytes(), []byte("[]\n")), &v); err != nil {
		t.Errorf("JSON rows do not parse: %v", err)
	}
	bad := testRows()
	bad.Rows = append(bad.Rows, []string{"short"})
	if err := WriteRows(&buf, Text, bad); err == nil {
		t.Error("ragged row: no error")
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"orders":          "orders",
		"with space":      "with space",
		"ünïcödé":         "ünïcödé",
		" lead":           `" lead"`,
		"trail ":          `"trail "`,
		"a\tb":            `"a\tb"`,
		"esc\x1b[31mred":  `"esc\x1b[31mred"`,
		"bad\xffutf8":     `"bad\xffutf8"`,
		"new\nline":       `"new\nline"`,
		"quote\"inside":   "quote\"inside",
		"zero\u200bwidth": `"zero\u200bwidth"`,
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"text", "table", "json"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	for _, s := range []string{"", "JSON", "yaml"} {
		if _, err := ParseFormat(s); err == nil {
			t.Errorf("ParseFormat(%q): no error", s)
		}
	}
}

// TestCount: "1 blocker", never "1 blockers" (issue 18 §4).
func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "blocker", "1 blocker"}, {3, "blocker", "3 blockers"}, {0, "difference", "0 differences"},
		{2, "batch", "2 batches"}, {2, "entry", "2 entries"}, {2, "key", "2 keys"}, {1, "byte", "1 byte"},
	} {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}
