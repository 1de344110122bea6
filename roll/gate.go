package roll

import (
	"strconv"

	"github.com/kmeta/kmeta/shellword"
)

// Gates are the two commands that frame one restart in every procedure
// kmeta prints: `kmeta roll check` before the node is stopped (go on only
// when it exits 0), `kmeta roll wait` after it is started again (go on
// only when it exits 0).
type Gates struct {
	Check string `json:"check"`
	Wait  string `json:"wait"`
	// CheckArgs and WaitArgs are the same commands as words, after
	// "kmeta" (for a script that runs them without a shell).
	CheckArgs []string `json:"checkArgs"`
	WaitArgs  []string `json:"waitArgs"`
	// Env names the environment variables the commands need set (a
	// secret no command line carries); Check and Wait stop first, saying
	// what to set, when one is unset.
	Env []string `json:"env,omitempty"`
}

// Source is how the gate commands name the cluster.
type Source struct {
	// Words are how the user named it: a SOURCE argument or a
	// --bootstrap-* flag and the flags that tune the read, as
	// command-line words. nil: no source (no gates).
	Words []string
	// ZKDigest: the source is a live ZooKeeper read with digest
	// credentials (--zk-auth), which the commands take from
	// $KMETA_ZK_AUTH, as --zk-auth does: never from their words.
	ZKDigest bool
}

// GatesFor are the gate commands for node with the source given.
func GatesFor(node int32, src Source) Gates {
	g := Gates{CheckArgs: Args("check", node, src.Words), WaitArgs: Args("wait", node, src.Words)}
	g.Check, g.Wait = CommandLine(g.CheckArgs, src), CommandLine(g.WaitArgs, src)
	if src.ZKDigest {
		g.Env = []string{shellword.ZKDigestVar}
	}
	return g
}

// Args are the words of `kmeta roll VERB --node N SOURCE...` after "kmeta".
func Args(verb string, node int32, source []string) []string {
	return append([]string{"roll", verb, "--node", strconv.Itoa(int(node))}, source...)
}

// CommandLine is "kmeta" and args, which read src, as one shell line,
// each word quoted where it needs it; it stops first when src needs a
// variable that is unset (shellword.RequireZKDigest).
func CommandLine(args []string, src Source) string {
	line := "kmeta " + shellword.Join(args)
	if src.ZKDigest {
		line = shellword.RequireZKDigest() + line
	}
	return line
}
