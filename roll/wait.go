package roll

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kmeta/kmeta/model"
)

// Progress is roll wait's view of one read: is the node back.
type Progress struct {
	Node  int32  `json:"node"`
	Roles []Role `json:"roles"`
	// Back: every condition holds. Unknown: the source cannot report a
	// condition (Missing says which), so re-reading it will not tell.
	Back    bool `json:"back"`
	Unknown bool `json:"unknown"`
	// Waiting says what is still waited for, one line per condition.
	Waiting []string `json:"waiting"`
	// Behind are the partitions whose ISR the broker is not in yet.
	Behind []string `json:"behind"`
	// NotWaited are partitions the broker cannot rejoin by itself (they
	// have no live leader), and, with MaxUnderReplicated, those it still
	// lacks once the cluster is no shorter than before the stop: said,
	// not waited for.
	NotWaited []string  `json:"notWaited"`
	Missing   []Missing `json:"missing"`
	// UnderReplicated counts the cluster's partitions with a short ISR
	// (-1: the source has no partitions).
	UnderReplicated int `json:"underReplicated"`
}

// WaitOptions tune Back.
type WaitOptions struct {
	// MaxUnderReplicated, when >= 0, lets a broker be back while
	// partitions it hosts still lack it, once the cluster has no more
	// under-replicated partitions than that (the count roll check said
	// before the stop: what was already short is not waited for). -1:
	// every partition it hosts.
	MaxUnderReplicated int
}

// Back says whether node is back after a restart, as an operator checks
// it by hand:
//
//   - a broker is registered, not fenced and not in controlled shutdown
//     (KRaft), or present in /brokers/ids (ZooKeeper mode), and in the
//     ISR of every partition it holds a replica of that has a live
//     leader (a partition without one cannot take it back: said in
//     NotWaited, not waited for);
//   - a controller that votes is caught up with the quorum's leader and
//     fetching (quorum describe's Status).
//
// A state the source does not report is not waited for: a live cluster
// before Kafka 4.0 lists only unfenced brokers, so being listed is being
// unfenced; no source but a log dir says controlled shutdown.
func Back(in Input, node int32) Progress {
	return BackWith(in, node, WaitOptions{MaxUnderReplicated: -1})
}

// BackWith is Back with options.
func BackWith(in Input, node int32, opts WaitOptions) Progress {
	v := newView(in)
	out := Progress{Node: node, Roles: v.roles(node), Waiting: []string{}, Behind: []string{}, NotWaited: []string{}, Missing: []Missing{},
		UnderReplicated: v.underReplicated()}
	missing := func(fact, how string) {
		if m := (Missing{fact, how}); !slices.Contains(out.Missing, m) {
			out.Missing = append(out.Missing, m)
		}
	}
	wait := func(format string, args ...any) { out.Waiting = append(out.Waiting, fmt.Sprintf(format, args...)) }
	if len(out.Roles) == 0 {
		switch {
		case !v.brokersKnown || !v.topicsKnown:
			missing(fmt.Sprintf("the brokers and partitions (whether node %d is a broker)", node), howBrokers)
		case !v.votersKnown:
			missing(fmt.Sprintf("the quorum's voters (whether node %d is a controller)", node), quorumHow(in))
		case v.zk && v.img.Migration != nil && v.img.ZK.KRaftControllerEpoch >= 0:
			missing(fmt.Sprintf("whether node %d is a KRaft controller (ZooKeeper does not list them)", node), quorumHow(in))
		default:
			// A broker that holds no replica and has not registered yet
			// looks like no node at all: wait for its registration.
			wait("node %d to register (the source names no broker or controller %d yet)", node, node)
		}
	}
	if slices.Contains(out.Roles, RoleBroker) {
		v.brokerBack(node, &out, wait, missing, opts)
	}
	if slices.Contains(out.Roles, RoleController) {
		v.controllerBack(node, wait, missing)
	}
	out.Unknown = len(out.Missing) > 0
	out.Back = len(out.Waiting) == 0 && !out.Unknown
	return out
}

