package restore

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
)

func str(s string) *string { return &s }

// views are a point (want) and now (have) of one cluster: a topic
// deleted since, one that grew, one created since, configs, quotas and
// ACLs changed, a SCRAM credential gone, a broker gone.
func views() (want, have *model.Image) {
	part := func(id int32, rs ...int32) *model.Partition {
		return &model.Partition{ID: id, Replicas: rs, Leader: rs[0]}
	}
	want, have = model.NewImage(), model.NewImage()
	for _, img := range []*model.Image{want, have} {
		img.ClusterID = "c1"
		for id := int32(1); id <= 3; id++ {
			img.Brokers[id] = &model.Broker{ID: id}
		}
	}
	want.Brokers[4] = &model.Broker{ID: 4}
	want.Topics["gone"] = &model.Topic{Name: "gone", ID: model.UUID{1}, Partitions: map[int32]*model.Partition{0: part(0, 1, 2), 1: part(1, 2, 3)}}
	want.Topics["shrunk"] = &model.Topic{Name: "shrunk", ID: model.UUID{2}, Partitions: map[int32]*model.Partition{0: part(0, 1), 1: part(1, 2), 2: part(2, 3)}}
	have.Topics["shrunk"] = &model.Topic{Name: "shrunk", ID: model.UUID{3}, Partitions: map[int32]*model.Partition{0: part(0, 1)}}
	want.Topics["grew"] = &model.Topic{Name: "grew", ID: model.UUID{4}, Partitions: map[int32]*model.Partition{0: part(0, 1, 2)}}
	have.Topics["grew"] = &model.Topic{Name: "grew", ID: model.UUID{4}, Partitions: map[int32]*model.Partition{0: part(0, 2, 3), 1: part(1, 1)}}
	have.Topics["new"] = &model.Topic{Name: "new", ID: model.UUID{5}, Partitions: map[int32]*model.Partition{0: part(0, 1)}}
	tc := func(n string) model.ConfigResource { return model.ConfigResource{Type: model.ConfigTopic, Name: n} }
	want.Configs[tc("gone")] = map[string]string{"retention.ms": "1000", "cleanup.policy": "compact,delete"}
	want.Configs[tc("grew")] = map[string]string{"retention.ms": "1000", "max.message.bytes": "2000"}
	have.Configs[tc("grew")] = map[string]string{"retention.ms": "5", "segment.bytes": "100"}
	def := model.ConfigResource{Type: model.ConfigBroker}
	want.Configs[def] = map[string]string{"ssl.key.password": "old-secret", "log.retention.ms": "9"}
	have.Configs[def] = map[string]string{"ssl.key.password": model.NotReported}
	want.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "4"}] = map[string]string{"max.connections": "10"}
	alice := "alice"
	q := []model.QuotaEntityPart{{Type: "user", Name: &alice}, {Type: "client-id"}}
	want.ClientQuotas[model.QuotaEntityKey(q)] = &model.ClientQuota{Entity: q, Values: map[string]float64{"producer_byte_rate": 1048576}}
	have.ClientQuotas[model.QuotaEntityKey(q)] = &model.ClientQuota{Entity: q, Values: map[string]float64{"producer_byte_rate": 10, "request_percentage": 50}}
	acl := func(id byte, name string, op int8, principal string) *model.ACL {
		return &model.ACL{ID: model.UUID{id}, ResourceType: 2, ResourceName: name, PatternType: 3, Principal: principal, Host: "*", Operation: op, PermissionType: 3}
	}
	for i, a := range []*model.ACL{acl(1, "orders", 3, "User:alice"), acl(2, "orders", 8, "User:alice"), acl(3, "orders", 4, "User:bob")} {
		want.ACLs[a.ID] = a
		if i == 2 {
			b := *a
			b.ID = model.UUID{30} // the same content under another id
			have.ACLs[b.ID] = &b
		}
	}
	added := acl(4, "pay", 3, "User:mallory")
	have.ACLs[added.ID] = added
	want.SCRAM[model.ScramKey{User: "carol", Mechanism: model.ScramSHA256}] = &model.ScramCredential{User: "carol", Mechanism: model.ScramSHA256, Iterations: 4096, Salt: []byte{1}, StoredKey: []byte{2}, ServerKey: []byte{3}}
	return want, have
}

