package model

import (
	"slices"
	"strings"
	"unicode"
)

// Kafka's reading of the config values kmeta judges by, one table for
// the resolver (which skips a dynamic broker value a broker drops) and
// lint (which judges nothing by a value Kafka refuses). Kafka validates
// a node's server.properties whole when the node starts (KafkaConfig's
// ConfigDef.parse): a value its ConfigDef refuses stops the node. A
// broker's or the cluster's dynamic config is validated key by key when
// a broker loads it (DynamicBrokerConfig.fromPersistentProps, 3.9 and
// 4.x): a key whose value the broker's ConfigDef refuses is removed
// (removeInvalidConfigs: "Dynamic broker config contains invalid values
// in: ..., these configs will be ignored"), and so is a key Kafka does
// not update dynamically ("Non-dynamic configs configured in ZooKeeper
// will be ignored"), so the broker applies the layer below.

// KafkaValue is a config kmeta judges by, as Kafka's ConfigDef reads it.
type KafkaValue struct {
	Key string
	// Want is what Kafka accepts ("an integer of at least 1"), Default
	// its default, both said in a fix.
	Want, Default string
	ok            func(string) bool
	// UpTo3: only Kafka 3.x and earlier define the key (4.0 removed it,
	// and a 4.x node ignores it as it ignores any unknown key), so only
	// those refuse a bad value.
	UpTo3 bool
	// Static: Kafka does not update the key dynamically (not in
	// DynamicBrokerConfig.AllDynamicConfigs): a broker drops it from
	// its dynamic configs whatever its value.
	Static bool
}

// OK says whether Kafka accepts v.
func (k *KafkaValue) OK(v string) bool { return k.ok(v) }

// Valid says what Kafka accepts: "min.insync.replicas is an integer of
// at least 1", "leader.imbalance.per.broker.percentage, a key Kafka 4.0
// removed, is an integer".
func (k *KafkaValue) Valid() string {
	if k.UpTo3 {
		return k.Key + ", a key Kafka 4.0 removed, is " + k.Want
	}
	return k.Key + " is " + k.Want
}

// Refuser is who refuses a bad value: "Kafka", "Kafka 3.x".
func (k *KafkaValue) Refuser() string {
	if k.UpTo3 {
		return "Kafka 3.x"
	}
	return "Kafka"
}

// kafkaValues are the configs kmeta reads Kafka's way, sorted by key.
// Their types and validators, checked with KafkaConfig.fromProps on
// Kafka 3.9.2 and 4.4.0 (ConfigException "Invalid value ... for
// configuration ..."):
//
//   - leader.imbalance.per.broker.percentage: INT without validator in
//     3.x (KafkaConfig / ReplicationConfigs; 0, -1 and 1000 start);
//     4.0 removed it (KafkaConfig.configDef() has no such key in 4.4.0,
//     where any value starts); not dynamic (DynamicBrokerConfig's
//     AllDynamicConfigs holds no replication key of the controller's);
//   - min.insync.replicas: INT, atLeast(1) (LogConfig's
//     SERVER_CONFIG_DEF and topic CONFIG); dynamic
//     (DynamicLogConfig.ReconfigurableConfigs), and DynamicConfig.Broker
//     validates it with KafkaConfig's ConfigKey, validator included;
//   - unclean.leader.election.enable: BOOLEAN (ConfigDef.parseType:
//     "true" or "false" trimmed, any case; "Expected value to be either
//     true or false"); dynamic.
var kafkaValues = []*KafkaValue{
	{Key: "leader.imbalance.per.broker.percentage", Want: "an integer", Default: "10", ok: func(v string) bool { _, ok := JavaParseInt(v); return ok }, UpTo3: true, Static: true},
	{Key: "min.insync.replicas", Want: "an integer of at least 1", Default: "1", ok: func(v string) bool { _, ok := MinISRValue(v); return ok }},
	{Key: "unclean.leader.election.enable", Want: "true or false", Default: "false", ok: func(v string) bool { _, ok := KafkaBool(v); return ok }},
}

// KafkaValues are the configs kmeta reads Kafka's way, sorted by key.
func KafkaValues() []*KafkaValue { return slices.Clone(kafkaValues) }

// KafkaValueOf is key's entry, nil when kmeta does not read key Kafka's
// way.
func KafkaValueOf(key string) *KafkaValue {
	for _, k := range kafkaValues {
		if k.Key == key {
			return k
		}
	}
	return nil
}

// JavaTrim trims v as Java's String.trim does (every char up to ' '),
// as ConfigDef.parseType trims a value before parsing it.
func JavaTrim(v string) string { return strings.TrimFunc(v, func(r rune) bool { return r <= ' ' }) }

// JavaParseInt reads v as ConfigDef's INT does: Integer.parseInt of the
// trimmed text, an optional sign then decimal digits, which Java takes
// from any script (Character.digit: "٢" and "２" are 2, as Kafka 3.9.2
// reads them) but only in the Basic Multilingual Plane (parseInt reads
// UTF-16 chars one by one); ok is false where parseInt throws
// (NumberFormatException: Kafka's "Not a number of type INT").
func JavaParseInt(v string) (int32, bool) {
	s := JavaTrim(v)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	var n int64
	for _, r := range s {
		d := decimalDigit(r)
		if d < 0 {
			return 0, false
		}
		n = n*10 + int64(d)
		if n > 1<<31 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 || n < -1<<31 {
		return 0, false
	}
	return int32(n), true
}

// decimalDigit is r's value as Java's Character.digit(r, 10) gives it
// for a char of the Basic Multilingual Plane, -1 for none. A decimal
// digit (Unicode Nd) is in a run of tens from its zero, and Nd's ranges
// are such runs put together.
func decimalDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r > 0xFFFF || !unicode.IsDigit(r) {
		// Beyond the BMP, Java reads a surrogate pair, no digit (and
		// U+11C52 cut to 16 bits would be U+1C52, a digit).
		return -1
	}
	for _, rg := range unicode.Nd.R16 {
		if uint16(r) >= rg.Lo && uint16(r) <= rg.Hi {
			return int(uint16(r)-rg.Lo) % 10
		}
	}
	return -1
}

// KafkaBool reads v as ConfigDef's BOOLEAN does: "true" or "false",
// trimmed, any case; ok is false for anything else (ConfigException
// "Expected value to be either true or false").
func KafkaBool(v string) (b, ok bool) {
	switch s := JavaTrim(v); {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

// MinISRValue reads a min.insync.replicas value as Kafka's ConfigDef
// does (an INT, JavaParseInt, then atLeast(1)); ok is false for a value
// Kafka refuses.
func MinISRValue(v string) (n int, ok bool) {
	i, ok := JavaParseInt(v)
	if !ok || i < 1 {
		return 0, false
	}
	return int(i), true
}
