package printer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// FindingsRows is the one table form of findings (model.Finding): every
// command that reports findings prints them through it, so text, table
// and JSON agree everywhere. Findings are printed in the order given
// (callers sort with model.SortFindings). A FIX column is added when any
// finding says how to fix it. SEVERITY, CODE, MESSAGE and FIX carry the
// answer: a narrow terminal wraps them and leaves out ENTITY and WHERE.
func FindingsRows(fs []model.Finding) Rows {
	r := Rows{Columns: []Column{
		{Header: "SEVERITY", Key: "severity", Essential: true}, {Header: "CODE", Key: "code", Essential: true},
		{Header: "ENTITY", Key: "entity", Wrap: true}, {Header: "WHERE", Key: "where", Wrap: true},
		{Header: "MESSAGE", Key: "message", Wrap: true, Essential: true},
	}}
	fix := slices.ContainsFunc(fs, func(f model.Finding) bool { return f.Fix != "" })
	if fix {
		r.Columns = append(r.Columns, Column{Header: "FIX", Key: "fix", Wrap: true, Essential: true})
	}
	for _, f := range fs {
		where := ""
		if f.Where != nil {
			where = f.Where.String()
		}
		row := []string{string(f.Severity), f.Code, f.Entity, where, f.Message}
		if fix {
			row = append(row, f.Fix)
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// FindingsLines is the text form of findings as lines, one per finding:
// severity, code, entity, where, message, fix. Values go through Clean.
func FindingsLines(fs []model.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, findingLine(f))
	}
	return out
}

func findingLine(f model.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %s", f.Severity, f.Code)
	if f.Entity != "" {
		b.WriteString(" " + Clean(f.Entity))
	}
	if f.Where != nil {
		if loc := f.Where.String(); loc != "" {
			b.WriteString(" (" + Clean(loc) + ")")
		}
	}
	b.WriteString(": " + Clean(f.Message))
	if f.Fix != "" {
		b.WriteString(" — fix: " + Clean(f.Fix))
	}
	return b.String()
}
