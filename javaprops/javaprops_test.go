package javaprops

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRead: a server.properties file is read and parsed; a bad escape is
// a refusal naming the file and the line, never quoting the value; binary
// data is refused as such.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("server.properties", "# c\nbroker.id=1\nlog.dirs : /a,\\\n  /b\n")
	m, err := Read(good)
	if err != nil || len(m) != 2 || m["broker.id"] != "1" || m["log.dirs"] != "/a,/b" {
		t.Fatalf("%v, %v", m, err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"bad.properties", "a=1\nb=secret\\u12\n", ": line 2: not a valid Java properties file: truncated \\u escape"},
		{"bad2.properties", "a=1\nb=x\\\n  \\uzzzzsecret\n", ": line 2: not a valid Java properties file: bad \\u escape (\\u takes four hex digits)"},
		{"binary.properties", "a=\x00\x01\n", ": binary data, not a Java properties file"},
	} {
		p := write(c.name, c.text)
		if _, err := Read(p); !errors.Is(err, ErrInvalid) || err.Error() != p+c.want {
			t.Errorf("%s: %v, want %s%s", c.name, err, p, c.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
}

// TestParseLines: each key's line is the first physical line of its
// logical line; a later key wins.
func TestParseLines(t *testing.T) {
	m, lines, err := ParseLines([]byte("! c\r\na = 1\nb\\\n  c:2\r\nd\te\n\na=3"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "3", "bc": "2", "d": "e"}
	wantLines := map[string]int{"a": 7, "bc": 3, "d": 5}
	if len(m) != len(want) || len(lines) != len(wantLines) {
		t.Fatalf("%q %v, want %q %v", m, lines, want, wantLines)
	}
	for k, v := range want {
		if m[k] != v || lines[k] != wantLines[k] {
			t.Errorf("%s: %q at line %d, want %q at %d", k, m[k], lines[k], v, wantLines[k])
		}
	}
	_, err = Parse([]byte("a=1\nb=\\u12"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || err.Error() != `line 2: truncated \u escape` || !errors.Is(err, ErrInvalid) {
		t.Errorf("bad escape: %#v", err)
	}
}

// TestFormatReadsBack: what Format writes Parse reads as it was, keys and
// values with separators, blanks, backslashes and characters beyond
// ISO-8859-1.
func TestFormatReadsBack(t *testing.T) {
	in := map[string]string{"a b": " x=y\\z", "k:=#!": "#é\u00ff\U0001F600\n", "": "v"}
	out := Format("line one\nline two", in)
	want := "# line one\n# line two\n=v\na\\ b=\\ x=y\\\\z\nk\\:\\=\\#\\!=\\#\\u00E9\\u00FF\\uD83D\\uDE00\\n\n"
	if string(out) != want {
		t.Errorf("Format:\n%q\nwant\n%q", out, want)
	}
	back, err := Parse(out)
	if err != nil || len(back) != len(in) {
		t.Fatalf("%q, %v", back, err)
	}
	for k, v := range in {
		if back[k] != v {
			t.Errorf("%q: %q, want %q", k, back[k], v)
		}
	}
}

// TestSurrogates covers what metalog's JVM test (TestJavaValuesMatchKafka)
// cannot show: a lone surrogate (Java keeps it as a char; a Go string
// cannot hold one, so it reads as U+FFFD) and a pair split by another
// character.
func TestSurrogates(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`k=\uD83D\uDE00`, "\U0001F600"},
		{`k=\uD83D`, "\uFFFD"},
		{`k=\uDE00\uD83D`, "\uFFFD\uFFFD"},
		{`k=\uD83Dx\uDE00`, "\uFFFDx\uFFFD"},
		{`k=\uD83D\u0041`, "\uFFFDA"},
		{`k=\u00e9\u4F60`, "é你"},
	} {
		m, err := Parse([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if m["k"] != c.want {
			t.Errorf("%s: %q, want %q", c.in, m["k"], c.want)
		}
	}
}
