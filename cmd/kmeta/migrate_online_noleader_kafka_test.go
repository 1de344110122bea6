package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
)

// TestOnlineQuorumWithoutLeaderKafka is issue 36's failure made on real
// Kafka 3.9.2: a ZooKeeper-mode broker with AclAuthorizer whose
// super.users lacks User:ANONYMOUS. kmeta migrate stage refuses a
// PLAINTEXT controller listener for it (controller-listener-anonymous).
// The refused combination is then made by hand (the files of the same
// cluster with User:ANONYMOUS, taken out of the controllers' super.users
// after staging) and three controllers are started on it: Kafka's own
// logs show every Vote refused (AuthorizerNotReadyException), and kmeta
// migrate status names a quorum that has controllers but no leader and
// why (from the controller's metadata log dir), and, asked through the
// live controllers (--bootstrap-controller), says they cannot answer yet
// instead of failing with UNSUPPORTED_VERSION.
func TestOnlineQuorumWithoutLeaderKafka(t *testing.T) {
	kafkatest.Concurrently(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	c := kafkatest.StartZKCluster(t, d, zks, kafkatest.ZKClusterOptions{Brokers: 1, Chroot: "/kafka",
		Props: map[string]string{"authorizer.class.name": kafkatest.ZKAuthorizer, "super.users": "User:admin;User:ANONYMOUS",
			"offsets.topic.replication.factor": "1", "transaction.state.log.replication.factor": "1", "transaction.state.log.min.isr": "1"}})
	zkSrc := "zk://" + zks.Connect("/kafka")
	b, err := os.ReadFile(c.Node(1).Config)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	brokerFile := filepath.Join(work, "zk-server-1.properties")
	if err := os.WriteFile(brokerFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ports, err := kafkatest.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	var cs []string
	for i, p := range ports {
		cs = append(cs, fmt.Sprintf("%d@127.0.0.1:%d", kafkatest.FirstControllerID+i, p))
	}
	metaDirs := filepath.Join(c.Dir, "kraft-{id}", "metadata")
	stage := func(out, file string) (int, walkStage) {
		code, stdout, stderr := runKmeta(t, "migrate", "stage", "KRaftMigration", "-o", "json", "--zk", zkSrc, "--out", out,
			"--controllers", strings.Join(cs, ","), "--metadata-dir", metaDirs, "--metadata-version", "3.9", "--config", "1="+file)
		var s walkStage
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("stage: exit %d, not JSON (%v): %s\n%s", code, err, stdout, stderr)
		}
		return code, s
	}
	// Without User:ANONYMOUS among the super users: refused, and each
	// node named.
	noAnon := filepath.Join(work, "no-anonymous.properties")
	p, err := metalog.ReadJavaProperties(brokerFile)
	if err != nil {
		t.Fatal(err)
	}
	p["super.users"] = "User:admin"
	if err := os.WriteFile(noAnon, metalog.FormatJavaProperties("test", p), 0o600); err != nil {
		t.Fatal(err)
	}
	code, s := stage(filepath.Join(work, "refused"), noAnon)
	var anon []string
	for _, f := range s.Checks {
		if f.Code == "controller-listener-anonymous" {
			anon = append(anon, f.Entity)
		}
	}
	if code != exitFindings || !slices.Equal(anon, []string{"broker 1", "controller 3000", "controller 3001", "controller 3002"}) {
		t.Fatalf("stage without User:ANONYMOUS: exit %d, checks %s", code, codes(s.Checks))
	}

	// The same combination made by hand, and started.
	out := filepath.Join(work, "stage")
	if code, s = stage(out, brokerFile); code != exitOK {
		t.Fatalf("stage: exit %d, checks %s", code, codes(s.Checks))
	}
	var ctlSteps []kafkatest.StageStep
	for _, st := range s.Steps {
		if st.Action == "install-metadata-dir" || st.Action == "start" {
			ctlSteps = append(ctlSteps, st)
		}
		if st.Action == "start" {
			f := filepath.Join(out, st.Config)
			cp, err := metalog.ReadJavaProperties(f)
			if err != nil {
				t.Fatal(err)
			}
			cp["super.users"] = "User:admin"
			if err := os.WriteFile(f, metalog.FormatJavaProperties("edited by the test: User:ANONYMOUS taken out", cp), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Controllers log "Kafka Server started" before they have a leader,
	// so the runner's start steps return.
	runner := &kafkatest.StageRunner{Cluster: c, ReadProps: metalog.ReadJavaProperties, Logf: t.Logf}
	if err := runner.Run(ctx, out, ctlSteps); err != nil {
		t.Fatal(err)
	}
	// Kafka's side: the votes are refused.
	const refused = "AuthorizerNotReadyException"
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(2 * time.Second) {
		lb, _ := os.ReadFile(c.Node(kafkatest.FirstControllerID).LogPath())
		if strings.Contains(string(lb), refused) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("controller %d's log never names %s", kafkatest.FirstControllerID, refused)
		}
	}
	configs := []string{"--config", "1=" + filepath.Join(out, "server-1.properties")}
	for i := range ports {
		id := kafkatest.FirstControllerID + i
		configs = append(configs, "--config", fmt.Sprintf("%d=%s", id, filepath.Join(out, fmt.Sprintf("server-%d.properties", id))))
	}
	kraftDir := "kraft:" + strings.ReplaceAll(metaDirs, "{id}", fmt.Sprint(kafkatest.FirstControllerID))
	for _, src := range [][]string{{"--kraft", kraftDir}, {"--bootstrap-controller", c.BootstrapControllers()}} {
		// The quorum-state file is written at the first election; the
		// controllers' log dir may still be empty for a moment.
		var d statusDoc
		var code int
		var stderr string
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(2 * time.Second) {
			code, d, stderr = migrateStatusJSON(t, append(append([]string{"--zk", zkSrc}, src...), configs...)...)
			done := code == exitFailure || time.Now().After(deadline)
			for _, f := range d.Findings {
				done = done || f.Code == "controllers-no-leader" || f.Code == "controllers-not-answering"
			}
			if done {
				break
			}
		}
		var got []string
		for _, f := range d.Findings {
			got = append(got, f.Code+"("+f.Entity+")")
		}
		want := "controllers-no-leader(controllers)"
		if src[0] == "--bootstrap-controller" {
			want = "controllers-not-answering(controllers)"
		}
		if code != exitFindings || d.Phase != "KRaftMigration" || !slices.Contains(got, want) || !slices.Contains(got, "controller-listener-anonymous(controller 3000)") {
			t.Errorf("status %v: exit %d, phase %s, findings %v, waiting %q; want %s\nstderr: %s", src, code, d.Phase, got, d.WaitingFor, want, stderr)
		}
		t.Logf("status %s: exit %d, phase %s, waiting %q, findings %v", src[0], code, d.Phase, d.WaitingFor, got)
	}
	t.Logf("TestOnlineQuorumWithoutLeaderKafka took %s", time.Since(start).Round(time.Second))
}
