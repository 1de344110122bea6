package roll

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/kmeta/kmeta/model"
)

// Answer is a verdict: safe, not safe, or could not tell.
type Answer string

// The answers (exit 0, 1 and 2 of roll check).
const (
	Safe    Answer = "safe"
	Unsafe  Answer = "unsafe"
	Unknown Answer = "unknown"
)

// Verdict is roll check's answer for one node: may it be stopped now.
type Verdict struct {
	Node   int32  `json:"node"`
	Source string `json:"source"`
	Roles  []Role `json:"roles"`
	// Answer is safe, unsafe or unknown; Safe is Answer == Safe.
	Answer Answer `json:"answer"`
	Safe   bool   `json:"safe"`
	// Blocking is what makes it unsafe: each partition (topic,
	// partition, the rule that blocked, its live ISR and min ISR), or
	// the quorum's reason.
	Blocking []Block `json:"blocking"`
	// Undecided are the partitions whose verdict needs a fact the source
	// did not report (Missing says which).
	Undecided []Block `json:"undecided"`
	// Topics counts Blocking and Undecided by topic and rule.
	Topics []TopicCount `json:"topics"`
	// Missing are the facts the verdict needs and the source did not
	// report, each with how to get it.
	Missing []Missing `json:"missing"`
	// Hosted is how many partitions hold a replica on the node, Leads how
	// many it leads.
	Hosted int `json:"partitions"`
	Leads  int `json:"leads"`
	// UnderReplicated is how many partitions of the cluster have an ISR
	// short of their replicas now (-1: the source has no partitions):
	// what roll wait --under-replicated-at-most compares with after the
	// restart.
	UnderReplicated int `json:"underReplicated"`
	// QuorumLeader: the node leads the metadata quorum; ZKController: it
	// holds ZooKeeper's /controller. Either is restarted last.
	QuorumLeader bool            `json:"quorumLeader"`
	ZKController bool            `json:"zkController"`
	Findings     []model.Finding `json:"findings"`
}

// Block is one thing that makes a stop unsafe (or undecided).
type Block struct {
	// Rule is the finding code of the rule that blocked.
	Rule  string `json:"rule"`
	Topic string `json:"topic,omitempty"`
	// Partition is set for a partition's block.
	Partition *int32 `json:"partition,omitempty"`
	// ISR is the partition's live in-sync replicas now.
	ISR []int32 `json:"isr,omitempty"`
	// MinISR is its effective min.insync.replicas (0 when not needed or
	// not known) and MinISRFrom where that value comes from.
	MinISR     int64  `json:"minIsr,omitempty"`
	MinISRFrom string `json:"minIsrFrom,omitempty"`
	// Reason says why in words (the quorum's reason, a missing fact).
	Reason string `json:"reason,omitempty"`
}

// Missing is a fact the source did not report, and how to get it.
type Missing struct {
	Fact string `json:"fact"`
	How  string `json:"how"`
}

// TopicCount is how many partitions of a topic one rule blocks (or
// leaves undecided).
type TopicCount struct {
	Topic string `json:"topic"`
	Rule  string `json:"rule"`
	Count int    `json:"count"`
}

// maxListed is how many partition numbers a finding's message lists.
const maxListed = 10

