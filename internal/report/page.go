package report

import (
	"fmt"

	"github.com/kmeta/kmeta/internal/printer"
)

// The html report's page of each command is built here beside its
// document, from the same (already redacted) values its JSON and sections
// hold, so the page shows what the other formats show.

// status is the page's verdict class for an exit class.
func status(e Exit) printer.Status {
	switch e {
	case Findings:
		return printer.StatusFindings
	case Failed:
		return printer.StatusFailed
	}
	return printer.StatusOK
}

// sideFacts names one view of a comparison: its source and which state of
// it was read.
func sideFacts(label string, s ComparedSide) [2]string {
	v := fmt.Sprintf("%s (%s)", s.Source, s.Kind)
	// A ZooKeeper view has a zxid and no offset (-1): only the zxid.
	if s.Zxid == 0 || s.Offset >= 0 {
		v += fmt.Sprintf(", offset %d", s.Offset)
	}
	if s.Zxid != 0 {
		v += fmt.Sprintf(", zxid %#x", s.Zxid)
	}
	if len(s.Partial) > 0 {
		v += fmt.Sprintf(", PARTIAL (%d reasons)", len(s.Partial))
	}
	return [2]string{label, v}
}

// comparisonChart counts the compared entities per class on each side,
// beside the class's differences in the alert colour.
func comparisonChart(doc ComparisonDoc, diffs map[string]int, left, right string) printer.Chart {
	ch := printer.Chart{ID: "compared", Title: "Compared entities per class, differences highlighted", XLabel: "class", YLabel: "entities",
		Series: []printer.Series{{Name: left}, {Name: right}, {Name: "differences", Alert: true}}}
	for _, n := range doc.Compared {
		ch.Labels = append(ch.Labels, n.Class)
		ch.Series[0].Values = append(ch.Series[0].Values, float64(n.Left))
		ch.Series[1].Values = append(ch.Series[1].Values, float64(n.Right))
		ch.Series[2].Values = append(ch.Series[2].Values, float64(diffs[n.Class]))
	}
	return ch
}
