package main

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// aclTopic is the topic the ACL probe's principal may describe and read.
const aclTopic = "acl.allowed"

// aclProbe is what a secured cluster's ACLs allow and deny
// kafkatest.DeniedUser, asked with that principal's own client: it may
// describe aclTopic (an ACL allows it), and may not see or write the
// traffic's topic (no ACL, allow.everyone.if.no.acl.found=false). The
// same answers before and after the migration are the proof the ACLs
// were carried over and are enforced by StandardAuthorizer.
type aclProbe struct {
	c         *kafkatest.Cluster
	principal string
}

func setUpACLProbe(t *testing.T, ctx context.Context, c *kafkatest.Cluster) *aclProbe {
	t.Helper()
	p := &aclProbe{c: c, principal: "User:" + kafkatest.DeniedUser}
	if c.Security == kafkatest.SecuritySSL {
		p.principal = "User:" + kafkatest.DeniedSubject
	}
	adm := c.Admin(t)
	r, err := adm.CreateTopic(ctx, 1, 3, nil, aclTopic)
	if err = errors.Join(err, r.Err); err != nil {
		t.Fatalf("create %s: %v", aclTopic, err)
	}
	rs, err := adm.CreateACLs(ctx, kadm.NewACLs().Topics(aclTopic).Allow(p.principal).Operations(kadm.OpDescribe, kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral))
	if err == nil {
		for _, r := range rs {
			err = errors.Join(err, r.Err)
		}
	}
	if err != nil {
		t.Fatalf("create ACL: %v", err)
	}
	p.check(t, ctx, "before the migration")
	return p
}

// check asks, as the probe's principal, for the metadata of aclTopic and
// of the traffic's topic, and produces to the latter: allowed, denied,
// denied. Right after a roll a broker may still be loading: the answer is
// asked again for up to a minute, but a wrong answer that lasts fails.
func (p *aclProbe) check(t *testing.T, ctx context.Context, when string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := p.ask(t, ctx)
		if err == nil {
			t.Logf("ACLs %s: %s may describe %s, and is refused the traffic's topic (metadata and produce)", when, p.principal, aclTopic)
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("ACLs %s: %v", when, err)
			return
		}
		time.Sleep(2 * time.Second)
	}
}

func (p *aclProbe) ask(t *testing.T, ctx context.Context) error {
	cl := p.c.DeniedClient(t, kgo.RecordDeliveryTimeout(20*time.Second), kgo.RequestRetries(2))
	defer cl.Close()
	mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	for _, name := range []string{aclTopic, "kmeta.traffic"} {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(mctx, cl)
	if err != nil {
		return err
	}
	got := map[string]error{}
	for _, td := range resp.Topics {
		if td.Topic != nil {
			got[*td.Topic] = kerr.ErrorForCode(td.ErrorCode)
		}
	}
	if err, ok := got[aclTopic]; !ok || err != nil {
		return errors.New("the ACL's topic " + aclTopic + " is not described to the allowed principal: " + errString(err))
	}
	if err := got["kmeta.traffic"]; !errors.Is(err, kerr.TopicAuthorizationFailed) {
		return errors.New("the traffic's topic is described to a principal without ACL: " + errString(err))
	}
	err = cl.ProduceSync(mctx, &kgo.Record{Topic: "kmeta.traffic", Value: []byte("denied")}).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		return errors.New("a produce without ACL was not refused with TOPIC_AUTHORIZATION_FAILED: " + errString(err))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// secureWalkChecks: stage KRaftMigration on a secured cluster says how
// the controller listener is secured and finds every principal in the
// controllers' super.users already (the brokers' subject, as kmeta reads
// it from the key store, is Kafka's), with nothing it could not read.
func secureWalkChecks(t *testing.T, s walkStage) {
	t.Helper()
	if !s.hasCheck("controller-listener-security") || slices.ContainsFunc(s.Checks, func(f walkFinding) bool {
		return strings.HasPrefix(f.Code, "controller-") && f.Severity != "info"
	}) || s.hasCheck("controller-super-users-added") {
		t.Errorf("stage KRaftMigration's checks on a secured cluster: %s", codes(s.Checks))
	}
	for _, f := range s.Checks {
		t.Logf("stage: %s %s: %s", f.Severity, f.Code, f.Message)
	}
}

// TestOnlineMigrationWalkSecuredSSLKafka and
// TestOnlineMigrationWalkSecuredSASLSSLKafka are the walk of issue 36 on
// real Kafka 3.9.2, on the two shapes production clusters run, side by
// side (a ZooKeeper each: an ensemble that holds another Kafka cluster's
// tree is not one the let-go may stop — zk dependents names it,
// zk-foreign-data): (a) one SSL listener per broker with mutual TLS,
// AclAuthorizer, super users by TLS subject,
// allow.everyone.if.no.acl.found=false; (b) one SASL_SSL listener,
// SCRAM-SHA-512 between brokers and for clients, AclAuthorizer, the same
// default. Each goes ZooKeeper → KRaft with only the files and steps
// kmeta migrate stage writes (the controller listener secured as the
// brokers' inter-broker listener; for (b), PLAIN as the inter-broker user,
// SCRAM cannot authenticate controllers), three controllers (so Votes are
// authorized), a producer and a consumer throughout (every acknowledged
// record consumed), status from the log dir and from the live
// controllers over the secured listener, verify EQUAL in dual-write, and
// the ACLs denying at the end what they denied at the start.
func TestOnlineMigrationWalkSecuredSSLKafka(t *testing.T) {
	kafkatest.Concurrently(t, 265*time.Second) // make test, 2026-12-06
	walkSecured(t, kafkatest.Kafka39, kafkatest.SecuritySSL)
}

func TestOnlineMigrationWalkSecuredSASLSSLKafka(t *testing.T) {
	kafkatest.Concurrently(t, 250*time.Second) // make test, 2026-12-06
	walkSecured(t, kafkatest.Kafka39, kafkatest.SecuritySASLSSL)
}

func walkSecured(t *testing.T, version, shape string) {
	begin := time.Now()
	d := kafkatest.Dist(t, version)
	tf := kafkatest.MakeTLS(t, d, filepath.Join(t.TempDir(), "tls"), "")
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	walkAll(t, walkOptions{version: version, controllers: 3, security: shape, zk: zks, chroot: "/" + shape, tls: tf})
	t.Logf("the %s walk on Kafka %s took %s", shape, version, time.Since(begin).Round(time.Second))
}

// TestOnlineMigrationWalkSecuredOldKafka is the secured walks on Kafka
// 3.5.2, the oldest release whose migration finalizes here (no
// --bootstrap-controller before 3.7: status reads a controller's log dir
// only). Part of make drill.
func TestOnlineMigrationWalkSecuredOldKafka(t *testing.T) {
	drillOnly(t)
	for _, shape := range []string{kafkatest.SecuritySSL, kafkatest.SecuritySASLSSL} {
		t.Run(shape, func(t *testing.T) { walkSecured(t, kafkatest.Kafka35, shape) })
	}
}