func TestPlan(t *testing.T) {
	want, have := views()
	p := Make(want, have, Side{Name: "kraft:/log@offset=10"}, Side{Name: "kafka://b:9092"}, Options{})
	var got []string
	for _, a := range p.Actions {
		got = append(got, string(a.Kind)+" "+a.Entity)
	}
	wantActions := []string{
		"create-topic topic gone",
		"create-partitions topic shrunk",
		"alter-configs config TOPIC grew",
		"alter-configs config BROKER <default>",
		`alter-quotas quota client-id=<default>,user="alice"`,
		"create-acl acl TOPIC:LITERAL:orders User:alice@* DESCRIBE ALLOW",
		"create-acl acl TOPIC:LITERAL:orders User:alice@* READ ALLOW",
		"delete-acl acl TOPIC:LITERAL:pay User:mallory@* READ ALLOW",
	}
	if !slices.Equal(got, wantActions) {
		t.Errorf("actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantActions, "\n"))
	}
	var nr []string
	for _, u := range p.NotRestored {
		nr = append(nr, u.Entity+": "+u.Difference)
	}
	wantNR := []string{
		"topic gone: its data",
		"topic grew: partitions: 1 at the point, 2 now",
		"partition grew-0: replicas: [1 2] at the point, [2 3] now",
		"topic new: created since the point",
		"config BROKER 4: 1 keys to set, 0 to delete",
		"scram carol SCRAM-SHA-256: deleted since the point",
		"broker 4: registered at the point, not now",
	}
	if !slices.Equal(nr, wantNR) {
		t.Errorf("not restored:\n%s\nwant:\n%s", strings.Join(nr, "\n"), strings.Join(wantNR, "\n"))
	}
	if js := p.ReassignmentJSON(); js != `{"version":1,"partitions":[{"topic":"grew","partition":0,"replicas":[1,2]}]}` {
		t.Errorf("reassignment %s", js)
	}
	cmds := Commands(p, CommandOptions{Bootstrap: "b:9092"})
	var lines []string
	for _, c := range cmds {
		lines = append(lines, c.Line)
	}
	wantCmds := []string{
		"kafka-topics --bootstrap-server b:9092 --create --topic gone --replica-assignment 1:2,2:3 --config cleanup.policy=compact,delete --config retention.ms=1000",
		"kafka-topics --bootstrap-server b:9092 --alter --topic shrunk --partitions 3",
		"kafka-configs --bootstrap-server b:9092 --alter --entity-type topics --entity-name grew --add-config max.message.bytes=2000,retention.ms=1000 --delete-config segment.bytes",
		// The password is set only where TARGET lacks the key; TARGET
		// holds it without reporting it: not compared, not set.
		"kafka-configs --bootstrap-server b:9092 --alter --entity-type brokers --entity-default --add-config log.retention.ms=9",
		"kafka-configs --bootstrap-server b:9092 --alter --entity-type users --entity-name alice --entity-type clients --entity-default --add-config producer_byte_rate=1048576 --delete-config request_percentage",
		"kafka-acls --bootstrap-server b:9092 --add --allow-principal User:alice --allow-host '*' --operation Describe --topic orders --resource-pattern-type literal",
		"kafka-acls --bootstrap-server b:9092 --add --allow-principal User:alice --allow-host '*' --operation Read --topic orders --resource-pattern-type literal",
		"kafka-acls --bootstrap-server b:9092 --remove --force --allow-principal User:mallory --allow-host '*' --operation Read --topic pay --resource-pattern-type literal",
	}
	if !slices.Equal(lines, wantCmds) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(wantCmds, "\n"))
	}

	// A secret TARGET lacks is set; printed as its hash, commented out,
	// in a command of its own: the key kmeta can print is restored by
	// the runnable one before it.
	delete(have.Configs[model.ConfigResource{Type: model.ConfigBroker}], "ssl.key.password")
	p = Make(want, have, Side{Name: "a"}, Side{Name: "b"}, Options{Entities: []verify.Selector{{Kind: model.EntityConfig, Glob: "<default>"}}})
	// The hash's brackets are more than --add-config can carry: the
	// pair goes through --add-config-file.
	lines = nil
	for _, c := range Commands(p, CommandOptions{}) {
		lines = append(lines, c.Held+" "+c.Line)
	}
	wantCmds = []string{
		` kafka-configs --bootstrap-server "$BOOTSTRAP_SERVER" --alter --entity-type brokers --entity-default --add-config log.retention.ms=9`,
		`secret # printf '%s\n' 'ssl.key.password=` + model.RedactedValue("old-secret") +
			`' | kafka-configs --bootstrap-server "$BOOTSTRAP_SERVER" --alter --entity-type brokers --entity-default --add-config-file /dev/stdin`,
	}
	if !slices.Equal(lines, wantCmds) {
		t.Errorf("secret commands:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(wantCmds, "\n"))
	}
	if red := p.Redacted(); strings.Contains(red.Actions[0].Config.Set[1].Value, "old-secret") || p.Actions[0].Config.Set[1].Value != "old-secret" {
		t.Errorf("Redacted: %+v, plan %+v", red.Actions[0].Config, p.Actions[0].Config)
	}
}

