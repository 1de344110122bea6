package restore

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/toolstub"
	"github.com/kmeta/kmeta/model"
)

// sent is what one printed line makes Kafka's tools send: the configs set
// and deleted, over all the tool calls of the line, and the refusals.
type sent struct {
	set     map[string]string
	deleted []string
	refused []string
}

// TestCommandsReadByKafkaTools: every line Commands prints for configs
// holding what kafka-configs' and kafka-topics' command lines treat
// specially (',' and '=' in a value, '[' and ']', blanks at an end, an
// empty value, a line end, '#' first) is run by sh, and the words it
// gives each tool are read by the tool's own option parser (ToolArgs.java,
// Kafka 2.7.2's, 3.9.2's and 4.4.0's): each line must set exactly the
// plan's values and delete exactly its keys, with no call refused. Before
// this test, a client-metrics match (client_software_name=kafka.python)
// was refused and a value holding '[' or ']' would have been set without
// them.
func TestCommandsReadByKafkaTools(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	jaas := `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="p,w=d";`
	pem := "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ0Ww==\n-----END CERTIFICATE-----\n"
	cfg := func(kv ...string) []ConfigValue {
		var out []ConfigValue
		for i := 0; i < len(kv); i += 2 {
			out = append(out, ConfigValue{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	p := &Plan{Actions: []Action{
		{Kind: CreateTopic, Topic: &TopicSpec{Name: "plain", Partitions: 3, ReplicationFactor: 2,
			Configs: cfg("cleanup.policy", "compact,delete", "leader.replication.throttled.replicas", "0:1,1:2", "retention.ms", "1000")}},
		// An empty value: kafka-topics --config refuses it.
		{Kind: CreateTopic, Topic: &TopicSpec{Name: "throttled", Assignment: [][]int32{{1, 2}, {2, 3}},
			Configs: cfg("follower.replication.throttled.replicas", "", "message.timestamp.type", "CreateTime")}},
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigClientMetrics, Name: "one-match"},
			Set: cfg("interval.ms", "60000", "match", "client_software_name=kafka.python")}},
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigClientMetrics, Name: "two-matches"},
			Set: cfg("match", `client_software_name=kafka.python,client_software_version=1\.2\.*`, "metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.")}},
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigBroker, Name: "1"},
			Set: cfg("listener.name.sasl_ssl.plain.sasl.jaas.config", jaas, "log.retention.ms", "9")}},
		// '[' and ']' (with ',' and '=').
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigBroker, Name: "2"},
			Set: cfg("ssl.principal.mapping.rules", "RULE:^CN=([a-z][a-z0-9]*),OU=eng$/$1/,DEFAULT")}},
		// Blanks at the ends, a line end at the end, '#' first,
		// and a delete after the file.
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigBroker},
			Set:    cfg("listener.name.ssl.ssl.truststore.certificates", pem, "log.retention.ms", "9", "plugin.rules", " [a-z]+=x, ", "plugin.note", "#not a comment"),
			Delete: cfg("log.cleaner.threads", "")}},
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigGroup, Name: "g1"},
			Set: cfg("consumer.session.timeout.ms", "45000"), Delete: cfg("consumer.heartbeat.interval.ms", "")}},
	}}
	fixed := len(p.Actions)
	p.Actions = append(p.Actions, randomConfigActions(120)...)
	cmds := Commands(p, CommandOptions{Bootstrap: "b:9092", ShowSecrets: true})

	// The lines, as they are printed: --add-config where it carries every
	// pair (in brackets when a value holds ',' or '='), else the pairs
	// piped through --add-config-file; a topic config --config cannot
	// carry set by kafka-configs right after the create.
	want := []string{
		"kafka-topics --bootstrap-server b:9092 --create --topic plain --partitions 3 --replication-factor 2 --config cleanup.policy=compact,delete --config leader.replication.throttled.replicas=0:1,1:2 --config retention.ms=1000",
		"kafka-topics --bootstrap-server b:9092 --create --topic throttled --replica-assignment 1:2,2:3 --config message.timestamp.type=CreateTime && kafka-configs --bootstrap-server b:9092 --alter --entity-type topics --entity-name throttled --add-config follower.replication.throttled.replicas=",
		"kafka-configs --bootstrap-server b:9092 --alter --entity-type client-metrics --entity-name one-match --add-config 'interval.ms=60000,match=[client_software_name=kafka.python]'",
		`kafka-configs --bootstrap-server b:9092 --alter --entity-type client-metrics --entity-name two-matches --add-config 'match=[client_software_name=kafka.python,client_software_version=1\.2\.*],metrics=[org.apache.kafka.producer.,org.apache.kafka.consumer.]'`,
		`kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-name 1 --add-config 'listener.name.sasl_ssl.plain.sasl.jaas.config=[org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="p,w=d";],log.retention.ms=9'`,
		`printf '%s\n' 'ssl.principal.mapping.rules=RULE:^CN=([a-z][a-z0-9]*),OU=eng$/$1/,DEFAULT' | kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-name 2 --add-config-file /dev/stdin`,
		`printf '%s\n' 'listener.name.ssl.ssl.truststore.certificates=-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ0Ww==\n-----END CERTIFICATE-----\n' log.retention.ms=9 'plugin.note=\#not a comment' 'plugin.rules=\ [a-z]+=x, ' | kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-default --add-config-file /dev/stdin --delete-config log.cleaner.threads`,
		"kafka-configs --bootstrap-server b:9092 --alter --entity-type groups --entity-name g1 --add-config consumer.session.timeout.ms=45000 --delete-config consumer.heartbeat.interval.ms",
	}
	var lines []string
	for _, c := range cmds {
		if !c.Runnable || !model.Printable(c.Line) {
			t.Fatalf("not runnable with ShowSecrets, or a control character printed raw: %q", c.Line)
		}
		lines = append(lines, c.Line)
	}
	if !slices.Equal(lines[:fixed], want) {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines[:fixed], "\n"), strings.Join(want, "\n"))
	}

	// Run each line as an operator would, with the test kit's stand-ins as
	// the tools; their recorded calls (words NUL-separated, /dev/stdin
	// replaced by the input saved) are what ToolArgs.java reads.
	stub := toolstub.New(t, "kafka-configs", "kafka-topics")
	var files []string
	var lineOf []int // the line of each call
	for i, c := range cmds {
		out, calls, err := stub.Run(t, "", c.Line)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.Line, err, out)
		}
		for _, call := range calls {
			files, lineOf = append(files, call.File), append(lineOf, i)
		}
	}

	src, err := filepath.Abs(filepath.Join("testdata", "ToolArgs.java"))
	if err != nil {
		t.Fatal(err)
	}
	// Entity types newer than a release: its kafka-configs refuses them.
	newer := map[string][]model.ConfigResourceType{
		kafkatest.Kafka27: {model.ConfigClientMetrics, model.ConfigGroup},
		kafkatest.Kafka39: {model.ConfigGroup},
	}
	for _, v := range []string{kafkatest.Kafka27, kafkatest.Kafka39, kafkatest.Latest4} {
		t.Run(v, func(t *testing.T) {
			d := kafkatest.Dist(t, v)
			out := filepath.Join(t.TempDir(), "sent")
			d.MustRun(t, src, append([]string{out}, files...)...)
			got := readSent(t, out, lineOf, len(cmds))
			for i, a := range p.Actions {
				w := sent{set: map[string]string{}}
				switch a.Kind {
				case CreateTopic:
					for _, cv := range a.Topic.Configs {
						w.set[cv.Key] = cv.Value
					}
				case AlterConfigs:
					if slices.Contains(newer[v], a.Config.Resource.Type) {
						continue
					}
					for _, cv := range a.Config.Set {
						w.set[cv.Key] = cv.Value
					}
					for _, cv := range a.Config.Delete {
						w.deleted = append(w.deleted, cv.Key)
					}
				}
				g := got[i]
				if len(g.refused) > 0 || !maps.Equal(g.set, w.set) || !slices.Equal(g.deleted, w.deleted) {
					t.Errorf("%s\nKafka %s's tools: refused %q, set %q, delete %q\nwant set %q, delete %q", cmds[i].Line, v, g.refused, g.set, g.deleted, w.set, w.deleted)
				}
			}
		})
	}
}

