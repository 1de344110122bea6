package mutate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// The kinds of issue 29's surfaces: files an operator writes, read by the
// commands added after issue 8. Their campaign (cmd/kmeta's
// TestMutateCampaignHostile) checks the invariants every run keeps (no
// panic, no hang, bounded memory, no secret printed, no input changed, no
// file written on a refusal) and, where a validator says a mutant is
// damage, that no command answers it with exit 0.
const (
	// ClientConfig: a client.properties for --command-config, holding a
	// SASL password in sasl.jaas.config.
	ClientConfig Kind = "client-config"
	// ServerProperties: a node's server.properties (--config ID=FILE,
	// --server-properties).
	ServerProperties Kind = "server-properties"
	// Exceptions: a lint --exceptions file.
	Exceptions Kind = "exceptions"
)

// HostileKinds lists them (Kinds lists issue 8's).
var HostileKinds = []Kind{ClientConfig, ServerProperties, Exceptions}

// jaasEdits break sasl.jaas.config the ways an operator's hand does: a
// value where an option belongs, a quote left open, ':' for '=', a
// missing ';', a value's character as a bad \u escape.
var jaasEdits = []textEdit{
	lineEdit("jaas-colon", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		return jaasLine(lines, func(v string) string { return strings.Replace(v, `password="`, `password:"`, 1) }, "password written with ':'")
	}),
	lineEdit("jaas-open-quote", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		return jaasLine(lines, func(v string) string { return strings.TrimSuffix(strings.TrimSuffix(v, ";"), `"`) }, "the password's closing quote and ';' removed")
	}),
	lineEdit("jaas-bare-word", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		return jaasLine(lines, func(v string) string {
			_, pw, _ := strings.Cut(v, `password="`)
			pw, _, _ = strings.Cut(pw, `"`)
			return strings.Replace(v, ` username=`, ` `+pw+` username=`, 1)
		}, "the password as a bare word before username")
	}),
	lineEdit("jaas-module-is-value", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		return jaasLine(lines, func(v string) string {
			_, pw, _ := strings.Cut(v, `password="`)
			pw, _, _ = strings.Cut(pw, `"`)
			_, rest, _ := strings.Cut(v, " ")
			return pw + " " + rest
		}, "the password where the login module belongs")
	}),
	lineEdit("jaas-no-semicolon", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		return jaasLine(lines, func(v string) string { return strings.TrimSuffix(v, ";") }, "the final ';' removed")
	}),
	lineEdit("jaas-bad-escape", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		return jaasLine(lines, func(v string) string { return strings.Replace(v, `password="`, `password="\u`, 1) }, `a \u before the password's first characters`)
	}),
}

// jaasLine rewrites the sasl.jaas.config line's value.
func jaasLine(lines []string, f func(string) string, desc string) ([]string, string, bool) {
	for i, l := range lines {
		if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "sasl.jaas.config" {
			lines[i] = k + "=" + f(v)
			return lines, desc, lines[i] != l
		}
	}
	return nil, "", false
}

// noValidator: what a client or node would make of a mutated settings
// file is the peer's to say; the campaign checks the invariants only.
func noValidator(_, _ []byte, _ Context) error { return errors.New("settings: no validator") }

// exceptionsEdits change an exceptions file's JSON.
var exceptionsEdits = []textEdit{
	{"trailing-garbage", func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		g := pick(r, " x", "}", "]", "\n{}", " null", string(b))
		return append(bytes.TrimRight(b, "\n"), g...), fmt.Sprintf("append %.20q", g), true
	}},
	{"null", func(r *rand.Rand, b []byte) ([]byte, string, bool) { return []byte("null"), "the file is null", true }},
	{"top-level", func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		v := pick(r, "[]", `""`, "0", "{}", `{"exceptions": null}`, `{"exceptions": {}}`)
		return []byte(v), "the file is " + v, true
	}},
	objEdit("exceptions-key", func(r *rand.Rand, kvs []kv) ([]kv, string, bool) {
		k := pick(r, "Exceptions", "exception", "rules", "")
		kvs[0].k = k
		return kvs, fmt.Sprintf("the top-level key renamed %q", k), true
	}),
	{"entry-field", func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		from := pick(r, `"rule"`, `"reason"`, `"topics"`)
		to := pick(r, `"Rule"`, `"why"`, `"topic"`, `"rule "`, from+`: 1, `+from)
		if !bytes.Contains(b, []byte(from)) {
			return nil, "", false
		}
		return bytes.Replace(b, []byte(from), []byte(to), 1), fmt.Sprintf("%s -> %s", from, to), true
	}},
	{"entry-value", func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		from := pick(r, `"throwaway data"`, `"scratch-*"`, `"replication-factor-one"`)
		to := pick(r, `""`, `"   "`, `null`, `1`, `"[x"`, `"no-such-rule"`, `["a"]`, `"scratch-[a-"`)
		if !bytes.Contains(b, []byte(from)) {
			return nil, "", false
		}
		return bytes.Replace(b, []byte(from), []byte(to), 1), fmt.Sprintf("%s -> %s", from, to), true
	}},
}

// validExceptions is an exceptions file as the format says it: one JSON
// object and nothing after it, whose one key is "exceptions", an array of
// objects with a rule (one the original names), a non-blank reason and,
// optionally, a topics glob (path.Match's syntax); no other field.
func validExceptions(orig, mut []byte, _ Context) error {
	var o struct {
		Exceptions []struct{ Rule string }
	}
	if err := json.Unmarshal(orig, &o); err != nil {
		return err
	}
	rules := map[string]bool{}
	for _, e := range o.Exceptions {
		rules[e.Rule] = true
	}
	d := json.NewDecoder(bytes.NewReader(mut))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	if bytes.Count(mut, []byte(`"topics"`)) > bytes.Count(orig, []byte(`"topics"`)) ||
		bytes.Count(mut, []byte(`"rule"`)) > bytes.Count(orig, []byte(`"rule"`)) ||
		bytes.Count(mut, []byte(`"reason"`)) > bytes.Count(orig, []byte(`"reason"`)) ||
		bytes.Count(mut, []byte(`"exceptions"`)) > 1 {
		return errors.New("a field given twice (JSON leaves which one counts to the reader)")
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("more after the document")
	}
	top, ok := v.(map[string]any)
	if !ok || len(top) != 1 {
		return errors.New("not an object with one key")
	}
	list, ok := top["exceptions"].([]any)
	if !ok {
		return errors.New("exceptions is not an array")
	}
	for i, x := range list {
		e, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("exceptions[%d] is not an object", i)
		}
		for k := range e {
			if !slices.Contains([]string{"rule", "reason", "topics"}, k) {
				return fmt.Errorf("exceptions[%d]: field %q", i, k)
			}
		}
		rule, _ := e["rule"].(string)
		reason, _ := e["reason"].(string)
		if !rules[rule] || strings.TrimSpace(reason) == "" {
			return fmt.Errorf("exceptions[%d]: rule %v, reason %v", i, e["rule"], e["reason"])
		}
		if t, ok := e["topics"]; ok {
			s, isStr := t.(string)
			if !isStr {
				return fmt.Errorf("exceptions[%d]: topics %v", i, t)
			}
			if _, err := path.Match(s, ""); err != nil {
				return fmt.Errorf("exceptions[%d]: topics %q: %v", i, s, err)
			}
		}
	}
	return nil
}
