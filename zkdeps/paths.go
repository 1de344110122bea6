package zkdeps

import (
	"strings"
)

// kafkaPaths are the znodes Kafka 3.9 defines, relative to its chroot:
// every path Kafka's brokers and KRaft controllers (in a migration) ever
// write, and every path above one of them (its containers). A segment
// "*" is any name; a segment ending in "#" is a sequential znode: the
// prefix and ZooKeeper's 10-digit counter.
//
// Source of truth: Kafka 3.9.2's kafka/zk/ZkData.scala (read from the
// kafka_2.13-3.9.2 jar: the *ZNode objects, ZkAclStore's
// LiteralAclStore and ExtendedAclStore, ZkAclChangeStore's change
// stores, ZkData.PersistentZkPaths) and ConfigType.ALL of
// server-common (topics, clients, users, brokers, ips); the same list is
// §5 of the reference (kafka-metadata.md). /consumers is Kafka's
// (ConsumerPathZNode, a persistent path every broker creates), but
// nothing below it: only the old ZooKeeper-based consumer, removed in
// Kafka 2.0, wrote there.
var kafkaPaths = []string{
	"/admin/delete_topics/*",
	"/admin/preferred_replica_election",
	"/admin/reassign_partitions",
	"/brokers/ids/*",
	"/brokers/seqid",
	"/brokers/topics/*/partitions/*/state",
	"/cluster/id",
	"/config/brokers/*",
	"/config/changes/config_change_#",
	"/config/clients/*",
	"/config/ips/*",
	"/config/topics/*",
	"/config/users/*/clients/*",
	"/consumers",
	"/controller",
	"/controller_epoch",
	"/delegation_token/token_changes/token_change_#",
	"/delegation_token/tokens/*",
	"/feature",
	"/isr_change_notification/isr_change_#",
	"/kafka-acl-changes/acl_changes_#",
	"/kafka-acl-extended-changes/acl_changes_#",
	"/kafka-acl-extended/prefixed/*/*",
	"/kafka-acl/*/*",
	"/latest_producer_id_block",
	"/log_dir_event_notification/log_dir_event_#",
	"/migration",
}

// kafkaAreas name what a write to a part of Kafka's tree is, for a
// session that is not Kafka's: the first prefix that matches a path
// (relative to the chroot) wins. Tools says who writes there besides
// Kafka itself.
var kafkaAreas = []struct {
	Prefix, Area, Tools string
}{
	{"/config/changes", "config change notifications", "kafka-configs --zookeeper, CMAK"},
	{"/config", "configs", "kafka-configs --zookeeper, CMAK"},
	{"/admin/delete_topics", "topic deletions", "kafka-topics --zookeeper (Kafka before 3.0), CMAK"},
	{"/admin/reassign_partitions", "partition reassignments", "kafka-reassign-partitions --zookeeper, CMAK, Cruise Control with ZooKeeper"},
	{"/admin/preferred_replica_election", "preferred leader elections", "kafka-preferred-replica-election, CMAK"},
	{"/admin", "admin requests", "Kafka's --zookeeper tools"},
	{"/kafka-acl-changes", "ACL change notifications", "kafka-acls --authorizer-properties zookeeper.connect=..."},
	{"/kafka-acl-extended-changes", "ACL change notifications", "kafka-acls --authorizer-properties zookeeper.connect=..."},
	{"/kafka-acl-extended", "ACLs", "kafka-acls --authorizer-properties zookeeper.connect=..."},
	{"/kafka-acl", "ACLs", "kafka-acls --authorizer-properties zookeeper.connect=..."},
	{"/isr_change_notification", "ISR change notifications", "a tool posing as a broker"},
	{"/log_dir_event_notification", "log dir event notifications", "a tool posing as a broker"},
	{"/delegation_token", "delegation tokens", "a tool writing tokens directly"},
	{"/brokers/topics", "topics", "kafka-topics --zookeeper (Kafka before 3.0), CMAK"},
	{"/consumers", "old consumer offsets and registrations", "the old ZooKeeper-based consumer (Kafka before 2.0), Burrow or CMAK reading them"},
	{"/", "Kafka's control znodes", "a tool writing Kafka's own state"},
}

// pathNode is one segment of the tree of Kafka's paths.
type pathNode struct {
	kids map[string]*pathNode
	any  *pathNode            // "*"
	seq  map[string]*pathNode // "prefix#": prefix → node
}

var kafkaTree = buildPaths(kafkaPaths)

func buildPaths(paths []string) *pathNode {
	root := &pathNode{}
	for _, p := range paths {
		n := root
		for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			switch {
			case seg == "*":
				if n.any == nil {
					n.any = &pathNode{}
				}
				n = n.any
			case strings.HasSuffix(seg, "#"):
				if n.seq == nil {
					n.seq = map[string]*pathNode{}
				}
				pre := strings.TrimSuffix(seg, "#")
				if n.seq[pre] == nil {
					n.seq[pre] = &pathNode{}
				}
				n = n.seq[pre]
			default:
				if n.kids == nil {
					n.kids = map[string]*pathNode{}
				}
				if n.kids[seg] == nil {
					n.kids[seg] = &pathNode{}
				}
				n = n.kids[seg]
			}
		}
	}
	return root
}

// next is the node a segment leads to, nil when Kafka defines none.
func (n *pathNode) next(seg string) *pathNode {
	if k := n.kids[seg]; k != nil {
		return k
	}
	for pre, k := range n.seq {
		if sequential(seg, pre) {
			return k
		}
	}
	return n.any
}

// sequential says whether name is prefix followed by a sequential
// znode's counter (ZooKeeper appends 10 digits; an overflowed counter
// goes negative, so a sign is accepted).
func sequential(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return false
	}
	rest = strings.TrimPrefix(rest, "-")
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return false
		}
	}
	return rest != ""
}

// foreignPrefix returns, for a path relative to Kafka's chroot, the
// path up to and including its first segment Kafka does not define ("",
// false when Kafka defines the whole path). Below /consumers every name
// is foreign: the group is /consumers/<group>.
func foreignPrefix(rel string) (string, bool) {
	if rel == "/" {
		return "", false
	}
	n := kafkaTree
	end := 0
	for end < len(rel) {
		start := end + 1
		end = strings.IndexByte(rel[start:], '/')
		if end < 0 {
			end = len(rel)
		} else {
			end += start
		}
		if n = n.next(rel[start:end]); n == nil {
			return rel[:end], true
		}
	}
	return "", false
}

// kafkaArea names the part of Kafka's tree a relative path is in (see
// kafkaAreas).
func kafkaArea(rel string) (area, tools string) {
	for _, a := range kafkaAreas {
		if a.Prefix == "/" || rel == a.Prefix || strings.HasPrefix(rel, a.Prefix+"/") {
			return a.Area, a.Tools
		}
	}
	return "", ""
}