// randomConfigActions are n config changes of a broker, each setting one
// to three keys to values drawn from the characters the tools' command
// lines treat specially, control characters and a few plain ones (a
// fixed seed: the same values every run), so that the rules above are
// held against the parsers beyond the cases written out.
func randomConfigActions(n int) []Action {
	rnd := rand.New(rand.NewPCG(48, 2026))
	chars := []rune(",=[] \t\n\x07\x1b#!:\\\"'$`;*é{}aZ0.")
	var out []Action
	for i := range n {
		var set []ConfigValue
		for k := range 1 + rnd.IntN(3) {
			v := make([]rune, rnd.IntN(8))
			for j := range v {
				v[j] = chars[rnd.IntN(len(chars))]
			}
			set = append(set, ConfigValue{Key: fmt.Sprintf("plugin.k%d", k), Value: string(v)})
		}
		out = append(out, Action{Kind: AlterConfigs, Config: &ConfigChange{
			Resource: model.ConfigResource{Type: model.ConfigBroker, Name: strconv.Itoa(100 + i)}, Set: set}})
	}
	return out
}

// readSent reads ToolArgs' output into what each of n lines sent.
func readSent(t *testing.T, path string, lineOf []int, n int) []sent {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	unesc := strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")
	out := make([]sent, n)
	for i := range out {
		out[i].set = map[string]string{}
	}
	answered := 0
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.Split(l, "\t")
		call, err := strconv.Atoi(f[0])
		if err != nil || call < 0 || call >= len(lineOf) || len(f) < 2 {
			t.Fatalf("ToolArgs line %q", l)
		}
		s := &out[lineOf[call]]
		switch {
		case f[1] == "ok" && len(f) == 2:
			answered++
		case f[1] == "refused" && len(f) == 3:
			answered++
			s.refused = append(s.refused, unesc.Replace(f[2]))
		case f[1] == "set" && len(f) == 4:
			s.set[unesc.Replace(f[2])] = unesc.Replace(f[3])
		case f[1] == "delete" && len(f) == 3:
			s.deleted = append(s.deleted, unesc.Replace(f[2]))
		default:
			t.Fatalf("ToolArgs line %q", l)
		}
	}
	if answered != len(lineOf) {
		t.Fatalf("ToolArgs answered %d calls of %d", answered, len(lineOf))
	}
	return out
}

