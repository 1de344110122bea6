package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// CheckOK is log check's verdict: no error findings, and with strict no
// torn tail either.
func CheckOK(rep *metalog.Report, strict bool) bool {
	if !rep.OK() {
		return false
	}
	// A record of a type or version kmeta does not know is no damage of
	// the file, but image and log dump skip it: the log is not healthy
	// to read.
	if slices.ContainsFunc(rep.Findings, func(f metalog.Finding) bool { return f.Code == metalog.KindRecordUnknown }) {
		return false
	}
	return !strict || !slices.ContainsFunc(rep.Findings, func(f metalog.Finding) bool { return f.Code == metalog.KindTornTail })
}

// LogCheck is log check's report: the checker's report as JSON; for text
// a summary in lines, for table a summary table; then the findings.
func LogCheck(rep *metalog.Report, strict bool) Report {
	verdict := "HEALTHY"
	switch {
	case !rep.OK():
		verdict = fmt.Sprintf("PROBLEMS (%s)", printer.Count(rep.Errors(), "error"))
	case slices.ContainsFunc(rep.Findings, func(f metalog.Finding) bool { return f.Code == metalog.KindRecordUnknown }):
		verdict = "PROBLEMS (records of a type or version kmeta does not know)"
	case !CheckOK(rep, strict):
		verdict = "PROBLEMS (torn tail, --strict)"
	}
	var segs, snaps int
	var batches, recs int64
	for _, f := range rep.Files {
		switch f.Kind {
		case metalog.KindSegment:
			segs++
		case metalog.KindSnapshot:
			snaps++
		}
		batches += f.Batches
		recs += f.Records
	}
	sum := printer.Rows{Columns: []printer.Column{{Header: "PATH", Key: "path", Wrap: true, Essential: true}, {Header: "VERDICT", Key: "verdict", Essential: true},
		{Header: "SEGMENTS", Key: "segments"}, {Header: "SNAPSHOTS", Key: "snapshots"}, {Header: "FILES", Key: "files"},
		{Header: "BATCHES", Key: "batches"}, {Header: "RECORDS", Key: "records"}, {Header: "LOG START", Key: "logStart"},
		{Header: "LOG END", Key: "logEnd"}, {Header: "LAST GOOD", Key: "lastGood", Essential: true}}}
	sum.Rows = [][]string{{printer.Clean(rep.Path), verdict, strconv.Itoa(segs), strconv.Itoa(snaps), strconv.Itoa(len(rep.Files)),
		strconv.FormatInt(batches, 10), strconv.FormatInt(recs, 10), offsetText(rep.LogStartOffset),
		offsetText(rep.LogEndOffset), offsetText(rep.LastGoodOffset)}}
	offsets := fmt.Sprintf("log offsets: [%d, %d); last known-good offset: %s", rep.LogStartOffset, rep.LogEndOffset, offsetText(rep.LastGoodOffset))
	switch {
	case rep.LogEndOffset < 0:
		// Snapshots alone (or nothing readable): no offset of the log is
		// covered, and -1 is no offset to print.
		offsets = "log offsets: none; last known-good offset: none"
	case rep.LogStartOffset < 0:
		offsets = fmt.Sprintf("log offsets: below %d (a snapshot, no segment); last known-good offset: %s", rep.LogEndOffset, offsetText(rep.LastGoodOffset))
	}
	out := Report{Document: printer.Document{JSON: rep, Sections: []printer.Section{
		{Only: printer.Text, Lines: []string{
			fmt.Sprintf("%s: %s", printer.Clean(rep.Path), verdict),
			fmt.Sprintf("files: %s, %s, %s in all; %s, %s", printer.Count(segs, "segment"), printer.Count(snaps, "snapshot"), printer.Count(len(rep.Files), "file"), printer.Count(int(batches), "batch"), printer.Count(int(recs), "record")),
			offsets,
		}},
		{Only: printer.Table, Rows: &sum},
	}}}
	if len(rep.Findings) > 0 {
		rows := printer.Rows{Columns: []printer.Column{
			{Header: "SEVERITY", Key: "severity", Essential: true}, {Header: "CODE", Key: "code", Essential: true},
			{Header: "FILE", Key: "file", Wrap: true}, {Header: "POSITION", Key: "position"}, {Header: "OFFSET", Key: "offset"},
			{Header: "MESSAGE", Key: "message", Wrap: true, Essential: true},
		}}
		for _, f := range rep.Findings {
			loc := model.NoLocation()
			if f.Where != nil {
				loc = *f.Where
			}
			rows.Rows = append(rows.Rows, []string{string(f.Severity), f.Code, loc.File, strconv.FormatInt(loc.Position, 10), strconv.FormatInt(loc.Offset, 10), printer.Clean(f.Message)})
		}
		out.Sections = append(out.Sections, printer.Section{Rows: &rows})
	}
	if !CheckOK(rep, strict) {
		out.Exit = Findings
	}
	return out
}

