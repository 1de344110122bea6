package kafkaread

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/model"
)

// MaxVoters and MaxObservers bound what a DescribeQuorum answer may list:
// Raft needs a majority of the voters for every commit, so real quorums
// have a handful; observers are the brokers.
const (
	MaxVoters    = 256
	MaxObservers = 50_000
)

// metadataTopic is the KRaft metadata partition's topic (partition 0).
const metadataTopic = "__cluster_metadata"

// kraftVersionFeature is the feature that says static (0) or dynamic (1)
// quorum (KIP-853).
const kraftVersionFeature = "kraft.version"

// QuorumStatus asks the quorum's leader for its replication state
// (DescribeQuorum) and the cluster for its id (DescribeCluster), as
// kafka-metadata-quorum describe does. Through brokers the broker
// forwards DescribeQuorum to the active controller; through controllers
// (--bootstrap-controller) only the leader answers it, so when the
// bootstrap controller is a follower the request goes again to the
// leader DescribeCluster names.
//
// DescribeQuorum v2 (Kafka 3.9) carries directory ids and voter
// endpoints, v1 (3.3) fetch times; what an older version lacks is listed
// in the status's NotReported. The finalized kraft.version and the
// supported range are the answering node's ApiVersions.
func (c *Client) QuorumStatus(ctx context.Context) (*model.QuorumStatus, error) {
	minDC := int16(0)
	if c.cfg.Controllers {
		minDC = 1 // controllers answer DescribeCluster from v1 (KIP-919)
	}
	if err := c.need(60, minDC); err != nil {
		return nil, err
	}
	if err := c.need(55, 0); err != nil {
		return nil, err
	}
	dc := kmsg.NewPtrDescribeClusterRequest()
	if c.cfg.Controllers {
		dc.EndpointType = 2 // controllers
	}
	resp, err := c.request(ctx, dc)
	if err != nil {
		return nil, err
	}
	cluster := resp.(*kmsg.DescribeClusterResponse)
	if err := kerr.ErrorForCode(cluster.ErrorCode); err != nil {
		return nil, fmt.Errorf("DescribeCluster at %s: %w", c.Addr, c.classify(c.Addr, err))
	}
	q, err := c.describeQuorum(ctx, cluster)
	if err != nil {
		return nil, err
	}
	st := quorumStatus(q)
	st.ClusterID = cluster.ClusterID
	st.KRaftVersion = c.Finalized[kraftVersionFeature]
	st.KRaftVersionSupported = -1
	// Only registrations tell every controller's range: not this API.
	st.MetadataVersionSupported = -1
	st.MarkNotReported(model.QuorumFieldMVSupported)
	if r, ok := c.Supported[kraftVersionFeature]; ok {
		st.KRaftVersionSupported = r[1]
	} else {
		st.MarkNotReported(model.QuorumFieldKRaftSupported)
	}
	return st, nil
}

// notLeaderError: the controller asked is not the quorum's leader.
type notLeaderError struct{ addr string }

func (e *notLeaderError) Error() string {
	return fmt.Sprintf("%s is not the quorum's leader", e.addr)
}

// describeQuorum is the one DescribeQuorum kmeta sends (quorum describe,
// the image's quorum, the controllers a feature change is checked
// against). Through controllers, a follower does not answer it: it is
// asked again of the active controller that cluster (DescribeCluster for
// controllers) names; without cluster the follower's answer is the error.
func (c *Client) describeQuorum(ctx context.Context, cluster *kmsg.DescribeClusterResponse) (*kmsg.DescribeQuorumResponse, error) {
	q, err := c.askQuorum(ctx)
	var nl *notLeaderError
	if errors.As(err, &nl) && c.cfg.Controllers && cluster != nil {
		return c.askLeader(ctx, cluster)
	}
	return q, err
}

// askQuorum sends DescribeQuorum to the node the client talks to.
func (c *Client) askQuorum(ctx context.Context) (*kmsg.DescribeQuorumResponse, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = metadataTopic
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, err
	}
	r := resp.(*kmsg.DescribeQuorumResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return nil, fmt.Errorf("DescribeQuorum at %s: %w", c.Addr, c.classify(c.Addr, err))
	}
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 1 {
		return nil, fmt.Errorf("DescribeQuorum at %s: the answer holds %d topics, want %s-0 alone", c.Addr, len(r.Topics), metadataTopic)
	}
	part := r.Topics[0].Partitions[0]
	if len(part.CurrentVoters) > MaxVoters || len(part.Observers) > MaxObservers || len(r.Nodes) > MaxVoters+MaxObservers {
		// What a peer says is held in memory and printed: an answer no
		// quorum gives is refused, not rendered.
		return nil, fmt.Errorf("%w: DescribeQuorum at %s lists %d voters, %d observers and %d nodes; no quorum has more than %d voters or %d observers",
			ErrNotKafka, c.Addr, len(part.CurrentVoters), len(part.Observers), len(r.Nodes), MaxVoters, MaxObservers)
	}
	if err := kerr.ErrorForCode(part.ErrorCode); err != nil {
		if errors.Is(err, kerr.NotLeaderForPartition) {
			return nil, &notLeaderError{c.Addr}
		}
		return nil, fmt.Errorf("DescribeQuorum at %s: %w", c.Addr, c.classify(c.Addr, err))
	}
	return r, nil
}

