package printer

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kmeta/kmeta/model"
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
	if !strings.Contains(out, "columns left out to fit 40 columns:") || !strings.Contains(out, "COLUMNJ") {
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

// checkFits checks that every line of out fits width.
func checkFits(t *testing.T, out string, width int) {
	t.Helper()
	for _, ln := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(ln); n > width {
			t.Errorf("line of %d columns at width %d: %q", n, width, ln)
		}
	}
}

// TestTablesKeepEssentialColumns: issue 18 §4. At 80 columns a plan's
// findings table kept an empty WHERE and left out MESSAGE and FIX; the
// answer's columns are never left out (they wrap), empty columns go first,
// cells break between words, and every line, the note included, fits.
func TestTablesKeepEssentialColumns(t *testing.T) {
	fs := []model.Finding{
		{Severity: model.SevWarning, Code: "registrations-in-data-dir", Entity: "/brokers/ids",
			Message: "brokers 1, 2 are still registered in the data dir (ephemeral znodes left when ZooKeeper stopped before them)",
			Fix:     "make sure every broker is stopped before converting"},
		{Severity: model.SevInfo, Code: "elr-deferred", Entity: "feature eligible.leader.replicas.version",
			Message: "eligible.leader.replicas.version=1 (the default of 4.4-IV2) is left at 0 for the first start"},
	}
	for _, width := range []int{80, 60, 40} {
		t.Setenv("COLUMNS", strconv.Itoa(width))
		var b bytes.Buffer
		if err := WriteRows(&b, Table, FindingsRows(fs)); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		checkFits(t, out, width)
		if width < 60 {
			// Too narrow for whole words: the four essential columns
			// are still there, and only ENTITY is named as left out.
			if row := strings.Split(out, "\n")[1]; strings.Count(row, "|") != 5 {
				t.Errorf("width %d: want the 4 essential columns:\n%s", width, out)
			}
			if !strings.Contains(out, "(1 column left out to fit 40 columns:\nENTITY;") {
				t.Errorf("width %d: want a note naming ENTITY:\n%s", width, out)
			}
			continue
		}
		for _, h := range []string{"SEVERITY", "CODE", "MESSAGE", "FIX"} {
			if !strings.Contains(out, h) {
				t.Errorf("width %d: essential column %s left out:\n%s", width, h, out)
			}
		}
		if strings.Contains(out, "WHERE") {
			t.Errorf("width %d: the empty WHERE column is kept:\n%s", width, out)
		}
		// Words are whole: each word of the message is on one line.
		for _, w := range []string{"registered", "ephemeral", "ZooKeeper", "converting"} {
			if !strings.Contains(out, w) {
				t.Errorf("width %d: %q was broken inside:\n%s", width, w, out)
			}
		}
	}
}

// TestImageTableKeepsReplicas: at 80 columns the PARTITIONS table left out
// REPLICAS and ISR; they are essential.
func TestImageTableKeepsReplicas(t *testing.T) {
	for _, width := range []int{80, 60} {
		t.Setenv("COLUMNS", strconv.Itoa(width))
		var b bytes.Buffer
		if err := WriteImage(&b, Table, testImage(), ImageOptions{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		checkFits(t, out, width)
		part := out[strings.Index(out, "PARTITIONS"):]
		part = part[:strings.Index(part, "\n\n")]
		for _, h := range []string{"TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR"} {
			if !strings.Contains(part, h) {
				t.Errorf("width %d: PARTITIONS left out %s:\n%s", width, h, part)
			}
		}
	}
}

func TestWrapCellAtWordBoundaries(t *testing.T) {
	for _, tt := range []struct {
		in   string
		w    int
		want string
	}{
		{"topic doomed is pending deletion", 16, "topic doomed is\npending deletion"},
		{"eligible.leader.replicas.version=1", 12, "eligible.\nleader.\nreplicas.\nversion=1"},
		{"rerun with --override keep-reassignments", 14, "rerun with\n--override\nkeep-\nreassignments"},
		{"CONTROLLER://127.0.0.1:40295(PLAINTEXT)", 24, "CONTROLLER://127.0.0.1:\n40295(PLAINTEXT)"},
		{"abcdefghij", 4, "abcd\nefgh\nij"},
	} {
		if got := wrapCell(tt.in, tt.w); got != tt.want {
			t.Errorf("wrapCell(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
	}
}
