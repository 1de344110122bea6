package model

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Check declares one finding code as data. Every room that reports
// findings declares its codes in a table of Checks next to its code (a
// checks.go file), and a call site names the Check: it never chooses the
// severity, the class or the wording of the fix. kmeta's `codes` command,
// the generated reference in docs/ and the test that no command prints an
// undeclared code all read these tables, through one collector
// (internal/registry). A room exports its table as Checks() (model's own,
// the image warnings and the facts several rooms report, as
// CommonChecks()).
//
// A check has one severity. Where a documented policy gives some of its
// findings another, the check says so as data: Escalated (higher, under
// EscalatedWhen) and Relaxed (lower, under RelaxedWhen), and the call
// site applies it with Escalate or Relax; it never names a severity.
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
	// Relaxed, when set, is the lower severity the check takes under the
	// condition RelaxedWhen says (an override the operator gave, a class
	// whose state moves on its own, a source too coarse to be sure). It
	// and Escalated are the only ways a finding of a check has a severity
	// other than Severity.
	Relaxed     Severity `json:"relaxed,omitempty"`
	RelaxedWhen string   `json:"relaxedWhen,omitempty"`
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

// Relax returns f at the check's relaxed severity. A check that declares
// none keeps its severity.
func (c *Check) Relax(f Finding) Finding {
	if c.Relaxed != "" {
		f.Severity = c.Relaxed
	}
	return f
}

// Severities are the severities the check's findings may have, most
// severe first: Escalated, Severity, Relaxed (those set).
func (c *Check) Severities() []Severity {
	out := make([]Severity, 0, 3)
	for _, s := range []Severity{c.Escalated, c.Severity, c.Relaxed} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Allows reports whether a finding of the check may have severity s.
func (c *Check) Allows(s Severity) bool { return slices.Contains(c.Severities(), s) }

// kebab is the one spelling of a code.
var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Validate says what is wrong with a declaration: a code that is not
// kebab-case, no room, title or command, a title over one line, a
// severity outside the one set, an escalation that is not above the
// severity or a relaxation not below it, or either without its condition.
func (c *Check) Validate() error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if !kebab.MatchString(c.Code) {
		bad("code %q is not kebab-case", c.Code)
	}
	if c.Room == "" {
		bad("no room")
	}
	if strings.TrimSpace(c.Title) == "" {
		bad("no title")
	}
	if strings.ContainsAny(c.Title, "\n\r") {
		bad("a title of more than one line")
	}
	if strings.TrimSpace(c.Meaning) == "" {
		bad("no meaning")
	}
	if c.Class == "" && c.ClassFrom == "" {
		bad("no class, and no ClassFrom saying where it comes from")
	}
	if len(c.Commands) == 0 {
		bad("no command prints it")
	}
	if !slices.Contains(Severities(), c.Severity) {
		bad("severity %q is not one of %v", c.Severity, Severities())
	}
	if c.Escalated != "" {
		if !slices.Contains(Severities(), c.Escalated) || c.Escalated.rank() >= c.Severity.rank() {
			bad("escalated severity %q is not a severity above %q", c.Escalated, c.Severity)
		}
		if c.EscalatedWhen == "" {
			bad("escalated without EscalatedWhen")
		}
	} else if c.EscalatedWhen != "" {
		bad("EscalatedWhen without an escalated severity")
	}
	if c.Relaxed != "" {
		if !slices.Contains(Severities(), c.Relaxed) || c.Relaxed.rank() <= c.Severity.rank() {
			bad("relaxed severity %q is not a severity below %q", c.Relaxed, c.Severity)
		}
		if c.RelaxedWhen == "" {
			bad("relaxed without RelaxedWhen")
		}
	} else if c.RelaxedWhen != "" {
		bad("RelaxedWhen without a relaxed severity")
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("check %q: %s", c.Code, strings.Join(errs, "; "))
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

// CheckIndex returns the lookup a room's findings take their check from:
// the tables given (a room's own, and those of the rooms whose codes it
// reports too), keyed by code, a later table's check winning. It is built
// on its first call, so that tables a room appends to in init are whole.
// An undeclared code panics, naming room: a programming error the first
// test reaching the call site catches.
func CheckIndex(room string, tables ...func() Checks) func(code string) *Check {
	index := sync.OnceValue(func() map[string]*Check {
		m := map[string]*Check{}
		for _, t := range tables {
			maps.Copy(m, t().Index())
		}
		return m
	})
	return func(code string) *Check {
		c, ok := index()[code]
		if !ok {
			panic(fmt.Sprintf("%s: no check %q declared", room, code))
		}
		return c
	}
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
