package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest/imagefacts"
	"github.com/kmeta/kmeta/model"
)

// liveOptions are the options of every cluster the live acceptance runs
// on: PLAINTEXT, SASL_PLAINTEXT (PLAIN, SCRAM) and TLS listeners (stores
// made in the test with keytool), SCRAM users made at format time, and
// the authorizer. The SCRAM-SHA-512 user is a super user, as the PLAIN
// admin and ANONYMOUS (PLAINTEXT and one-way TLS) are, so that every
// listener the acceptance reads through may read the whole image.
func liveOptions(o kafkatest.KRaftOptions) kafkatest.KRaftOptions {
	o.SASL, o.SCRAMUsers, o.SSL, o.Authorizer = true, true, true, true
	o.Props = map[string]string{"super.users": "User:" + kafkatest.AdminUser + ";User:ANONYMOUS;User:" + kafkatest.SCRAM512User}
	return o
}

// populateLive gives a cluster started with liveOptions the rich metadata
// set, so that the comparisons have something to compare.
func populateLive(t *testing.T, c *kafkatest.Cluster, brokers int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if md, err := kafkatest.PopulateRich(ctx, c, c.Admin(t), kafkatest.RichOptions{ACLs: true, Tokens: true, Brokers: brokers}); err != nil {
		t.Fatalf("%v\ndone: %v", err, md.Log)
	}
}

// TestLiveKafka44 is the live acceptance on one combined Kafka 4.4.0
// node (liveAcceptance), then a wrong password on the same cluster. The
// 3 controllers + 2 brokers shape runs it in TestQuorumDescribeMatchesKafka
// and 3.9.2 in TestFeaturesWriteKafka39, on their clusters.
func TestLiveKafka44(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, liveOptions(kafkatest.KRaftOptions{SSLServerStoreType: "JKS"}))
	populateLive(t, c, 1)
	liveAcceptance(t, c, kafkatest.FirstBrokerID)
	t.Run("wrong password", func(t *testing.T) { liveWrongPassword(t, c) })
}

// liveAcceptance: through each of PLAINTEXT, SASL_PLAINTEXT SCRAM-SHA-512
// and SSL with a PEM and a JKS trust store, `kmeta image -o json
// kafka://...` equals the harness's admin view (Kafka's admin API)
// item by item: topics with ids and partitions (leader, epoch, replicas,
// ISR, offline), dynamic configs, ACLs, quotas, SCRAM mechanisms and
// iterations, features, and delegation tokens over SASL (elsewhere Kafka
// refuses them, and the image marks them not reported). Then `kmeta diff
// kafka://... kraft:<ctl's metadata log dir>` finds no difference and
// leaves out exactly the fields the live side does not report.
func liveAcceptance(t *testing.T, c *kafkatest.Cluster, ctl int) {
	ctx := t.Context()
	for _, kind := range []kafkatest.ClientKind{kafkatest.ClientPlaintext, kafkatest.ClientSCRAM512, kafkatest.ClientSSLPEM, kafkatest.ClientSSLJKS} {
		t.Run("image over "+string(kind), func(t *testing.T) {
			src, props := "kafka://"+c.BootstrapFor(kind), c.ClientProperties(t, kind)
			sasl := strings.HasPrefix(c.ClientSettings(t, kind)["security.protocol"], "SASL")
			// The cluster is quiet; a leader epoch could still move
			// between the two reads: read both again before failing.
			var diff string
			for range 3 {
				r := kmeta("image", "-o", "json", src, "--command-config", props)
				if r.code != exitOK {
					t.Fatalf("kmeta image %s: exit %d\n%s", src, r.code, r.stderr)
				}
				var doc liveImageDoc
				if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
					t.Fatalf("kmeta image -o json: %v\n%s", err, r.stdout)
				}
				view, err := kafkatest.CaptureAdminView(ctx, c.Client(t), c.Dist.Version)
				if err != nil {
					t.Fatal(err)
				}
				want := imagefacts.AdminView(view)
				if !sasl {
					want = slices.DeleteFunc(want, func(l string) bool { return strings.HasPrefix(l, "token ") })
					if !slices.Contains(doc.NotReported, model.FieldDelegationTokens) {
						t.Errorf("tokens over %s: not marked not reported: %v", kind, doc.NotReported)
					}
				} else if len(view.DelegationTokens) == 0 {
					t.Errorf("the admin view has no delegation token: the rich set makes one")
				}
				if diff = cmp.Diff(want, doc.facts()); diff == "" {
					t.Logf("kmeta image %s equals the admin view: %d facts (%d topics, %d ACLs, %d SCRAM credentials, %d tokens); not reported: %v",
						src, len(want), len(view.Topics), len(view.ACLs), len(doc.SCRAM), len(doc.DelegationTokens), doc.NotReported)
					return
				}
				time.Sleep(time.Second)
			}
			t.Fatalf("kmeta image %s differs from the admin view (-view +kmeta):\n%s", src, diff)
		})
	}

	t.Run("diff with the controller's log", func(t *testing.T) {
		kind := kafkatest.ClientSCRAM512
		src, props := "kafka://"+c.BootstrapFor(kind), c.ClientProperties(t, kind)
		dir := c.MetadataLogDir(ctl)
		// The controller's log can be ahead of the broker's image by the
		// records the broker has not applied yet: then, and only then,
		// read both again.
		for attempt := 0; ; attempt++ {
			r := kmeta("diff", "-o", "json", src, "kraft:"+dir, "--command-config", props)
			var doc report.ComparisonDoc
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("kmeta diff: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
			}
			if r.code == exitOK && doc.Result == report.ResultEqual && doc.Differences == 0 && len(doc.Findings) == 0 {
				if len(doc.Left.NotReported) == 0 || !slices.Equal(doc.NotComparedFields, doc.Left.NotReported) || len(doc.Right.NotReported) != 0 {
					t.Errorf("not compared %v; the live side does not report %v, the log %v", doc.NotComparedFields, doc.Left.NotReported, doc.Right.NotReported)
				}
				t.Logf("kmeta diff %s (offset %d) kraft:%s (offset %d): equal; not compared: %v; by design: %q",
					src, doc.Left.Offset, dir, doc.Right.Offset, doc.NotComparedFields, doc.NotCompared)
				return
			}
			if attempt == 5 || doc.Right.Offset <= doc.Left.Offset {
				t.Fatalf("kmeta diff %s kraft:%s: exit %d, result %s, live offset %d, log offset %d\n%s\n%s",
					src, dir, r.code, doc.Result, doc.Left.Offset, doc.Right.Offset, r.stdout, r.stderr)
			}
			t.Logf("the log (offset %d) is ahead of the broker's image (offset %d): again", doc.Right.Offset, doc.Left.Offset)
			time.Sleep(time.Second)
		}
	})
}

