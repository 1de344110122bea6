#!/usr/bin/env bash
# Regenerates testdata/zk: a ZooKeeper data dir holding a real Kafka 3.9.2
# ZK-mode cluster, populated through Kafka's own admin tools, plus what those
# tools report about it (kafka-*.txt, the oracle for the unit tests).
#
# usage: KAFKA_LIB=/path/to/kafka-3.9.2/libs testdata/zk/generate.sh
#   KAFKA_LIB: a directory of jars holding kafka_2.13-3.9.2, kafka-tools-3.9.2,
#   zookeeper-3.8.4 and their dependencies (a Kafka 3.9.2 distribution's libs/,
#   or `mvn dependency:copy-dependencies` of kafka_2.13 + kafka-tools 3.9.2 +
#   slf4j-reload4j).
# Everything listens on 127.0.0.1; every process is stopped by PID on exit.
#
# ZooKeeper authenticates the brokers with SASL DIGEST-MD5 (user "kafka") and
# the brokers run with zookeeper.set.acl=true, so every znode they create is
# owned by sasl:kafka and the sensitive ones (/config/users, /config/brokers,
# /delegation_token/tokens and below) are not world-readable.
set -euo pipefail
# Kafka's tools print dates in the JVM's time zone; the tests read them as UTC.
export TZ=UTC
here=$(cd "$(dirname "$0")" && pwd)
: "${KAFKA_LIB:?set KAFKA_LIB to a directory of Kafka 3.9.2 jars}"
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	if [ -z "${KEEP_WORK:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

CP="$KAFKA_LIB/*"
cat >"$work/log4j.properties" <<EOF
log4j.rootLogger=WARN, F
log4j.appender.F=org.apache.log4j.FileAppender
log4j.appender.F.File=$work/java.log
log4j.appender.F.layout=org.apache.log4j.PatternLayout
log4j.appender.F.layout.ConversionPattern=%d %p %c %m%n
EOF
J=(java -Xms64m -Xmx384m -Dlog4j.configuration="file:$work/log4j.properties" -cp "$CP")
cat >"$work/zk-jaas.conf" <<EOF
Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required user_kafka="kafka-zk-secret";
};
EOF
cat >"$work/broker-jaas.conf" <<EOF
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required username="kafka" password="kafka-zk-secret";
};
EOF
# Clients of the SASL listener (delegation tokens need one): the PLAIN super user.
cat >"$work/admin.properties" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";
EOF

freeport() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
ZKP=$(freeport)

# ZooKeeper: small snapCount so the dir holds several snapshot/log pairs, and
# a small preallocation so the committed logs stay small.
mkdir -p "$work/zk"
cat >"$work/zoo.cfg" <<EOF
tickTime=2000
dataDir=$work/zk
clientPort=$ZKP
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
snapCount=100
4lw.commands.whitelist=srvr
authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider
EOF
startzk() {
	"${J[@]}" -Djava.security.auth.login.config="$work/zk-jaas.conf" -Dzookeeper.preAllocSize=16 "$@" org.apache.zookeeper.server.ZooKeeperServerMain "$work/zoo.cfg" >"$work/zk.out" 2>&1 &
	zkpid=$!
	pids+=("$zkpid")
	for _ in $(seq 300); do
		if timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$ZKP; printf srvr >&3; cat <&3" 2>/dev/null | grep -q '^Mode:'; then return; fi
		sleep 0.1
	done
	echo "zookeeper did not start" >&2
	exit 1
}
stopzk() {
	kill "$zkpid"
	for _ in $(seq 100); do kill -0 "$zkpid" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$zkpid"
}
startzk

