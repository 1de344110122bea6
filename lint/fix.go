package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
)

// The fix commands, as Kafka's distribution names its tools (bin/NAME.sh
// in Apache Kafka's tarball, NAME in Confluent's packages).

// tool is a Kafka tool's command line up to its own options: the
// cluster's address and, for a secured cluster, the client settings file
// the user read it with (--command-config; kafka-leader-election names
// the same option --admin.config), so that the fix runs as printed.
func (c *Context) tool(name string) string {
	cmd := name + " --bootstrap-server " + shellword.Quote(c.bootstrap)
	if c.commandConfig != "" {
		opt := "--command-config"
		if name == "kafka-leader-election" {
			opt = "--admin.config"
		}
		cmd += " " + opt + " " + shellword.Quote(c.commandConfig)
	}
	return cmd
}

// Every word a fix takes from the image (a topic's or a config
// resource's name, a config key) is quoted for the shell
// (shellword.Join): a damaged or hostile source may hold names Kafka
// never allows ("x; touch /tmp/p"), and a fix is meant to be pasted into
// a shell. Names Kafka allows print as they are
// (TestFixesQuoteHostileNames).

// alterTopicConfig sets (add) or removes (del) topic configs.
func (c *Context) alterTopicConfig(topic string, add map[string]string, del ...string) string {
	return c.alterConfig([]string{"--entity-type", "topics", "--entity-name", topic}, add, del)
}

// alterBrokerConfig alters a broker's config, or the cluster default
// (name "").
func (c *Context) alterBrokerConfig(name string, add map[string]string, del ...string) string {
	ent := []string{"--entity-type", "brokers", "--entity-default"}
	if name != "" {
		ent = []string{"--entity-type", "brokers", "--entity-name", name}
	}
	return c.alterConfig(ent, add, del)
}

func (c *Context) alterConfig(entity []string, add map[string]string, del []string) string {
	words := append([]string{"--alter"}, entity...)
	if len(add) > 0 {
		var kv []string
		for _, k := range sortedKeys(add) {
			kv = append(kv, k+"="+add[k])
		}
		words = append(words, "--add-config", strings.Join(kv, ","))
	}
	if len(del) > 0 {
		words = append(words, "--delete-config", strings.Join(del, ","))
	}
	return c.tool("kafka-configs") + " " + shellword.Join(words)
}

// reassign is the command that moves partitions to new replica lists:
// the plan is written to a file first, in kafka-reassign-partitions's
// format (one file per topic, named after it), then executed.
func (c *Context) reassign(topic string, moves map[int32][]int32) string {
	name := topic
	if !model.LegalTopicName(topic) {
		// Not a name Kafka allows, so not one for a file either ("../x").
		sum := sha256.Sum256([]byte(topic))
		name = hex.EncodeToString(sum[:6])
	}
	return c.reassignAll("kmeta-reassign-"+name+".json", map[string]map[int32][]int32{topic: moves})
}

// reassignAll is reassign for moves of several topics (topic, partition,
// replicas), in one plan file. The plan is written with echo, which
// changes what it prints only at a backslash (dash's echo reads escapes):
// a plan holding one (a topic name JSON escapes) is written with printf.
func (c *Context) reassignAll(file string, moves map[string]map[int32][]int32) string {
	r := model.Reassignment{Version: 1}
	for _, topic := range sortedKeys(moves) {
		for _, p := range sortedKeys(moves[topic]) {
			r.Partitions = append(r.Partitions, model.ReassignmentPartition{Topic: topic, Partition: p, Replicas: moves[topic][p]})
		}
	}
	return shellword.Reassign(c.tool("kafka-reassign-partitions"), file, r.JSON())
}

// zkShell runs zookeeper-shell commands (Kafka's bin/zookeeper-shell.sh,
// which takes the ensemble and chroot first, then one command), joined by
// &&: each stops the chain if it fails (a refused create, set or delete
// exits 1). The ensemble is reached as kmeta read it (shellword.ZKShell):
// over TLS with $ZK_TLS_CONFIG_FILE's settings, with --zk-auth's digest
// credentials ($KMETA_ZK_AUTH) logged in first.
func (c *Context) zkShell(cmds ...[]string) string {
	conn := c.zookeeper
	if c.Img.ZK != nil {
		conn += c.Img.ZK.Chroot
	}
	sh := shellword.ZKShell{Name: "zookeeper-shell", Connect: conn, TLSVar: c.zkTLS, Digest: c.zkDigest}
	return sh.Chain(cmds...)
}

// electLeaders runs a leader election of a type (preferred, unclean) for
// one partition, or all partitions (topic "").
func (c *Context) electLeaders(kind, topic string, partition int32) string {
	cmd := c.tool("kafka-leader-election") + " --election-type " + kind
	if topic == "" {
		return cmd + " --all-topic-partitions"
	}
	return fmt.Sprintf("%s --topic %s --partition %d", cmd, shellword.Quote(topic), partition)
}

// grow proposes replicas for p raised to rf: the current replicas, then
// the registered, unfenced brokers that hold none of it, preferring a
// rack the partition does not use yet, then the broker holding the fewest
// replicas, then the lowest id. count is updated as brokers are chosen,
// so a topic's partitions spread. nil when the cluster has too few
// brokers.
func (c *Context) grow(replicas []int32, rf int, count map[int32]int) []int32 {
	out := slices.Clone(replicas)
	for len(out) < rf {
		used := map[string]bool{}
		for _, r := range out {
			if rack, ok := c.racks[r]; ok {
				used[rack] = true
			}
		}
		best := int32(-1)
		better := func(a, b int32) bool {
			_, ra := c.racks[a]
			_, rb := c.racks[b]
			na, nb := ra && !used[c.racks[a]], rb && !used[c.racks[b]]
			if na != nb {
				return na
			}
			if count[a] != count[b] {
				return count[a] < count[b]
			}
			return a < b
		}
		for _, id := range c.brokerIDs {
			if !c.available(id) || slices.Contains(out, id) {
				continue
			}
			if best < 0 || better(id, best) {
				best = id
			}
		}
		if best < 0 {
			return nil
		}
		out = append(out, best)
		count[best]++
	}
	return out
}

// liveBrokers counts registered, unfenced brokers.
func (c *Context) liveBrokers() int {
	n := 0
	for _, id := range c.brokerIDs {
		if c.available(id) {
			n++
		}
	}
	return n
}

func sortedKeys[K int | int32 | string, V any](m map[K]V) []K {
	ks := make([]K, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// topicEntity, partitionEntity, brokerEntity and configEntity name the
// entities of findings.
func topicEntity(t *model.Topic) Entity { return Entity{Kind: "topic", Name: t.Name} }
func partitionEntity(t *model.Topic, p *model.Partition) Entity {
	return Entity{Kind: "partition", Name: tp(t, p)}
}
func brokerEntity(id int32) Entity { return Entity{Kind: "broker", Name: fmt.Sprint(id)} }
func configEntity(t model.ConfigResourceType, name string) Entity {
	if name == "" {
		name = "<default>"
	}
	return Entity{Kind: "config", Name: t.String() + " " + name}
}
