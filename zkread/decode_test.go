package zkread

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta/kmeta/model"
)

// tree builds a Tree from path -> data ("\x00nil" for null data); parents
// are created with null data. versions sets data versions, czxids czxids.
func tree(nodes map[string]string, versions map[string]int32, czxids map[string]int64) *Tree {
	t := NewTree()
	var add func(p string)
	add = func(p string) {
		if t.nodes[p] != nil {
			return
		}
		t.nodes[p] = &Node{}
		if p == "/" {
			return
		}
		i := strings.LastIndexByte(p, '/')
		parent := p[:i]
		if parent == "" {
			parent = "/"
		}
		add(parent)
		t.nodes[parent].Children = append(t.nodes[parent].Children, p[i+1:])
		slices.Sort(t.nodes[parent].Children)
	}
	for p, d := range nodes {
		add(p)
		if d != "\x00nil" {
			t.nodes[p].Data = []byte(d)
		}
		t.nodes[p].Stat.Version = versions[p]
		t.nodes[p].Stat.Czxid = czxids[p]
	}
	return t
}

const topicID = "vKw_XjiOThejrhgwsgciOw"

func TestDecodeBrokerVersions(t *testing.T) {
	tr := tree(map[string]string{
		"/brokers/ids/1": `{"version":1,"host":"h1","port":9092,"jmx_port":-1,"timestamp":"1"}`,
		"/brokers/ids/2": `{"version":2,"host":"h2","port":9092,"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://h2:9092"]}`,
		"/brokers/ids/3": `{"version":4,"host":null,"port":-1,"jmx_port":-1,"timestamp":"1","endpoints":["INTERNAL://[::1]:9093","EXTERNAL://h3:9094"],"listener_security_protocol_map":{"INTERNAL":"SASL_SSL","EXTERNAL":"SSL"},"rack":null}`,
		"/brokers/ids/4": `{"version":5,"host":"h4","port":9092,"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://h4:9092"],"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"rack":"r1","features":{"b":{"min_version":0,"max_version":1},"a":{"min_version":1,"max_version":2}}}`,
	}, nil, map[string]int64{"/brokers/ids/1": 11, "/brokers/ids/2": 12, "/brokers/ids/3": 13, "/brokers/ids/4": 14})
	img, err := Decode(tr, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r1 := "r1"
	want := map[int32]*model.Broker{
		1: {ID: 1, Epoch: 11, Endpoints: []model.Endpoint{{Name: "PLAINTEXT", Host: "h1", Port: 9092}}},
		2: {ID: 2, Epoch: 12, Endpoints: []model.Endpoint{{Name: "PLAINTEXT", Host: "h2", Port: 9092}}},
		3: {ID: 3, Epoch: 13, Endpoints: []model.Endpoint{{Name: "INTERNAL", Host: "::1", Port: 9093, SecurityProtocol: 3}, {Name: "EXTERNAL", Host: "h3", Port: 9094, SecurityProtocol: 1}}},
		4: {ID: 4, Epoch: 14, Rack: &r1, Endpoints: []model.Endpoint{{Name: "PLAINTEXT", Host: "h4", Port: 9092}},
			Features: []model.FeatureRange{{Name: "a", Min: 1, Max: 2}, {Name: "b", Min: 0, Max: 1}}},
	}
	if d := cmp.Diff(want, img.Brokers); d != "" {
		t.Error(d)
	}
}

func TestDecodeTopicsAndPartitions(t *testing.T) {
	tr := tree(map[string]string{
		// 2.4-2.7 topic (version 2): no topic_id, a reassignment in flight.
		"/brokers/topics/old":                    `{"version":2,"partitions":{"0":[1,2,3],"1":[2]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[1]}}`,
		"/brokers/topics/old/partitions/0/state": `{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":7,"isr":[2,1],"leader_recovery_state":1}`,
		// partition 1 has no state znode.
		"/brokers/topics/new":                    `{"version":3,"partitions":{"0":[5]},"topic_id":"` + topicID + `"}`,
		"/brokers/topics/new/partitions/0/state": `{"controller_epoch":5,"leader":-1,"version":1,"leader_epoch":2,"isr":[]}`,
		"/admin/delete_topics/new":               "\x00nil",
	}, map[string]int32{"/brokers/topics/old/partitions/0/state": 9, "/brokers/topics/new/partitions/0/state": 4}, nil)
	img, err := Decode(tr, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := model.ParseUUID(topicID)
	mig := func(n int) []model.UUID { return make([]model.UUID, n) }
	want := map[string]*model.Topic{
		"old": {Name: "old", Partitions: map[int32]*model.Partition{
			0: {ID: 0, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 1}, AddingReplicas: []int32{3}, RemovingReplicas: []int32{1},
				Leader: 2, LeaderEpoch: 7, PartitionEpoch: 9, LeaderRecoveryState: model.Recovering, Directories: mig(3)},
			1: {ID: 1, Replicas: []int32{2}, ISR: []int32{2}, AddingReplicas: []int32{}, RemovingReplicas: []int32{},
				Leader: 2, Directories: mig(1)},
		}},
		"new": {Name: "new", ID: id, Partitions: map[int32]*model.Partition{
			0: {ID: 0, Replicas: []int32{5}, ISR: []int32{}, AddingReplicas: []int32{}, RemovingReplicas: []int32{},
				Leader: -1, LeaderEpoch: 2, PartitionEpoch: 4, Directories: mig(1)},
		}},
	}
	if d := cmp.Diff(want, img.Topics, cmp.AllowUnexported(model.Topic{}), cmp.Comparer(func(a, b map[int32]*model.Partition) bool { return cmp.Equal(a, b) })); d != "" {
		t.Error(d)
	}
	if !slices.Equal(img.ZK.MissingPartitionStates, []string{"old-1"}) || !slices.Equal(img.ZK.PendingTopicDeletions, []string{"new"}) {
		t.Errorf("missing %v pending %v", img.ZK.MissingPartitionStates, img.ZK.PendingTopicDeletions)
	}
	// The highest controller epoch that wrote a state (a missing state
	// writes none).
	if img.ZK.MaxStateControllerEpoch != 5 {
		t.Errorf("max state controller epoch %d, want 5", img.ZK.MaxStateControllerEpoch)
	}
}

// TestDecodeWarnsOfIllegalTopicNames: a /brokers/topics znode naming a
// topic as no Kafka does is decoded as the tree holds it and warned of
// at its znode, the name escaped; a legal name is not.
func TestDecodeWarnsOfIllegalTopicNames(t *testing.T) {
	topic := `{"version":2,"partitions":{"0":[1]}}`
	tr := tree(map[string]string{
		"/brokers/topics/orders.v1": topic,
		"/brokers/topics/a b$(x)":   topic,
		"/brokers/topics/t\x07":     topic,
	}, nil, nil)
	img, err := Decode(tr, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range img.Warnings {
		if w.Code == model.WarnTopicNameIllegal {
			got = append(got, w.Where.Znode+" | "+w.Message)
		}
	}
	want := []string{
		"/brokers/topics/a b$(x) | topic \"a b$(x)\": no Kafka accepts this name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'): the source was not written by Kafka",
		"/brokers/topics/t\x07 | topic \"t\\a\": no Kafka accepts this name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'): the source was not written by Kafka",
	}
	if len(img.Topics) != 3 || !slices.Equal(got, want) {
		t.Errorf("%d topics; warnings:\n%s\nwant:\n%s", len(img.Topics), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDecodeConfigsQuotasScram(t *testing.T) {
	tr := tree(map[string]string{
		"/config/topics/t":                          `{"version":1,"config":{"retention.ms":"1"}}`,
		"/config/topics/empty":                      `{"version":1,"config":{}}`,
		"/config/brokers/<default>":                 `{"version":1,"config":{"a":"b"}}`,
		"/config/brokers/3":                         `{"version":1,"config":{"c":"d"}}`,
		"/config/users/CN%3Dsvc%2CO%3Dacme":         `{"version":1,"config":{"producer_byte_rate":"1024","SCRAM-SHA-512":"salt=AAE=,stored_key=AgM=,server_key=BAU=,iterations=4096"}}`,
		"/config/users/<default>":                   `{"version":1,"config":{"consumer_byte_rate":"2e3"}}`,
		"/config/users/<default>/clients/<default>": `{"version":1,"config":{"request_percentage":"25.5"}}`,
		"/config/users/a%2Ab/clients/app%201%2A":    `{"version":1,"config":{"consumer_byte_rate":"512"}}`,
		"/config/clients/c+d":                       `{"version":1,"config":{"producer_byte_rate":"NaN"}}`,
		"/config/ips/<default>":                     `{"version":1,"config":{"connection_creation_rate":"100"}}`,
		"/config/ips/10.0.0.1":                      `{"version":1,"config":{"connection_creation_rate":"10"}}`,
		"/config/ips/2001%3Adb8%3A%3A1":             `{"version":1,"config":{"connection_creation_rate":"5"}}`,
		"/config/changes/config_change_0000000001":  `{"version":2,"entity_path":"topics/t"}`,
		"/config/users/a%2Ab":                       "\x00nil",
	}, nil, nil)
	img, err := Decode(tr, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantCfg := map[model.ConfigResource]map[string]string{
		{Type: model.ConfigTopic, Name: "t"}:  {"retention.ms": "1"},
		{Type: model.ConfigBroker, Name: ""}:  {"a": "b"},
		{Type: model.ConfigBroker, Name: "3"}: {"c": "d"},
	}
	if d := cmp.Diff(wantCfg, img.Configs); d != "" {
		t.Error(d)
	}
	s := func(v string) *string { return &v }
	wantQ := []*model.ClientQuota{
		{Entity: []model.QuotaEntityPart{{Type: "user", Name: s("CN=svc,O=acme")}}, Values: map[string]float64{"producer_byte_rate": 1024}},
		{Entity: []model.QuotaEntityPart{{Type: "user"}}, Values: map[string]float64{"consumer_byte_rate": 2000}},
		{Entity: []model.QuotaEntityPart{{Type: "user"}, {Type: "client-id"}}, Values: map[string]float64{"request_percentage": 25.5}},
		{Entity: []model.QuotaEntityPart{{Type: "user", Name: s("a*b")}, {Type: "client-id", Name: s("app 1*")}}, Values: map[string]float64{"consumer_byte_rate": 512}},
		{Entity: []model.QuotaEntityPart{{Type: "ip"}}, Values: map[string]float64{"connection_creation_rate": 100}},
		{Entity: []model.QuotaEntityPart{{Type: "ip", Name: s("10.0.0.1")}}, Values: map[string]float64{"connection_creation_rate": 10}},
		// Sanitized in ZooKeeper like user and client-id names.
		{Entity: []model.QuotaEntityPart{{Type: "ip", Name: s("2001:db8::1")}}, Values: map[string]float64{"connection_creation_rate": 5}},
	}
	if len(img.ClientQuotas) != len(wantQ)+1 {
		t.Errorf("%d quotas", len(img.ClientQuotas))
	}
	for _, q := range wantQ {
		got := img.ClientQuotas[model.QuotaEntityKey(q.Entity)]
		if d := cmp.Diff(q, got); d != "" {
			t.Errorf("%s: %s", model.QuotaEntityKey(q.Entity), d)
		}
	}
	// "c+d" desanitizes to "c d" (Java's URLDecoder); NaN is a Java double.
	if q := img.ClientQuotas[model.QuotaEntityKey([]model.QuotaEntityPart{{Type: "client-id", Name: s("c d")}})]; q == nil || !math.IsNaN(q.Values["producer_byte_rate"]) {
		t.Errorf("client c d: %+v", q)
	}
	wantS := map[model.ScramKey]*model.ScramCredential{
		{User: "CN=svc,O=acme", Mechanism: 2}: {User: "CN=svc,O=acme", Mechanism: 2, Salt: []byte{0, 1}, StoredKey: []byte{2, 3}, ServerKey: []byte{4, 5}, Iterations: 4096},
	}
	if d := cmp.Diff(wantS, img.SCRAM); d != "" {
		t.Error(d)
	}
	if img.ZK.Notifications["config_change"] != 1 || len(img.ZK.Raw) != 0 {
		t.Errorf("notifications %v raw %v", img.ZK.Notifications, img.ZK.Raw)
	}
}

func TestDecodeMisc(t *testing.T) {
	tr := tree(map[string]string{
		"/cluster/id":                                    `{"version":"1","id":"` + topicID + `"}`,
		"/controller":                                    `{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":5}`,
		"/controller_epoch":                              "7",
		"/latest_producer_id_block":                      `{"version":1,"broker":2,"block_start":"1000","block_end":"1999"}`,
		"/feature":                                       `{"version":2,"status":1,"features":{"x.version":{"max_version_level":3}}}`,
		"/migration":                                     `{"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":5,"kraft_metadata_offset":1234,"kraft_metadata_epoch":6}`,
		"/delegation_token/tokens/tok1":                  `{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Abob","renewers":["User%3Acarol"],"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"tok1"}`,
		"/kafka-acl/Topic/foo":                           `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},{"principal":"User:bob","permissionType":"DENY","operation":"DESCRIBECONFIGS","host":"1.2.3.4"}]}`,
		"/kafka-acl-extended/prefixed/Group/g":           `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"All","host":"*"}]}`,
		"/kafka-acl/Bogus/x":                             `{"version":1,"acls":[]}`,
		"/admin/reassign_partitions":                     `{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}`,
		"/admin/preferred_replica_election":              `{"version":1,"partitions":[{"topic":"t","partition":1}]}`,
		"/isr_change_notification/isr_change_0000000001": `{"version":1,"partitions":[{"topic":"t","partition":0}]}`,
		"/something/else":                                "hello",
		"/zookeeper/quota":                               "",
	}, map[string]int32{"/controller_epoch": 6, "/migration": 12}, nil)
	img, err := Decode(tr, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img.ClusterID != topicID || img.ZK.ControllerID != 3000 || img.ZK.KRaftControllerEpoch != 5 || img.ZK.ControllerEpoch != 7 || img.ZK.ControllerEpochZkVersion != 6 {
		t.Errorf("cluster/controller: %q %+v", img.ClusterID, img.ZK)
	}
	if *img.ProducerIDs != (model.ProducerIDs{NextProducerID: 2000, BrokerID: 2, BrokerEpoch: -1}) {
		t.Errorf("producer ids %+v", img.ProducerIDs)
	}
	if img.Features["x.version"] != 3 || img.ZK.FeatureStatus != 1 {
		t.Errorf("features %v", img.Features)
	}
	if *img.Migration != (model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 5, KRaftMetadataOffset: 1234, KRaftMetadataEpoch: 6, ZNodeVersion: 12}) {
		t.Errorf("migration %+v", img.Migration)
	}
	wantTok := &model.DelegationToken{TokenID: "tok1", Owner: "User:alice", Requester: "User:bob", Renewers: []string{"User:carol"}, IssueTimestamp: 1, MaxTimestamp: 3, ExpirationTimestamp: 2}
	if d := cmp.Diff(wantTok, img.DelegationTokens["tok1"]); d != "" {
		t.Error(d)
	}
	var acls []model.ACL
	for _, a := range img.SortedACLs() {
		c := *a
		c.ID = model.UUID{}
		acls = append(acls, c)
	}
	wantACL := []model.ACL{
		{ResourceType: 2, ResourceName: "foo", PatternType: 3, Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3},
		{ResourceType: 2, ResourceName: "foo", PatternType: 3, Principal: "User:bob", Host: "1.2.3.4", Operation: 10, PermissionType: 2},
		{ResourceType: 3, ResourceName: "g", PatternType: 4, Principal: "User:alice", Host: "*", Operation: 2, PermissionType: 3},
	}
	slices.SortFunc(wantACL, func(a, b model.ACL) int { return model.CompareACLContent(&a, &b) })
	if d := cmp.Diff(wantACL, acls); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff(map[string][]int32{"t-0": {1, 2}}, img.ZK.LegacyReassignments); d != "" {
		t.Error(d)
	}
	if !slices.Equal(img.ZK.PreferredReplicaElections, []string{"t-1"}) || img.ZK.Notifications["isr_change"] != 1 {
		t.Errorf("pending %+v", img.ZK)
	}
	// Not understood: kept raw, never dropped. ZooKeeper's own /zookeeper
	// is not Kafka's.
	wantRaw := map[string][]byte{"/kafka-acl/Bogus/x": []byte(`{"version":1,"acls":[]}`), "/something/else": []byte("hello")}
	if d := cmp.Diff(wantRaw, img.ZK.Raw); d != "" {
		t.Error(d)
	}
}

func TestDecodeMalformed(t *testing.T) {
	good := map[string]string{
		"/brokers/topics/ok":                    `{"version":3,"partitions":{"0":[1]},"topic_id":"` + topicID + `"}`,
		"/brokers/topics/ok/partitions/0/state": `{"leader":1,"leader_epoch":0,"isr":[1]}`,
	}
	cases := map[string]string{
		"/brokers/topics/bad":                   `{"version":3,"partitions":{"x":[1]}}`,
		"/brokers/ids/1":                        `{"version":5,"endpoints":["nonsense"]}`,
		"/config/users/u":                       `{"version":1,"config":{"producer_byte_rate":"fast"}}`,
		"/config/users/v":                       `{"version":1,"config":{"SCRAM-SHA-256":"salt=AA==,iterations=1"}}`,
		"/controller_epoch":                     "x",
		"/latest_producer_id_block":             `{"version":1,"broker":1,"block_end":"nine"}`,
		"/kafka-acl/Topic/t":                    `{"version":1,"acls":[{"principal":"User:a","permissionType":"Maybe","operation":"Read","host":"*"}]}`,
		"/cluster/id":                           `{"version":"1"`,
		"/brokers/topics/ok/partitions/0/state": `{"leader":1}`,
	}
	for path, data := range cases {
		nodes := map[string]string{}
		for k, v := range good {
			nodes[k] = v
		}
		nodes[path] = data
		_, err := Decode(tree(nodes, nil, nil), DecodeOptions{})
		var ze *ZnodeError
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &ze) || ze.Path != path {
			t.Errorf("%s: err = %v", path, err)
		}
	}
	// Lenient: every malformed znode listed, kept raw, the rest decoded.
	nodes := map[string]string{}
	for k, v := range good {
		nodes[k] = v
	}
	for k, v := range cases {
		if k != "/brokers/topics/ok/partitions/0/state" {
			nodes[k] = v
		}
	}
	img, err := Decode(tree(nodes, nil, nil), DecodeOptions{Lenient: true})
	var me *MalformedError
	if !errors.Is(err, ErrMalformed) || !errors.As(err, &me) || len(me.Errs) != len(cases)-1 {
		t.Fatalf("lenient: %v", err)
	}
	if img == nil || img.Topics["ok"] == nil || img.Topics["bad"] != nil {
		t.Fatalf("lenient image %+v", img)
	}
	for _, ze := range me.Errs {
		if _, ok := img.ZK.Raw[ze.Path]; !ok {
			t.Errorf("%s not kept raw", ze.Path)
		}
	}
}

// TestDecodeACLNamesAsKafka: Kafka 3.9.2 reads ACL enum names (SecurityUtils
// .operation/permissionType/resourceType) as the PascalCase name or any
// case of it, but an underscore makes them UNKNOWN: "DESCRIBE_CONFIGS" is
// not DescribeConfigs, and a /kafka-acl/TRANSACTIONAL_ID directory is
// resource type UNKNOWN (checked with jshell against kafka-clients and
// kafka-server 3.9.2: AclEntry.fromBytes, SecurityUtils.resourceType).
// kmeta must not show such an entry as a working ACL.
func TestDecodeACLNamesAsKafka(t *testing.T) {
	acl := func(perm, op string) string {
		return `{"version":1,"acls":[{"principal":"User:a","permissionType":"` + perm + `","operation":"` + op + `","host":"*"}]}`
	}
	for _, c := range []struct{ perm, op string }{{"DENY", "DESCRIBE_CONFIGS"}, {"Deny", "Describe_Configs"}, {"DE_NY", "Read"}} {
		_, err := Decode(tree(map[string]string{"/kafka-acl/Topic/t": acl(c.perm, c.op)}, nil, nil), DecodeOptions{})
		var ze *ZnodeError
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &ze) || ze.Path != "/kafka-acl/Topic/t" {
			t.Errorf("%s %s: err = %v, want the znode malformed", c.perm, c.op, err)
		}
	}
	img, err := Decode(tree(map[string]string{
		"/kafka-acl/Topic/t":                      acl("deny", "describeconfigs"),
		"/kafka-acl/Cluster/kafka-cluster":        acl("ALLOW", "CLUSTERACTION"),
		"/kafka-acl/TRANSACTIONAL_ID/tx":          acl("Allow", "Write"),
		"/kafka-acl/transactionalid/tx2":          acl("Allow", "Write"),
		"/kafka-acl-extended/prefixed/USER/alice": acl("Allow", "CreateTokens"),
	}, nil, nil), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int8{}
	for _, a := range img.SortedACLs() {
		got[a.ResourceName] = [2]int8{a.ResourceType, a.Operation}
	}
	want := map[string][2]int8{"t": {2, 10}, "kafka-cluster": {4, 9}, "tx2": {5, 4}, "alice": {7, 13}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("decoded ACLs (-want +got):\n%s", d)
	}
	if img.ZK.Raw["/kafka-acl/TRANSACTIONAL_ID/tx"] == nil {
		t.Error("the TRANSACTIONAL_ID directory is not kept raw")
	}
}

// TestDecodeScramErrorKeepsSecret: the error for a mangled SCRAM
// credential names the znode and what is wrong, never the key material
// (errors are printed to stderr whatever --show-secrets says).
func TestDecodeScramErrorKeepsSecret(t *testing.T) {
	const secret = "c2VjcmV0c2VjcmV0c2VjcmV0"
	for _, v := range []string{
		"salt=AA==," + secret + ",server_key=AA==,iterations=4096",
		"salt=AA==,stored_key=" + secret + ",server_key=AA==,iterations=4096,extra",
	} {
		_, err := Decode(tree(map[string]string{"/config/users/u": `{"version":1,"config":{"SCRAM-SHA-256":"` + v + `"}}`}, nil, nil), DecodeOptions{})
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("err = %v, want malformed", err)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows key material: %v", err)
		}
	}
}
