package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/migrate/online"
	"github.com/kmeta/kmeta/model"
)

// OnlineStatus renders migrate status: the phase, each side's migration
// state, the brokers and controllers, what is waited for, the findings,
// and whether ZooKeeper and KRaft agree. Exit 0 when healthy in its
// phase, 1 when something is waited for or wrong.
func OnlineStatus(st *online.Status) Report {
	ls := []string{fmt.Sprintf("phase: %s (%s)", st.Phase, online.Phases[st.Phase].Summary)}
	z := st.ZooKeeper
	ctl := "none"
	switch {
	case z.ControllerID >= 0 && z.KRaftControllerEpoch >= 0:
		ctl = fmt.Sprintf("KRaft controller %d (kraftControllerEpoch %d)", z.ControllerID, z.KRaftControllerEpoch)
	case z.ControllerID >= 0:
		ctl = fmt.Sprintf("broker %d", z.ControllerID)
	case z.ControllerID < -1 || z.KRaftControllerEpoch >= 0:
		ctl = fmt.Sprintf("node %d (no node has that id)", z.ControllerID)
	}
	cluster := z.ClusterID
	if cluster == "" {
		cluster = "(none: no /cluster/id)"
	}
	mig := "absent"
	if m := z.Migration; m != nil {
		mig = fmt.Sprintf("kraft controller %d epoch %d, metadata offset %d epoch %d (znode version %d)", m.KRaftControllerID, m.KRaftControllerEpoch, m.KRaftMetadataOffset, m.KRaftMetadataEpoch, m.ZNodeVersion)
		if m.ZNodeNull {
			mig = "present, without data"
		}
	}
	ls = append(ls, fmt.Sprintf("zookeeper: cluster %s, /controller %s, /migration %s, brokers in /brokers/ids: %s", cluster, ctl, mig, ids(z.Brokers)))
	if k := st.KRaft; k != nil {
		kv := "static"
		if k.KRaftVersion == 1 {
			kv = "dynamic"
		}
		ls = append(ls, fmt.Sprintf("kraft: cluster %s, ZkMigrationState %s, metadata.version %s, %s quorum", k.ClusterID, k.State, orDash(k.MetadataVersion), kv))
	} else {
		ls = append(ls, "kraft: not given (--kraft or --bootstrap-controller)")
	}
	if m := st.Migrated; m != nil {
		var parts []string
		for _, c := range m.States {
			parts = append(parts, fmt.Sprintf("%s at offset %d (%s)", c.State, c.Offset, c.Time.Format("2006-01-02T15:04:05Z")))
		}
		ls = append(ls, "controllers' log: "+strings.Join(parts, ", "))
		if m.Records > 0 {
			ls = append(ls, fmt.Sprintf("migrated: %d records from ZooKeeper (offsets %d to %d)", m.Records, m.FirstOffset, m.LastOffset))
		}
	}
	brows := printer.Rows{Columns: []printer.Column{{Header: "BROKER", Key: "id", Essential: true}, {Header: "ZOOKEEPER", Key: "zookeeper", Essential: true},
		{Header: "KRAFT", Key: "kraft", Essential: true}, {Header: "FENCED", Key: "fenced"}, {Header: "CONFIG", Key: "config"}, {Header: "CAUSE", Key: "cause", Wrap: true}}}
	for _, b := range st.Brokers {
		zkv := "absent"
		if b.InZooKeeper {
			zkv = "registered"
		}
		brows.Rows = append(brows.Rows, []string{strconv.Itoa(int(b.ID)), zkv, b.KRaft, strconv.FormatBool(b.Fenced), orDash(string(b.Config)), orDash(b.Cause)})
		line := fmt.Sprintf("  broker %d: zookeeper %s, kraft %s", b.ID, zkv, b.KRaft)
		if b.Fenced {
			line += ", fenced"
		}
		if b.Config != "" {
			line += ", file: " + string(b.Config)
		}
		if b.Cause != "" {
			line += " — " + b.Cause
		}
		ls = append(ls, line)
	}
	crows := printer.Rows{Columns: []printer.Column{{Header: "CONTROLLER", Key: "id", Essential: true}, {Header: "VOTER", Key: "voter"},
		{Header: "MIGRATION", Key: "migration", Essential: true}, {Header: "CONFIG", Key: "config"}}}
	for _, c := range st.Controllers {
		crows.Rows = append(crows.Rows, []string{strconv.Itoa(int(c.ID)), strconv.FormatBool(c.Voter), c.Migration, orDash(string(c.Config))})
		ls = append(ls, fmt.Sprintf("  controller %d: migration flag %s, voter %t", c.ID, c.Migration, c.Voter))
	}
	switch {
	case st.Agree == nil:
	case *st.Agree:
		ls = append(ls, "zookeeper and kraft agree (verify): a rollback now loses nothing")
	default:
		ls = append(ls, fmt.Sprintf("zookeeper and kraft differ (verify: %d differences)", st.Differences))
	}
	for _, w := range st.WaitingFor {
		ls = append(ls, "waiting for "+printer.Clean(w))
	}
	ls = append(ls, printer.FindingsLines(st.Findings)...)
	verdict := "healthy in " + st.Phase.String()
	if !st.Healthy {
		verdict = "not healthy: see what is waited for and the findings"
	}
	if st.NextPhase != "" && st.Healthy {
		verdict += "; next: kmeta migrate stage " + st.NextPhase
	}
	ls = append(ls, verdict)
	frows := printer.FindingsRows(st.Findings)
	r := Report{Document: printer.Document{JSON: st, Sections: []printer.Section{
		{Only: printer.Text, Lines: ls},
		{Only: printer.Table, Lines: ls[:3]},
		{Only: printer.Table, Rows: &brows},
		{Only: printer.Table, Rows: &crows},
		{Only: printer.Table, Rows: &frows, Findings: true},
	}}}
	if !st.Healthy {
		r.Exit = Findings
	}
	return r
}

