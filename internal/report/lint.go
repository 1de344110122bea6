package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/jsonstream"
	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/model"
)

// LintDoc is lint's JSON document: the run (rules with their status,
// findings with what each rule saw, why it matters, every entity and
// the fix) and the threshold it was judged by.
type LintDoc struct {
	*lint.Result
	FailOn model.Severity `json:"failOn"`
	// Failing: a finding at or above FailOn that no exception covers.
	Failing bool `json:"failing"`
	// Counts are the findings per severity, excepted ones left out.
	Counts map[model.Severity]int `json:"counts"`
}

// WriteJSONIndented writes d as printer.WriteJSON would, its findings
// encoded one at a time (package jsonstream): a systemic finding on every
// topic of a large cluster is thousands of findings, each naming every
// partition it touches (10,000 topics: 100 MB of JSON).
func (d LintDoc) WriteJSONIndented(w io.Writer) error {
	r := *d.Result
	r.Findings = nil
	head := d
	head.Result = &r
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := jsonstream.Write(bw, head, "findings", d.Findings, true, false); err != nil {
		return err
	}
	return bw.Flush()
}

// Lint is the report of kmeta lint: the findings (one line or row each,
// with the fix), the findings an exception covers (with its reason),
// then the rules that did not run and why, and a summary line. Exit 1
// when a finding at or above failOn is not excepted; 2 when no selected
// rule could run (the source reports none of what they read; a rule
// that does not apply, a quorum rule on ZooKeeper, is not a failure).
func Lint(r *lint.Result, failOn model.Severity) Report {
	doc := LintDoc{Result: r, FailOn: failOn, Failing: r.Failing(failOn), Counts: map[model.Severity]int{}}
	var open, accepted []model.Finding
	var acceptedLines []string
	for _, f := range r.Findings {
		if f.Excepted != "" {
			accepted = append(accepted, f.Finding)
			acceptedLines = append(acceptedLines, printer.Clean(fmt.Sprintf("accepted %s %s: %s", f.Code, f.Entity, f.Excepted)))
			continue
		}
		doc.Counts[f.Severity]++
		open = append(open, f.Finding)
	}
	ran, selected := 0, 0
	var notRun, assumed []string
	rules := printer.Rows{Columns: []printer.Column{
		{Header: "RULE", Key: "rule", Essential: true}, {Header: "FAMILY", Key: "family"},
		{Header: "STATUS", Key: "status", Essential: true}, {Header: "FINDINGS", Key: "findings", Essential: true},
		{Header: "EXCEPTED", Key: "excepted"}, {Header: "WHY", Key: "why", Wrap: true},
	}}
	for _, rr := range r.Rules {
		if rr.Status == lint.StatusSkipped {
			continue
		}
		selected++
		switch rr.Status {
		case lint.StatusRan:
			ran++
		case lint.StatusNotRun:
			notRun = append(notRun, printer.Clean(fmt.Sprintf("not run: %s: %s", rr.Code, rr.Why)))
		}
		why := rr.Why
		if rr.Assumes != "" {
			// A rule that judged by assumption says so, findings or not.
			assumed = append(assumed, printer.Clean(fmt.Sprintf("assumed: %s: %s", rr.Code, rr.Assumes)))
			why = rr.Assumes
		}
		rules.Rows = append(rules.Rows, []string{rr.Code, string(rr.Family), string(rr.Status),
			fmt.Sprint(rr.Findings), fmt.Sprint(rr.Excepted), printer.Clean(why)})
	}
	var counts []string
	for _, s := range model.Severities() {
		if n := doc.Counts[s]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, s))
		}
	}
	summary := fmt.Sprintf("%d of %d rules ran", ran, selected)
	switch {
	case len(open) == 0 && len(notRun) == 0:
		summary += ": clean"
	case len(open) == 0:
		summary += fmt.Sprintf(": no findings from those that ran; %d could not run on this source", len(notRun))
	default:
		summary += ": " + strings.Join(counts, ", ")
		if len(notRun) > 0 {
			summary += fmt.Sprintf("; %d could not run on this source", len(notRun))
		}
	}
	if len(accepted) > 0 {
		summary += fmt.Sprintf("; %d accepted by exceptions", len(accepted))
	}
	out := Report{Document: printer.Document{JSON: doc}}
	if len(open) > 0 {
		rows := printer.FindingsRows(open)
		out.Sections = append(out.Sections,
			printer.Section{Only: printer.Text, Lines: printer.FindingsLines(open)},
			// The page lists the findings itself (grouped, with copyable
			// fixes), not this table a second time.
			printer.Section{Only: printer.Table, Rows: &rows, Findings: true})
	}
	out.Sections = append(out.Sections, lintSince(r.Findings)...)
	if len(accepted) > 0 {
		out.Sections = append(out.Sections, printer.Section{Only: printer.Text, Lines: acceptedLines})
	}
	if len(notRun) > 0 {
		out.Sections = append(out.Sections, printer.Section{Only: printer.Text, Lines: notRun})
	}
	if len(assumed) > 0 {
		out.Sections = append(out.Sections, printer.Section{Only: printer.Text, Lines: assumed})
	}
	out.Sections = append(out.Sections,
		printer.Section{Only: printer.Table, Rows: &rules},
		printer.Section{Lines: []string{summary}})
	switch {
	case selected > 0 && len(notRun) == selected:
		out.Exit, out.Why = Failed, "no selected rule could run on this source (see 'not run')"
	case doc.Failing:
		out.Exit, out.Why = Findings, fmt.Sprintf("findings at or above %s", failOn)
	}
	out.Sections = append(out.Sections, lintPageLines(acceptedLines, notRun, assumed)...)
	out.Page = lintPage(r, failOn, summary, open, acceptedLines, notRun, out.Exit)
	return out
}

