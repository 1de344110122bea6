package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/roll"
)

// rollRoles is a node's roles as a word ("controller", "broker+controller").
func rollRoles(rs []roll.Role) string { return rolesText(rs) }

func rolesText(rs []roll.Role) string {
	if len(rs) == 0 {
		return "node"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = string(r)
	}
	return strings.Join(parts, "+")
}

// RollCheck is the report of roll check: the answer, the blocked
// partitions counted by topic and rule, then the findings. Exit 0 safe,
// 1 not safe, 2 could not tell.
func RollCheck(v roll.Verdict) Report {
	who := fmt.Sprintf("%s %d", rolesText(v.Roles), v.Node)
	var head string
	switch v.Answer {
	case roll.Safe:
		head = fmt.Sprintf("%s: safe to stop now", who)
	case roll.Unsafe:
		head = fmt.Sprintf("%s: NOT safe to stop now", who)
	default:
		head = fmt.Sprintf("%s: could not tell whether it is safe to stop now", who)
	}
	lines := []string{head + " (" + printer.Clean(v.Source) + ")"}
	if len(v.Roles) > 0 && v.Roles[0] == roll.RoleBroker {
		lines = append(lines, fmt.Sprintf("  hosts %d partitions, leads %d; %d partitions of the cluster under-replicated now", v.Hosted, v.Leads, v.UnderReplicated))
	}
	if n := len(v.Blocking); n > 0 {
		parts := 0
		for _, b := range v.Blocking {
			if b.Partition != nil {
				parts++
			}
		}
		if parts > 0 {
			lines = append(lines, fmt.Sprintf("  blocking: %d partitions", parts))
		}
		for _, b := range v.Blocking {
			if b.Partition == nil {
				lines = append(lines, "  blocking: "+printer.Clean(b.Reason))
			}
		}
	}
	if n := len(v.Undecided); n > 0 {
		lines = append(lines, fmt.Sprintf("  undecided: %d partitions (a fact the source does not report)", n))
	}
	// The missing facts and the topics are the findings' to say (one per
	// fact, one per topic and rule), and the table's.
	rows := printer.Rows{Columns: []printer.Column{{Header: "TOPIC", Key: "topic", Essential: true, Wrap: true},
		{Header: "RULE", Key: "rule", Essential: true}, {Header: "PARTITIONS", Key: "count", Essential: true}}}
	for _, tc := range v.Topics {
		rows.Rows = append(rows.Rows, []string{printer.Clean(tc.Topic), tc.Rule, strconv.Itoa(tc.Count)})
	}
	sections := []printer.Section{{Only: printer.Text, Lines: lines}, {Only: printer.Table, Lines: lines[:1]}}
	if len(rows.Rows) > 0 {
		sections = append(sections, printer.Section{Only: printer.Table, Rows: &rows})
	}
	if len(v.Findings) > 0 {
		f := printer.FindingsRows(v.Findings)
		sections = append(sections,
			printer.Section{Only: printer.Text, Lines: printer.FindingsLines(v.Findings), Findings: true},
			printer.Section{Only: printer.Table, Rows: &f, Findings: true})
	}
	out := Report{Document: printer.Document{JSON: v, Sections: sections}}
	switch v.Answer {
	case roll.Unsafe:
		out.Exit = Findings
	case roll.Unknown:
		out.Exit, out.Why = Failed, fmt.Sprintf("%s: could not tell (the source does not report what the verdict needs: see above)", who)
	}
	return out
}

// RollWaitDoc is roll wait's JSON: the last read's progress, how long it
// waited, and whether it timed out.
type RollWaitDoc struct {
	roll.Progress
	Source   string  `json:"source"`
	Seconds  float64 `json:"seconds"`
	TimedOut bool    `json:"timedOut"`
	// ReadError is the last read's error when the source could not be
	// read at the end ("" otherwise).
	ReadError string `json:"readError,omitempty"`
}