// offsetText prints a log offset, or "none" for the -1 that stands for
// no offset in the JSON.
func offsetText(o int64) string {
	if o < 0 {
		return "none"
	}
	return strconv.FormatInt(o, 10)
}

// LogStats is log stats' report: the statistics of what could be read,
// failing (Findings) when the checker found damage on the way or
// unusable files of the source could not be used.
func LogStats(rep *metalog.Report, unusable int) Report {
	st := rep.Stats
	head := []string{
		fmt.Sprintf("log (segments): batches: %d (%d control), records: %d, bytes: %d", st.Batches, st.ControlBatches, st.Records, st.Bytes),
		"offsets: " + offsetRange(st),
	}
	if st.Records > 0 {
		head = append(head, fmt.Sprintf("time: %s .. %s", msTime(st.MinTimestamp), msTime(st.MaxTimestamp)))
	}
	rows := printer.Rows{Columns: []printer.Column{{Header: "TYPE", Key: "type"}, {Header: "KEY", Key: "key"}, {Header: "RECORDS", Key: "records"}, {Header: "BYTES", Key: "bytes"}}}
	for _, k := range st.ByAPIKey {
		rows.Rows = append(rows.Rows, []string{k.Name, strconv.Itoa(int(k.Key)), strconv.FormatInt(k.Records, 10), strconv.FormatInt(k.Bytes, 10)})
	}
	for _, k := range st.ByControlType {
		rows.Rows = append(rows.Rows, []string{k.Name, "control " + strconv.Itoa(int(k.Key)), strconv.FormatInt(k.Records, 10), strconv.FormatInt(k.Bytes, 10)})
	}
	erows := printer.Rows{Columns: []printer.Column{{Header: "EPOCH", Key: "epoch"}, {Header: "BATCHES", Key: "batches"}, {Header: "RECORDS", Key: "records"}, {Header: "FIRST OFFSET", Key: "firstOffset"}, {Header: "LAST OFFSET", Key: "lastOffset"}}}
	for _, e := range st.Epochs {
		erows.Rows = append(erows.Rows, []string{strconv.Itoa(int(e.Epoch)), strconv.FormatInt(e.Batches, 10), strconv.FormatInt(e.Records, 10), strconv.FormatInt(e.FirstOffset, 10), strconv.FormatInt(e.LastOffset, 10)})
	}
	doc := StatsDoc{Stats: st, Snapshots: rep.SnapshotStats, Partial: unusable > 0, UnusableFiles: unusable}
	if doc.Snapshots == nil {
		doc.Snapshots = []metalog.FileStats{}
	}
	sections := []printer.Section{{Lines: head}, {Rows: &rows}, {Rows: &erows}}
	noLog := !slices.ContainsFunc(rep.Files, func(f metalog.FileReport) bool { return f.Kind == metalog.KindSegment })
	if noLog {
		// A snapshot or bootstrap file alone: no log to count, and no
		// empty tables that read as a log with nothing in it. The JSON
		// keeps its stats, all zero, for a stable shape.
		sections = []printer.Section{{Lines: []string{"log (segments): none in this input"}}}
	}
	if len(rep.SnapshotStats) > 0 {
		// Apart and labelled: a snapshot's batches restart at offset 0
		// and carry its epoch (0 in a bootstrap file), so counted with
		// the log's they would make up offsets and epochs it never had.
		srows := printer.Rows{Columns: []printer.Column{{Header: "SNAPSHOT FILE", Key: "path", Wrap: true}, {Header: "KIND", Key: "kind"}, {Header: "END OFFSET", Key: "endOffset"}, {Header: "EPOCH", Key: "epoch"},
			{Header: "BATCHES", Key: "batches"}, {Header: "RECORDS", Key: "records"}, {Header: "BYTES", Key: "bytes"}}}
		for _, f := range rep.SnapshotStats {
			end, epoch := "-", "-"
			if f.Snapshot != nil {
				end, epoch = strconv.FormatInt(f.Snapshot.EndOffset, 10), strconv.Itoa(int(f.Snapshot.Epoch))
			}
			srows.Rows = append(srows.Rows, []string{printer.Clean(f.Path), snapshotKind(f), end, epoch,
				fmt.Sprintf("%d (%d control)", f.Stats.Batches, f.Stats.ControlBatches), strconv.FormatInt(f.Stats.Records, 10), strconv.FormatInt(f.Stats.Bytes, 10)})
		}
		sections = append(sections, printer.Section{Lines: []string{snapshotsHeading(noLog)}}, printer.Section{Rows: &srows})
	}
	out := Report{Document: printer.Document{JSON: &doc, Sections: sections}}
	if dmg := rep.Damage(); dmg != nil {
		doc.Partial, doc.Damage = true, dmg
		out.Exit, out.Why = Findings, fmt.Sprintf("damaged input (log check fails it), statistics cover what could be read: first %s", dmg)
	} else if unusable > 0 {
		out.Exit, out.Why = Findings, fmt.Sprintf("%s could not be used (see the warnings above)", printer.Count(unusable, "file"))
	}
	out.Page = logStatsPage(rep.Path, &doc, out)
	return out
}