// askLeader sends DescribeQuorum to the active controller cluster names
// (a follower controller does not answer it), over a connection of its
// own with the same settings.
func (c *Client) askLeader(ctx context.Context, cluster *kmsg.DescribeClusterResponse) (*kmsg.DescribeQuorumResponse, error) {
	for _, b := range cluster.Brokers {
		if b.NodeID != cluster.ControllerID {
			continue
		}
		cfg := c.cfg
		cfg.Bootstrap = []string{net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))}
		bctx, cancel := c.bounded(ctx)
		defer cancel()
		lc, err := Dial(bctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("the quorum's leader, controller %d: %w", b.NodeID, err)
		}
		defer lc.Close()
		r, err := lc.askQuorum(ctx)
		if err != nil {
			return nil, fmt.Errorf("the quorum's leader, controller %d: %w", b.NodeID, err)
		}
		return r, nil
	}
	return nil, fmt.Errorf("%w: %s is not the quorum's leader and names no active controller (controller id %d); is the quorum electing a leader?", ErrUnreachable, c.Addr, cluster.ControllerID)
}

// quorumStatus turns DescribeQuorum's answer into the model.
func quorumStatus(r *kmsg.DescribeQuorumResponse) *model.QuorumStatus {
	p := r.Topics[0].Partitions[0]
	st := &model.QuorumStatus{LeaderID: p.LeaderID, LeaderEpoch: p.LeaderEpoch, HighWatermark: p.HighWatermark,
		Voters: []model.QuorumReplica{}, Observers: []model.QuorumReplica{}}
	endpoints := voterEndpoints(r)
	replica := func(v kmsg.DescribeQuorumResponseTopicPartitionReplicaState, voter bool) model.QuorumReplica {
		q := model.QuorumReplica{ID: v.ReplicaID, DirectoryID: model.UUID(v.ReplicaDirectoryID), LogEndOffset: v.LogEndOffset,
			LastFetchTimestamp: v.LastFetchTimestamp, LastCaughtUpTimestamp: v.LastCaughtUpTimestamp}
		if voter {
			// Kafka knows endpoints for voters only; an observer's id may
			// be a voter's too, so they are not looked up for observers.
			q.Endpoints = endpoints[v.ReplicaID]
		}
		return q
	}
	for _, v := range p.CurrentVoters {
		st.Voters = append(st.Voters, replica(v, true))
	}
	for _, v := range p.Observers {
		st.Observers = append(st.Observers, replica(v, false))
	}
	if r.Version < 1 {
		st.MarkNotReported(model.QuorumFieldLastFetch, model.QuorumFieldLastCaughtUp)
	}
	if r.Version < 2 {
		st.MarkNotReported(model.QuorumFieldDirectoryID, model.QuorumFieldEndpoints)
	}
	return st
}

// voterEndpoints are the listeners DescribeQuorum v2 (Kafka 3.9) gives
// for the voters, by node id.
func voterEndpoints(r *kmsg.DescribeQuorumResponse) map[int32][]model.Endpoint {
	endpoints := map[int32][]model.Endpoint{}
	for _, n := range r.Nodes {
		for _, l := range n.Listeners {
			endpoints[n.NodeID] = append(endpoints[n.NodeID], model.Endpoint{Name: l.Name, Host: l.Host, Port: l.Port})
		}
	}
	return endpoints
}

// imageQuorum is the image's view of the quorum from DescribeQuorum's
// answer, in the shape a metadata log gives it (model.Quorum: leader,
// epoch, voters in the order Kafka lists them) and the finalized
// kraft.version (absent: 0, a static quorum). Before v2 (Kafka 3.9) the
// answer holds no directory ids and no endpoints; the fields are listed
// as not reported.
func imageQuorum(r *kmsg.DescribeQuorumResponse, kraftVersion int16) (*model.Quorum, []model.Field) {
	p := r.Topics[0].Partitions[0]
	q := &model.Quorum{LeaderID: p.LeaderID, LeaderEpoch: p.LeaderEpoch, KRaftVersion: kraftVersion}
	endpoints := voterEndpoints(r)
	for _, v := range p.CurrentVoters {
		q.Voters = append(q.Voters, model.Voter{ID: v.ReplicaID, DirectoryID: model.UUID(v.ReplicaDirectoryID), Endpoints: endpoints[v.ReplicaID]})
	}
	if r.Version < 2 {
		return q, []model.Field{model.FieldQuorumVoterDirectoryIDs, model.FieldQuorumVoterEndpoints}
	}
	return q, nil
}
