package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// TestKafkaValueParsers: each value as Kafka 3.9.2's and 4.4.0's
// KafkaConfig.fromProps answered for it (ConfigDef.parseType: INT is
// Integer.parseInt of the trimmed text, which reads any script's
// decimal digits; BOOLEAN is "true" or "false", trimmed, any case;
// inter.broker.protocol.version is MetadataVersion.fromVersionString on
// 3.9.2).
func TestKafkaValueParsers(t *testing.T) {
	for v, want := range map[string]int32{"10": 10, " 20 ": 20, "+5": 5, "0": 0, "-1": -1, "1000": 1000, "2147483647": 2147483647, "-2147483648": -2147483648,
		"\u0662": 2, "\uff12": 2, "1\u0660": 10} {
		if n, ok := model.JavaParseInt(v); !ok || n != want {
			t.Errorf("model.JavaParseInt(%q) = %d %v, want %d", v, n, ok, want)
		}
	}
	for _, v := range []string{"abc", "1.5", "", " ", "+", "-", "2147483648", "-2147483649", "\u00a02", "1_000", "0x10", "\U0001D7D0", "\U00011C52", "18446744073709551617"} {
		if n, ok := model.JavaParseInt(v); ok {
			t.Errorf("model.JavaParseInt(%q) = %d, want refused", v, n)
		}
	}
	for v, want := range map[string]int{"\u0662": 2, "\u0660": 0, " 2 ": 2} {
		if n, ok := model.MinISRValue(v); n != want || ok != (want > 0) {
			t.Errorf("model.MinISRValue(%q) = %d %v, want %d", v, n, ok, want)
		}
	}
	for v, want := range map[string]bool{"true": true, " TRUE ": true, "False": false, "\tfalse\n": false} {
		if b, ok := model.KafkaBool(v); !ok || b != want {
			t.Errorf("model.KafkaBool(%q) = %v %v, want %v", v, b, ok, want)
		}
	}
	for _, v := range []string{"yes", "1", "", "t", "on", "true!", "\u00a0true"} {
		if b, ok := model.KafkaBool(v); ok {
			t.Errorf("model.KafkaBool(%q) = %v, want refused", v, b)
		}
	}
	for v, want := range map[string]bool{"3.7": true, "3.7-IV0": true, "3.7.1": true, " 3.8 ": true, "3.9.2": true, "3.7-IV0.5": true, "3.7.1.2": true, "4.0-IV1": true,
		"3.6": false, "3.6-IV2": false, "abc": false, "3.7-iv0": false, "3.10": false, "4.0": false, "": false, "3.7.": false, "\u0663.7": false, "2.8": false} {
		if got := ibpAtLeast37(v); got != want {
			t.Errorf("ibpAtLeast37(%q) = %v, want %v", v, got, want)
		}
	}
}

// ruleRun is res's run of rule code.
func ruleRun(t *testing.T, res *Result, code string) RuleRun {
	t.Helper()
	i := slices.IndexFunc(res.Rules, func(r RuleRun) bool { return r.Code == code })
	if i < 0 {
		t.Fatalf("no run of %s", code)
	}
	return res.Rules[i]
}

