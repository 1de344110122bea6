package features_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestKafkaRefusesLevelANodeDoesNotSupport: Kafka's controller refuses a
// metadata.version that a registered broker does not support, even when
// the controller itself would take it. A 4.4.0 cluster whose controller
// runs with unstable.feature.versions.enable=true and whose broker does
// not: the broker registers metadata.version up to the latest production
// level only, so an upgrade to the next (unstable) level is refused by
// Kafka, and features.Check, on the controller's replayed log and with
// unstable levels allowed as the controller allows them, refuses it
// naming the broker.
func TestKafkaRefusesLevelANodeDoesNotSupport(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	d := kafkatest.Dist(t, kafkatest.Latest4)
	latest, _ := features.Default().ByLevel(features.Default().LatestProduction)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{
		// format would take the controller's unstable levels otherwise.
		ReleaseVersion:  latest.Name,
		Controllers:     1,
		Brokers:         1,
		ControllerProps: map[string]string{"unstable.feature.versions.enable": "true"},
	})
	ctrl := c.Controllers()[0]
	broker := c.Brokers()[0]
	g := &gateCluster{t: t, d: d, c: c, adm: c.Admin(t), cat: features.Default(), node: ctrl, name: d.Version}
	img := g.image()
	cat := features.Default()
	cur := img.MetadataVersion()
	if cur != cat.LatestProduction {
		t.Fatalf("formatted at metadata.version %d, want the latest production %d", cur, cat.LatestProduction)
	}
	next, ok := cat.ByLevel(cur + 1)
	if !ok || next.Production {
		t.Fatalf("no unstable level above %d in the catalog", cur)
	}

	v := cat.Check(img, next, features.CheckOptions{AllowUnstable: true})
	if v.Allowed {
		t.Errorf("kmeta allows %s although broker %d did not register it: %+v", next.Name, broker, v.Findings)
	}
	var nodes []string
	for _, f := range v.Findings {
		if f.Code == features.KindNodeUnsupported {
			nodes = append(nodes, f.Entity)
		}
	}
	if want := []string{"broker " + itoa(broker)}; !slices.Equal(nodes, want) {
		t.Errorf("unsupported-by-node findings name %v, want %v (the controller supports the level)", nodes, want)
	}

	ok, out := g.featureCommand("upgrade", "--metadata", next.Name)
	if ok {
		t.Fatalf("Kafka accepted metadata.version %s although broker %d does not support it:\n%s", next.Name, broker, out)
	}
	// Kafka 4.4.0 says "Broker 1 only supports versions 7-33".
	if !strings.Contains(out, "Broker "+itoa(broker)+" only supports versions") {
		t.Errorf("Kafka refused for another reason than broker %d's support:\n%s", broker, out)
	}
	// And what both say is still true afterwards: nothing changed.
	if after := g.image().MetadataVersion(); after != cur {
		t.Errorf("metadata.version moved to %d", after)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