func TestPlanRefusals(t *testing.T) {
	want, have := views()
	have.ClusterID = "c2"
	p := Make(want, have, Side{Name: "a"}, Side{Name: "b"}, Options{})
	if p.Refused == "" || len(p.Actions) != 0 {
		t.Errorf("another cluster: refused %q, %d actions", p.Refused, len(p.Actions))
	}
	if p = Make(want, have, Side{Name: "a"}, Side{Name: "b"}, Options{ClusterIDMismatchOK: true}); p.Refused != "" || len(p.Actions) == 0 {
		t.Errorf("--cluster-id-mismatch-ok: refused %q, %d actions", p.Refused, len(p.Actions))
	}
	// A section TARGET does not report is not compared: its emptiness
	// would otherwise delete every ACL.
	want, have = views()
	have.ACLs = map[model.UUID]*model.ACL{}
	have.MarkNotReported(model.FieldACLs)
	p = Make(want, have, Side{Name: "a"}, Side{Name: "b"}, Options{})
	for _, a := range p.Actions {
		if a.ACL != nil {
			t.Errorf("ACL action %s %s with ACLs not reported", a.Kind, a.Entity)
		}
	}
	if !slices.Contains(p.Notes, "ACLs not compared: b does not report them") {
		t.Errorf("notes %q", p.Notes)
	}
	// A ZooKeeper password held encrypted is not written as it is.
	want, have = views()
	want.Configs[model.ConfigResource{Type: model.ConfigBroker}]["ssl.key.password"] = "encryptedPassword:Zm9v,keyLength:128,salt:YmFy,iterations:4096,cipherAlgorithm:AES/CBC/PKCS5Padding,passwordLength:6,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,initializationVector:YWJj"
	delete(have.Configs[model.ConfigResource{Type: model.ConfigBroker}], "ssl.key.password")
	p = Make(want, have, Side{Name: "a"}, Side{Name: "b"}, Options{})
	found := false
	for _, u := range p.NotRestored {
		found = found || u.Entity == "config BROKER <default>" && u.Difference == "key ssl.key.password"
	}
	if !found {
		t.Errorf("an encrypted password is not listed as not restorable: %+v", p.NotRestored)
	}
}

// A secret the point's view does not hold in plain is a step by hand,
// with no command: before, a topic created again listed "set it by hand:
// kafka-configs ... --add-config KEY=...", a command that, run, sets the
// placeholder. The plan names every such step (ByHand).
func TestPlanSecretsByHand(t *testing.T) {
	want, have := views()
	want.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "gone"}]["ssl.key.password"] = model.NotReported
	want.Configs[model.ConfigResource{Type: model.ConfigBroker}]["ssl.key.password"] = "encryptedPassword:Zm9v,keyLength:128,salt:YmFy,iterations:4096,cipherAlgorithm:AES/CBC/PKCS5Padding,passwordLength:6,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,initializationVector:YWJj"
	delete(have.Configs[model.ConfigResource{Type: model.ConfigBroker}], "ssl.key.password")
	p := Make(want, have, Side{Name: "zkdump:point.json"}, Side{Name: "b"}, Options{})
	var got []string
	for _, u := range p.ByHand() {
		got = append(got, u.Entity+" | "+u.Difference+" | "+u.Why+" | "+u.Fix+" | "+u.ByHand)
	}
	wantByHand := []string{
		"config TOPIC gone | key ssl.key.password | a sensitive value zkdump:point.json does not hold (redacted or not reported) |  | " +
			"set ssl.key.password of config TOPIC gone, once the topic is created again, to the value it held at the point: kmeta does not have it, so it prints no command for it",
		"config BROKER <default> | key ssl.key.password | ZooKeeper holds it encrypted with password.encoder.secret; written as it is, it would be a wrong password |  | " +
			"set ssl.key.password of config BROKER <default> to the value it held at the point: kmeta does not have it, so it prints no command for it",
	}
	if !slices.Equal(got, wantByHand) {
		t.Errorf("by hand:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantByHand, "\n"))
	}
	// Nothing sets the key: no action, no command.
	FixCommands(p, CommandOptions{ShowSecrets: true})
	for _, c := range Commands(p, CommandOptions{ShowSecrets: true}) {
		if strings.Contains(c.Line, "ssl.key.password") {
			t.Errorf("a command sets it: %s", c.Line)
		}
	}
	for _, u := range p.NotRestored {
		if u.Command != nil && strings.Contains(u.Command.Line, "ssl.key.password") {
			t.Errorf("a fix sets it: %s", u.Command.Line)
		}
	}
}
