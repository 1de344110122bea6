package model

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarshalJSONEmptyImage(t *testing.T) {
	got, err := json.Marshal(NewImage())
	if err != nil {
		t.Fatal(err)
	}
	// Collections are arrays even when empty; optional parts are null.
	want := `{"clusterId":"","features":[],"brokers":[],"controllers":[],"topics":[],"configs":[],` +
		`"clientQuotas":[],"acls":[],"scram":[],"delegationTokens":[],"producerIds":null,"migration":null,` +
		`"quorum":null,"zk":null,"provenance":{"source":"","offset":0,"epoch":0},"warnings":[]}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// An Image with nil maps (not from NewImage) marshals the same.
	got2, err := json.Marshal(&Image{})
	if err != nil {
		t.Fatal(err)
	}
	if string(got2) != want {
		t.Errorf("zero Image:\n%s", got2)
	}
}

func TestMarshalJSONShape(t *testing.T) {
	img := NewImage()
	img.ClusterID = "c"
	img.Topics["t"] = &Topic{Name: "t", ID: UUID{15: 1}, Partitions: map[int32]*Partition{
		1: {ID: 1, Replicas: []int32{2, 1}, ISR: []int32{2}, ELR: nil, LastKnownELR: []int32{}, Leader: 2},
		0: {ID: 0, Replicas: []int32{1}, ISR: []int32{1}, ELR: []int32{}, Leader: 1, LeaderRecoveryState: Recovering},
	}}
	img.Configs[ConfigResource{ConfigTopic, "t"}] = map[string]string{"retention.ms": "1", "cleanup.policy": "compact"}
	img.ClientQuotas["x"] = &ClientQuota{
		Entity: []QuotaEntityPart{{"user", strp("u")}, {"client-id", nil}},
		Values: map[string]float64{"producer_byte_rate": 1024.5, "consumer_byte_rate": math.Inf(1)},
	}
	img.ACLs[UUID{1}] = &ACL{ID: UUID{1}, ResourceType: 2, ResourceName: "t", PatternType: 3, Principal: "User:<x>",
		Host: "*", Operation: 3, PermissionType: 3}
	img.SCRAM[ScramKey{"u", 2}] = &ScramCredential{User: "u", Mechanism: 2, Iterations: 8192, Fingerprint: "sha256:0123456789ab"}
	img.Migration = &Migration{HasState: true, State: MigrationPostMigration}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(img); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Topics []struct {
			Name       string
			ID         string
			Partitions []map[string]any
		}
		Configs      []map[string]any
		ClientQuotas []map[string]any
		ACLs         []map[string]any
		SCRAM        []map[string]any
		Migration    map[string]any
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Topics[0].ID != "AAAAAAAAAAAAAAAAAAAAAQ" {
		t.Errorf("topic id %q", doc.Topics[0].ID)
	}
	p0, p1 := doc.Topics[0].Partitions[0], doc.Topics[0].Partitions[1]
	if p0["partition"] != 0.0 || p1["partition"] != 1.0 {
		t.Errorf("partitions not sorted: %v %v", p0, p1)
	}
	// ELR: empty stays [], nil stays null.
	if e, ok := p0["elr"].([]any); !ok || len(e) != 0 {
		t.Errorf("p0 elr = %#v, want []", p0["elr"])
	}
	if e, present := p1["elr"]; !present || e != nil {
		t.Errorf("p1 elr = %#v (present %v), want null", e, present)
	}
	if p0["leaderRecoveryState"] != "RECOVERING" || p0["leaderRecoveryStateCode"] != 1.0 {
		t.Errorf("recovery state: %v", p0)
	}

	wantCfg := map[string]any{"resourceType": "TOPIC", "resourceTypeCode": 2.0, "resourceName": "t",
		"configs": []any{map[string]any{"name": "cleanup.policy", "value": "compact"}, map[string]any{"name": "retention.ms", "value": "1"}}}
	if diff := cmp.Diff(wantCfg, doc.Configs[0]); diff != "" {
		t.Errorf("configs (-want +got):\n%s", diff)
	}
	wantQuota := map[string]any{"key": `client-id=<default>,user="u"`,
		"entity": []any{map[string]any{"entityType": "client-id", "entityName": nil}, map[string]any{"entityType": "user", "entityName": "u"}},
		"values": []any{map[string]any{"name": "consumer_byte_rate", "value": "Infinity"}, map[string]any{"name": "producer_byte_rate", "value": 1024.5}}}
	if diff := cmp.Diff(wantQuota, doc.ClientQuotas[0]); diff != "" {
		t.Errorf("quotas (-want +got):\n%s", diff)
	}
	wantACL := map[string]any{"id": "AQAAAAAAAAAAAAAAAAAAAA", "resourceType": "TOPIC", "resourceTypeCode": 2.0,
		"resourceName": "t", "patternType": "LITERAL", "patternTypeCode": 3.0, "principal": "User:<x>", "host": "*",
		"operation": "READ", "operationCode": 3.0, "permissionType": "ALLOW", "permissionTypeCode": 3.0}
	if diff := cmp.Diff(wantACL, doc.ACLs[0]); diff != "" {
		t.Errorf("acls (-want +got):\n%s", diff)
	}
	wantScram := map[string]any{"user": "u", "mechanism": "SCRAM-SHA-512", "mechanismCode": 2.0, "iterations": 8192.0,
		"fingerprint": "sha256:0123456789ab"}
	if diff := cmp.Diff(wantScram, doc.SCRAM[0]); diff != "" {
		t.Errorf("scram (-want +got):\n%s", diff)
	}
	if doc.Migration["state"] != "POST_MIGRATION" || doc.Migration["stateCode"] != 3.0 {
		t.Errorf("migration %v", doc.Migration)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"principal":"User:<x>"`)) {
		t.Error("HTML escaping applied by the document itself")
	}
}

func TestMarshalJSONDeterministic(t *testing.T) {
	img := fullImage()
	for i := range 50 {
		img.Topics[string(rune('a'+i%26))+"x"] = &Topic{Name: string(rune('a'+i%26)) + "x"}
		img.ACLs[UUID{byte(i), 1}] = &ACL{ID: UUID{byte(i), 1}, Principal: "User:p", Operation: int8(i % 5)}
		img.Configs[ConfigResource{ConfigTopic, string(rune('a' + i%26))}] = map[string]string{"k": "v", "j": "w"}
	}
	first, err := json.Marshal(img)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := json.Marshal(img)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatal("MarshalJSON output varies between calls")
		}
	}
}

func TestEnumNames(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{ACLResourceTypeName(7), "USER"},
		{ACLResourceTypeName(8), "UNKNOWN(8)"},
		{ACLResourceTypeName(-1), "UNKNOWN(-1)"},
		{ACLPatternTypeName(4), "PREFIXED"},
		{ACLOperationName(15), "TWO_PHASE_COMMIT"},
		{ACLOperationName(9), "CLUSTER_ACTION"},
		{ACLPermissionTypeName(2), "DENY"},
		{ScramMechanismName(1), "SCRAM-SHA-256"},
		{SecurityProtocolName(3), "SASL_SSL"},
		{LeaderRecoveryStateName(0), "RECOVERED"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
}
