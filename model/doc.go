// Package model is the common cluster image that both worlds are read into.
//
// The KRaft side (metalog replay) and the ZooKeeper side (zkread) each build a
// *Image; printers, verify, features and migrate consume it. The package
// imports nothing of the project's own, so every other package can depend on
// it without cycles.
//
// Conventions:
//
//   - Collections are maps keyed by the natural identity Kafka uses (broker id,
//     topic name, config resource, quota entity, ACL id, SCRAM user+mechanism,
//     token id) so replay is O(1) per record. Everything that leaves the
//     package in a defined order goes through the Sorted* helpers or
//     MarshalJSON, which sort with a full key; map order never leaks.
//   - Secrets (SCRAM salts and keys, sensitive config values) are kept as they
//     are, so verify can compare them. Redacted returns a copy that printers
//     use unless the user asked for secrets.
//   - nil slices and empty slices differ where Kafka distinguishes them: an
//     ELR of nil means "not tracked" (pre-ELR metadata), an empty one means
//     "tracked and empty".
//   - Effective configs (effective.go): ConfigResolver gives the value Kafka
//     applies for a key on a topic's partitions or a broker, resolved in
//     Kafka's layers (topic, broker dynamic, cluster default, broker
//     static, Kafka's default) with the layer it came from, and says which
//     layers a source did not report (Image.StaticConfigs,
//     Image.UnreportedConfigs) rather than fall through them silently.
//     A dynamic broker or cluster-default value a broker drops when it
//     loads it (a value KafkaValues' parsers refuse, or a key Kafka does
//     not update dynamically) is skipped as the broker skips it, and
//     EffectiveConfig.Skipped says so. Judges (lint, roll) read configs through it, never Image.Configs
//     directly for a value Kafka applies.
package model
