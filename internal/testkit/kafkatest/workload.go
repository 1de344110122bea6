package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// RichOptions selects the parts of the rich metadata set a cluster can take.
type RichOptions struct {
	// ACLs needs an authorizer (ZKClusterOptions.Authorizer or
	// KRaftOptions.Authorizer).
	ACLs bool
	// Tokens needs a SASL cluster (delegation tokens are created over an
	// authenticated SASL channel).
	Tokens bool
	// Brokers is the number of brokers (ids FirstBrokerID up), 3 when 0.
	// With fewer, replication factors are capped at it and the configs of
	// missing brokers are not set: the set fits a one-node cluster.
	Brokers int
	// RollSafe gives the topic that sets min.insync.replicas=2
	// (payments_v2.eu) a third replica, so that a rolling restart gated
	// by kmeta roll check may stop one broker at a time (with two, every
	// stop takes it under its min ISR, and roll check rightly refuses).
	RollSafe bool
}

// RichMetadata is what PopulateRich did, for tests to check against.
type RichMetadata struct {
	// Topics are the live topics with their partition counts (the deleted
	// one is not among them).
	Topics map[string]int32
	// Deleted is the topic created and deleted again.
	Deleted string
	// SCRAM passwords by user and mechanism ("alice/SCRAM-SHA-256").
	SCRAM map[string]string
	// Tokens are the delegation token ids created.
	Tokens []string
	// Log says what was done, in order.
	Log []string
}

