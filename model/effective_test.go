package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resolverImage is two brokers with every layer settable.
func resolverImage() *Image {
	img := NewImage()
	img.Brokers[1] = &Broker{ID: 1}
	img.Brokers[2] = &Broker{ID: 2}
	return img
}

func TestResolverLayers(t *testing.T) {
	topic := ConfigResource{Type: ConfigTopic, Name: "orders"}
	b1 := ConfigResource{Type: ConfigBroker, Name: "1"}
	def := ConfigResource{Type: ConfigBroker}
	known := func(v string, l ConfigLayer, name string, broker int32) EffectiveConfig {
		return EffectiveConfig{Key: "min.insync.replicas", Value: v, Known: true, Layer: l, Name: name, Broker: broker}
	}
	for _, tc := range []struct {
		name  string
		setup func(img *Image)
		want  EffectiveConfig
	}{
		{"topic override wins", func(img *Image) {
			img.Configs[topic] = map[string]string{"min.insync.replicas": "3"}
			img.Configs[b1] = map[string]string{"min.insync.replicas": "2"}
			img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "2"})
		}, known("3", LayerTopic, "min.insync.replicas", AnyBroker)},
		{"broker dynamic over cluster default", func(img *Image) {
			img.Configs[b1] = map[string]string{"min.insync.replicas": "2"}
			img.Configs[def] = map[string]string{"min.insync.replicas": "3"}
		}, known("2", LayerBroker, "min.insync.replicas", 1)},
		{"cluster default over static, static not needed", func(img *Image) {
			img.Configs[def] = map[string]string{"min.insync.replicas": "3"}
		}, known("3", LayerClusterDefault, "min.insync.replicas", AnyBroker)},
		{"static over Kafka's default", func(img *Image) {
			img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "2"})
		}, known("2", LayerStatic, "min.insync.replicas", 1)},
		{"static known and silent: Kafka's default", func(img *Image) {
			img.SetStaticConfigs(1, map[string]string{"num.partitions": "3"})
		}, known("1", LayerDefault, "min.insync.replicas", AnyBroker)},
		{"static not reported: the default is an assumption", func(img *Image) {},
			EffectiveConfig{Key: "min.insync.replicas", Value: "1", Layer: LayerDefault, Name: "min.insync.replicas", Broker: AnyBroker,
				Gaps: []ConfigGap{{Layer: LayerStatic, Broker: 1, Reason: GapNotReported}}}},
		{"a broker that did not answer", func(img *Image) {
			img.MarkConfigsUnreported(b1)
			img.SetStaticConfigs(1, map[string]string{})
			img.Configs[def] = map[string]string{"min.insync.replicas": "2"}
		}, EffectiveConfig{Key: "min.insync.replicas", Value: "2", Layer: LayerClusterDefault, Name: "min.insync.replicas", Broker: AnyBroker,
			Gaps: []ConfigGap{{Layer: LayerBroker, Broker: 1, Reason: GapNotReported}}}},
		{"topic configs not reported", func(img *Image) {
			img.MarkNotReported(FieldTopicConfigs)
			img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "2"})
		}, EffectiveConfig{Key: "min.insync.replicas", Value: "2", Layer: LayerStatic, Name: "min.insync.replicas", Broker: 1,
			Gaps: []ConfigGap{{Layer: LayerTopic, Broker: AnyBroker, Reason: GapNotReported}}}},
		{"ELR: no broker-level dynamic override", func(img *Image) {
			img.Features["eligible.leader.replicas.version"] = 1
			img.Configs[b1] = map[string]string{"min.insync.replicas": "3"}
			img.Configs[def] = map[string]string{"min.insync.replicas": "2"}
		}, EffectiveConfig{Key: "min.insync.replicas", Value: "2", Known: true, Layer: LayerClusterDefault, Name: "min.insync.replicas", Broker: AnyBroker, ELR: true}},
		{"ELR: static still below the cluster default", func(img *Image) {
			img.Features["eligible.leader.replicas.version"] = 1
			img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "2"})
		}, EffectiveConfig{Key: "min.insync.replicas", Value: "2", Known: true, Layer: LayerStatic, Name: "min.insync.replicas", Broker: 1, ELR: true}},
		{"a withheld static value is not a value", func(img *Image) {
			img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": NotReported})
		}, EffectiveConfig{Key: "min.insync.replicas", Value: "1", Layer: LayerDefault, Name: "min.insync.replicas", Broker: AnyBroker,
			Gaps: []ConfigGap{{Layer: LayerStatic, Broker: 1, Reason: GapNotReported}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := resolverImage()
			tc.setup(img)
			got := NewConfigResolver(img).TopicConfig("orders", "min.insync.replicas", 1)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolverELROnlyForMinISR(t *testing.T) {
	img := resolverImage()
	img.Features["eligible.leader.replicas.version"] = 1
	img.Configs[ConfigResource{Type: ConfigBroker, Name: "1"}] = map[string]string{"unclean.leader.election.enable": "true"}
	got := NewConfigResolver(img).TopicConfig("orders", "unclean.leader.election.enable", 1)
	if got.Value != "true" || got.Layer != LayerBroker || got.ELR {
		t.Errorf("got %+v, want broker 1's dynamic true", got)
	}
}

// TestResolverSynonyms: a topic key's broker synonyms, converted to its
// unit, layer-major: a synonym set at a higher layer hides every synonym
// below it (Kafka's DynamicBrokerConfig removes them).
func TestResolverSynonyms(t *testing.T) {
	img := resolverImage()
	img.SetStaticConfigs(1, map[string]string{"log.retention.ms": "1000", "log.retention.hours": "5"})
	r := NewConfigResolver(img)
	if got := r.TopicConfig("t", "retention.ms", 1); got.Value != "1000" || got.Name != "log.retention.ms" || !got.Known {
		t.Errorf("static ms over static hours: %+v", got)
	}
	img.Configs[ConfigResource{Type: ConfigBroker}] = map[string]string{"log.retention.hours": "2"}
	r.Forget()
	got := r.TopicConfig("t", "retention.ms", 1)
	if got.Value != "7200000" || got.Name != "log.retention.hours" || got.Layer != LayerClusterDefault || !got.Known {
		t.Errorf("cluster default hours hides static ms: %+v", got)
	}
	// A broker key of the family, and the default of a topic key whose
	// synonym Kafka defaults in hours.
	if got := r.BrokerConfig("log.retention.ms", 1); got.Value != "7200000" {
		t.Errorf("broker log.retention.ms: %+v", got)
	}
	img2 := resolverImage()
	img2.SetStaticConfigs(1, map[string]string{})
	if got := NewConfigResolver(img2).TopicConfig("t", "retention.ms", 1); got.Value != "604800000" || got.Layer != LayerDefault || !got.Known {
		t.Errorf("default retention.ms: %+v", got)
	}
	// A topic-only key: the broker layers are not consulted.
	if got := NewConfigResolver(resolverImage()).TopicConfig("t", "leader.replication.throttled.replicas", 1); !got.Known || got.Value != "" || got.Layer != LayerDefault {
		t.Errorf("topic-only key: %+v", got)
	}
}

func TestResolverAnyBroker(t *testing.T) {
	img := resolverImage()
	img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "2"})
	img.SetStaticConfigs(2, map[string]string{"min.insync.replicas": "2"})
	r := NewConfigResolver(img)
	got := r.TopicConfig("t", "min.insync.replicas", AnyBroker)
	want := EffectiveConfig{Key: "min.insync.replicas", Value: "2", Known: true, Layer: LayerStatic, Name: "min.insync.replicas", Broker: AnyBroker}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("agreeing brokers (-want +got):\n%s", diff)
	}
	if s := got.Source(); s != "every broker's server.properties" {
		t.Errorf("Source = %q", s)
	}
	img.SetStaticConfigs(2, map[string]string{"min.insync.replicas": "1"})
	r.Forget()
	got = r.TopicConfig("t", "min.insync.replicas", AnyBroker)
	if got.Known || got.Value != "2" || got.Missing() != "the brokers apply different values" {
		t.Errorf("disagreeing brokers: %+v (%s)", got, got.Missing())
	}
	// Broker 2's file unknown: the gap names it.
	delete(img.StaticConfigs, 2)
	r.Forget()
	got = r.TopicConfig("t", "min.insync.replicas", AnyBroker)
	if got.Known || got.Missing() != "broker 2's server.properties, the brokers apply different values" {
		t.Errorf("one broker unknown: %+v (%s)", got, got.Missing())
	}
	if b := got.StaticGapBrokers(); len(b) != 1 || b[0] != 2 {
		t.Errorf("StaticGapBrokers = %v", b)
	}
	// No broker at all: the cluster-wide layers only.
	empty := NewImage()
	empty.Configs[ConfigResource{Type: ConfigBroker}] = map[string]string{"min.insync.replicas": "2"}
	if got := NewConfigResolver(empty).TopicConfig("t", "min.insync.replicas", AnyBroker); !got.Known || got.Value != "2" {
		t.Errorf("no brokers: %+v", got)
	}
}