// TestUncleanRefusedValue: an unclean.leader.election.enable that is
// neither true nor false (Kafka's BOOLEAN refuses "yes" and "1": the
// node does not start) is not read as false: node 1's server.properties
// holding "yes" is static-config-invalid's error and
// unclean-leader-election-enabled says it did not judge it, nor topic
// orders's "1"; node 2's "TRUE" is the rule's finding.
func TestUncleanRefusedValue(t *testing.T) {
	img := healthy()
	img.SetStaticConfigs(1, map[string]string{uncleanKey: "yes"})
	img.SetStaticConfigs(2, map[string]string{uncleanKey: "TRUE"})
	img.SetStaticConfigs(3, map[string]string{uncleanKey: "false"})
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "orders"}] = map[string]string{uncleanKey: "1"}
	res := run(t, img, Options{Only: []string{CodeStaticConfigInvalid, CodeUncleanElection}, StaticFiles: map[int32]string{1: "/etc/kafka/1.properties"}})
	if got, want := codes(res), []string{CodeStaticConfigInvalid + " broker 1", CodeUncleanElection + " broker 2"}; !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	f := res.Findings[0]
	if want := `node 1's server.properties (/etc/kafka/1.properties) sets unclean.leader.election.enable="yes"`; f.Saw != want {
		t.Errorf("saw %q", f.Saw)
	}
	if want := "Kafka refuses the value (unclean.leader.election.enable is true or false) and the node does not start with it; kmeta judges nothing by it"; f.Why != want {
		t.Errorf("why %q", f.Why)
	}
	if want := "set unclean.leader.election.enable in node 1's server.properties (/etc/kafka/1.properties) to true or false (or remove it: Kafka's default is false), then start the node"; f.Fix != want {
		t.Errorf("fix %q", f.Fix)
	}
	want := `not judged where node 1's server.properties (/etc/kafka/1.properties) sets unclean.leader.election.enable="yes", which Kafka refuses (unclean.leader.election.enable is true or false); ` +
		`not judged where topic orders's config sets unclean.leader.election.enable="1", which Kafka refuses (unclean.leader.election.enable is true or false)`
	if rr := ruleRun(t, res, CodeUncleanElection); rr.Status != StatusRan || rr.Assumes != want {
		t.Errorf("unclean run: %s, assumes %q\nwant %q", rr.Status, rr.Assumes, want)
	}
	if rr := ruleRun(t, res, CodeStaticConfigInvalid); rr.Assumes != "" {
		t.Errorf("static-config-invalid assumes %q", rr.Assumes)
	}
	// The cluster default's "maybe" and broker 3's "nope": a broker
	// drops a dynamic value its ConfigDef refuses and applies the layer
	// below (DynamicBrokerConfig.removeInvalidConfigs), and so does the
	// resolver: broker 2's server.properties TRUE is what it applies, a
	// finding, and the run says what was skipped. Before, the rule
	// judged nothing and said kmeta did not resolve the layer below.
	delete(img.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: "orders"})
	img.Configs[model.ConfigResource{Type: model.ConfigBroker}][uncleanKey] = "maybe"
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "3"}] = map[string]string{uncleanKey: "nope"}
	res = run(t, img, Options{Only: []string{CodeUncleanElection}})
	want = `broker 3's dynamic config's unclean.leader.election.enable="nope" is skipped: Kafka refuses it (unclean.leader.election.enable is true or false), and a broker drops it and applies the layer below; ` +
		`the cluster default's unclean.leader.election.enable="maybe" is skipped: Kafka refuses it (unclean.leader.election.enable is true or false), and a broker drops it and applies the layer below; ` +
		`not judged where node 1's server.properties sets unclean.leader.election.enable="yes", which Kafka refuses (unclean.leader.election.enable is true or false)`
	if got := codes(res); !slices.Equal(got, []string{CodeUncleanElection + " broker 2"}) {
		t.Errorf("dynamic values refused: %v", got)
	}
	if rr := ruleRun(t, res, CodeUncleanElection); rr.Assumes != want {
		t.Errorf("dynamic values refused: assumes %q\nwant %q", rr.Assumes, want)
	}
}

