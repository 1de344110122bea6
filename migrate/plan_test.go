package migrate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

var ctrl = []controllers.Spec{{ID: 3000, Host: "127.0.0.1", Port: 9093}}

func strp(s string) *string { return &s }

// baseImage is a small healthy ZooKeeper image with one of everything.
func baseImage() *model.Image {
	img := model.NewImage()
	img.ClusterID = "EhnoDc8yQge-5RiY_xZ3Ow"
	img.ZK = &model.ZKState{}
	img.Provenance.Zxid = 0x42
	id := model.UUID{1, 2, 3}
	img.Topics["t"] = &model.Topic{Name: "t", ID: id, Partitions: map[int32]*model.Partition{
		0: {ID: 0, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1, LeaderEpoch: 3, PartitionEpoch: 5,
			AddingReplicas: []int32{}, RemovingReplicas: []int32{}, Directories: make([]model.UUID, 2)},
	}}
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "t"}] = map[string]string{"retention.ms": "1000"}
	img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: ""}] = map[string]string{"log.retention.ms": "2000"}
	ent := []model.QuotaEntityPart{{Type: "user", Name: strp("alice")}}
	img.ClientQuotas[model.QuotaEntityKey(ent)] = &model.ClientQuota{Entity: ent, Values: map[string]float64{"producer_byte_rate": 1024}}
	img.ProducerIDs = &model.ProducerIDs{NextProducerID: 2000, BrokerID: 1, BrokerEpoch: -1}
	img.ACLs[model.UUID{9}] = &model.ACL{ID: model.UUID{9}, ResourceType: 2, ResourceName: "t", PatternType: 3, Principal: "User:alice", Host: "*", Operation: 3, PermissionType: 3}
	img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "alice", Mechanism: model.ScramSHA512,
		Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 4096}
	img.DelegationTokens["tok"] = &model.DelegationToken{TokenID: "tok", Owner: "User:alice", Requester: "User:alice", Renewers: []string{"User:bob"},
		IssueTimestamp: 1, MaxTimestamp: 3, ExpirationTimestamp: 2}
	return img
}

const encrypted = "keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,keyLength:128,salt:c2FsdA==," +
	"iterations:4096,encryptedPassword:AAAAAAAAAAAAAAAAAAAAAA==,passwordLength:6,initializationVector:AAAAAAAAAAAAAAAAAAAAAA=="

