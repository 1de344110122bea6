package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta/kmeta/history"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
)

// The history's changes stream out one by one (text lines, JSON lines);
// table and html collect them. HistoryLine and HistoryRows are the text
// and table forms of one change, HistoryReport the html page.

// historyTime is a change's time in text and tables: RFC 3339 with
// milliseconds (batch and transaction times have no more), UTC.
const historyTime = "2006-01-02T15:04:05.000Z07:00"

// HistoryWhere is where a change is: "offset 1234", "offset 1234 (point
// before: 1231)" or "zxid 0x2000001f".
func HistoryWhere(c *history.Change) string {
	if c.World == model.WorldZooKeeper {
		return fmt.Sprintf("zxid %#x", c.Zxid)
	}
	return string(appendOffset(nil, c))
}

// appendOffset appends "offset N", and the point before the change where
// it is not N-1 (history's doc.go): the offset an operator gives image,
// diff or restore for the state before it, which N-1 is not when N shares
// a batch with records before it or belongs to a transaction.
func appendOffset(b []byte, c *history.Change) []byte {
	b = strconv.AppendInt(append(b, "offset "...), c.Offset, 10)
	if c.Before != c.Offset-1 {
		b = strconv.AppendInt(append(b, " (point before: "...), c.Before, 10)
		b = append(b, ')')
	}
	return b
}

func historyWhen(c *history.Change) string {
	if c.Time.IsZero() {
		return "(no time)"
	}
	return c.Time.UTC().Format(historyTime)
}

func historyRecord(c *history.Change) string {
	if c.Znode != "" {
		return c.Record + " " + printer.Clean(c.Znode)
	}
	return c.Record
}

// HistoryLine is one change as a line of text:
//
//	2026-01-02T15:04:05.123Z offset 1234 ConfigRecord: config TOPIC orders changed: retention.ms 604800000 → 86400000
//
// A created entity lists its fields (name=value), a deleted one its
// fields as they were; a changed one each field before → after, (unset)
// for a field without a value on one side. Cluster strings are cleaned.
func HistoryLine(c *history.Change) string {
	var t HistoryText
	return string(t.Append(nil, c))
}

// HistoryText is HistoryLine for a stream of changes: the changes of one
// batch share a time, which it formats once.
type HistoryText struct {
	last     time.Time
	lastText string
}

// Append appends c's line, without a newline.
func (t *HistoryText) Append(b []byte, c *history.Change) []byte {
	if c.Time.IsZero() {
		b = append(b, "(no time)"...)
	} else {
		if t.lastText == "" || !c.Time.Equal(t.last) {
			t.last, t.lastText = c.Time, historyWhen(c)
		}
		b = append(b, t.lastText...)
	}
	b = append(b, ' ')
	if c.World == model.WorldZooKeeper {
		b = fmt.Appendf(b, "zxid %#x", c.Zxid)
	} else {
		b = appendOffset(b, c)
	}
	b = append(b, ' ')
	b = append(b, c.Record...)
	if c.Znode != "" {
		b = append(b, ' ')
		b = append(b, printer.Clean(c.Znode)...)
	}
	b = append(b, ": "...)
	b = append(b, printer.Clean(c.Entity)...)
	b = append(b, ' ')
	b = append(b, c.Action...)
	b = append(b, ": "...)
	for i, f := range c.Fields {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, printer.Clean(f.Name)...)
		switch c.Action {
		case history.ActionCreated:
			b = append(append(b, '='), printer.Clean(f.After)...)
		case history.ActionDeleted:
			b = append(append(b, '='), printer.Clean(f.Before)...)
		default:
			b = append(b, ' ')
			b = append(b, unset(f.Before, f.In)...)
			b = append(b, " → "...)
			b = append(b, unset(f.After, f.Out)...)
		}
	}
	return b
}

func unset(v string, ok bool) string {
	if !ok {
		return "(unset)"
	}
	if v == "" {
		return `""`
	}
	return printer.Clean(v)
}