// TestLeaderImbalanceRefusedValue: a leader.imbalance.per.broker.percentage
// that is not an INT (Kafka 3.x refuses "abc"; 4.0 removed the key, and
// a 4.4.0 node starts with any value) makes preferred-leader-imbalance
// judge nothing, and say why (before, it skipped silently: broker 1 is
// the default 10%'s finding). static-config-invalid reports it for a
// node known to run 3.x, says it did not judge it for a node of unknown
// release, and says nothing of a node known to run 4.x, which ignores
// it. Two refused values of one node are one finding.
func TestLeaderImbalanceRefusedValue(t *testing.T) {
	img := healthy()
	img.Topics["orders"].Partitions[0].Leader = 2 // broker 1 leads 1 of its 2 partitions
	res := run(t, img, Options{Only: []string{CodeLeaderImbalance}})
	if got := codes(res); !slices.Equal(got, []string{CodeLeaderImbalance + " broker 1"}) {
		t.Fatalf("default threshold: %v", got)
	}
	for id := int32(1); id <= 3; id++ {
		img.SetStaticConfigs(id, map[string]string{leaderImbalanceKey: "abc"})
	}
	// Broker 1 runs 3.9 (registration up to 3.9-IV0), broker 2 3.9 with
	// unstable levels or 4.x (up to 4.0-IV1), broker 3 4.x (healthy's 27).
	img.Brokers[1].Features[0].Max = 21
	img.Brokers[2].Features[0].Max = 23
	res = run(t, img, Options{Only: []string{CodeLeaderImbalance, CodeStaticConfigInvalid}})
	// A KRaft controller reads no threshold: the refused value leaves
	// preferred-leader-imbalance's judgement whole.
	if got, want := codes(res), []string{CodeStaticConfigInvalid + " broker 1", CodeLeaderImbalance + " broker 1"}; !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	f := res.Findings[0]
	if f.Saw != `node 1's server.properties sets leader.imbalance.per.broker.percentage="abc"` ||
		f.Why != "Kafka refuses the value (leader.imbalance.per.broker.percentage, a key Kafka 4.0 removed, is an integer) and the node does not start with it; kmeta judges nothing by it" ||
		f.Fix != "set leader.imbalance.per.broker.percentage in node 1's server.properties to an integer (or remove it: Kafka's default is 10), then start the node" {
		t.Errorf("finding:\n%s\n%s\n%s", f.Saw, f.Why, f.Fix)
	}
	if rr := ruleRun(t, res, CodeLeaderImbalance); rr.Status != StatusRan || rr.Assumes != "" {
		t.Errorf("imbalance run: %s, assumes %q", rr.Status, rr.Assumes)
	}
	want := ""
	want = `not judged where node 2's server.properties sets leader.imbalance.per.broker.percentage="abc", which Kafka 3.x refuses (leader.imbalance.per.broker.percentage, a key Kafka 4.0 removed, is an integer): node 2's release is not known`
	if rr := ruleRun(t, res, CodeStaticConfigInvalid); rr.Assumes != want {
		t.Errorf("static-config-invalid assumes %q\nwant %q", rr.Assumes, want)
	}
	// A ZooKeeper-mode source: every node runs 3.x or earlier. Node 1's
	// two refused values are one finding.
	img.ZK = healthyZK()
	img.StaticConfigs[1][minISRKey] = "0"
	res = run(t, img, Options{Only: []string{CodeStaticConfigInvalid}})
	if got, want := codes(res), []string{CodeStaticConfigInvalid + " broker 1", CodeStaticConfigInvalid + " broker 2", CodeStaticConfigInvalid + " broker 3"}; !slices.Equal(got, want) {
		t.Fatalf("ZooKeeper mode: %v, want %v", got, want)
	}
	f = res.Findings[0]
	if f.Saw != `node 1's server.properties sets leader.imbalance.per.broker.percentage="abc", min.insync.replicas="0"` ||
		f.Why != "Kafka refuses the values (leader.imbalance.per.broker.percentage, a key Kafka 4.0 removed, is an integer; min.insync.replicas is an integer of at least 1) and the node does not start with them; kmeta judges nothing by them" ||
		f.Fix != "in node 1's server.properties, set leader.imbalance.per.broker.percentage to an integer (or remove it: Kafka's default is 10) and min.insync.replicas to an integer of at least 1 (or remove it: Kafka's default is 1), then start the node" {
		t.Errorf("two values:\n%s\n%s\n%s", f.Saw, f.Why, f.Fix)
	}
	if rr := ruleRun(t, res, CodeStaticConfigInvalid); rr.Assumes != "" {
		t.Errorf("ZooKeeper mode assumes %q", rr.Assumes)
	}
	// Each broker's dynamic config sets the key, which Kafka does not
	// update dynamically: a broker drops it whatever its value, so the
	// servers' "abc" is still what they apply, and the run says both.
	for id, v := range map[string]string{"1": "x", "2": "y", "3": "50"} {
		img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: id}] = map[string]string{leaderImbalanceKey: v}
	}
	res = run(t, img, Options{Only: []string{CodeLeaderImbalance}})
	want = `broker 1's dynamic config's leader.imbalance.per.broker.percentage="x" is skipped: Kafka does not update the key dynamically, and a broker drops it and applies the layer below; ` +
		`broker 2's dynamic config's leader.imbalance.per.broker.percentage="y" is skipped: Kafka does not update the key dynamically, and a broker drops it and applies the layer below; ` +
		`broker 3's dynamic config's leader.imbalance.per.broker.percentage="50" is skipped: Kafka does not update the key dynamically, and a broker drops it and applies the layer below; ` +
		`not judged where node 1's server.properties sets leader.imbalance.per.broker.percentage="abc", node 2's server.properties sets leader.imbalance.per.broker.percentage="abc", ` +
		`node 3's server.properties sets leader.imbalance.per.broker.percentage="abc", which Kafka 3.x refuses (leader.imbalance.per.broker.percentage, a key Kafka 4.0 removed, is an integer)`
	if rr := ruleRun(t, res, CodeLeaderImbalance); len(res.Findings) != 0 || rr.Assumes != want {
		t.Errorf("dynamic: %v, assumes %q\nwant %q", codes(res), rr.Assumes, want)
	}
}

// TestRefusedIBPSaysNoRelease: an inter.broker.protocol.version Kafka
// 3.x refuses ("abc", "3.7-iv0") does not make lint take the brokers
// for 3.7 or later (before, any text above "3.7" did, "abc" included),
// so a partition whose min.insync.replicas is above its replication
// factor is under it, with what 3.7+ would do said; "3.7-IV0" is 3.7.
func TestRefusedIBPSaysNoRelease(t *testing.T) {
	img := healthy()
	for _, b := range img.Brokers {
		b.Features[0].Max = 14 // 3.6-IV2: the registrations say nothing of 3.7
	}
	addTopic(img, "pair", 1, 1, 2)
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "pair"}] = map[string]string{minISRKey: "3"}
	for ibp, want := range map[string][]string{"abc": {CodePartitionUnderMinISR + " partition pair-0"}, "3.7-iv0": {CodePartitionUnderMinISR + " partition pair-0"}, "3.7-IV0": nil} {
		for id := int32(1); id <= 3; id++ {
			img.SetStaticConfigs(id, map[string]string{"inter.broker.protocol.version": ibp})
		}
		res := run(t, img, Options{Only: []string{CodePartitionUnderMinISR}})
		if got := codes(res); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", ibp, got, want)
		} else if len(got) == 1 && !strings.HasSuffix(res.Findings[0].Saw, "(brokers on Kafka 3.7 or later cap it at the replication factor, 2, and take these writes)") {
			t.Errorf("%q: %s", ibp, res.Findings[0].Saw)
		}
	}
}

