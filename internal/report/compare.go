package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
)

// The results of a comparison (verify, diff), as its JSON "result" says.
const (
	// ResultEqual: no difference, and both views rest on whole input.
	ResultEqual = "equal"
	// ResultDifferent: at least one unexplained difference.
	ResultDifferent = "different"
	// ResultPartial: a view rests on partial input, so the views are not
	// called equal (without --allow-partial).
	ResultPartial = "partial"
	// ResultEqualOnPartialInput: no difference in what was read, with
	// --allow-partial, while a view rests on partial input.
	ResultEqualOnPartialInput = "equal-on-partial-input"
)

// ComparisonVerdict is the result of a comparison: a view resting on
// partial input is never called equal, and without allowPartial not
// compared at all.
func ComparisonVerdict(rep *verify.Report, partial, allowPartial bool) string {
	switch {
	case partial && !allowPartial:
		return ResultPartial
	case rep.Differ():
		return ResultDifferent
	case partial:
		return ResultEqualOnPartialInput
	}
	return ResultEqual
}

// ComparisonDoc is the -o json document of verify and diff.
type ComparisonDoc struct {
	Result      string       `json:"result"`
	Left        ComparedSide `json:"left"`
	Right       ComparedSide `json:"right"`
	CrossWorld  bool         `json:"crossWorld"`
	Differences int          `json:"differences"`
	Explained   int          `json:"explained"`
	// Readiness counts the warning and error readiness findings, which
	// describe one view and never make the views differ.
	Readiness   int            `json:"readiness"`
	Ignored     []IgnoredClass `json:"ignored"`
	Compared    []ClassCount   `json:"compared"`
	NotCompared []string       `json:"notCompared"`
	// NotComparedFields are the fields either view does not report (a
	// live cluster's), left out on both sides; absent when both report
	// every field.
	NotComparedFields []model.Field   `json:"notComparedFields,omitempty"`
	Findings          []model.Finding `json:"findings"`
}

// ComparedSide is one view of a comparison.
type ComparedSide struct {
	Kind    string   `json:"kind"`
	Source  string   `json:"source"`
	Offset  int64    `json:"offset"`
	Zxid    int64    `json:"zxid,omitempty"`
	Partial []string `json:"partial"`
	// NotReported are the fields this view's source does not report.
	NotReported []model.Field `json:"notReported,omitempty"`
}

// IgnoredClass is a class left out of the verdict (--ignore) and how many
// findings it held.
type IgnoredClass struct {
	Class    string `json:"class"`
	Findings int    `json:"findings"`
}

// ClassCount is how many entities of a class each side held.
type ClassCount struct {
	Class string `json:"class"`
	Left  int    `json:"left"`
	Right int    `json:"right"`
}

// Comparison is the report of verify or diff (verb names it) on two
// views, left and right as compared: the document and its verdict.
func Comparison(verb string, rep *verify.Report, left, right *model.Image, allowPartial bool) Report {
	doc := ComparisonDoc{Left: sideOf(rep.Left, left), Right: sideOf(rep.Right, right), CrossWorld: rep.CrossWorld,
		NotCompared: nonNil(rep.NotComparedWhy), NotComparedFields: rep.NotComparedFields, Findings: nonNil(rep.Findings), Ignored: []IgnoredClass{}}
	for _, cl := range verify.Classes {
		if n, ok := countsOf(rep, cl); ok {
			doc.Compared = append(doc.Compared, n)
		}
	}
	for _, n := range rep.CountByClass() {
		doc.Differences += n.Differences
		doc.Explained += n.Explained
		doc.Readiness += n.Readiness
	}
	for _, cl := range rep.Ignored {
		doc.Ignored = append(doc.Ignored, IgnoredClass{Class: cl, Findings: rep.IgnoredCounts[cl]})
	}
	partial := len(doc.Left.Partial) > 0 || len(doc.Right.Partial) > 0
	doc.Result = ComparisonVerdict(rep, partial, allowPartial)

	var ls []string
	ls = append(ls, fmt.Sprintf("kmeta %s: %s (left) against %s (right)", verb, rep.Left.Name, rep.Right.Name))
	for _, s := range []ComparedSide{doc.Left, doc.Right} {
		if len(s.Partial) > 0 {
			ls = append(ls, s.Source+" rests on partial input:")
			for _, p := range s.Partial {
				ls = append(ls, "  - "+printer.Clean(p))
			}
		}
	}
	var cmpd []string
	for _, n := range doc.Compared {
		cmpd = append(cmpd, fmt.Sprintf("%s %d/%d", n.Class, n.Left, n.Right))
	}
	ls = append(ls, "compared (left/right entities): "+strings.Join(cmpd, ", "))
	for _, n := range doc.NotCompared {
		ls = append(ls, "not compared, by design: "+n)
	}
	for _, s := range []ComparedSide{doc.Left, doc.Right} {
		if len(s.NotReported) > 0 {
			names := make([]string, len(s.NotReported))
			for i, f := range s.NotReported {
				names[i] = string(f)
			}
			ls = append(ls, fmt.Sprintf("not compared: %s (not reported by %s)", strings.Join(names, ", "), printer.Clean(s.Source)))
		}
	}
	for _, ig := range doc.Ignored {
		ls = append(ls, fmt.Sprintf("ignored: class %s (%s left out)", ig.Class, printer.Count(ig.Findings, "finding")))
	}
	// Readiness findings are named beside the verdict only when there are
	// some: they do not change it.
	ready := ""
	if doc.Readiness > 0 {
		ready = ", " + printer.Count(doc.Readiness, "readiness finding")
	}
	out := Report{}
	switch doc.Result {
	case ResultPartial:
		ls = append(ls, fmt.Sprintf("result: NOT VERIFIED, a view is partial; %s and %d explained in what was read", printer.Count(doc.Differences, "difference"), doc.Explained))
		out.Exit, out.Why = Failed, fmt.Sprintf("a view rests on partial input, so %s does not call the views equal (see the report; --allow-partial compares anyway)", verb)
	case ResultDifferent:
		ls = append(ls, fmt.Sprintf("result: DIFFERENT, %s, %d explained%s", printer.Count(doc.Differences, "difference"), doc.Explained, ready))
		out.Exit = Findings
	case ResultEqualOnPartialInput:
		ls = append(ls, fmt.Sprintf("result: no difference in what was read, but a view is partial (--allow-partial); %d explained%s", doc.Explained, ready))
	default:
		ls = append(ls, fmt.Sprintf("result: EQUAL, %s%s", printer.Count(doc.Explained, "explained difference"), ready))
	}
	out.JSON = doc
	out.Sections = []printer.Section{{Lines: ls}}
	if len(rep.Findings) > 0 {
		rows := comparisonRows(rep)
		out.Sections = append(out.Sections, printer.Section{Rows: &rows, Findings: true})
	}
	diffs := map[string]int{}
	for cl, n := range rep.CountByClass() {
		diffs[cl] = n.Differences
	}
	leftName, rightName := "before", "after"
	if rep.CrossWorld {
		leftName, rightName = rep.Left.World.String(), rep.Right.World.String()
	}
	out.Page = &printer.Page{Title: "kmeta " + verb, Verdict: strings.TrimPrefix(ls[len(ls)-1], "result: "), Status: status(out.Exit),
		Facts:    [][2]string{sideFacts("left", doc.Left), sideFacts("right", doc.Right)},
		Findings: doc.Findings, Charts: []printer.Chart{comparisonChart(doc, diffs, leftName, rightName)}}
	return out
}

