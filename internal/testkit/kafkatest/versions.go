package kafkatest

import (
	"fmt"
	"strings"
)

// The Kafka releases the project tests against. Every other file names a
// version through these constants, so moving to a newer release is one edit
// here plus `make fixtures`.
const (
	// Latest4 is the newest Kafka 4.x release on Maven Central.
	Latest4 = "4.4.0"
	// Kafka39 is the last 3.9 release: the last line with ZooKeeper mode and
	// the ZooKeeper to KRaft migration.
	Kafka39 = "3.9.2"
	// Kafka27 is the last release before topic ids (2.8): a ZooKeeper-mode
	// 2.7 cluster writes topic znodes without topic_id. It ships no
	// kafka-tools artifact; its admin tools are kafka.admin.* in kafka_2.13.
	// Use Kafka39's ZooKeeper with it (Tools.ZooKeeper is empty).
	Kafka27 = "2.7.2"
	// Kafka35 is the oldest release whose ZooKeeper to KRaft migration the
	// online-migration walk runs (3.4 had it as an early-access preview).
	Kafka35 = "3.5.2"
)

// Versions lists the KRaft-capable releases the harness tests against,
// oldest first (Kafka27 can be fetched too, but is not a KRaft release).
var Versions = []string{Kafka39, Latest4}

// Tools names the main classes of one Kafka release. Several tools moved from
// Scala (package kafka.*) to Java (org.apache.kafka.tools.*) between 3.9 and
// 4.x, so tests must not hard-code them.
type Tools struct {
	Kafka          string // the server: kafka.Kafka <server.properties>
	DumpLog        string // kafka-dump-log.sh
	Storage        string // kafka-storage.sh (format, info, random-uuid)
	Features       string // kafka-features.sh
	Topics         string // kafka-topics.sh
	Configs        string // kafka-configs.sh
	Acls           string // kafka-acls.sh
	MetadataQuorum string // kafka-metadata-quorum.sh
	// LeaderElection, Reassign and APIVersions are
	// kafka-leader-election.sh, kafka-reassign-partitions.sh and
	// kafka-broker-api-versions.sh: in kafka.admin until 3.6, moved to
	// org.apache.kafka.tools one by one after (the classes as each
	// release's jars hold them).
	LeaderElection string
	Reassign       string
	APIVersions    string
	// ConsumerGroups is kafka-consumer-groups.sh (kafka.admin until 3.6,
	// then org.apache.kafka.tools.consumer.group).
	ConsumerGroups string
	// MetadataShell is kafka-metadata-shell.sh. It is empty when the release
	// has no kafka-shell artifact on Maven Central (4.4.0 has none).
	MetadataShell string
	// ZooKeeper is ZooKeeperServerMain; set only for releases that ship
	// ZooKeeper (3.x).
	ZooKeeper string
	// ZooKeeperShell is what zookeeper-shell.sh runs (ZooKeeper's CLI with
	// Kafka's TLS options); set only for releases that ship ZooKeeper.
	ZooKeeperShell string
}

// release describes how to fetch one Kafka version with Maven.
type release struct {
	version string
	tools   Tools
	// deps are extra <dependency> elements besides kafka_2.13 and kafka-tools.
	deps []mavenDep
	// log4j2 is true when the release logs through Log4j 2 (4.x); false
	// means Log4j 1 API through reload4j (3.x).
	log4j2 bool
	// zk is true when the release has ZooKeeper mode.
	zk bool
	// noToolsArtifact: the release predates the kafka-tools artifact.
	noToolsArtifact bool
}

type mavenDep struct{ group, artifact, version string }

// releases: the artifact lists mirror what the binary distributions put in
// libs/ for the server, the tools and the metadata shell; connect-runtime is
// left out (kafka-tools depends on it only for Connect's tools).
var releases = map[string]release{
	Latest4: {
		version: Latest4,
		tools: Tools{
			Kafka:          "kafka.Kafka",
			DumpLog:        "org.apache.kafka.tools.DumpLogSegments",
			Storage:        "kafka.tools.StorageTool",
			Features:       "org.apache.kafka.tools.FeatureCommand",
			Topics:         "org.apache.kafka.tools.TopicCommand",
			Configs:        "org.apache.kafka.tools.ConfigCommand",
			Acls:           "org.apache.kafka.tools.AclCommand",
			MetadataQuorum: "org.apache.kafka.tools.MetadataQuorumCommand",
			LeaderElection: "org.apache.kafka.tools.LeaderElectionCommand",
			Reassign:       "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
			APIVersions:    "org.apache.kafka.tools.BrokerApiVersionsCommand",
			ConsumerGroups: "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
		},
		deps: []mavenDep{
			// 4.x distributions log through Log4j 2; Kafka itself uses the
			// SLF4J 1.7 API, hence log4j-slf4j-impl (not slf4j2-impl).
			{"org.apache.logging.log4j", "log4j-core", "2.25.5"},
			{"org.apache.logging.log4j", "log4j-slf4j-impl", "2.25.5"},
		},
		log4j2: true,
	},
	Kafka39: {
		version: Kafka39,
		tools: Tools{
			Kafka:          "kafka.Kafka",
			DumpLog:        "kafka.tools.DumpLogSegments",
			Storage:        "kafka.tools.StorageTool",
			Features:       "org.apache.kafka.tools.FeatureCommand",
			Topics:         "org.apache.kafka.tools.TopicCommand",
			Configs:        "kafka.admin.ConfigCommand",
			Acls:           "kafka.admin.AclCommand",
			MetadataQuorum: "org.apache.kafka.tools.MetadataQuorumCommand",
			LeaderElection: "org.apache.kafka.tools.LeaderElectionCommand",
			Reassign:       "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
			APIVersions:    "kafka.admin.BrokerApiVersionsCommand",
			ConsumerGroups: "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
			MetadataShell:  "org.apache.kafka.shell.MetadataShell",
			ZooKeeper:      "org.apache.zookeeper.server.ZooKeeperServerMain",
			ZooKeeperShell: "org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka",
		},
		deps: []mavenDep{
			{"org.apache.kafka", "kafka-shell", Kafka39},
			// 3.9 distributions ship slf4j-reload4j with reload4j 1.2.25.
			{"org.slf4j", "slf4j-reload4j", "1.7.36"},
			{"ch.qos.reload4j", "reload4j", "1.2.25"},
		},
		zk: true,
	},
	// The old 3.x lines run only ZooKeeper-mode brokers, their controllers
	// and ZooKeeper in the tests (the online migration walk); of their
	// admin tools, ConfigCommand (SCRAM users made in ZooKeeper before the
	// brokers start) and those the fixes kmeta prints after the walk run.
	Kafka35: old3(Kafka35),
	"3.4.1": old3("3.4.1"),
	"3.6.2": old3("3.6.2"),
	Kafka27: {
		version: Kafka27,
		tools: Tools{
			Kafka:          "kafka.Kafka",
			DumpLog:        "kafka.tools.DumpLogSegments",
			Topics:         "kafka.admin.TopicCommand",
			Configs:        "kafka.admin.ConfigCommand",
			LeaderElection: "kafka.admin.LeaderElectionCommand",
			Reassign:       "kafka.admin.ReassignPartitionsCommand",
			APIVersions:    "kafka.admin.BrokerApiVersionsCommand",
			ConsumerGroups: "kafka.admin.ConsumerGroupCommand",
		},
		deps: []mavenDep{
			// 2.7 distributions log through slf4j-log4j12 and log4j 1.2.17.
			{"org.slf4j", "slf4j-log4j12", "1.7.30"},
		},
		zk:              true,
		noToolsArtifact: true,
	},
}