// snapshotsHeading heads the snapshot table: apart from the log's counts,
// when there are any.
func snapshotsHeading(noLog bool) string {
	if noLog {
		return "snapshots and bootstrap files:"
	}
	return "snapshots and bootstrap files, not part of the log's counts above:"
}

// logStatsPage is log stats' page: the counts as facts, a picture of the
// records by type, the damage the statistics stop at as its finding; the
// tables follow from the document.
func logStatsPage(path string, doc *StatsDoc, r Report) *printer.Page {
	st := doc.Stats
	verdict := fmt.Sprintf("complete: %s in %s", printer.Count(int(st.Records), "record"), printer.Count(int(st.Batches), "batch"))
	if r.Exit != OK {
		verdict = "PARTIAL: " + r.Why
	}
	facts := [][2]string{{"path", printer.Clean(path)},
		{"log batches (segments)", fmt.Sprintf("%d (%d control), %d bytes", st.Batches, st.ControlBatches, st.Bytes)},
		{"log offsets", offsetRange(st)}}
	if st.Records > 0 {
		facts = append(facts, [2]string{"log time", fmt.Sprintf("%s .. %s", msTime(st.MinTimestamp), msTime(st.MaxTimestamp))})
	}
	for _, f := range doc.Snapshots {
		facts = append(facts, [2]string{snapshotKind(f) + " (not in the log's counts)", fmt.Sprintf("%s: %d batches, %d records, %d bytes",
			printer.Clean(filepath.Base(f.Path)), f.Stats.Batches, f.Stats.Records, f.Stats.Bytes)})
	}
	if doc.UnusableFiles > 0 {
		facts = append(facts, [2]string{"unusable files", strconv.Itoa(doc.UnusableFiles)})
	}
	p := &printer.Page{Title: "kmeta log stats", Verdict: verdict, Status: status(r.Exit), Facts: facts}
	if doc.Damage != nil {
		p.Findings = []model.Finding{*doc.Damage}
	}
	// One bar per type, data records then control records, as the table
	// lists them; "_RECORD", which every data type's name ends with, is
	// left off so that the turned labels stay short.
	ch := printer.Chart{ID: "records", Title: "Log records by type (segments; data, then control)", XLabel: "record type", YLabel: "records",
		Series: []printer.Series{{Name: "records"}}}
	for _, k := range slices.Concat(st.ByAPIKey, st.ByControlType) {
		ch.Labels = append(ch.Labels, strings.TrimSuffix(k.Name, "_RECORD"))
		ch.Series[0].Values = append(ch.Series[0].Values, float64(k.Records))
	}
	if len(ch.Labels) > 0 {
		p.Charts = []printer.Chart{ch}
	}
	return p
}

