package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/urfave/cli/v2"
)

// Runbooks that cannot drift (docs/runbooks/). The real-Kafka tests that
// walk a procedure (the online walk and its rollback drill, the offline
// migration, the quorum rebuild, the metadata.version upgrade, the roll)
// record every kmeta command they run, its exit status and its output as
// a transcript under testdata/transcripts/. Three checks hold the chain:
//
//   - TestRunbooksRan (no JVM): every kmeta command line of a runbook has
//     the shape of a command some transcript holds (the same command, the
//     same options, the same literal arguments; paths, addresses and ports
//     are placeholders), and parses against the command tree; every
//     excerpt a runbook shows is cut, line for line, from a transcript.
//   - the walking test itself: run without -update-transcripts, it fails
//     when a command of its committed transcript was not run this time,
//     so a transcript cannot keep a command that no test runs any more.
//   - -update-transcripts rewrites the transcripts (run the walking
//     tests with it), and then, run with TestRunbooksRan alone, the
//     runbooks' excerpts from them.
var updateTranscripts = flag.Bool("update-transcripts", false, "rewrite testdata/transcripts/ from the real-Kafka tests that walk the runbooks' procedures")

const transcriptDir = "../../testdata/transcripts"

// transcript is what one test ran, in order.
type transcript struct {
	name string
	mu   sync.Mutex
	subs []transcriptSub
	b    strings.Builder
	ran  []commandShape
}

type transcriptSub struct{ from, to string }

var (
	transcriptsMu sync.Mutex
	transcripts   = map[string]*transcript{} // the root test's name → its transcript
)

// recordTranscript makes every runKmeta of t (and of its subtests) part
// of the transcript NAME. Paths under t's temporary directories are
// written $WORK, loopback addresses HOST:PORT; replace adds other
// substitutions (a cluster id, a directory the harness chose).
func recordTranscript(t *testing.T, name string) *transcript {
	t.Helper()
	tr := &transcript{name: name}
	tr.replace(os.TempDir(), "$TMP")
	root := strings.SplitN(t.Name(), "/", 2)[0]
	transcriptsMu.Lock()
	transcripts[root] = tr
	transcriptsMu.Unlock()
	t.Cleanup(func() {
		transcriptsMu.Lock()
		delete(transcripts, root)
		transcriptsMu.Unlock()
		if t.Failed() || t.Skipped() {
			return
		}
		if err := tr.finish(); err != nil {
			t.Error(err)
		}
	})
	return tr
}

// transcriptOf is the transcript t's commands go to, if any.
func transcriptOf(t testing.TB) *transcript {
	transcriptsMu.Lock()
	defer transcriptsMu.Unlock()
	return transcripts[strings.SplitN(t.Name(), "/", 2)[0]]
}

// replace substitutes to for from wherever a command line or an output
// holds it; the longest first.
func (tr *transcript) replace(from, to string) {
	if from == "" {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.subs = append(tr.subs, transcriptSub{from, to})
	slices.SortStableFunc(tr.subs, func(a, b transcriptSub) int { return len(b.from) - len(a.from) })
}

var (
	loopbackPort = regexp.MustCompile(`(127\.0\.0\.1|localhost):[0-9]+`)
	// t.TempDir ($TMP/<test name><random>/<seq>) and the harness's
	// cluster and ZooKeeper directories ($TMP/kmeta-kafka-<version>-<random>).
	tmpRun     = regexp.MustCompile(`\$TMP/[A-Za-z0-9_]+[0-9]+/[0-9]+`)
	tmpCluster = regexp.MustCompile(`\$TMP/kmeta-(kafka-[0-9.]+|zk)-[0-9]+`)
)

func (tr *transcript) clean(s string) string {
	for _, sub := range tr.subs {
		s = strings.ReplaceAll(s, sub.from, sub.to)
	}
	s = tmpRun.ReplaceAllString(s, "$$WORK")
	s = tmpCluster.ReplaceAllString(s, "$$CLUSTER")
	return loopbackPort.ReplaceAllString(s, "HOST:PORT")
}

// note adds a step that is not a kmeta command (restart broker 2), as a
// comment.
func (tr *transcript) note(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	fmt.Fprintf(&tr.b, "# %s\n\n", tr.clean(fmt.Sprintf(format, args...)))
}

// transcriptMaxLines bounds what one command's output adds to a
// transcript; runbooks show excerpts, not whole JSON documents.
const transcriptMaxLines = 160

func (tr *transcript) command(args []string, code int, stdout string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	words := tr.commandLine(args)
	fmt.Fprintf(&tr.b, "$ kmeta %s\n", strings.Join(words, " "))
	lines := strings.Split(strings.TrimRight(tr.clean(stdout), "\n"), "\n")
	// A JSON answer is what a script reads; a runbook shows the text.
	if j := strings.TrimSpace(stdout); strings.HasPrefix(j, "{") || strings.HasPrefix(j, "[") {
		lines = []string{fmt.Sprintf("[%d lines of JSON]", len(lines))}
	}
	if len(lines) > transcriptMaxLines {
		lines = append(lines[:transcriptMaxLines], fmt.Sprintf("[%d more lines]", len(lines)-transcriptMaxLines))
	}
	for _, l := range lines {
		if l != "" || len(lines) > 1 {
			fmt.Fprintf(&tr.b, "%s\n", l)
		}
	}
	fmt.Fprintf(&tr.b, "[exit %d]\n\n", code)
}

// commandLine is args as the transcript writes them, after "kmeta", and
// notes the command's shape as run.
func (tr *transcript) commandLine(args []string) []string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = tr.clean(a)
		if strings.ContainsAny(words[i], " \t'\"$|<>") {
			words[i] = "'" + words[i] + "'"
		}
	}
	if shape, err := shapeOf(append([]string{"kmeta"}, args...)); err == nil {
		tr.ran = append(tr.ran, shape)
	}
	return words
}