// old3 is an older 3.x release: the server, the storage tool, ZooKeeper
// and its CLI, the admin tools in kafka.admin (3.5.2's jar), logging through slf4j-reload4j as 3.9's distributions do.
func old3(version string) release {
	return release{
		version: version,
		tools: Tools{
			Kafka:          "kafka.Kafka",
			DumpLog:        "kafka.tools.DumpLogSegments",
			Storage:        "kafka.tools.StorageTool",
			Configs:        "kafka.admin.ConfigCommand",
			LeaderElection: "kafka.admin.LeaderElectionCommand",
			Reassign:       "kafka.admin.ReassignPartitionsCommand",
			APIVersions:    "kafka.admin.BrokerApiVersionsCommand",
			ConsumerGroups: "kafka.admin.ConsumerGroupCommand",
			ZooKeeper:      "org.apache.zookeeper.server.ZooKeeperServerMain",
			ZooKeeperShell: "org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka",
		},
		deps: []mavenDep{
			{"org.slf4j", "slf4j-reload4j", "1.7.36"},
			{"ch.qos.reload4j", "reload4j", "1.2.25"},
		},
		zk:              true,
		noToolsArtifact: true,
	}
}

func lookupRelease(version string) (release, error) {
	r, ok := releases[version]
	if !ok {
		return release{}, fmt.Errorf("kafkatest: unknown Kafka version %q (known: %s)", version, strings.Join(Versions, ", "))
	}
	return r, nil
}

// pom renders the throw-away Maven project whose only job is to resolve the
// release's runtime classpath.
func (r release) pom() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.kmeta.kafkatest</groupId>
  <artifactId>kafka-dist</artifactId>
  <version>` + r.version + `</version>
  <packaging>pom</packaging>
  <dependencies>
`)
	dep := func(d mavenDep, exclusions string) {
		fmt.Fprintf(&b, "    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version>%s</dependency>\n",
			d.group, d.artifact, d.version, exclusions)
	}
	dep(mavenDep{"org.apache.kafka", "kafka_2.13", r.version}, "")
	if !r.noToolsArtifact {
		dep(mavenDep{"org.apache.kafka", "kafka-tools", r.version},
			"<exclusions><exclusion><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId></exclusion></exclusions>")
	}
	for _, d := range r.deps {
		dep(d, "")
	}
	b.WriteString("  </dependencies>\n</project>\n")
	return b.String()
}

// serverLogConfig returns the logging configuration for servers: INFO to
// stdout, which the harness sends to the node's server.log.
func (r release) serverLogConfig() (name, body string) {
	return r.logConfig("INFO", "SYSTEM_OUT")
}

// toolLogConfig returns the logging configuration for command-line tools:
// warnings only, on stderr, so a tool's stdout holds only its output.
func (r release) toolLogConfig() (name, body string) {
	return r.logConfig("WARN", "SYSTEM_ERR")
}

func (r release) logConfig(level, target string) (name, body string) {
	suffix := "server"
	if target == "SYSTEM_ERR" {
		suffix = "tools"
	}
	if r.log4j2 {
		return "log4j2-" + suffix + ".properties", `status = warn
appender.console.type = Console
appender.console.name = CONSOLE
appender.console.target = ` + target + `
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = ` + level + `
rootLogger.appenderRef.console.ref = CONSOLE
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = INFO
logger.request.name = kafka.request.logger
logger.request.level = WARN
`
	}
	t := "System.out"
	if target == "SYSTEM_ERR" {
		t = "System.err"
	}
	return "log4j-" + suffix + ".properties", `log4j.rootLogger=` + level + `, console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.Target=` + t + `
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
`
}
