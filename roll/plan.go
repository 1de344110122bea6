package roll

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Step is one node's place in a rolling restart.
type Step struct {
	Node  int32  `json:"node"`
	Roles []Role `json:"roles"`
	// Leads is how many partitions it leads now (-1 when the source does
	// not report partitions).
	Leads        int  `json:"leads"`
	QuorumLeader bool `json:"quorumLeader"`
	ZKController bool `json:"zkController"`
	// Why says why it is at this place.
	Why string `json:"why"`
}

// Order is the order in which to restart nodes, one at a time:
//
//  1. the controllers that vote (dedicated ones before combined nodes),
//     the quorum's leader last of them, so that the quorum elects a new
//     leader once (Strimzi's KRaft order: never the leader first);
//  2. then the brokers, those that lead fewer partitions first (each
//     leadership moved is a client redirect, and the brokers restarted
//     early take leadership back by preferred election before the
//     busiest one stops), and the broker holding ZooKeeper's /controller
//     last (Strimzi's ZooKeeper order), so that the controller moves
//     once.
//
// Ties go by id. Every node given must be known to the source as a
// broker or a controller.
func Order(in Input, nodes []int32) ([]Step, error) {
	v := newView(in)
	leads := map[int32]int{}
	if v.topicsKnown {
		for _, t := range v.img.Topics {
			for _, p := range t.Partitions {
				leads[p.Leader]++
			}
		}
	}
	var steps []Step
	var unknown []string
	for _, n := range dedupe(nodes) {
		roles := v.roles(n)
		if len(roles) == 0 {
			unknown = append(unknown, fmt.Sprint(n))
			continue
		}
		s := Step{Node: n, Roles: roles, Leads: leads[n], QuorumLeader: v.leader == n && slices.Contains(roles, RoleController),
			ZKController: v.zk && v.img.ZK.ControllerID == n}
		if !v.topicsKnown {
			s.Leads = -1
		}
		steps = append(steps, s)
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("the source names no broker or controller %s", strings.Join(unknown, ", "))
	}
	voter := func(s Step) bool { return slices.Contains(v.voters, s.Node) }
	rank := func(s Step) int {
		switch {
		case voter(s) && !slices.Contains(s.Roles, RoleBroker):
			return 0
		case voter(s) || slices.Contains(s.Roles, RoleController) && !slices.Contains(s.Roles, RoleBroker):
			return 1
		}
		return 2
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	// Controllers (rank 0 and 1) before brokers, the quorum's leader
	// last of the controllers; then dedicated before combined, the
	// /controller holder last, fewer leaderships first, by id.
	slices.SortFunc(steps, func(a, b Step) int {
		ra, rb := rank(a), rank(b)
		return cmp.Or(cmp.Compare(b2i(ra == 2), b2i(rb == 2)),
			cmp.Compare(b2i(a.QuorumLeader), b2i(b.QuorumLeader)), cmp.Compare(ra, rb),
			cmp.Compare(b2i(a.ZKController), b2i(b.ZKController)), cmp.Compare(a.Leads, b.Leads), cmp.Compare(a.Node, b.Node))
	})
	for i := range steps {
		steps[i].Why = why(steps[i], rank(steps[i]))
	}
	return steps, nil
}

func why(s Step, rank int) string {
	var parts []string
	switch {
	case s.QuorumLeader:
		parts = append(parts, "the quorum's leader: after the other controllers")
	case rank < 2 && slices.Contains(s.Roles, RoleBroker):
		parts = append(parts, "a combined node: after the dedicated controllers")
	case rank < 2:
		parts = append(parts, "a controller: before the brokers")
	}
	if s.ZKController {
		parts = append(parts, "holds ZooKeeper's /controller: last")
	}
	if slices.Contains(s.Roles, RoleBroker) && s.Leads >= 0 {
		parts = append(parts, fmt.Sprintf("leads %s", plural(s.Leads, "partition", "partitions")))
	}
	return strings.Join(parts, "; ")
}

func dedupe(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// Brokers are the brokers the source knows: registered, or holding a
// replica. Sorted.
func Brokers(in Input) []int32 {
	v := newView(in)
	set := map[int32]bool{}
	for id := range v.img.Brokers {
		set[id] = true
	}
	for _, t := range v.img.Topics {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				set[r] = true
			}
		}
	}
	out := make([]int32, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Controllers are the quorum's voters (the registered controllers when
// the source names no voters), sorted; ok is false when the source knows
// neither.
func Controllers(in Input) (ids []int32, ok bool) {
	v := newView(in)
	if len(v.voters) > 0 {
		return slices.Clone(v.voters), true
	}
	for id := range v.img.Controllers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, len(ids) > 0 || v.votersKnown
}