// Check judges whether node may be stopped now. It is pure: one read of
// the source in, a verdict out.
//
// A broker blocks on each partition holding one of its replicas where
// (rules in this order, the first that holds is said): it is the last
// live in-sync replica (CodeTakesOffline); the live ISR is already below
// the effective min.insync.replicas (CodeAlreadyUnder, Strimzi's "ISR <
// minISR and the broker holds a replica"); or it is in the ISR and the
// ISR is at min.insync.replicas (CodeUnderMinISR, Strimzi's "ISR ==
// minISR and the broker in the ISR"). min.insync.replicas is resolved as
// Kafka resolves it, for the broker that leads the partition once node
// is down (the leader checks it on every acks=all produce). Internal
// topics are judged alike.
//
// A controller blocks when the voters caught up without it are not a
// majority (quorum describe's RestartSafe rule) or the quorum has no
// leader. A combined node gets both.
//
// A fact the verdict needs and the source does not report (a config
// layer, fetch times, the partitions) makes the answer Unknown unless
// something else already blocks: never safe on a guess.
func Check(in Input, node int32) Verdict {
	v := newView(in)
	out := Verdict{Node: node, Source: v.img.Provenance.Source, Roles: v.roles(node),
		Blocking: []Block{}, Undecided: []Block{}, Topics: []TopicCount{}, Missing: []Missing{}, Findings: []model.Finding{}}
	missing := func(fact, how string) {
		if m := (Missing{fact, how}); !slices.Contains(out.Missing, m) {
			out.Missing = append(out.Missing, m)
		}
	}
	if len(out.Roles) == 0 {
		switch {
		case !v.brokersKnown || !v.topicsKnown:
			missing(fmt.Sprintf("the brokers and partitions (whether node %d is a broker)", node), howBrokers)
		case !v.votersKnown:
			missing(fmt.Sprintf("the quorum's voters (whether node %d is a controller)", node), quorumHow(in))
		case v.zk && v.img.Migration != nil:
			missing(fmt.Sprintf("whether node %d is a KRaft controller (ZooKeeper does not list them)", node), quorumHow(in))
		}
		if len(out.Missing) == 0 {
			// The source reports every role, and node has none.
			missing(fmt.Sprintf("a broker or controller %d", node), "check the node id: the source names no broker or controller of that id")
		}
	}
	out.UnderReplicated = v.underReplicated()
	if slices.Contains(out.Roles, RoleBroker) {
		v.checkBroker(node, &out, missing)
	}
	if slices.Contains(out.Roles, RoleController) {
		v.checkController(node, &out, missing)
	} else if slices.Contains(out.Roles, RoleBroker) && !v.votersKnown {
		missing(fmt.Sprintf("the quorum's voters (whether broker %d is also a controller)", node), quorumHow(in))
	}
	if v.zk && v.img.ZK.ControllerID == node {
		out.ZKController = true
		out.Findings = append(out.Findings, checks.Must(CodeZKController).Findingf(nodeEntity(out.Roles, node),
			"node %d holds ZooKeeper's /controller (controller epoch %d): restart it after the other brokers", node, v.img.ZK.ControllerEpoch))
	}
	switch {
	case len(out.Blocking) > 0:
		out.Answer = Unsafe
	case len(out.Missing) > 0 || len(out.Undecided) > 0:
		out.Answer = Unknown
	default:
		out.Answer = Safe
	}
	out.Safe = out.Answer == Safe
	for _, m := range out.Missing {
		c := checks.Must(CodeCannotTell)
		out.Findings = append(out.Findings, c.Finding(nodeEntity(out.Roles, node), "the source does not report "+m.Fact, c.FillFix("FIX", m.How)))
	}
	model.SortFindings(out.Findings)
	return out
}

// howBrokers says how to get the brokers and partitions.
const howBrokers = "controllers do not describe them: ask the brokers (--bootstrap-server HOST:PORT, or a ZooKeeper-mode cluster's zk://)"

// quorumHow says how to get the quorum when the source lacks it.
func quorumHow(in Input) string {
	if in.QuorumMissing != "" {
		return in.QuorumMissing
	}
	return "ask the controllers, --bootstrap-controller HOST:PORT"
}

func nodeEntity(roles []Role, node int32) string {
	switch {
	case len(roles) == 2:
		return "node " + strconv.Itoa(int(node))
	case len(roles) == 1:
		return string(roles[0]) + " " + strconv.Itoa(int(node))
	}
	return "node " + strconv.Itoa(int(node))
}

// group is one finding's worth of blocked partitions: a topic, a rule,
// and the min ISR and its source (so that one message says them once).
type group struct {
	topic, rule string
	minISR      int64
	from        string
	parts       []int32
	isrs        []int
}

