package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// The availability rules: what is down or at risk right now.
const (
	CodePartitionOffline         = "partition-offline"
	CodePartitionUnderMinISR     = "partition-under-min-isr"
	CodePartitionUnderReplicated = "partition-under-replicated"
	CodeReplicasUnavailable      = "replicas-all-unavailable"
	CodeBrokerFenced             = "broker-fenced"
	CodeBrokerShuttingDown       = "broker-in-controlled-shutdown"
	CodeLeaderRecovering         = "partition-leader-recovering"
	CodeStaticConfigInvalid      = "static-config-invalid"
)

// notInISR are p's replicas outside its ISR, those a reassignment is
// adding left out (they join the ISR when caught up; kafka-topics
// --under-replicated-partitions leaves them out too).
func notInISR(p *model.Partition) []int32 {
	var out []int32
	for _, r := range p.Replicas {
		if !slices.Contains(p.ISR, r) && !slices.Contains(p.AddingReplicas, r) {
			out = append(out, r)
		}
	}
	return out
}

var availabilityRules = []*Rule{
	{
		Code: CodePartitionOffline, Family: Availability, Severity: model.SevCritical,
		Title: "a partition without a leader: it takes no reads or writes",
		Needs: []model.Field{model.FieldTopics},
		Partition: func(c *Context, t *model.Topic, p *model.Partition) []Finding {
			if p.Leader != model.NoLeader {
				return nil
			}
			r := rule(CodePartitionOffline)
			if c.keysOnly {
				return r.partitionKeys(t, p)
			}
			// The fix is to start a replica's broker; Kafka has no
			// command for that. The check that follows it is one.
			fix := fmt.Sprintf("start broker(s) %s (its replicas), then check: %s --describe --unavailable-partitions", ids(p.Replicas), c.tool("kafka-topics"))
			return []Finding{r.finding(fmt.Sprintf("%s has no leader (replicas %s, ISR %s)", tp(t, p), ids(p.Replicas), ids(p.ISR)),
				"producers and consumers of this partition fail until a replica in the ISR comes back", fix, partitionEntity(t, p))}
		},
	},
	{
		Code: CodePartitionUnderMinISR, Family: Availability, Severity: model.SevCritical,
		Title:  "a partition whose ISR is smaller than its effective min.insync.replicas: acks=all writes are refused now",
		Needs:  []model.Field{model.FieldTopics, model.FieldTopicConfigs, model.FieldBrokerConfigs},
		Inputs: InputClusterConfig | InputFeatures | InputBrokers,
		Partition: func(c *Context, t *model.Topic, p *model.Partition) []Finding {
			if p.Leader == model.NoLeader {
				return nil
			}
			m, e := c.MinISR(t.Name, p.Leader)
			if m == 0 {
				c.noteRefused(CodePartitionUnderMinISR, t.Name, e)
				return nil
			}
			c.noteAssumed(CodePartitionUnderMinISR, e)
			// A leader on Kafka 3.7+ applies min(min.insync.replicas,
			// replicas) (KAFKA-15583; the brokers' UnderMinIsr count
			// does too): a min ISR above the replication factor is then
			// min-isr-not-below-rf's alone. Where the view cannot tell
			// the release, the finding says what 3.7+ would do.
			need, note := m, ""
			if c.caps37 {
				need = min(m, len(p.Replicas))
			} else if m > len(p.Replicas) && len(p.ISR) >= len(p.Replicas) {
				note = fmt.Sprintf(" (brokers on Kafka 3.7 or later cap it at the replication factor, %d, and take these writes)", len(p.Replicas))
			}
			if len(p.ISR) >= need {
				return nil
			}
			r := rule(CodePartitionUnderMinISR)
			if c.keysOnly {
				return r.partitionKeys(t, p)
			}
			fix := fmt.Sprintf("start broker(s) %s (out of the ISR), then check: %s --describe --under-min-isr-partitions", ids(notInISR(p)), c.tool("kafka-topics"))
			return []Finding{r.finding(fmt.Sprintf("%s has ISR %s (%d), min.insync.replicas %d (%s)%s", tp(t, p), ids(p.ISR), len(p.ISR), m, source(e), note),
				"acks=all producers get NotEnoughReplicas: writes stop", fix, partitionEntity(t, p))}
		},
	},
	{
		Code: CodePartitionUnderReplicated, Family: Availability, Severity: model.SevError,
		Title: "a partition whose ISR is smaller than its replicas (those a reassignment is adding left out)",
		Needs: []model.Field{model.FieldTopics},
		Partition: func(c *Context, t *model.Topic, p *model.Partition) []Finding {
			// Kafka's count (kafka-topics --under-replicated-partitions,
			// the brokers' UnderReplicatedPartitions): an adding replica
			// that joined the ISR makes up for one that left it.
			if p.Leader == model.NoLeader || len(p.ISR) >= len(p.Replicas)-len(p.AddingReplicas) {
				return nil
			}
			r := rule(CodePartitionUnderReplicated)
			if c.keysOnly {
				return r.partitionKeys(t, p)
			}
			out := notInISR(p)
			fix := fmt.Sprintf("start broker(s) %s (out of the ISR) or let them catch up, then check: %s --describe --under-replicated-partitions", ids(out), c.tool("kafka-topics"))
			return []Finding{r.finding(fmt.Sprintf("%s has replicas %s, ISR %s", tp(t, p), ids(p.Replicas), ids(p.ISR)),
				"the partition has fewer copies than its replication factor: one more failure may take it offline or lose writes", fix, partitionEntity(t, p))}
		},
	},
	{
		Code: CodeReplicasUnavailable, Family: Availability, Severity: model.SevCritical,
		Title:  "a partition whose replicas are all on fenced or unregistered brokers",
		Needs:  []model.Field{model.FieldTopics, model.FieldBrokers, model.FieldBrokerFenced},
		Inputs: InputBrokers,
		Partition: func(c *Context, t *model.Topic, p *model.Partition) []Finding {
			if len(p.Replicas) == 0 || slices.ContainsFunc(p.Replicas, c.available) {
				return nil
			}
			r := rule(CodeReplicasUnavailable)
			if c.keysOnly {
				return r.partitionKeys(t, p)
			}
			fix := fmt.Sprintf("start broker(s) %s, then check: %s --describe --unavailable-partitions", ids(p.Replicas), c.tool("kafka-topics"))
			return []Finding{r.finding(fmt.Sprintf("%s: every replica (%s) is on a fenced or unregistered broker", tp(t, p), ids(p.Replicas)),
				"no broker can serve the partition", fix, partitionEntity(t, p))}
		},
	},
	{
		Code: CodeBrokerFenced, Family: Availability, Severity: model.SevError,
		Title: "a registered broker that is fenced (stopped, or not heartbeating to the controller)",
		Needs: []model.Field{model.FieldBrokers, model.FieldBrokerFenced},
		Applies: func(c *Context) (bool, string) {
			if c.Img.ZK != nil {
				return false, "ZooKeeper mode has no fencing: a stopped broker's registration is gone"
			}
			return true, ""
		},
		Cluster: func(c *Context) []Finding {
			r := rule(CodeBrokerFenced)
			var out []Finding
			for _, b := range c.Img.SortedBrokers() {
				if !b.Fenced {
					continue
				}
				out = append(out, r.finding(fmt.Sprintf("broker %d is fenced; it leads nothing and is in no ISR", b.ID),
					"its replicas are out of the ISR: the cluster runs with less redundancy",
					fmt.Sprintf("start broker %d, then check: %s", b.ID, c.tool("kafka-broker-api-versions")),
					brokerEntity(b.ID)))
			}
			return out
		},
	},
	{
		Code: CodeBrokerShuttingDown, Family: Availability, Severity: model.SevWarning,
		Title: "a broker in controlled shutdown",
		Needs: []model.Field{model.FieldBrokers, model.FieldBrokerControlledShutdown},
		Cluster: func(c *Context) []Finding {
			r := rule(CodeBrokerShuttingDown)
			var out []Finding
			for _, b := range c.Img.SortedBrokers() {
				// A fenced broker's flag is stale: the log keeps the
				// last BrokerRegistrationChangeRecord's flag after the
				// shutdown ended in fencing (a stopped broker), and
				// broker-fenced says what holds now.
				if b.InControlledShutdown && !b.Fenced {
					out = append(out, r.finding(fmt.Sprintf("broker %d is in controlled shutdown", b.ID),
						"its leaders are moving away and it leaves the ISRs: redundancy drops until it is back", "", brokerEntity(b.ID)))
				}
			}
			return out
		},
	},
	{
		// A node's server.properties is validated whole when Kafka
		// starts (KafkaConfig.fromProps: ConfigDef.parse, ConfigException
		// "Invalid value abc for configuration min.insync.replicas: Not
		// a number of type INT", "Value must be at least 1", "Expected
		// value to be either true or false"), before any dynamic config
		// could override the value: the node does not start, whatever
		// the layers above say. Only the keys lint reads are checked
		// (kafkaValues).
		Code: CodeStaticConfigInvalid, Family: Availability, Severity: model.SevError,
		Title: "a node's server.properties (--config) sets a config lint reads (" + kafkaValueKeys() + ") to a value Kafka refuses: the node does not start",
		Applies: func(c *Context) (bool, string) {
			if len(c.Img.StaticConfigs) == 0 {
				return false, "the source holds no node's server.properties (pass --config ID=server.properties)"
			}
			return true, ""
		},
		Cluster: func(c *Context) []Finding {
			r := rule(CodeStaticConfigInvalid)
			var out []Finding
			for _, id := range sortedKeys(c.Img.StaticConfigs) {
				file := c.staticFile(id)
				var sets, valid, fixes []string
				var one *model.KafkaValue
				for _, kv := range model.KafkaValues() {
					v, ok := c.Img.StaticConfigs[id][kv.Key]
					if !ok || kv.OK(v) || model.SecretWithheld(v) {
						continue
					}
					set := kv.Key + "=" + strconv.Quote(v)
					if rel := c.majorRelease(id); kv.UpTo3 && rel != 3 {
						// A 4.x node ignores the key; where the node's
						// release is not known, no error is claimed.
						if rel == 0 {
							c.noteUnjudged(CodeStaticConfigInvalid, fmt.Sprintf("node %d's %s sets %s, which Kafka 3.x refuses (%s): node %d's release is not known", id, file, set, kv.Valid(), id))
						}
						continue
					}
					sets = append(sets, set)
					valid = append(valid, kv.Valid())
					fixes = append(fixes, fmt.Sprintf("%s to %s (or remove it: Kafka's default is %s)", kv.Key, kv.Want, kv.Default))
					one = kv
				}
				switch len(sets) {
				case 0:
					continue
				case 1:
					out = append(out, r.finding(fmt.Sprintf("node %d's %s sets %s", id, file, sets[0]),
						"Kafka refuses the value ("+valid[0]+") and the node does not start with it; kmeta judges nothing by it",
						fmt.Sprintf("set %s in node %d's %s to %s (or remove it: Kafka's default is %s), then start the node", one.Key, id, file, one.Want, one.Default),
						brokerEntity(id)))
				default:
					out = append(out, r.finding(fmt.Sprintf("node %d's %s sets %s", id, file, strings.Join(sets, ", ")),
						"Kafka refuses the values ("+strings.Join(valid, "; ")+") and the node does not start with them; kmeta judges nothing by them",
						fmt.Sprintf("in node %d's %s, set %s, then start the node", id, file, strings.Join(fixes, " and ")),
						brokerEntity(id)))
				}
			}
			return out
		},
	},
	{
		Code: CodeLeaderRecovering, Family: Availability, Severity: model.SevError,
		Title: "a partition whose leader is recovering after an unclean election",
		Needs: []model.Field{model.FieldTopics, model.FieldPartitionLeaderRecovery},
		Partition: func(c *Context, t *model.Topic, p *model.Partition) []Finding {
			if p.LeaderRecoveryState != model.Recovering {
				return nil
			}
			r := rule(CodeLeaderRecovering)
			if c.keysOnly {
				return r.partitionKeys(t, p)
			}
			return []Finding{r.finding(fmt.Sprintf("%s: leader %d is in leader recovery (elected uncleanly)", tp(t, p), p.Leader),
				"the partition lost its clean history: acknowledged writes may be gone, and its ISR is the leader alone until recovery ends", "", partitionEntity(t, p))}
		},
	},
}
