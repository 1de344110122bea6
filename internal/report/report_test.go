package report

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
)

// TestComparisonVerdict: a view resting on partial input is never called
// equal; it fails the command unless partial input is allowed, and then a
// difference still wins.
func TestComparisonVerdict(t *testing.T) {
	differ := &verify.Report{Findings: []model.Finding{{Severity: model.SevError, Code: "X", Class: "topics"}}}
	same := &verify.Report{}
	for _, c := range []struct {
		rep            *verify.Report
		partial, allow bool
		want           string
		exit           Exit
	}{
		{same, false, false, ResultEqual, OK},
		{differ, false, false, ResultDifferent, Findings},
		{same, true, false, ResultPartial, Failed},
		{differ, true, false, ResultPartial, Failed},
		{same, true, true, ResultEqualOnPartialInput, OK},
		{differ, true, true, ResultDifferent, Findings},
	} {
		if got := ComparisonVerdict(c.rep, c.partial, c.allow); got != c.want {
			t.Errorf("differ=%v partial=%v allow=%v: %s, want %s", c.rep.Differ(), c.partial, c.allow, got, c.want)
		}
		left, right := model.NewImage(), model.NewImage()
		if c.partial {
			right.Warnings = append(right.Warnings, model.Finding{Severity: model.SevWarning, Code: model.WarnReplayStopped, Message: "stopped"})
		}
		c.rep.Left = verify.Side{World: model.WorldZooKeeper, Name: "zk"}
		c.rep.Right = verify.Side{World: model.WorldKRaft, Name: "kraft"}
		r := Comparison("verify", c.rep, left, right, c.allow)
		doc := r.JSON.(ComparisonDoc)
		if doc.Result != c.want || r.Exit != c.exit || (r.Exit == Failed) != (r.Why != "") {
			t.Errorf("report: result %s exit %d why %q, want %s exit %d", doc.Result, r.Exit, r.Why, c.want, c.exit)
		}
		if c.partial && (len(doc.Right.Partial) != 1 || !strings.Contains(r.Sections[0].Lines[1], "rests on partial input")) {
			t.Errorf("partial reasons: %v, lines %v", doc.Right.Partial, r.Sections[0].Lines)
		}
	}
}

// TestFeatureCheckExit: a refused or lossy change is Findings; text shows
// the verdict line then the findings, table only the findings.
func TestFeatureCheckExit(t *testing.T) {
	v := features.Verdict{Catalog: "4.x", Allowed: false, Target: features.LevelRef{Name: "3.3-IV3"},
		Findings: []model.Finding{{Severity: model.SevError, Code: "FEATURE_X", Message: "no"}}}
	r := FeatureCheck(v)
	if r.Exit != Findings || len(r.Sections) != 2 || len(r.Sections[0].Lines) != 2 || !strings.HasPrefix(r.Sections[0].Lines[0], "refused: none -> 3.3-IV3") {
		t.Errorf("refused: %+v", r)
	}
	v.Allowed = true
	if r := FeatureCheck(v); r.Exit != OK {
		t.Errorf("allowed: exit %d", r.Exit)
	}
}

// TestComparisonEssentialColumns: at 80 columns a diff's table left out
// AFTER. What differs and its two values are never left out.
func TestComparisonEssentialColumns(t *testing.T) {
	for _, cross := range []bool{false, true} {
		rows := comparisonRows(&verify.Report{CrossWorld: cross})
		var essential []string
		for _, c := range rows.Columns {
			if c.Essential {
				essential = append(essential, c.Key)
			}
		}
		if want := []string{"code", "entity", "field", "left", "right"}; !slices.Equal(essential, want) {
			t.Errorf("cross-world %v: essential columns %v, want %v", cross, essential, want)
		}
	}
}

// TestComparisonReadiness: a readiness finding about one view (here an
// error) stays in the report and is counted apart, but the views are
// equal: exit 0.
func TestComparisonReadiness(t *testing.T) {
	rep := &verify.Report{CrossWorld: true, Left: verify.Side{World: model.WorldZooKeeper, Name: "zk"}, Right: verify.Side{World: model.WorldKRaft, Name: "kraft"},
		Findings: []model.Finding{
			{Severity: model.SevError, Code: verify.CodeTopicWithoutID, Class: verify.ClassTopics, Entity: "topic t"},
			{Severity: model.SevInfo, Code: verify.CodeExpectedZooKeeperOnly, Class: verify.ClassBrokers, Entity: "broker 1"},
		}}
	r := Comparison("verify", rep, model.NewImage(), model.NewImage(), false)
	doc := r.JSON.(ComparisonDoc)
	if doc.Result != ResultEqual || r.Exit != OK || doc.Differences != 0 || doc.Explained != 1 || doc.Readiness != 1 || len(doc.Findings) != 2 {
		t.Errorf("result %s exit %d differences %d explained %d readiness %d findings %d", doc.Result, r.Exit, doc.Differences, doc.Explained, doc.Readiness, len(doc.Findings))
	}
	if l := r.Sections[0].Lines; l[len(l)-1] != "result: EQUAL, 1 explained difference, 1 readiness finding" {
		t.Errorf("verdict line %q", l[len(l)-1])
	}
}

