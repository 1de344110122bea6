package lint

import (
	"slices"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// TestRulesAreChecks: every rule is a check of the registry, once: its
// own (with what its findings mean) or, for a code other rooms report too,
// the model's, whose severities allow the rule's and whose commands name
// lint. ruleDocs holds no code that is no rule's.
func TestRulesAreChecks(t *testing.T) {
	own := map[string]*model.Check{}
	for _, c := range Checks() {
		own[c.Code] = c
	}
	for _, r := range Rules() {
		shared, isShared := model.CommonChecks().Lookup(r.Code)
		switch {
		case isShared:
			if own[r.Code] != nil {
				t.Errorf("%s is declared by the model and by lint", r.Code)
			}
			if !shared.Allows(r.Severity) {
				t.Errorf("%s: lint reports it at %s, the model's check allows %v", r.Code, r.Severity, shared.Severities())
			}
			if !slices.Contains(shared.Commands, "lint") {
				t.Errorf("%s: the model's check does not name lint among its commands", r.Code)
			}
		case own[r.Code] == nil:
			t.Errorf("rule %s is no check", r.Code)
		default:
			c := own[r.Code]
			if c.Severity != r.Severity || c.Class != string(r.Family) || c.Title != r.Title {
				t.Errorf("%s: the check %+v is not the rule's", r.Code, c)
			}
			if err := c.Validate(); err != nil {
				t.Error(err)
			}
		}
	}
	for code := range ruleDocs {
		if _, ok := Lookup(code); !ok {
			t.Errorf("ruleDocs documents %q, which is no rule", code)
		}
		if _, shared := model.CommonChecks().Lookup(code); shared {
			t.Errorf("ruleDocs documents %q, which the model declares", code)
		}
	}
}
