package model

import "testing"

// TestShown: what prints as it is, and what is quoted with the character
// escaped (a terminal escape, a bidirectional override, a line end, an
// invalid byte, U+FFFD, a no-break space).
func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"orders-v2":       "orders-v2",
		"a b/ü":           "a b/ü",
		"x\x1b]2;pwn\x07": `"x\x1b]2;pwn\a"`,
		"a\u202eb":        `"a\u202eb"`,
		"l1\nl2":          `"l1\nl2"`,
		"bad\xffbyte":     `"bad\xffbyte"`,
		"r\uFFFD":         `"r�"`,
		"no\u00a0break":   `"no\u00a0break"`,
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %s, want %s", in, got, want)
		}
	}
}
