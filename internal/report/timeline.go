package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/metalog"
)

// timelineLabels is about the most bin labels a timeline picture's axis
// shows: every k-th bin is labelled, so that labels do not overlap.
const timelineLabels = 10

// OtherType is the series of the record types a timeline picture does not
// draw on their own.
const OtherType = "other"

// RecordTimeline is what the html report of a KRaft log shows of the
// records its replay applied (metalog.Timeline): two pictures of the
// records after the snapshot replay started from, by type, stacked, over
// offsets and over batch time; and a table of every type's count in the
// snapshot and after it. The snapshot is in the table, not the pictures:
// its records all sit at one offset and one time, and its one bar would
// flatten every other. Nothing when replay applied no record.
func RecordTimeline(tl *metalog.Timeline) ([]printer.Chart, []printer.Section) {
	types := tl.Types()
	if len(types) == 0 {
		return nil, nil
	}
	var snapTotal, logTotal int64
	rows := printer.Rows{Columns: []printer.Column{{Header: "RECORD TYPE", Key: "type"}, {Header: "IN SNAPSHOT", Key: "snapshot"},
		{Header: "AFTER IT", Key: "log"}, {Header: "TOTAL", Key: "total"}}}
	var inLog []metalog.TimelineType
	for _, ty := range types {
		snapTotal += ty.Snapshot
		logTotal += ty.Log
		rows.Rows = append(rows.Rows, []string{ty.Name, strconv.FormatInt(ty.Snapshot, 10), strconv.FormatInt(ty.Log, 10),
			strconv.FormatInt(ty.Snapshot+ty.Log, 10)})
		if ty.Log > 0 {
			inLog = append(inLog, ty)
		}
	}
	// The series: the types with the most records after the snapshot,
	// one per colour (more stacked colours are not told apart): those of
	// printer.SeriesColors, then OtherColor for an eighth type or for
	// "other", the rest as one (the table lists every type).
	slices.SortStableFunc(inLog, func(a, b metalog.TimelineType) int { return cmp.Compare(b.Log, a.Log) })
	colors := append(slices.Clone(printer.SeriesColors), printer.OtherColor)
	var series []string
	drawn := map[string]int{}
	for i, ty := range inLog {
		if i == len(colors)-1 && len(inLog) > len(colors) {
			series = append(series, OtherType)
			break
		}
		drawn[ty.Name] = len(series)
		series = append(series, ty.Name)
	}
	seriesOf := func(name string) int {
		if i, ok := drawn[name]; ok {
			return i
		}
		return len(series) - 1
	}
	chart := func(id, title, xlabel string, h metalog.Histogram, label func(start int64) string) printer.Chart {
		ch := printer.Chart{ID: id, Title: title, XLabel: xlabel, YLabel: "records", Stacked: true}
		n := h.Bins()
		every := (n + timelineLabels - 1) / timelineLabels
		for i := range n {
			l := ""
			if i%every == 0 {
				l = label(h.Start + int64(i)*h.Width)
			}
			ch.Labels = append(ch.Labels, l)
		}
		for i, name := range series {
			ch.Series = append(ch.Series, printer.Series{Name: name, Values: make([]float64, n), Color: colors[i]})
		}
		for name, counts := range h.Counts {
			v := ch.Series[seriesOf(name)].Values
			for i, c := range counts {
				v[i] += float64(c)
			}
		}
		return ch
	}
	offs, times := tl.Offsets(), tl.Times()
	var charts []printer.Chart
	lines := []string{fmt.Sprintf("records replay applied: %d in the snapshot it started from, %d after it", snapTotal, logTotal)}
	what, after := "Records applied after the snapshot, by type, over ", " after the snapshot"
	if snapTotal == 0 {
		lines[0] = fmt.Sprintf("records replay applied: %d (no snapshot)", logTotal)
		what, after = "Records applied, by type, over ", ""
	}
	if offs.Bins() > 0 {
		charts = append(charts, chart("records-offsets", what+"offsets",
			fmt.Sprintf("offset (bins of %s from %d)", printer.Count(int(offs.Width), "offset"), offs.Start), offs,
			func(v int64) string { return strconv.FormatInt(v, 10) }))
		lines = append(lines, fmt.Sprintf("offsets%s: %d to %d", after, offs.First, offs.Last))
	}
	if times.Bins() > 0 {
		first, last := time.UnixMilli(times.First).UTC(), time.UnixMilli(times.Last).UTC()
		layout := "15:04:05"
		switch {
		case times.Width >= 24*int64(time.Hour/time.Millisecond):
			layout = "2006-01-02"
		case last.Sub(first) >= 24*time.Hour:
			layout = "01-02 15:04"
		case times.Width >= int64(time.Minute/time.Millisecond):
			layout = "15:04"
		}
		charts = append(charts, chart("records-time", what+"batch time",
			fmt.Sprintf("batch time, UTC, from %s (bins of %s)", first.Format("2006-01-02"), period(times.Width)), times,
			func(v int64) string { return time.UnixMilli(v).UTC().Format(layout) }))
		lines = append(lines, fmt.Sprintf("batch times%s: %s to %s", after, first.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano)))
	}
	return charts, []printer.Section{{Lines: lines, Only: printer.HTML}, {Rows: &rows, Only: printer.HTML}}
}

// period names a bin width of metalog's time ladder (whole seconds,
// minutes, hours or days), in ms, as people say it: "10 s", "2 min".
func period(ms int64) string {
	for _, u := range []struct {
		ms   int64
		name string
	}{{24 * 3600 * 1000, "d"}, {3600 * 1000, "h"}, {60 * 1000, "min"}, {1000, "s"}} {
		if ms%u.ms == 0 {
			return fmt.Sprintf("%d %s", ms/u.ms, u.name)
		}
	}
	return fmt.Sprintf("%d ms", ms)
}
