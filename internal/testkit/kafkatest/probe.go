package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProbeResult is what one acks=all produce to each partition answered:
// partition ("topic-N") → the error (nil: acknowledged).
type ProbeResult map[string]error

// NotEnoughReplicas are the partitions that answered NOT_ENOUGH_REPLICAS
// or NOT_ENOUGH_REPLICAS_AFTER_APPEND (the ISR under min.insync.replicas),
// sorted.
func (r ProbeResult) NotEnoughReplicas() []string {
	var out []string
	for p, err := range r {
		if errors.Is(err, kerr.NotEnoughReplicas) || errors.Is(err, kerr.NotEnoughReplicasAfterAppend) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Other are the partitions that failed with another error (a leader
// moving, no leader), "topic-N: error", sorted.
func (r ProbeResult) Other() []string {
	var out []string
	for p, err := range r {
		if err != nil && !errors.Is(err, kerr.NotEnoughReplicas) && !errors.Is(err, kerr.NotEnoughReplicasAfterAppend) {
			out = append(out, p+": "+err.Error())
		}
	}
	slices.Sort(out)
	return out
}

// ProduceProbe produces one record with acks=all to every partition of
// topics and reports each answer, without retrying: an acks=all producer
// sees NOT_ENOUGH_REPLICAS exactly while a partition's ISR is under its
// min.insync.replicas, which is what a rolling restart must not cause.
// The producer is not idempotent (so that a refused record fails at
// once) and each probe uses a new client.
func (c *Cluster) ProduceProbe(ctx context.Context, timeout time.Duration, topics ...string) (ProbeResult, error) {
	cl, err := kgo.NewClient(append(c.ClientOpts(), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DisableIdempotentWrite(),
		kgo.RecordRetries(0), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProduceRequestTimeout(timeout),
		kgo.RecordDeliveryTimeout(timeout+5*time.Second), kgo.ProducerLinger(0))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	mctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	md, err := kadm.NewClient(cl).Metadata(mctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: probe metadata: %w", err)
	}
	out := ProbeResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, t := range topics {
		td, ok := md.Topics[t]
		if !ok || td.Err != nil {
			return nil, fmt.Errorf("kafkatest: probe: topic %s: %v", t, td.Err)
		}
		for _, p := range td.Partitions {
			name := fmt.Sprintf("%s-%d", t, p.Partition)
			wg.Add(1)
			cl.Produce(ctx, &kgo.Record{Topic: t, Partition: p.Partition, Value: []byte("probe")}, func(_ *kgo.Record, err error) {
				mu.Lock()
				out[name] = err
				mu.Unlock()
				wg.Done()
			})
		}
	}
	wg.Wait()
	return out, nil
}
