package printer

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kmeta/kmeta/model"
)

// HTML is the report format: one self-contained page (styles, script and
// pictures inline, nothing fetched when opened) for people who would
// rather read a page than a terminal. Only commands that build a Page
// offer it (Formats lists the formats every command has).
const HTML Format = "html"

// ReportFormats are the formats of a command that also writes a report
// page, in the order help text shows them.
var ReportFormats = []Format{Text, Table, JSON, HTML}

// Page is what the html format shows of a document beyond its sections:
// the verdict, the facts, the findings and the pictures. Findings and
// facts are the same (already redacted) values the document's JSON and
// sections hold: the page never redacts on its own.
type Page struct {
	// Title names the command ("kmeta verify").
	Title string
	// Verdict is the one-line answer, and Status its class.
	Verdict string
	Status  Status
	// Facts are (label, value) pairs shown first: the source(s), the
	// point in time.
	Facts [][2]string
	// Findings are listed grouped by class, and counted by severity and
	// class.
	Findings []model.Finding
	// Charts are drawn in order, then a chart of the findings by class and
	// severity when there are findings.
	Charts []Chart
}

// Status is the class of a page's verdict, which colours it.
type Status string

// The verdict classes.
const (
	StatusOK       Status = "ok"
	StatusFindings Status = "findings"
	StatusFailed   Status = "failed"
)

// HTMLOptions are what a page says of its making.
type HTMLOptions struct {
	// Version is kmeta's version.
	Version string
	// Made is when the report was made; the one value that differs
	// between two reports of the same input (kmeta's --report-time fixes
	// it).
	Made time.Time
}

// CollapseAbove is the size above which a list (a table's rows, a
// group's findings) is shown collapsed, with its count.
const CollapseAbove = 20

//go:embed html/report.css
var reportCSS string

//go:embed html/report.js
var reportJS string

//go:embed html/report.tmpl
var reportTmpl string

// pageTemplate is parsed on first use: at start-up the parse was a
// fiftieth of a short command's run, for the few runs that print html.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(reportTmpl))
})

