package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/restore"
	"github.com/kmeta/kmeta/verify"
)

// Restore outcomes.
const (
	RestoreRefused        = "refused"          // kmeta refused (clusters differ): nothing sent
	RestoreNothing        = "nothing-to-do"    // TARGET already holds what is restorable
	RestorePrinted        = "printed"          // the commands are printed, nothing sent
	RestoreWouldDo        = "would-do"         // --dry-run: Kafka validated what it can, nothing written
	RestoreRefusedByKafka = "refused-by-kafka" // validate-only refused: nothing written
	RestoreNotConfirmed   = "not-confirmed"    // nothing written
	RestoreDone           = "done"             // sent and read back
)

// ActionResult is Kafka's answer for one action.
type ActionResult struct {
	Action  restore.ActionKind `json:"action"`
	Entity  string             `json:"entity"`
	Error   string             `json:"error,omitempty"`
	Message string             `json:"message,omitempty"`
	// Validated: the answer to validate-only; Kafka has none for ACLs.
	NotValidated bool `json:"notValidated,omitempty"`
}

// RestoreDoc is restore's JSON document.
type RestoreDoc struct {
	Source  string `json:"source"`
	Target  string `json:"target"`
	Outcome string `json:"outcome"`
	// Plan is the plan, secrets as their hash unless --show-secrets.
	Plan *restore.Plan `json:"plan"`
	// Commands are the plan as Kafka's commands (printed mode).
	Commands []restore.Command `json:"commands,omitempty"`
	// Validated and Applied are Kafka's answers.
	Validated []ActionResult `json:"validated,omitempty"`
	Applied   []ActionResult `json:"applied,omitempty"`
	// Left is what a plan made after the read back still holds: empty
	// when TARGET is back at the point (apart from NotRestored).
	Left []restore.Action `json:"left,omitempty"`
	// ReadBack says whether TARGET was read again after writing.
	ReadBack bool `json:"readBack"`
	// Incomplete says what the restore leaves undone until the operator
	// does it (set by RestoreReport): the plan's steps by hand, and the
	// printed commands commented out. Empty when nothing is.
	Incomplete []string `json:"incomplete,omitempty"`
}

// restoreIncomplete is what d leaves to the operator: each step by hand,
// then the printed commands commented out, by why.
func restoreIncomplete(d RestoreDoc) []string {
	var out []string
	if n := len(d.Plan.ByHand()); n > 0 {
		out = append(out, printer.Count(n, "secret")+" to set by hand (TO DO BY HAND under not restored)")
	}
	if n := heldCount(d.Commands, restore.HeldSecret); n > 0 {
		out = append(out, printer.Count(n, "command")+" commented out, holding a secret shown as its hash: --show-secrets prints it runnable")
	}
	if n := heldCount(d.Commands, restore.HeldControl); n > 0 {
		out = append(out, printer.Count(n, "command")+` commented out, holding a control character shown as \xNN: a live KRaft TARGET gets it through Kafka's API`)
	}
	return out
}

// RestorePlanLines are the plan's actions as lines: what each changes,
// why, and the values (secrets as the plan holds them).
func RestorePlanLines(p *restore.Plan) []string {
	var lines []string
	for _, a := range p.Actions {
		lines = append(lines, printer.Clean(fmt.Sprintf("%s %s: %s%s", a.Kind, a.Entity, a.Why, actionDetail(a))))
	}
	return lines
}

