package kafkaread

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// NodeFeatures is one registered node and the feature ranges it
// supports, from its own ApiVersions answer.
type NodeFeatures struct {
	// Kind is "broker" or "controller" (a combined node is both, listed
	// once per role as Kafka counts it).
	Kind string `json:"kind"`
	ID   int32  `json:"id"`
	Addr string `json:"addr"`
	// Fenced is a registered broker that is fenced (Kafka still counts its
	// range).
	Fenced    bool                `json:"fenced,omitempty"`
	Supported map[string][2]int16 `json:"supported"`
}

// FeatureView is what a feature change is judged against: the finalized
// levels and every registered node's supported ranges.
type FeatureView struct {
	Finalized map[string]int16 `json:"finalized"`
	Epoch     int64            `json:"epoch"`
	Nodes     []NodeFeatures   `json:"nodes"`
	// Gaps name the nodes kmeta could not ask (their ranges are then only
	// the controller's to check), with the reason.
	Gaps []string `json:"gaps,omitempty"`
	// Controller is the active controller's id, -1 when unknown.
	Controller int32 `json:"controller"`
}

// Finalize asks the answering node again for the finalized features
// (ApiVersions), as kafka-features describe does.
func (c *Client) Finalize(ctx context.Context) (map[string]int16, int64, error) {
	rctx, cancel := c.bounded(ctx)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta", "1"
	resp, err := c.seed.Request(rctx, req)
	if err != nil {
		return nil, 0, fmt.Errorf("ApiVersions: %w", c.classify(c.Addr, err))
	}
	r := resp.(*kmsg.ApiVersionsResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return nil, 0, fmt.Errorf("ApiVersions: %w", c.classify(c.Addr, err))
	}
	c.noteVersions(r)
	return c.Finalized, c.FinalizedEpoch, nil
}

// Features reads the finalized levels and asks every registered broker
// and controller for its supported ranges: through a broker,
// DescribeCluster names the brokers (fenced ones included where Kafka can
// say, 4.0+) and DescribeQuorum's voter endpoints the controllers (3.9+);
// through a controller (--bootstrap-controller), DescribeCluster names the
// controllers only, and the brokers are a gap. Each
// node is then asked ApiVersions with the same client settings. A node
// that cannot be asked is a gap, not an error: the controller checks
// every range itself, and kmeta says which it could not.
func (c *Client) Features(ctx context.Context) (*FeatureView, error) {
	v := &FeatureView{Finalized: c.Finalized, Epoch: c.FinalizedEpoch, Controller: -1}
	if err := c.need(60, 0); err != nil {
		return nil, err
	}
	var brokers, controllers []clusterNode
	var ctl int32
	var err error
	if c.cfg.Controllers {
		// A controller answers DescribeCluster for controllers only
		// (KIP-919: MISMATCHED_ENDPOINT_TYPE for brokers), and no other
		// API of its listener names the brokers' addresses: their ranges
		// are Kafka's to check (its validate-only answer, which kmeta
		// asks for before any change).
		controllers, ctl, err = c.describeCluster(ctx, 2)
		if err != nil {
			return nil, err
		}
		v.Controller = ctl
		v.Gaps = append(v.Gaps, "brokers: not listed through a controller (--bootstrap-controller); Kafka's validation checks their ranges, kmeta's does not: --bootstrap-server reaches both")
	} else {
		brokers, ctl, err = c.describeCluster(ctx, 1)
		if err != nil {
			return nil, err
		}
		v.Controller = ctl
		controllers, err = c.quorumNodes(ctx)
		if err != nil {
			v.Gaps = append(v.Gaps, fmt.Sprintf("controllers: %v", err))
		}
	}
	// Every node is asked at once (nodes that do not answer cost one
	// node's bound), and the answers are kept in the order asked.
	type asked struct {
		kind string
		n    clusterNode
		s    map[string][2]int16
		err  error
	}
	var all []*asked
	for _, n := range brokers {
		all = append(all, &asked{kind: "broker", n: n})
	}
	for _, n := range controllers {
		all = append(all, &asked{kind: "controller", n: n})
	}
	var wg sync.WaitGroup
	for _, a := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.s, a.err = c.nodeRanges(ctx, a.n, a.kind == "controller")
		}()
	}
	wg.Wait()
	for _, a := range all {
		if a.err == nil {
			v.Nodes = append(v.Nodes, NodeFeatures{Kind: a.kind, ID: a.n.id, Addr: a.n.addr, Fenced: a.n.fenced, Supported: a.s})
		} else {
			v.Gaps = append(v.Gaps, fmt.Sprintf("%s %d (%s): %v", a.kind, a.n.id, a.n.addr, a.err))
		}
	}
	return v, nil
}