// TestSCRAMPasswordReadByKafkaTools: the line that sets a new SCRAM
// password (TestFixCommandsSCRAMPassword), run by sh with the password
// in KMETA_SCRAM_PASSWORD, gives kafka-configs (2.7.2's, 3.9.2's and
// 4.4.0's option parser, ToolArgs.java) the credential as
// MECHANISM=password=PASSWORD through --add-config-file, which
// ConfigCommand's credential parser ("(?:iterations=(-?[0-9]*),)?password=(.*)",
// the same in all three) takes whole: ',', '=', '[', ']', '#' and blanks
// inside it reach Kafka as they are (through --add-config, brackets
// would be dropped and a ',' would end the value). A backslash is
// Properties' escape, as the printed fix says.
func TestSCRAMPasswordReadByKafkaTools(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	want, have := model.NewImage(), model.NewImage()
	want.ClusterID, have.ClusterID = "c1", "c1"
	want.SCRAM[model.ScramKey{User: "carol", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "carol", Mechanism: model.ScramSHA512, Iterations: 4096}
	p := Make(want, have, Side{Name: "a"}, Side{Name: "b"}, Options{})
	FixCommands(p, CommandOptions{Bootstrap: "b:9092"})
	if len(p.NotRestored) != 1 || p.NotRestored[0].Command == nil || !p.NotRestored[0].Command.Runnable {
		t.Fatalf("not restored: %+v", p.NotRestored)
	}
	line := p.NotRestored[0].Command.Line
	stub := toolstub.New(t, "kafka-configs")
	passwords := []struct{ given, read string }{
		{" pa ss,w]rd=[x]#! ", " pa ss,w]rd=[x]#! "},
		{`a\b`, "ab"},
	}
	var files []string
	for _, pw := range passwords {
		out, calls, err := stub.Run(t, "", line, "KMETA_SCRAM_PASSWORD="+pw.given)
		if err != nil || len(calls) != 1 {
			t.Fatalf("%s: %v %+v\n%s", line, err, calls, out)
		}
		files = append(files, calls[0].File)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "ToolArgs.java"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{kafkatest.Kafka27, kafkatest.Kafka39, kafkatest.Latest4} {
		t.Run(v, func(t *testing.T) {
			d := kafkatest.Dist(t, v)
			out := filepath.Join(t.TempDir(), "sent")
			d.MustRun(t, src, append([]string{out}, files...)...)
			got := readSent(t, out, []int{0, 1}, 2)
			for i, pw := range passwords {
				w := map[string]string{"SCRAM-SHA-512": "password=" + pw.read}
				if len(got[i].refused) > 0 || !maps.Equal(got[i].set, w) || len(got[i].deleted) > 0 {
					t.Errorf("password %q: Kafka %s's kafka-configs: refused %q, set %q, delete %q; want set %q", pw.given, v, got[i].refused, got[i].set, got[i].deleted, w)
				}
			}
		})
	}
}
