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
	status, _, err := c.Dist.Run(ctx, c.Dist.Tools.MetadataQuorum, "--bootstrap-controller", bc, "describe", "--status")
	if err != nil {
		return nil, err
	}
	repl, _, err := c.Dist.Run(ctx, c.Dist.Tools.MetadataQuorum, "--bootstrap-controller", bc, "describe", "--replication")
	if err != nil {
		return nil, err
	}
	feats, _, err := c.Dist.Run(ctx, c.Dist.Tools.Features, "--bootstrap-controller", bc, "describe")
	if err != nil {
		return nil, err
	}
	s := &QuorumStatus{Replication: map[int]string{}, KRaftVersion: -1,
		Raw: string(status) + "\n" + string(repl) + "\n" + string(feats)}
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