func actionDetail(a restore.Action) string {
	var parts []string
	was := func(w *string) string {
		if w == nil {
			return ""
		}
		return " (now " + *w + ")"
	}
	switch {
	case a.Topic != nil && a.Kind == restore.CreateTopic:
		for _, c := range a.Topic.Configs {
			parts = append(parts, c.Key+"="+c.Value)
		}
		if len(a.Topic.Assignment) > 0 {
			parts = append(parts, fmt.Sprintf("replicas %v", a.Topic.Assignment))
		}
	case a.Topic != nil:
		parts = append(parts, fmt.Sprintf("partitions %d → %d", a.Topic.From, a.Topic.Partitions))
	case a.Config != nil:
		for _, c := range a.Config.Set {
			parts = append(parts, "set "+c.Key+"="+c.Value+was(c.Was))
		}
		for _, c := range a.Config.Delete {
			parts = append(parts, "delete "+c.Key+was(c.Was))
		}
	case a.Quota != nil:
		for _, v := range a.Quota.Set {
			w := ""
			if v.Was != nil {
				w = " (now " + verify.QuotaValue(*v.Was) + ")"
			}
			parts = append(parts, "set "+v.Key+"="+verify.QuotaValue(v.Value)+w)
		}
		for _, v := range a.Quota.Remove {
			parts = append(parts, "remove "+v.Key+" (now "+verify.QuotaValue(v.Value)+")")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

// RestoreReport is the report of kmeta restore: the plan (every change,
// named), the commands when printed, Kafka's answers, what cannot be
// restored, the notes, and after a write what the read back left. Exit 1
// when kmeta or Kafka refused, the change was not confirmed, or the read
// back still finds something to restore; 0 otherwise (printed, validated
// by a dry run, done, nothing to do).
func RestoreReport(d RestoreDoc) Report {
	p := d.Plan
	head := fmt.Sprintf("restore %s to %s: %s, %s not restorable", printer.Clean(d.Target), printer.Clean(d.Source),
		printer.Count(len(p.Actions), "change"), printer.Count(len(p.NotRestored), "difference"))
	lines := []string{head}
	if p.Refused != "" {
		lines = append(lines, "refused: "+printer.Clean(p.Refused)+"; nothing is sent")
	}
	sections := []printer.Section{{Lines: lines}}
	if len(p.Actions) > 0 {
		sections = append(sections, printer.Section{Lines: append([]string{"changes:"}, indent(RestorePlanLines(p))...)})
	}
	if len(d.Commands) > 0 {
		cl := []string{"as Kafka's commands (run in this order):"}
		for _, c := range d.Commands {
			cl = append(cl, c.Line)
		}
		if held(d.Commands, restore.HeldSecret) {
			cl = append(cl, "# commented out: a command setting only secrets, which kmeta shows as their hash (--show-secrets prints it); the other keys of their config are in the commands above")
		}
		if held(d.Commands, restore.HeldControl) {
			cl = append(cl, `# commented out: a command holding a control character, shown as \xNN (a live KRaft TARGET gets it through Kafka's API, no shell)`)
		}
		sections = append(sections, printer.Section{Lines: cl})
	}
	if rc := p.ReassignCommand; rc != nil {
		sections = append(sections, printer.Section{Lines: []string{
			"replicas differ: the point's replicas, as a reassignment (then a preferred leader election):", rc.Line}})
	} else if js := p.ReassignmentJSON(); js != "" {
		sections = append(sections, printer.Section{Lines: []string{
			"replicas differ: a reassignment plan (kafka-reassign-partitions --execute --reassignment-json-file FILE):", printer.Clean(js)}})
	}
	if len(p.NotRestored) > 0 {
		nl := []string{"not restored:"}
		for _, u := range p.NotRestored {
			l := fmt.Sprintf("%s: %s: %s", u.Entity, u.Difference, u.Why)
			if u.Fix != "" {
				l += "; " + u.Fix
			}
			nl = append(nl, "  "+printer.Clean(l))
			if u.Command != nil {
				// On a line of its own, to be pasted as it is.
				nl = append(nl, "    "+u.Command.Line)
			}
			if u.ByHand != "" {
				nl = append(nl, "    TO DO BY HAND: "+printer.Clean(u.ByHand))
			}
		}
		sections = append(sections, printer.Section{Lines: nl})
	}
	for _, r := range []struct {
		what string
		rs   []ActionResult
	}{{"validate-only", d.Validated}, {"sent", d.Applied}} {
		if len(r.rs) == 0 {
			continue
		}
		rl := []string{"Kafka's answers (" + r.what + "):"}
		for _, x := range r.rs {
			a := "accepted"
			switch {
			case x.NotValidated:
				a = "no validate-only for this request: not asked"
			case x.Error != "":
				a = x.Error + ": " + x.Message
			}
			rl = append(rl, "  "+printer.Clean(fmt.Sprintf("%s %s: %s", x.Action, x.Entity, a)))
		}
		sections = append(sections, printer.Section{Lines: rl})
	}
	if len(p.Notes) > 0 {
		sections = append(sections, printer.Section{Lines: append([]string{"notes:"}, indent(cleanAll(p.Notes))...)})
	}
	var verdict string
	exit := OK
	if d.Outcome != RestoreRefused {
		d.Incomplete = restoreIncomplete(d)
	}
	switch d.Outcome {
	case RestoreRefused:
		verdict, exit = "refused: nothing was sent", Findings
	case RestoreNothing:
		verdict = "nothing to restore: TARGET holds what the point held (apart from what is not restorable)"
	case RestorePrinted:
		verdict = "printed; nothing was sent"
	case RestoreWouldDo:
		verdict = "dry run: Kafka validated the changes it can validate; nothing was written"
	case RestoreRefusedByKafka:
		verdict, exit = "Kafka refused: nothing was written", Findings
	case RestoreNotConfirmed:
		verdict, exit = "not confirmed: nothing was written", Findings
	case RestoreDone:
		verdict = "done: read back, TARGET holds what the point held (apart from what is not restorable)"
		if len(d.Left) > 0 {
			verdict, exit = fmt.Sprintf("sent; read back, %s still to restore", printer.Count(len(d.Left), "change")), Findings
		}
	}
	if len(d.Incomplete) > 0 {
		// Run as printed (or sent), the restore leaves these undone: a
		// script of the commands would otherwise end as if complete.
		verdict, exit = verdict+"; INCOMPLETE: "+strings.Join(d.Incomplete, "; "), Findings
	}
	sections = append(sections, printer.Section{Lines: []string{verdict}})
	if len(d.Left) > 0 {
		left := []string{"left after the read back:"}
		for _, a := range d.Left {
			left = append(left, "  "+printer.Clean(fmt.Sprintf("%s %s: %s", a.Kind, a.Entity, a.Why)))
		}
		sections = append(sections, printer.Section{Lines: left})
	}
	return Report{Document: printer.Document{JSON: d, Sections: sections}, Exit: exit}
}

func indent(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = "  " + l
	}
	return out
}

func cleanAll(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = printer.Clean(l)
	}
	return out
}

// held says whether a command is not runnable for why.
func held(cs []restore.Command, why string) bool {
	return slices.ContainsFunc(cs, func(c restore.Command) bool { return c.Held == why })
}

// heldCount counts the commands not runnable for why.
func heldCount(cs []restore.Command, why string) int {
	n := 0
	for _, c := range cs {
		if c.Held == why {
			n++
		}
	}
	return n
}
