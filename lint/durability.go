package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// The durability rules: how many copies a write has, and whether a
// leader may be elected that lacks some of them.
const (
	CodeReplicationFactorOne   = "replication-factor-one"
	CodeReplicationFactorBelow = "replication-factor-below-3"
	CodeMinISRNotBelowRF       = "min-isr-not-below-rf"
	CodeMinISROne              = "min-isr-one"
	CodeUncleanElection        = "unclean-leader-election-enabled"
	CodeELRUncleanPending      = "elr-unclean-recovery-pending"
	CodeInternalTopicRF        = "internal-topic-replication"
)

// internalTopics are the topics Kafka creates for its own state, whose
// replication its brokers' configs set (offsets.topic.replication.factor,
// transaction.state.log.replication.factor, ...).
var internalTopics = []string{"__consumer_offsets", "__transaction_state", "__share_group_state", "__remote_log_metadata"}

func isInternal(name string) bool { return slices.Contains(internalTopics, name) }

// rf is a partition's replication factor: its replicas less those a
// reassignment is removing.
func rf(p *model.Partition) int { return len(p.Replicas) - len(p.RemovingReplicas) }

var durabilityRules = []*Rule{
	{
		Code: CodeReplicationFactorOne, Family: Durability, Severity: model.SevError,
		Title:  "a topic with replication factor 1: one broker lost loses its data",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers,
		Topic: func(c *Context, t *model.Topic) []Finding {
			if isInternal(t.Name) {
				return nil
			}
			return lowRF(c, t, CodeReplicationFactorOne, func(n int) bool { return n == 1 },
				"every write has one copy: losing that broker's disk loses the partition's data")
		},
	},
	{
		Code: CodeReplicationFactorBelow, Family: Durability, Severity: model.SevWarning,
		Title:  "a topic with replication factor 2: one broker down leaves no room for another failure",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers,
		Topic: func(c *Context, t *model.Topic) []Finding {
			if isInternal(t.Name) {
				return nil
			}
			return lowRF(c, t, CodeReplicationFactorBelow, func(n int) bool { return n == 2 },
				"with one broker down, a second failure loses data or availability; 3 replicas is the usual floor")
		},
	},
	{
		Code: CodeInternalTopicRF, Family: Durability, Severity: model.SevError,
		Title:  "an internal topic (__consumer_offsets, __transaction_state, __share_group_state, __remote_log_metadata) replicated below 3, on a cluster of any size",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers,
		Topic: func(c *Context, t *model.Topic) []Finding {
			if !isInternal(t.Name) {
				return nil
			}
			// Named on a cluster of any size, as user topics are: a
			// one- or two-broker cluster holds its offsets and
			// transactions on as few copies as it has brokers.
			return lowRF(c, t, CodeInternalTopicRF, func(n int) bool { return n < 3 },
				"Kafka's own state (offsets, transactions, share groups, remote log metadata) is lost or unavailable with one broker")
		},
	},
	{
		Code: CodeMinISRNotBelowRF, Family: Durability, Severity: model.SevError,
		Title:  "effective min.insync.replicas equal to or above the replication factor: acks=all writes stop when one replica is down",
		Needs:  []model.Field{model.FieldTopics, model.FieldTopicConfigs, model.FieldBrokerConfigs},
		Inputs: InputClusterConfig | InputFeatures,
		Topic: func(c *Context, t *model.Topic) []Finding {
			return minISRRule(c, t, CodeMinISRNotBelowRF, func(n, minISR int) bool { return n >= 2 && minISR >= n || minISR > n },
				func(n int) int { return max(1, n-1) },
				"acks=all writes fail (NotEnoughReplicas) as soon as one replica is down or lagging")
		},
	},
	{
		Code: CodeMinISROne, Family: Durability, Severity: model.SevWarning,
		Title:  "effective min.insync.replicas 1 with replication factor 3 or more: an acknowledged write may live on one broker only",
		Needs:  []model.Field{model.FieldTopics, model.FieldTopicConfigs, model.FieldBrokerConfigs},
		Inputs: InputClusterConfig | InputFeatures,
		Topic: func(c *Context, t *model.Topic) []Finding {
			return minISRRule(c, t, CodeMinISROne, func(n, minISR int) bool { return n >= 3 && minISR <= 1 },
				func(int) int { return 2 },
				"an acks=all write is acknowledged with one copy when the ISR has shrunk to the leader; losing it loses the write")
		},
	},
	{
		Code: CodeUncleanElection, Family: Durability, Severity: model.SevError,
		Title:  "unclean.leader.election.enable=true on a topic, a broker (dynamic or in its server.properties) or the cluster default",
		Needs:  []model.Field{model.FieldTopicConfigs, model.FieldBrokerConfigs},
		Inputs: InputClusterConfig | InputTopicConfig | InputBrokers,
		Cluster: func(c *Context) []Finding {
			const key = uncleanKey
			r := rule(CodeUncleanElection)
			var out []Finding
			why := "a replica outside the ISR may become leader: writes acknowledged by the ISR are lost"
			for _, rc := range c.Img.SortedConfigs() {
				v, ok := c.Img.Configs[rc.Resource][key]
				if !ok {
					continue
				}
				if b, valid := model.KafkaBool(v); !valid {
					// Neither true nor false: Kafka's BOOLEAN refuses
					// it, and it is not read as false here. A topic's
					// is not judged (Kafka validates a topic config
					// when it is set, so only a damaged source holds
					// one); a broker's or the cluster's a broker drops
					// and applies the layer below, as the resolver
					// does, and the brokers' loop below says so.
					if e, judge := uncleanSet(rc.Resource, v); judge && e.Layer == model.LayerTopic {
						c.noteRefused(CodeUncleanElection, rc.Resource.Name, &e)
					}
					continue
				} else if !b {
					continue
				}
				switch rc.Resource.Type {
				case model.ConfigTopic:
					out = append(out, r.finding(fmt.Sprintf("topic %s sets %s=true", rc.Resource.Name, key), why,
						c.alterTopicConfig(rc.Resource.Name, map[string]string{key: "false"}),
						configEntity(model.ConfigTopic, rc.Resource.Name), Entity{Kind: "topic", Name: rc.Resource.Name}))
				case model.ConfigBroker:
					what := "the cluster default sets"
					es := []Entity{configEntity(model.ConfigBroker, rc.Resource.Name)}
					if rc.Resource.Name != "" {
						what = "broker " + rc.Resource.Name + " sets"
						if id, err := strconv.Atoi(rc.Resource.Name); err == nil {
							es = append(es, brokerEntity(int32(id)))
						}
					}
					out = append(out, r.finding(fmt.Sprintf("%s %s=true", what, key), why,
						c.alterBrokerConfig(rc.Resource.Name, map[string]string{key: "false"}), es...))
				}
			}
			// A broker's server.properties: where it is what the broker
			// applies (no dynamic config hides it), and what the view
			// assumes where the source does not hold it.
			for _, id := range c.brokerIDs {
				e := c.resolver().BrokerConfig(key, id)
				if refusedValue(&e) {
					c.noteRefused(CodeUncleanElection, "", &e)
					continue
				}
				c.noteAssumed(CodeUncleanElection, &e)
				if b, _ := model.KafkaBool(e.Value); e.Layer != model.LayerStatic || !b {
					continue
				}
				out = append(out, r.finding(fmt.Sprintf("broker %d's server.properties sets %s=true, which no dynamic config overrides", id, key), why,
					c.alterBrokerConfig(strconv.Itoa(int(id)), map[string]string{key: "false"}),
					brokerEntity(id)))
			}
			return out
		},
	},
	{
		Code: CodeELRUncleanPending, Family: Durability, Severity: model.SevCritical,
		Title:  "a partition without leader, ISR or eligible leader replicas, only its last known ELR left: recovery needs an unclean election",
		Needs:  []model.Field{model.FieldTopics, model.FieldPartitionELR},
		Inputs: InputFeatures,
		Applies: func(c *Context) (bool, string) {
			if c.Img.ZK != nil {
				return false, "ZooKeeper mode has no eligible leader replicas (KIP-966 is KRaft's)"
			}
			return true, ""
		},
		Partition: func(c *Context, t *model.Topic, p *model.Partition) []Finding {
			if p.Leader != model.NoLeader || len(p.ISR) > 0 || len(p.ELR) > 0 || len(p.LastKnownELR) == 0 {
				return nil
			}
			r := rule(CodeELRUncleanPending)
			if c.keysOnly {
				return r.partitionKeys(t, p)
			}
			return []Finding{r.finding(
				fmt.Sprintf("%s has no leader, an empty ISR and ELR, last known ELR %s", tp(t, p), ids(p.LastKnownELR)),
				"no replica is known to hold every committed write: the partition stays offline until an unclean election, which may lose writes",
				c.electLeaders("unclean", t.Name, p.ID),
				partitionEntity(t, p))}
		},
	},
}