// TestComparisonNotReported: the fields a view does not report are listed
// in text ("not compared: ... (not reported by SOURCE)") and under stable
// JSON keys (notComparedFields, the side's notReported); views that
// report everything carry neither key.
func TestComparisonNotReported(t *testing.T) {
	lv := model.NewImage()
	lv.MarkNotReported(model.FieldProducerIDs, model.FieldBrokerEpoch)
	rep := &verify.Report{Left: verify.Side{World: model.WorldKRaft, Name: "kraft:DIR"}, Right: verify.Side{World: model.WorldKafka, Name: "kafka://b:9092"},
		NotComparedFields: lv.NotReported}
	r := Comparison("diff", rep, model.NewImage(), lv, false)
	doc := r.JSON.(ComparisonDoc)
	if !slices.Equal(doc.NotComparedFields, lv.NotReported) || !slices.Equal(doc.Right.NotReported, lv.NotReported) || doc.Left.NotReported != nil {
		t.Errorf("json: %v, right %v, left %v", doc.NotComparedFields, doc.Right.NotReported, doc.Left.NotReported)
	}
	if !slices.Contains(r.Sections[0].Lines, "not compared: brokers.epoch, producerIds (not reported by kafka://b:9092)") {
		t.Errorf("lines %q", r.Sections[0].Lines)
	}
	if doc.Result != ResultEqual || r.Exit != OK {
		t.Errorf("result %s exit %d", doc.Result, r.Exit)
	}
}

// TestDescribeLiveNodes: features describe of a running cluster shows
// every node's supported ranges (text, table, JSON "nodes") and names the
// node fields it did not report; a source without nodes (a file) shows
// neither, and its JSON carries neither key.
func TestDescribeLiveNodes(t *testing.T) {
	img := model.NewImage()
	img.Features["metadata.version"] = 21
	img.Brokers[2] = &model.Broker{ID: 2, Features: []model.FeatureRange{{Name: "kraft.version", Min: 0, Max: 1}, {Name: "metadata.version", Min: 1, Max: 21}}}
	img.Brokers[1] = &model.Broker{ID: 1, Features: []model.FeatureRange{{Name: "metadata.version", Min: 1, Max: 21}}}
	img.Brokers[3] = &model.Broker{ID: 3} // did not answer
	img.Controllers[3000] = &model.Controller{ID: 3000, Features: []model.FeatureRange{{Name: "metadata.version", Min: 1, Max: 22}}}
	img.MarkNotReported(model.FieldBrokerFeatures)
	cat := features.Catalog39()
	st := cat.Describe(img)
	plain := Describe(cat, st)
	st.Nodes, st.NodesNotReported = features.NodeRanges(img)
	r := Describe(cat, st)

	var ids []string
	for _, n := range st.Nodes {
		ids = append(ids, n.Kind+" "+strconv.Itoa(int(n.ID)))
	}
	if want := []string{"broker 1", "broker 2", "controller 3000"}; !slices.Equal(ids, want) {
		t.Fatalf("nodes %q, want %q", ids, want)
	}
	if !slices.Equal(st.NodesNotReported, []model.Field{model.FieldBrokerFeatures}) {
		t.Errorf("not reported %q", st.NodesNotReported)
	}
	for _, f := range printer.Formats {
		var b, p strings.Builder
		if err := printer.WriteDocument(&b, f, r.Document); err != nil {
			t.Fatal(err)
		}
		if err := printer.WriteDocument(&p, f, plain.Document); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range map[printer.Format][]string{
			printer.Text:  {"broker 2 supports", "kraft.version 0-1, metadata.version 1-21", "controller 3000 supports", "metadata.version 1-22", "brokers.features"},
			printer.Table: {"broker 1 supports", "controller 3000 supports", "not reported"},
			printer.JSON:  {`"nodes"`, `"controller"`, `"nodesNotReported"`, `"brokers.features"`},
		}[f] {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", f, want, out)
			}
		}
		if strings.Contains(p.String(), "supports") || strings.Contains(p.String(), `"nodes"`) {
			t.Errorf("%s: nodes shown without them:\n%s", f, p.String())
		}
	}
}
