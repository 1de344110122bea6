package migrate

import (
	"regexp"
	"slices"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// TestOverridesRelaxBlockers: every --override lifts a blocker whose
// check declares the relaxed severity an overridden finding takes, and
// says so (RelaxedWhen names it); no check names an override that does
// not exist.
func TestOverridesRelaxBlockers(t *testing.T) {
	named := map[string]bool{}
	re := regexp.MustCompile(`--override ([a-z-]+)`)
	for _, c := range append(slices.Clone(checks), model.CommonChecks()...) {
		for _, m := range re.FindAllStringSubmatch(c.RelaxedWhen, -1) {
			if !slices.Contains(Overrides, m[1]) {
				t.Errorf("%s names --override %s, which does not exist", c.Code, m[1])
			}
			if c.Relaxed != model.SevWarning {
				t.Errorf("%s: an overridden blocker is a warning, the check relaxes to %q", c.Code, c.Relaxed)
			}
			named[m[1]] = true
		}
	}
	for _, o := range Overrides {
		if !named[o] {
			t.Errorf("no check says that --override %s relaxes it", o)
		}
	}
}