// RollWait is the report of roll wait: back (exit 0), or what is still
// waited for at the timeout (exit 1), or could not tell (exit 2).
func RollWait(d RollWaitDoc) Report {
	who := fmt.Sprintf("%s %d", rolesText(d.Roles), d.Node)
	took := time.Duration(d.Seconds * float64(time.Second)).Round(100 * time.Millisecond)
	var lines []string
	switch {
	case d.Back:
		lines = append(lines, fmt.Sprintf("%s is back after %s (%s)", who, took, printer.Clean(d.Source)))
	case d.Unknown:
		lines = append(lines, fmt.Sprintf("%s: could not tell whether it is back (%s)", who, printer.Clean(d.Source)))
	default:
		lines = append(lines, fmt.Sprintf("%s is not back after %s (%s)", who, took, printer.Clean(d.Source)))
	}
	for _, w := range d.Waiting {
		lines = append(lines, "  waiting for "+printer.Clean(w))
	}
	if d.ReadError != "" {
		lines = append(lines, "  last read failed: "+printer.Clean(d.ReadError))
	}
	for _, m := range d.Missing {
		l := "  missing: " + printer.Clean(m.Fact)
		if m.How != "" {
			l += " — " + printer.Clean(m.How)
		}
		lines = append(lines, l)
	}
	if len(d.NotWaited) > 0 {
		lines = append(lines, fmt.Sprintf("  not waited for: %d partitions without a live leader (%s)", len(d.NotWaited), printer.Clean(strings.Join(d.NotWaited, ", "))))
	}
	out := Report{Document: printer.Document{JSON: d, Sections: []printer.Section{{Lines: lines}}}}
	switch {
	case d.Back:
	case d.Unknown:
		out.Exit, out.Why = Failed, who+": could not tell whether it is back (the source does not report what that needs: see above)"
	default:
		out.Exit, out.Why = Findings, fmt.Sprintf("%s is not back after %s", who, took)
	}
	return out
}

// RollPlanStep is one step of roll plan's JSON.
type RollPlanStep struct {
	roll.Step
	roll.Gates
}

// RollPlanDoc is roll plan's JSON.
type RollPlanDoc struct {
	Source string         `json:"source"`
	Steps  []RollPlanStep `json:"steps"`
}

// RollPlan is the report of roll plan: the order, each step between its
// check and its wait.
func RollPlan(d RollPlanDoc) Report {
	ids := make([]string, len(d.Steps))
	for i, s := range d.Steps {
		ids[i] = strconv.Itoa(int(s.Node))
	}
	lines := []string{fmt.Sprintf("Restart one node at a time, in this order: %s (%s)", strings.Join(ids, ", "), printer.Clean(d.Source))}
	rows := printer.Rows{Columns: []printer.Column{{Header: "STEP", Key: "step", Essential: true}, {Header: "NODE", Key: "node", Essential: true},
		{Header: "ROLES", Key: "roles"}, {Header: "WHY", Key: "why", Wrap: true},
		{Header: "CHECK", Key: "check", Wrap: true, Essential: true}, {Header: "WAIT", Key: "wait", Wrap: true, Essential: true}}}
	for i, s := range d.Steps {
		who := fmt.Sprintf("%s %d", rolesText(s.Roles), s.Node)
		lines = append(lines, "",
			fmt.Sprintf("%d. %s (%s)", i+1, who, printer.Clean(s.Why)),
			"   "+printer.Clean(s.Check)+"    # go on only when it exits 0",
			fmt.Sprintf("   stop %s, make the change, start it", who),
			"   "+printer.Clean(s.Wait)+"    # go on only when it exits 0")
		rows.Rows = append(rows.Rows, []string{strconv.Itoa(i + 1), strconv.Itoa(int(s.Node)), rolesText(s.Roles), s.Why, s.Check, s.Wait})
	}
	return Report{Document: printer.Document{JSON: d, Sections: []printer.Section{
		{Only: printer.Text, Lines: lines}, {Only: printer.Table, Lines: lines[:1]}, {Only: printer.Table, Rows: &rows}}}}
}