// lowRF reports t's partitions whose replication factor bad says is too
// low, with the reassignment that raises them to 3 (or to the number of
// brokers, when fewer), when kafka-reassign-partitions can run it as
// printed and Kafka can complete it; else no fix, and why says why:
//
//   - a topic marked for deletion (/admin/delete_topics): Kafka's
//     ZooKeeper-mode controller skips the reassignment of a topic queued
//     for deletion (KafkaController.maybeTriggerPartitionReassignment:
//     "Skipping reassignment of ... since the topic is currently being
//     deleted", UNKNOWN_TOPIC_OR_PARTITION); KRaft removes a deleted
//     topic in one record, so no such topic is left to judge;
//   - a partition without a leader on an available broker: its data is
//     on brokers that are down or gone, and a new replica has no leader
//     to copy from, so the reassignment never completes: the broker must
//     come back first;
//   - too few available brokers to add replicas on.
//
// A plan names only available (registered, unfenced) brokers:
// kafka-reassign-partitions --execute refuses a plan naming any other
// (ReassignPartitionsCommand.verifyBrokerIds: the brokers DescribeCluster
// returns, "Unknown broker id N"), so a replica on such a broker is
// dropped from the plan, and a live one takes its place; the replicas on
// live brokers keep their order.
func lowRF(c *Context, t *model.Topic, code string, bad func(int) bool, why string) []Finding {
	// Most topics have no such partition: found out without sorting them
	// (a tracker runs this for each topic a batch of a replay touched).
	hitAny := false
	for _, p := range t.Partitions {
		if bad(rf(p)) {
			hitAny = true
			break
		}
	}
	if !hitAny {
		return nil
	}
	r := rule(code)
	var hit []*model.Partition
	seen := map[int]bool{}
	for _, p := range t.SortedPartitions() {
		if n := rf(p); bad(n) {
			hit = append(hit, p)
			seen[n] = true
		}
	}
	if len(hit) == 0 {
		return nil
	}
	fix := ""
	switch offline := c.offlineOf(hit); {
	case c.deletionPending(t.Name):
		why += " (no reassignment: the topic is marked for deletion (/admin/delete_topics), and Kafka's controller does not reassign a topic being deleted; see topic-deletion-pending)"
	case len(offline) > 0:
		why += fmt.Sprintf(" (no reassignment: %s no leader on an available broker, %s on broker(s) %s, fenced or not registered: a reassignment cannot complete without a leader to copy from; start broker(s) %s first)",
			offlineNames(t, offline), pluralize(len(offline), "its replicas", "their replicas"), ids(c.unavailableOf(offline)), ids(c.unavailableOf(offline)))
	default:
		want := min(3, c.liveBrokers())
		count := map[int32]int{}
		for k, v := range c.replicas {
			count[k] = v
		}
		moves := map[int32][]int32{}
		for _, p := range hit {
			live := c.liveReplicas(p)
			if g := c.grow(live, want, count); g != nil && len(g) > len(live) {
				moves[p.ID] = g
			}
		}
		if len(moves) == len(hit) {
			fix = c.reassign(t.Name, moves)
		} else {
			why += fmt.Sprintf(" (the cluster has %d available brokers: add brokers first)", c.liveBrokers())
		}
	}
	rfs := sortedKeys(seen)
	rfText := make([]string, len(rfs))
	for i, n := range rfs {
		rfText[i] = strconv.Itoa(n)
	}
	es := []Entity{topicEntity(t)}
	for _, p := range hit {
		es = append(es, partitionEntity(t, p))
	}
	saw := fmt.Sprintf("topic %s: %d of %d partitions have replication factor %s", t.Name, len(hit), len(t.Partitions), strings.Join(rfText, ", "))
	return []Finding{r.finding(saw, why, fix, es...)}
}

