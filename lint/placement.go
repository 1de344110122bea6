package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// The placement rules: where replicas and leaders sit.
const (
	CodeReplicasSameRack    = "replicas-same-rack"
	CodeBrokerNoRack        = "broker-without-rack"
	CodeLeaderImbalance     = "preferred-leader-imbalance"
	CodeBrokerNoReplicas    = "broker-without-replicas"
	CodeReplicasUnbalanced  = "replicas-unbalanced"
	CodePreferredUnbalanced = "preferred-leaders-unbalanced"
)

// A broker's count (of replicas, or of partitions it is the preferred
// leader of) is far from balanced when it differs from the mean over the
// available brokers by more than balanceSlackPercent of the mean and by
// at least balanceSlackMin. Cruise Control's default goal is 10%
// (replica.count.balance.threshold=1.10): lint reports a state rather
// than steer a rebalancer, so it flags what is clearly off, not what a
// rebalance would polish. The floor keeps small clusters quiet: Kafka
// places each topic from a random first broker, so a few single-partition
// topics leave brokers one or two replicas apart, which is no imbalance.
const (
	balanceSlackPercent = 25
	balanceSlackMin     = 3
)

// maxBalanceMoves bounds the plan a balance finding prints: a move of
// more partitions than this is kafka-reassign-partitions --generate's
// work (and an echo of that size is no command to paste), so the finding
// then has no fix.
const maxBalanceMoves = 500

// offBalance says whether n is far from mean.
func offBalance(n int, mean float64) bool {
	d := float64(n) - mean
	if d < 0 {
		d = -d
	}
	return d*100 > balanceSlackPercent*mean && d >= balanceSlackMin
}

// rackSpread is the number of distinct racks among available brokers.
// anySameRack says whether a partition of t has two replicas on one
// rack: without one, the rule has nothing to say, and finds it out
// without sorting the partitions or making a map per partition (a
// tracker runs it for each topic a batch of a replay touched).
func (c *Context) anySameRack(t *model.Topic) bool {
	var racks [8]string
	for _, p := range t.Partitions {
		if len(p.Replicas) > len(racks) {
			return true // the rule looks closer
		}
		n := 0
		for _, id := range p.Replicas {
			if rack, ok := c.racks[id]; ok {
				if slices.Contains(racks[:n], rack) {
					return true
				}
				racks[n] = rack
				n++
			}
		}
	}
	return false
}

func (c *Context) rackSpread() int {
	seen := map[string]bool{}
	for _, id := range c.brokerIDs {
		if rack, ok := c.racks[id]; ok && c.available(id) {
			seen[rack] = true
		}
	}
	return len(seen)
}

