package report

import (
	"slices"
	"testing"

	"github.com/kmeta/kmeta/migrate/online"
)

// TestOnlineStatusSummary: status's first line is the phase's Summary
// from its row of online.Phases.
func TestOnlineStatusSummary(t *testing.T) {
	saved := online.Phases
	t.Cleanup(func() { online.Phases = saved })
	online.Phases = slices.Clone(saved)
	online.Phases[online.KRaft].Summary = "a summary a test wrote"
	r := OnlineStatus(&online.Status{Phase: online.KRaft})
	if got := r.Sections[0].Lines[0]; got != "phase: KRaft (a summary a test wrote)" {
		t.Errorf("first line %q", got)
	}
}