// HistoryColumns are the columns of the history's table: one row per
// field of a change.
var HistoryColumns = []printer.Column{
	{Header: "TIME", Key: "time"}, {Header: "WHERE", Key: "where", Essential: true}, {Header: "RECORD", Key: "record"},
	{Header: "ENTITY", Key: "entity", Essential: true, Wrap: true}, {Header: "ACTION", Key: "action", Essential: true},
	{Header: "FIELD", Key: "field", Essential: true}, {Header: "BEFORE", Key: "before", Wrap: true, Essential: true},
	{Header: "AFTER", Key: "after", Wrap: true, Essential: true},
}

// HistoryRows appends c's rows to rows.
func HistoryRows(rows [][]string, c *history.Change) [][]string {
	for _, f := range c.Fields {
		before, after := "", ""
		if f.In {
			before = f.Before
		}
		if f.Out {
			after = f.After
		}
		rows = append(rows, []string{historyWhen(c), HistoryWhere(c), historyRecord(c), c.Entity, c.Action, f.Name, before, after})
	}
	return rows
}

// HistorySummary is what a history run says of itself, beside its
// changes.
type HistorySummary struct {
	Source string
	World  model.World
	// Start is where the replay started: the snapshot's offset or zxid
	// (HasStart), whose state is the starting point, not changes.
	Start    int64
	HasStart bool
	// Seen are the changes in the window, Reported those the filters
	// kept; First and Last the points of the first and last reported.
	Seen, Reported int64
	First, Last    history.Point
	Kinds          map[model.EntityKind]int64
	// Filters describe the selection, as given.
	Filters []string
	// Partial: the replay rests on damaged or partial input.
	Partial bool
	// Folded: the state the replay starts from (a snapshot, a data dir's
	// snapshot tree) holds changes it does not show; AfterStart is the
	// time of the first step after it (zero when none).
	Folded     bool
	AfterStart time.Time
	// Since is the window's start, as given (--since).
	Since history.Bound
}

// Uncovered says why the window asked for (Since) begins before the
// first change the source shows, "" when it does not: the changes up to
// the starting snapshot are folded into its state, so a history that
// lists none of them is not "no change" there.
func (s HistorySummary) Uncovered() string {
	if !s.Folded || s.Since.IsZero() {
		return ""
	}
	since, where := fmt.Sprintf("offset %d", s.Since.Position), fmt.Sprintf("offset %d", s.Start)
	more := "an older copy of the log holds them"
	if s.World == model.WorldZooKeeper {
		since, where = fmt.Sprintf("zxid %#x", s.Since.Position), fmt.Sprintf("zxid %#x", s.Start)
		more = "a data dir whose transaction logs go back further holds them"
	}
	switch {
	case s.Since.HasPosition && s.Since.Position <= s.Start:
		return fmt.Sprintf("the window starts at %s, but the history starts from the snapshot at %s: the changes up to it are its state, not listed (%s)", since, where, more)
	case !s.Since.HasPosition && (s.AfterStart.IsZero() || s.Since.Time.Before(s.AfterStart)):
		return fmt.Sprintf("the window starts at %s, but the history starts from the snapshot at %s: the changes up to it, which may be later, are its state, not listed (%s)",
			s.Since.Time.UTC().Format(time.RFC3339), where, more)
	}
	return ""
}

// Lines are the summary as text.
func (s HistorySummary) Lines() []string {
	start := "no snapshot: the log's first record"
	if s.HasStart {
		if s.World == model.WorldZooKeeper {
			start = fmt.Sprintf("the snapshot at zxid %#x (its tree is the starting point)", s.Start)
		} else if s.Start < 0 {
			// 00000000000000000000-0000000000.checkpoint: no log record
			// before it.
			start = "the bootstrap snapshot, before the log's first record (its records are the starting point)"
		} else {
			start = fmt.Sprintf("the snapshot at offset %d (its records are the starting point)", s.Start)
		}
	}
	lines := []string{fmt.Sprintf("%s: %s, replayed from %s", printer.Clean(s.Source), printer.Count(int(s.Reported), "change"), start)}
	if s.Reported > 0 {
		p := func(pt history.Point) string {
			c := history.Change{Point: pt}
			return HistoryWhere(&c) + " (" + historyWhen(&c) + ")"
		}
		lines = append(lines, fmt.Sprintf("from %s to %s", p(s.First), p(s.Last)))
		var kinds []string
		for _, k := range model.EntityKinds() {
			if n := s.Kinds[k]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
			}
		}
		lines = append(lines, "by kind: "+strings.Join(kinds, ", "))
	}
	if len(s.Filters) > 0 {
		lines = append(lines, fmt.Sprintf("selected by %s: %d of %d changes", strings.Join(s.Filters, " "), s.Reported, s.Seen))
	}
	if u := s.Uncovered(); u != "" {
		lines = append(lines, "not covered: "+u)
	}
	return lines
}

