package kafkatest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// QuorumStatus is what Kafka's own kafka-metadata-quorum reports about a
// running quorum (describe --status and --replication) plus the
// finalized kraft.version (kafka-features describe): the oracle for which
// voters a quorum has and whether it is static or dynamic.
type QuorumStatus struct {
	ClusterID     string
	LeaderID      int
	LeaderEpoch   int
	HighWatermark int64
	Voters        []QuorumNode
	Observers     []QuorumNode
	// Replication maps node id to its Status column (Leader, Follower,
	// Observer).
	Replication map[int]string
	// KRaftVersion is kraft.version's FinalizedVersionLevel (-1 when the
	// tool did not print it).
	KRaftVersion int
	// StatusFields are the --status lines as printed, key to value
	// (ClusterId, LeaderId, ..., CurrentObservers).
	StatusFields map[string]string
	// Rows are the --replication table's rows, in the tool's order.
	Rows []ReplicationRow
	// Raw is the tools' output, for logs.
	Raw string
}

// QuorumNode is one entry of CurrentVoters or CurrentObservers.
type QuorumNode struct {
	ID          int      `json:"id"`
	DirectoryID string   `json:"directoryId"`
	Endpoints   []string `json:"endpoints"`
}

// VoterIDs returns the voters' ids, sorted.
func (s *QuorumStatus) VoterIDs() []int {
	var ids []int
	for _, v := range s.Voters {
		ids = append(ids, v.ID)
	}
	slices.Sort(ids)
	return ids
}

// DescribeQuorum asks the cluster's controllers, through Kafka's
// kafka-metadata-quorum and kafka-features (--bootstrap-controller), for
// the quorum's state.
func (c *Cluster) DescribeQuorum(ctx context.Context) (*QuorumStatus, error) {
	bc := c.BootstrapControllers()
	// The three tools in one JVM (RunCalls): a JVM start each was seconds
	// of every wait for the quorum on a loaded machine.
	runs, err := c.Dist.RunCalls(ctx, []ToolCall{
		{c.Dist.Tools.MetadataQuorum, []string{"--bootstrap-controller", bc, "describe", "--status"}},
		{c.Dist.Tools.MetadataQuorum, []string{"--bootstrap-controller", bc, "describe", "--replication"}},
		{c.Dist.Tools.Features, []string{"--bootstrap-controller", bc, "describe"}},
	})
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.Exit != 0 {
			return nil, fmt.Errorf("kafkatest: describe the quorum at %s: exit %d\n%s", bc, r.Exit, tail(r.Stderr, 30))
		}
	}
	status, repl, feats := runs[0].Stdout, runs[1].Stdout, runs[2].Stdout
	s := &QuorumStatus{Replication: map[int]string{}, KRaftVersion: -1,
		Raw: string(status) + "\n" + string(repl) + "\n" + string(feats)}
	s.StatusFields = ParseStatusLines(string(status))
	if s.Rows, err = ParseReplication(string(repl)); err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		var perr error
		switch strings.TrimSpace(k) {
		case "ClusterId":
			s.ClusterID = v
		case "LeaderId":
			s.LeaderID, perr = strconv.Atoi(v)
		case "LeaderEpoch":
			s.LeaderEpoch, perr = strconv.Atoi(v)
		case "HighWatermark":
			s.HighWatermark, perr = strconv.ParseInt(v, 10, 64)
		case "CurrentVoters":
			perr = json.Unmarshal([]byte(v), &s.Voters)
		case "CurrentObservers":
			perr = json.Unmarshal([]byte(v), &s.Observers)
		}
		if perr != nil {
			return nil, fmt.Errorf("kafkatest: describe --status line %q: %w", l, perr)
		}
	}
	for _, l := range strings.Split(string(repl), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		if id, err := strconv.Atoi(f[0]); err == nil {
			s.Replication[id] = f[len(f)-1]
		}
	}
	for _, l := range strings.Split(string(feats), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "Feature:" && f[1] == "kraft.version" {
			for i := 2; i+1 < len(f); i++ {
				if f[i] == "FinalizedVersionLevel:" {
					s.KRaftVersion, _ = strconv.Atoi(f[i+1])
				}
			}
		}
	}
	return s, nil
}

// WaitQuorum polls DescribeQuorum until the quorum has a leader and
// exactly the voters ids, each of them Leader or Follower in the
// replication table, or timeout passes.
func (c *Cluster) WaitQuorum(ctx context.Context, timeout time.Duration, ids ...int) (*QuorumStatus, error) {
	want := slices.Sorted(slices.Values(ids))
	deadline := time.Now().Add(timeout)
	for {
		s, err := c.DescribeQuorum(ctx)
		if err == nil {
			ok := s.LeaderID >= 0 && slices.Equal(s.VoterIDs(), want)
			for _, id := range want {
				if st := s.Replication[id]; st != "Leader" && st != "Follower" {
					ok = false
				}
			}
			if ok {
				return s, nil
			}
			err = fmt.Errorf("kafkatest: quorum not formed yet:\n%s", s.Raw)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return s, err
		}
		time.Sleep(2 * time.Second)
	}
}

// ReplicationRow is one row of kafka-metadata-quorum describe
// --replication: Cells by column header as printed, and the numbers.
type ReplicationRow struct {
	Cells                                                        map[string]string
	NodeID                                                       int
	LogEndOffset, Lag, LastFetchTimestamp, LastCaughtUpTimestamp int64
}

// ReplicationColumns are --replication's columns.
var ReplicationColumns = []string{"NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp", "Status"}

// ParseStatusLines reads describe --status's "Key: value" lines (any
// other line, one without a known key, is skipped), so that another
// tool's text in the same form can be read the same way.
func ParseStatusLines(text string) map[string]string {
	known := map[string]bool{"ClusterId": true, "LeaderId": true, "LeaderEpoch": true, "HighWatermark": true,
		"MaxFollowerLag": true, "MaxFollowerLagTimeMs": true, "CurrentVoters": true, "CurrentObservers": true}
	out := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok && known[k] {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// ParseReplication reads describe --replication's table by its header
// (columns split on white space; extra columns are kept in Cells), so
// that another tool's table in the same form can be read the same way.
func ParseReplication(text string) ([]ReplicationRow, error) {
	var header []string
	var rows []ReplicationRow
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "NodeId" {
			header = f
			continue
		}
		if header == nil || len(f) != len(header) {
			continue
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			continue
		}
		r := ReplicationRow{Cells: map[string]string{}}
		for i, h := range header {
			r.Cells[h] = f[i]
		}
		var err error
		num := func(k string) int64 {
			n, perr := strconv.ParseInt(r.Cells[k], 10, 64)
			if perr != nil && err == nil {
				err = fmt.Errorf("kafkatest: --replication column %s: %q in %q", k, r.Cells[k], l)
			}
			return n
		}
		r.NodeID = int(num("NodeId"))
		r.LogEndOffset, r.Lag = num("LogEndOffset"), num("Lag")
		r.LastFetchTimestamp, r.LastCaughtUpTimestamp = num("LastFetchTimestamp"), num("LastCaughtUpTimestamp")
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	if header == nil {
		return nil, fmt.Errorf("kafkatest: no --replication header in %q", text)
	}
	return rows, nil
}