// TestGating: each blocker class is reported by plan with its code and a
// fix, apply refuses the plan, and the stated override (where one exists)
// lifts exactly that blocker.
func TestGating(t *testing.T) {
	for _, tc := range []struct {
		name     string
		code     string
		override string // "" when no override exists
		level    string
		mutate   func(*model.Image, *Options)
		// check runs on the overridden plan.
		check func(t *testing.T, p *Plan)
	}{
		{name: "pending deletion", code: CodePendingDeletion, override: OverrideDropPendingDeletions,
			mutate: func(img *model.Image, _ *Options) { img.ZK.PendingTopicDeletions = []string{"t"} },
			check: func(t *testing.T, p *Plan) {
				if countType(p, features.TopicRecord) != 0 || countType(p, features.PartitionRecord) != 0 {
					t.Error("a dropped pending deletion still has topic or partition records")
				}
				if p.Topics[0].Name != "t" || !p.Topics[0].Skipped {
					t.Errorf("the plan must list t as skipped for the broker step: %+v", p.Topics)
				}
			}},
		{name: "reassignment in flight", code: CodeReassignmentInFlight, override: OverrideKeepReassignments,
			mutate: func(img *model.Image, _ *Options) {
				p := img.Topics["t"].Partitions[0]
				p.Replicas, p.AddingReplicas, p.RemovingReplicas = []int32{1, 3, 2}, []int32{3}, []int32{2}
				p.Directories = make([]model.UUID, 3)
			},
			check: func(t *testing.T, p *Plan) {
				pr := decodeFirst(t, p, features.PartitionRecord).(*records.PartitionRecord)
				if !slices.Equal(pr.AddingReplicas, []int32{3}) || !slices.Equal(pr.RemovingReplicas, []int32{2}) {
					t.Errorf("kept reassignment: adding %v removing %v", pr.AddingReplicas, pr.RemovingReplicas)
				}
			}},
		{name: "SCRAM below 3.5-IV2", code: CodeSCRAMUnsupported, override: OverrideDropSCRAM, level: "3.5-IV1",
			mutate: func(img *model.Image, _ *Options) { img.DelegationTokens = map[string]*model.DelegationToken{} },
			check: func(t *testing.T, p *Plan) {
				if countType(p, features.UserScramCredentialRecord) != 0 {
					t.Error("SCRAM records written below 3.5-IV2")
				}
			}},
		{name: "delegation tokens below 3.6-IV2", code: CodeTokensUnsupported, override: OverrideDropTokens, level: "3.6-IV1",
			check: func(t *testing.T, p *Plan) {
				if countType(p, features.DelegationTokenRecord) != 0 {
					t.Error("token records written below 3.6-IV2")
				}
			}},
		{name: "4.x target below its minimum", code: CodeLevelUnsupported, level: "3.3-IV2"},
		{name: "encrypted password without the secret", code: CodeEncryptedPassword, override: OverrideCopyEncryptedPasswords,
			mutate: func(img *model.Image, _ *Options) {
				img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{"listener.name.ssl.ssl.keystore.password": encrypted}
			},
			check: func(t *testing.T, p *Plan) {
				found := false
				for _, r := range p.RecordList() {
					if r.APIKey == features.ConfigRecord && strings.Contains(string(r.Value), "encryptedPassword") {
						found = true
					}
				}
				if !found {
					t.Error("the override must copy the encrypted value verbatim")
				}
			}},
		{name: "encrypted password, wrong secret", code: CodeEncryptedPassword,
			mutate: func(img *model.Image, o *Options) {
				img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{"ssl.key.password": encrypted}
				o.PasswordEncoderSecret = "not-the-secret"
			}},
		{name: "missing cluster id", code: CodeNoClusterID,
			mutate: func(img *model.Image, _ *Options) { img.ClusterID = "" }},
		{name: "invalid cluster id", code: CodeNoClusterID,
			mutate: func(img *model.Image, _ *Options) { img.ClusterID = "not a uuid" }},
		{name: "live brokers registered", code: CodeBrokersRegistered, override: OverrideRegisteredBrokers,
			mutate: func(img *model.Image, o *Options) { img.Brokers[1] = &model.Broker{ID: 1}; o.Live = true }},
		{name: "/migration znode", code: CodeMigrationZnode, override: OverrideMigrationZnode,
			mutate: func(img *model.Image, _ *Options) {
				img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000}
			}},
		{name: "controller id used by a broker", code: CodeControllerIDConflict,
			mutate: func(_ *model.Image, o *Options) { o.Controllers = []controllers.Spec{{ID: 2, Host: "h", Port: 1}} }},
		{name: "no controllers", code: CodeNoControllers,
			mutate: func(_ *model.Image, o *Options) { o.Controllers = nil }},
		{name: "empty source", code: CodeEmptySource,
			mutate: func(img *model.Image, _ *Options) {
				*img = *model.NewImage()
				img.ZK = &model.ZKState{}
			}},
		{name: "partial source", code: CodePartialSource,
			mutate: func(img *model.Image, _ *Options) {
				img.Warn(model.WarnZKLogDamaged, nil, "transaction log damaged at zxid 0x40")
			}},
		{name: "too many records for one atomic batch", code: CodeTooManyRecords, level: "3.6-IV0",
			mutate: func(img *model.Image, _ *Options) {
				img.SCRAM, img.DelegationTokens = map[model.ScramKey]*model.ScramCredential{}, map[string]*model.DelegationToken{}
				ps := map[int32]*model.Partition{}
				for i := range int32(maxAtomicRecords) {
					ps[i] = &model.Partition{ID: i, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1}
				}
				img.Topics["big"] = &model.Topic{Name: "big", ID: model.UUID{7}, Partitions: ps}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := baseImage()
			opts := Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl}
			if tc.level != "" {
				opts.MetadataVersion = tc.level
			}
			if tc.mutate != nil {
				tc.mutate(img, &opts)
			}
			p, err := NewPlan(img, opts)
			if err != nil {
				t.Fatal(err)
			}
			f := findCode(p, tc.code)
			if f == nil || f.Severity != model.SevError || f.Fix == "" {
				t.Fatalf("want blocker %s with a fix, got %v", tc.code, p.Findings)
			}
			if !p.Blocked {
				t.Fatal("plan not blocked")
			}
			if _, err := Apply(p, ApplyOptions{Out: t.TempDir()}); !errors.Is(err, ErrBlocked) {
				t.Fatalf("apply of a blocked plan: %v, want ErrBlocked", err)
			}
			if tc.override == "" {
				if strings.Contains(f.Fix, "--override") {
					t.Errorf("fix names an override where none exists: %s", f.Fix)
				}
				return
			}
			if !strings.Contains(f.Fix, "--override "+tc.override) {
				t.Errorf("fix %q does not name --override %s", f.Fix, tc.override)
			}
			opts.Overrides = []string{tc.override}
			p, err = NewPlan(img, opts)
			if err != nil {
				t.Fatal(err)
			}
			if p.Blocked {
				t.Fatalf("still blocked with --override %s: %v", tc.override, p.Blockers())
			}
			if f := findCode(p, tc.code); f == nil || f.Severity != model.SevWarning {
				t.Errorf("an overridden blocker must stay visible as a warning: %v", f)
			}
			out := t.TempDir()
			if _, err := Apply(p, ApplyOptions{Out: out}); err != nil {
				t.Fatalf("apply with the override: %v", err)
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

func TestHealthyImageIsNotBlocked(t *testing.T) {
	p, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	if p.Blocked {
		t.Fatalf("blocked: %v", p.Blockers())
	}
	// Offline registrations are a warning, not a blocker.
	img := baseImage()
	img.Brokers[1] = &model.Broker{ID: 1}
	p, _ = NewPlan(img, Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl})
	if p.Blocked || findCode(p, CodeRegistrationsInSnap) == nil {
		t.Fatalf("offline registrations: blocked=%v findings %v", p.Blocked, p.Findings)
	}
}

// TestRecordVersionsPerLevel: for every production level a 4.x
// controller can start on, every record the plan writes is at the
// version features' registry allows for that level, and decodes.
func TestRecordVersionsPerLevel(t *testing.T) {
	cat := features.Default()
	n := 0
	for _, l := range cat.Levels {
		if l.Level < cat.MinimumBootstrap || !l.Production {
			continue
		}
		n++
		p, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: l.Name, Controllers: ctrl,
			Overrides: []string{OverrideDropSCRAM, OverrideDropTokens}})
		if err != nil {
			t.Fatal(err)
		}
		if p.Blocked {
			t.Fatalf("%s: blocked: %v", l.Name, p.Blockers())
		}
		seen := map[int16]bool{}
		for _, r := range p.RecordList() {
			fr, m, err := records.DecodeMetadata(r.Value)
			if err != nil {
				t.Fatalf("%s: %v", l.Name, err)
			}
			want, ok := cat.RecordVersion(l.Level, fr.APIKey)
			if !ok || fr.Version != want {
				t.Errorf("%s: %s written at v%d; the level allows %v v%d", l.Name, m.RecordName(), fr.Version, ok, want)
			}
			seen[fr.APIKey] = true
		}
		_, scramOK := cat.RecordVersion(l.Level, features.UserScramCredentialRecord)
		_, tokOK := cat.RecordVersion(l.Level, features.DelegationTokenRecord)
		if seen[features.UserScramCredentialRecord] != scramOK || seen[features.DelegationTokenRecord] != tokOK {
			t.Errorf("%s: SCRAM written %v (allowed %v), tokens written %v (allowed %v)", l.Name,
				seen[features.UserScramCredentialRecord], scramOK, seen[features.DelegationTokenRecord], tokOK)
		}
		first, _ := decodeFirstRecord(t, p.RecordList()[0])
		if fl, ok := first.(*records.FeatureLevelRecord); !ok || fl.Name != "metadata.version" || fl.FeatureLevel != l.Level {
			t.Errorf("%s: the first record must be metadata.version=%d, got %+v", l.Name, l.Level, first)
		}
	}
	if n < 20 {
		t.Fatalf("only %d levels checked", n)
	}
}