// StatsDoc is log stats' JSON: the statistics, and whether they rest on
// damaged or partial input, so that a pipeline reading only stdout sees it
// as well as the exit code says it.
type StatsDoc struct {
	// Stats are the log's: its segments only.
	*metalog.Stats
	// Snapshots are each snapshot's and bootstrap file's, apart.
	Snapshots []metalog.FileStats `json:"snapshots"`
	// Partial: the statistics cover only what could be read.
	Partial bool `json:"partial"`
	// Damage is the first damage the checker found (what log check fails).
	Damage *metalog.Finding `json:"damage"`
	// UnusableFiles counts files of the source that could not be used.
	UnusableFiles int `json:"unusableFiles"`
}

// offsetRange is the log's first and last offset, "none" without a batch.
func offsetRange(st *metalog.Stats) string {
	if st.Batches == 0 {
		return "none"
	}
	return fmt.Sprintf("%d..%d", st.FirstOffset, st.LastOffset)
}

// snapshotKind labels a snapshot file of log stats: the bootstrap
// snapshot (end offset 0, what kafka-storage format writes), a snapshot,
// or bootstrap.checkpoint.
func snapshotKind(f metalog.FileStats) string {
	switch {
	case f.Kind == metalog.KindBootstrap:
		return "bootstrap.checkpoint"
	case f.Snapshot != nil && f.Snapshot.EndOffset == 0:
		return "bootstrap snapshot"
	}
	return "snapshot"
}

func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }

// LogDump is log dump's verdict; its output is streamed as it is read,
// so the report holds no document. The verdict is log check's (the same
// checker saw every batch), plus records the dumper could not decode and
// files of the sources that could not be used.
func LogDump(d *metalog.Dumper, unusable int) Report {
	if dmg := d.Damage(); dmg != nil {
		return Report{Exit: Findings, Why: fmt.Sprintf("damaged input (log check fails it): first %s", dmg)}
	}
	if n, first := d.Problems(); n > 0 {
		return Report{Exit: Findings, Why: fmt.Sprintf("%s could not be decoded; the first: %v", printer.Count(int(n), "record"), first)}
	}
	if unusable > 0 {
		return Report{Exit: Findings, Why: fmt.Sprintf("%s could not be used (see the warnings above)", printer.Count(unusable, "file"))}
	}
	return Report{}
}

// DumpTable is the -o table form of log dump's records of one source, in
// the order dumped.
func DumpTable(rs []metalog.DumpRow) printer.Rows {
	rows := printer.Rows{Columns: []printer.Column{{Header: "FILE", Wrap: true}, {Header: "OFFSET", Essential: true}, {Header: "EPOCH"}, {Header: "TYPE", Essential: true}, {Header: "VERSION"}, {Header: "DATA", Wrap: true, Essential: true}},
		Rows: make([][]string, 0, len(rs))}
	for _, r := range rs {
		rows.Rows = append(rows.Rows, []string{r.File, strconv.FormatInt(r.Offset, 10), strconv.Itoa(int(r.Epoch)), r.Type, strconv.Itoa(int(r.Version)), r.Data})
	}
	return rows
}
