package model

import "testing"

// IsSecretSetting hides passwords, keys and JAAS in a node's file
// (Kafka's own, a listener's override, a plugin's) and shows the rest,
// the authorizer's settings among them.
func TestIsSecretSetting(t *testing.T) {
	for k, want := range map[string]bool{
		"ssl.keystore.password":                                 true,
		"ssl.key.password":                                      true,
		"ssl.truststore.password":                               true,
		"listener.name.controller.ssl.keystore.password":        true,
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": true,
		"listener.name.controller.plain.sasl.jaas.config":       true,
		"sasl.jaas.config":                                      true,
		"delegation.token.secret.key":                           true,
		"password.encoder.secret":                               true,
		"zookeeper.ssl.keystore.password":                       true,
		"ldap.bind.password":                                    true,
		"my.plugin.api.key":                                     true,
		"super.users":                                           false,
		"allow.everyone.if.no.acl.found":                        false,
		"authorizer.class.name":                                 false,
		"ssl.keystore.location":                                 false,
		"ssl.client.auth":                                       false,
		"listener.name.controller.ssl.keystore.location":        false,
		"listener.name.controller.sasl.enabled.mechanisms":      false,
		"sasl.mechanism.controller.protocol":                    false,
		"listener.security.protocol.map":                        false,
		"zookeeper.connect":                                     false,
		"controller.quorum.voters":                              false,
		"ssl.principal.mapping.rules":                           false,
		"zookeeper.metadata.migration.enable":                   false,
		"inter.broker.protocol.version":                         false,
	} {
		if got := IsSecretSetting(k); got != want {
			t.Errorf("IsSecretSetting(%q) = %v, want %v", k, got, want)
		}
	}
}
