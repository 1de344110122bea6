package model

import (
	"slices"
	"strings"
)

// IsPasswordConfig reports whether a config key holds a password: kmeta's
// one test of it, for redaction (a secret wherever the key appears) and
// for migrate (a value ZooKeeper may hold encrypted). It is true when
//
//   - some resource type declares the key PASSWORD (the ConfigDef type),
//     directly or as a listener override: listener.name.<l>.<key>, or a
//     mechanism config such as listener.name.<l>.<mech>.sasl.jaas.config;
//   - or Kafka's password encoder encrypts it in ZooKeeper:
//     DynamicBrokerConfig.isPasswordConfig, a key that ends with one of
//     the dynamic PASSWORD broker configs, whatever comes before (Kafka's
//     ZooKeeper migration decrypts exactly these).
//
// The first rule alone misses encrypted keys with another prefix
// ("custom.ssl.key.password"); the second alone misses the static
// PASSWORD configs (password.encoder.secret, delegation.token.secret.key,
// sasl.oauthbearer.*), which are secrets too, though Kafka never stores
// them in ZooKeeper (kafka-configs refuses to set them dynamically).
func IsPasswordConfig(name string) bool {
	for _, t := range []ConfigResourceType{ConfigBroker, ConfigTopic, ConfigGroup} {
		if _, ok := knownConfigKeys[t][name]; ok && SensitiveConfig(t, name) {
			return true
		}
	}
	if slices.ContainsFunc(dynamicPasswordConfigs, func(c string) bool { return strings.HasSuffix(name, c) }) {
		return true
	}
	if base, ok := listenerBase(name); ok {
		return IsPasswordConfig(base) || slices.ContainsFunc(listenerMechanismConfigs, func(m string) bool {
			return strings.HasSuffix(base, m) && knownConfigKeys[ConfigBroker][m]
		})
	}
	return false
}

// dynamicPasswordConfigs are Kafka's DynamicBrokerConfig.DynamicPasswordConfigs
// (the dynamic broker configs whose type is PASSWORD): the suffixes
// ZooKeeper-mode Kafka's password encoder encrypts.
// TestIsPasswordConfig checks each is a PASSWORD broker config.
var dynamicPasswordConfigs = []string{
	"ssl.keystore.password", "ssl.key.password", "ssl.truststore.password",
	"ssl.keystore.key", "ssl.keystore.certificate.chain", "ssl.truststore.certificates",
	"sasl.jaas.config",
}

// IsSecretSetting reports whether a server.properties setting holds a
// secret, for showing a node's file (a diff, a generated config): a
// password-typed key (IsPasswordConfig); else a key Kafka's broker
// config knows (directly or as a listener override) is shown as it is,
// and so are the authorizers' own settings (super.users,
// allow.everyone.if.no.acl.found), which a reviewer must see carried
// over; a key no table knows is hidden when its name speaks of a secret
// (password, secret, key, jaas, credential, token), since a plugin's
// password is as secret as Kafka's own. Kafka's DescribeConfigs rule
// (SensitiveConfig: every unknown key is sensitive) answers another
// question: what a broker may tell a client.
func IsSecretSetting(name string) bool {
	if IsPasswordConfig(name) {
		return true
	}
	if _, ok := knownConfigKeys[ConfigBroker][name]; ok || authorizerSettings[name] {
		return false
	}
	if base, ok := listenerBase(name); ok {
		if _, known := knownConfigKeys[ConfigBroker][base]; known {
			return false
		}
	}
	n := strings.ToLower(name)
	for _, w := range []string{"password", "passwd", "secret", "key", "jaas", "credential", "token"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// authorizerSettings are the settings of Kafka's authorizers
// (AclAuthorizer, StandardAuthorizer) that are not in the broker's
// ConfigDef and hold no secret.
var authorizerSettings = map[string]bool{
	"super.users":                                 true,
	"allow.everyone.if.no.acl.found":              true,
	"authorizer.zookeeper.url":                    true,
	"authorizer.zookeeper.connection.timeout.ms":  true,
	"authorizer.zookeeper.session.timeout.ms":     true,
	"authorizer.zookeeper.max.in.flight.requests": true,
}
