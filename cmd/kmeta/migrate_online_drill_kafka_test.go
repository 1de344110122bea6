package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestOnlineRollbackKafka is the rollback drill of issue 21 on real Kafka
// 3.9.2 (make drill): one ZooKeeper-mode cluster (SASL, AclAuthorizer,
// the rich set and its records, traffic throughout) goes forward with
// kmeta migrate stage and back with only what kmeta migrate rollback
// prints — its files, its steps, ZooKeeper's own CLI with the commands it
// prints — three times:
//
//	a. from KRaftMigration (controllers up, one broker rolled);
//	b. from KRaftDualWriting, with a topic created in dual-write, which
//	   ZooKeeper must keep;
//	c. from KRaftPostMigration (every broker a KRaft broker).
//
// After each rollback status says ZooKeeper from ZooKeeper alone, and
// Kafka's tools agree: a broker holds /controller (ZooKeeper's CLI), no
// /migration, the brokers serve, a new topic can be created, traffic
// flows. Each new attempt stages KRaftMigration afresh over the cleared
// metadata dirs and the deleted /migration, so the copy runs again
// (KAFKA-17146). At the end every acknowledged record was consumed and
// every record of the rich set reads back. From PreKRaft and KRaft the
// refusal is TestOnlineMigrationWalkKafka's.
func TestOnlineRollbackKafka(t *testing.T) {
	drillOnly(t)
	recordTranscript(t, "online-rollback")
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Minute)
	defer cancel()
	w := startOnlineWalk(t, ctx, walkOptions{version: kafkatest.Kafka39, controllers: 3, rich: true, tokens: true})
	w.expectPhase("start", "ZooKeeper")

	// a. KRaftMigration: the controllers up and broker rolls cut short
	// after the first.
	s, out := w.stageMigration()
	first := slices.IndexFunc(s.Steps, func(st kafkatest.StageStep) bool { return st.Action == "restart" })
	if first < 0 {
		t.Fatalf("stage KRaftMigration printed no restart: %v", s.Steps)
	}
	w.apply(ctx, out, s.Steps[:first+1], nil)
	w.expectPhase("a. one broker in migration mode", "KRaftMigration")
	w.rollBack(ctx, "a", "KRaftMigration")

	// b. KRaftDualWriting, with a change made through the KRaft
	// controller.
	s, out = w.stageMigration()
	w.apply(ctx, out, s.Steps, nil)
	w.expectPhase("b. migration done", "KRaftDualWriting")
	w.createTopic(ctx, "dw.created")
	w.verifyDualWrite("b. after a topic was created in dual-write")
	w.rollBack(ctx, "b", "KRaftDualWriting")
	w.hasTopic(ctx, "dw.created")

	// c. KRaftPostMigration.
	s, out = w.stageMigration()
	w.apply(ctx, out, s.Steps, nil)
	w.expectPhase("c. migration done", "KRaftDualWriting")
	s, out = w.stage("KRaftPostMigration", exitOK, nil)
	w.apply(ctx, out, s.Steps, nil)
	w.expectPhase("c. brokers are KRaft brokers", "KRaftPostMigration")
	w.rollBack(ctx, "c", "KRaftPostMigration")
	w.hasTopic(ctx, "dw.created")

	w.finish(ctx)
}

// rollBack runs migrate rollback from phase, performs its steps, and
// checks the cluster is a working ZooKeeper-mode cluster again.
func (w *onlineWalk) rollBack(ctx context.Context, label, phase string) {
	w.t.Helper()
	start := time.Now()
	r, out := w.rollback(exitOK)
	if r.Current != phase || len(r.Steps) == 0 {
		w.t.Fatalf("%s. rollback from %s: current %s, %d steps, checks %s", label, phase, r.Current, len(r.Steps), codes(r.Checks))
	}
	var acts []string
	for _, st := range r.Steps {
		acts = append(acts, st.Action)
	}
	w.t.Logf("%s. rollback from %s: %v", label, phase, acts)
	w.apply(ctx, out, r.Steps, nil)
	w.expectPhase(label+". rolled back", "ZooKeeper")
	w.checkZKMode(ctx, label)
	w.createTopic(ctx, "rolled.back."+label)
	w.advance(ctx, label+". after the rollback")
	w.timeline = append(w.timeline, fmt.Sprintf("%s. rollback from %s done in %s", label, phase, time.Since(start).Round(time.Second)))
}

