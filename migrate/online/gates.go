package online

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/roll"
)

// Gates say how every restart stage and rollback print is gated: `kmeta
// roll check` before the node is stopped (go on only when it exits 0),
// `kmeta roll wait` after it is started again (go on only when it exits
// 0), each with the words that name the source to read. nil: no gates
// (the steps as they were).
type Gates struct {
	// ZooKeeper names the cluster for ZooKeeper-mode brokers: the --zk
	// source (it lists them in /brokers/ids and holds the ISRs the
	// controller writes) and the brokers' --config files (their static
	// min.insync.replicas).
	ZooKeeper []string
	// KRaft names a controller's metadata log dir (kraft:DIR) and the
	// --config files: while a KRaft controller leads the migration it
	// holds every broker's registration, ZooKeeper-mode or KRaft, and
	// the ISRs. nil when the user gave no log dir.
	KRaft []string
	// Controllers names the live quorum (--bootstrap-controller), which
	// alone reports the voters' fetch times.
	Controllers []string
	// ZKDigest: ZooKeeper is read with digest credentials (--zk-auth),
	// which the commands reading it take from $KMETA_ZK_AUTH.
	ZKDigest bool
}

// The gates' step actions. ActRollPlan orders a roll at the moment it is
// run (after rollback deleted /controller, ZooKeeper's next controller
// is not known when the steps are printed): restart each node of Nodes
// on Config ({id} replaced), in the order `kmeta roll plan` prints, each
// between its check and its wait.
const (
	ActCheck    = "roll-check"
	ActRollWait = "roll-wait"
	ActRollPlan = "roll-plan"
)

// gated is restart framed by its gates (restart alone without a source).
func gated(restart Step, src roll.Source) []Step {
	if src.Words == nil || restart.Node == nil {
		return []Step{restart}
	}
	id := *restart.Node
	g := roll.GatesFor(id, src)
	return []Step{
		{Action: ActCheck, Node: nodeRef(id), Args: g.CheckArgs, Command: g.Check,
			What: fmt.Sprintf("check that node %d may be stopped now; go on only when this exits 0 (exit 1: wait and run it again)", id)},
		restart,
		{Action: ActRollWait, Node: nodeRef(id), Args: g.WaitArgs, Command: g.Wait,
			What: fmt.Sprintf("wait until node %d is back (registered, in every ISR, caught up); go on only when this exits 0", id)},
	}
}

// brokerSource is the gate source for a broker roll: the KRaft log dir
// while the KRaft controller leads (kraftLeads), else ZooKeeper. A roll
// that needs the log dir and has none reads ZooKeeper, and says so.
func (g *Gates) brokerSource(kraftLeads bool, warn func(model.Finding)) roll.Source {
	if g == nil {
		return roll.Source{}
	}
	if kraftLeads {
		if g.KRaft != nil {
			return roll.Source{Words: g.KRaft}
		}
		c := rollChecks.Must(CodeGatesReadZooKeeper)
		warn(c.Findingf("brokers", "the brokers' roll check and roll wait read %s, which lists no KRaft broker", strings.Join(g.ZooKeeper[:1], " ")))
	}
	return roll.Source{Words: g.ZooKeeper, ZKDigest: g.ZKDigest}
}

// controllerSource is the gate source for a controller roll.
func (g *Gates) controllerSource() roll.Source {
	if g == nil {
		return roll.Source{}
	}
	return roll.Source{Words: g.Controllers}
}

// rollOrder orders a roll by roll's rule (roll.Order) on the view that
// knows the nodes: followers before the quorum's leader, brokers leading
// fewer partitions first, ZooKeeper's controller last. A view that does
// not know a node leaves the order to last (ZooKeeper's controller or
// the quorum's leader last, by id otherwise).
func rollOrder(view *model.Image, ids []int32, last int32) []int32 {
	if view != nil {
		in := roll.Input{Image: view, Quorum: roll.QuorumFromImage(view)}
		if steps, err := roll.Order(in, ids); err == nil {
			out := make([]int32, len(steps))
			for i, s := range steps {
				out[i] = s.Node
			}
			return out
		}
	}
	return lastOf(ids, last)
}

// rollPlanStep is rollback's last roll: ordered when it is run.
func rollPlanStep(ids []int32, src roll.Source, what string) Step {
	nodes := make([]string, len(ids))
	for i, id := range ids {
		nodes[i] = strconv.Itoa(int(id))
	}
	args := append([]string{"roll", "plan"}, src.Words...)
	args = append(args, "--nodes", strings.Join(nodes, ","))
	return Step{Action: ActRollPlan, Nodes: slices.Clone(ids), Config: "server-{id}.properties", Args: args, Command: roll.CommandLine(args, src), What: what}
}
