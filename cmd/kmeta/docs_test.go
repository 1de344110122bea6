package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// repoRoot is the repository's root seen from this package's directory,
// where go test runs.
const repoRoot = "../.."

// TestDocsInSync: docs/reference is what the command tree and the
// fixtures generate; after changing a command, a flag or an example, run
// `make docs`.
func TestDocsInSync(t *testing.T) {
	app := newApp(constructors, io.Discard, io.Discard)
	// The examples run on the fixtures from the repository's root, as
	// `make docs` runs them.
	dir, err := filepath.Abs(filepath.Join(repoRoot, "docs", "reference"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(repoRoot)
	// Tables are as wide as their cells, as make docs writes them.
	t.Setenv("COLUMNS", "")
	pages := docPages(context.Background(), app)
	for _, name := range slices.Sorted(mapKeys(pages)) {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("docs/reference/%s: %v: run `make docs`", name, err)
			continue
		}
		if string(got) != pages[name] {
			t.Errorf("docs/reference/%s is out of date: run `make docs`\n%s", name, firstDifference(string(got), pages[name]))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := pages[e.Name()]; !ok {
			t.Errorf("docs/reference/%s: no command makes it: run `make docs`", e.Name())
		}
	}
}

// TestDocsEveryCommand: every command has its exit status in its own
// words and at least one example, and every example names a command
// that exists.
func TestDocsEveryCommand(t *testing.T) {
	tree := commandTree(newApp(constructors, io.Discard, io.Discard))
	known := map[string]bool{}
	for _, n := range tree {
		known[n.path] = true
		if len(n.subs) > 0 {
			continue
		}
		if _, ok := docExit[n.path]; !ok {
			t.Errorf("kmeta %s: no exit status in docExit (docs_examples.go)", n.path)
		}
		if len(docExamples[n.path]) == 0 {
			t.Errorf("kmeta %s: no example in docExamples (docs_examples.go)", n.path)
		}
	}
	for path := range docExamples {
		if !known[path] {
			t.Errorf("docExamples has %q, which is no command", path)
		}
	}
	for path := range docExit {
		if !known[path] {
			t.Errorf("docExit has %q, which is no command", path)
		}
	}
}

// TestDocCommandLinesParse: every kmeta command line shown in the README
// and in docs/ parses against the command tree: the command exists, and
// so do its flags, with values where they take one. The parser runs, the
// command does not.
func TestDocCommandLinesParse(t *testing.T) {
	var files []string
	files = append(files, filepath.Join(repoRoot, "README.md"))
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		for _, l := range docCommandLines(t, f) {
			n++
			if err := parseOnly(l.words); err != nil {
				t.Errorf("%s:%d: %q does not parse: %v", strings.TrimPrefix(f, repoRoot+"/"), l.line, strings.Join(l.words, " "), err)
			}
		}
	}
	if n < 50 {
		t.Fatalf("found %d command lines; the scan no longer sees them", n)
	}
	// The check itself: a made-up flag and command fail.
	for _, bad := range [][]string{{"kmeta", "image", "--no-such-flag", "x"}, {"kmeta", "no-such-command"}, {"kmeta", "lint", "--fail-on"}} {
		if parseOnly(bad) == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// synopsis reports whether a kmeta line is a synopsis (optional parts in
// brackets, alternatives, repetitions) rather than a command.
func synopsis(s string) bool {
	return strings.ContainsAny(s, "[]|") || strings.Contains(s, "...") || strings.Contains(s, "…")
}

type docLine struct {
	line  int
	words []string
}

// inlineKmeta finds `kmeta ...` code spans in prose.
var inlineKmeta = regexp.MustCompile("`(kmeta [^`]+)`")

// docCommandLines returns the kmeta command lines of a Markdown file: the
// lines of fenced code blocks that start with "kmeta " or "$ kmeta ", and
// code spans in prose that start with "kmeta " and are commands rather
// than synopses (no [ ] | ... placeholders' brackets or alternatives).
func docCommandLines(t *testing.T, path string) []docLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	fenced, n := false, 0
	cont, start := "", 0 // a command continued on the next line (a trailing \)
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			cont = ""
			continue
		}
		if fenced {
			s := strings.TrimPrefix(strings.TrimSpace(l), "$ ")
			if cont != "" {
				s = cont + " " + s
			} else {
				start = n
			}
			if c, ok := strings.CutSuffix(s, "\\"); ok {
				cont = strings.TrimSpace(c)
				continue
			}
			cont = ""
			if w := shellWords(s); strings.HasPrefix(s, "kmeta ") && !synopsis(s) && !strings.HasSuffix(w[1], ":") {
				out = append(out, docLine{start, w})
			}
			continue
		}
		for _, m := range inlineKmeta.FindAllStringSubmatch(l, -1) {
			if s := m[1]; !synopsis(s) {
				out = append(out, docLine{n, shellWords(s)})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shellWords splits a command line as a shell would for these docs:
// words, with single or double quotes grouping, a pipe, a redirection or
// a comment ending the command.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	quote, in := rune(0), false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case r == '#' && !in:
			// A comment, as a shell reads it.
			return words
		case r == '|' || r == '>' || r == '<':
			if in {
				words = append(words, cur.String())
			}
			return words
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

var errParsed = errors.New("parsed")

// parsingApp is the command tree with every command's action replaced by
// leaf and no Before: it parses a command line without running anything.
func parsingApp(leaf cli.ActionFunc) *cli.App {
	app := newApp(constructors, io.Discard, io.Discard)
	var stub func(cmds []*cli.Command)
	stub = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Action != nil && len(c.Subcommands) == 0 {
				c.Action = leaf
			}
			c.Before = nil
			stub(c.Subcommands)
		}
	}
	stub(app.Commands)
	return app
}

// parseOnly runs the command tree's parser over args (args[0] is
// "kmeta"): every action is replaced by one that returns errParsed, so a
// line parses when that error comes back.
func parseOnly(args []string) error {
	app := parsingApp(func(*cli.Context) error { return errParsed })
	app.Action = func(c *cli.Context) error {
		if c.NArg() > 0 {
			return errors.New("no command " + c.Args().First())
		}
		return errParsed
	}
	// A command's name alone, as prose names it ("kmeta migrate stage"),
	// or with its arguments and no options ("kmeta migrate stage
	// KRaftMigration"), is a reference to the command: the command must
	// exist. A line with options must parse whole.
	if isCommandPath(app, args[1:]) {
		return nil
	}
	if !slices.ContainsFunc(args[1:], func(a string) bool { return strings.HasPrefix(a, "-") }) {
		for n := len(args) - 1; n > 1; n-- {
			if isCommandPath(app, args[1:n]) {
				return nil
			}
		}
	}
	args, err := reorderArgs(app, args)
	if err != nil {
		return err
	}
	err = app.RunContext(context.Background(), args)
	if errors.Is(err, errParsed) {
		return nil
	}
	if err == nil {
		// Help and the version print and return without an action.
		if slices.ContainsFunc(args[1:], func(a string) bool { return a == "--help" || a == "-h" || a == "--version" || a == "help" }) {
			return nil
		}
		return errors.New("a group without a command")
	}
	return err
}

// isCommandPath reports whether words name a command of the tree, and
// nothing more.
func isCommandPath(app *cli.App, words []string) bool {
	if len(words) == 0 {
		return false
	}
	cmds := app.Commands
	for _, w := range words {
		i := slices.IndexFunc(cmds, func(c *cli.Command) bool { return c.Name == w })
		if i < 0 {
			return false
		}
		cmds = cmds[i].Subcommands
	}
	return true
}

// firstDifference shows the first line where two texts differ.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  committed: %q\n  generated: %q", i+1, x, y)
		}
	}
	return ""
}

// TestREADMEShort: the README is what a newcomer reads first; the
// reference lives in docs/. Under 400 lines, no table cell over 300
// characters.
func TestREADMEShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) >= 400 {
		t.Errorf("README.md has %d lines; keep it under 400 (move detail to docs/)", len(lines))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		for _, cell := range strings.Split(l, "|") {
			if n := len([]rune(strings.TrimSpace(cell))); n > 300 {
				t.Errorf("README.md:%d: a table cell of %d characters; keep cells to 300", i+1, n)
			}
		}
	}
}
