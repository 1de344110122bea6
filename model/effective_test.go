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
	if got.Value != "true" || got.Layer != LayerBroker || got.ELR || !got.Bool() {
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