var placementRules = []*Rule{
	{
		Code: CodeReplicasSameRack, Family: Placement, Severity: model.SevWarning,
		Title:  "two replicas of a partition on one rack while the cluster has racks to spare",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers,
		Topic: func(c *Context, t *model.Topic) []Finding {
			racks := c.rackSpread()
			if racks < 2 || !c.anySameRack(t) {
				return nil
			}
			r := rule(CodeReplicasSameRack)
			count := map[int32]int{}
			for k, v := range c.replicas {
				count[k] = v
			}
			moves := map[int32][]int32{}
			var seen []string
			es := []Entity{topicEntity(t)}
			for _, p := range t.SortedPartitions() {
				byRack := map[string][]int32{}
				for _, id := range p.Replicas {
					if rack, ok := c.racks[id]; ok {
						byRack[rack] = append(byRack[rack], id)
					}
				}
				collide := false
				for _, n := range byRack {
					collide = collide || len(n) > 1
				}
				if !collide || len(byRack) >= min(len(p.Replicas), racks) {
					continue
				}
				var keep []int32
				used := map[string]bool{}
				for _, id := range p.Replicas {
					rack, ok := c.racks[id]
					if ok && used[rack] {
						count[id]--
						continue
					}
					used[rack] = true
					keep = append(keep, id)
				}
				for _, rack := range sortedKeys(byRack) {
					if n := byRack[rack]; len(n) > 1 {
						seen = append(seen, fmt.Sprintf("%s: %s on rack %s", tp(t, p), ids(n), rack))
					}
				}
				es = append(es, partitionEntity(t, p))
				if g := c.grow(keep, len(p.Replicas), count); g != nil {
					moves[p.ID] = g
				}
			}
			if len(seen) == 0 {
				return nil
			}
			fix := ""
			if len(moves) == len(es)-1 {
				fix = c.reassign(t.Name, moves)
			}
			saw := strings.Join(seen, "; ")
			if len(seen) > 3 {
				saw = strings.Join(seen[:3], "; ") + fmt.Sprintf("; and %d more", len(seen)-3)
			}
			return []Finding{r.finding(saw, "losing that rack takes out more than one copy of the partition", fix, es...)}
		},
	},
	{
		Code: CodeBrokerNoRack, Family: Placement, Severity: model.SevWarning,
		Title: "a broker without broker.rack when others have one",
		Needs: []model.Field{model.FieldBrokers},
		Cluster: func(c *Context) []Finding {
			if len(c.racks) == 0 || len(c.racks) == len(c.brokerIDs) {
				return nil
			}
			r := rule(CodeBrokerNoRack)
			var out []Finding
			for _, id := range c.brokerIDs {
				if _, ok := c.racks[id]; ok {
					continue
				}
				out = append(out, r.finding(fmt.Sprintf("broker %d has no rack; %d of %d brokers have one", id, len(c.racks), len(c.brokerIDs)),
					"rack-aware placement cannot place its replicas, and Kafka refuses rack-aware topic creation (kafka-topics --create fails unless --disable-rack-aware)",
					fmt.Sprintf("set broker.rack in broker %d's server.properties and restart it", id), brokerEntity(id)))
			}
			return out
		},
	},
	{
		Code: CodeLeaderImbalance, Family: Placement, Severity: model.SevWarning,
		Title:  "a broker whose partitions are led elsewhere (beyond leader.imbalance.per.broker.percentage in ZooKeeper mode)",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokerConfigs},
		Inputs: InputClusterConfig | InputPartitions,
		Cluster: func(c *Context) []Finding {
			// Counted with the replicas (refreshReplicas; a tracker keeps
			// the counts record by record).
			preferred, notLeading := c.preferred, c.notLeading
			r := rule(CodeLeaderImbalance)
			// Only a ZooKeeper-mode controller has a threshold
			// (KafkaController.checkAndTriggerAutoLeaderRebalance reads
			// leader.imbalance.per.broker.percentage). A KRaft controller
			// reads no such setting: with auto.leader.rebalance.enable it
			// tries a preferred election for every partition whose leader
			// is not its preferred replica
			// (ReplicationControlManager.maybeBalancePartitionLeaders), so
			// any such partition is reported, and no threshold kmeta
			// chose is presented as Kafka's.
			zk := c.Img.ZK != nil
			var out []Finding
			for _, id := range sortedKeys(notLeading) {
				n, of := notLeading[id], preferred[id]
				var saw, why string
				if zk {
					// The controller's threshold: any broker may be it,
					// so the one every broker applies.
					e := c.resolver().BrokerConfig(leaderImbalanceKey, model.AnyBroker)
					if refusedValue(&e) {
						// Not an INT: Kafka 3.x refuses it, and no
						// threshold is made up in its place.
						c.noteRefused(CodeLeaderImbalance, "", &e)
						break
					}
					c.noteAssumed(CodeLeaderImbalance, &e)
					pct, _ := model.JavaParseInt(e.Value)
					if int64(n)*100 <= int64(pct)*int64(of) {
						continue
					}
					saw = fmt.Sprintf("broker %d is the preferred leader of %d partitions and leads %d fewer of them (%d%%, above leader.imbalance.per.broker.percentage %d, %s)", id, of, n, n*100/of, pct, source(&e))
					why = "leaders, and with them produce and fetch load, pile up on fewer brokers"
				} else {
					saw = fmt.Sprintf("broker %d is the preferred leader of %d partitions and leads %d fewer of them (%d%%)", id, of, n, n*100/of)
					why = kraftImbalanceWhy
				}
				if c.keysOnly {
					out = append(out, r.keys(brokerEntity(id))...)
					continue
				}
				out = append(out, r.finding(saw, why, c.electLeaders("preferred", "", 0), brokerEntity(id)))
			}
			return out
		},
	},
	{
		Code: CodeBrokerNoReplicas, Family: Placement, Severity: model.SevInfo,
		Title:  "an available broker that holds no replica",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers | InputPartitions,
		Cluster: func(c *Context) []Finding {
			if len(c.topics) == 0 {
				return nil
			}
			r := rule(CodeBrokerNoReplicas)
			var out []Finding
			for _, id := range c.brokerIDs {
				if c.available(id) && c.replicas[id] == 0 {
					out = append(out, r.finding(fmt.Sprintf("broker %d holds no replica", id),
						"it adds nothing to durability or capacity until partitions are moved to it (kafka-reassign-partitions --generate proposes a move)",
						"", brokerEntity(id)))
				}
			}
			return out
		},
	},
	{
		Code: CodeReplicasUnbalanced, Family: Placement, Severity: model.SevWarning,
		Title:  fmt.Sprintf("an available broker holding more than %d%% (and at least %d) replicas above or below the mean", balanceSlackPercent, balanceSlackMin),
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers | InputPartitions,
		Cluster: func(c *Context) []Finding {
			count, avail := c.availableCounts(c.replicas)
			return c.unbalanced(CodeReplicasUnbalanced, "replicas", count, avail,
				"disk, network and replication load pile up on the brokers above the mean, and a failure of one of them hits more partitions")
		},
	},
	{
		Code: CodePreferredUnbalanced, Family: Placement, Severity: model.SevWarning,
		Title:  fmt.Sprintf("an available broker that is the preferred leader of more than %d%% (and at least %d) partitions above or below the mean", balanceSlackPercent, balanceSlackMin),
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers | InputPartitions,
		Cluster: func(c *Context) []Finding {
			count, avail := c.availableCounts(c.preferred)
			return c.unbalanced(CodePreferredUnbalanced, "preferred leaders", count, avail,
				"leaders go to their preferred replicas (auto.leader.rebalance.enable, kafka-leader-election): with these replica orders, produce and fetch load stays uneven even when every leader is preferred")
		},
	},
}