type clusterNode struct {
	id     int32
	addr   string
	fenced bool
	// listener is the listener's name, where the answer names it
	// (DescribeQuorum's voter endpoints).
	listener string
}

// describeCluster lists brokers (endpointType 1) or controllers (2).
func (c *Client) describeCluster(ctx context.Context, endpointType int8) ([]clusterNode, int32, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	if endpointType == 2 {
		if err := c.need(60, 1); err != nil {
			return nil, -1, err
		}
		req.Version = 1
	}
	req.EndpointType = endpointType
	if r := c.APIs[60]; r[1] >= 2 {
		req.Version = 2
		req.IncludeFencedBrokers = endpointType == 1
	}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, -1, err
	}
	r := resp.(*kmsg.DescribeClusterResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		msg := ""
		if r.ErrorMessage != nil {
			msg = ": " + *r.ErrorMessage
		}
		return nil, -1, fmt.Errorf("DescribeCluster: %w%s", c.classify(c.Addr, err), msg)
	}
	var out []clusterNode
	for _, b := range r.Brokers {
		out = append(out, clusterNode{id: b.NodeID, addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))), fenced: b.IsFenced})
	}
	slices.SortFunc(out, func(a, b clusterNode) int { return int(a.id) - int(b.id) })
	return out, r.ControllerID, nil
}

// quorumNodes are the voters' endpoints DescribeQuorum v2 (3.9+) lists.
func (c *Client) quorumNodes(ctx context.Context) ([]clusterNode, error) {
	if err := c.need(55, 2); err != nil {
		return nil, err
	}
	r, err := c.describeQuorum(ctx, nil) // through a broker, which forwards it
	if err != nil {
		return nil, err
	}
	voters := map[int32]bool{}
	for _, v := range r.Topics[0].Partitions[0].CurrentVoters {
		voters[v.ReplicaID] = true
	}
	var out []clusterNode
	for _, n := range r.Nodes {
		if !voters[n.NodeID] || len(n.Listeners) == 0 {
			continue
		}
		l := n.Listeners[0]
		out = append(out, clusterNode{id: n.NodeID, addr: net.JoinHostPort(l.Host, strconv.Itoa(int(l.Port))), listener: l.Name})
	}
	slices.SortFunc(out, func(a, b clusterNode) int { return int(a.id) - int(b.id) })
	if len(out) == 0 {
		return nil, fmt.Errorf("DescribeQuorum lists no voter endpoints")
	}
	return out, nil
}

// nodeRanges asks one node for its supported ranges: the answering node
// itself, or a fresh connection with the same settings.
func (c *Client) nodeRanges(ctx context.Context, n clusterNode, controller bool) (map[string][2]int16, error) {
	s, _, err := c.nodeVersions(ctx, n, controller)
	return s, err
}

// nodeVersions asks one node its ApiVersions: its supported feature
// ranges and, from a controller, whether it is ready to migrate from
// ZooKeeper.
func (c *Client) nodeVersions(ctx context.Context, n clusterNode, controller bool) (map[string][2]int16, bool, error) {
	if n.addr == c.Addr && controller == c.cfg.Controllers {
		return c.Supported, c.ZkMigrationReady, nil
	}
	cfg := c.cfg
	cfg.Bootstrap, cfg.Controllers, cfg.listener = []string{n.addr}, controller, n.listener
	nctx, cancel, _ := c.nodeBounded(ctx)
	defer cancel()
	nc, err := Dial(nctx, cfg)
	if err != nil {
		return nil, false, err
	}
	defer nc.Close()
	return nc.Supported, nc.ZkMigrationReady, nil
}
