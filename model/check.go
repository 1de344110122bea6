package model

import (
	"fmt"
	"strings"
)

// Check declares one finding code as data. Every room that reports
// findings declares its codes in a table of Checks next to its code (a
// checks.go file), and a call site names the Check: it never chooses the
// severity, the class or the wording of the fix. kmeta's `codes` command,
// the generated reference in docs/ and the test that no command prints an
// undeclared code all read these tables, through one collector
// (internal/registry).
type Check struct {
	// Code is the stable kebab-case name scripts match on.
	Code string `json:"code"`
	// Room is the package that declares the check ("metalog", "lint",
	// "online", ...).
	Room string `json:"room"`
	// Class is the class findings of the check carry (a lint family,
	// "log", "migration", "quorum", a compared entity class...). A check
	// whose findings take the class of what they compare (verify's) leaves
	// it empty and says so in ClassFrom.
	Class string `json:"class,omitempty"`
	// ClassFrom says where the class comes from when it is not fixed.
	ClassFrom string `json:"classFrom,omitempty"`
	// Severity is the severity of every finding of the check.
	Severity Severity `json:"severity"`
	// Escalated, when set, is the severity the check takes under the
	// condition EscalatedWhen says (a torn tail under --strict, a
	// divergence below a snapshot's end). It is the only way a finding
	// of a check has a severity other than Severity.
	Escalated     Severity `json:"escalated,omitempty"`
	EscalatedWhen string   `json:"escalatedWhen,omitempty"`
	// Title says in one line what the check finds.
	Title string `json:"title"`
	// Meaning says what it means and why it matters.
	Meaning string `json:"meaning,omitempty"`
	// Fix is what to do about it: a template whose {NAME} placeholders a
	// finding fills in (FillFix), or plain words. Empty when nothing is
	// to be done (an informational note).
	Fix string `json:"fix,omitempty"`
	// Commands are the kmeta commands that can print the check
	// ("log check", "migrate stage", ...).
	Commands []string `json:"commands"`
}

// Finding makes a finding of the check about entity, saying message, with
// the fix given (a filled-in template, see FillFix; "" leaves the fix out).
func (c *Check) Finding(entity, message, fix string) Finding {
	return Finding{Code: c.Code, Severity: c.Severity, Class: c.Class, Entity: entity, Message: message, Fix: fix}
}

// Findingf is Finding with the check's fix template as it is (no
// placeholders to fill) and a formatted message.
func (c *Check) Findingf(entity, format string, args ...any) Finding {
	return c.Finding(entity, fmt.Sprintf(format, args...), c.Fix)
}

// Escalate returns f at the check's escalated severity. A check that
// declares none keeps its severity: the call site cannot invent one.
func (c *Check) Escalate(f Finding) Finding {
	if c.Escalated != "" {
		f.Severity = c.Escalated
	}
	return f
}

// FillFix fills the check's fix template: kv are pairs of a placeholder's
// NAME and its value. A placeholder left unfilled stays as it is, which
// is how a template names what the user must supply (BOOTSTRAP).
func (c *Check) FillFix(kv ...string) string {
	if len(kv) == 0 {
		return c.Fix
	}
	pairs := make([]string, 0, len(kv))
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, "{"+kv[i]+"}", kv[i+1])
	}
	return strings.NewReplacer(pairs...).Replace(c.Fix)
}

// Checks is one room's table. Lookup panics on a code the table does not
// hold: a call site naming an undeclared code is a programming error,
// caught by the first test that reaches it.
type Checks []*Check

// Lookup returns the check of a code.
func (cs Checks) Lookup(code string) (*Check, bool) {
	for _, c := range cs {
		if c.Code == code {
			return c, true
		}
	}
	return nil, false
}

// Must returns the check of a code, or panics.
func (cs Checks) Must(code string) *Check {
	c, ok := cs.Lookup(code)
	if !ok {
		panic(fmt.Sprintf("model: no check %q declared", code))
	}
	return c
}

// Index returns the table keyed by code, for rooms that look checks up on
// a hot path.
func (cs Checks) Index() map[string]*Check {
	m := make(map[string]*Check, len(cs))
	for _, c := range cs {
		m[c.Code] = c
	}
	return m
}