// PopulateRich gives a running cluster (ZooKeeper mode or KRaft; 3 brokers
// with ids FirstBrokerID..+2) the rich metadata set through Kafka's admin
// API: topics with several partitions and replication factors, a compacted
// topic, a partition increase, a deleted topic, topic, per-broker and
// cluster-default configs, client quotas of every entity kind (defaults
// included), SCRAM credentials (one removed again), ACLs of every pattern
// type, a delegation token, and a producer-id block. The same set serves
// verify (after Kafka's own migration) and migrate (kmeta's).
func PopulateRich(ctx context.Context, c *Cluster, adm *kadm.Client, opts RichOptions) (*RichMetadata, error) {
	md := &RichMetadata{Topics: map[string]int32{}, SCRAM: map[string]string{}, Deleted: "tmp.to_delete"}
	did := func(format string, args ...any) { md.Log = append(md.Log, fmt.Sprintf(format, args...)) }
	s := kadm.StringPtr

	type topic struct {
		name    string
		parts   int32
		rf      int16
		configs map[string]*string
	}
	brokers := opts.Brokers
	if brokers == 0 {
		brokers = 3
	}
	for _, tp := range []topic{
		{"orders.v1", 3, 2, map[string]*string{"retention.ms": s("86400000"), "cleanup.policy": s("delete")}},
		{"user_events", 2, 3, nil},
		{"payments_v2.eu", 4, 2, map[string]*string{"min.insync.replicas": s("2")}},
		{"compacted", 2, 2, map[string]*string{"cleanup.policy": s("compact"), "segment.bytes": s("1048576")}},
		{md.Deleted, 1, 1, nil},
	} {
		if opts.RollSafe && tp.configs["min.insync.replicas"] != nil {
			tp.rf = 3
		}
		r, err := adm.CreateTopic(ctx, tp.parts, min(tp.rf, int16(brokers)), tp.configs, tp.name)
		if err = errors.Join(err, r.Err); err != nil {
			return md, fmt.Errorf("create topic %s: %w", tp.name, err)
		}
		md.Topics[tp.name] = tp.parts
		did("CreateTopics %s partitions=%d rf=%d", tp.name, tp.parts, tp.rf)
	}
	if r, err := adm.UpdatePartitions(ctx, 5, "orders.v1"); err != nil || r.Error() != nil {
		return md, fmt.Errorf("create partitions: %w", errors.Join(err, r.Error()))
	}
	md.Topics["orders.v1"] = 5
	did("CreatePartitions orders.v1 to 5")

	if err := alterRichTopicConfigs(ctx, adm); err != nil {
		return md, err
	}
	did("IncrementalAlterConfigs TOPIC orders.v1 set max.message.bytes, delete cleanup.policy")
	if err := alterRichBrokerConfigs(ctx, adm, brokers); err != nil {
		return md, err
	}
	did("IncrementalAlterConfigs BROKER 1, BROKER 2, BROKER <default>")

	ent, set := quotaEntity, quotaSet
	if err := quotaErr(adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{
		{Entity: ent(s("user"), s("alice")), Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 1048576), set("consumer_byte_rate", 2097152)}},
		{Entity: ent(s("client-id"), s("app.1")), Ops: []kadm.AlterClientQuotaOp{set("request_percentage", 50)}},
		{Entity: ent(s("user"), s("alice"), s("client-id"), s("app.1")), Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 524288)}},
		{Entity: ent(s("user"), s("CN=svc,O=acme")), Ops: []kadm.AlterClientQuotaOp{set("controller_mutation_rate", 10)}},
		{Entity: ent(s("user"), s("bob"), s("client-id"), nil), Ops: []kadm.AlterClientQuotaOp{set("request_percentage", 75)}},
		{Entity: ent(s("user"), nil), Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 10485760)}},
		{Entity: ent(s("client-id"), nil), Ops: []kadm.AlterClientQuotaOp{set("consumer_byte_rate", 10485760)}},
		{Entity: ent(s("user"), nil, s("client-id"), nil), Ops: []kadm.AlterClientQuotaOp{set("request_percentage", 90)}},
		{Entity: ent(s("ip"), s("127.0.0.2")), Ops: []kadm.AlterClientQuotaOp{set("connection_creation_rate", 10)}},
		{Entity: ent(s("ip"), nil), Ops: []kadm.AlterClientQuotaOp{set("connection_creation_rate", 100)}},
	})); err != nil {
		return md, err
	}
	did("AlterClientQuotas user, client-id, user+client-id, defaults, ip")

	if err := upsertRichSCRAM(ctx, adm); err != nil {
		return md, err
	}
	for _, u := range richSCRAM {
		md.SCRAM[u.User+"/"+u.Mechanism.String()] = u.Password
	}
	if err := deleteRichSCRAM(ctx, adm); err != nil {
		return md, err
	}
	delete(md.SCRAM, richSCRAMDeleted.User+"/"+richSCRAMDeleted.Mechanism.String())
	did("AlterUserScramCredentials alice 256/4096 and 512/8192, bob 512/10000, carol 256 (deleted again)")

	if opts.ACLs {
		for _, b := range []*kadm.ACLBuilder{
			kadm.NewACLs().Topics("orders.v1").Allow("User:alice").Operations(kadm.OpRead, kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternLiteral),
			kadm.NewACLs().Topics("user_").Allow("User:bob").AllowHosts("127.0.0.1").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternPrefixed),
			kadm.NewACLs().Topics("payments_v2.eu").Deny("User:mallory").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral),
			kadm.NewACLs().Groups("payments-group").Deny("User:mallory").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral),
			kadm.NewACLs().Clusters().Allow("User:ops").Operations(kadm.OpAlterConfigs, kadm.OpDescribeConfigs).ResourcePatternType(kadm.ACLPatternLiteral),
			kadm.NewACLs().TransactionalIDs("txn.").Allow("User:alice").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternPrefixed),
		} {
			rs, err := adm.CreateACLs(ctx, b)
			if err != nil {
				return md, err
			}
			for _, r := range rs {
				if r.Err != nil {
					return md, fmt.Errorf("create ACL %+v: %w", r, r.Err)
				}
			}
		}
		did("CreateAcls literal, prefixed, deny, cluster, transactional-id")
	}

	if opts.Tokens {
		tok, err := adm.CreateDelegationToken(ctx, kadm.CreateDelegationToken{Renewers: []kadm.Principal{{Type: "User", Name: "alice"}}})
		if err != nil {
			return md, fmt.Errorf("create token: %w", err)
		}
		md.Tokens = append(md.Tokens, tok.TokenID)
		did("CreateDelegationToken %s (renewer User:alice)", tok.TokenID)
	}

	if err := retryNotFound(func() error {
		cl, err := kgo.NewClient(append(c.ClientOpts(), kgo.RequiredAcks(kgo.AllISRAcks()))...)
		if err != nil {
			return err
		}
		defer cl.Close()
		return cl.ProduceSync(ctx, &kgo.Record{Topic: "orders.v1", Value: []byte("kmeta rich")}).FirstErr()
	}); err != nil {
		return md, fmt.Errorf("idempotent produce: %w", err)
	}
	did("Produce 1 record to orders.v1 with an idempotent producer (producer-id block)")

	if r, err := adm.DeleteTopic(ctx, md.Deleted); err != nil || r.Err != nil {
		return md, fmt.Errorf("delete topic: %w", errors.Join(err, r.Err))
	}
	delete(md.Topics, md.Deleted)
	did("DeleteTopics %s", md.Deleted)
	if err := waitTopicGone(ctx, c, md.Deleted); err != nil {
		return md, err
	}
	return md, nil
}

