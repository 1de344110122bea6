package model

import (
	"slices"
	"strconv"
	"strings"
)

// Effective configs: the value Kafka applies for a config key, and where it
// comes from. Kafka looks in layers (KIP-226), and so does ConfigResolver:
//
//  1. the topic's own config (a topic key on a topic's partitions);
//  2. the broker's dynamic config (ConfigRecord / /config/brokers/<id>);
//  3. the cluster-wide dynamic default (/config/brokers/<default>);
//  4. the broker's static config (server.properties as the node runs it);
//  5. Kafka's default.
//
// These are DescribeConfigs' sources DYNAMIC_TOPIC_CONFIG,
// DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG,
// STATIC_BROKER_CONFIG and DEFAULT_CONFIG. Layers 2–4 are read under the
// topic key's broker synonyms (retention.ms is log.retention.ms, then
// log.retention.minutes, then log.retention.hours, converted) and are
// layer-major: a synonym set at a higher layer hides every synonym below
// it, as Kafka's DynamicBrokerConfig merges them.
//
// With eligible leader replicas on (eligible.leader.replicas.version >= 1,
// KIP-966), min.insync.replicas has no broker-level dynamic override:
// Kafka removes them when ELR is enabled and refuses new ones, and writes a
// cluster-level value instead, so layer 2 is skipped for that key.
//
// A broker loads its own and the cluster's dynamic configs key by key
// (DynamicBrokerConfig.fromPersistentProps) and drops a value its
// ConfigDef refuses or a key it does not update dynamically, then
// applies the layer below: for the keys of KafkaValues the resolver
// skips such a value too, and says so in Skipped. A topic's value and a
// server.properties value are never skipped (Kafka validates a topic
// config when it is set; a server.properties value it refuses stops the
// node).
//
// A layer the source cannot hold (static configs are in no metadata
// record: a log dir, a ZooKeeper tree or a dump has none unless the
// operator passes the nodes' server.properties) or did not answer (a
// stopped broker's configs over kafka://) is not taken as empty: the
// result is not Known and names the missing layers in Gaps, with the value
// Kafka would apply were they empty, so that a caller can say what it
// assumes, never state Kafka's default as fact.

// ConfigLayer names where an effective config value comes from.
type ConfigLayer string

// The layers, in the order Kafka looks.
const (
	LayerTopic          ConfigLayer = "topic"
	LayerBroker         ConfigLayer = "broker"
	LayerClusterDefault ConfigLayer = "cluster-default"
	LayerStatic         ConfigLayer = "static"
	LayerDefault        ConfigLayer = "default"
)

// AnyBroker, as the broker a value is resolved for, is no broker in
// particular (a question about the cluster): the broker layers give a
// value only where every registered broker gives the same one.
const AnyBroker int32 = -1

// EffectiveConfig is the value Kafka applies for Key, and its source.
type EffectiveConfig struct {
	Key string `json:"key"`
	// Value is the value Kafka applies, in Key's unit (a synonym's hours
	// are converted to retention.ms's milliseconds). When the result is
	// not Known, it is the value Kafka would apply were the layers in
	// Gaps empty: an assumption, to be said as one.
	Value string `json:"value"`
	// Known: every layer above Layer was reported by the source.
	Known bool        `json:"known"`
	Layer ConfigLayer `json:"layer"`
	// Name is the key as set at Layer: Key itself or a broker synonym
	// (log.retention.hours for retention.ms).
	Name string `json:"name"`
	// Broker is the broker whose dynamic or static config Value comes
	// from, AnyBroker for the cluster-wide layers or when every broker
	// gives the same value.
	Broker int32 `json:"broker"`
	// ELR: min.insync.replicas resolved with eligible leader replicas
	// on, so that no broker-level dynamic override counts.
	ELR bool `json:"elr,omitempty"`
	// Gaps are the layers above Layer that the source did not report.
	Gaps []ConfigGap `json:"gaps,omitempty"`
	// Skipped are values of a broker's or the cluster's dynamic configs
	// above Layer that a broker drops when it loads them, so that it
	// applies the layer below: a value Kafka refuses for the key, or a
	// key Kafka does not update dynamically (KafkaValues;
	// DynamicBrokerConfig.fromPersistentProps).
	Skipped []SkippedConfig `json:"skipped,omitempty"`
}

