package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/model"
)

// TestLintJSONAsEncodingJSON: lint's document, its findings written one at
// a time, is the bytes an indenting encoding/json Encoder writes for it
// whole, with no findings (nil and empty) and many, whose strings hold
// the findings key's own pattern and what JSON escapes.
func TestLintJSONAsEncodingJSON(t *testing.T) {
	var many []lint.Finding
	for i := range 25 {
		f := lint.Finding{Saw: fmt.Sprintf("saw <%d> & \"x\"\u2028", i), Why: ",\n  \"findings\": null", Entities: []lint.Entity{{Kind: "topic", Name: fmt.Sprint("t", i)}}}
		f.Code, f.Severity, f.Entity, f.Message, f.Fix = "min-isr-one", model.SevWarning, fmt.Sprint("topic t", i), f.Saw+": "+f.Why, "kafka-configs --alter"
		if i%5 == 0 {
			f.Excepted = "accepted <by> ops"
		}
		many = append(many, f)
	}
	for _, fs := range [][]lint.Finding{nil, {}, many} {
		r := &lint.Result{Source: `kraft:/x ,"findings":null`, Rules: []lint.RuleRun{{Code: "min-isr-one", Status: lint.StatusRan}}, Findings: fs}
		doc := LintDoc{Result: r, FailOn: model.SevError, Failing: r.Failing(model.SevError), Counts: map[model.Severity]int{model.SevWarning: len(fs)}}
		var want, got bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetEscapeHTML(false)
		e.SetIndent("", "  ")
		if err := e.Encode(doc); err != nil {
			t.Fatal(err)
		}
		if err := printer.WriteJSON(&got, doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d findings:\ngot  %s\nwant %s", len(fs), got.Bytes(), want.Bytes())
		}
	}
}
