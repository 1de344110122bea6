// Package toolstub is the test kit's one stand-in for the command-line
// tools a printed command runs (kafka-configs, kafka-topics,
// kafka-reassign-partitions, zookeeper-shell, ...): a test puts its bin
// dir first on the PATH, runs each printed line with sh as an operator
// would paste it, and reads back every call the line made: the tool's
// name, its arguments exactly as the shell split them, and what was piped
// to it. That proves what a shell makes of a line (quoting, variables,
// pipes, && chains), not what the tool does with the words; a tool's own
// parser reads the recorded calls where the test needs that too.
package toolstub

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// script is every stand-in. Each call takes the next number N from
// $KMETA_STUB_CALLS/next and writes callN: its name, then its arguments,
// each ended by a NUL. Its stdin, unless a terminal, is saved to
// callN.stdin first; an argument /dev/stdin (a file the tool would read
// its input from) is recorded as that file's path, so that a tool's own
// parser can read it later. It exits 1 when $KMETA_STUB_FAIL is set and
// equals its last argument or the last line of its stdin: how a test
// makes one call of a chain fail.
const script = `#!/bin/sh
d=$KMETA_STUB_CALLS
i=$(cat "$d/next" 2>/dev/null || echo 0)
echo $((i + 1)) > "$d/next"
f=$d/call$i
if [ ! -t 0 ]; then cat > "$f.stdin"; fi
printf '%s\0' "${0##*/}" > "$f"
last=
for a in "$@"; do
  if [ "$a" = /dev/stdin ]; then a=$f.stdin; fi
  printf '%s\0' "$a" >> "$f"
  last=$a
done
if [ -n "$KMETA_STUB_FAIL" ]; then
  if [ "$last" = "$KMETA_STUB_FAIL" ] || { [ -s "$f.stdin" ] && [ "$(tail -n 1 "$f.stdin")" = "$KMETA_STUB_FAIL" ]; }; then exit 1; fi
fi
exit 0
`

// Stub is a bin dir of stand-ins and the calls they recorded.
type Stub struct {
	// Bin is the dir holding the stand-ins, to put first on the PATH.
	Bin   string
	calls string
	seen  int // calls already returned by Run
}

// Call is one recorded call.
type Call struct {
	Tool string   // the name it was called by
	Args []string // its arguments, /dev/stdin replaced by StdinFile
	// Stdin is what was piped to it ("" when nothing was: sh gives a
	// line's commands the test's /dev/null).
	Stdin string
	// File is the recorded call (name and arguments, NUL-ended), and
	// StdinFile its saved stdin, for a tool's parser to read.
	File, StdinFile string
}

// New writes a stand-in under each of tools' names into a new bin dir.
func New(t testing.TB, tools ...string) *Stub {
	t.Helper()
	dir := t.TempDir()
	s := &Stub{Bin: filepath.Join(dir, "bin"), calls: filepath.Join(dir, "calls")}
	for _, d := range []string{s.Bin, s.calls} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range tools {
		if err := os.WriteFile(filepath.Join(s.Bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// Run runs line with sh -c in dir (the test's cwd when ""), the
// stand-ins first on the PATH and env added to the test's environment,
// and returns the shell's combined output, its error, and the calls the
// line made, in order.
func (s *Stub) Run(t testing.TB, dir, line string, env ...string) (string, []Call, error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PATH="+s.Bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KMETA_STUB_CALLS="+s.calls), env...)
	out, err := cmd.CombinedOutput()
	var calls []Call
	for ; ; s.seen++ {
		f := filepath.Join(s.calls, "call"+strconv.Itoa(s.seen))
		b, rerr := os.ReadFile(f)
		if rerr != nil {
			break
		}
		words := bytes.Split(bytes.TrimSuffix(b, []byte{0}), []byte{0})
		c := Call{Tool: string(words[0]), File: f, StdinFile: f + ".stdin"}
		for _, w := range words[1:] {
			c.Args = append(c.Args, string(w))
		}
		if in, rerr := os.ReadFile(c.StdinFile); rerr == nil {
			c.Stdin = string(in)
		}
		calls = append(calls, c)
	}
	return string(out), calls, err
}
