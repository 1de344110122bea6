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
}

// Rebuild is the report of quorum rebuild: the plan (what each new
// controller's dir gets), what is given up, and what the brokers need.
func Rebuild(p *quorum.RebuildPlan, written bool) Report {
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
	doc := printer.Document{JSON: RebuildDoc{RebuildPlan: p, Written: written},
		Sections: appendFindings([]printer.Section{{Lines: lines}, {Rows: &r}, {Lines: brokers}}, p.Findings)}
	return Report{Document: doc}
}