func (v *view) checkBroker(node int32, out *Verdict, missing func(string, string)) {
	entity := "broker " + strconv.Itoa(int(node))
	if !v.topicsKnown {
		missing("the partitions and their ISR", howBrokers)
		return
	}
	if !v.brokersKnown {
		missing("the live brokers", howBrokers)
		return
	}
	if !v.live[node] {
		what := "is not registered"
		if b := v.img.Brokers[node]; b != nil {
			what = "is fenced or in controlled shutdown"
		}
		if v.zk {
			what = "is not in /brokers/ids"
		}
		out.Findings = append(out.Findings, checks.Must(CodeNotRegistered).Findingf(entity,
			"broker %d %s: it is down already; its replicas are judged as they are", node, what))
	}
	res := model.NewConfigResolver(v.img)
	var groups []*group
	var gi = map[[2]string]*group{}
	add := func(topic, rule string, p *model.Partition, isr []int32, m model.EffectiveConfig, mv int64, reason string) {
		b := Block{Rule: rule, Topic: topic, Partition: &p.ID, ISR: slices.Clone(isr), Reason: reason}
		if mv > 0 {
			b.MinISR, b.MinISRFrom = mv, m.Source()
		}
		if rule == CodeCannotTell {
			out.Undecided = append(out.Undecided, b)
		} else {
			out.Blocking = append(out.Blocking, b)
		}
		key := [2]string{topic, rule + "\x00" + strconv.FormatInt(b.MinISR, 10) + "\x00" + b.MinISRFrom}
		g := gi[key]
		if g == nil {
			g = &group{topic: topic, rule: rule, minISR: b.MinISR, from: b.MinISRFrom}
			gi[key] = g
			groups = append(groups, g)
		}
		g.parts = append(g.parts, p.ID)
		g.isrs = append(g.isrs, len(isr))
	}
	type lead struct {
		topic string
		parts []int32
	}
	var outOfSync []lead
	// One partition's live ISR (copied only into a Block), and the
	// topic's min ISR by resolving broker (a topic has few leaders).
	isr := make([]int32, 0, 8)
	mins := map[int32]model.EffectiveConfig{}
	for _, t := range v.img.SortedTopics() {
		clear(mins)
		ids := make([]int32, 0, len(t.Partitions))
		for id, p := range t.Partitions {
			if slices.Contains(p.Replicas, node) {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		slices.Sort(ids)
		var led []int32
		for _, id := range ids {
			p := t.Partitions[id]
			out.Hosted++
			if p.Leader == node {
				out.Leads++
				for _, r := range p.Replicas {
					if !slices.Contains(p.ISR, r) {
						led = append(led, id)
						break
					}
				}
			}
			isr = isr[:0]
			for _, r := range p.ISR {
				if v.liveIn(r, p) {
					isr = append(isr, r)
				}
			}
			in := slices.Contains(isr, node)
			after := len(isr)
			if in {
				after--
			}
			switch {
			case in && after == 0:
				add(t.Name, CodeTakesOffline, p, isr, model.EffectiveConfig{}, 0, "")
				continue
			case len(isr) == 0:
				// min.insync.replicas is at least 1: no live in-sync
				// replica is under it whatever its value.
				add(t.Name, CodeAlreadyUnder, p, isr, model.EffectiveConfig{}, 0, "no live in-sync replica")
				continue
			}
			lb := v.nextLeader(node, p, isr)
			m, ok := mins[lb]
			if !ok {
				m = res.TopicConfig(t.Name, "min.insync.replicas", lb)
				mins[lb] = m
			}
			// Read as Kafka reads it (model.MinISRValue): a value it
			// refuses (not an integer of at least 1) is no number to
			// judge a stop by.
			n, valid := model.MinISRValue(m.Value)
			mv := int64(n)
			switch {
			case !m.Known || !valid:
				why := m.Missing()
				if !valid && m.Known {
					why = fmt.Sprintf("min.insync.replicas %q is a value Kafka refuses (an integer of at least 1)", m.Value)
				}
				add(t.Name, CodeCannotTell, p, isr, m, 0, "min.insync.replicas: "+why)
				if !m.Known {
					v.missingConfig(m, missing)
				} else {
					missing(fmt.Sprintf("a min.insync.replicas Kafka accepts: %s sets %q, which Kafka refuses (an integer of at least 1)", m.Source(), m.Value),
						"set an integer of at least 1 there (a broker does not start with the value in its server.properties)")
				}
			case int64(len(isr)) < mv:
				add(t.Name, CodeAlreadyUnder, p, isr, m, mv, "")
			case in && int64(after) < mv:
				add(t.Name, CodeUnderMinISR, p, isr, m, mv, "")
			}
		}
		if len(led) > 0 {
			outOfSync = append(outOfSync, lead{t.Name, led})
		}
	}
	for _, g := range groups {
		out.Topics = append(out.Topics, TopicCount{Topic: g.topic, Rule: g.rule, Count: len(g.parts)})
		c := checks.Must(g.rule)
		ent := "topic " + g.topic
		n := plural(len(g.parts), "partition", "partitions")
		list := partList(g.parts, maxListed)
		var msg string
		have, them := "have", "them"
		if len(g.parts) == 1 {
			have, them = "has", "it"
		}
		switch g.rule {
		case CodeTakesOffline:
			msg = fmt.Sprintf("%s (%s): broker %d is the last live in-sync replica; stopping it leaves %s without a leader", n, list, node, them)
		case CodeAlreadyUnder:
			if g.minISR == 0 {
				msg = fmt.Sprintf("%s (%s) %s no live in-sync replica; broker %d holds a replica", n, list, have, node)
			} else {
				msg = fmt.Sprintf("%s (%s) %s %s in sync, under min.insync.replicas %d (%s) already; broker %d holds a replica",
					n, list, have, isrSizes(g.isrs), g.minISR, g.from, node)
			}
		case CodeUnderMinISR:
			msg = fmt.Sprintf("%s (%s) %s %s in sync, broker %d among them, at min.insync.replicas %d (%s): stopping it leaves %s under, and acks=all producers get NOT_ENOUGH_REPLICAS",
				n, list, have, isrSizes(g.isrs), node, g.minISR, g.from, them)
		case CodeCannotTell:
			continue // said once per missing fact
		}
		out.Findings = append(out.Findings, c.Finding(ent, msg, c.Fix))
	}
	slices.SortFunc(out.Topics, func(a, b TopicCount) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Rule, b.Rule))
	})
	// The undecided partitions are counted in Topics; one finding per
	// missing fact says why (Check adds them).
	for _, l := range outOfSync {
		out.Findings = append(out.Findings, checks.Must(CodeLeadsOutOfSync).Findingf("topic "+l.topic,
			"broker %d leads %s (%s) whose followers are not all in sync: after its stop they run with fewer copies until those catch up",
			node, plural(len(l.parts), "partition", "partitions"), partList(l.parts, maxListed)))
	}
}