// SkippedConfig is a dynamic broker or cluster-default value the
// resolver skipped, as a broker drops it.
type SkippedConfig struct {
	Layer ConfigLayer `json:"layer"`
	// Broker is whose dynamic config it is (LayerBroker), AnyBroker for
	// the cluster default.
	Broker int32  `json:"broker"`
	Name   string `json:"name"`
	Value  string `json:"value"`
	// Reason: SkipRefused, SkipNotDynamic.
	Reason string `json:"reason"`
}

// The reasons of a SkippedConfig.
const (
	// SkipRefused: the broker's ConfigDef refuses the value
	// (DynamicBrokerConfig.removeInvalidConfigs: "Dynamic broker config
	// contains invalid values in: ..., these configs will be ignored").
	// Kafka's AlterConfigs refuses it too, so it was written around
	// Kafka.
	SkipRefused = "refused"
	// SkipNotDynamic: Kafka does not update the key dynamically
	// (fromPersistentProps' "Non-dynamic configs configured in ZooKeeper
	// will be ignored").
	SkipNotDynamic = "not dynamic"
)

// String says what was skipped and why: "broker 1's dynamic config's
// min.insync.replicas=\"0\" is skipped: Kafka refuses it
// (min.insync.replicas is an integer of at least 1), and a broker drops
// it and applies the layer below".
func (s SkippedConfig) String() string {
	where := "the cluster default's "
	if s.Layer == LayerBroker {
		where = "broker " + strconv.Itoa(int(s.Broker)) + "'s dynamic config's "
	}
	why := "Kafka does not update the key dynamically"
	if kv := KafkaValueOf(s.Name); kv != nil && s.Reason == SkipRefused {
		why = kv.Refuser() + " refuses it (" + kv.Valid() + ")"
	}
	return where + s.Name + "=" + strconv.Quote(s.Value) + " is skipped: " + why + ", and a broker drops it and applies the layer below"
}

// ConfigGap is a layer the resolver could not read.
type ConfigGap struct {
	Layer ConfigLayer `json:"layer"`
	// Broker is whose layer it is (LayerBroker, LayerStatic), AnyBroker
	// otherwise.
	Broker int32 `json:"broker"`
	// Reason says why: GapNotReported, GapDisagree, GapUnknownDefault.
	Reason string `json:"reason"`
}

// The reasons of a ConfigGap.
const (
	// GapNotReported: the source does not hold the layer (static configs
	// of a log dir or a ZooKeeper read, configs of a broker that did not
	// answer).
	GapNotReported = "not reported"
	// GapDisagree: asked for AnyBroker, the brokers apply different
	// values; Value is the first broker's.
	GapDisagree = "brokers disagree"
	// GapUnknownDefault: kmeta's table does not hold Kafka's default of
	// the key.
	GapUnknownDefault = "default not known to kmeta"
)

// Source says where the value comes from, as findings print it: "topic
// config", "broker 2 config", "cluster default", "broker 2
// server.properties", "Kafka's default".
func (e EffectiveConfig) Source() string {
	who := "broker " + strconv.Itoa(int(e.Broker))
	if e.Broker == AnyBroker {
		who = "every broker's"
	}
	switch e.Layer {
	case LayerTopic:
		return "topic config"
	case LayerBroker:
		return who + " config"
	case LayerClusterDefault:
		return "cluster default"
	case LayerStatic:
		return who + " server.properties"
	}
	return "Kafka's default"
}

