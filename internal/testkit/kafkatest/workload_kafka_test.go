package kafkatest

import (
	"context"
	"testing"
	"time"
)

// TestPopulateRichZKMode runs the rich metadata set against a real Kafka
// 3.9.2 ZooKeeper-mode cluster (SASL, AclAuthorizer) and checks with the
// admin API that every part of it landed: verify and migrate tests build on
// exactly this state.
func TestPopulateRichZKMode(t *testing.T) {
	d := Dist(t, Kafka39)
	zk := StartZooKeeper(t, d, ZKOptions{})
	c := StartZKCluster(t, d, zk, ZKClusterOptions{Brokers: 3, Chroot: "/kafka", SASL: true, Authorizer: true})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	md, err := PopulateRich(ctx, c, c.Admin(t), RichOptions{ACLs: true, Tokens: true})
	if err != nil {
		t.Fatalf("%v\ndone: %v", err, md.Log)
	}
	v, err := CaptureAdminView(ctx, c.Client(t), d.Version)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int32{}
	for _, tp := range v.Topics {
		got[tp.Name] = int32(len(tp.Partitions))
	}
	for name, n := range md.Topics {
		if got[name] != n {
			t.Errorf("topic %s: %d partitions, want %d", name, got[name], n)
		}
	}
	if _, ok := got[md.Deleted]; ok {
		t.Errorf("deleted topic %s still listed", md.Deleted)
	}
	if n := scramCredCount(v.SCRAMUsers); n != len(md.SCRAM) {
		t.Errorf("%d SCRAM credentials, want %d: %+v", n, len(md.SCRAM), v.SCRAMUsers)
	}
	if len(v.ACLs) != 8 { // READ,DESCRIBE and ALTER_CONFIGS,DESCRIBE_CONFIGS are two entries each
		t.Errorf("%d ACLs, want 8: %+v", len(v.ACLs), v.ACLs)
	}
	if len(v.Quotas) != 10 {
		t.Errorf("%d quota entities, want 10", len(v.Quotas))
	}
	if len(v.DelegationTokens) != 1 || v.DelegationTokens[0].TokenID != md.Tokens[0] {
		t.Errorf("tokens %+v, want %v", v.DelegationTokens, md.Tokens)
	}
	if v.BrokerDefaultConfigs["log.retention.ms"] == nil || v.BrokerConfigs["1"]["max.connections"] == nil {
		t.Errorf("broker configs %v, defaults %v", v.BrokerConfigs, v.BrokerDefaultConfigs)
	}
}
