package lint

import "slices"

// registry is every rule, family by family, in the order they run and are
// listed; byCode indexes it. They are filled in init: the rules' checks
// look their own rule up, which a variable initializer could not do
// without a cycle.
var (
	registry []*Rule
	byCode   map[string]*Rule
)

func init() {
	registry = slices.Concat(durabilityRules, availabilityRules, placementRules, leftoverRules, controlPlaneRules)
	byCode = make(map[string]*Rule, len(registry))
	for _, r := range registry {
		byCode[r.Code] = r
	}
}

// Rules is the registry: every rule, family by family.
func Rules() []*Rule { return registry }

// Lookup returns the rule with that code.
func Lookup(code string) (*Rule, bool) {
	r, ok := byCode[code]
	return r, ok
}

// rule is the registered rule of a code (a check building its findings).
func rule(code string) *Rule { return byCode[code] }