declare -A bpid bport sport
startbroker() { # id rack
	local id=$1 rack=$2 p q s
	p=$(freeport)
	q=$(freeport)
	s=$(freeport)
	bport[$id]=$p
	sport[$id]=$s
	mkdir -p "$work/b$id"
	{
		echo "broker.id=$id"
		echo "listeners=PLAINTEXT://127.0.0.1:$p,INTERNAL://127.0.0.1:$q,SASL_PLAINTEXT://127.0.0.1:$s"
		echo "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT"
		echo "sasl.enabled.mechanisms=PLAIN"
		echo 'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";'
		echo "delegation.token.secret.key=kmeta-fixture-token-secret"
		echo "zookeeper.set.acl=true"
		# Small follower fetches, so a throttled new replica cannot catch up
		# in its first fetch (see the reassignment below).
		echo "replica.fetch.max.bytes=16384"
		echo "inter.broker.listener.name=PLAINTEXT"
		echo "zookeeper.connect=127.0.0.1:$ZKP/kafka/prod"
		echo "log.dirs=$work/b$id/logs"
		echo "offsets.topic.replication.factor=1"
		echo "transaction.state.log.replication.factor=1"
		echo "transaction.state.log.min.isr=1"
		echo "group.initial.rebalance.delay.ms=0"
		echo "authorizer.class.name=kafka.security.authorizer.AclAuthorizer"
		echo "allow.everyone.if.no.acl.found=true"
		echo "super.users=User:ANONYMOUS;User:admin"
		echo "zookeeper.session.timeout.ms=18000"
		[ -n "$rack" ] && echo "broker.rack=$rack"
	} >"$work/b$id/server.properties"
	"${J[@]}" -Djava.security.auth.login.config="$work/broker-jaas.conf" kafka.Kafka "$work/b$id/server.properties" >"$work/b$id/out" 2>&1 &
	bpid[$id]=$!
	pids+=("${bpid[$id]}")
	for _ in $(seq 600); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then return; fi
		sleep 0.1
	done
	echo "broker $id did not start" >&2
	exit 1
}
startbroker 1 rack-a
startbroker 2 rack-b
startbroker 3 ""
BS="127.0.0.1:${bport[1]}"
sleep 3

topics() { "${J[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" "$@"; }
configs() { "${J[@]}" kafka.admin.ConfigCommand --bootstrap-server "$BS" "$@"; }
acls() { "${J[@]}" kafka.admin.AclCommand --bootstrap-server "$BS" "$@"; }
reassign() { "${J[@]}" org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$BS" "$@"; }
tokens() { "${J[@]}" org.apache.kafka.tools.DelegationTokenCommand --bootstrap-server "127.0.0.1:${sport[1]}" --command-config "$work/admin.properties" "$@"; }

topics --create --topic orders.v1 --replica-assignment 1:2,2:3,3:1 --config retention.ms=86400000
topics --create --topic user_events --replica-assignment 1,2
topics --create --topic compacted --replica-assignment 1:2,2:1 --config cleanup.policy=compact --config min.insync.replicas=2
topics --create --topic doomed --replica-assignment 3

configs --alter --entity-type topics --entity-name orders.v1 --add-config max.message.bytes=2097152
configs --alter --entity-type brokers --entity-name 1 --add-config log.cleaner.threads=2
configs --alter --entity-type brokers --entity-default --add-config log.retention.ms=604800000,min.insync.replicas=1

configs --alter --entity-type users --entity-name alice --add-config producer_byte_rate=1024
configs --alter --entity-type users --entity-default --add-config consumer_byte_rate=2048
configs --alter --entity-type clients --entity-name client-1 --add-config request_percentage=50
configs --alter --entity-type clients --entity-default --add-config producer_byte_rate=4096
configs --alter --entity-type users --entity-name alice --entity-type clients --entity-name 'app 1*' --add-config consumer_byte_rate=512
configs --alter --entity-type users --entity-default --entity-type clients --entity-default --add-config request_percentage=25
configs --alter --entity-type users --entity-name 'CN=svc,O=acme' --add-config controller_mutation_rate=10
configs --alter --entity-type ips --entity-name 127.0.0.1 --add-config connection_creation_rate=10
configs --alter --entity-type ips --entity-default --add-config connection_creation_rate=100

configs --alter --entity-type users --entity-name alice --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]'
configs --alter --entity-type users --entity-name 'CN=svc,O=acme' --add-config 'SCRAM-SHA-512=[iterations=4096,password=svc-secret]'
configs --alter --entity-type users --entity-name carol --add-config 'SCRAM-SHA-256=[password=carol-secret]'