// TestLeaderImbalanceThresholdIsZooKeeperModes: only a ZooKeeper-mode
// controller applies leader.imbalance.per.broker.percentage
// (KafkaController.checkAndTriggerAutoLeaderRebalance); a KRaft
// controller reads no such key (QuorumController and
// ReplicationControlManager.maybeBalancePartitionLeaders try a preferred
// election for every partition not led by its preferred replica), so on
// a KRaft source any such partition is the finding, with no threshold
// said to be Kafka's, and a broker override of the key changes nothing.
// Before, a KRaft source was judged by the key's 10% as if Kafka applied
// it.
func TestLeaderImbalanceThresholdIsZooKeeperModes(t *testing.T) {
	img := healthy()
	addTopic(img, "wide", 20, 1, 2, 3)
	// Broker 1 is now the preferred leader of 22 partitions (orders-0,
	// __consumer_offsets-0 and wide's 20 with it first); 2 led elsewhere
	// is 9%, under the ZooKeeper-mode default of 10.
	img.Topics["orders"].Partitions[0].Leader = 2
	img.Topics["wide"].Partitions[0].Leader = 2
	res := run(t, img, Options{Only: []string{CodeLeaderImbalance}})
	if got := codes(res); !slices.Equal(got, []string{CodeLeaderImbalance + " broker 1"}) {
		t.Fatalf("KRaft: %v", got)
	}
	f := res.Findings[0]
	if f.Saw != "broker 1 is the preferred leader of 22 partitions and leads 2 fewer of them (9%)" ||
		f.Why != kraftImbalanceWhy ||
		f.Fix != "kafka-leader-election --bootstrap-server BOOTSTRAP --election-type preferred --all-topic-partitions" {
		t.Errorf("KRaft finding:\n%s\n%s\n%s", f.Saw, f.Why, f.Fix)
	}
	if rr := ruleRun(t, res, CodeLeaderImbalance); rr.Assumes != "" {
		t.Errorf("KRaft assumes %q", rr.Assumes)
	}
	// A broker override of the key is no KRaft controller's threshold.
	img.Configs[model.ConfigResource{Type: model.ConfigBroker}][leaderImbalanceKey] = "50"
	if got := codes(run(t, img, Options{Only: []string{CodeLeaderImbalance}})); !slices.Equal(got, []string{CodeLeaderImbalance + " broker 1"}) {
		t.Errorf("KRaft, cluster default 50: %v", got)
	}
	// ZooKeeper mode: the controller's threshold, the default 10% (the
	// cluster default's 50 is dropped: the key is not dynamic), above
	// broker 1's 9%; a third partition led elsewhere (13%) is above 10,
	// and 50 would not be.
	img.ZK = healthyZK()
	if got := codes(run(t, img, Options{Only: []string{CodeLeaderImbalance}})); len(got) != 0 {
		t.Errorf("ZooKeeper mode, 10%%: %v", got)
	}
	img.Topics["wide"].Partitions[3].Leader = 2
	res = run(t, img, Options{Only: []string{CodeLeaderImbalance}})
	if got := codes(res); !slices.Equal(got, []string{CodeLeaderImbalance + " broker 1"}) {
		t.Fatalf("ZooKeeper mode, 13%%: %v", got)
	}
	f = res.Findings[0]
	if f.Saw != "broker 1 is the preferred leader of 22 partitions and leads 3 fewer of them (13%, above leader.imbalance.per.broker.percentage 10, Kafka's default; "+
		"assumes no override in broker 1's server.properties, broker 2's server.properties, broker 3's server.properties (not in this source: pass --config ID=server.properties for brokers 1,2,3); "+
		"the cluster default's leader.imbalance.per.broker.percentage=\"50\" is skipped: Kafka does not update the key dynamically, and a broker drops it and applies the layer below)" ||
		f.Why != "leaders, and with them produce and fetch load, pile up on fewer brokers" {
		t.Errorf("ZooKeeper-mode finding:\n%s\n%s", f.Saw, f.Why)
	}
}
