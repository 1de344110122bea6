package zkdeps

import "testing"

// TestForeignPrefix: Kafka's own paths (every path ZkData.scala defines,
// and its containers) are never foreign; anything else is, from its
// first segment Kafka does not define.
func TestForeignPrefix(t *testing.T) {
	for _, tc := range []struct{ rel, want string }{
		{"/", ""},
		{"/admin", ""},
		{"/admin/delete_topics/orders", ""},
		{"/admin/reassign_partitions", ""},
		{"/admin/preferred_replica_election", ""},
		{"/admin/something_else", "/admin/something_else"},
		{"/brokers/ids/1", ""},
		{"/brokers/seqid", ""},
		{"/brokers/topics/orders", ""},
		{"/brokers/topics/orders/partitions/0/state", ""},
		{"/brokers/topics/orders/partitions/0/state/x", "/brokers/topics/orders/partitions/0/state/x"},
		{"/brokers/topics/orders/other", "/brokers/topics/orders/other"},
		{"/cluster/id", ""},
		{"/config/changes/config_change_0000000007", ""},
		{"/config/changes/config_change_x", "/config/changes/config_change_x"},
		{"/config/changes/config_change_", "/config/changes/config_change_"},
		{"/config/topics/orders", ""},
		{"/config/users/alice/clients/app", ""},
		{"/config/brokers/<default>", ""},
		{"/config/ips/127.0.0.1", ""},
		{"/config/client-metrics", "/config/client-metrics"},
		{"/consumers", ""},
		{"/consumers/legacy/offsets/orders/0", "/consumers/legacy"},
		{"/controller", ""},
		{"/controller_epoch", ""},
		{"/delegation_token/tokens/abc", ""},
		{"/delegation_token/token_changes/token_change_0000000000", ""},
		{"/feature", ""},
		{"/isr_change_notification/isr_change_0000000001", ""},
		{"/kafka-acl/Topic/orders", ""},
		{"/kafka-acl-changes/acl_changes_0000000001", ""},
		{"/kafka-acl-extended/prefixed/Topic/ord", ""},
		{"/kafka-acl-extended/literal", "/kafka-acl-extended/literal"},
		{"/kafka-acl-extended-changes/acl_changes_0000000001", ""},
		{"/latest_producer_id_block", ""},
		{"/log_dir_event_notification/log_dir_event_0000000001", ""},
		{"/migration", ""},
		{"/CruiseControlBrokerList", "/CruiseControlBrokerList"},
		{"/schema_registry/schema_registry_master", "/schema_registry"},
	} {
		got, foreign := foreignPrefix(tc.rel)
		if got != tc.want || foreign != (tc.want != "") {
			t.Errorf("foreignPrefix(%q) = %q, %v; want %q", tc.rel, got, foreign, tc.want)
		}
	}
}

func TestOwnerOf(t *testing.T) {
	for name, want := range map[string]string{
		"hbase": "Apache HBase", "hbase-unsecure": "Apache HBase", "solr": "Apache Solr (SolrCloud)",
		"live_nodes": "Apache Solr (SolrCloud without a chroot)", "hadoop-ha": "Apache Hadoop HDFS NameNode HA (ZKFailoverController)",
		"yarn-leader-election": "Apache Hadoop YARN ResourceManager HA (leader election)", "kafka-manager": "CMAK (Kafka Manager)",
		"CruiseControlBrokerList": "Cruise Control (failed broker list)", "burrow": "Burrow", "curator": "an Apache Curator application",
		"myapp": "", "hbasement": "",
	} {
		if got, _ := ownerOf(name); got != want {
			t.Errorf("ownerOf(%q) = %q, want %q", name, got, want)
		}
	}
}
