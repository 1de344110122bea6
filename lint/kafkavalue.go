package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Kafka's reading of the config values lint judges by (model.KafkaValues,
// the table the resolver reads too). Kafka validates a node's
// server.properties whole when the node starts (KafkaConfig's
// ConfigDef.parse): a value its ConfigDef refuses stops the node, and no
// dynamic config can stand in for it. So lint never replaces a refused
// value by a default or a guess: the rules that need it judge nothing by
// it and say where it is set (noteRefused), and a server.properties
// holding one is static-config-invalid's finding. A broker's or the
// cluster's dynamic value Kafka refuses is no such value: a broker drops
// it and applies the layer below, and so does model.ConfigResolver,
// whose resolution says so (EffectiveConfig.Skipped, noteAssumed).

// Keys lint reads.
const (
	leaderImbalanceKey = "leader.imbalance.per.broker.percentage"
	uncleanKey         = "unclean.leader.election.enable"
)

// kafkaValueOf is key's entry in model's table of the configs read
// Kafka's way (model.KafkaValues).
func kafkaValueOf(key string) *model.KafkaValue {
	kv := model.KafkaValueOf(key)
	if kv == nil {
		panic("lint: no model.KafkaValues entry for " + key)
	}
	return kv
}

// refusedValue says whether e's value is one Kafka refuses for its key
// (a key kafkaValues holds); a value the source withheld is not judged
// here (it is a gap of e's).
func refusedValue(e *model.EffectiveConfig) bool {
	return !kafkaValueOf(e.Key).OK(e.Value) && !model.SecretWithheld(e.Value)
}

// noteRefused records that rule code did not judge what depends on e,
// an effective value Kafka refuses (of topic's partitions; "" a broker
// config): where it is set, and why.
func (c *Context) noteRefused(code, topic string, e *model.EffectiveConfig) {
	if c.assumed == nil {
		return
	}
	k := notedKey{code: code, key: "refused " + e.Key + " " + string(e.Layer) + " " + strconv.Itoa(int(e.Broker)) + " " + topic}
	if e.Layer != model.LayerTopic {
		k.key = "refused " + e.Key + " " + string(e.Layer) + " " + strconv.Itoa(int(e.Broker)) // the same for every topic
	}
	c.noteSkipped(code, e)
	if c.noted[k] {
		return
	}
	c.noted[k] = true
	c.noteUnjudged(code, c.refusedWhere(topic, e))
}

// refusedWhere says where e, an effective value Kafka refuses, is set:
// "node 1's server.properties (FILE) sets min.insync.replicas=\"abc\",
// which Kafka refuses (...)". A value resolved for no broker in
// particular (a partition without a leader, a cluster-wide question) is
// the first broker's where the brokers disagree: each registered broker
// whose value is refused is named.
func (c *Context) refusedWhere(topic string, e *model.EffectiveConfig) string {
	kv := kafkaValueOf(e.Key)
	var where []string
	if e.Broker == model.AnyBroker && e.Layer == model.LayerStatic {
		for _, id := range c.brokerIDs {
			var one model.EffectiveConfig
			if topic != "" {
				one = c.TopicConfig(topic, e.Key, id)
			} else {
				one = c.resolver().BrokerConfig(e.Key, id)
			}
			if refusedValue(&one) && one.Layer == model.LayerStatic {
				where = append(where, c.setsValue(topic, &one))
			}
		}
	}
	if len(where) == 0 {
		where = append(where, c.setsValue(topic, e))
	}
	// A broker's or the cluster's dynamic value Kafka refuses is never
	// here: a broker drops it and applies the layer below, and so does
	// the resolver (EffectiveConfig.Skipped).
	return strings.Join(where, ", ") + ", which " + kv.Refuser() + " refuses (" + kv.Valid() + ")"
}

// setsValue says where e, a value of topic's (or a broker config's,
// topic ""), is set, and what it is: "topic orders's config sets
// min.insync.replicas=\"0\"", "node 1's server.properties (FILE) sets
// ...".
func (c *Context) setsValue(topic string, e *model.EffectiveConfig) string {
	where := e.Source()
	switch e.Layer {
	case model.LayerTopic:
		where = "topic " + topic + "'s config"
	case model.LayerClusterDefault:
		where = "the cluster default"
	case model.LayerStatic:
		where = fmt.Sprintf("node %d's %s", e.Broker, c.staticFile(e.Broker))
	case model.LayerBroker:
		where = fmt.Sprintf("broker %d's dynamic config", e.Broker)
	}
	return fmt.Sprintf("%s sets %s=%s", where, e.Name, strconv.Quote(e.Value))
}

// majorRelease is the major release node id is known to run: 3 (or
// earlier) where the source is a ZooKeeper-mode cluster's (ZooKeeper mode
// ends with 3.9) or the node's broker registration supports no
// metadata.version above 3.9-IV0; 4 where it supports one above 4.0-IV1
// (a 3.9 broker supports 4.0-IV0 and 4.0-IV1 with
// unstable.api.versions.enable, so those tell nothing); else 0, not
// known.
func (c *Context) majorRelease(id int32) int {
	if c.Img.ZK != nil {
		return 3
	}
	b, ok := c.Img.Brokers[id]
	if !ok {
		return 0
	}
	for _, f := range b.Features {
		if f.Name != "metadata.version" {
			continue
		}
		switch {
		case f.Max > 0 && f.Max <= level39:
			return 3
		case f.Max > level40IV1:
			return 4
		}
	}
	return 0
}

// level39 is metadata.version 3.9-IV0, the last level of Kafka 3.x;
// level40IV1 is 4.0-IV1, the last a 3.9 broker may support.
const (
	level39    = 21
	level40IV1 = 23
)

// ibpAtLeast37 says whether an inter.broker.protocol.version is one
// Kafka 3.x accepts and 3.7 or later: MetadataVersion.fromVersionString
// as 3.9.2 reads it (the trimmed text split on "." without its trailing
// empty parts, as Java's String.split leaves them; more than two parts
// are cut to two, "3.7.1" is 3.7; the
// name must be one it knows, in its case: "3.7-iv0" and "abc" are
// refused, and say nothing of the node's release). 3.9.2 knows 4.0-IV0
// and 4.0-IV1 too. A 4.x node ignores the key.
func ibpAtLeast37(v string) bool {
	s := model.JavaTrim(v)
	parts := strings.Split(s, ".")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 2 {
		// Kafka cuts a "0." version to three parts, which is below 3.7
		// all the same.
		s = strings.Join(parts[:2], ".")
	}
	switch s {
	case "3.7", "3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8", "3.8-IV0", "3.9", "3.9-IV0", "4.0-IV0", "4.0-IV1":
		return true
	}
	return false
}

// kafkaValueKeys are kafkaValues' keys, joined by ", ".
func kafkaValueKeys() string {
	kvs := model.KafkaValues()
	keys := make([]string, len(kvs))
	for i, k := range kvs {
		keys[i] = k.Key
	}
	return strings.Join(keys, ", ")
}
