package report

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

// notReported is what a cell shows for a field the source cannot report
// (one token, so that the text table splits into fields).
const notReported = "not-reported"

// QuorumDescribe is the JSON of quorum describe: the status as the source
// gave it, kafka-metadata-quorum's two derived figures, and the judge's
// answer.
type QuorumDescribe struct {
	Status *model.QuorumStatus `json:"status"`
	// MaxFollowerLag and MaxFollowerLagTimeMs as kafka-metadata-quorum
	// describe --status computes them (-1 when the source cannot say).
	MaxFollowerLag       int64 `json:"maxFollowerLag"`
	MaxFollowerLagTimeMs int64 `json:"maxFollowerLagTimeMs"`
	voters.Assessment
}

// maxFollowerLag is kafka-metadata-quorum's MaxFollowerLag and
// MaxFollowerLagTimeMs: the voter with the lowest log end offset (the
// first of equals) against the leader; 0 ms when that is the leader, -1
// when either caught-up time is unknown. ok is false when the source
// cannot tell (no leader, or an end offset it does not know).
func maxFollowerLag(st *model.QuorumStatus) (lag, ms int64, ok, msOK bool) {
	leader := st.Leader()
	if leader == nil || leader.LogEndOffset < 0 || len(st.Voters) == 0 {
		return -1, -1, false, false
	}
	low := &st.Voters[0]
	for i := range st.Voters {
		if st.Voters[i].LogEndOffset < low.LogEndOffset {
			low = &st.Voters[i]
		}
	}
	if low.LogEndOffset < 0 && !st.Reports(model.QuorumFieldLastFetch) {
		// A log dir not given, not a voter Kafka calls unknown.
		return -1, -1, false, false
	}
	lag = leader.LogEndOffset - low.LogEndOffset
	if !st.Reports(model.QuorumFieldLastCaughtUp) {
		return lag, -1, true, false
	}
	switch {
	case low.ID == leader.ID:
		ms = 0
	case leader.LastCaughtUpTimestamp >= 0 && low.LastCaughtUpTimestamp >= 0:
		ms = leader.LastCaughtUpTimestamp - low.LastCaughtUpTimestamp
	default:
		ms = -1
	}
	return lag, ms, true, true
}

// endpointText is Kafka's form of a voter endpoint, LISTENER://host:port
// (an IPv6 host bracketed).
func endpointText(e model.Endpoint) string {
	return e.Name + "://" + net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port)))
}

// nodesText is CurrentVoters' and CurrentObservers' value as
// kafka-metadata-quorum (4.1+) prints it: JSON-like objects with the id,
// the directory id unless it is zero, and the endpoints when known.
func nodesText(rs []model.QuorumReplica) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		var b strings.Builder
		fmt.Fprintf(&b, `{"id": %d`, r.ID)
		if !r.DirectoryID.IsZero() {
			fmt.Fprintf(&b, `, "directoryId": "%s"`, r.DirectoryID)
		}
		if len(r.Endpoints) > 0 {
			eps := make([]string, len(r.Endpoints))
			for i, e := range r.Endpoints {
				eps[i] = `"` + endpointText(e) + `"`
			}
			b.WriteString(`, "endpoints": [` + strings.Join(eps, ", ") + "]")
		}
		b.WriteString("}")
		parts = append(parts, b.String())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Quorum is the report of quorum describe: the lines of
