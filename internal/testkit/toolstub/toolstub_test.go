package toolstub

import (
	"os"
	"slices"
	"testing"
)

// TestStubRecords: a chain of calls is recorded in order with the words
// the shell split, what was piped in, /dev/stdin as the saved input, an
// empty argument kept, and KMETA_STUB_FAIL failing the call it names (the
// chain stops there).
func TestStubRecords(t *testing.T) {
	s := New(t, "tool-a", "tool-b")
	out, calls, err := s.Run(t, "", `tool-a 'x y' "" '$(z)' && printf 'l1\nl2\n' | tool-b --file /dev/stdin`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls: %+v", len(calls), calls)
	}
	a, b := calls[0], calls[1]
	if a.Tool != "tool-a" || !slices.Equal(a.Args, []string{"x y", "", "$(z)"}) || a.Stdin != "" {
		t.Errorf("first call %+v", a)
	}
	if b.Tool != "tool-b" || !slices.Equal(b.Args, []string{"--file", b.StdinFile}) || b.Stdin != "l1\nl2\n" {
		t.Errorf("second call %+v", b)
	}
	if in, err := os.ReadFile(b.StdinFile); err != nil || string(in) != b.Stdin {
		t.Errorf("saved stdin %q, %v", in, err)
	}
	// A later Run returns only its own calls; a failing one stops the chain.
	_, calls, err = s.Run(t, "", "tool-b go && tool-a fail && tool-b never", "KMETA_STUB_FAIL=fail")
	if err == nil || len(calls) != 2 || !slices.Equal(calls[1].Args, []string{"fail"}) {
		t.Errorf("failing chain: %v, calls %+v", err, calls)
	}
	_, calls, err = s.Run(t, "", "printf 'a\\nfail\\n' | tool-a && tool-b never", "KMETA_STUB_FAIL=fail")
	if err == nil || len(calls) != 1 {
		t.Errorf("failing stdin: %v, calls %+v", err, calls)
	}
	if _, calls, err = s.Run(t, "", "tool-a fail"); err != nil || len(calls) != 1 {
		t.Errorf("without KMETA_STUB_FAIL: %v, calls %+v", err, calls)
	}
}
