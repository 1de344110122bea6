package zkread

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// TestFixtureLiveAuth serves a copy of the fixture data dir with a real
// ZooKeeper (3.8.4, Kafka 3.9.2's classpath) and reads it live. Without
// credentials the sensitive znodes are refused (NoAuth) and the rest is
// read; with the ZooKeeper super user's digest credentials (kmeta speaks
// digest, not SASL, so a cluster whose brokers authenticate with SASL is
// read as ZooKeeper's super user) everything is read and decodes to the
// offline image. The CLI reports the same through --zk-auth.
func TestFixtureLiveAuth(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	data := t.TempDir()
	fstree.CopyTo(t, filepath.Join(fixtureDir, "datadir"), data)
	const superPass = "super-secret"
	sum := sha1.Sum([]byte("super:" + superPass))
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{
		"dataDir": data,
		// zoo.cfg keys ZooKeeper does not know become zookeeper.* system
		// properties: this is -Dzookeeper.DigestAuthenticationProvider.superDigest.
		"DigestAuthenticationProvider.superDigest": "super:" + base64.StdEncoding.EncodeToString(sum[:]),
	}})
	_, offline := fixtureImage(t)
	ctx := context.Background()
	base := LiveOptions{Servers: []string{zks.Addr()}, Chroot: fixtureChroot, InFlight: 32, Connections: 2}

	partial, err := ReadLive(ctx, base)
	var na *NoAuthError
	if !errors.Is(err, ErrNoAuth) || errors.Is(err, ErrAuth) || !errors.As(err, &na) || !slices.Equal(na.Paths, fixtureProtected) {
		t.Fatalf("no credentials: %v", err)
	}
	if partial == nil || partial.Get("/brokers/topics/orders.v1") == nil || partial.Get("/config/users/alice") != nil {
		t.Errorf("the readable part of the tree is not returned alone")
	}

	wrong := base
	wrong.Auth = "super:wrong"
	if _, err := ReadLive(ctx, wrong); !errors.Is(err, ErrNoAuth) || !errors.As(err, &na) || na.User != "super" {
		t.Errorf("wrong password: %v", err)
	}

	ok := base
	ok.Auth = "super:" + superPass
	ok.ReadACLs = true
	tree, err := ReadLive(ctx, ok)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Decode(tree, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Brokers and /controller are ephemeral: ZooKeeper expires the
	// fixture's sessions some seconds after it starts. The rest must agree.
	type stable struct {
		Topics     map[string]*model.Topic
		Configs    map[model.ConfigResource]map[string]string
		Quotas     map[string]*model.ClientQuota
		SCRAM      map[model.ScramKey]*model.ScramCredential
		ACLs       map[model.UUID]*model.ACL
		Tokens     map[string]*model.DelegationToken
		Producers  *model.ProducerIDs
		ClusterID  string
		Pending    []string
		Notes      map[string]int32
		MissingPSs []string
	}
	pick := func(m *model.Image) stable {
		return stable{m.Topics, m.Configs, m.ClientQuotas, m.SCRAM, m.ACLs, m.DelegationTokens, m.ProducerIDs,
			m.ClusterID, m.ZK.PendingTopicDeletions, m.ZK.Notifications, m.ZK.MissingPartitionStates}
	}
	if d := cmp.Diff(pick(offline), pick(img)); d != "" {
		t.Errorf("live read as super differs from the offline read (-offline +live):\n%s", d)
	}
	if len(img.DelegationTokens) == 0 || len(img.SCRAM) == 0 {
		t.Errorf("protected data missing: %d tokens, %d SCRAM credentials", len(img.DelegationTokens), len(img.SCRAM))
	}
	if a := tree.Get("/config/users").ACL; len(a) != 1 || a[0].Scheme != "sasl" || a[0].ID != "kafka" {
		t.Errorf("live ACL of /config/users %v", a)
	}

	// The CLI: NoAuth without --zk-auth, success with it.
	bin := filepath.Join(t.TempDir(), "kmeta")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kmeta/kmeta/cmd/kmeta").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src := "zk://" + zks.Addr() + fixtureChroot
	out, err := exec.Command(bin, "zk", "image", src).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not authorized") || !strings.Contains(string(out), "/config/users") {
		t.Errorf("kmeta zk image without --zk-auth: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "zk", "image", "--zk-auth", "super:"+superPass, src).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "alice") {
		t.Errorf("kmeta zk image --zk-auth: %v\n%s", err, out)
	}
}
