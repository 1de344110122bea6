// Package shellword quotes the words of the commands kmeta prints (gates,
// fixes, restore and migration steps) for a POSIX shell, so that each runs
// as printed: pasted into sh, bash or zsh, every word reaches the program
// as it was meant.
//
// A word of letters, digits and "-_./:,=@+%" is printed as it is: no
// shell gives any of them a meaning inside a word, except a leading '='
// (zsh expands "=cmd" to the command's path), which is quoted. Every other
// word is put in single quotes; a single quote in it ends them, is
// written escaped (\') and opens them again. Among the characters that are
// quoted are '[' and ']': an unquoted IPv6 address
// ("kafka://[::1]:9092") is a glob pattern, which zsh refuses when no file
// matches it ("no matches found") and every shell replaces when one does.
//
// ZKShell (zkshell.go) forms whole lines of one command: those that run
// Kafka's ZooKeeper CLI, reaching a secured ensemble (TLS, the brokers'
// SASL login, digest credentials) with what only the operator has left to
// shell variables that stop the line when unset.
package shellword

import "strings"

// Quote returns w as one word of a POSIX shell command line.
func Quote(w string) string {
	if w != "" && w[0] != '=' && strings.IndexFunc(w, unsafe) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with blanks.
func Join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}

func unsafe(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,=@+%", r))
}

// Reassign is the line that writes plan, a kafka-reassign-partitions
// JSON plan, to file in the working directory, then executes it with
// tool: the tool and its connection, already a shell line. The plan is
// written with echo, or with printf where it holds a backslash (a JSON
// escape), which some shells' echo would interpret.
func Reassign(tool, file, plan string) string {
	write := "echo " + Quote(plan)
	if strings.Contains(plan, `\`) {
		write = `printf '%s\n' ` + Quote(plan)
	}
	f := Quote(file)
	return write + " > " + f + " && " + tool + " --reassignment-json-file " + f + " --execute"
}