// Missing says what the source did not report, "" when the value is
// Known: "broker 2's server.properties", "broker 2's dynamic configs",
// joined by ", ".
func (e EffectiveConfig) Missing() string {
	var out []string
	for _, g := range e.Gaps {
		who := "broker " + strconv.Itoa(int(g.Broker)) + "'s"
		if g.Broker == AnyBroker {
			who = "the brokers'"
		}
		var s string
		switch {
		case g.Reason == GapDisagree:
			s = "the brokers apply different values"
		case g.Reason == GapUnknownDefault:
			s = "Kafka's default of " + e.Key
		case g.Layer == LayerTopic:
			s = "the topic's configs"
		case g.Layer == LayerBroker:
			s = who + " dynamic configs"
		case g.Layer == LayerClusterDefault:
			s = "the cluster default configs"
		case g.Layer == LayerStatic:
			s = who + " server.properties"
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// StaticGapBrokers are the brokers whose static configs (server.properties)
// the value would need and the source did not report, sorted.
func (e EffectiveConfig) StaticGapBrokers() []int32 {
	var out []int32
	for _, g := range e.Gaps {
		if g.Layer == LayerStatic && g.Reason == GapNotReported && g.Broker != AnyBroker && !slices.Contains(out, g.Broker) {
			out = append(out, g.Broker)
		}
	}
	slices.Sort(out)
	return out
}

// ConfigSynonym is a broker config that sets a topic config's value: its
// name and the factor its value is multiplied by (hours to milliseconds).
type ConfigSynonym struct {
	Name  string
	Scale int64
}

// topicSynonyms are the broker configs that give a topic config its
// value when the topic does not set it, first first (Kafka's
// ServerTopicConfigSynonyms). A topic key not listed has no broker
// synonym: the topic sets it or Kafka's default stands.
var topicSynonyms = map[string][]ConfigSynonym{
	"segment.bytes":                  {{"log.segment.bytes", 1}},
	"segment.ms":                     {{"log.roll.ms", 1}, {"log.roll.hours", 3_600_000}},
	"segment.jitter.ms":              {{"log.roll.jitter.ms", 1}, {"log.roll.jitter.hours", 3_600_000}},
	"segment.index.bytes":            {{"log.index.size.max.bytes", 1}},
	"flush.messages":                 {{"log.flush.interval.messages", 1}},
	"flush.ms":                       {{"log.flush.interval.ms", 1}, {"log.flush.scheduler.interval.ms", 1}},
	"retention.bytes":                {{"log.retention.bytes", 1}},
	"retention.ms":                   {{"log.retention.ms", 1}, {"log.retention.minutes", 60_000}, {"log.retention.hours", 3_600_000}},
	"max.message.bytes":              {{"message.max.bytes", 1}},
	"index.interval.bytes":           {{"log.index.interval.bytes", 1}},
	"delete.retention.ms":            {{"log.cleaner.delete.retention.ms", 1}},
	"min.compaction.lag.ms":          {{"log.cleaner.min.compaction.lag.ms", 1}},
	"max.compaction.lag.ms":          {{"log.cleaner.max.compaction.lag.ms", 1}},
	"file.delete.delay.ms":           {{"log.segment.delete.delay.ms", 1}},
	"min.cleanable.dirty.ratio":      {{"log.cleaner.min.cleanable.ratio", 1}},
	"cleanup.policy":                 {{"log.cleanup.policy", 1}},
	"unclean.leader.election.enable": {{"unclean.leader.election.enable", 1}},
	"min.insync.replicas":            {{"min.insync.replicas", 1}},
	"compression.type":               {{"compression.type", 1}},
	"preallocate":                    {{"log.preallocate", 1}},
	"message.timestamp.type":         {{"log.message.timestamp.type", 1}},
	"local.retention.ms":             {{"log.local.retention.ms", 1}},
	"local.retention.bytes":          {{"log.local.retention.bytes", 1}},
}

// TopicConfigSynonyms are the broker configs that set topic config key
// when the topic does not, highest priority first; nil when it has none.
func TopicConfigSynonyms(key string) []ConfigSynonym { return slices.Clone(topicSynonyms[key]) }

// brokerSynonyms are the keys that set broker config key, highest
// priority first: a retention family's keys for its first (finest) key
// (log.retention.ms is also set by log.retention.minutes and hours, as
// Kafka's KafkaConfig reads them), else key alone.
func brokerSynonyms(key string) []ConfigSynonym {
	for _, syns := range topicSynonyms {
		if len(syns) > 1 && syns[0].Name == key {
			return syns
		}
	}
	return []ConfigSynonym{{key, 1}}
}

// kafkaDefaults are Kafka's defaults of the keys kmeta resolves, the same
// in every release kmeta reads (3.x and 4.x): topic keys in the topic's
// unit, broker keys as the broker reads them. A key not listed has a
// default kmeta does not know (GapUnknownDefault). The real-Kafka tests
// compare them with DescribeConfigs' DEFAULT_CONFIG answers.
var kafkaDefaults = map[ConfigResourceType]map[string]string{
	ConfigTopic: {
		"cleanup.policy":                          "delete",
		"compression.type":                        "producer",
		"delete.retention.ms":                     "86400000",
		"file.delete.delay.ms":                    "60000",
		"follower.replication.throttled.replicas": "",
		"index.interval.bytes":                    "4096",
		"leader.replication.throttled.replicas":   "",
		"max.compaction.lag.ms":                   "9223372036854775807",
		"max.message.bytes":                       "1048588",
		"min.cleanable.dirty.ratio":               "0.5",
		"min.compaction.lag.ms":                   "0",
		"min.insync.replicas":                     "1",
		"preallocate":                             "false",
		"retention.bytes":                         "-1",
		"retention.ms":                            "604800000",
		"segment.bytes":                           "1073741824",
		"segment.index.bytes":                     "10485760",
		"segment.jitter.ms":                       "0",
		"segment.ms":                              "604800000",
		"unclean.leader.election.enable":          "false",
	},
	ConfigBroker: {
		"auto.leader.rebalance.enable":                   "true",
		"default.replication.factor":                     "1",
		"follower.replication.throttled.rate":            "9223372036854775807",
		"leader.imbalance.per.broker.percentage":         "10",
		"leader.replication.throttled.rate":              "9223372036854775807",
		"log.cleanup.policy":                             "delete",
		"log.retention.bytes":                            "-1",
		"log.retention.hours":                            "168",
		"log.segment.bytes":                              "1073741824",
		"message.max.bytes":                              "1048588",
		"min.insync.replicas":                            "1",
		"num.partitions":                                 "1",
		"offsets.topic.replication.factor":               "3",
		"replica.alter.log.dirs.io.max.bytes.per.second": "9223372036854775807",
		"transaction.state.log.min.isr":                  "2",
		"transaction.state.log.replication.factor":       "3",
		"unclean.leader.election.enable":                 "false",
	},
}

// KafkaDefault is Kafka's default of a key of a resource type (ConfigTopic
// or ConfigBroker), as kmeta knows it.
func KafkaDefault(t ConfigResourceType, key string) (string, bool) {
	v, ok := kafkaDefaults[t][key]
	return v, ok
}

// DefaultedKeys are the keys of resource type t (ConfigTopic or
// ConfigBroker) whose Kafka default kmeta knows, sorted.
func DefaultedKeys(t ConfigResourceType) []string {
	keys := make([]string, 0, len(kafkaDefaults[t]))
	for k := range kafkaDefaults[t] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ConfigResolver resolves effective configs over one image. It remembers
// the broker-level results (a million partitions share a few leaders);
// after the image's configs, brokers or features change, call Forget. The
// Gaps of its results are shared: do not modify them.
type ConfigResolver struct {
	img  *Image
	elr  bool
	memo map[memoKey]map[int32]EffectiveConfig
	// byBroker is memo's map of the last key asked (a key's string is
	// hashed once per key change, not once per partition).
	byBroker memoLast
	// last is the topic layer of the last topic and key asked: callers
	// walk a topic's partitions together, and a lookup hashes the
	// topic's name (a third of a million-partition lint, once).
	last topicLayer
}

// topicLayer is what the topic layer gave for one topic and key: its
// value (set), or nothing, or a gap.
type topicLayer struct {
	ok, set, gap bool
	topic, key   string
	e            EffectiveConfig
}

type memoKey struct {
	t   ConfigResourceType
	key string
}

type memoLast struct {
	k memoKey
	m map[int32]EffectiveConfig
}

// NewConfigResolver returns a resolver over img.
func NewConfigResolver(img *Image) *ConfigResolver {
	r := &ConfigResolver{img: img}
	r.Forget()
	return r
}

// Forget drops what the resolver remembered of the image.
func (r *ConfigResolver) Forget() {
	r.memo = map[memoKey]map[int32]EffectiveConfig{}
	r.byBroker = memoLast{}
	r.last = topicLayer{}
	r.elr = r.img.Features["eligible.leader.replicas.version"] >= 1
}

// ELR reports whether eligible leader replicas are on in the image.
func (r *ConfigResolver) ELR() bool { return r.elr }

// TopicConfig is the value of topic config key on topic's partitions as
// broker (the partition's leader; AnyBroker for none in particular)
// applies it.
func (r *ConfigResolver) TopicConfig(topic, key string, broker int32) EffectiveConfig {
	l := &r.last
	if !l.ok || l.topic != topic || l.key != key {
		*l = topicLayer{ok: true, topic: topic, key: key}
		if !r.img.Reports(FieldTopicConfigs) || r.img.ConfigsUnreported(ConfigResource{Type: ConfigTopic, Name: topic}) {
			l.gap = true
		} else if v, ok := r.img.Configs[ConfigResource{Type: ConfigTopic, Name: topic}][key]; ok {
			l.set, l.e = true, EffectiveConfig{Key: key, Value: v, Known: true, Layer: LayerTopic, Name: key, Broker: AnyBroker}
		}
	}
	if l.set {
		return l.e
	}
	e := r.below(ConfigTopic, key, broker)
	if l.gap {
		e.Gaps = append([]ConfigGap{{Layer: LayerTopic, Broker: AnyBroker, Reason: GapNotReported}}, e.Gaps...)
		e.Known = false
	}
	return e
}

// BrokerConfig is the value of broker config key as broker applies it
// (AnyBroker: the value every broker applies).
func (r *ConfigResolver) BrokerConfig(key string, broker int32) EffectiveConfig {
	return r.below(ConfigBroker, key, broker)
}

// below resolves the layers below the topic's, remembered per key and
// broker.
func (r *ConfigResolver) below(t ConfigResourceType, key string, broker int32) EffectiveConfig {
	k := memoKey{t, key}
	if r.byBroker.m == nil || r.byBroker.k != k {
		m := r.memo[k]
		if m == nil {
			m = map[int32]EffectiveConfig{}
			r.memo[k] = m
		}
		r.byBroker = memoLast{k, m}
	}
	m := r.byBroker.m
	if e, ok := m[broker]; ok {
		return e
	}
	var e EffectiveConfig
	if broker == AnyBroker {
		e = r.anyBroker(t, key)
	} else {
		e = r.forBroker(t, key, broker)
	}
	m[broker] = e
	return e
}

// anyBroker resolves for every registered broker and keeps the value
// they agree on (the first broker's, said as a disagreement when they do
// not).
func (r *ConfigResolver) anyBroker(t ConfigResourceType, key string) EffectiveConfig {
	ids := make([]int32, 0, len(r.img.Brokers))
	for id := range r.img.Brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		// No broker applies anything: the cluster-wide layers.
		return r.forBroker(t, key, AnyBroker)
	}
	first := r.below(t, key, ids[0])
	first.Gaps = slices.Clone(first.Gaps)
	first.Skipped = slices.Clone(first.Skipped)
	sameLayer := true
	for _, id := range ids[1:] {
		e := r.below(t, key, id)
		for _, g := range e.Gaps {
			if !slices.Contains(first.Gaps, g) {
				first.Gaps = append(first.Gaps, g)
			}
		}
		first.Known = first.Known && e.Known
		for _, sk := range e.Skipped {
			if !slices.Contains(first.Skipped, sk) {
				first.Skipped = append(first.Skipped, sk)
			}
		}
		if e.Value != first.Value {
			first.Known = false
			if !slices.ContainsFunc(first.Gaps, func(g ConfigGap) bool { return g.Reason == GapDisagree }) {
				first.Gaps = append(first.Gaps, ConfigGap{Layer: e.Layer, Broker: AnyBroker, Reason: GapDisagree})
			}
		}
		sameLayer = sameLayer && e.Layer == first.Layer && e.Name == first.Name
	}
	if sameLayer && len(ids) > 1 {
		first.Broker = AnyBroker
	}
	return first
}

// forBroker resolves the broker layers of one broker (AnyBroker: none,
// only the cluster default), then Kafka's default.
func (r *ConfigResolver) forBroker(t ConfigResourceType, key string, broker int32) EffectiveConfig {
	e := EffectiveConfig{Key: key, Broker: AnyBroker}
	var syns []ConfigSynonym
	if t == ConfigTopic {
		syns = topicSynonyms[key]
	} else {
		syns = brokerSynonyms(key)
	}
	e.ELR = r.elr && key == "min.insync.replicas"
	if len(syns) > 0 {
		id := strconv.Itoa(int(broker))
		layers := []struct {
			layer ConfigLayer
			who   int32
			kv    map[string]string
			known bool
		}{
			{LayerBroker, broker, r.img.Configs[ConfigResource{Type: ConfigBroker, Name: id}], r.brokerConfigsKnown(id)},
			{LayerClusterDefault, AnyBroker, r.img.Configs[ConfigResource{Type: ConfigBroker}], r.brokerConfigsKnown("")},
			{LayerStatic, broker, r.img.StaticConfigs[broker], r.img.StaticConfigs[broker] != nil},
		}
		for _, l := range layers {
			if broker == AnyBroker && l.layer != LayerClusterDefault {
				continue
			}
			if e.ELR && l.layer == LayerBroker {
				continue
			}
			if !l.known {
				e.Gaps = append(e.Gaps, ConfigGap{Layer: l.layer, Broker: l.who, Reason: GapNotReported})
				continue
			}
			for _, s := range syns {
				v, ok := l.kv[s.Name]
				if !ok {
					continue
				}
				if SecretWithheld(v) {
					e.Gaps = append(e.Gaps, ConfigGap{Layer: l.layer, Broker: l.who, Reason: GapNotReported})
					break
				}
				if reason := dropped(l.layer, s.Name, v); reason != "" {
					// A broker drops the key from its dynamic configs
					// (the synonym alone: another set at the layer still
					// counts) and applies what is below.
					e.Skipped = append(e.Skipped, SkippedConfig{Layer: l.layer, Broker: l.who, Name: s.Name, Value: v, Reason: reason})
					continue
				}
				e.Value, e.Layer, e.Name, e.Broker = scaled(v, s.Scale), l.layer, s.Name, l.who
				e.Known = len(e.Gaps) == 0
				return e
			}
		}
	}
	e.Layer, e.Name = LayerDefault, key
	if v, ok := kafkaDefaults[t][key]; ok {
		e.Value = v
	} else {
		e.Gaps = append(e.Gaps, ConfigGap{Layer: LayerDefault, Broker: AnyBroker, Reason: GapUnknownDefault})
	}
	e.Known = len(e.Gaps) == 0
	return e
}

// dropped is why a broker drops name=v from its dynamic configs at
// layer (SkipRefused, SkipNotDynamic), "" when it applies it: a broker
// loads its own and the cluster's dynamic configs key by key
// (DynamicBrokerConfig.fromPersistentProps, Kafka 3.9 and 4.x). Only
// keys KafkaValues holds are judged; a server.properties value Kafka
// refuses stops the node instead, and is no layer to skip.
func dropped(layer ConfigLayer, name, v string) string {
	if layer != LayerBroker && layer != LayerClusterDefault {
		return ""
	}
	kv := KafkaValueOf(name)
	switch {
	case kv == nil:
		return ""
	case kv.Static:
		return SkipNotDynamic
	case !kv.OK(v):
		return SkipRefused
	}
	return ""
}

// brokerConfigsKnown says whether the dynamic configs of broker resource
// name ("" the cluster default) were reported.
func (r *ConfigResolver) brokerConfigsKnown(name string) bool {
	return r.img.Reports(FieldBrokerConfigs) && !r.img.ConfigsUnreported(ConfigResource{Type: ConfigBroker, Name: name})
}

// scaled multiplies an integer value by scale (1: as it is; 0: a finer
// unit than the key's, left as it is).
func scaled(v string, scale int64) string {
	if scale <= 1 {
		return v
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return v
	}
	return strconv.FormatInt(n*scale, 10)
}