// availableCounts is all's count (the context's, per broker) of each
// available broker (registered, not fenced); the others' are left out:
// the mean is over the brokers that can take load.
func (c *Context) availableCounts(all map[int32]int) (map[int32]int, []int32) {
	var avail []int32
	count := map[int32]int{}
	for _, id := range c.brokerIDs {
		if c.available(id) {
			avail = append(avail, id)
			count[id] = all[id]
		}
	}
	return count, avail
}

// unbalanced reports the available brokers whose count is far from the
// mean, with one plan for them all: replicas moved (or, for preferred
// leaders, replica lists reordered) from the brokers above to those
// below until none is far from it. A broker holding none is
// broker-without-replicas's, not reported here (it still counts in the
// mean and takes the moves). Nothing is reported while a reassignment is
// in flight: the counts are moving.
func (c *Context) unbalanced(code, what string, count map[int32]int, avail []int32, why string) []Finding {
	if len(avail) < 2 {
		return nil
	}
	total := 0
	for _, n := range count {
		total += n
	}
	mean := float64(total) / float64(len(avail))
	var off []int32
	for _, id := range avail {
		if count[id] > 0 && offBalance(count[id], mean) {
			off = append(off, id)
		}
	}
	if len(off) == 0 || c.reassigning(nil) {
		return nil
	}
	if c.keysOnly {
		var out []Finding
		for _, id := range off {
			out = append(out, rule(code).keys(brokerEntity(id))...)
		}
		return out
	}
	fix := ""
	if code == CodeReplicasUnbalanced {
		if moves := c.planBalance(count, avail, mean, false); moves != nil {
			fix = c.reassignAll("kmeta-reassign-balance.json", moves)
		}
	} else if moves := c.planBalance(count, avail, mean, true); moves != nil {
		fix = c.reassignAll("kmeta-reorder-leaders.json", moves) + " && " + c.electLeaders("preferred", "", 0)
	}
	r := rule(code)
	var out []Finding
	for _, id := range off {
		dir := "above"
		if float64(count[id]) < mean {
			dir = "below"
		}
		out = append(out, r.finding(fmt.Sprintf("broker %d has %d %s, the mean over %d available brokers is %.1f (%s it by more than %d%%)", id, count[id], what, len(avail), mean, dir, balanceSlackPercent),
			why, fix, brokerEntity(id)))
	}
	return out
}

