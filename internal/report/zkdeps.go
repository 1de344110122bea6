package report

import (
	"fmt"
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/zkdeps"
)

// ZKDependents is the report of zk dependents: the verdict, each
// dependent with its evidence and what to do, the sessions recognised as
// Kafka's, then what was checked and what could not be. The JSON is the
// judge's result (safeToStop, dependents, kafkaSessions, checked,
// notChecked, findings). Exit 0 when safe to stop, 1 when something
// (a dependent, Kafka itself) still uses the ensemble, 2 when nothing
// was found but the history read is damaged: what it hides is unknown,
// so the command could not reach a verdict.
func ZKDependents(r *zkdeps.Result) Report {
	out := Report{Document: printer.Document{JSON: r}}
	verdict := printer.Clean(r.Verdict)
	// The page shows the verdict itself: the line is for text and table.
	out.Sections = append(out.Sections, printer.Section{Only: printer.Text, Lines: []string{verdict}}, printer.Section{Only: printer.Table, Lines: []string{verdict}})

	var lines []string
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "CODE", Key: "code", Essential: true}, {Header: "KIND", Key: "kind"},
		{Header: "PATH OR SESSION", Key: "entity", Essential: true}, {Header: "OWNER", Key: "owner", Wrap: true},
		{Header: "EVIDENCE", Key: "evidence", Wrap: true, Essential: true}, {Header: "FIX", Key: "fix", Wrap: true},
	}}
	for _, d := range r.Dependents {
		entity := d.Path
		if d.Kind == "session" {
			entity = "session " + d.Session
		}
		head := fmt.Sprintf("%s %s %s", d.Code, d.Kind, entity)
		if d.Owner != "" {
			head += " (" + d.Owner + ")"
		}
		lines = append(lines, printer.Clean(head))
		for _, e := range d.Evidence {
			lines = append(lines, "  "+printer.Clean(e))
		}
		lines = append(lines, "  fix: "+printer.Clean(d.Fix))
		rows.Rows = append(rows.Rows, []string{d.Code, d.Kind, printer.Clean(entity), printer.Clean(d.Owner),
			printer.Clean(strings.Join(d.Evidence, "; ")), printer.Clean(d.Fix)})
	}
	var other []string
	for _, f := range r.Findings {
		if f.Code == zkdeps.CodeKafkaConnected || f.Code == zkdeps.CodeHistoryDamaged {
			other = append(other, printer.Clean(fmt.Sprintf("%s %s: %s", f.Code, f.Entity, f.Message)), "  fix: "+printer.Clean(f.Fix))
		}
	}
	if len(lines) > 0 {
		out.Sections = append(out.Sections,
			printer.Section{Only: printer.Text, Lines: lines},
			printer.Section{Only: printer.Table, Rows: &rows})
	}
	if len(other) > 0 {
		out.Sections = append(out.Sections, printer.Section{Only: printer.Text, Lines: other})
	}
	kafka := printer.Rows{Columns: []printer.Column{
		{Header: "KAFKA SESSION", Key: "session", Essential: true}, {Header: "ROLE", Key: "role", Essential: true}, {Header: "OPEN", Key: "open"},
	}}
	var kafkaLines []string
	for _, k := range r.Kafka {
		state := "closed"
		if k.Open {
			state = "open"
		}
		kafka.Rows = append(kafka.Rows, []string{k.Session, printer.Clean(k.Role), state})
		kafkaLines = append(kafkaLines, printer.Clean(fmt.Sprintf("kafka: session %s %s (%s)", k.Session, k.Role, state)))
	}
	for _, s := range r.Cleanup {
		kafkaLines = append(kafkaLines, printer.Clean(fmt.Sprintf("cleanup: session %s only deleted the migration's /migration or /controller", s)))
	}
	if len(kafkaLines) > 0 {
		out.Sections = append(out.Sections, printer.Section{Only: printer.Text, Lines: kafkaLines})
	}
	if len(kafka.Rows) > 0 {
		out.Sections = append(out.Sections, printer.Section{Only: printer.Table, Rows: &kafka})
	}
	cov := printer.Rows{Columns: []printer.Column{{Header: "CHECKED", Key: "checked", Essential: true}, {Header: "WHAT", Key: "what", Wrap: true, Essential: true}}}
	var covLines []string
	for _, c := range r.Checked {
		covLines = append(covLines, "checked: "+printer.Clean(c))
		cov.Rows = append(cov.Rows, []string{"yes", printer.Clean(c)})
	}
	for _, c := range r.NotChecked {
		covLines = append(covLines, "not checked: "+printer.Clean(c))
		cov.Rows = append(cov.Rows, []string{"no", printer.Clean(c)})
	}
	out.Sections = append(out.Sections,
		printer.Section{Only: printer.Text, Lines: covLines},
		printer.Section{Only: printer.Table, Rows: &cov})
	switch {
	case r.SafeToStop:
	case len(r.Dependents) == 0 && len(r.Damaged) > 0 && !hasCode(r, zkdeps.CodeKafkaConnected):
		out.Exit, out.Why = Failed, "the history is damaged: no dependent in what was read, but what it hides is unknown"
	default:
		out.Exit = Findings
	}
	out.Page = &printer.Page{Title: "kmeta zk dependents", Verdict: verdict, Status: status(out.Exit), Findings: r.Findings,
		Facts: [][2]string{{"source", printer.Clean(r.Source) + " (" + r.Kind + ")"}, {"Kafka's chroot", printer.Clean(r.Chroot)},
			{"zxid", fmt.Sprintf("0x%x", r.MaxZxid)}, {"safe to stop", fmt.Sprint(r.SafeToStop)},
			{"dependents", fmt.Sprint(len(r.Dependents))}, {"not checked", fmt.Sprint(len(r.NotChecked))}}}
	return out
}

func hasCode(r *zkdeps.Result, code string) bool {
	for _, f := range r.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}