// liveImageDoc is what the live acceptance reads of `kmeta image -o json`.
type liveImageDoc struct {
	ClusterID string `json:"clusterId"`
	Features  []struct {
		Name  string `json:"name"`
		Level int16  `json:"level"`
	} `json:"features"`
	Brokers []struct {
		ID     int32 `json:"id"`
		Fenced bool  `json:"fenced"`
	} `json:"brokers"`
	Controllers []struct {
		ID        int32 `json:"id"`
		Endpoints []struct {
			Host string `json:"host"`
			Port uint16 `json:"port"`
		} `json:"endpoints"`
	} `json:"controllers"`
	Topics []struct {
		Name       string `json:"name"`
		ID         string `json:"id"`
		Partitions []struct {
			ID              int32   `json:"partition"`
			Leader          int32   `json:"leader"`
			LeaderEpoch     int32   `json:"leaderEpoch"`
			Replicas        []int32 `json:"replicas"`
			ISR             []int32 `json:"isr"`
			OfflineReplicas []int32 `json:"offlineReplicas"`
		} `json:"partitions"`
	} `json:"topics"`
	Configs []struct {
		ResourceTypeCode int8   `json:"resourceTypeCode"`
		ResourceName     string `json:"resourceName"`
		Configs          []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"configs"`
	} `json:"configs"`
	ClientQuotas []struct {
		Key    string `json:"key"`
		Values []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"values"`
	} `json:"clientQuotas"`
	ACLs []struct {
		ResourceType, ResourceName, PatternType, Principal, Host, Operation, PermissionType string
	} `json:"acls"`
	SCRAM []struct {
		User       string `json:"user"`
		Mechanism  string `json:"mechanism"`
		Iterations int32  `json:"iterations"`
	} `json:"scram"`
	DelegationTokens []model.DelegationToken `json:"delegationTokens"`
	Provenance       model.Provenance        `json:"provenance"`
	Warnings         []model.Finding         `json:"warnings"`
	NotReported      []model.Field           `json:"notReported"`
}

