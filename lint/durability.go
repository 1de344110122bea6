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
		Title:  "an internal topic (__consumer_offsets, __transaction_state, __share_group_state, __remote_log_metadata) replicated below 3 where the cluster has 3 brokers",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers},
		Inputs: InputBrokers,
		Topic: func(c *Context, t *model.Topic) []Finding {
			if !isInternal(t.Name) {
				return nil
			}
			want := min(3, c.liveBrokers())
			return lowRF(c, t, CodeInternalTopicRF, func(n int) bool { return n < want },
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
		Title:  "unclean.leader.election.enable=true on a topic, a broker or the cluster default",
		Needs:  []model.Field{model.FieldTopicConfigs, model.FieldBrokerConfigs},
		Inputs: InputClusterConfig | InputTopicConfig,
		Cluster: func(c *Context) []Finding {
			const key = "unclean.leader.election.enable"
			r := rule(CodeUncleanElection)
			var out []Finding
			why := "a replica outside the ISR may become leader: writes acknowledged by the ISR are lost"
			for _, rc := range c.Img.SortedConfigs() {
				v, ok := c.Img.Configs[rc.Resource][key]
				if !ok || !strings.EqualFold(strings.TrimSpace(v), "true") {
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
// brokers, when fewer).
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
	want := min(3, c.liveBrokers())
	count := map[int32]int{}
	for k, v := range c.replicas {
		count[k] = v
	}
	moves := map[int32][]int32{}
	for _, p := range hit {
		if g := c.grow(p.Replicas, want, count); g != nil && len(g) > len(p.Replicas) {
			moves[p.ID] = g
		}
	}
	fix := ""
	if len(moves) == len(hit) {
		fix = c.reassign(t.Name, moves)
	} else {
		why += fmt.Sprintf(" (the cluster has %d available brokers: add brokers first)", c.liveBrokers())
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

// minISRRule reports t when a partition's effective min.insync.replicas
// is bad against its replication factor, with the topic config that
// fixes it (to(rf), the smallest replication factor among those hit).
func minISRRule(c *Context, t *model.Topic, code string, bad func(rf, minISR int) bool, to func(int) int, why string) []Finding {
	// As lowRF: most topics have no such partition.
	hitAny := false
	for _, p := range t.Partitions {
		if n := rf(p); n != 0 {
			if m, _ := c.MinISR(t.Name, p.Leader); bad(n, m) {
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
	lowest, value, from := 0, 0, ""
	for _, p := range t.SortedPartitions() {
		n := rf(p)
		m, src := c.MinISR(t.Name, p.Leader)
		if n == 0 || !bad(n, m) {
			continue
		}
		if len(hit) == 0 || n < lowest {
			lowest, value, from = n, m, src
		}
		hit = append(hit, p)
	}
	if len(hit) == 0 {
		return nil
	}
	if c.elr() && from != "topic config" {
		from += " (ELR is on: the cluster-level value counts)"
	}
	es := []Entity{topicEntity(t), configEntity(model.ConfigTopic, t.Name)}
	for _, p := range hit {
		es = append(es, partitionEntity(t, p))
	}
	saw := fmt.Sprintf("topic %s: min.insync.replicas %d (%s), replication factor %d", t.Name, value, from, lowest)
	if len(hit) < len(t.Partitions) {
		saw += fmt.Sprintf(" (%d of %d partitions)", len(hit), len(t.Partitions))
	}
	fix := c.alterTopicConfig(t.Name, map[string]string{"min.insync.replicas": strconv.Itoa(to(lowest))})
	return []Finding{r.finding(saw, why, fix, es...)}
}