func TestResolverBrokerKeys(t *testing.T) {
	img := resolverImage()
	img.SetStaticConfigs(1, map[string]string{"offsets.topic.replication.factor": "1"})
	r := NewConfigResolver(img)
	if got := r.BrokerConfig("offsets.topic.replication.factor", 1); !got.Known || got.Value != "1" || got.Source() != "broker 1 server.properties" {
		t.Errorf("static broker key: %+v", got)
	}
	got := r.BrokerConfig("no.such.key", 1)
	if got.Known || got.Missing() != "Kafka's default of no.such.key" {
		t.Errorf("unknown default: %+v (%s)", got, got.Missing())
	}
	if got := r.BrokerConfig("offsets.topic.replication.factor", 2); got.Known || got.Value != "3" || got.Missing() != "broker 2's server.properties" {
		t.Errorf("assumed default: %+v (%s)", got, got.Missing())
	}
}

// TestResolverSkipsDroppedDynamicValues: a broker loads its own and the
// cluster's dynamic configs key by key and drops a value its ConfigDef
// refuses (DynamicBrokerConfig.removeInvalidConfigs, 3.9 and 4.x) or a
// key Kafka does not update dynamically, then applies the layer below;
// so does the resolver, and the resolution says what it skipped. A
// topic's value and a server.properties value are no layer to skip.
// Before, the refused value was the effective one (lint then judged
// nothing by it).
func TestResolverSkipsDroppedDynamicValues(t *testing.T) {
	img := resolverImage()
	b1 := ConfigResource{Type: ConfigBroker, Name: "1"}
	def := ConfigResource{Type: ConfigBroker}
	img.Configs[b1] = map[string]string{"min.insync.replicas": "0", "unclean.leader.election.enable": "true", "leader.imbalance.per.broker.percentage": "50"}
	img.Configs[def] = map[string]string{"min.insync.replicas": " abc", "unclean.leader.election.enable": "maybe", "leader.imbalance.per.broker.percentage": "x"}
	img.SetStaticConfigs(1, map[string]string{"min.insync.replicas": "2", "leader.imbalance.per.broker.percentage": "20"})
	img.SetStaticConfigs(2, map[string]string{"min.insync.replicas": "2"})
	r := NewConfigResolver(img)
	minISR := r.TopicConfig("t", "min.insync.replicas", 1)
	want := EffectiveConfig{Key: "min.insync.replicas", Value: "2", Known: true, Layer: LayerStatic, Name: "min.insync.replicas", Broker: 1,
		Skipped: []SkippedConfig{
			{Layer: LayerBroker, Broker: 1, Name: "min.insync.replicas", Value: "0", Reason: SkipRefused},
			{Layer: LayerClusterDefault, Broker: AnyBroker, Name: "min.insync.replicas", Value: " abc", Reason: SkipRefused},
		}}
	if diff := cmp.Diff(want, minISR); diff != "" {
		t.Errorf("min.insync.replicas (-want +got):\n%s", diff)
	}
	if got, w := minISR.Skipped[0].String(), `broker 1's dynamic config's min.insync.replicas="0" is skipped: Kafka refuses it (min.insync.replicas is an integer of at least 1), and a broker drops it and applies the layer below`; got != w {
		t.Errorf("String = %q\nwant %q", got, w)
	}
	// A valid dynamic value stands; the cluster default's refused one
	// below it is never reached.
	if got := r.BrokerConfig("unclean.leader.election.enable", 1); got.Layer != LayerBroker || got.Value != "true" || got.Skipped != nil {
		t.Errorf("unclean, broker 1: %+v", got)
	}
	want = EffectiveConfig{Key: "unclean.leader.election.enable", Value: "false", Known: true, Layer: LayerDefault, Name: "unclean.leader.election.enable", Broker: AnyBroker,
		Skipped: []SkippedConfig{{Layer: LayerClusterDefault, Broker: AnyBroker, Name: "unclean.leader.election.enable", Value: "maybe", Reason: SkipRefused}}}
	if diff := cmp.Diff(want, r.BrokerConfig("unclean.leader.election.enable", 2)); diff != "" {
		t.Errorf("unclean, broker 2 (-want +got):\n%s", diff)
	}
	// leader.imbalance.per.broker.percentage is no dynamic config: even
	// a valid value is dropped.
	imb := r.BrokerConfig("leader.imbalance.per.broker.percentage", 1)
	want = EffectiveConfig{Key: "leader.imbalance.per.broker.percentage", Value: "20", Known: true, Layer: LayerStatic, Name: "leader.imbalance.per.broker.percentage", Broker: 1,
		Skipped: []SkippedConfig{
			{Layer: LayerBroker, Broker: 1, Name: "leader.imbalance.per.broker.percentage", Value: "50", Reason: SkipNotDynamic},
			{Layer: LayerClusterDefault, Broker: AnyBroker, Name: "leader.imbalance.per.broker.percentage", Value: "x", Reason: SkipNotDynamic},
		}}
	if diff := cmp.Diff(want, imb); diff != "" {
		t.Errorf("leader imbalance (-want +got):\n%s", diff)
	}
	if got, w := imb.Skipped[0].String(), `broker 1's dynamic config's leader.imbalance.per.broker.percentage="50" is skipped: Kafka does not update the key dynamically, and a broker drops it and applies the layer below`; got != w {
		t.Errorf("String = %q\nwant %q", got, w)
	}
	// Asked for any broker: what each skipped, once.
	img.Configs[ConfigResource{Type: ConfigBroker, Name: "2"}] = map[string]string{"min.insync.replicas": "-1"}
	r.Forget()
	anyB := r.TopicConfig("t", "min.insync.replicas", AnyBroker)
	want = EffectiveConfig{Key: "min.insync.replicas", Value: "2", Known: true, Layer: LayerStatic, Name: "min.insync.replicas", Broker: AnyBroker,
		Skipped: []SkippedConfig{
			{Layer: LayerBroker, Broker: 1, Name: "min.insync.replicas", Value: "0", Reason: SkipRefused},
			{Layer: LayerClusterDefault, Broker: AnyBroker, Name: "min.insync.replicas", Value: " abc", Reason: SkipRefused},
			{Layer: LayerBroker, Broker: 2, Name: "min.insync.replicas", Value: "-1", Reason: SkipRefused},
		}}
	if diff := cmp.Diff(want, anyB); diff != "" {
		t.Errorf("any broker (-want +got):\n%s", diff)
	}
	// A server.properties value Kafka refuses stops the node: no layer
	// below it applies, and it stays the effective one.
	img.SetStaticConfigs(2, map[string]string{"min.insync.replicas": "0"})
	r.Forget()
	if got := r.TopicConfig("t", "min.insync.replicas", 2); got.Layer != LayerStatic || got.Value != "0" || len(got.Skipped) != 2 {
		t.Errorf("static: %+v", got)
	}
	// A topic's refused value is no dynamic broker value: it stays the
	// effective one (Kafka validates a topic config when it is set).
	img.Configs[ConfigResource{Type: ConfigTopic, Name: "t"}] = map[string]string{"min.insync.replicas": "0"}
	r.Forget()
	if got := r.TopicConfig("t", "min.insync.replicas", 1); got.Layer != LayerTopic || got.Value != "0" || got.Skipped != nil {
		t.Errorf("topic: %+v", got)
	}
}
