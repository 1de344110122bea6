package migrate

import "testing"

// TestPreflightNames: every step has a name of its own, so a step can be
// named in a report or a test.
func TestPreflightNames(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range preflight {
		if s.name == "" || seen[s.name] || s.run == nil {
			t.Errorf("step %q: empty, repeated or without a function", s.name)
		}
		seen[s.name] = true
	}
}
