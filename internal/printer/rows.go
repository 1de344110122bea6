package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kmeta/kmeta/model"
)

// Column describes one column of generic rows: Header is shown by the text
// and table formats, Key names the field in JSON.
type Column struct {
	Header string
	Key    string
	// Wrap lets the table format wrap this column's cells to fit the
	// terminal. When no column of a table sets Wrap or Essential, any
	// column may wrap.
	Wrap bool
	// Essential marks a column that carries the answer: the table format
	// never leaves it out to fit the terminal, it wraps it instead
	// (fit.go). The others may be left out, from the right.
	Essential bool
}

// Rows is a generic result table. Rows must already be in their final,
// deterministic order; each row has one cell per column.
type Rows struct {
	Columns []Column
	Rows    [][]string
}

// WriteRows renders rows in format f. text: left-aligned columns separated
// by two spaces with the headers as given; table: a bordered table; json:
// an array of objects whose keys are the columns' Keys, in column order,
// values as strings.
func WriteRows(w io.Writer, f Format, r Rows) error {
	if err := r.check(); err != nil {
		return err
	}
	switch f {
	case Text:
		return writeRowsText(w, r)
	case Table:
		return writeRowsTable(w, r)
	case JSON:
		return writeRowsJSON(w, r)
	}
	return fmt.Errorf("printer: unknown format %q", f)
}

func (r Rows) check() error {
	for i, row := range r.Rows {
		if len(row) != len(r.Columns) {
			return fmt.Errorf("printer: row %d has %d cells, want %d", i, len(row), len(r.Columns))
		}
	}
	return nil
}

func writeRowsText(w io.Writer, r Rows) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				io.WriteString(tw, "\t")
			}
			io.WriteString(tw, c)
		}
		io.WriteString(tw, "\n")
	}
	hdr := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		hdr[i] = c.Header
	}
	line(hdr)
	for _, row := range r.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			// Tabs would break the column layout; clean quotes them.
			cells[i] = Clean(c)
		}
		line(cells)
	}
	return tw.Flush()
}

func writeRowsTable(w io.Writer, r Rows) error {
	return renderTable(w, r.Columns, r.Rows)
}

func writeRowsJSON(w io.Writer, r Rows) error {
	// Objects are written by hand so that keys keep column order; a map
	// would come out sorted by key.
	var b bytes.Buffer
	b.WriteString("[")
	for i, row := range r.Rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for j, c := range r.Columns {
			if j > 0 {
				b.WriteString(", ")
			}
			k, _ := json.Marshal(c.Key)
			v, _ := json.Marshal(row[j])
			b.Write(k)
			b.WriteString(": ")
			b.Write(v)
		}
		b.WriteString("}")
	}
	if len(r.Rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := w.Write(b.Bytes())
	return err
}

// Clean returns s unchanged when it prints safely on a terminal, otherwise
// its Go-quoted form (control characters, invalid UTF-8, or white space at
// either end, which tables would trim away).
func Clean(s string) string {
	if s == "" {
		return s
	}
	// Printable ASCII, the common case, is decided byte by byte; white
	// space at either end is then a blank (other white space is a
	// control character).
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		if s[0] == ' ' || s[len(s)-1] == ' ' {
			return strconv.Quote(s)
		}
		return s
	}
	if strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	return model.Shown(s)
}
