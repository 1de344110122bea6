package report

import (
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
)

// Codes renders the registry of checks (kmeta codes): one row per code,
// in code order. The JSON is every check with all it declares; text
// shows each code's severity, room and title, the table its class, what
// it means and its fix too (columns the terminal cannot hold are left
// out from the right).
func Codes(cs []*model.Check) Report {
	text := printer.Rows{Columns: []printer.Column{
		{Header: "CODE", Key: "code"}, {Header: "SEVERITY", Key: "severity"}, {Header: "ROOM", Key: "room"},
		{Header: "TITLE", Key: "title"},
	}}
	table := printer.Rows{Columns: []printer.Column{
		{Header: "CODE", Key: "code", Essential: true}, {Header: "SEVERITY", Key: "severity", Essential: true},
		{Header: "TITLE", Key: "title", Wrap: true, Essential: true}, {Header: "ROOM", Key: "room"},
		{Header: "CLASS", Key: "class", Wrap: true}, {Header: "MEANING", Key: "meaning", Wrap: true},
		{Header: "FIX", Key: "fix", Wrap: true},
	}}
	for _, c := range cs {
		text.Rows = append(text.Rows, []string{c.Code, severities(c), c.Room, c.Title})
		table.Rows = append(table.Rows, []string{c.Code, severities(c), c.Title, c.Room, class(c), c.Meaning, c.Fix})
	}
	if cs == nil {
		cs = []*model.Check{}
	}
	return Report{Document: printer.Document{JSON: cs, Sections: []printer.Section{
		{Only: printer.Text, Rows: &text},
		{Only: printer.Table, Rows: &table},
	}}}
}

// Code renders one check in full (kmeta codes CODE): what a user looks
// up from an output.
func Code(c *model.Check) Report {
	sev := string(c.Severity)
	if c.Escalated != "" {
		sev += "; " + string(c.Escalated) + " when " + c.EscalatedWhen
	}
	if c.Relaxed != "" {
		sev += "; " + string(c.Relaxed) + " when " + c.RelaxedWhen
	}
	fields := [][2]string{
		{"code", c.Code}, {"title", c.Title}, {"severity", sev}, {"room", c.Room}, {"class", class(c)},
		{"meaning", c.Meaning}, {"fix", c.Fix}, {"commands", strings.Join(c.Commands, ", ")},
	}
	var lines []string
	rows := printer.Rows{Columns: []printer.Column{{Header: "FIELD", Key: "field"}, {Header: "VALUE", Key: "value", Wrap: true, Essential: true}}}
	for _, f := range fields {
		if f[1] == "" {
			continue
		}
		lines = append(lines, f[0]+": "+f[1])
		rows.Rows = append(rows.Rows, []string{f[0], f[1]})
	}
	return Report{Document: printer.Document{JSON: c, Sections: []printer.Section{
		{Only: printer.Text, Lines: lines},
		{Only: printer.Table, Rows: &rows},
	}}}
}

// severities shows a check's severity and, in brackets, the others its
// findings may take.
func severities(c *model.Check) string {
	var other []string
	for _, s := range c.Severities() {
		if s != c.Severity {
			other = append(other, string(s))
		}
	}
	if len(other) == 0 {
		return string(c.Severity)
	}
	return string(c.Severity) + " (" + strings.Join(other, ", ") + ")"
}

// class is a check's class, or where its class comes from.
func class(c *model.Check) string {
	if c.Class != "" {
		return c.Class
	}
	return c.ClassFrom
}