// waitTopicGone waits until no broker's metadata lists topic. A deletion
// is the controller's answer, and each broker learns of it later (in
// ZooKeeper mode from the controller's UpdateMetadata): until then a
// broker still lists the topic, while a DescribeConfigs of it already
// fails with UNKNOWN_TOPIC_OR_PARTITION (make test, 2026-12-06: the admin
// view taken right after PopulateRich). Every topic is asked for, never
// this one by name: a Metadata request naming a topic may create it.
func waitTopicGone(ctx context.Context, c *Cluster, topic string) error {
	cl, err := kgo.NewClient(c.ClientOpts()...)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for {
		listed, err := topicListedBy(ctx, cl, adm, topic)
		if err == nil && listed < 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("deleted topic %s still listed (broker %d, %v): %w", topic, listed, err, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// topicListedBy returns the id of a broker whose metadata lists topic, -1
// when none does.
func topicListedBy(ctx context.Context, cl *kgo.Client, adm *kadm.Client, topic string) (int32, error) {
	bs, err := adm.ListBrokers(ctx)
	if err != nil {
		return -1, err
	}
	for _, b := range bs {
		req := kmsg.NewPtrMetadataRequest()
		req.Topics = nil // every topic
		resp, err := req.RequestWith(ctx, cl.Broker(int(b.NodeID)))
		if err != nil {
			return b.NodeID, err
		}
		for _, t := range resp.Topics {
			if t.Topic != nil && *t.Topic == topic {
				return b.NodeID, nil
			}
		}
	}
	return -1, nil
}

// The parts of the rich set that the committed KRaft fixtures
// (fixtures_kafka_test.go) hold as well, in the same requests.

// alterRichTopicConfigs sets max.message.bytes on orders.v1 and deletes its
// cleanup.policy.
func alterRichTopicConfigs(ctx context.Context, adm *kadm.Client) error {
	return alterErr(adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
		{Name: "max.message.bytes", Value: kadm.StringPtr("2000000")},
		{Op: kadm.DeleteConfig, Name: "cleanup.policy"},
	}, "orders.v1"))
}

// alterRichBrokerConfigs sets a config of broker 1, one of broker 2 (when
// the cluster has it) and three cluster defaults.
func alterRichBrokerConfigs(ctx context.Context, adm *kadm.Client, brokers int) error {
	s := kadm.StringPtr
	if err := alterErr(adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: "max.connections", Value: s("1000")}}, FirstBrokerID)); err != nil {
		return err
	}
	if brokers >= 2 {
		if err := alterErr(adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: "max.connections.per.ip", Value: s("200")}}, FirstBrokerID+1)); err != nil {
			return err
		}
	}
	return alterErr(adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{
		{Name: "log.retention.ms", Value: s("604800001")},
		{Name: "message.max.bytes", Value: s("1048600")},
		{Name: "log.cleaner.backoff.ms", Value: s("16000")},
	}))
}

// quotaEntity builds a client-quota entity from type, name pairs (a nil
// name is the default entity).
func quotaEntity(kv ...*string) kadm.ClientQuotaEntity {
	var e kadm.ClientQuotaEntity
	for i := 0; i < len(kv); i += 2 {
		e = append(e, kadm.ClientQuotaEntityComponent{Type: *kv[i], Name: kv[i+1]})
	}
	return e
}

func quotaSet(k string, v float64) kadm.AlterClientQuotaOp {
	return kadm.AlterClientQuotaOp{Key: k, Value: v}
}

// richSCRAM are the SCRAM credentials upsertRichSCRAM creates;
// deleteRichSCRAM removes richSCRAMDeleted again.
var (
	richSCRAM = []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "alice-secret"},
		{User: "alice", Mechanism: kadm.ScramSha512, Iterations: 8192, Password: "alice-secret-512"},
		{User: "bob", Mechanism: kadm.ScramSha512, Iterations: 10000, Password: "bob-secret"},
		{User: "carol", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "carol-secret"},
	}
	richSCRAMDeleted = kadm.DeleteSCRAM{User: "carol", Mechanism: kadm.ScramSha256}
)

func upsertRichSCRAM(ctx context.Context, adm *kadm.Client) error {
	for _, u := range richSCRAM {
		// One request per credential: Kafka refuses to alter a user twice
		// in one request.
		if err := scramErr(adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{u})); err != nil {
			return err
		}
	}
	return nil
}

func deleteRichSCRAM(ctx context.Context, adm *kadm.Client) error {
	return scramErr(adm.AlterUserSCRAMs(ctx, []kadm.DeleteSCRAM{richSCRAMDeleted}, nil))
}

// retryNotFound retries fn while the broker it reached does not know yet
// what another broker created a moment ago (a token, a topic).
func retryNotFound(fn func() error) error {
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		err := fn()
		if !(errors.Is(err, kerr.DelegationTokenNotFound) || errors.Is(err, kerr.UnknownTopicOrPartition)) || time.Now().After(deadline) {
			return err
		}
	}
}
func alterErr(rs kadm.AlterConfigsResponses, err error) error {
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Err != nil {
			return fmt.Errorf("alter configs %s: %w (%s)", r.Name, r.Err, r.ErrMessage)
		}
	}
	return nil
}

func quotaErr(rs kadm.AlteredClientQuotas, err error) error {
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Err != nil {
			return fmt.Errorf("alter quota %v: %w (%s)", r.Entity, r.Err, r.ErrMessage)
		}
	}
	return nil
}

func scramErr(rs kadm.AlteredUserSCRAMs, err error) error {
	if err != nil {
		return err
	}
	for u, r := range rs {
		if r.Err != nil {
			return fmt.Errorf("alter SCRAM %s: %w (%s)", u, r.Err, r.ErrMessage)
		}
	}
	return nil
}
