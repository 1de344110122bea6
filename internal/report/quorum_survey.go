package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/quorum"
)

// QuorumSurvey is the report of quorum survey: one row per copy (its node,
// role, log end and last epoch, the high-watermark evidence it holds, its
// integrity and the voters it believes in), then the verdict lines (the
// best copy by Raft's vote rule, agreement, what a rebuild gives up,
// whether it can be clean), then the findings. The JSON is the survey
// result. Exit 1 when a rebuild would not be clean or on a finding at
// warning or above.
func QuorumSurvey(r *quorum.SurveyResult) Report {
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "Copy", Key: "copy", Essential: true}, {Header: "Dir", Key: "dir", Wrap: true, Essential: true},
		{Header: "NodeId", Key: "nodeId", Essential: true}, {Header: "DirectoryId", Key: "directoryId"},
		{Header: "Role", Key: "role"}, {Header: "LogStart", Key: "logStart"},
		{Header: "EndOffset", Key: "endOffset", Essential: true}, {Header: "LastEpoch", Key: "lastEpoch", Essential: true},
		{Header: "Committed", Key: "committed"}, {Header: "QuorumState", Key: "quorumState"},
		{Header: "LeaderChanges", Key: "leaderChanges"}, {Header: "Voters", Key: "voters", Wrap: true},
		{Header: "Integrity", Key: "integrity", Essential: true},
	}}
	for i, c := range r.Copies {
		mark := strconv.Itoa(i)
		if i == r.Best {
			mark += "*"
		}
		dirID := "-"
		if c.DirectoryID != nil {
			dirID = c.DirectoryID.String()
		}
		// Committed: offsets below a snapshot's end were committed.
		committed := "-"
		if c.CommittedEnd > 0 {
			committed = "<" + strconv.FormatInt(c.CommittedEnd, 10)
		}
		qs := "-"
		if s := c.QuorumState; s != nil {
			qs = fmt.Sprintf("leader %d epoch %d", s.LeaderID, s.LeaderEpoch)
		}
		lcs := "0"
		if n := len(c.LeaderChanges); n > 0 {
			last := c.LeaderChanges[n-1]
			lcs = fmt.Sprintf("%d, last: leader %d epoch %d at %d", n, last.LeaderID, last.Epoch, last.Offset)
		}
		voters := "-"
		if len(c.Voters) > 0 {
			ids := make([]string, len(c.Voters))
			for k, v := range c.Voters {
				ids[k] = strconv.Itoa(int(v.ID))
				if !v.DirectoryID.IsZero() {
					ids[k] += ":" + v.DirectoryID.String()
				}
			}
			voters = strings.Join(ids, ",")
		}
		integrity := string(c.Integrity)
		if w := c.Problem; w != nil && w.Where != nil {
			integrity += " at " + w.Where.File
			if w.Where.Position >= 0 { // -1: the file as a whole (a FIFO, a garbage meta.properties)
				integrity += fmt.Sprintf(" position %d", w.Where.Position)
			}
		}
		logStart := "-"
		if c.LogStartOffset >= 0 {
			logStart = strconv.FormatInt(c.LogStartOffset, 10)
		}
		rows.Rows = append(rows.Rows, []string{mark, printer.Clean(c.Dir), strconv.Itoa(int(c.NodeID)), dirID, string(c.Role),
			logStart, strconv.FormatInt(c.EndOffset, 10), strconv.Itoa(int(c.LastEpoch)), committed, qs, lcs, voters, printer.Clean(integrity)})
	}
	best := r.Copies[r.Best]
	agree := "yes: the copies hold the same batches at every offset they share"
	if !r.Agree {
		agree = fmt.Sprintf("no: %d pair(s) of copies diverge (see the findings)", len(r.Divergences))
	}
	givenUp := "nothing: the best copy holds every offset another copy holds"
	if len(r.GivenUp) > 0 {
		parts := make([]string, len(r.GivenUp))
		for k, g := range r.GivenUp {
			parts[k] = fmt.Sprintf("%d-%d of copy %d", g.From, g.To-1, g.Copy)
			if g.Diverged {
				parts[k] += " (diverged)"
			}
		}
		givenUp = "offsets " + strings.Join(parts, ", ")
	}
	clean := "yes"
	if !r.CleanRebuild {
		clean = "no: " + strings.Join(r.NotClean, "; ")
	}
	kv := [][2]string{
		{"BestCopy", fmt.Sprintf("%d %s (node %d, %s), end offset %d, last epoch %d", r.Best, best.Dir, best.NodeID, best.Role, best.EndOffset, best.LastEpoch)},
		{"ChosenBy", r.BestRule},
		{"Agree", agree},
		{"RebuildGivesUp", givenUp},
		{"CleanRebuild", clean},
	}
	lines := make([]string, 0, len(kv))
	status := printer.Rows{Columns: []printer.Column{{Header: "FIELD", Key: "field"}, {Header: "VALUE", Key: "value", Wrap: true, Essential: true}}}
	for _, p := range kv {
		v := printer.Clean(p[1])
		lines = append(lines, fmt.Sprintf("%-16s%s", p[0]+":", v))
		status.Rows = append(status.Rows, []string{p[0], v})
	}
	findings := printer.FindingsRows(r.Findings)
	out := Report{Document: printer.Document{JSON: r, Sections: []printer.Section{
		{Rows: &rows},
		{Only: printer.Text, Lines: lines},
		{Only: printer.Table, Rows: &status},
	}}}
	if len(r.Findings) > 0 {
		out.Sections = append(out.Sections,
			printer.Section{Only: printer.Text, Lines: printer.FindingsLines(r.Findings)},
			printer.Section{Only: printer.Table, Rows: &findings})
	}
	if r.Failing() {
		out.Exit = Findings
	}
	return out
}