func ids(xs []int32) string {
	if len(xs) == 0 {
		return "none"
	}
	var ps []string
	for _, x := range xs {
		ps = append(ps, strconv.Itoa(int(x)))
	}
	return strings.Join(ps, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// StageDoc is the -o json document of migrate stage and rollback (and
// the stage.json written beside the files).
type StageDoc struct {
	Command string               `json:"command"`
	Phase   online.Phase         `json:"phase"`
	Current online.Phase         `json:"current"`
	Ready   bool                 `json:"ready"`
	Refused bool                 `json:"refused"`
	Checks  []model.Finding      `json:"checks"`
	Nodes   []online.NodePlan    `json:"nodes"`
	Steps   []online.Step        `json:"steps"`
	Format  *online.FormatPlan   `json:"format,omitempty"`
	Files   []migrate.FileResult `json:"files"`
	Status  *online.Status       `json:"status"`
	Out     string               `json:"out,omitempty"`
	DryRun  bool                 `json:"dryRun"`
}

// Redacted is the document with the values of secret settings in the
// nodes' changes replaced by their short hash (online.RedactedNodes).
func (d StageDoc) Redacted() StageDoc {
	d.Nodes = online.RedactedNodes(d.Nodes)
	return d
}

// Stage renders a staged phase or a rollback: the checks, each node's
// changes (secrets shown as their hash unless showSecrets), the steps in
// order and the files written. Exit 1 when refused.
func Stage(d StageDoc, showSecrets bool) Report {
	if !showSecrets {
		d = d.Redacted()
	}
	if d.Checks == nil {
		d.Checks = []model.Finding{}
	}
	if d.Files == nil {
		d.Files = []migrate.FileResult{}
	}
	var ls []string
	if d.Command == "rollback" {
		ls = append(ls, fmt.Sprintf("rollback from %s", d.Current))
	} else {
		ls = append(ls, fmt.Sprintf("stage %s (the cluster is in %s): %s", d.Phase, d.Current, online.Phases[d.Phase].Summary))
	}
	ls = append(ls, printer.FindingsLines(d.Checks)...)
	refused := d.Refused || (d.Command != "rollback" && !d.Ready)
	if refused {
		ls = append(ls, "refused: nothing was written")
	} else {
		for _, n := range d.Nodes {
			if len(n.Changes) == 0 {
				continue
			}
			ls = append(ls, fmt.Sprintf("%s %d → %s (%s):", n.Role, n.ID, n.Config, n.Profile))
			for _, l := range strings.Split(strings.TrimRight(online.FormatDiff(n.Changes, showSecrets), "\n"), "\n") {
				ls = append(ls, "  "+printer.Clean(l))
			}
		}
		if len(d.Steps) == 0 {
			ls = append(ls, "nothing to do")
		} else {
			ls = append(ls, "steps, in order:")
		}
		for _, s := range d.Steps {
			ls = append(ls, fmt.Sprintf("  %d. %s", s.Step, printer.Clean(s.What)))
			if s.Command != "" {
				ls = append(ls, "     "+printer.Clean(s.Command))
			}
		}
		for _, f := range d.Files {
			ls = append(ls, fmt.Sprintf("%s %s (%d bytes)", f.Action, printer.Clean(f.Path), f.Bytes))
		}
	}
	srows := printer.Rows{Columns: []printer.Column{{Header: "STEP", Key: "step", Essential: true}, {Header: "ACTION", Key: "action", Essential: true},
		{Header: "NODE", Key: "node"}, {Header: "FILE", Key: "config"}, {Header: "WHAT", Key: "what", Wrap: true, Essential: true}}}
	for _, s := range d.Steps {
		node := "-"
		if s.Node != nil {
			node = strconv.Itoa(int(*s.Node))
		}
		file := s.Config
		if s.Command != "" {
			file = s.Command
		}
		srows.Rows = append(srows.Rows, []string{strconv.Itoa(s.Step), s.Action, node, orDash(file), s.What})
	}
	frows := printer.FindingsRows(d.Checks)
	r := Report{Document: printer.Document{JSON: d, Sections: []printer.Section{
		{Only: printer.Text, Lines: ls},
		{Only: printer.Table, Lines: ls[:1]},
		{Only: printer.Table, Rows: &srows},
		{Only: printer.Table, Rows: &frows, Findings: true},
	}}}
	if refused {
		r.Exit = Findings
	}
	return r
}
