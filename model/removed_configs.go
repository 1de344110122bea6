package model

// RemovedConfig says why a topic or broker config key no longer exists in
// Kafka 4.x, if it does not: migrate leaves such keys out of what it
// writes, and verify expects a 4.x KRaft view to lack them.
func RemovedConfig(key string) (why string, removed bool) {
	why, removed = removedConfigs[key]
	return why, removed
}

// removedConfigs are topic and broker configs Kafka 4.x no longer has.
var removedConfigs = map[string]string{
	"message.format.version":                  "removed in Kafka 4.0 (KIP-724): 4.x always writes record format v2",
	"log.message.format.version":              "removed in Kafka 4.0 (KIP-724): 4.x always writes record format v2",
	"message.downconversion.enable":           "removed in Kafka 4.0 (KIP-896): 4.x never down-converts; clients need record format v2",
	"log.message.downconversion.enable":       "removed in Kafka 4.0 (KIP-896): 4.x never down-converts; clients need record format v2",
	"log.message.timestamp.difference.max.ms": "removed in Kafka 4.0: use log.message.timestamp.before.max.ms and log.message.timestamp.after.max.ms",
	"message.timestamp.difference.max.ms":     "removed in Kafka 4.0: use message.timestamp.before.max.ms and message.timestamp.after.max.ms",
}