// deletionPending says whether topic is marked for deletion in
// ZooKeeper (/admin/delete_topics).
func (c *Context) deletionPending(topic string) bool {
	return c.Img.ZK != nil && slices.Contains(c.Img.ZK.PendingTopicDeletions, topic)
}

// liveReplicas are p's replicas on available brokers, in order.
func (c *Context) liveReplicas(p *model.Partition) []int32 {
	var out []int32
	for _, r := range p.Replicas {
		if c.available(r) {
			out = append(out, r)
		}
	}
	return out
}

// offlineOf are the partitions of ps without a leader on an available
// broker.
func (c *Context) offlineOf(ps []*model.Partition) []*model.Partition {
	var out []*model.Partition
	for _, p := range ps {
		if p.Leader == model.NoLeader || !c.available(p.Leader) {
			out = append(out, p)
		}
	}
	return out
}

// unavailableOf are the brokers, sorted, holding a replica of ps that
// are not available (not registered, or fenced).
func (c *Context) unavailableOf(ps []*model.Partition) []int32 {
	var out []int32
	for _, p := range ps {
		for _, r := range p.Replicas {
			if !c.available(r) {
				out = appendOnce(out, r)
			}
		}
	}
	slices.Sort(out)
	return out
}

// offlineNames names partitions of t: "orders-0 has", "orders-0, orders-1
// have".
func offlineNames(t *model.Topic, ps []*model.Partition) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = tp(t, p)
	}
	return strings.Join(names, ", ") + pluralize(len(ps), " has", " have")
}

