package zkdeps

// knownOwners are the systems known to keep state in ZooKeeper, by the
// name of the top-level znode they use (at the ensemble's root, or at the
// top of Kafka's chroot for the tools that connect with Kafka's connect
// string). Names are matched exactly. Where: the setting that moves or
// names the path, so the fix can say what to change.
//
// Sources: each project's documentation of its default path (HBase
// zookeeper.znode.parent /hbase, HDP's /hbase-unsecure and
// /hbase-secure; SolrCloud's chroot convention /solr and, without a
// chroot, its own top-level znodes; HDFS ZKFC ha.zookeeper.parent-znode
// /hadoop-ha; YARN yarn.resourcemanager.zk-state-store.parent-path
// /rmstore and the elector's /yarn-leader-election; CMAK
// kafka-manager.base-zk-path /kafka-manager; Cruise Control
// failed.brokers.zk.path /CruiseControlBrokerList; Burrow's
// [zookeeper] root-path, conventionally /burrow; Confluent Schema
// Registry's schema.registry.zk.namespace schema_registry; HiveServer2
// hive.server2.zookeeper.namespace hiveserver2; Flink
// high-availability.zookeeper.path.root /flink; and the defaults of
// Storm, Druid, ClickHouse, NiFi, Dubbo, BookKeeper, Accumulo, Mesos and
// Marathon). Curator has no default root; /curator is the name its
// recipes' examples use.
var knownOwners = []struct {
	Names []string
	Owner string
	Where string
}{
	{Names: []string{"hbase", "hbase-unsecure", "hbase-secure"}, Owner: "Apache HBase", Where: "hbase-site.xml zookeeper.znode.parent"},
	{Names: []string{"solr"}, Owner: "Apache Solr (SolrCloud)", Where: "Solr's zkHost chroot"},
	{Names: []string{"live_nodes", "collections", "configs", "overseer", "overseer_elect", "aliases.json", "clusterstate.json", "clusterprops.json", "security.json", "autoscaling.json"}, Owner: "Apache Solr (SolrCloud without a chroot)", Where: "Solr's zkHost (add a chroot such as /solr when moving it)"},
	{Names: []string{"hadoop-ha"}, Owner: "Apache Hadoop HDFS NameNode HA (ZKFailoverController)", Where: "core-site.xml ha.zookeeper.quorum and ha.zookeeper.parent-znode"},
	{Names: []string{"yarn-leader-election"}, Owner: "Apache Hadoop YARN ResourceManager HA (leader election)", Where: "yarn-site.xml hadoop.zk.address (yarn.resourcemanager.zk-address)"},
	{Names: []string{"rmstore"}, Owner: "Apache Hadoop YARN ResourceManager state store", Where: "yarn-site.xml yarn.resourcemanager.zk-state-store.parent-path"},
	{Names: []string{"kafka-manager"}, Owner: "CMAK (Kafka Manager)", Where: "CMAK's cmak.zkhosts / kafka-manager.zkhosts"},
	{Names: []string{"CruiseControlBrokerList"}, Owner: "Cruise Control (failed broker list)", Where: "cruisecontrol.properties failed.brokers.zk.path and zookeeper.connect (Cruise Control runs without ZooKeeper once kafka.broker.failure.detection.enable=true)"},
	{Names: []string{"burrow"}, Owner: "Burrow", Where: "burrow.toml [zookeeper] servers and root-path"},
	{Names: []string{"curator"}, Owner: "an Apache Curator application", Where: "the application's connect string"},
	{Names: []string{"schema_registry"}, Owner: "Confluent Schema Registry (ZooKeeper leader election)", Where: "schema-registry.properties kafkastore.connection.url (use kafkastore.bootstrap.servers)"},
	{Names: []string{"hiveserver2"}, Owner: "Apache Hive (HiveServer2 service discovery)", Where: "hive-site.xml hive.zookeeper.quorum and hive.server2.zookeeper.namespace"},
	{Names: []string{"flink"}, Owner: "Apache Flink (high availability)", Where: "flink-conf.yaml high-availability.zookeeper.quorum"},
	{Names: []string{"storm"}, Owner: "Apache Storm", Where: "storm.yaml storm.zookeeper.servers and storm.zookeeper.root"},
	{Names: []string{"druid"}, Owner: "Apache Druid", Where: "druid.zk.service.host and druid.zk.paths.base"},
	{Names: []string{"clickhouse"}, Owner: "ClickHouse (replicated tables)", Where: "ClickHouse's <zookeeper> configuration"},
	{Names: []string{"nifi"}, Owner: "Apache NiFi (cluster coordination)", Where: "nifi.properties nifi.zookeeper.connect.string and nifi.zookeeper.root.node"},
	{Names: []string{"dubbo"}, Owner: "Apache Dubbo (registry)", Where: "dubbo.registry.address"},
	{Names: []string{"ledgers"}, Owner: "Apache BookKeeper (or Pulsar's)", Where: "BookKeeper's metadataServiceUri / zkServers"},
	{Names: []string{"accumulo"}, Owner: "Apache Accumulo", Where: "accumulo.properties instance.zookeeper.host"},
	{Names: []string{"mesos"}, Owner: "Apache Mesos", Where: "Mesos's --zk"},
	{Names: []string{"marathon"}, Owner: "Marathon", Where: "Marathon's --zk"},
}

// ownerOf names the system known to own a top-level znode name, and the
// setting that names the path ("" when the name is not known).
func ownerOf(name string) (owner, where string) {
	for _, o := range knownOwners {
		for _, n := range o.Names {
			if name == n {
				return o.Owner, o.Where
			}
		}
	}
	return "", ""
}
