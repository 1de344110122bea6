package kafkaread_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest/imagefacts"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// saslConfig is the client settings of the harness's PLAIN super user on
// the SASL_PLAINTEXT listeners.
func saslConfig(c *kafkatest.Cluster, user, password, mechanism string) kafkaread.Config {
	module := "org.apache.kafka.common.security.plain.PlainLoginModule"
	if strings.HasPrefix(mechanism, "SCRAM") {
		module = "org.apache.kafka.common.security.scram.ScramLoginModule"
	}
	return kafkaread.Config{Bootstrap: strings.Split(c.SASLBootstrapServers(), ","), Timeout: 20 * time.Second,
		Properties: map[string]string{
			"security.protocol": "SASL_PLAINTEXT",
			"sasl.mechanism":    mechanism,
			"sasl.jaas.config":  fmt.Sprintf(`%s required username="%s" password="%s";`, module, user, password),
		}}
}

func liveImage(t *testing.T, ctx context.Context, cfg kafkaread.Config) *model.Image {
	t.Helper()
	cl, err := kafkaread.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	img, err := cl.Image(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestKafkaLive starts one combined node per release (4.4.0, then 3.9.2)
// with PLAINTEXT, SASL_PLAINTEXT, SASL_SSL and TLS listeners (stores made
// with keytool; the brokers' key store JKS on 4.4.0, PKCS12 on 3.9.2),
// SCRAM users and the authorizer, and runs the live reader's real-Kafka
// checks on it, each cluster started once for all of them:
//   - the live image, on the rich metadata set, equals the harness's admin
//     view (Kafka's admin API as the oracle) item by item, and equals the
//     controller's own metadata log replayed to the offset the live image
//     stands at, on every field the live image reports;
//   - over PLAINTEXT there are no delegation tokens, and the image says so;
//   - the connection layer (DialCluster): every client kind, and on 4.4.0
//     the failures an operator meets first;
//   - on 4.4.0, last (it adds a user and ACLs): a principal that may
//     describe topics but not the cluster gets the rest of the image, with
//     the gaps named and marked.
//
// Kafka 3.9.2's DescribeCluster (v1) lists unfenced brokers only.
func TestKafkaLive(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	t.Run(kafkatest.Latest4, func(t *testing.T) {
		c, ctx := startLive(t, kafkatest.Latest4, "JKS")
		imageKafka(t, ctx, c)
	})
	t.Run(kafkatest.Kafka39, func(t *testing.T) {
		c, ctx := startLive(t, kafkatest.Kafka39, "")
		compareWithOracles(t, ctx, c, saslConfig(c, kafkatest.AdminUser, kafkatest.AdminPassword, "PLAIN"))
		t.Run("dial", func(t *testing.T) {
			if testing.Short() {
				t.Skip("-short dials 4.4.0 only")
			}
			kafkaread.DialCluster(t, c, false)
		})
	})
}

// startLive starts the one combined node of version that TestKafkaLive's
// checks share and gives it the rich metadata set.
func startLive(t *testing.T, version, serverStore string) (*kafkatest.Cluster, context.Context) {
	c := kafkatest.StartKRaft(t, kafkatest.Dist(t, version), kafkatest.KRaftOptions{
		SASL: true, SCRAMUsers: true, SSL: true, SSLServerStoreType: serverStore, Authorizer: true})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	t.Cleanup(cancel)
	if md, err := kafkatest.PopulateRich(ctx, c, c.Admin(t), kafkatest.RichOptions{ACLs: true, Tokens: true, Brokers: 1}); err != nil {
		t.Fatalf("%v\ndone: %v", err, md.Log)
	}
	return c, ctx
}

// imageKafka is TestKafkaLive's 4.4.0 sequence.
func imageKafka(t *testing.T, ctx context.Context, c *kafkatest.Cluster) {
	d := c.Dist
	adm := c.Admin(t)
	cfg := saslConfig(c, kafkatest.AdminUser, kafkatest.AdminPassword, "PLAIN")

	compareWithOracles(t, ctx, c, cfg)

	t.Run("plaintext has no tokens", func(t *testing.T) {
		img := liveImage(t, ctx, kafkaread.Config{Bootstrap: strings.Split(c.BootstrapServers(), ",")})
		if img.Reports(model.FieldDelegationTokens) || len(img.DelegationTokens) != 0 || !hasWarning(img, kafkaread.WarnNotAnswered, "delegation tokens") {
			t.Fatalf("tokens over PLAINTEXT: notReported %v, %d tokens, warnings %v", img.NotReported, len(img.DelegationTokens), img.Warnings)
		}
	})

	t.Run("dial", func(t *testing.T) { kafkaread.DialCluster(t, c, true) })

	// Last: it adds a user and ACLs, which the comparisons above would see.
	t.Run("not authorized", func(t *testing.T) {
		const user, password = "reader", "reader-secret"
		if rs, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: user, Mechanism: kadm.ScramSha512, Iterations: 4096, Password: password}}); err != nil || rs.Error() != nil {
			t.Fatalf("create user: %v %v", err, rs.Error())
		}
		b := kadm.NewACLs().Topics("*").Allow("User:"+user).Operations(kadm.OpDescribe, kadm.OpDescribeConfigs).ResourcePatternType(kadm.ACLPatternLiteral)
		if rs, err := adm.CreateACLs(ctx, b); err != nil || rs[0].Err != nil {
			t.Fatalf("create ACL: %v %v", err, rs)
		}
		want, err := kafkatest.CaptureAdminView(ctx, c.Client(t), d.Version)
		if err != nil {
			t.Fatal(err)
		}
		var img *model.Image
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
			// SCRAM credentials and ACLs reach the broker's image shortly
			// after the controller commits them.
			img = liveImage(t, ctx, saslConfig(c, user, password, "SCRAM-SHA-512"))
			if len(img.Topics) == len(want.Topics) || time.Now().After(deadline) {
				break
			}
		}
		// What the principal may read is read...
		if len(img.Topics) != len(want.Topics) || len(img.Configs) == 0 || img.ClusterID != want.ClusterID {
			t.Errorf("topics %d (want %d), configs %d, cluster %q", len(img.Topics), len(want.Topics), len(img.Configs), img.ClusterID)
		}
		for name, kv := range want.TopicConfigs {
			got := img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: name}]
			if len(got) != len(kv) {
				t.Errorf("configs of topic %s: %v, want %d entries", name, got, len(kv))
			}
		}
		// ... and what it may not is a warning and a mark, never an
		// empty section.
		for _, gap := range []struct {
			field  model.Field
			entity string
		}{
			{model.FieldACLs, "ACLs"},
			{model.FieldBrokerConfigs, "configs of broker"},
			{model.FieldClientQuotas, "client quotas"},
			{model.FieldSCRAM, "SCRAM users"},
		} {
			if img.Reports(gap.field) {
				t.Errorf("%s is reported by a principal that may not read it: %v", gap.field, img.NotReported)
			}
			if !hasWarning(img, kafkaread.WarnNotAuthorized, gap.entity) {
				t.Errorf("no %s warning for %s: %v", kafkaread.WarnNotAuthorized, gap.entity, img.Warnings)
			}
		}
		if len(img.ACLs) != 0 || len(img.ClientQuotas) != 0 {
			t.Errorf("a denied section holds data: %d ACLs, %d quotas", len(img.ACLs), len(img.ClientQuotas))
		}
		if !img.Reports(model.FieldTopicConfigs) || !img.Reports(model.FieldTopics) {
			t.Errorf("topics or their configs marked for a principal that may read them: %v", img.NotReported)
		}
		for _, w := range img.Warnings {
			t.Logf("warning: %s", w)
		}
	})
}