// lintPage is lint's page: the open findings grouped by family (each fix
// with its copy button), the findings by family and severity (the page's
// own chart), the rules table and, as lines, the accepted findings and
// the rules that could not run.
func lintPage(r *lint.Result, failOn model.Severity, summary string, open []model.Finding, accepted, notRun []string, e Exit) *printer.Page {
	p := &printer.Page{Title: "kmeta lint", Verdict: summary, Status: status(e), Findings: open,
		Facts: [][2]string{{"source", r.Source}, {"fails on", string(failOn) + " and above"}}}
	if len(accepted) > 0 || len(notRun) > 0 {
		p.Facts = append(p.Facts, [2]string{"accepted, not run", fmt.Sprintf("%d accepted by exceptions, %d rules not run (listed under Details)", len(accepted), len(notRun))})
	}
	return p
}

// lintPageLines are the text-only lines the page shows too, under
// Details: the accepted findings, the rules that could not run and what
// rules assumed.
func lintPageLines(accepted, notRun, assumed []string) []printer.Section {
	var out []printer.Section
	for _, ls := range [][]string{accepted, notRun, assumed} {
		if len(ls) > 0 {
			out = append(out, printer.Section{Only: printer.HTML, Lines: ls})
		}
	}
	return out
}

// lintSince, with --history, says from when each finding has held: a
// line (text) or row (table) per finding, in the findings' order.
func lintSince(fs []lint.Finding) []printer.Section {
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "RULE", Key: "rule", Essential: true}, {Header: "ENTITY", Key: "entity", Essential: true},
		{Header: "SINCE OFFSET", Key: "since.offset", Essential: true}, {Header: "SINCE TIME", Key: "since.time"},
		{Header: "RECORD", Key: "since.record", Essential: true},
	}}
	var lines []string
	for _, f := range fs {
		if f.Since == nil {
			continue
		}
		t := ""
		if !f.Since.Time.IsZero() {
			t = f.Since.Time.Format(time.RFC3339Nano)
		}
		if f.Since.Znode != "" {
			// A ZooKeeper data dir's history: the transaction's zxid, as
			// ZooKeeper's own tools print it, and the znode it changed.
			lines = append(lines, printer.Clean(fmt.Sprintf("since zxid 0x%x (%s, %s %s): %s %s", f.Since.Zxid, t, f.Since.Record, f.Since.Znode, f.Code, f.Entity)))
			rows.Rows = append(rows.Rows, []string{f.Code, printer.Clean(f.Entity), fmt.Sprintf("zxid 0x%x", f.Since.Zxid), t, printer.Clean(f.Since.Record + " " + f.Since.Znode)})
			continue
		}
		// The offset is a point (the end of the record's batch, or just
		// before a transaction): the record, where it is elsewhere in
		// the batch, is named with its own offset.
		rec := f.Since.Record
		if f.Since.RecordOffset != f.Since.Offset {
			rec += fmt.Sprintf(" at offset %d", f.Since.RecordOffset)
		}
		lines = append(lines, printer.Clean(fmt.Sprintf("since offset %d (%s, %s): %s %s", f.Since.Offset, t, rec, f.Code, f.Entity)))
		rows.Rows = append(rows.Rows, []string{f.Code, printer.Clean(f.Entity), fmt.Sprint(f.Since.Offset), t, rec})
	}
	if len(lines) == 0 {
		return nil
	}
	return []printer.Section{{Only: printer.Text, Lines: lines}, {Only: printer.Table, Rows: &rows}}
}