// isrSizes says the ISR sizes of a group: "2 replicas", or "1 to 2
// replicas" when they differ.
func isrSizes(sizes []int) string {
	lo, hi := slices.Min(sizes), slices.Max(sizes)
	if lo == hi {
		return plural(lo, "replica", "replicas")
	}
	return fmt.Sprintf("%d to %d replicas", lo, hi)
}

// nextLeader is the broker that leads p once node is down: its leader
// when that is another live broker, else the first replica in assignment
// order among the live in-sync ones (as Kafka elects), AnyBroker when
// none (the partition goes offline, judged without min ISR).
func (v *view) nextLeader(node int32, p *model.Partition, isr []int32) int32 {
	if p.Leader != node && p.Leader >= 0 && slices.Contains(isr, p.Leader) {
		return p.Leader
	}
	for _, r := range p.Replicas {
		if r != node && slices.Contains(isr, r) {
			return r
		}
	}
	return model.AnyBroker
}

// missingConfig names the config layers an unknown min.insync.replicas
// lacks, each with how to get it.
func (v *view) missingConfig(m model.EffectiveConfig, missing func(string, string)) {
	for _, g := range m.Gaps {
		switch {
		case g.Layer == model.LayerStatic && g.Broker != model.AnyBroker:
			missing(fmt.Sprintf("broker %d's server.properties (min.insync.replicas may be set there)", g.Broker),
				fmt.Sprintf("pass it: --config %d=FILE", g.Broker))
		case (g.Layer == model.LayerBroker || g.Layer == model.LayerClusterDefault) && !v.img.Reports(model.FieldBrokerConfigs):
			missing("the brokers' dynamic configs (min.insync.replicas may be set there; the source reported none of them)",
				"ask the brokers again (--bootstrap-server HOST:PORT): the read of their dynamic configs failed")
		case g.Layer == model.LayerBroker && g.Broker != model.AnyBroker:
			missing(fmt.Sprintf("broker %d's dynamic configs (min.insync.replicas may be set there)", g.Broker),
				fmt.Sprintf("ask the brokers while broker %d answers (--bootstrap-server HOST:PORT)", g.Broker))
		case g.Layer == model.LayerTopic:
			missing("the topics' configs", "ask the brokers (--bootstrap-server HOST:PORT)")
		case g.Layer == model.LayerClusterDefault || g.Layer == model.LayerBroker:
			missing("the brokers' dynamic configs", "ask the brokers (--bootstrap-server HOST:PORT)")
		case g.Reason == model.GapDisagree:
			// Only asked for AnyBroker, which Check never does.
			missing("min.insync.replicas: the brokers apply different values", "pass each broker's server.properties: --config ID=FILE")
		default:
			missing(fmt.Sprintf("min.insync.replicas's %s layer (%s)", g.Layer, g.Reason), "")
		}
	}
}

