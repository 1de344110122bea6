package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// The placement rules: where replicas and leaders sit.
const (
	CodeReplicasSameRack = "replicas-same-rack"
	CodeBrokerNoRack     = "broker-without-rack"
	CodeLeaderImbalance  = "preferred-leader-imbalance"
	CodeBrokerNoReplicas = "broker-without-replicas"
)

// rackSpread is the number of distinct racks among available brokers.
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
			if racks < 2 {
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
		Title:  "a broker whose partitions are led elsewhere beyond leader.imbalance.per.broker.percentage",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokerConfigs},
		Inputs: InputClusterConfig | InputPartitions,
		Cluster: func(c *Context) []Finding {
			pct := 10
			if v, ok := c.config(model.ConfigBroker, "", "leader.imbalance.per.broker.percentage"); ok {
				if n, err := strconv.Atoi(v); err == nil {
					pct = n
				}
			}
			preferred, notLeading := map[int32]int{}, map[int32]int{}
			for _, t := range c.topics {
				for _, p := range t.Partitions {
					if len(p.Replicas) == 0 {
						continue
					}
					pref := p.Replicas[0]
					preferred[pref]++
					if p.Leader != pref && p.Leader != model.NoLeader && slices.Contains(p.ISR, pref) {
						notLeading[pref]++
					}
				}
			}
			r := rule(CodeLeaderImbalance)
			var out []Finding
			for _, id := range sortedKeys(notLeading) {
				n, of := notLeading[id], preferred[id]
				if n*100 <= pct*of {
					continue
				}
				out = append(out, r.finding(fmt.Sprintf("broker %d is the preferred leader of %d partitions and leads %d fewer of them (%d%%, above %d%%)", id, of, n, n*100/of, pct),
					"leaders, and with them produce and fetch load, pile up on fewer brokers",
					c.electLeaders("preferred", "", 0), brokerEntity(id)))
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
}