// compareWithOracles compares the live image with the admin view and
// with the controller's log replayed to the live image's offset.
func compareWithOracles(t *testing.T, ctx context.Context, c *kafkatest.Cluster, cfg kafkaread.Config) {
	d := c.Dist
	t.Run("admin view", func(t *testing.T) {
		// The two reads race with nothing: the cluster is quiet. A
		// leader epoch could still move; retry once before failing.
		var diff string
		for range 3 {
			img := liveImage(t, ctx, cfg)
			view, err := kafkatest.CaptureAdminView(ctx, c.Client(t), d.Version)
			if err != nil {
				t.Fatal(err)
			}
			if diff = cmp.Diff(imagefacts.AdminView(view), imagefacts.Live(img)); diff == "" {
				checkMarks(t, img, c.Dist.Is3())
				t.Logf("live image equals the admin view: %d topics, %d configs, %d ACLs, %d quotas, %d SCRAM, %d tokens, notReported %v",
					len(img.Topics), len(img.Configs), len(img.ACLs), len(img.ClientQuotas), len(img.SCRAM), len(img.DelegationTokens), img.NotReported)
				return
			}
			time.Sleep(time.Second)
		}
		t.Fatalf("live image differs from the admin view (-view +live):\n%s", diff)
	})

	t.Run("replayed log", func(t *testing.T) {
		img := liveImage(t, ctx, cfg)
		res, err := metalog.LoadImage(c.MetadataLogDir(kafkatest.FirstBrokerID), metalog.ImageOptions{AtOffset: img.Provenance.Offset})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(imageFacts(res.Image, img), imageFacts(img, img)); diff != "" {
			t.Fatalf("live image at offset %d differs from the replayed controller log (-log +live):\n%s", img.Provenance.Offset, diff)
		}
		t.Logf("live image equals the controller's log replayed to offset %d on every reported field", img.Provenance.Offset)
	})

}