func (v *view) brokerBack(node int32, out *Progress, wait func(string, ...any), missing func(string, string), opts WaitOptions) {
	if !v.brokersKnown {
		missing("the live brokers", howBrokers)
		return
	}
	b := v.img.Brokers[node]
	switch {
	case b == nil && v.zk && v.img.ZK.KRaftControllerEpoch >= 0:
		wait("broker %d in /brokers/ids (a KRaft broker never appears there: while the KRaft controller leads, read its metadata log dir, kraft:DIR)", node)
	case b == nil && v.zk:
		wait("broker %d in /brokers/ids", node)
	case b == nil:
		wait("broker %d to register", node)
	case v.img.Reports(model.FieldBrokerFenced) && b.Fenced:
		wait("broker %d to be unfenced", node)
	}
	if b != nil && v.img.Reports(model.FieldBrokerControlledShutdown) && b.InControlledShutdown {
		wait("broker %d to leave controlled shutdown", node)
	}
	if !v.topicsKnown {
		missing("the partitions and their ISR", howBrokers)
		return
	}
	for _, t := range v.img.SortedTopics() {
		ids := make([]int32, 0, len(t.Partitions))
		for id, p := range t.Partitions {
			if slices.Contains(p.Replicas, node) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			p := t.Partitions[id]
			if slices.Contains(p.ISR, node) && !slices.Contains(p.OfflineReplicas, node) {
				continue
			}
			name := partitionName(t.Name, id)
			if p.Leader < 0 || p.Leader == node || !v.liveIn(p.Leader, p) {
				out.NotWaited = append(out.NotWaited, name)
				continue
			}
			out.Behind = append(out.Behind, name)
		}
	}
	if n := len(out.Behind); n > 0 && opts.MaxUnderReplicated >= 0 && out.UnderReplicated <= opts.MaxUnderReplicated {
		// No more partitions short than before the stop: those N still
		// lacks were short then too.
		out.NotWaited = append(out.NotWaited, out.Behind...)
		out.Behind = []string{}
	} else if n > 0 {
		list := out.Behind
		more := ""
		if n > maxListed {
			list, more = list[:maxListed], " and "+strconv.Itoa(n-maxListed)+" more"
		}
		wait("broker %d back in the ISR of %s (%s%s)", node, plural(n, "partition", "partitions"), joinNames(list), more)
	}
}

func (v *view) controllerBack(node int32, wait func(string, ...any), missing func(string, string)) {
	if !v.votersKnown {
		missing(fmt.Sprintf("the quorum's voters (whether controller %d votes)", node), quorumHow(v.in))
		return
	}
	if !slices.Contains(v.voters, node) {
		return // an observer: nothing of the quorum waits on it
	}
	vs := v.voterState(node)
	if vs == nil || !v.in.Quorum.Reports(model.QuorumFieldLastFetch) || !v.in.Quorum.Reports(model.QuorumFieldLastCaughtUp) ||
		vs.CaughtUp == "unknown" && v.in.Quorum.Leader() != nil {
		missing(timesMissing, timesHow)
		return
	}
	switch {
	case v.in.Quorum.Leader() == nil:
		wait("the metadata quorum to elect a leader (controller %d caught up with it)", node)
	case vs.Down == "yes":
		wait("controller %d to fetch from the quorum's leader", node)
	case vs.CaughtUp != "yes":
		lead := v.in.Quorum.Leader()
		var lag int64 = -1
		for _, r := range v.in.Quorum.Voters {
			if r.ID == node && lead.LogEndOffset >= 0 && r.LogEndOffset >= 0 {
				lag = lead.LogEndOffset - r.LogEndOffset
			}
		}
		wait("controller %d to catch up with the quorum's leader %d (%d records behind)", node, lead.ID, lag)
	}
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
