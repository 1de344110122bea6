package report

import (
	"fmt"
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/quorum"
)

// RebuildDoc is the -o json document of quorum rebuild.
type RebuildDoc struct {
	*quorum.RebuildPlan
	// Written is false with --dry-run.
	Written bool `json:"written"`
	// ControllerWaits are the roll wait commands, one per new
	// controller, run once they are all started; Roll the brokers'
	// restarts in order, each between its roll check and its roll wait
	// (when their settings change).
	ControllerWaits []string       `json:"controllerWaits,omitempty"`
	Roll            []RollPlanStep `json:"roll,omitempty"`
	// GatesNeed says what the commands lack to connect (client settings
	// for secured listeners), "" when nothing.
	GatesNeed string `json:"gatesNeed,omitempty"`
}

// Rebuild is the report of quorum rebuild: the plan (what each new
// controller's dir gets), what is given up, and what the brokers need,
// as gated steps when waits and roll are given.
func Rebuild(p *quorum.RebuildPlan, written bool, waits []string, roll []RollPlanStep, gatesNeed string) Report {
	verb := "would write"
	if written {
		verb = "wrote"
	}
	kind := "static quorum (kraft.version 0): no voter records, the voters come from controller.quorum.voters"
	if p.KRaftVersion >= 1 {
		kind = "dynamic quorum (kraft.version 1): KRaftVersion and Voters records in the snapshot"
	}
	lines := []string{
		fmt.Sprintf("Source:          %s (cluster %s)", printer.Clean(p.Source), printer.Clean(p.ClusterID)),
		fmt.Sprintf("Snapshot:        end offset %d, epoch %d: %d records at metadata.version %s (Kafka %s)", p.EndOffset, p.Epoch, p.Records, p.MetadataVersion, p.Catalog),
		"Quorum:          " + kind,
	}
	for _, l := range p.Loss {
		lines = append(lines, fmt.Sprintf("Given up:        offsets %s held by %s", l, printer.Clean(l.Copy)))
	}
	r := printer.Rows{Columns: []printer.Column{{Header: "NODE", Key: "id", Essential: true}, {Header: "ENDPOINT", Key: "endpoint"},
		{Header: "DIRECTORY.ID", Key: "directoryId"}, {Header: "FILES", Key: "files", Wrap: true, Essential: true}}}
	for _, t := range p.Controllers {
		var fs []string
		for _, f := range t.Files {
			fs = append(fs, printer.Clean(t.Dir+"/"+f))
		}
		r.Rows = append(r.Rows, []string{fmt.Sprint(t.ID), printer.Clean(t.Endpoint), t.DirectoryID.String(), verb + " " + strings.Join(fs, ", ")})
	}
	brokers := []string{"Brokers: nothing to change (same cluster id, same voters)."}
	if len(p.Brokers) > 0 {
		brokers = []string{"Brokers: keep their metadata dirs and cluster id; on every broker change:"}
		for _, s := range p.Brokers {
			brokers = append(brokers, fmt.Sprintf("  %s=%s   (was %s)", s.Name, printer.Clean(s.To), printer.Clean(s.From)))
		}
	}
	if len(waits) > 0 {
		brokers = append(brokers, "", "Start every new controller on its dir, then wait for each (go on only when it exits 0):")
		for _, w := range waits {
			brokers = append(brokers, "  "+printer.Clean(w))
		}
	}
	if len(roll) > 0 {
		brokers = append(brokers, "", "Then restart the brokers with the settings above, one at a time, in this order:")
		for i, s := range roll {
			brokers = append(brokers, fmt.Sprintf("  %d. broker %d (%s)", i+1, s.Node, printer.Clean(s.Why)),
				"     "+printer.Clean(s.Check)+"    # go on only when it exits 0",
				fmt.Sprintf("     restart broker %d with the settings above", s.Node),
				"     "+printer.Clean(s.Wait)+"    # go on only when it exits 0")
		}
	}
	if gatesNeed != "" {
		brokers = append(brokers, "", "Note: "+printer.Clean(gatesNeed)+".")
	}
	doc := printer.Document{JSON: RebuildDoc{RebuildPlan: p, Written: written, ControllerWaits: waits, Roll: roll, GatesNeed: gatesNeed},
		Sections: appendFindings([]printer.Section{{Lines: lines}, {Rows: &r}, {Lines: brokers}}, p.Findings)}
	return Report{Document: doc}
}
