package restore

import (
	"slices"
	"strings"
	"testing"

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