// PartialReasons says what a loaded view rests on, when it may lack
// content its source held: the image's typed warnings that model.Partial
// counts (replay stopped at a damaged batch, records skipped, a coverage
// hole, a live tree that changed, a lenient decode, a damaged ZooKeeper
// log, a file of the source that could not be used).
func PartialReasons(img *model.Image) []string {
	var out []string
	for _, w := range img.Warnings {
		if model.Partial(w) {
			where := ""
			if w.Where != nil {
				where = " (" + w.Where.String() + ")"
			}
			out = append(out, w.Code+where+": "+w.Message)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sideOf(s verify.Side, img *model.Image) ComparedSide {
	return ComparedSide{Kind: s.World.String(), Source: s.Name, Offset: img.Provenance.Offset, Zxid: img.Provenance.Zxid, Partial: nonNil(PartialReasons(img)),
		NotReported: img.NotReported}
}

func countsOf(rep *verify.Report, class string) (ClassCount, bool) {
	for _, n := range rep.Compared {
		if n.Class == class {
			return ClassCount{Class: class, Left: n.Left, Right: n.Right}, true
		}
	}
	return ClassCount{}, false
}

// comparisonRows is the findings table, grouped by class in the order of
// verify.Classes; within a class, the findings keep model's order.
func comparisonRows(rep *verify.Report) printer.Rows {
	fs := slices.Clone(rep.Findings)
	rank := func(class string) int {
		if i := slices.Index(verify.Classes, class); i >= 0 {
			return i
		}
		return len(verify.Classes)
	}
	slices.SortStableFunc(fs, func(a, b model.Finding) int { return rank(a.Class) - rank(b.Class) })
	// The value columns are named by side: the two worlds in verify,
	// before and after in a diff of one kind.
	left, right := "BEFORE", "AFTER"
	if rep.CrossWorld {
		left, right = strings.ToUpper(rep.Left.World.String()), strings.ToUpper(rep.Right.World.String())
	}
	rows := printer.Rows{Columns: []printer.Column{
		// What differs and how (code, entity, field, the two values) is
		// the answer: a narrow terminal wraps it and leaves out the rest.
		{Header: "CLASS", Key: "class"}, {Header: "SEVERITY", Key: "severity"}, {Header: "CODE", Key: "code", Essential: true},
		{Header: "ENTITY", Key: "entity", Wrap: true, Essential: true}, {Header: "FIELD", Key: "field", Essential: true},
		{Header: left, Key: "left", Essential: true}, {Header: right, Key: "right", Essential: true},
		{Header: "MESSAGE", Key: "message", Wrap: true},
	}}
	opt := func(s *string) string {
		if s == nil {
			return "-"
		}
		return *s
	}
	for _, f := range fs {
		rows.Rows = append(rows.Rows, []string{f.Class, string(f.Severity), f.Code, f.Entity, f.Field, opt(f.Left), opt(f.Right), f.Message})
	}
	return rows
}

// nonNil makes a nil list an empty one, so JSON shows [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