func (v *view) checkController(node int32, out *Verdict, missing func(string, string)) {
	entity := "controller " + strconv.Itoa(int(node))
	if len(out.Roles) == 2 {
		entity = "node " + strconv.Itoa(int(node))
	}
	if !v.votersKnown {
		missing(fmt.Sprintf("the quorum's voters (whether controller %d votes)", node), quorumHow(v.in))
		return
	}
	if !slices.Contains(v.voters, node) {
		out.Findings = append(out.Findings, checks.Must(CodeControllerUnknown).Findingf(entity,
			"controller %d is not among the voters %s: its restart does not weigh on the majority", node, idList(v.voters)))
		return
	}
	if v.leader == node {
		out.QuorumLeader = true
		out.Findings = append(out.Findings, checks.Must(CodeQuorumLeader).Findingf(entity,
			"controller %d leads the metadata quorum: restart it after the other controllers", node))
	}
	vs := v.voterState(node)
	switch {
	case vs == nil:
		missing(timesMissing, timesHow)
	case v.in.Quorum.Leader() == nil:
		reason := fmt.Sprintf("the metadata quorum has no leader (leader id %d, epoch %d)", v.in.Quorum.LeaderID, v.in.Quorum.LeaderEpoch)
		out.Blocking = append(out.Blocking, Block{Rule: CodeQuorumNoLeader, Reason: reason})
		out.Findings = append(out.Findings, checks.Must(CodeQuorumNoLeader).Findingf(entity, "%s: restarting controller %d now may keep it from electing one", reason, node))
	case vs.RestartSafe == "yes":
	case vs.RestartSafe == "no":
		var behind []int32
		for _, o := range v.assessment.Voters {
			if o.ID != node && o.CaughtUp != "yes" {
				behind = append(behind, o.ID)
			}
		}
		reason := fmt.Sprintf("without controller %d, %d of the %d voters are caught up with the leader, under the majority of %d (not caught up: %s)",
			node, vs.CaughtUpWithout, len(v.voters), v.assessment.Majority, idList(behind))
		out.Blocking = append(out.Blocking, Block{Rule: CodeQuorumMajority, Reason: reason})
		out.Findings = append(out.Findings, checks.Must(CodeQuorumMajority).Findingf(entity, "%s: the metadata quorum would stop", reason))
	default:
		missing(timesMissing, timesHow)
	}
}
