// Package bench holds kmeta's side-by-side benchmarks against Kafka's own
// tools. They are not timed tests: `make bench` runs them (KMETA_BENCH=1),
// they print figures, and they fail only when a tool cannot do the job
// (Kafka cannot read what kmeta wrote, outputs disagree).
//
// Every row runs several times (KMETA_BENCH_RUNS, default 5: on a shared
// two-core machine one run in three can be a quarter slower than the
// others; twice when a run takes over a minute) and prints min/median/max
// and the peak RSS, next
// to its peer measured in the same run: Kafka's tool run with the JVM
// options of Kafka's own scripts (kafka-run-class.sh's defaults, not the
// test harness's quick-start settings), or a ceiling (reading the file and
// CRC-32C over it; a plain pipelined getData loop over every znode). The
// servers are run as Kafka's scripts run them too: the ZooKeeper the live
// rows read as zookeeper-server-start.sh does, Kafka's own migration as
// kafka-server-start.sh does (zkScriptJVMOpts, kafkaServerJVMOpts). The
// ratio is the peer's median over the row's. The table carries the date and
// the machine's load, since a shared machine's figures move with it. A
// row at the larger of two sizes says its growth over the smaller's (time
// and peak RSS by median; linear or better is at most the size ratio).
// Every row of every table is printed again at the end of the run, as the
// one table of `make bench` (TestMain; KMETA_BENCH_SUMMARY=FILE writes it
// to FILE too), with the median CPU time (user+sys) beside the wall time
// and, where the peer's CPU is measured too, the ratio of the CPU times:
// on a loaded machine the CPU moves less than the wall time.
//
// KMETA_BENCH_ROWS selects groups of rows (comma-separated; empty for
// all): log (log dump against Kafka's DumpLogSegments, and log check),
// check (only log check and its read+CRC ceiling: no JVM, seconds), image.
// KMETA_BENCH_DIR keeps the synthesized inputs there and reuses them in
// the next run.
//
// KMETA_BENCH_SCALE=small shrinks every input for a quick run while
// developing: a 64 MiB log, 100,000 and 10,000-partition snapshots, 100
// ZooKeeper topics.
//
// KMETA_BENCH_ZK_ROWS selects rows of TestBenchSideBySideZK (the live
// ZooKeeper read): "multiread" measures kmeta's `zk image` and the
// multiRead ceiling alone, interleaved, without the one-getData-per-znode
// ceiling (which takes most of the row's time) or Kafka's migration
// ("read" adds that ceiling, "settings" other --zk-* settings, "kafka"
// the migration):
//
//	make build && KMETA_BENCH=1 KMETA_BENCH_ZK_ROWS=multiread \
//		go test -count=1 -run 'TestBenchSideBySideZK$' -v ./internal/testkit/bench/
//
// KMETA_BENCH_ZK_HOLD=FILE keeps that ZooKeeper, its layout written, up
// until FILE is removed (FILE holds its zk:// source), for profiles and
// by-hand runs against the same tree; KMETA_BENCH_ZK_ROWS=none then
// measures nothing after it.
package bench
