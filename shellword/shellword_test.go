package shellword

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestQuote: the words kmeta prints, as sh reads them back. Each case is
// quoted by Quote, then given to sh -c, which prints each argument it
// received on a line of its own; and where a word needs quoting, the
// exact quoting is pinned.
func TestQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"kafka://broker1:9092", "kafka://broker1:9092"},
		{"--config", "--config"},
		{"1=/etc/kafka/server-1.properties", "1=/etc/kafka/server-1.properties"},
		{"zk:2181,zk2:2181/kafka", "zk:2181,zk2:2181/kafka"},
		{"kafka://[::1]:9092", "'kafka://[::1]:9092'"},
		{"/etc/kafka/broker 1.properties", "'/etc/kafka/broker 1.properties'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"=ls", "'=ls'"},
		{"a=b", "a=b"},
		{"*", "'*'"},
		{"~/x", "'~/x'"},
		{"$HOME", "'$HOME'"},
		{"a\nb", "'a\nb'"},
		{"`x`;y|z&", "'`x`;y|z&'"},
		{"café", "'café'"},
	}
	var words []string
	for _, c := range cases {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
		words = append(words, c.in)
	}
	// sh prints each argument, NUL-terminated (one holds a newline).
	out, err := exec.Command("sh", "-c", `printf '%s\0' `+Join(words)).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, words) {
		t.Errorf("sh read back\n%q\nwant\n%q", got, words)
	}
}
