package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// Plan is the report of migrate plan: JSON as the plan file holds it;
// text and table as a summary, the record counts, the files and the
// findings. A blocked plan is Findings.
func Plan(p *migrate.Plan) Report {
	verdict := "ready"
	if p.Blocked {
		verdict = fmt.Sprintf("BLOCKED (%s)", printer.Count(len(p.Blockers()), "blocker"))
	}
	var feats []string
	for _, f := range p.Features {
		feats = append(feats, fmt.Sprintf("%s=%d", f.Name, f.Level))
	}
	summary := printer.Rows{Columns: []printer.Column{{Header: "PLAN", Key: "key", Essential: true}, {Header: "", Key: "value", Wrap: true, Essential: true}}, Rows: [][]string{
		{"verdict", verdict},
		{"source", fmt.Sprintf("%s (zxid %#x)", p.Source, p.SourceZxid)},
		{"cluster id", p.ClusterID},
		{"metadata.version", fmt.Sprintf("%s (%d)", p.MetadataVersion.Name, p.MetadataVersion.Level)},
		{"features", strings.Join(feats, " ")},
		{"quorum", quorumSummary(p)},
		{"brokers to convert", fmt.Sprint(p.Brokers)},
		{"records", fmt.Sprintf("%d (%d bytes, sha256 %s)", p.Records.Total, p.Records.Bytes, p.Records.SHA256)},
	}}
	rc := printer.Rows{Columns: []printer.Column{{Header: "RECORD TYPE", Key: "type", Essential: true}, {Header: "VERSION", Key: "version", Essential: true}, {Header: "COUNT", Key: "count", Essential: true}}}
	for _, t := range p.Records.ByType {
		rc.Rows = append(rc.Rows, []string{t.Name, strconv.Itoa(int(t.Version)), strconv.Itoa(t.Count)})
	}
	st := printer.Rows{Columns: []printer.Column{{Header: "NODE", Key: "node", Essential: true}, {Header: "FILE", Key: "file", Wrap: true, Essential: true}, {Header: "CONTENT", Key: "summary", Wrap: true, Essential: true}}}
	for _, s := range p.Steps {
		st.Rows = append(st.Rows, []string{strconv.Itoa(int(s.Node)), s.File, s.Summary})
	}
	out := Report{Document: printer.Document{JSON: p, Sections: []printer.Section{{Rows: &summary}, {Rows: &rc}, {Rows: &st}}}}
	out.Sections = appendFindings(out.Sections, p.Findings)
	if p.Blocked {
		out.Exit = Findings
	}
	// The page: the summary rows are its facts, and a picture of the
	// records the plan writes, by type.
	records := printer.Chart{ID: "records", Title: "Records to be written, by type", XLabel: "record type", YLabel: "records",
		Series: []printer.Series{{Name: "records"}}}
	for _, t := range p.Records.ByType {
		records.Labels = append(records.Labels, strings.TrimSuffix(t.Name, "Record"))
		records.Series[0].Values = append(records.Series[0].Values, float64(t.Count))
	}
	facts := make([][2]string, 0, len(summary.Rows))
	for _, r := range summary.Rows[1:] {
		facts = append(facts, [2]string{r[0], r[1]})
	}
	out.Page = &printer.Page{Title: "kmeta migrate plan", Verdict: verdict, Status: status(out.Exit), Facts: facts, Findings: p.Findings}
	if len(records.Labels) > 0 {
		out.Page.Charts = []printer.Chart{records}
	}
	return out
}

func quorumSummary(p *migrate.Plan) string {
	if p.Quorum == migrate.QuorumDynamic {
		return "dynamic, kraft.version 1, initial voters " + controllers.Initial(p.Controllers)
	}
	return controllers.Voters(p.Controllers) + " (static, kraft.version 0)"
}

// FilesDoc is the -o json document of what apply, brokers (in text) and
// configs --out wrote or would write.
type FilesDoc struct {
	Files    []migrate.FileResult `json:"files"`
	Findings []model.Finding      `json:"findings"`
}

// Files is the report of files written (or, dry, that would be) and the
// findings that came with them.
func Files(files []migrate.FileResult, fs []model.Finding) Report {
	r := printer.Rows{Columns: []printer.Column{{Header: "ACTION", Key: "action", Essential: true}, {Header: "FILE", Key: "path", Wrap: true, Essential: true},
		{Header: "BYTES", Key: "bytes"}, {Header: "CONTENT", Key: "summary", Wrap: true, Essential: true}}}
	for _, f := range files {
		r.Rows = append(r.Rows, []string{f.Action, f.Path, strconv.Itoa(f.Bytes), f.Summary})
	}
	doc := printer.Document{JSON: FilesDoc{append([]migrate.FileResult{}, files...), append([]model.Finding{}, fs...)},
		Sections: appendFindings([]printer.Section{{Rows: &r}}, fs)}
	return Report{Document: doc}
}

// Brokers is the report of migrate brokers: its report as JSON, its files
// and findings in text and table.
func Brokers(r *migrate.BrokerReport) Report {
	out := Files(r.Files, r.Findings)
	out.JSON = r
	return out
}

// ConfigDoc is the -o json document of migrate configs without --out.
type ConfigDoc struct {
	Properties map[string]string `json:"properties"`
	Findings   []model.Finding   `json:"findings"`
}

// Config is the report of a generated server.properties printed rather
// than written: the file's text (as migrate.FormatConfig renders props,
// made from the file from), or its properties and findings as JSON. The
// node's passwords (ssl.keystore.password, sasl.jaas.config, every
// sensitive broker config) are redacted as every view of configs is
// unless showSecrets; a file written with --out keeps them. The findings
// go to stderr in text (ConfigNotes): stdout is the file.
func Config(props map[string]string, from string, fs []model.Finding, showSecrets bool) Report {
	if !showSecrets {
		props = model.RedactedConfigs(model.ConfigBroker, props)
	}
	data := migrate.FormatConfig(props, from)
	text := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	return Report{Document: printer.Document{JSON: ConfigDoc{props, append([]model.Finding{}, fs...)},
		Sections: []printer.Section{{Lines: text}}}}
}

// ConfigNotes are the findings of migrate configs as diagnostic lines.
func ConfigNotes(fs []model.Finding) []string {
	var out []string
	for _, f := range fs {
		s := fmt.Sprintf("%s %s: %s", f.Code, f.Entity, f.Message)
		if f.Fix != "" {
			s += fmt.Sprintf(" (instead: %s)", f.Fix)
		}
		out = append(out, s)
	}
	return out
}

// ConfigSummary is the content column of a written server.properties.
func ConfigSummary(props map[string]string) string {
	return fmt.Sprintf("process.roles=%s node.id=%s, %s", props["process.roles"], props["node.id"], printer.Count(len(props), "setting"))
}

// appendFindings adds the findings table as a section, when there are
// findings.
func appendFindings(ss []printer.Section, fs []model.Finding) []printer.Section {
	if len(fs) == 0 {
		return ss
	}
	rows := printer.FindingsRows(fs)
	return append(ss, printer.Section{Rows: &rows, Findings: true})
}