acls --add --allow-principal User:alice --operation Read --operation Describe --topic orders.v1
acls --add --deny-principal User:alice --deny-host 10.0.0.1 --operation Write --topic orders.v1
acls --add --allow-principal User:bob --operation Write --topic user_ --resource-pattern-type prefixed
acls --add --allow-principal User:alice --operation Read --group grp-1
acls --add --allow-principal User:admin --operation Alter --cluster
acls --add --allow-principal User:bob --operation Write --transactional-id tx- --resource-pattern-type prefixed

# An idempotent producer allocates a producer id block.
echo hello | "${J[@]}" kafka.tools.ConsoleProducer --bootstrap-server "$BS" --topic orders.v1 --producer-property enable.idempotence=true

# A delegation token owned by alice, requested by admin, renewable by carol.
# What the tool prints about it is the oracle (--describe as admin lists only
# admin's own tokens).
tokens --create --max-life-time-period -1 --owner-principal User:alice --renewer-principal User:carol >"$here/kafka-tokens.txt"

# A reassignment that stays in flight: orders.v1-0 moves from [1,2] to [1,3]
# (adding 3, removing 2) while broker 3's follower fetches of it are
# throttled to 1 byte/s, so the new replica never joins the ISR; broker 3 is
# stopped below, which freezes the state. Broker 3's dynamic config is
# recorded now, while it can still answer.
"${J[@]}" org.apache.kafka.tools.ProducerPerformance --topic orders.v1 --num-records 600 --record-size 1000 --throughput -1 \
	--producer-props bootstrap.servers="$BS" acks=1 >/dev/null
configs --alter --entity-type brokers --entity-name 3 --add-config follower.replication.throttled.rate=1
configs --alter --entity-type topics --entity-name orders.v1 --add-config follower.replication.throttled.replicas=0:3
echo '{"version":1,"partitions":[{"topic":"orders.v1","partition":0,"replicas":[1,3]}]}' >"$work/reassign.json"
reassign --reassignment-json-file "$work/reassign.json" --execute
sleep 5
configs --describe --entity-type brokers --entity-name 3 >"$work/broker3-configs.txt"

# A pending deletion: doomed lives only on broker 3; with broker 3 down the
# controller cannot finish deleting it, so /admin/delete_topics/doomed stays.
kill "${bpid[3]}"
for _ in $(seq 300); do kill -0 "${bpid[3]}" 2>/dev/null || break; sleep 0.1; done
topics --delete --topic doomed
# Partition increase (rack-aware assignment needs every live broker to have a rack).
topics --alter --topic user_events --partitions 4
sleep 3

# What Kafka itself reports: the oracle for the unit tests.
topics --describe --exclude-internal >"$here/kafka-topics.txt"
{
	configs --describe --entity-type topics
	configs --describe --entity-type brokers --entity-name 1
	cat "$work/broker3-configs.txt"
	configs --describe --entity-type brokers --entity-default
} >"$here/kafka-configs.txt"
{
	configs --describe --entity-type users
	configs --describe --entity-type clients
	configs --describe --entity-type users --entity-type clients
	configs --describe --entity-type ips
	configs --describe --entity-type ips --entity-default
} >"$here/kafka-quotas.txt"
acls --list >"$here/kafka-acls.txt"
reassign --list >"$here/kafka-reassignments.txt"

# Stop ZooKeeper under the running brokers, so the data dir keeps their
# ephemeral registrations and /controller, then stop the brokers.
stopzk
kill "${bpid[1]}" "${bpid[2]}"
sleep 1
kill -9 "${bpid[1]}" "${bpid[2]}" 2>/dev/null || true

# Compressed snapshots: restart on the same data with each compression
# method; a server writes a snapshot at startup. Stop before any session
# could expire.
mkdir -p "$work/gz" "$work/snappy"
for m in gz snappy; do
	startzk -Dzookeeper.snapshot.compression.method=$m
	sleep 0.5
	stopzk
	mv "$work"/zk/version-2/snapshot.*."$m" "$work/$m/"
done
# A last plain restart: the newest snapshot then covers every txn, and the
# older snapshot/log pairs stay for fallback tests.
startzk
sleep 0.5
stopzk

rm -rf "$here/datadir" "$here/compressed"
mkdir -p "$here/datadir" "$here/compressed"
cp -r "$work/zk/version-2" "$here/datadir/"
cp "$work"/gz/* "$work"/snappy/* "$here/compressed/"
ls -l "$here/datadir/version-2" "$here/compressed"
