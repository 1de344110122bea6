package roll

import (
	"strconv"
	"strings"
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
}

// GatesFor are the gate commands for node with the source words given.
func GatesFor(node int32, source []string) Gates {
	return Gates{Check: command("check", node, source), Wait: command("wait", node, source)}
}

func command(verb string, node int32, source []string) string {
	words := append([]string{"kmeta", "roll", verb, "--node", strconv.Itoa(int(node))}, source...)
	for i, w := range words {
		words[i] = Quote(w)
	}
	return strings.Join(words, " ")
}

// Quote quotes a word for a POSIX shell when it needs it.
func Quote(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,=@+%[]", r)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