// checkZKMode asks Kafka's own tools: ZooKeeper's CLI says a broker
// holds /controller (kraftControllerEpoch -1) and /migration is gone;
// the admin API lists the three brokers.
func (w *onlineWalk) checkZKMode(ctx context.Context, label string) {
	w.t.Helper()
	connect := strings.TrimPrefix(w.zkSrc, "zk://")
	zkcli := func(args ...string) (string, error) {
		out, stderr, err := w.d.Run(ctx, w.d.Tools.ZooKeeperShell, append([]string{"-server", connect}, args...)...)
		return string(out) + string(stderr), err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := zkcli("get", "/controller")
		ctl := ""
		for l := range strings.Lines(got) {
			if strings.HasPrefix(l, "{") {
				ctl = strings.TrimSpace(l)
			}
		}
		if err == nil && strings.Contains(ctl, `"kraftControllerEpoch":-1`) {
			w.timeline = append(w.timeline, fmt.Sprintf("%s. /controller (ZooKeeper's CLI): %s", label, ctl))
			break
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s. /controller after the rollback: %q (%v)", label, got, err)
		}
		time.Sleep(time.Second)
	}
	if got, err := zkcli("ls", "/"); err != nil || strings.Contains(got, "migration") {
		w.t.Errorf("%s. ls / after the rollback: %s (%v)", label, got, err)
	}
	w.c.WaitBrokers(w.t, time.Minute, w.c.Brokers()...)
}

func (w *onlineWalk) createTopic(ctx context.Context, name string) {
	w.t.Helper()
	r, err := w.c.Admin(w.t).CreateTopic(ctx, 2, 3, nil, name)
	if err = errors.Join(err, r.Err); err != nil {
		w.t.Fatalf("create topic %s: %v", name, err)
	}
}

func (w *onlineWalk) hasTopic(ctx context.Context, name string) {
	w.t.Helper()
	td, err := w.c.Admin(w.t).ListTopics(ctx, name)
	if err != nil || td[name].Err != nil || len(td[name].Partitions) != 2 {
		w.t.Errorf("topic %s after the rollback: %+v (%v)", name, td[name], err)
	}
}

// TestOnlineMigrationWalkOldKafka is TestOnlineMigrationWalkKafka's walk
// on Kafka 3.5.2, the oldest release whose migration runs clean enough
// here, so that version differences in the entry conditions are covered:
// no metadata transactions below 3.6-IV1 (stage warns), no
// --bootstrap-controller (KIP-919 is 3.7: status reads a controller's log
// dir only), no delegation tokens in KRaft before 3.6 (a KRaft broker
// whose file keeps delegation.token.secret.key does not start: "Delegation
// tokens are not supported"), and the release's own quota bugs, which
// verify must report in dual-write (walkOptions.quotaBugs). SASL,
// AclAuthorizer and the rich set without tokens (SCRAM and ACLs migrate
// from 3.5). 3.4.1's migration runs too, but writes ProducerIdsRecord
// nextProducerId 0 for a /latest_producer_id_block ending at 999 (ids
// handed out twice; verify reports it) and never writes POST_MIGRATION:
// not a release to walk. Part of make drill.
func TestOnlineMigrationWalkOldKafka(t *testing.T) {
	drillOnly(t)
	walkAll(t, walkOptions{version: kafkatest.Kafka35, controllers: 3, rich: true, quotaBugs: true})
}