// HistoryTimeline counts changes by kind over time, in at most
// TimelineBins bins whose width grows as the times spread (the widths of
// metalog's timeline: each a multiple of the one before, so that
// widening merges bins exactly): the html picture of a history, whose
// size does not grow with the log.
type HistoryTimeline struct {
	step   int
	base   int64
	lo, hi int64
	n      int64
	counts map[model.EntityKind]*[timelineBins]int64
}

const timelineBins = 50

// historyWidths are the bin widths, in ms.
var historyWidths = func() []int64 {
	const s, m, h, d = 1000, 60 * 1000, 3600 * 1000, 24 * 3600 * 1000
	w := []int64{s, 2 * s, 10 * s, 20 * s, m, 2 * m, 10 * m, 20 * m, h, 2 * h, 6 * h, 12 * h}
	for p := int64(d); p < 1<<62; p *= 2 {
		w = append(w, p)
	}
	return w
}()

// NewHistoryTimeline starts an empty timeline.
func NewHistoryTimeline() *HistoryTimeline {
	return &HistoryTimeline{counts: map[model.EntityKind]*[timelineBins]int64{}}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Add counts one change of kind k at t (a change without a time is not
// drawn).
func (tl *HistoryTimeline) Add(k model.EntityKind, t time.Time) {
	if t.IsZero() {
		return
	}
	v := t.UnixMilli()
	if tl.counts[k] == nil {
		tl.counts[k] = &[timelineBins]int64{}
	}
	if tl.n == 0 {
		tl.lo, tl.hi, tl.base = v, v, floorDiv(v, historyWidths[0])
	}
	tl.n++
	if v < tl.lo || v > tl.hi {
		tl.lo, tl.hi = min(tl.lo, v), max(tl.hi, v)
		step := tl.step
		for step+1 < len(historyWidths) && floorDiv(tl.hi, historyWidths[step])-floorDiv(tl.lo, historyWidths[step]) >= timelineBins {
			step++
		}
		ow, nw := historyWidths[tl.step], historyWidths[step]
		nbase := floorDiv(tl.lo, nw)
		if step != tl.step || nbase != tl.base {
			for _, c := range tl.counts {
				old := *c
				*c = [timelineBins]int64{}
				for j, x := range old {
					if x != 0 {
						c[floorDiv((tl.base+int64(j))*ow, nw)-nbase] += x
					}
				}
			}
			tl.step, tl.base = step, nbase
		}
	}
	tl.counts[k][floorDiv(v, historyWidths[tl.step])-tl.base]++
}

// Bins is the number of bins the picture draws (0: no change had a
// time).
func (tl *HistoryTimeline) Bins() int {
	if tl == nil || tl.n == 0 {
		return 0
	}
	w := historyWidths[tl.step]
	return int(floorDiv(tl.hi, w) - tl.base + 1)
}

// chart is the timeline's picture: changes by kind, stacked, over time.
func (tl *HistoryTimeline) chart() (printer.Chart, bool) {
	if tl == nil || tl.n == 0 {
		return printer.Chart{}, false
	}
	w := historyWidths[tl.step]
	n := int(floorDiv(tl.hi, w) - tl.base + 1)
	first, last := time.UnixMilli(tl.lo).UTC(), time.UnixMilli(tl.hi).UTC()
	layout := "15:04:05"
	switch {
	case w >= 24*int64(time.Hour/time.Millisecond):
		layout = "2006-01-02"
	case last.Sub(first) >= 24*time.Hour:
		layout = "01-02 15:04"
	case w >= int64(time.Minute/time.Millisecond):
		layout = "15:04"
	}
	ch := printer.Chart{ID: "history-time", Title: "Changes by kind over time", Stacked: true, YLabel: "changes",
		XLabel: fmt.Sprintf("time, UTC, from %s (bins of %s)", first.Format("2006-01-02"), period(w))}
	every := (n + timelineLabels - 1) / timelineLabels
	for i := range n {
		l := ""
		if i%every == 0 {
			l = time.UnixMilli((tl.base + int64(i)) * w).UTC().Format(layout)
		}
		ch.Labels = append(ch.Labels, l)
	}
	// One series per kind, the most changes first, seven colours then
	// the rest as one.
	type kc struct {
		k model.EntityKind
		n int64
	}
	var kinds []kc
	for k, c := range tl.counts {
		var s int64
		for _, x := range c[:n] {
			s += x
		}
		kinds = append(kinds, kc{k, s})
	}
	slices.SortFunc(kinds, func(a, b kc) int {
		if a.n != b.n {
			return int(b.n - a.n)
		}
		return int(a.k) - int(b.k)
	})
	for i, x := range kinds {
		c := tl.counts[x.k]
		if i >= len(printer.SeriesColors) {
			last := &ch.Series[len(ch.Series)-1]
			if last.Name != OtherType {
				ch.Series = append(ch.Series, printer.Series{Name: OtherType, Values: make([]float64, n), Color: printer.OtherColor})
				last = &ch.Series[len(ch.Series)-1]
			}
			for j := range n {
				last.Values[j] += float64(c[j])
			}
			continue
		}
		s := printer.Series{Name: x.k.String(), Values: make([]float64, n), Color: printer.SeriesColors[i]}
		for j := range n {
			s.Values[j] = float64(c[j])
		}
		ch.Series = append(ch.Series, s)
	}
	return ch, true
}

// HistoryListed is how many changes the html page lists (the picture
// counts them all).
const HistoryListed = 2000

// HistoryReport is the html page of a history: the summary, the
// timeline picture, the changes by kind, and the first HistoryListed
// changes (changes holds at most those). Exit 1 when the replay rests on
// partial input.
func HistoryReport(s HistorySummary, changes []history.Change, tl *HistoryTimeline) Report {
	lines := s.Lines()
	rows := printer.Rows{Columns: HistoryColumns}
	for i := range changes {
		rows.Rows = HistoryRows(rows.Rows, &changes[i])
	}
	if s.Reported > int64(len(changes)) {
		lines = append(lines, fmt.Sprintf("the table lists the first %d changes of %d: kmeta history -o json lists them all", len(changes), s.Reported))
	}
	page := &printer.Page{Title: "kmeta history", Status: printer.StatusOK,
		Verdict: fmt.Sprintf("%s in %s", printer.Count(int(s.Reported), "change"), printer.Clean(s.Source)),
		Facts:   [][2]string{{"source", printer.Clean(s.Source)}, {"world", s.World.String()}}}
	for _, f := range s.Filters {
		page.Facts = append(page.Facts, [2]string{"filter", printer.Clean(f)})
	}
	if ch, ok := tl.chart(); ok {
		page.Charts = append(page.Charts, ch)
	}
	if len(s.Kinds) > 0 {
		ch := printer.Chart{ID: "history-kinds", Title: "Changes by kind", XLabel: "kind", YLabel: "changes", Series: []printer.Series{{Name: "changes"}}}
		for _, k := range model.EntityKinds() {
			if n := s.Kinds[k]; n > 0 {
				ch.Labels = append(ch.Labels, k.String())
				ch.Series[0].Values = append(ch.Series[0].Values, float64(n))
			}
		}
		page.Charts = append(page.Charts, ch)
	}
	r := Report{Document: printer.Document{Page: page, Sections: []printer.Section{{Lines: lines}, {Rows: &rows}}}}
	switch u := s.Uncovered(); {
	case s.Partial:
		r.Exit, page.Status = Findings, printer.StatusFindings
		r.Why = s.Source + ": the history rests on damaged or partial input (see the warnings)"
	case u != "":
		r.Exit, page.Status = Findings, printer.StatusFindings
		r.Why = printer.Clean(s.Source) + ": not covered: " + u
	}
	return r
}