// TestFixturePlanAndReplay plans the real ZooKeeper fixture (Kafka 3.9.2):
// its pending deletion and in-flight reassignment block; with both
// overrides the plan applies, and the bootstrap.checkpoint kmeta wrote,
// replayed by kmeta, holds ZooKeeper's content. (kmeta against kmeta is
// not the oracle; cmd/kmeta TestMigrateZKClusterToKRaft is.)
func TestFixturePlanAndReplay(t *testing.T) {
	spec, err := source.Parse("zkdata:../testdata/zk/datadir")
	if err != nil {
		t.Fatal(err)
	}
	res, err := source.Load(context.Background(), spec, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := res.Image
	opts := Options{Source: "zkdata:../testdata/zk/datadir", MetadataVersion: "4.4", Controllers: ctrl}
	p, err := NewPlan(img, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{CodePendingDeletion, CodeReassignmentInFlight} {
		if f := findCode(p, code); f == nil || f.Severity != model.SevError {
			t.Errorf("fixture: want blocker %s, findings %v", code, p.Findings)
		}
	}
	if f := findCode(p, CodeRegistrationsInSnap); f == nil {
		t.Errorf("fixture: brokers 1 and 2 are registered in the snapshot; want %s", CodeRegistrationsInSnap)
	}
	opts.Overrides = []string{OverrideDropPendingDeletions, OverrideKeepReassignments}
	if p, err = NewPlan(img, opts); err != nil || p.Blocked {
		t.Fatalf("with overrides: %v %v", err, p.Blockers())
	}
	out := t.TempDir()
	if _, err := Apply(p, ApplyOptions{Out: out}); err != nil {
		t.Fatal(err)
	}
	kr, err := metalog.LoadImage(filepath.Join(controllers.Dir(out, 3000), bootstrapFile), metalog.ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	got := kr.Image
	if got.MetadataVersion() != p.MetadataVersion.Level {
		t.Errorf("metadata.version %d, want %d", got.MetadataVersion(), p.MetadataVersion.Level)
	}
	for name, zt := range img.Topics {
		kt := got.Topics[name]
		if name == "doomed" {
			if kt != nil {
				t.Error("the pending deletion was written")
			}
			continue
		}
		if kt == nil || kt.ID != zt.ID || len(kt.Partitions) != len(zt.Partitions) {
			t.Errorf("topic %s: got %+v", name, kt)
			continue
		}
		for pid, zp := range zt.Partitions {
			kp := kt.Partitions[pid]
			if !slices.Equal(kp.Replicas, zp.Replicas) || !slices.Equal(kp.ISR, zp.ISR) || kp.Leader != zp.Leader ||
				kp.LeaderEpoch != zp.LeaderEpoch || kp.PartitionEpoch != zp.PartitionEpoch ||
				!slices.Equal(kp.AddingReplicas, zp.AddingReplicas) || !slices.Equal(kp.RemovingReplicas, zp.RemovingReplicas) {
				t.Errorf("%s-%d: got %+v, ZooKeeper %+v", name, pid, kp, zp)
			}
		}
	}
	for r, kv := range img.Configs {
		if r.Type == model.ConfigTopic && r.Name == "doomed" {
			continue
		}
		if fmt.Sprint(got.Configs[r]) != fmt.Sprint(kv) {
			t.Errorf("configs %v: got %v, want %v", r, got.Configs[r], kv)
		}
	}
	if len(got.ClientQuotas) != len(img.ClientQuotas) || len(got.ACLs) != len(img.ACLs) || len(got.SCRAM) != len(img.SCRAM) ||
		len(got.DelegationTokens) != len(img.DelegationTokens) {
		t.Errorf("quotas %d/%d, ACLs %d/%d, SCRAM %d/%d, tokens %d/%d", len(got.ClientQuotas), len(img.ClientQuotas),
			len(got.ACLs), len(img.ACLs), len(got.SCRAM), len(img.SCRAM), len(got.DelegationTokens), len(img.DelegationTokens))
	}
	for k, q := range img.ClientQuotas {
		if fmt.Sprint(got.ClientQuotas[k].Values) != fmt.Sprint(q.Values) {
			t.Errorf("quota %s: got %v want %v", k, got.ClientQuotas[k].Values, q.Values)
		}
	}
	for k, s := range img.SCRAM {
		g := got.SCRAM[k]
		if g == nil || string(g.Salt) != string(s.Salt) || string(g.StoredKey) != string(s.StoredKey) || g.Iterations != s.Iterations {
			t.Errorf("SCRAM %v differs", k)
		}
	}
	if got.ProducerIDs == nil || got.ProducerIDs.NextProducerID != img.ProducerIDs.NextProducerID {
		t.Errorf("producer ids %+v, want %+v", got.ProducerIDs, img.ProducerIDs)
	}
}

func findCode(p *Plan, code string) *model.Finding {
	for i := range p.Findings {
		if p.Findings[i].Code == code {
			return &p.Findings[i]
		}
	}
	return nil
}

func countType(p *Plan, apiKey int16) int {
	n := 0
	for _, r := range p.RecordList() {
		if r.APIKey == apiKey {
			n++
		}
	}
	return n
}

func decodeFirstRecord(t *testing.T, r Record) (records.Metadata, records.Frame) {
	t.Helper()
	fr, m, err := records.DecodeMetadata(r.Value)
	if err != nil {
		t.Fatal(err)
	}
	return m, fr
}

func decodeFirst(t *testing.T, p *Plan, apiKey int16) records.Metadata {
	t.Helper()
	for _, r := range p.RecordList() {
		if r.APIKey == apiKey {
			m, _ := decodeFirstRecord(t, r)
			return m
		}
	}
	t.Fatalf("no record of type %d", apiKey)
	return nil
}

// TestReplanRefusesAChangedSource: apply executes the printed plan only:
// a source at another zxid, or whose records differ, is refused.
func TestReplanRefusesAChangedSource(t *testing.T) {
	old, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: "4.0", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := Replan(baseImage(), old, ReplanOptions{Source: "test"}); err != nil || p.Records.SHA256 != old.Records.SHA256 {
		t.Fatalf("the same source: %v", err)
	}
	moved := baseImage()
	moved.Provenance.Zxid++
	if _, err := Replan(moved, old, ReplanOptions{Source: "test"}); !errors.Is(err, ErrSourceChanged) {
		t.Errorf("a newer zxid: %v, want ErrSourceChanged", err)
	}
	changed := baseImage()
	changed.Topics["t"].Partitions[0].LeaderEpoch++
	if _, err := Replan(changed, old, ReplanOptions{Source: "test"}); !errors.Is(err, ErrSourceChanged) {
		t.Errorf("other records at the same zxid: %v, want ErrSourceChanged", err)
	}
	if old.MetadataVersion.Name != "4.0-IV3" {
		t.Errorf("release 4.0 resolved to %s", old.MetadataVersion.Name)
	}
}

// TestZKConsumerOffsetsReported: offsets old consumers kept in ZooKeeper
// are reported (a warning naming the groups), not migrated and not a
// blocker; other /consumers znodes (ids, owners) are not offsets.
func TestZKConsumerOffsetsReported(t *testing.T) {
	img := baseImage()
	img.ZK.Raw = map[string][]byte{
		"/consumers/g1/offsets/t/0": []byte("42"), "/consumers/g1/offsets/t/1": []byte("7"),
		"/consumers/g2/offsets/u/0": []byte("1"), "/consumers/g2/ids/c-1": []byte("{}"),
		"/consumers/g3/owners/t/0": []byte("c"),
	}
	p, err := NewPlan(img, Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	f := findCode(p, CodeZKConsumerOffsets)
	if p.Blocked || f == nil || f.Severity != model.SevWarning || !strings.Contains(f.Message, "2 consumer group(s) keep 3 offset(s)") ||
		!strings.Contains(f.Message, "g1, g2") || f.Fix == "" {
		t.Fatalf("blocked=%v finding %+v", p.Blocked, f)
	}
	if f := findCode(mustPlan(t, baseImage()), CodeZKConsumerOffsets); f != nil {
		t.Errorf("reported without /consumers offsets: %+v", f)
	}
}

func mustPlan(t *testing.T, img *model.Image) *Plan {
	t.Helper()
	p, err := NewPlan(img, Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A topic config without its topic (/config/topics/X, no
// /brokers/topics/X) is not written, as Kafka's migration reads configs
// only for the topics it migrates: a topic created later under that name
// would otherwise inherit them. The plan says so, and does not block.
// Even an encrypted password in it needs no secret: it is not written.
// (Against real Kafka: TestMigrateZKClusterToKRaft.)
func TestConfigOnlyTopicIsSkipped(t *testing.T) {
	img := baseImage()
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "ghost"}] = map[string]string{
		"retention.ms": "1", "ssl.key.password": encrypted}
	p, err := NewPlan(img, Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	if p.Blocked {
		t.Fatalf("blocked: %v", p.Blockers())
	}
	f := findCode(p, CodeConfigWithoutTopic)
	if f == nil || f.Severity != model.SevWarning || f.Entity != "config TOPIC ghost" {
		t.Fatalf("want a %s warning for config TOPIC ghost, got %v", CodeConfigWithoutTopic, p.Findings)
	}
	for _, r := range p.RecordList() {
		_, m, err := records.DecodeMetadata(r.Value)
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := m.(*records.ConfigRecord); ok && c.ResourceName == "ghost" {
			t.Errorf("config of the topic-less name written: %+v", c)
		}
	}
	if countType(p, features.ConfigRecord) != 2 {
		t.Errorf("%d ConfigRecords, want the 2 of t and the cluster default", countType(p, features.ConfigRecord))
	}
	if len(p.Topics) != 1 || p.Topics[0].Name != "t" {
		t.Errorf("plan topics %+v, want t only", p.Topics)
	}
}