// background adds a command that runs beside the test (status --watch)
// and has no output of its own here.
func (tr *transcript) background(args []string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	words := tr.commandLine(args)
	fmt.Fprintf(&tr.b, "$ kmeta %s\n[runs beside the test until it is stopped]\n[exit -]\n\n", strings.Join(words, " "))
}

// finish writes the transcript (-update-transcripts) or checks that every
// command of the committed one was run.
func (tr *transcript) finish() error {
	path := filepath.Join(transcriptDir, tr.name+".txt")
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if *updateTranscripts {
		if err := os.MkdirAll(transcriptDir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(tr.b.String()), 0o644)
	}
	committed, err := readTranscript(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: no transcript: run with -update-transcripts", path)
	}
	if err != nil {
		return err
	}
	for _, e := range committed {
		if !slices.ContainsFunc(tr.ran, e.shape.equal) {
			return fmt.Errorf("%s:%d: %q was not run: the transcript is stale (run with -update-transcripts)", path, e.line, e.cmd)
		}
	}
	return nil
}

// transcriptEntry is one command of a committed transcript.
type transcriptEntry struct {
	line   int
	cmd    string   // the command line, without "$ "
	output []string // its output lines, the exit line left out
	shape  commandShape
}

func readTranscript(path string) ([]transcriptEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []transcriptEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	var cur *transcriptEntry
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "$ kmeta "):
			s := strings.TrimPrefix(l, "$ ")
			shape, err := shapeOf(shellWords(s))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %q: %v", path, n, s, err)
			}
			out = append(out, transcriptEntry{line: n, cmd: s, shape: shape})
			cur = &out[len(out)-1]
		case strings.HasPrefix(l, "[exit "):
			cur = nil
		case cur != nil:
			cur.output = append(cur.output, l)
		}
	}
	return out, sc.Err()
}

// commandShape is what a runbook's command and a transcript's must share:
// the command, the options given (by their first name, whatever spelling
// was used) and the arguments, each reduced to its kind when it is a path
// or an address and kept when it is a word (a phase's name, a format).
type commandShape struct {
	command string
	options []string
	args    []string
}

func (s commandShape) equal(o commandShape) bool {
	return s.command == o.command && slices.Equal(s.options, o.options) && slices.Equal(s.args, o.args)
}

func (s commandShape) String() string {
	return fmt.Sprintf("%s %v %v", s.command, s.options, s.args)
}

var (
	argWord   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)
	argScheme = regexp.MustCompile(`^([a-z][a-z0-9+]*):`)
)

// argKind reduces an argument to what a runbook must agree on.
func argKind(a string) string {
	if m := argScheme.FindStringSubmatch(a); m != nil {
		return m[1] + ":…"
	}
	if argWord.MatchString(a) && !strings.Contains(a, ".") {
		return a
	}
	return "…"
}

// shapeOf parses args (args[0] is "kmeta") against the command tree and
// returns its shape.
func shapeOf(args []string) (commandShape, error) {
	var shape commandShape
	app := parsingApp(func(ctx *cli.Context) error {
		shape.command = ctx.Command.FullName()
		for _, cc := range ctx.Lineage() {
			if cc.Command == nil {
				continue
			}
			for _, f := range cc.Command.Flags {
				// The format changes how an answer reads, not what
				// the command does.
				if name := f.Names()[0]; cc.IsSet(name) && name != "output" && !slices.Contains(shape.options, name) {
					shape.options = append(shape.options, name)
				}
			}
		}
		slices.Sort(shape.options)
		for _, a := range ctx.Args().Slice() {
			shape.args = append(shape.args, argKind(a))
		}
		return errParsed
	})
	app.Action = func(c *cli.Context) error { return errors.New("no command") }
	args, err := reorderArgs(app, args)
	if err != nil {
		return shape, err
	}
	if err := app.RunContext(context.Background(), args); !errors.Is(err, errParsed) {
		if err == nil {
			err = errors.New("no command ran")
		}
		return shape, err
	}
	return shape, nil
}

