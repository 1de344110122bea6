package metalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// TestImageMatchesKafkaAdminAPI replays each committed real-Kafka metadata
// log up to the offset the brokers had reached when the fixture generator
// asked Kafka's admin API for topics, configs, ACLs, quotas, SCRAM users,
// tokens and features (admin.json), and requires the same answer.
func TestImageMatchesKafkaAdminAPI(t *testing.T) {
	var views []string
	filepath.WalkDir(filepath.Join("..", "testdata", "kraft"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "admin.json" {
			views = append(views, p)
		}
		return nil
	})
	if len(views) == 0 {
		t.Fatal("no admin.json fixtures under testdata/kraft")
	}
	for _, vp := range views {
		t.Run(filepath.Base(filepath.Dir(vp)), func(t *testing.T) {
			raw, err := os.ReadFile(vp)
			if err != nil {
				t.Fatal(err)
			}
			var want kafkatest.AdminView
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			res, err := LoadImage(filepath.Join(filepath.Dir(vp), "metadata"), ImageOptions{AtOffset: want.FeaturesEpoch})
			if err != nil {
				t.Fatal(err)
			}
			got := adminViewOf(res.Image, &want)
			opts := cmp.Options{
				// Per-broker SCRAM answers differ because of a Kafka bug
				// (testdata/kraft/README.md): scramUsers is the answer of a
				// broker that agrees with the controller's log.
				cmpopts.IgnoreFields(kafkatest.AdminView{}, "KafkaVersion", "FeaturesEpoch",
					"SCRAMUsersBroker", "SCRAMUsersByBroker", "FeaturesEpochByBroker"),
				cmpopts.IgnoreFields(kafkatest.AdminPartition{}, "OfflineReplicas"),
				cmpopts.IgnoreFields(kafkatest.AdminToken{}, "HMAC"),
				cmpopts.EquateEmpty(),
			}
			if d := cmp.Diff(want, *got, opts...); d != "" {
				t.Errorf("image at offset %d differs from Kafka's admin API (-kafka +kmeta):\n%s", want.FeaturesEpoch, d)
			}
			t.Logf("%d topics, %d ACLs, %d quota entities, %d SCRAM users, %d tokens, %d features agree",
				len(want.Topics), len(want.ACLs), len(want.Quotas), len(want.SCRAMUsers), len(want.DelegationTokens), len(want.Features))
		})
	}
}

// adminViewOf renders an image the way the admin API would report it.
// Fields the metadata log cannot know (offline replicas, token HMACs) are
// ignored by the comparison.
func adminViewOf(img *model.Image, want *kafkatest.AdminView) *kafkatest.AdminView {
	v := &kafkatest.AdminView{
		ClusterID:            img.ClusterID,
		TopicConfigs:         map[string]map[string]*string{},
		BrokerConfigs:        map[string]map[string]*string{},
		BrokerDefaultConfigs: map[string]*string{},
		Features:             map[string]int16{},
	}
	for _, b := range img.SortedBrokers() {
		if !b.Fenced {
			v.Brokers = append(v.Brokers, b.ID)
		}
	}
	for _, t := range img.SortedTopics() {
		at := kafkatest.AdminTopic{Name: t.Name, ID: t.ID.String(), Internal: t.Name == "__consumer_offsets" || t.Name == "__transaction_state" || t.Name == "__share_group_state"}
		for _, p := range t.SortedPartitions() {
			at.Partitions = append(at.Partitions, kafkatest.AdminPartition{Partition: p.ID, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas, ISR: p.ISR})
		}
		v.Topics = append(v.Topics, at)
	}
	for res, kv := range img.Configs {
		m := map[string]*string{}
		for k, val := range kv {
			val := val
			m[k] = &val
			if model.IsSensitiveConfig(k) {
				m[k] = nil // the admin API never returns sensitive values
			}
		}
		switch {
		case res.Type == model.ConfigTopic:
			v.TopicConfigs[res.Name] = m
		case res.Type == model.ConfigBroker && res.Name == "":
			v.BrokerDefaultConfigs = m
		case res.Type == model.ConfigBroker:
			v.BrokerConfigs[res.Name] = m
		}
	}
	for _, a := range img.SortedACLs() {
		v.ACLs = append(v.ACLs, kafkatest.AdminACL{
			ResourceType: model.ACLResourceTypeName(a.ResourceType), ResourceName: a.ResourceName, PatternType: model.ACLPatternTypeName(a.PatternType),
			Principal: a.Principal, Host: a.Host, Operation: model.ACLOperationName(a.Operation), Permission: model.ACLPermissionTypeName(a.PermissionType),
		})
	}
	for _, q := range img.SortedClientQuotas() {
		aq := kafkatest.AdminQuota{Values: q.Values}
		for _, e := range q.Entity {
			aq.Entity = append(aq.Entity, kafkatest.AdminQuotaEntity{Type: e.Type, Name: e.Name})
		}
		v.Quotas = append(v.Quotas, aq)
	}
	byUser := map[string]*kafkatest.AdminSCRAM{}
	var users []string
	for _, s := range img.SortedSCRAM() {
		u := byUser[s.User]
		if u == nil {
			u = &kafkatest.AdminSCRAM{User: s.User}
			byUser[s.User] = u
			users = append(users, s.User)
		}
		u.Credentials = append(u.Credentials, kafkatest.AdminSCRAMCred{Mechanism: model.ScramMechanismName(s.Mechanism), Iterations: s.Iterations})
	}
	sort.Strings(users)
	for _, u := range users {
		v.SCRAMUsers = append(v.SCRAMUsers, *byUser[u])
	}
	for _, tk := range img.SortedDelegationTokens() {
		v.DelegationTokens = append(v.DelegationTokens, kafkatest.AdminToken{
			TokenID: tk.TokenID, Owner: tk.Owner, Requester: tk.Requester, Renewers: tk.Renewers,
			IssueTimestamp: tk.IssueTimestamp, ExpiryTimestamp: tk.ExpirationTimestamp, MaxTimestamp: tk.MaxTimestamp,
		})
	}
	for k, l := range img.Features {
		v.Features[k] = l
	}
	if _, ok := want.Features["kraft.version"]; ok && img.Quorum != nil {
		// kraft.version is never a FeatureLevelRecord; Kafka reports the
		// level the raft control records set.
		v.Features["kraft.version"] = img.Quorum.KRaftVersion
	}
	v.SortLists()
	return v
}
