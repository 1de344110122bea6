package roll

import (
	"strconv"

	"github.com/kmeta/kmeta/shellword"
)

// Gates are the two commands that frame one restart in every procedure
// kmeta prints: `kmeta roll check` before the node is stopped (go on only
// when it exits 0), `kmeta roll wait` after it is started again (go on
// only when it exits 0). Source is how the user named the cluster: a
// SOURCE argument or a --bootstrap-* flag and the flags that tune the
// read, as command-line words.
type Gates struct {
	Check string `json:"check"`
	Wait  string `json:"wait"`
	// CheckArgs and WaitArgs are the same commands as words, after
	// "kmeta" (for a script that runs them without a shell).
	CheckArgs []string `json:"checkArgs"`
	WaitArgs  []string `json:"waitArgs"`
}

// GatesFor are the gate commands for node with the source words given.
func GatesFor(node int32, source []string) Gates {
	g := Gates{CheckArgs: Args("check", node, source), WaitArgs: Args("wait", node, source)}
	g.Check, g.Wait = CommandLine(g.CheckArgs), CommandLine(g.WaitArgs)
	return g
}

// Args are the words of `kmeta roll VERB --node N SOURCE...` after "kmeta".
func Args(verb string, node int32, source []string) []string {
	return append([]string{"roll", verb, "--node", strconv.Itoa(int(node))}, source...)
}

// CommandLine is "kmeta" and args as one shell line, each word quoted
// where it needs it.
func CommandLine(args []string) string {
	return "kmeta " + shellword.Join(args)
}