// kafka-metadata-quorum describe --status, the table of --replication
// with a RestartSafe column, then the findings. Exit 1 on a finding at
// warning or above.
func Quorum(st *model.QuorumStatus, a voters.Assessment) Report {
	lag, ms, lagOK, msOK := maxFollowerLag(st)
	doc := QuorumDescribe{Status: st, MaxFollowerLag: lag, MaxFollowerLagTimeMs: ms, Assessment: a}
	num := func(f model.Field, v int64) string {
		if f != "" && !st.Reports(f) {
			return notReported
		}
		return strconv.FormatInt(v, 10)
	}
	orNR := func(ok bool, v int64) string {
		if !ok {
			return notReported
		}
		return strconv.FormatInt(v, 10)
	}
	observers := nodesText(st.Observers)
	if !st.Reports(model.QuorumFieldObservers) {
		observers = notReported
		if len(st.Observers) > 0 {
			observers += " (log dirs of non-voters given: " + nodesText(st.Observers) + ")"
		}
	}
	clusterID := st.ClusterID
	if !st.Reports(model.QuorumFieldClusterID) {
		clusterID = notReported
	}
	kv := [][2]string{
		{"ClusterId", printer.Clean(clusterID)},
		{"LeaderId", strconv.Itoa(int(st.LeaderID))},
		{"LeaderEpoch", strconv.Itoa(int(st.LeaderEpoch))},
		{"HighWatermark", num(model.QuorumFieldHighWatermark, st.HighWatermark)},
		{"MaxFollowerLag", orNR(lagOK, lag)},
		{"MaxFollowerLagTimeMs", orNR(msOK, ms)},
		{"CurrentVoters", printer.Clean(nodesText(st.Voters))},
		{"CurrentObservers", printer.Clean(observers)},
	}
	lines := make([]string, 0, len(kv))
	status := printer.Rows{Columns: []printer.Column{{Header: "FIELD", Key: "field"}, {Header: "VALUE", Key: "value", Wrap: true, Essential: true}}}
	for _, p := range kv {
		lines = append(lines, fmt.Sprintf("%-24s%s", p[0]+":", p[1]))
		status.Rows = append(status.Rows, []string{p[0], p[1]})
	}
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "NodeId", Key: "nodeId", Essential: true}, {Header: "DirectoryId", Key: "directoryId"},
		{Header: "LogEndOffset", Key: "logEndOffset"}, {Header: "Lag", Key: "lag"},
		{Header: "LastFetchTimestamp", Key: "lastFetchTimestamp"}, {Header: "LastCaughtUpTimestamp", Key: "lastCaughtUpTimestamp"},
		{Header: "Status", Key: "status", Essential: true}, {Header: "RestartSafe", Key: "restartSafe", Essential: true},
	}}
	leader := st.Leader()
	row := func(r model.QuorumReplica, status, safe string) {
		dir := r.DirectoryID.String()
		if !st.Reports(model.QuorumFieldDirectoryID) {
			dir = notReported
		}
		leo, lagCell := strconv.FormatInt(r.LogEndOffset, 10), notReported
		if r.LogEndOffset < 0 && !st.Reports(model.QuorumFieldLastFetch) {
			leo = notReported // a log dir not given
		} else if leader != nil && (leader.LogEndOffset >= 0 || st.Reports(model.QuorumFieldLastFetch)) {
			lagCell = strconv.FormatInt(leader.LogEndOffset-r.LogEndOffset, 10)
		}
		rows.Rows = append(rows.Rows, []string{strconv.Itoa(int(r.ID)), dir, leo, lagCell,
			num(model.QuorumFieldLastFetch, r.LastFetchTimestamp), num(model.QuorumFieldLastCaughtUp, r.LastCaughtUpTimestamp), status, safe})
	}
	// kafka-metadata-quorum's order: the leader, the other voters, the
	// observers.
	safe := map[int32]string{}
	for _, v := range a.Voters {
		safe[v.ID] = string(v.RestartSafe)
	}
	if leader != nil {
		row(*leader, "Leader", safe[leader.ID])
	}
	for _, v := range st.Voters {
		if leader == nil || v.ID != leader.ID {
			row(v, "Follower", safe[v.ID])
		}
	}
	for _, o := range st.Observers {
		row(o, "Observer", "-")
	}
	findings := printer.FindingsRows(a.Findings)
	out := Report{Document: printer.Document{JSON: doc, Sections: []printer.Section{
		{Only: printer.Text, Lines: lines},
		{Only: printer.Table, Rows: &status},
		{Rows: &rows},
	}}}
	if len(a.Findings) > 0 {
		out.Sections = append(out.Sections,
			printer.Section{Only: printer.Text, Lines: printer.FindingsLines(a.Findings), Findings: true},
			printer.Section{Only: printer.Table, Rows: &findings, Findings: true})
	}
	if a.Failing() {
		out.Exit = Findings
	}
	out.Page = quorumPage(st, a, kv, out.Exit)
	return out
}

// quorumPage is quorum describe's page: the status fields as facts, and
// each voter's log end offset and lag behind the leader (for the voters
// whose end offset the source knows).
func quorumPage(st *model.QuorumStatus, a voters.Assessment, kv [][2]string, e Exit) *printer.Page {
	verdict := "healthy"
	if n := len(a.Findings); n > 0 {
		verdict = printer.Count(n, "finding")
		if a.Failing() {
			verdict = "AT RISK, " + verdict
		}
	}
	offsets := printer.Chart{ID: "log-end-offset", Title: "Log end offset per voter", XLabel: "voter", YLabel: "offset",
		Series: []printer.Series{{Name: "log end offset"}}}
	lags := printer.Chart{ID: "lag", Title: "Lag behind the leader per voter", XLabel: "voter", YLabel: "records", Series: []printer.Series{{Name: "lag", Alert: true}}}
	leader := st.Leader()
	for _, v := range st.Voters {
		if v.LogEndOffset < 0 {
			continue
		}
		offsets.Labels = append(offsets.Labels, strconv.Itoa(int(v.ID)))
		offsets.Series[0].Values = append(offsets.Series[0].Values, float64(v.LogEndOffset))
		if leader != nil && leader.LogEndOffset >= 0 {
			lags.Labels = append(lags.Labels, strconv.Itoa(int(v.ID)))
			lags.Series[0].Values = append(lags.Series[0].Values, float64(leader.LogEndOffset-v.LogEndOffset))
		}
	}
	p := &printer.Page{Title: "kmeta quorum describe", Verdict: verdict, Status: status(e), Facts: kv, Findings: a.Findings}
	for _, ch := range []printer.Chart{offsets, lags} {
		if len(ch.Labels) > 0 {
			p.Charts = append(p.Charts, ch)
		}
	}
	return p
}