// pluralize is one when n is 1, else many.
func pluralize(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// minISRRule reports t when a partition's effective min.insync.replicas
// is bad against its replication factor, with the topic config that
// fixes it (to(rf), the smallest replication factor among those hit).
// why says why it matters for a min ISR of at most the replication
// factor; above it, Kafka caps the value (see aboveRF).
func minISRRule(c *Context, t *model.Topic, code string, bad func(rf, minISR int) bool, to func(int) int, why string) []Finding {
	// As lowRF: most topics have no such partition. Every partition's
	// config assumptions are noted either way (the notes are sets).
	hitAny := false
	for _, p := range t.Partitions {
		if n := rf(p); n != 0 {
			m, e := c.MinISR(t.Name, p.Leader)
			if m == 0 {
				c.noteRefused(code, t.Name, e)
				continue
			}
			c.noteAssumed(code, e)
			if bad(n, m) {
				hitAny = true
				break
			}
		}
	}
	if !hitAny {
		return nil
	}
	r := rule(code)
	var hit []*model.Partition
	lowest, value := 0, 0
	var from *model.EffectiveConfig
	for _, p := range t.SortedPartitions() {
		n := rf(p)
		if n == 0 {
			continue
		}
		m, e := c.MinISR(t.Name, p.Leader)
		if m == 0 {
			c.noteRefused(code, t.Name, e)
			continue
		}
		c.noteAssumed(code, e)
		if !bad(n, m) {
			continue
		}
		if len(hit) == 0 || n < lowest {
			lowest, value, from = n, m, e
		}
		hit = append(hit, p)
	}
	if len(hit) == 0 {
		return nil
	}
	es := []Entity{topicEntity(t), configEntity(model.ConfigTopic, t.Name)}
	for _, p := range hit {
		es = append(es, partitionEntity(t, p))
	}
	saw := fmt.Sprintf("topic %s: min.insync.replicas %d (%s), replication factor %d", t.Name, value, source(from), lowest)
	if len(hit) < len(t.Partitions) {
		saw += fmt.Sprintf(" (%d of %d partitions)", len(hit), len(t.Partitions))
	}
	if value > lowest {
		why = aboveRF
	}
	fix := c.alterTopicConfig(t.Name, map[string]string{"min.insync.replicas": strconv.Itoa(to(lowest))})
	return []Finding{r.finding(saw, why, fix, es...)}
}

// aboveRF is why a min.insync.replicas above the replication factor
// matters. Kafka's leader (3.7 and later, KAFKA-15583) applies
// min(min.insync.replicas, replicas): writes go on, with fewer copies
// than the config asks.
const aboveRF = "min.insync.replicas is above the replication factor: Kafka 3.7 and later cap it at the replication factor, so an acks=all write is acknowledged with fewer copies than it asks for and fails as soon as one replica is out of the ISR (before 3.7, every acks=all write fails)"

// minISRKey is the config the min ISR rules read.
const minISRKey = "min.insync.replicas"

// uncleanSet is unclean.leader.election.enable's value v as a dynamic
// config resource sets it, for noteRefused: a topic's, a broker's or the
// cluster default. judge is false for a broker resource not named by a
// broker id, which no broker applies.
func uncleanSet(res model.ConfigResource, v string) (e model.EffectiveConfig, judge bool) {
	e = model.EffectiveConfig{Key: uncleanKey, Name: uncleanKey, Value: v, Known: true, Broker: model.AnyBroker}
	switch {
	case res.Type == model.ConfigTopic:
		e.Layer = model.LayerTopic
	case res.Type == model.ConfigBroker && res.Name == "":
		e.Layer = model.LayerClusterDefault
	case res.Type == model.ConfigBroker:
		id, err := strconv.ParseInt(res.Name, 10, 32)
		if err != nil {
			return e, false
		}
		e.Layer, e.Broker = model.LayerBroker, int32(id)
	default:
		return e, false
	}
	return e, true
}
