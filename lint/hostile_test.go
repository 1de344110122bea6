package lint

import (
	"strings"
	"testing"
)

// TestExceptionsStrictJSON (issue 29): an exceptions file is one JSON
// object and nothing else.
func TestExceptionsStrictJSON(t *testing.T) {
	good := `{"exceptions": [{"rule": "replication-factor-one", "topics": "scratch-*", "reason": "throwaway data"}]}`
	if ex, err := ParseExceptions([]byte(" \n" + good + "\n")); err != nil || len(ex.Exceptions) != 1 {
		t.Fatalf("a good file: %v", err)
	}
	for _, bad := range []struct{ data, says string }{
		{"null", "not a JSON object"},
		{"", "not a JSON object"},
		{"[]", "not a JSON object"},
		{good + " trailing", "more after the JSON object"},
		{good + good, "more after the JSON object"},
		{good + "\n{}", "more after the JSON object"},
		{good + " null", "more after the JSON object"},
		{strings.Replace(good, `"exceptions"`, `"Exceptions"`, 1), `unknown field "Exceptions"`},
		{strings.Replace(good, `"rule"`, `"RULE"`, 1), `unknown field "RULE"`},
		{`{"exceptions": null}`, `no "exceptions" array`},
		{`{}`, `no "exceptions" array`},
		{strings.Replace(good, `"topics": "scratch-*"`, `"topics": 1, "topics": "scratch-*"`, 1), `field "topics" given twice`},
		{`{"exceptions": [], "exceptions": []}`, `field "exceptions" given twice`},
		{strings.Replace(good, `"scratch-*"`, `null`, 1), `exceptions[0]: topics is null`},
	} {
		if _, err := ParseExceptions([]byte(bad.data)); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%q: %v, want %q", bad.data, err, bad.says)
		}
	}
}