// excerptMarker introduces an excerpt in a runbook: the fenced block
// after it must be the output of the first command of the transcript
// whose line starts with PREFIX (the Nth with #N), lines A to B (1-based)
// or all of it.
//
//	<!-- excerpt online-migration: kmeta migrate rollback --dry-run #2 lines 1-12 -->
var excerptMarker = regexp.MustCompile(`^<!-- excerpt ([a-z0-9.-]+): (kmeta .*?)(?: #([0-9]+))?(?: lines ([0-9]+)-([0-9]+))? -->$`)

// TestRunbooksRan: see the comment on updateTranscripts.
func TestRunbooksRan(t *testing.T) {
	books, err := filepath.Glob(filepath.Join(repoRoot, "docs", "runbooks", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(books) < 5 {
		t.Fatalf("docs/runbooks holds %d runbooks, want 5", len(books))
	}
	names, err := filepath.Glob(filepath.Join(transcriptDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]transcriptEntry{}
	var ran []transcriptEntry
	for _, p := range names {
		es, err := readTranscript(p)
		if err != nil {
			t.Fatal(err)
		}
		all[strings.TrimSuffix(filepath.Base(p), ".txt")] = es
		ran = append(ran, es...)
	}
	for _, book := range books {
		rel := strings.TrimPrefix(book, repoRoot+"/")
		n := 0
		app := newApp(constructors, io.Discard, io.Discard)
		for _, l := range docCommandLines(t, book) {
			n++
			// A command's name in prose ("kmeta roll check") names it;
			// it runs nothing.
			if isCommandPath(app, l.words[1:]) {
				continue
			}
			shape, err := shapeOf(l.words)
			if err != nil {
				t.Errorf("%s:%d: %q does not parse: %v", rel, l.line, strings.Join(l.words, " "), err)
				continue
			}
			if !slices.ContainsFunc(ran, func(e transcriptEntry) bool { return e.shape.equal(shape) }) {
				t.Errorf("%s:%d: %q: no test ran this command (shape %v)", rel, l.line, strings.Join(l.words, " "), shape)
			}
		}
		if n == 0 {
			t.Errorf("%s: no kmeta command", rel)
		}
		checkExcerpts(t, book, rel, all)
	}
}

// checkExcerpts compares every excerpt of a runbook with its transcript.
func checkExcerpts(t *testing.T, book, rel string, all map[string][]transcriptEntry) {
	t.Helper()
	data, err := os.ReadFile(book)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		m := excerptMarker.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.HasPrefix(lines[i], "<!-- excerpt") {
				t.Errorf("%s:%d: malformed excerpt marker", rel, i+1)
			}
			continue
		}
		es, ok := all[m[1]]
		if !ok {
			t.Errorf("%s:%d: no transcript %s", rel, i+1, m[1])
			continue
		}
		nth, k := 1, -1
		if m[3] != "" {
			fmt.Sscan(m[3], &nth)
		}
		for j, e := range es {
			if strings.HasPrefix(e.cmd, m[2]) {
				if nth--; nth == 0 {
					k = j
					break
				}
			}
		}
		if k < 0 {
			t.Errorf("%s:%d: transcript %s has no command (#%s) starting %q", rel, i+1, m[1], m[3], m[2])
			continue
		}
		want := es[k].output
		if m[4] != "" {
			var a, b int
			fmt.Sscan(m[4], &a)
			fmt.Sscan(m[5], &b)
			if a < 1 || b < a || b > len(want) {
				t.Errorf("%s:%d: lines %d-%d of %d", rel, i+1, a, b, len(want))
				continue
			}
			want = want[a-1 : b]
		}
		// The fenced block right after the marker.
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Errorf("%s:%d: an excerpt marker must be followed by a fenced block", rel, i+1)
			continue
		}
		end := i + 2
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if got := lines[i+2 : end]; *updateTranscripts {
			lines = slices.Concat(lines[:i+2], want, lines[end:])
			end = i + 2 + len(want)
		} else if !slices.Equal(got, want) {
			t.Errorf("%s:%d: the excerpt is not %s's output of %q:\n--- runbook\n%s\n--- transcript\n%s", rel, i+1, m[1], es[k].cmd, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		i = end
	}
	if *updateTranscripts {
		if err := os.WriteFile(book, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
