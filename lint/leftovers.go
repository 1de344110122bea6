package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// The leftovers rules: what a finished operation should have removed.
const (
	CodeThrottleLeftSet      = "throttle-left-set"
	CodeReassignmentInFlight = "reassignment-in-flight"
	CodeDeletionPending      = "topic-deletion-pending"
	CodeStaleNotifications   = "zk-stale-notifications"
)

// Kafka's replication throttle configs: per topic, the replicas
// throttled; per broker, the rates.
var (
	topicThrottles  = []string{"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
	brokerThrottles = []string{"leader.replication.throttled.rate", "follower.replication.throttled.rate", "replica.alter.log.dirs.io.max.bytes.per.second"}
)

// reassigning says whether a partition of t (or of any topic, t nil) is
// being reassigned.
func (c *Context) reassigning(t *model.Topic) bool {
	if c.Img.ZK != nil && len(c.Img.ZK.LegacyReassignments) > 0 {
		if t == nil {
			return true
		}
		for k := range c.Img.ZK.LegacyReassignments {
			if strings.HasPrefix(k, t.Name+"-") {
				return true
			}
		}
	}
	if t == nil {
		return c.moving // counted with the replicas
	}
	for _, p := range t.Partitions {
		if len(p.AddingReplicas) > 0 || len(p.RemovingReplicas) > 0 {
			return true
		}
	}
	return false
}

var leftoverRules = []*Rule{
	{
		Code: CodeThrottleLeftSet, Family: Leftovers, Severity: model.SevWarning,
		Title:  "replication throttles set while no reassignment is in flight",
		Needs:  []model.Field{model.FieldTopics, model.FieldTopicConfigs, model.FieldBrokerConfigs, model.FieldPartitionReassignment},
		Inputs: InputClusterConfig | InputTopicConfig | InputPartitions,
		Cluster: func(c *Context) []Finding {
			r := rule(CodeThrottleLeftSet)
			why := "replication of these replicas stays capped: after a broker failure they catch up slowly, or never under load"
			var out []Finding
			anyMoving := c.reassigning(nil)
			for _, rc := range c.Img.SortedConfigs() {
				kv := c.Img.Configs[rc.Resource]
				var set []string
				keys := brokerThrottles
				if rc.Resource.Type == model.ConfigTopic {
					keys = topicThrottles
				} else if rc.Resource.Type != model.ConfigBroker {
					continue
				}
				for _, k := range keys {
					if _, ok := kv[k]; ok {
						set = append(set, k)
					}
				}
				if len(set) == 0 {
					continue
				}
				show := make([]string, len(set))
				for i, k := range set {
					show[i] = k + "=" + kv[k]
				}
				switch rc.Resource.Type {
				case model.ConfigTopic:
					t := c.Img.Topics[rc.Resource.Name]
					if t != nil && c.reassigning(t) {
						continue
					}
					out = append(out, r.finding(fmt.Sprintf("topic %s sets %s, no reassignment of it in flight", rc.Resource.Name, strings.Join(show, ", ")), why,
						c.alterTopicConfig(rc.Resource.Name, nil, set...),
						configEntity(model.ConfigTopic, rc.Resource.Name), Entity{Kind: "topic", Name: rc.Resource.Name}))
				case model.ConfigBroker:
					if anyMoving {
						continue
					}
					who := "the cluster default"
					es := []Entity{configEntity(model.ConfigBroker, rc.Resource.Name)}
					if rc.Resource.Name != "" {
						who = "broker " + rc.Resource.Name
						if id, err := strconv.Atoi(rc.Resource.Name); err == nil {
							es = append(es, brokerEntity(int32(id)))
						}
					}
					out = append(out, r.finding(fmt.Sprintf("%s sets %s, no reassignment in flight", who, strings.Join(show, ", ")), why,
						c.alterBrokerConfig(rc.Resource.Name, nil, set...), es...))
				}
			}
			return out
		},
	},
	{
		Code: CodeReassignmentInFlight, Family: Leftovers, Severity: model.SevWarning,
		Title: "a partition reassignment in flight (adding or removing replicas): stuck when it stays",
		Needs: []model.Field{model.FieldTopics, model.FieldPartitionReassignment},
		Partition: func(c *Context, t *model.Topic, p *model.Partition) []Finding {
			if len(p.AddingReplicas) == 0 && len(p.RemovingReplicas) == 0 {
				return nil
			}
			r := rule(CodeReassignmentInFlight)
			if c.keysOnly {
				return r.partitionKeys(t, p)
			}
			return []Finding{r.finding(fmt.Sprintf("%s: replicas %s, adding %s, removing %s", tp(t, p), ids(p.Replicas), ids(p.AddingReplicas), ids(p.RemovingReplicas)),
				"until the new replicas join the ISR the partition carries extra replicas and the move's throttles; one that does not progress is stuck",
				c.tool("kafka-reassign-partitions")+" --list", partitionEntity(t, p))}
		},
	},
	{
		Code: CodeDeletionPending, Family: Leftovers, Severity: model.SevWarning,
		Title: "a topic deletion pending in ZooKeeper (/admin/delete_topics)",
		Applies: func(c *Context) (bool, string) {
			if c.Img.ZK == nil {
				return false, "only ZooKeeper keeps pending deletions (KRaft deletes a topic in one record)"
			}
			return true, ""
		},
		Cluster: func(c *Context) []Finding {
			r := rule(CodeDeletionPending)
			var out []Finding
			for _, name := range c.Img.ZK.PendingTopicDeletions {
				out = append(out, r.finding(fmt.Sprintf("topic %s is marked for deletion and still there", name),
					"the controller deletes it only when every replica's broker is up; a migration refuses it", "",
					Entity{Kind: "topic", Name: name}))
			}
			return out
		},
	},
	{
		Code: CodeStaleNotifications, Family: Leftovers, Severity: model.SevInfo,
		Title: "preferred-election requests and change notifications left in ZooKeeper",
		Applies: func(c *Context) (bool, string) {
			if c.Img.ZK == nil {
				return false, "ZooKeeper only"
			}
			return true, ""
		},
		Cluster: func(c *Context) []Finding {
			r := rule(CodeStaleNotifications)
			var out []Finding
			if n := len(c.Img.ZK.PreferredReplicaElections); n > 0 {
				out = append(out, r.finding(fmt.Sprintf("/admin/preferred_replica_election holds %d partitions", n),
					"a controller that never consumed it left it: a new election request is refused while it exists", "",
					Entity{Kind: "cluster", Name: "/admin/preferred_replica_election"}))
			}
			// Config, ACL and token change notifications are kept by
			// Kafka for a while on purpose; ISR and log dir events are
			// consumed at once by a live controller.
			for _, kind := range []string{"isr_change", "log_dir_event"} {
				if c.Img.ZK.Notifications[kind] == 0 {
					continue
				}
				out = append(out, r.finding(fmt.Sprintf("%d %s notifications pending", c.Img.ZK.Notifications[kind], kind),
					"the controller processes and deletes them; ones that stay mean it does not", "",
					Entity{Kind: "cluster", Name: kind}))
			}
			return out
		},
	},
}
