package restore

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/toolstub"
	"github.com/kmeta/kmeta/model"
)

// TestCommandsHoldControlCharacters: a name or principal holding a
// control character (a hostile view's, say) never reaches the terminal
// raw: its command is commented out, the character shown as \xNN, and
// Held says why. A config value holding one is carried, escaped, through
// --add-config-file, and its command runs.
func TestCommandsHoldControlCharacters(t *testing.T) {
	acl := func(principal string) *ACLSpec {
		return aclSpec(&model.ACL{ResourceType: 2, ResourceName: "orders", PatternType: 3, Principal: principal, Host: "*", Operation: 3, PermissionType: 3})
	}
	name := func(s string) *string { return &s }
	p := &Plan{Actions: []Action{
		{Kind: CreateACL, ACL: acl("User:a\x1b]2;owned\x07")},
		{Kind: CreateACL, ACL: acl("User:b\xff")},
		{Kind: AlterQuotas, Quota: &QuotaChange{Entity: []model.QuotaEntityPart{{Type: "client-id", Name: name("c\nd")}}, Set: []QuotaValue{{Key: "producer_byte_rate", Value: 1024}}}},
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigGroup, Name: "g\u202ex"}, Set: []ConfigValue{{Key: "consumer.session.timeout.ms", Value: "45000"}}}},
		{Kind: AlterConfigs, Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigBroker, Name: "1"}, Set: []ConfigValue{{Key: "plugin.bell", Value: "a\x07b"}}}},
	}}
	var got []string
	for _, c := range Commands(p, CommandOptions{Bootstrap: "b:9092", ShowSecrets: true}) {
		got = append(got, c.Held+" "+c.Line)
		if !model.Printable(c.Line) {
			t.Errorf("a control character printed raw: %q", c.Line)
		}
		if c.Runnable != (c.Held == "") {
			t.Errorf("runnable %v, held %q: %s", c.Runnable, c.Held, c.Line)
		}
	}
	want := []string{
		`control # kafka-acls --bootstrap-server b:9092 --add --allow-principal 'User:a\x1B]2;owned\x07' --allow-host '*' --operation Read --topic orders --resource-pattern-type literal`,
		`control # kafka-acls --bootstrap-server b:9092 --add --allow-principal 'User:b\xFF' --allow-host '*' --operation Read --topic orders --resource-pattern-type literal`,
		`control # kafka-configs --bootstrap-server b:9092 --alter --entity-type clients --entity-name 'c\x0Ad' --add-config producer_byte_rate=1024`,
		`control # kafka-configs --bootstrap-server b:9092 --alter --entity-type groups --entity-name 'g\u{202E}x' --add-config consumer.session.timeout.ms=45000`,
		` printf '%s\n' 'plugin.bell=a\u0007b' | kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-name 1 --add-config-file /dev/stdin`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFixCommandsRunAsPrinted: what the plan does not restore but a
// command undoes (a topic or a SCRAM credential created since the point,
// a feature level moved) gets that command, on the connection the plan's
// commands name: run with sh, each gives its tool exactly the words; a
// feature goes through kmeta's own gated command (downgrade, upgrade or
// disable, from the levels), never named with .sh; a name holding a
// control character is held, not printed raw.
func TestFixCommandsRunAsPrinted(t *testing.T) {
	want, have := model.NewImage(), model.NewImage()
	for _, img := range []*model.Image{want, have} {
		img.ClusterID = "c1"
		for id := int32(1); id <= 3; id++ {
			img.Brokers[id] = &model.Broker{ID: id}
		}
	}
	part := map[int32]*model.Partition{0: {ID: 0, Replicas: []int32{1}, Leader: 1}}
	have.Topics["new.one"] = &model.Topic{Name: "new.one", ID: model.UUID{5}, Partitions: part}
	have.Topics["bad\x1bname"] = &model.Topic{Name: "bad\x1bname", ID: model.UUID{6}, Partitions: part}
	have.SCRAM[model.ScramKey{User: "dave o", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "dave o", Mechanism: model.ScramSHA512, Iterations: 4096}
	// A partition moved since the point, its topic's name holding a
	// character JSON escapes with a backslash (the plan is then written with printf).
	for img, rs := range map[*model.Image][]int32{want: {1, 2}, have: {2, 3}} {
		img.Topics[`mo"ved`] = &model.Topic{Name: `mo"ved`, ID: model.UUID{7}, Partitions: map[int32]*model.Partition{0: {ID: 0, Replicas: rs, Leader: rs[0]}}}
	}
	want.Features["metadata.version"], have.Features["metadata.version"] = 21, 27
	want.Features["group.version"] = 1
	have.Features["transaction.version"] = 2
	p := Make(want, have, Side{Name: "kraft:/log@offset=10"}, Side{Name: "kafka://b:9092"}, Options{})
	const conn = "--bootstrap-server b:9092 --command-config '/etc/kafka/admin client.properties'"
	FixCommands(p, CommandOptions{Bootstrap: "b:9092", CommandConfig: "/etc/kafka/admin client.properties", Script: true})
	var got []string
	for _, u := range p.NotRestored {
		l := u.Entity + ": " + u.Fix
		if u.Command != nil {
			l += " | " + u.Command.Held + " | " + u.Command.Line
		}
		got = append(got, l)
	}
	wantLines := []string{
		`partition mo"ved-0: the reassignment printed moves them back (kafka-reassign-partitions), then a preferred leader election`,
		"topic bad\x1bname: delete it if it should go | control | # kafka-topics.sh " + conn + ` --delete --topic 'bad\x1Bname'`,
		"topic new.one: delete it if it should go |  | kafka-topics.sh " + conn + " --delete --topic new.one",
		"scram dave o SCRAM-SHA-512: delete it if it should go |  | kafka-configs.sh " + conn + " --alter --entity-type users --entity-name 'dave o' --delete-config SCRAM-SHA-512",
		"feature group.version: set the point's level with kmeta's gated command, which says what it would turn off and asks first |  | kmeta features upgrade " + conn + " --feature group.version=1",
		"feature metadata.version: set the point's level with kmeta's gated command, which says what it would turn off and asks first |  | kmeta features downgrade " + conn + " --feature metadata.version=21",
		"feature transaction.version: set the point's level with kmeta's gated command, which says what it would turn off and asks first |  | kmeta features disable " + conn + " --feature transaction.version",
	}
	if !slices.Equal(got, wantLines) {
		t.Fatalf("not restored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	stub := toolstub.New(t, "kafka-topics.sh", "kafka-configs.sh", "kmeta", "kafka-reassign-partitions.sh")
	// The reassignment: the plan written to its file, then executed.
	dir := t.TempDir()
	rc := p.ReassignCommand
	wantLine := `printf '%s\n' '{"version":1,"partitions":[{"topic":"mo\"ved","partition":0,"replicas":[1,2]}]}' > kmeta-restore-reassignment.json && kafka-reassign-partitions.sh ` + conn + " --reassignment-json-file kmeta-restore-reassignment.json --execute"
	if rc == nil || !rc.Runnable || rc.Line != wantLine {
		t.Fatalf("reassignment: %+v\nwant %s", rc, wantLine)
	}
	out, calls, err := stub.Run(t, dir, rc.Line)
	plan, _ := os.ReadFile(filepath.Join(dir, ReassignmentFile))
	if wantArgs := []string{"--bootstrap-server", "b:9092", "--command-config", "/etc/kafka/admin client.properties", "--reassignment-json-file", ReassignmentFile, "--execute"}; err != nil || len(calls) != 1 || !slices.Equal(calls[0].Args, wantArgs) || string(plan) != p.ReassignmentJSON()+"\n" {
		t.Errorf("%s: %v %+v, plan file %q\n%s", rc.Line, err, calls, plan, out)
	}
	connArgs := []string{"--bootstrap-server", "b:9092", "--command-config", "/etc/kafka/admin client.properties"}
	for _, u := range p.NotRestored {
		if u.Command == nil || !u.Command.Runnable {
			continue
		}
		sub := 1
		if u.Args[0] == "kmeta" {
			sub = 3
		}
		wantArgs := slices.Concat(u.Args[1:sub], connArgs, u.Args[sub:])
		out, calls, err := stub.Run(t, "", u.Command.Line)
		if err != nil || len(calls) != 1 || !strings.HasPrefix(calls[0].Tool, u.Args[0]) || !slices.Equal(calls[0].Args, wantArgs) {
			t.Errorf("%s: %v %+v, want %s %q\n%s", u.Command.Line, err, calls, u.Args[0], wantArgs, out)
		}
	}
}

// TestCommandsSplitSecrets: a command holding a secret shown as its hash
// is commented out, but only for that secret: the keys kmeta can print
// (and the keys to delete) of the same resource are a runnable command
// of their own, before it, and a topic is created with them. Before, the
// whole command was commented out and the rest held back with it. With
// ShowSecrets nothing is held, and one command does it all.
func TestCommandsSplitSecrets(t *testing.T) {
	broker := model.ConfigResource{Type: model.ConfigBroker, Name: "1"}
	p := &Plan{Actions: []Action{
		{Kind: AlterConfigs, Entity: "config BROKER 1", Config: &ConfigChange{Resource: broker,
			Set:    []ConfigValue{{Key: "log.cleaner.threads", Value: "2"}, {Key: "ssl.keystore.password", Value: "s3cret"}},
			Delete: []ConfigValue{{Key: "log.retention.ms"}}}},
		// Secrets alone: one command, held.
		{Kind: AlterConfigs, Entity: "config BROKER <default>", Config: &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigBroker},
			Set: []ConfigValue{{Key: "ssl.key.password", Value: "k3y"}}}},
		// A key Kafka does not know is sensitive on a topic.
		{Kind: CreateTopic, Entity: "topic t", Topic: &TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 1,
			Configs: []ConfigValue{{Key: "custom.key", Value: "v"}, {Key: "retention.ms", Value: "1000"}}}},
	}}
	hash := model.RedactedValue
	for _, tc := range []struct {
		show bool
		want []string
	}{
		{false, []string{
			`config BROKER 1: kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-name 1 --add-config log.cleaner.threads=2 --delete-config log.retention.ms`,
			`config BROKER 1: secret # printf '%s\n' 'ssl.keystore.password=` + hash("s3cret") + `' | kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-name 1 --add-config-file /dev/stdin`,
			`config BROKER <default>: secret # printf '%s\n' 'ssl.key.password=` + hash("k3y") + `' | kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-default --add-config-file /dev/stdin`,
			`topic t: kafka-topics --bootstrap-server b:9092 --create --topic t --partitions 1 --replication-factor 1 --config retention.ms=1000`,
			`topic t: secret # printf '%s\n' 'custom.key=` + hash("v") + `' | kafka-configs --bootstrap-server b:9092 --alter --entity-type topics --entity-name t --add-config-file /dev/stdin`,
		}},
		{true, []string{
			`config BROKER 1: kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-name 1 --add-config log.cleaner.threads=2,ssl.keystore.password=s3cret --delete-config log.retention.ms`,
			`config BROKER <default>: kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-default --add-config ssl.key.password=k3y`,
			`topic t: kafka-topics --bootstrap-server b:9092 --create --topic t --partitions 1 --replication-factor 1 --config custom.key=v --config retention.ms=1000`,
		}},
	} {
		var got []string
		for _, c := range Commands(p, CommandOptions{Bootstrap: "b:9092", ShowSecrets: tc.show}) {
			l := c.Entity + ": "
			if c.Held != "" {
				l += c.Held + " "
			}
			got = append(got, l+c.Line)
			if c.Runnable != (c.Held == "") || c.Runnable == strings.HasPrefix(c.Line, "#") {
				t.Errorf("runnable %v, held %q: %s", c.Runnable, c.Held, c.Line)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("show secrets %v:\n%s\nwant:\n%s", tc.show, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
	// The plan itself is not split: kmeta restore sends each action whole.
	if len(p.Actions) != 3 || len(p.Actions[0].Config.Set) != 2 || len(p.Actions[2].Topic.Configs) != 2 {
		t.Errorf("the plan changed: %+v", p.Actions)
	}
}

// TestFixCommandsSCRAMPassword: a SCRAM credential the restore cannot
// write back gets a line that sets a new password read from
// KMETA_SCRAM_PASSWORD, piped to kafka-configs as its --add-config-file
// (never on a command line: ps, the shell's history). Unset, the shell
// stops at the line, naming the variable, and nothing runs; before, the
// line ended "--add-config 'SCRAM-SHA-256=[password=...]'", which, run
// as printed, set the password to "...". Once used, the variable is
// unset, so the next user's line stops until it is set again.
func TestFixCommandsSCRAMPassword(t *testing.T) {
	want, have := model.NewImage(), model.NewImage()
	want.ClusterID, have.ClusterID = "c1", "c1"
	cred := func(user string, it int32) *model.ScramCredential {
		return &model.ScramCredential{User: user, Mechanism: model.ScramSHA256, Iterations: it, Salt: []byte{1}, StoredKey: []byte{2}, ServerKey: []byte{3}}
	}
	want.SCRAM[model.ScramKey{User: "carol o", Mechanism: model.ScramSHA256}] = cred("carol o", 4096)
	want.SCRAM[model.ScramKey{User: "erin", Mechanism: model.ScramSHA256}] = cred("erin", 4096)
	have.SCRAM[model.ScramKey{User: "erin", Mechanism: model.ScramSHA256}] = cred("erin", 8192)
	p := Make(want, have, Side{Name: "a"}, Side{Name: "b"}, Options{})
	FixCommands(p, CommandOptions{Bootstrap: "b:9092"})
	fix := "kmeta quorum rebuild at the point rebuilds the whole metadata, credentials included; or set a new password, read from KMETA_SCRAM_PASSWORD " +
		"(read -rs KMETA_SCRAM_PASSWORD keeps it out of the history; a backslash in it is an escape to the properties file kafka-configs reads)"
	pipe := `: "${KMETA_SCRAM_PASSWORD:?set it to the new password}" && printf '%s\n' "SCRAM-SHA-256=password=$KMETA_SCRAM_PASSWORD" | kafka-configs --bootstrap-server b:9092 --alter --entity-type users --entity-name `
	var got []string
	for _, u := range p.NotRestored {
		got = append(got, u.Entity+": "+u.Difference+": "+u.Fix+" | "+u.Command.Held+" | "+u.Command.Line)
	}
	wantLines := []string{
		"scram carol o SCRAM-SHA-256: deleted since the point: " + fix + " |  | " + pipe + "'carol o' --add-config-file /dev/stdin && unset KMETA_SCRAM_PASSWORD",
		"scram erin SCRAM-SHA-256: iterations: 4096 at the point, 8192 now: " + fix + " |  | " + pipe + "erin --add-config-file /dev/stdin && unset KMETA_SCRAM_PASSWORD",
	}
	if !slices.Equal(got, wantLines) {
		t.Fatalf("not restored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	stub := toolstub.New(t, "kafka-configs")
	line := p.NotRestored[0].Command.Line
	// Unset or empty: the shell stops before the tool runs, naming it.
	for _, env := range [][]string{nil, {"KMETA_SCRAM_PASSWORD="}} {
		out, calls, err := stub.Run(t, "", line, env...)
		if err == nil || len(calls) != 0 || !strings.Contains(out, "KMETA_SCRAM_PASSWORD: set it to the new password") {
			t.Errorf("%q: ran %+v, %v\n%s", env, calls, err, out)
		}
	}
	// Set: the tool gets the password on its stdin alone; the variable
	// is unset after.
	out, calls, err := stub.Run(t, "", line+` && echo "left:${KMETA_SCRAM_PASSWORD-unset}"`, "KMETA_SCRAM_PASSWORD=pa ss,w]rd")
	wantArgs := []string{"--bootstrap-server", "b:9092", "--alter", "--entity-type", "users", "--entity-name", "carol o", "--add-config-file"}
	if err != nil || len(calls) != 1 || !slices.Equal(calls[0].Args[:len(wantArgs)], wantArgs) || calls[0].Stdin != "SCRAM-SHA-256=password=pa ss,w]rd\n" ||
		slices.ContainsFunc(calls[0].Args, func(a string) bool { return strings.Contains(a, "pa ss") }) || !strings.Contains(out, "left:unset") {
		t.Errorf("%v %+v\n%s", err, calls, out)
	}
}
