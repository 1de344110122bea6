package model

import "testing"

func TestIsPasswordConfig(t *testing.T) {
	for _, c := range dynamicPasswordConfigs {
		if !knownConfigKeys[ConfigBroker][c] {
			t.Errorf("%s is no PASSWORD broker config of Kafka's", c)
		}
	}
	for name, want := range map[string]bool{
		"ssl.key.password":               true,
		"sasl.jaas.config":               true,
		"ssl.keystore.certificate.chain": true,
		// Kafka's encoder matches by suffix, whatever comes before.
		"listener.name.sasl_ssl.ssl.keystore.password":  true,
		"listener.name.sasl_ssl.plain.sasl.jaas.config": true,
		"custom.ssl.truststore.password":                true,
		"zookeeper.ssl.keystore.password":               true,
		// PASSWORD-typed static configs: secrets, never encrypted in ZooKeeper.
		"password.encoder.secret":                                           true,
		"delegation.token.secret.key":                                       true,
		"listener.name.x.sasl.oauthbearer.client.credentials.client.secret": true,
		"ssl.keystore.location":                                             false,
		"sasl.enabled.mechanisms":                                           false,
		"listener.name.sasl_ssl.plain.sasl.login.class":                     false,
		"retention.ms":                                                      false,
		"ssl.key.password.file":                                             false,
	} {
		if got := IsPasswordConfig(name); got != want {
			t.Errorf("IsPasswordConfig(%q) = %v, want %v", name, got, want)
		}
	}
}
