// Package house keeps the rules of kmeta's layout in a test, so that a new
// room cannot quietly lean on a wall it must not touch. It has no code of its
// own: house_test.go reads every package's imports with `go list` and every
// test file's calls with go/ast, and fails on a forbidden arrow.
//
// The floors, bottom up. A room imports only from its own floor or the
// floors below it (TestImportRules), and every package is on a floor
// (TestEveryPackageHasAFloor):
//
//   - model: the hub. It imports nothing of the project.
//   - the ground floor (controllers: the quorum's voters as --controllers
//     names them; javaprops: the java.util.Properties format; jsonstream:
//     a JSON document with its one large array written an element at a
//     time; shellword: the words of a printed command, quoted for a
//     POSIX shell, and the lines that run ZooKeeper's CLI): vocabulary
//     two rooms above share. It imports nothing of the project but the
//     model.
//   - readers (metalog, zkread, and the live reader kafkaread): bytes or
//     answers in, model out. They are siblings: none imports another.
//     They never import a judge, a planner, internal/ (their own
//     internal/ below them excepted) or cmd.
//   - judges (verify, features, lint, history, roll, voters, zkdeps): model in,
//     findings out. They never import a reader; zkdeps, whose input is
//     zkread's raw tree (znodes the model does not hold), is the one
//     exception.
//   - planners (migrate, quorum, restore): they may use a reader's writer
//     (metalog). They are siblings: none imports another.
//   - the wiring: internal/ (source, printer, report, registry, ...) and
//     cmd/kmeta. internal/source, the one entrance to the readers, imports
//     no judge and no planner. Only cmd imports urfave/cli; no library (a
//     package outside cmd/ and internal/) imports the printers.
//   - internal/testkit: the test kit, on no floor. Product code never
//     imports it.
//
// An arrow the house forbids that the code still has is listed as a debt
// in house_test.go, with the work that removes it; the test fails when a
// debt is paid and still listed, so the list only shrinks. None is left
// (the last, roll → quorum for the voters' judge, was paid by moving the
// judge into voters, a judge both use).
//
// Two rules are about the live side: the live reader and the test kit's admin
// oracle (internal/testkit/kafkatest) never import each other, so that the
// oracle stays an independent witness; and every request that writes to a
// cluster is sent from one named file, kafkaread/writes.go.
//
// Test files that start a JVM (fetch Kafka with Maven, run Kafka, ZooKeeper
// or one of Kafka's tools) are named *_kafka_test.go, all and only those.
package house