func hasWarning(img *model.Image, code, entity string) bool {
	return slices.ContainsFunc(img.Warnings, func(f model.Finding) bool {
		return f.Code == code && strings.Contains(f.Entity, entity)
	})
}

// checkMarks: the fields no admin API reports are marked, and those a
// super user over SASL reads are not; a 3.x cluster does not list fenced
// brokers, and says so.
func checkMarks(t *testing.T, img *model.Image, kafka3 bool) {
	t.Helper()
	for _, f := range []model.Field{model.FieldBrokerEpoch, model.FieldBrokerIncarnationID, model.FieldBrokerLogDirs,
		model.FieldBrokerEndpoints, model.FieldPartitionEpoch, model.FieldPartitionDirectories, model.FieldPartitionLeaderRecovery,
		model.FieldProducerIDs, model.FieldMigration, model.FieldControllers, model.FieldSCRAMSecrets} {
		if img.Reports(f) {
			t.Errorf("%s is not marked not reported", f)
		}
	}
	for _, f := range []model.Field{model.FieldBrokers, model.FieldTopics, model.FieldPartitionELR, model.FieldTopicConfigs,
		model.FieldBrokerConfigs, model.FieldACLs, model.FieldClientQuotas, model.FieldSCRAM, model.FieldBrokerFeatures,
		model.FieldDelegationTokens, model.FieldQuorum} {
		if !img.Reports(f) {
			t.Errorf("%s is marked not reported on a cluster read by a super user over SASL", f)
		}
	}
	warnings := 0
	if kafka3 {
		warnings = 1
		if img.Reports(model.FieldBrokerFenced) || !hasWarning(img, kafkaread.WarnNotAnswered, "fenced brokers") {
			t.Errorf("3.x: fenced brokers reported: %v %v", img.NotReported, img.Warnings)
		}
	} else if !img.Reports(model.FieldBrokerFenced) {
		t.Errorf("4.x: fenced brokers not reported")
	}
	if len(img.Warnings) != warnings {
		t.Errorf("warnings: %v", img.Warnings)
	}
	if img.Provenance.Offset <= 0 || img.Provenance.Epoch != -1 || !strings.HasPrefix(img.Provenance.Source, "kafka://") {
		t.Errorf("provenance %+v", img.Provenance)
	}
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// imageFacts renders an image as fact lines, keeping only the fields the
// live image reports (live.Reports), so that the replayed log and the
// live image compare on exactly those.
func imageFacts(img, live *model.Image) []string {
	rep := live.Reports
	f := map[string]string{"cluster": img.ClusterID}
	for n, l := range img.Features {
		f["feature "+n] = fmt.Sprint(l)
	}
	for id, b := range img.Brokers {
		e := "broker " + strconv.Itoa(int(id))
		f[e+" fenced"] = fmt.Sprint(b.Fenced)
		f[e+" rack"] = strp(b.Rack)
		if rep(model.FieldBrokerFeatures) {
			fs := slices.Clone(b.Features)
			slices.SortFunc(fs, func(x, y model.FeatureRange) int { return strings.Compare(x.Name, y.Name) })
			f[e+" features"] = fmt.Sprint(fs)
		}
		// The live image has the one endpoint it was asked through: the
		// registration must hold it.
		if lb := live.Brokers[id]; lb != nil && len(lb.Endpoints) == 1 {
			want := lb.Endpoints[0]
			found := slices.ContainsFunc(b.Endpoints, func(ep model.Endpoint) bool {
				return ep.Host == want.Host && ep.Port == want.Port && ep.SecurityProtocol == want.SecurityProtocol
			})
			f[e+" endpoint "+fmt.Sprintf("%s:%d", want.Host, want.Port)] = fmt.Sprint(found)
		}
	}
	for _, tp := range img.Topics {
		f["topic "+tp.Name+" id"] = tp.ID.String()
		for _, p := range tp.Partitions {
			e := fmt.Sprintf("partition %s-%d", tp.Name, p.ID)
			f[e] = fmt.Sprintf("leader %d epoch %d replicas %v isr %v", p.Leader, p.LeaderEpoch, p.Replicas, p.ISR)
			if rep(model.FieldPartitionELR) {
				// The API does not tell a null list from an empty one.
				f[e+" elr"] = fmt.Sprintf("%v %v", orEmpty(p.ELR), orEmpty(p.LastKnownELR))
			}
			if rep(model.FieldPartitionReassignment) {
				f[e+" reassigning"] = fmt.Sprintf("%v %v", orEmpty(p.AddingReplicas), orEmpty(p.RemovingReplicas))
			}
		}
	}
	for res, kv := range img.Configs {
		if res.Type != model.ConfigTopic && res.Type != model.ConfigBroker {
			continue
		}
		for k, v := range kv {
			if model.ConfigWithheld(res.Type, k, live.Configs[res][k]) {
				v = model.NotReported // the live image says only that it is there
			}
			f[fmt.Sprintf("config %s %q %s", res.Type, res.Name, k)] = v
		}
	}
	for _, q := range img.ClientQuotas {
		for k, val := range q.Values {
			f["quota "+model.QuotaEntityKey(q.Entity)+" "+k] = fmt.Sprint(val)
		}
	}
	for _, a := range img.ACLs {
		c := *a
		c.ID = model.UUID{}
		f[fmt.Sprintf("acl %+v", c)] = "1"
	}
	for k, s := range img.SCRAM {
		f[fmt.Sprintf("scram %s %d", k.User, k.Mechanism)] = fmt.Sprint(s.Iterations)
	}
	for id, tk := range img.DelegationTokens {
		f["token "+id] = fmt.Sprintf("%s %s %v %d %d %d", tk.Owner, tk.Requester, slices.Sorted(slices.Values(tk.Renewers)),
			tk.IssueTimestamp, tk.MaxTimestamp, tk.ExpirationTimestamp)
	}
	return imagefacts.SortedLines(f)
}

func strp(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return strconv.Quote(*p)
}