// facts renders the document as imagefacts.Live renders a live image.
func (doc *liveImageDoc) facts() []string {
	f := map[string]string{"cluster": doc.ClusterID}
	brokers := []int32{}
	for _, b := range doc.Brokers {
		if !b.Fenced {
			brokers = append(brokers, b.ID)
		}
	}
	slices.Sort(brokers)
	f["brokers"] = fmt.Sprint(brokers)
	for _, tp := range doc.Topics {
		f["topic "+tp.Name+" id"] = tp.ID
		for _, p := range tp.Partitions {
			f[imagefacts.PartitionKey(tp.Name, p.ID)] = imagefacts.PartitionFact(p.Leader, p.LeaderEpoch, p.Replicas, p.ISR, p.OfflineReplicas)
		}
	}
	for _, rc := range doc.Configs {
		res := model.ConfigResource{Type: model.ConfigResourceType(rc.ResourceTypeCode), Name: rc.ResourceName}
		for _, e := range rc.Configs {
			f[imagefacts.ConfigKey(res, e.Name)] = imagefacts.ConfigFact(e.Value)
		}
	}
	for _, a := range doc.ACLs {
		f[imagefacts.ACLKey(a.ResourceType, a.ResourceName, a.PatternType, a.Principal, a.Host, a.Operation, a.PermissionType)] = "1"
	}
	for _, q := range doc.ClientQuotas {
		for _, v := range q.Values {
			f["quota "+q.Key+" "+v.Name] = fmt.Sprint(v.Value)
		}
	}
	for _, s := range doc.SCRAM {
		f["scram "+s.User+" "+s.Mechanism] = fmt.Sprint(s.Iterations)
	}
	for _, tk := range doc.DelegationTokens {
		f["token "+tk.TokenID] = imagefacts.TokenFact(tk.Owner, tk.Requester, tk.Renewers, tk.IssueTimestamp, tk.ExpirationTimestamp, tk.MaxTimestamp)
	}
	for _, ft := range doc.Features {
		f["feature "+ft.Name] = fmt.Sprint(ft.Level)
	}
	out := make([]string, 0, len(f))
	for _, k := range slices.Sorted(maps.Keys(f)) {
		out = append(out, k+" = "+f[k])
	}
	return out
}

// kafkaFinalized reads the finalized levels kafka-features describe
// prints ("Feature: NAME ... FinalizedVersionLevel: LEVEL"), as printed:
// a number, or for metadata.version its name (4.4-IV2).
func kafkaFinalized(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "Feature:" {
			continue
		}
		for i := 2; i+1 < len(f); i++ {
			if f[i] == "FinalizedVersionLevel:" {
				m[f[1]] = f[i+1]
			}
		}
	}
	return m
}

// liveWrongPassword: against the real SASL_PLAINTEXT listener, a PLAIN
// login with a wrong password is an authentication failure (exit 2,
// named so, with the address), as Kafka's own kafka-topics says with the
// same client settings; the right password gets past authentication.
func liveWrongPassword(t *testing.T, c *kafkatest.Cluster) {
	d := c.Dist
	addr := c.SASLBootstrapServers()
	dir := t.TempDir()
	settings := func(name, password string) string {
		p := filepath.Join(dir, name)
		text := "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="` + kafkatest.AdminUser + `" password="` + password + "\";\n"
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrong, right := settings("wrong.properties", "not-"+kafkatest.AdminPassword), settings("right.properties", kafkatest.AdminPassword)

	// The oracle: Kafka's own tool, the same settings.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	_, stderr, err := d.Run(ctx, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", addr, "--command-config", wrong, "--list")
	if err == nil || !strings.Contains(string(stderr), "SaslAuthenticationException") {
		t.Fatalf("kafka-topics with a wrong password: %v\n%s", err, stderr)
	}

	for _, args := range [][]string{
		{"image", "kafka://" + addr, "--command-config", wrong},
		{"image", "--command-config", wrong, "--bootstrap-server", addr, "-o", "json"},
		{"features", "describe", "--bootstrap-server", addr, "--command-config", wrong},
	} {
		r := kmeta(args...)
		if r.code != 2 || !strings.Contains(r.stderr, "authentication failed at "+addr+" with PLAIN") || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q", args, r.code, r.stderr, r.stdout)
		}
		if strings.Contains(r.stderr, kafkatest.AdminPassword) {
			t.Errorf("%q: the message shows a password: %q", args, r.stderr)
		}
	}
	if r := kmeta("image", "kafka://"+addr, "--command-config", right); strings.Contains(r.stderr, "authentication failed") {
		t.Errorf("the right password: exit %d, %q", r.code, r.stderr)
	}
}

// TestLiveZooKeeperModeBroker: a real 3.9.2 ZooKeeper-mode broker given
// as kafka:// is named as such (exit 2), pointing at zk://. Kafka's own
// kafka-broker-api-versions shows why: the broker lists LeaderAndIsr,
// an API only ZooKeeper-mode brokers have.
func TestLiveZooKeeperModeBroker(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	c := kafkatest.StartZKCluster(t, d, zk, kafkatest.ZKClusterOptions{})
	addr := c.BootstrapServers()
	out := d.MustRun(t, "kafka.admin.BrokerApiVersionsCommand", "--bootstrap-server", addr)
	if !strings.Contains(out, "LeaderAndIsr(4)") {
		t.Fatalf("kafka-broker-api-versions does not list LeaderAndIsr:\n%s", out)
	}
	r := kmeta("image", "kafka://"+addr)
	if r.code != 2 || !strings.Contains(r.stderr, addr+" answers as a ZooKeeper-mode broker") || !strings.Contains(r.stderr, "zk://") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