// planBalance moves load from the most loaded available broker to the
// least loaded one, a partition at a time, until no broker is far from
// the mean (or no move is left): a replica is replaced in place (its
// position, so its preferred-leader role, is kept), or, with reorder, a
// replica already in the partition and in its ISR is moved first. A move
// never puts two replicas of a partition on one rack that did not share
// one. Partitions are tried in topic and partition order, so the plan is
// deterministic. nil when it cannot bring every broker near the mean.
func (c *Context) planBalance(count map[int32]int, avail []int32, mean float64, reorder bool) map[string]map[int32][]int32 {
	// Each move takes one from a broker and gives one to another: at
	// least the excess of the brokers above the band, and the shortfall
	// of those below, are moves. More than the cap: no plan, at once.
	band := max(mean*balanceSlackPercent/100, balanceSlackMin-0.001)
	excess, short := 0, 0
	for _, id := range avail {
		if d := float64(count[id]) - mean - band; d > 0 {
			excess += int(d + 0.999)
		} else if d := mean - band - float64(count[id]); d > 0 {
			short += int(d + 0.999)
		}
	}
	if max(excess, short) > maxBalanceMoves {
		return nil
	}
	count = maps.Clone(count)
	moves := map[string]map[int32][]int32{}
	// Work is bounded: each move scans partitions from the start, and an
	// image of a million partitions must lint in well under a second.
	budget := 20*c.partitionCount() + 10_000
	sorted := map[string][]*model.Partition{}
	current := func(t *model.Topic, p *model.Partition) []int32 {
		if m := moves[t.Name][p.ID]; m != nil {
			return m
		}
		return p.Replicas
	}
	anyOff := func() bool {
		return slices.ContainsFunc(avail, func(id int32) bool { return offBalance(count[id], mean) })
	}
	// Candidates by load: the most loaded first, then by id.
	byLoad := func(desc bool) []int32 {
		out := slices.Clone(avail)
		slices.SortStableFunc(out, func(a, b int32) int {
			if count[a] != count[b] {
				if desc {
					return count[b] - count[a]
				}
				return count[a] - count[b]
			}
			return int(a - b)
		})
		return out
	}
	for n := 0; anyOff(); n++ {
		if n == maxBalanceMoves {
			return nil
		}
		moved := false
		for _, hi := range byLoad(true) {
			for _, lo := range byLoad(false) {
				if count[hi]-count[lo] < 2 {
					break
				}
				t, p, next := c.findMove(hi, lo, current, reorder, sorted, &budget)
				if budget < 0 {
					return nil
				}
				if next != nil {
					if moves[t.Name] == nil {
						moves[t.Name] = map[int32][]int32{}
					}
					moves[t.Name][p.ID] = next
					count[hi]--
					count[lo]++
					moved = true
					break
				}
			}
			if moved {
				break
			}
		}
		if !moved {
			return nil
		}
	}
	if anyOff() || len(moves) == 0 {
		return nil
	}
	return moves
}

