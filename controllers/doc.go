// Package controllers is the vocabulary of a KRaft controller quorum as
// kmeta writes one: the voters an operator names with --controllers
// (ID@HOST:PORT[:DIRECTORY_ID],..., the syntax of
// controller.quorum.voters and of kafka-storage format
// --initial-controllers), the three ways Kafka's settings spell them,
// the listener name generated configs give the quorum, and where kmeta
// puts each controller's metadata log dir (DIR/controller-ID/).
//
// It sits under the planners that share it — migrate (plan, apply,
// configs), migrate/online (stage, status) and quorum (rebuild) — so
// that none of them imports another for it. It imports nothing of the
// project but the model.
//
// Kafka's spellings of a voter set:
//
//   - controller.quorum.voters (a static quorum, kraft.version 0):
//     ID@HOST:PORT,... (Voters);
//   - controller.quorum.bootstrap.servers (a dynamic quorum, kraft.version
//     1, KIP-853): HOST:PORT,... (BootstrapServers);
//   - kafka-storage format --initial-controllers:
//     ID@HOST:PORT:DIRECTORY_ID,... (Initial).
//
// A HOST that holds ':' (an IPv6 address) is bracketed, as Kafka parses
// it. A directory id is a Kafka Uuid other than the reserved ones (the
// first 100: MIGRATING, UNASSIGNED, LOST and the rest).
package controllers
