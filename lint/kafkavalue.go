package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/kmeta/kmeta/model"
)

// Kafka's reading of the config values lint judges by. Kafka validates a
// node's server.properties whole when the node starts (KafkaConfig's
// ConfigDef.parse): a value its ConfigDef refuses stops the node, and no
// dynamic config can stand in for it. So lint never replaces a refused
// value by a default or a guess: the rules that need it judge nothing by
// it and say where it is set (noteRefused), and a server.properties
// holding one is static-config-invalid's finding.

// kafkaValue is a config lint judges by, as Kafka's ConfigDef reads it.
type kafkaValue struct {
	key string
	// want is what Kafka accepts ("an integer of at least 1"), def its
	// default, both said in a fix.
	want, def string
	ok        func(string) bool
	// upTo3: only Kafka 3.x and earlier define the key (4.0 removed it,
	// and a 4.x node ignores it as it ignores any unknown key), so only
	// those refuse a bad value.
	upTo3 bool
}

// valid says what Kafka accepts: "min.insync.replicas is an integer of
// at least 1", "leader.imbalance.per.broker.percentage, a key Kafka 4.0
// removed, is an integer".
func (k *kafkaValue) valid() string {
	if k.upTo3 {
		return k.key + ", a key Kafka 4.0 removed, is " + k.want
	}
	return k.key + " is " + k.want
}

// refuser is who refuses a bad value: "Kafka", "Kafka 3.x".
func (k *kafkaValue) refuser() string {
	if k.upTo3 {
		return "Kafka 3.x"
	}
	return "Kafka"
}

// kafkaValues are the configs lint reads, sorted by key. Their types
// and validators, checked with KafkaConfig.fromProps on Kafka 3.9.2 and
// 4.4.0 (ConfigException "Invalid value ... for configuration ..."):
//
//   - leader.imbalance.per.broker.percentage: INT without validator in
//     3.x (KafkaConfig / ReplicationConfigs; 0, -1 and 1000 start);
//     4.0 removed it (KafkaConfig.configDef() has no such key in 4.4.0,
//     where any value starts);
//   - min.insync.replicas: INT, atLeast(1) (LogConfig's
//     SERVER_CONFIG_DEF and topic CONFIG);
//   - unclean.leader.election.enable: BOOLEAN (ConfigDef.parseType:
//     "true" or "false" trimmed, any case; "Expected value to be either
//     true or false").
var kafkaValues = []*kafkaValue{
	{key: leaderImbalanceKey, want: "an integer", def: "10", ok: func(v string) bool { _, ok := javaParseInt(v); return ok }, upTo3: true},
	{key: minISRKey, want: "an integer of at least 1", def: "1", ok: func(v string) bool { _, ok := minISRValue(v); return ok }},
	{key: uncleanKey, want: "true or false", def: "false", ok: func(v string) bool { _, ok := kafkaBool(v); return ok }},
}

// Keys lint reads.
const (
	leaderImbalanceKey = "leader.imbalance.per.broker.percentage"
	uncleanKey         = "unclean.leader.election.enable"
)

// kafkaValueOf is key's entry in kafkaValues.
func kafkaValueOf(key string) *kafkaValue {
	i := slices.IndexFunc(kafkaValues, func(k *kafkaValue) bool { return k.key == key })
	if i < 0 {
		panic("lint: no kafkaValues entry for " + key)
	}
	return kafkaValues[i]
}

// javaTrim trims v as Java's String.trim does (every char up to ' '),
// as ConfigDef.parseType trims a value before parsing it.
func javaTrim(v string) string { return strings.TrimFunc(v, func(r rune) bool { return r <= ' ' }) }

// javaParseInt reads v as ConfigDef's INT does: Integer.parseInt of the
// trimmed text, an optional sign then decimal digits, which Java takes
// from any script (Character.digit: "٢" and "２" are 2, as Kafka 3.9.2
// reads them) but only in the Basic Multilingual Plane (parseInt reads
// UTF-16 chars one by one); ok is false where parseInt throws
// (NumberFormatException: Kafka's "Not a number of type INT").
func javaParseInt(v string) (int32, bool) {
	s := javaTrim(v)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	var n int64
	for _, r := range s {
		d := decimalDigit(r)
		if d < 0 {
			return 0, false
		}
		n = n*10 + int64(d)
		if n > 1<<31 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 || n < -1<<31 {
		return 0, false
	}
	return int32(n), true
}

// decimalDigit is r's value as Java's Character.digit(r, 10) gives it
// for a char of the Basic Multilingual Plane, -1 for none. A decimal
// digit (Unicode Nd) is in a run of tens from its zero, and Nd's ranges
// are such runs put together.
func decimalDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r > 0xFFFF || !unicode.IsDigit(r) {
		// Beyond the BMP, Java reads a surrogate pair, no digit (and
		// U+11C52 cut to 16 bits would be U+1C52, a digit).
		return -1
	}
	for _, rg := range unicode.Nd.R16 {
		if uint16(r) >= rg.Lo && uint16(r) <= rg.Hi {
			return int(uint16(r)-rg.Lo) % 10
		}
	}
	return -1
}

// kafkaBool reads v as ConfigDef's BOOLEAN does: "true" or "false",
// trimmed, any case; ok is false for anything else (ConfigException
// "Expected value to be either true or false").
func kafkaBool(v string) (b, ok bool) {
	switch s := javaTrim(v); {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

// refusedValue says whether e's value is one Kafka refuses for its key
// (a key kafkaValues holds); a value the source withheld is not judged
// here (it is a gap of e's).
func refusedValue(e *model.EffectiveConfig) bool {
	return !kafkaValueOf(e.Key).ok(e.Value) && !model.SecretWithheld(e.Value)
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
	dynamic := false
	if e.Broker == model.AnyBroker && (e.Layer == model.LayerBroker || e.Layer == model.LayerStatic) {
		for _, id := range c.brokerIDs {
			var one model.EffectiveConfig
			if topic != "" {
				one = c.TopicConfig(topic, e.Key, id)
			} else {
				one = c.resolver().BrokerConfig(e.Key, id)
			}
			if refusedValue(&one) && (one.Layer == model.LayerBroker || one.Layer == model.LayerStatic) {
				where = append(where, c.setsValue(topic, &one))
				dynamic = dynamic || one.Layer == model.LayerBroker
			}
		}
	}
	if len(where) == 0 {
		where = append(where, c.setsValue(topic, e))
		dynamic = e.Layer == model.LayerBroker || e.Layer == model.LayerClusterDefault
	}
	s := strings.Join(where, ", ") + ", which " + kv.refuser() + " refuses (" + kv.valid() + ")"
	if dynamic {
		// Kafka's AlterConfigs refuses it, so it was written around
		// Kafka; a broker loading it drops it (DynamicBrokerConfig's
		// removeInvalidConfigs: "these configs will be ignored") and
		// applies the layer below, which the resolver does not skip to.
		s += ", and a broker drops it and applies the layer below, which kmeta does not resolve"
	}
	return s
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
	s := javaTrim(v)
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
	keys := make([]string, len(kafkaValues))
	for i, k := range kafkaValues {
		keys[i] = k.key
	}
	return strings.Join(keys, ", ")
}