// findMove finds the first partition where hi can hand its share to lo:
// the new replica list, or nil. A replica move looks first for a
// partition hi is not the preferred leader of, so that moving replicas
// leaves the preferred leaders where they are.
func (c *Context) findMove(hi, lo int32, current func(*model.Topic, *model.Partition) []int32, reorder bool, sorted map[string][]*model.Partition, budget *int) (*model.Topic, *model.Partition, []int32) {
	return c.findMoveFrom(hi, lo, current, reorder, true, sorted, budget)
}

// findMoveFrom is findMove; sorted keeps each topic's partitions sorted
// once for the whole plan.
func (c *Context) findMoveFrom(hi, lo int32, current func(*model.Topic, *model.Partition) []int32, reorder, keepLeader bool, sorted map[string][]*model.Partition, budget *int) (*model.Topic, *model.Partition, []int32) {
	for _, t := range c.topics {
		if *budget -= len(t.Partitions); *budget < 0 {
			return nil, nil, nil
		}
		ps, ok := sorted[t.Name]
		if !ok {
			ps = t.SortedPartitions()
			sorted[t.Name] = ps
		}
		for _, p := range ps {
			reps := current(t, p)
			if len(p.AddingReplicas) > 0 || len(p.RemovingReplicas) > 0 || len(reps) == 0 {
				continue
			}
			if reorder {
				i := slices.Index(reps, lo)
				if reps[0] != hi || i < 0 || !slices.Contains(p.ISR, lo) {
					continue
				}
				next := append([]int32{lo}, slices.Delete(slices.Clone(reps), i, i+1)...)
				return t, p, next
			}
			i := slices.Index(reps, hi)
			if i < 0 || (i == 0 && keepLeader) || slices.Contains(reps, lo) || !c.rackSafe(reps, i, lo) {
				continue
			}
			next := slices.Clone(reps)
			next[i] = lo
			return t, p, next
		}
	}
	if !reorder && keepLeader {
		// Then a preferred leader's own replica, if nothing else moves.
		return c.findMoveFrom(hi, lo, current, false, false, sorted, budget)
	}
	return nil, nil, nil
}

// partitionCount is the number of partitions in the image.
func (c *Context) partitionCount() int {
	n := 0
	for _, t := range c.topics {
		n += len(t.Partitions)
	}
	return n
}

// rackSafe says whether replacing reps[i] by id keeps the partition's
// racks apart: id's rack is reps[i]'s, or none of the other replicas'.
func (c *Context) rackSafe(reps []int32, i int, id int32) bool {
	rack, ok := c.racks[id]
	if !ok {
		return true
	}
	if old, ok := c.racks[reps[i]]; ok && old == rack {
		return true
	}
	for j, r := range reps {
		if other, ok := c.racks[r]; ok && j != i && other == rack {
			return false
		}
	}
	return true
}

// kraftImbalanceWhy is what a KRaft controller does with a partition led
// by another replica while its preferred replica is in the ISR (the
// partitions counted): it has no threshold (it never reads
// leader.imbalance.per.broker.percentage, which Kafka 4.0 removed). With
// the controller's auto.leader.rebalance.enable on (ControllerServer
// then sets leaderImbalanceCheckIntervalNs), every
// leader.imbalance.check.interval.seconds while some partition is
// imbalanced (QuorumController.maybeScheduleNextBalancePartitionLeaders)
// it elects the preferred replica of each
// (ReplicationControlManager.maybeBalancePartitionLeaders, a PREFERRED
// election of PartitionChangeBuilder) where that replica may lead
// (LeaderAcceptor: ClusterControlManager.isActive, unfenced and not
// shutting down, with the replica's log directory online).
const kraftImbalanceWhy = "leaders, and with them produce and fetch load, pile up on fewer brokers; " +
	"a KRaft controller has no threshold for this (leader.imbalance.per.broker.percentage is read only by a ZooKeeper-mode controller): " +
	"with its auto.leader.rebalance.enable (default true) it elects the in-sync preferred replica of every such partition each leader.imbalance.check.interval.seconds " +
	"where that broker is unfenced, not shutting down and its log directory online, " +
	"so these are led elsewhere only until the next check, while their preferred broker cannot lead, or with auto.leader.rebalance.enable false"
