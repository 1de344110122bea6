package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
)

// KindKafkaRefused is the finding of a feature change Kafka refused (its
// validate-only or real UpdateFeatures answer).
const KindKafkaRefused = "kafka-refused"

// KafkaAnswer is Kafka's answer for one feature of an UpdateFeatures
// request.
type KafkaAnswer struct {
	Feature string `json:"feature"`
	// Error is Kafka's error ("" when accepted), Message its text.
	Error   string `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

// The outcomes of a feature change.
const (
	ChangeRefusedByKmeta = "refused by kmeta"
	ChangeRefusedByKafka = "refused by Kafka"
	ChangeWouldDo        = "would do"
	ChangeDone           = "done"
	ChangeNotConfirmed   = "not confirmed"
)

// FeatureChange is the JSON shape of features upgrade, downgrade and
// disable.
type FeatureChange struct {
	Source  string                 `json:"source"`
	Op      string                 `json:"op"`
	DryRun  bool                   `json:"dryRun"`
	Verdict features.ChangeVerdict `json:"verdict"`
	// Validated is Kafka's validate-only answer, absent when kmeta refused
	// (nothing was sent).
	Validated []KafkaAnswer `json:"validated,omitempty"`
	// Applied is Kafka's answer to the real request, absent when none was
	// sent.
	Applied []KafkaAnswer `json:"applied,omitempty"`
	// Before and After are the finalized levels Kafka reports (ApiVersions)
	// before the change and after it; After is absent when nothing was
	// written.
	Before map[string]int16 `json:"before"`
	After  map[string]int16 `json:"after,omitempty"`
	// Outcome is one of the Change* strings; Sent says whether any
	// request was sent to Kafka (validate-only included) and Written
	// whether the real one was.
	Outcome string `json:"outcome"`
	Sent    bool   `json:"sent"`
	Written bool   `json:"written"`
	// Gaps are nodes kmeta could not ask for their ranges.
	Gaps []string `json:"gaps,omitempty"`
	// Findings are kmeta's and Kafka's, sorted.
	Findings []model.Finding `json:"findings"`
	// Roll is kraft.version 0→1's config roll, node by node in roll's
	// order, each between its roll check and its roll wait;
	// BootstrapServers the controller.quorum.bootstrap.servers value
	// each node gets (from the voters' endpoints, "" when unknown).
	Roll             []RollPlanStep `json:"roll,omitempty"`
	BootstrapServers string         `json:"bootstrapServers,omitempty"`
	// BrokersRoll, when the change was asked through the controllers,
	// which list no broker, is the command that lists the brokers and
	// prints their gated roll through a broker: Roll then holds the
	// controllers alone.
	BrokersRoll string `json:"brokersRoll,omitempty"`
}

// FeatureChangeReport renders a feature change: one line per feature with
// kmeta's verdict and Kafka's answer, the levels before and after as Kafka
// reports them, the findings, the config roll a kraft.version upgrade
// needs, and the outcome. Exit 0 when done or it would be done, 1 when
// kmeta or Kafka refused (or it was not confirmed).
func FeatureChangeReport(d FeatureChange) Report {
	var fs []model.Finding
	fs = append(fs, d.Verdict.Findings...)
	for _, set := range [][]KafkaAnswer{d.Validated, d.Applied} {
		for _, a := range set {
			if a.Error != "" {
				fs = append(fs, checks.Must(KindKafkaRefused).Finding(a.Feature, printer.Clean(strings.TrimSpace(a.Error+": "+a.Message)), ""))
			}
		}
	}
	model.SortFindings(fs)
	if fs == nil {
		fs = []model.Finding{}
	}
	d.Findings = fs

	rows := printer.Rows{Columns: []printer.Column{
		{Header: "FEATURE", Key: "feature", Essential: true}, {Header: "FROM", Key: "from"}, {Header: "TO", Key: "to", Essential: true},
		{Header: "TYPE", Key: "upgradeType"}, {Header: "KMETA", Key: "kmeta", Essential: true}, {Header: "KAFKA", Key: "kafka", Essential: true},
		{Header: "AFTER", Key: "after"},
	}}
	answer := func(set []KafkaAnswer, name string) (string, bool) {
		for _, a := range set {
			if a.Feature == name {
				if a.Error != "" {
					return "refused", true
				}
				return "accepted", true
			}
		}
		return "", false
	}
	ls := []string{fmt.Sprintf("features %s on %s (%s catalog)", d.Op, printer.Clean(d.Source), d.Verdict.Catalog)}
	for _, ch := range d.Verdict.Changes {
		km := "allowed"
		if !ch.Allowed {
			km = "refused"
		}
		kafka := "not asked"
		if a, ok := answer(d.Validated, ch.Feature); ok {
			kafka = a + " (validate-only)"
		}
		if a, ok := answer(d.Applied, ch.Feature); ok {
			kafka = a
		}
		after := "-"
		if d.After != nil {
			after = levelText(ch.Feature, d.After[ch.Feature], d.Verdict.Catalog)
		}
		from := levelText(ch.Feature, ch.From, d.Verdict.Catalog)
		to := levelText(ch.Feature, ch.To, d.Verdict.Catalog)
		if ch.ToName != "" {
			from, to = fmt.Sprintf("%s (%d)", ch.FromName, ch.From), fmt.Sprintf("%s (%d)", ch.ToName, ch.To)
		}
		rows.Rows = append(rows.Rows, []string{ch.Feature, from, to, string(ch.UpgradeType), km, kafka, after})
		ls = append(ls, fmt.Sprintf("  %s: %s -> %s (%s): kmeta %s, Kafka %s", ch.Feature, from, to, ch.UpgradeType, km, kafka))
	}
	levels := func(m map[string]int16) string {
		var parts []string
		for _, k := range sortedKeys(m) {
			parts = append(parts, fmt.Sprintf("%s=%s", k, levelText(k, m[k], d.Verdict.Catalog)))
		}
		return strings.Join(parts, ", ")
	}
	ls = append(ls, "before: "+levels(d.Before))
	if d.After != nil {
		ls = append(ls, "after:  "+levels(d.After))
	}
	for _, g := range d.Gaps {
		ls = append(ls, "not asked for its supported ranges (the controller checks them): "+printer.Clean(g))
	}
	ls = append(ls, printer.FindingsLines(fs)...)
	if d.Written && len(d.Verdict.ConfigRoll) > 0 && len(d.Roll) > 0 {
		bs := d.BootstrapServers
		if bs == "" {
			bs = "the controllers' HOST:PORT list"
		}
		ls = append(ls, "now roll the quorum configs:", "  1. "+d.Verdict.ConfigRoll[0],
			"  2. then one node at a time, in this order: set controller.quorum.bootstrap.servers="+printer.Clean(bs)+", remove controller.quorum.voters, restart it:")
		for i, s := range d.Roll {
			ls = append(ls, fmt.Sprintf("     %d. %s %d (%s)", i+1, rollRoles(s.Roles), s.Node, printer.Clean(s.Why)),
				"        "+printer.Clean(s.Check)+"    # go on only when it exits 0",
				fmt.Sprintf("        change node %d's file as above and restart it", s.Node),
				"        "+printer.Clean(s.Wait)+"    # go on only when it exits 0")
		}
		if d.BrokersRoll != "" {
			ls = append(ls, fmt.Sprintf("     %d. %s", len(d.Roll)+1, brokersNotListed), "        "+printer.Clean(d.BrokersRoll))
		}
		ls = append(ls, "  3. "+d.Verdict.ConfigRoll[len(d.Verdict.ConfigRoll)-1])
	} else if d.Written && len(d.Verdict.ConfigRoll) > 0 {
		ls = append(ls, "now roll the quorum configs, in this order:")
		for i, s := range d.Verdict.ConfigRoll {
			ls = append(ls, fmt.Sprintf("  %d. %s", i+1, s))
		}
		if d.BrokersRoll != "" {
			ls = append(ls, "  "+brokersNotListed, "    "+printer.Clean(d.BrokersRoll))
		}
	} else if len(d.Verdict.ConfigRoll) > 0 && d.Outcome == ChangeWouldDo {
		ls = append(ls, "after the upgrade, the quorum configs must be rolled: controller.quorum.bootstrap.servers replaces controller.quorum.voters")
		if d.BrokersRoll != "" {
			ls = append(ls, "  "+brokersNotListed, "    "+printer.Clean(d.BrokersRoll))
		}
	}
	ls = append(ls, outcomeLine(d))
	frows := printer.FindingsRows(fs)
	out := Report{Document: printer.Document{JSON: d, Sections: []printer.Section{
		{Only: printer.Text, Lines: ls},
		{Only: printer.Table, Rows: &rows},
		{Only: printer.Table, Rows: &frows},
	}}}
	switch d.Outcome {
	case ChangeRefusedByKmeta, ChangeRefusedByKafka, ChangeNotConfirmed:
		out.Exit = Findings
	}
	return out
}

// brokersNotListed heads the brokers' roll line (FeatureChange.BrokersRoll)
// where a controller could not list them.
const brokersNotListed = "the brokers: not listed through a controller (--bootstrap-controller), so not in this roll; after the controllers, " +
	"change each broker's file the same way, one at a time, in the order and between the gates this prints through a broker ($BOOTSTRAP_SERVER):"

func outcomeLine(d FeatureChange) string {
	switch d.Outcome {
	case ChangeRefusedByKmeta:
		return "refused by kmeta: nothing was sent to Kafka"
	case ChangeRefusedByKafka:
		if d.Written {
			return "refused by Kafka"
		}
		return "refused by Kafka (validate-only): nothing was written"
	case ChangeWouldDo:
		return "would do: Kafka validated the change (--dry-run: nothing was written)"
	case ChangeNotConfirmed:
		return "not confirmed: nothing was written"
	}
	return "done: Kafka applied the change"
}

// levelText shows a finalized level; metadata.version with its name in
// the catalog.
func levelText(feature string, lvl int16, catalog string) string {
	if feature == features.MetadataVersionFeature {
		if cat, err := features.CatalogFor(catalog); err == nil {
			if l, ok := cat.ByLevel(lvl); ok {
				return fmt.Sprintf("%s (%d)", l.Name, lvl)
			}
		}
	}
	return strconv.Itoa(int(lvl))
}

func sortedKeys(m map[string]int16) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
