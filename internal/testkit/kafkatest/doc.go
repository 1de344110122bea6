// Package kafkatest runs real Apache Kafka and ZooKeeper for tests: Kafka is
// the oracle kmeta's results are compared with.
//
// # Fetching
//
// Dist(t, version) returns a Distribution: the runtime classpath of one
// Kafka release (Latest4 = 4.4.0, Kafka39 = 3.9.2; Kafka27 = 2.7.2 for
// pre-topic-id ZooKeeper mode), resolved by Maven (`mvn dependency:copy-dependencies` on a generated pom naming kafka_2.13,
// kafka-tools without connect-runtime, kafka-shell where published, and the
// release's logging backend: Log4j 2 for 4.x, reload4j for 3.9). The result
// is cached in $KMETA_CACHE or ~/.cache/kmeta as kafka-<version>/. A flock
// serialises concurrent fetches and the finished directory appears by
// rename, with classpath.txt written last as its completion marker. The
// fetch checks that every tool's main class exists in the jars.
//
// Distribution.Schemas reads Kafka's JSON message schemas out of the
// release's jars (metadata records in kafka-metadata, QuorumStateData in
// kafka-raft, control records in kafka-clients), so schema checks need
// nothing outside the repository.
//
// Only java (17+) and mvn are needed. A JVM test skips only when
// KMETA_UNIT_ONLY=1 (SkipIfUnitOnly); a missing JVM or Maven fails it.
//
// # Tools
//
// Distribution.Tools names the main classes, which moved between 3.9 (Scala,
// kafka.tools.*, kafka.admin.*) and 4.x (Java, org.apache.kafka.tools.*):
// DumpLogSegments, StorageTool (kafka.tools.StorageTool in both),
// FeatureCommand, TopicCommand, ConfigCommand, MetadataQuorumCommand,
// MetadataShell (3.9 only: 4.4.0 has no kafka-shell artifact on Maven
// Central) and ZooKeeperServerMain (3.9 only). Run, MustRun, DumpLog and
// Format start them with C1-only, small-heap JVM options and log warnings to
// stderr, so stdout holds only the tool's output. RunEach and RunCalls run
// many runs of local or stateless tools in one JVM (the tool's own main per
// run, its streams captured, Kafka's Exit and argparse4j's System.exit
// trapped; TestRunEachAsSeparateJVMs holds them to what separate JVMs
// print): a cluster's formats, DescribeQuorum's three tools, the features
// tests' dozens of questions. On make test's two cores every JVM start is
// half a second of CPU.
//
// # Servers
//
// StartKRaft formats (kafka-storage format, with --release-version,
// --feature, --add-scram, --standalone as asked) and starts a combined or
// dedicated-controller cluster; StartZooKeeper and StartZKCluster start a
// ZooKeeper and ZooKeeper-mode 3.9 brokers under an optional chroot (a
// ZooKeeper is up once its srvr command answers: it serves only after it
// has loaded its data and written its start-up snapshot). All
// listen on free ports of 127.0.0.1 (below the kernel's ephemeral range,
// each locked across test processes until its chooser exits: ports.go)
// and live in a temporary directory, one
// subdirectory per node holding server.properties, server.log (the JVM's
// stdout and stderr, INFO level) and data/. Readiness is the log line
// "Kafka Server started" (KRaft) or "started (kafka.server.KafkaServer)"
// (ZooKeeper mode), then the admin API listing every broker.
//
// Nodes are stopped by PID: SIGTERM, a grace period, then SIGKILL. On Linux
// the JVMs also get SIGKILL if the test binary dies (Pdeathsig). t.Cleanup
// stops everything; on failure (or KMETA_KEEP=1) the directory is kept and
// its path and the last 50 lines of each server log are logged.
//
// With KRaftOptions.SSL, brokers also get TLS listeners (SSL; MTLS, which
// requires a client certificate; SSLALT on 127.0.0.2, a name the server
// certificate does not carry; SASL_SSL with SASL). MakeTLS makes their
// certificates in the test with the JDK's keytool (found beside the java
// the harness runs): a CA, server and client certificates, PEM, JKS and
// PKCS12 trust stores and JKS and PKCS12 key stores (Cluster.TLS); keytool
// runs once per store type in a test process, and later clusters get
// copies of its files.
// KRaftOptions.SCRAMUsers adds SCRAM-SHA-512 and SCRAM-SHA-256 users at
// format time. Cluster.ClientProperties writes Kafka's client settings
// (client.properties) for each ClientKind and BootstrapFor names the
// listener it fits, for tests of kmeta's kafka:// source.
//
// Clients use franz-go: Cluster.Client and Cluster.Admin connect as the PLAIN
// super user "admin" over SASL_PLAINTEXT when the cluster has SASL, and over
// PLAINTEXT otherwise. CaptureAdminView records what the admin API reports
// in the AdminView JSON shape used by the fixtures' admin.json. It asks
// every broker for SCRAM credentials, because a restarted KRaft broker can
// lose one from its image (Kafka's ScramDelta.apply; see
// testdata/kraft/README.md and TestKafkaSCRAMImageAfterRestart).
//
// # Online migration
//
// StartTraffic runs an idempotent acks=all producer and a committing
// consumer group member in the background (topic RF 3, min.insync 2) that
// live through restarts; Stop drains and reports what was acknowledged and
// consumed (TrafficResult.Problems: an acknowledged record not consumed,
// a committed offset short of the end). StageRunner performs the steps
// `kmeta migrate stage` and `rollback` print (install-metadata-dir, start,
// restart, stop, wait, zookeeper, delete-metadata-dir) on a Cluster: a
// started node runs the staged server.properties byte for byte
// (Node.ConfigSource), a "zookeeper" step runs ZooKeeper's CLI as
// zookeeper-shell.sh does with the connect string the printed command
// names, and each broker (re)start waits for full ISRs (WaitInSync), unless
// StageRunner.Kmeta is set: then the runner performs kmeta's gates
// (roll-check asked again while it exits 1, roll-wait, roll-plan's order)
// and waits for nothing of its own. TrafficOptions.Probe adds an acks=all
// producer that never retries, whose refusals (NOT_ENOUGH_REPLICAS while
// an ISR is under min.insync.replicas) its retrying sibling would hide;
// Cluster.ProduceProbe is one such round. Old
// 3.x releases (3.4.1, Kafka35 = 3.5.2, 3.6.2) are known for the server,
// the storage tool and ZooKeeper only.
//
// # Fixtures
//
// TestGenerateFixtures (go test -run TestGenerateFixtures -args -generate,
// or `make fixtures`) writes testdata/kraft; testdata/kraft/README.md says
// what it contains. TestFixtureDumps checks the committed dumps against
// DumpLogSegments.
package kafkatest
