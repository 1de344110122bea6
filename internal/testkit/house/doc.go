// Package house keeps the rules of kmeta's layout in a test, so that a new
// room cannot quietly lean on a wall it must not touch. It has no code of its
// own: house_test.go reads every package's imports with `go list` and every
// test file's calls with go/ast, and fails on a forbidden arrow.
//
// The floors, bottom up:
//
//   - model: the hub. It imports nothing of the project.
//   - readers (metalog, zkread, and the live reader kafkaread): bytes or
//     answers in, model out. They never import a judge, a planner, internal/
//     (their own internal/ below them excepted) or cmd.
//   - judges (verify, features, lint, roll): model in, findings out. They never
//     import a reader.
//   - planners (migrate, quorum): they may use a reader's writer (metalog).
//   - internal/source, internal/printer, internal/report and cmd/kmeta: the
//     wiring. internal/source, the one entrance to the readers, imports no
//     judge and no planner. Only cmd imports urfave/cli; no library (a package outside cmd/
//     and internal/) imports the printers.
//   - internal/testkit: the test kit. Product code never imports it.
//
// Two rules are about the live side: the live reader and the test kit's admin
// oracle (internal/testkit/kafkatest) never import each other, so that the
// oracle stays an independent witness; and every request that writes to a
// cluster is sent from one named file, kafkaread/writes.go.
//
// Test files that start a JVM (fetch Kafka with Maven, run Kafka, ZooKeeper
// or one of Kafka's tools) are named *_kafka_test.go, all and only those.
package house