// WriteHTML renders d as a report page. d.Page must be set; sections
// marked Findings are left out (the page lists the findings itself), as
// are those only for text.
func WriteHTML(w io.Writer, d Document, opt HTMLOptions) error {
	if d.Page == nil {
		return fmt.Errorf("printer: this command has no html report")
	}
	v, err := pageView(d, opt)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := pageTemplate().Execute(&b, v); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// The template's data.
type htmlPage struct {
	Title, Verdict, Status, Version, Made string
	CSS                                   template.CSS
	JS                                    template.JS
	Facts                                 [][2]string
	Severities                            []htmlCount
	Classes                               []htmlCount
	Charts                                []htmlChart
	Tables                                []htmlTable
	Lines                                 [][]string
	Groups                                []htmlGroup
	Total                                 int
	Collapse                              int
}

type htmlCount struct {
	Name string
	N    int
}

type htmlChart struct {
	ID, Title string
	Bars      int
	Colors    string
	SVG       template.HTML
}

type htmlTable struct {
	Headers []string
	Rows    [][]string
	Open    bool
}

type htmlGroup struct {
	Class    string
	Findings []htmlFinding
	Open     bool
	Errors   int
	Warnings int
}

type htmlFinding struct {
	Severity, Code, Entity, Field, Left, Right, Where, Message, Fix string
	Rank                                                            int
}

// severityOrder is the order severities are counted and drawn in.
var severityOrder = []model.Severity{model.SevError, model.SevWarning, model.SevInfo}

// pageSeverities are the severities a page counts and draws: critical
// (lint's alone) only when a finding has it, so the pages of commands
// that never report it keep their three rows and series.
func pageSeverities(fs []model.Finding) []model.Severity {
	if model.CountSeverity(fs, model.SevCritical) > 0 {
		return append([]model.Severity{model.SevCritical}, severityOrder...)
	}
	return severityOrder
}

// unclassified is the group of findings that name no class.
const unclassified = "general"

func pageView(d Document, opt HTMLOptions) (htmlPage, error) {
	p := d.Page
	v := htmlPage{Title: p.Title, Verdict: p.Verdict, Status: string(p.Status), Version: opt.Version,
		Made: opt.Made.UTC().Format(time.RFC3339), CSS: template.CSS(reportCSS), JS: template.JS(reportJS),
		Facts: p.Facts, Total: len(p.Findings), Collapse: CollapseAbove}
	for _, s := range pageSeverities(p.Findings) {
		v.Severities = append(v.Severities, htmlCount{string(s), model.CountSeverity(p.Findings, s)})
	}
	// Groups by class, in the order classes first appear (the findings
	// come sorted); a finding keeps its place within its group.
	var classes []string
	groups := map[string]*htmlGroup{}
	for i, f := range p.Findings {
		cl := f.Class
		if cl == "" {
			cl = unclassified
		}
		g := groups[cl]
		if g == nil {
			g = &htmlGroup{Class: cl}
			groups[cl] = g
			classes = append(classes, cl)
		}
		g.Findings = append(g.Findings, findingView(f, i))
		switch f.Severity {
		case model.SevError:
			g.Errors++
		case model.SevWarning:
			g.Warnings++
		}
	}
	for _, cl := range classes {
		g := groups[cl]
		g.Open = len(g.Findings) <= CollapseAbove
		v.Groups = append(v.Groups, *g)
		v.Classes = append(v.Classes, htmlCount{cl, len(g.Findings)})
	}
	charts := slices.Clone(p.Charts)
	if len(classes) > 0 {
		charts = append(charts, findingsChart(p.Findings, classes))
	}
	for _, ch := range charts {
		svg, err := ch.svg()
		if err != nil {
			return v, err
		}
		cols := make([]string, len(ch.Series))
		for i := range ch.Series {
			cols[i] = ch.SeriesColor(i)
		}
		v.Charts = append(v.Charts, htmlChart{ID: ch.ID, Title: ch.Title, Bars: ch.Bars(), Colors: strings.Join(cols, " "), SVG: template.HTML(svg)})
	}
	for _, s := range d.Sections {
		if s.Findings || s.Only == Text {
			continue
		}
		if len(s.Lines) > 0 {
			v.Lines = append(v.Lines, s.Lines)
		}
		if s.Rows != nil {
			if err := s.Rows.check(); err != nil {
				return v, err
			}
			t := htmlTable{Rows: s.Rows.Rows, Open: len(s.Rows.Rows) <= CollapseAbove}
			for _, c := range s.Rows.Columns {
				t.Headers = append(t.Headers, c.Header)
			}
			v.Tables = append(v.Tables, t)
		}
	}
	return v, nil
}

func findingView(f model.Finding, rank int) htmlFinding {
	opt := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	where := ""
	if f.Where != nil {
		where = f.Where.String()
	}
	return htmlFinding{Severity: string(f.Severity), Code: f.Code, Entity: f.Entity, Field: f.Field, Left: opt(f.Left), Right: opt(f.Right),
		Where: where, Message: f.Message, Fix: f.Fix, Rank: rank}
}

// severityColors fill the findings chart's series, the same on every page
// (warning in amber, as the page's tables colour it).
var severityColors = map[model.Severity]string{model.SevCritical: CriticalColor, model.SevError: AlertColor,
	model.SevWarning: SeriesColors[2], model.SevInfo: SeriesColors[1]}

// findingsChart counts the findings by class (the groups' order) and
// severity, stacked.
func findingsChart(fs []model.Finding, classes []string) Chart {
	ch := Chart{ID: "findings", Title: "Findings by class and severity", XLabel: "class", YLabel: "findings", Labels: classes, Stacked: true}
	for _, s := range pageSeverities(fs) {
		vals := make([]float64, len(classes))
		for _, f := range fs {
			cl := f.Class
			if cl == "" {
				cl = unclassified
			}
			if f.Severity == s {
				vals[slices.Index(classes, cl)]++
			}
		}
		ch.Series = append(ch.Series, Series{Name: string(s), Values: vals, Color: severityColors[s]})
	}
	return ch
}

func htmlAttrEscape(s string) string { return template.HTMLEscapeString(s) }
