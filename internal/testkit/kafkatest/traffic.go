package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TrafficOptions configures StartTraffic.
type TrafficOptions struct {
	// Topic is created with replication factor 3 and min.insync.replicas
	// 2, so one broker may be down at a time (default "kmeta.traffic").
	Topic string
	// Partitions of the topic (default 3).
	Partitions int32
	// Group is the consumer group (default "kmeta-traffic").
	Group string
	// Interval is the pause between two produced records (default 20 ms).
	Interval time.Duration
	// Probe also runs an acks=all producer that never retries, one
	// record to every partition every ProbeInterval (default 500 ms), and
	// counts each answer: an error its retrying sibling hides (Kafka's
	// NOT_ENOUGH_REPLICAS while a partition's ISR is under its
	// min.insync.replicas) shows there.
	Probe         bool
	ProbeInterval time.Duration
}

// Traffic is a producer and a consumer group member running in the
// background against a cluster, as applications do during a rolling
// migration. The producer is idempotent with acks=all and retries until a
// record's delivery timeout; the consumer commits as it goes. Both use
// the cluster's bootstrap listeners and reconnect to whichever brokers are
// up, so they live through broker and controller restarts.
type Traffic struct {
	Topic string
	Group string

	c        *Cluster
	prod     *kgo.Client
	cons     *kgo.Client
	stopProd context.CancelFunc
	stopCons context.CancelFunc
	prodDone chan struct{}
	consDone chan struct{}
	started  time.Time

	mu          sync.Mutex
	next        int
	acked       []Message
	failed      []string
	consumed    map[string]Message
	redelivered int
	fetchErrs   map[string]int
	probeOK     int
	probeErrs   map[string]int
	probeFirst  map[string]time.Time
	probeDone   chan struct{}
}

// TrafficResult is what Traffic.Stop returns.
type TrafficResult struct {
	Topic, Group string
	// Acked are the records the producer got an acknowledgement for
	// (acks=all), sorted by partition and offset.
	Acked []Message
	// Consumed are the distinct records the group member received, sorted.
	Consumed []Message
	// Failed are the records whose produce failed for good (delivery
	// timeout): not acknowledged, so they may or may not exist.
	Failed []string
	// Redelivered counts records received more than once (at-least-once
	// redelivery after a rebalance or a restart: expected, not a loss).
	Redelivered int
	// FetchErrors are the distinct fetch errors seen, with their counts.
	FetchErrors map[string]int
	// Committed are the group's committed offsets and End the partitions'
	// end offsets at the end, partition → offset.
	Committed, End map[int32]int64
	// Duration is how long the traffic ran.
	Duration time.Duration
	// ProbeOK counts the probe's acknowledged records, ProbeErrors its
	// refused ones by error (TrafficOptions.Probe), ProbeFirst when each
	// error was first seen.
	ProbeOK     int
	ProbeErrors map[string]int
	ProbeFirst  map[string]time.Time
}

// StartTraffic creates the topic and starts producing and consuming. Stop
// must be called (t.Cleanup closes the clients if the test ends first).
func StartTraffic(ctx context.Context, t testing.TB, c *Cluster, opts TrafficOptions) (*Traffic, error) {
	if opts.Topic == "" {
		opts.Topic = "kmeta.traffic"
	}
	if opts.Partitions == 0 {
		opts.Partitions = 3
	}
	if opts.Group == "" {
		opts.Group = "kmeta-traffic"
	}
	if opts.Interval == 0 {
		opts.Interval = 20 * time.Millisecond
	}
	adm, err := kgo.NewClient(c.ClientOpts()...)
	if err != nil {
		return nil, err
	}
	defer adm.Close()
	r, err := kadm.NewClient(adm).CreateTopic(ctx, opts.Partitions, 3,
		map[string]*string{"min.insync.replicas": kadm.StringPtr("2")}, opts.Topic)
	if err = errors.Join(err, r.Err); err != nil {
		return nil, fmt.Errorf("kafkatest: create traffic topic %s: %w", opts.Topic, err)
	}
	tr := &Traffic{Topic: opts.Topic, Group: opts.Group, c: c, consumed: map[string]Message{}, fetchErrs: map[string]int{},
		probeErrs: map[string]int{}, probeFirst: map[string]time.Time{}}
	// franz-go producers are idempotent with acks=all by default; both are
	// spelled out because they are what makes an acknowledged record safe
	// across a broker restart. The delivery timeout bounds how long a
	// record is retried while no leader can take it. The linger stays at
	// 5 ms, about one record a request: 100 ms (five a request) cut the
	// traffic's cost to a three-broker SSL cluster from 11 to 6 CPU-s in
	// 30 s, but the first make test with it saw a batch of five records
	// fail for good in the SSL walk (2026-12-07), which no run had seen
	// with one record a request.
	tr.prod, err = kgo.NewClient(append(c.ClientOpts(), kgo.DefaultProduceTopic(opts.Topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordDeliveryTimeout(3*time.Minute),
		kgo.MaxBufferedRecords(2000), kgo.ProducerLinger(5*time.Millisecond))...)
	if err != nil {
		return nil, err
	}
	tr.cons, err = kgo.NewClient(append(c.ClientOpts(), kgo.ConsumeTopics(opts.Topic), kgo.ConsumerGroup(opts.Group),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.AutoCommitInterval(time.Second))...)
	if err != nil {
		tr.prod.Close()
		return nil, err
	}
	pctx, pcancel := context.WithCancel(context.Background())
	cctx, ccancel := context.WithCancel(context.Background())
	// The probe's requests outlive a stop: Stop waits for the one in
	// flight (so that the log holds no record appended after the
	// consumer drained); only the test's end cuts it short.
	rctx, rcancel := context.WithCancel(context.Background())
	tr.stopProd, tr.stopCons = pcancel, ccancel
	t.Cleanup(func() {
		// A test that ends without Stop: the probe goes first (it opens
		// clients with the cluster's files, which later cleanups remove).
		pcancel()
		rcancel()
		if tr.probeDone != nil {
			<-tr.probeDone
		}
		tr.prod.Close()
		tr.cons.Close()
	})
	tr.prodDone, tr.consDone = make(chan struct{}), make(chan struct{})
	tr.started = time.Now()
	go tr.produce(pctx, opts.Interval)
	go tr.consume(cctx)
	if opts.Probe {
		if opts.ProbeInterval == 0 {
			opts.ProbeInterval = 500 * time.Millisecond
		}
		tr.probeDone = make(chan struct{})
		go tr.probe(pctx, rctx, opts.ProbeInterval)
	}
	return tr, nil
}

// probe produces to every partition with acks=all and no retry, every
// interval, until ctx ends, and counts the answers; its requests run in
// reqCtx, so that the one in flight when ctx ends is answered.
func (tr *Traffic) probe(ctx, reqCtx context.Context, interval time.Duration) {
	defer close(tr.probeDone)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		res, err := tr.c.ProduceProbe(reqCtx, 10*time.Second, tr.Topic)
		if reqCtx.Err() != nil {
			return
		}
		tr.mu.Lock()
		if err != nil {
			tr.noteProbe("probe: " + err.Error())
		}
		for _, e := range res {
			if e == nil {
				tr.probeOK++
			} else {
				tr.noteProbe(e.Error())
			}
		}
		tr.mu.Unlock()
	}
}

func (tr *Traffic) noteProbe(e string) {
	if tr.probeErrs[e] == 0 {
		tr.probeFirst[e] = time.Now()
	}
	tr.probeErrs[e]++
}

func (tr *Traffic) produce(ctx context.Context, interval time.Duration) {
	defer close(tr.prodDone)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		tr.mu.Lock()
		i := tr.next
		tr.next++
		tr.mu.Unlock()
		rec := &kgo.Record{Key: fmt.Appendf(nil, "k-%06d", i), Value: fmt.Appendf(nil, "message %d", i)}
		// The producer's own context, not ctx: stopping the loop must
		// not abort records already handed over; Stop flushes them.
		tr.prod.Produce(context.Background(), rec, func(r *kgo.Record, err error) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if err != nil {
				tr.failed = append(tr.failed, fmt.Sprintf("%s: %v", r.Key, err))
				return
			}
			tr.acked = append(tr.acked, toMessage(r))
		})
	}
}

func (tr *Traffic) consume(ctx context.Context) {
	defer close(tr.consDone)
	for ctx.Err() == nil {
		fs := tr.cons.PollFetches(ctx)
		tr.mu.Lock()
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.Canceled) {
				tr.fetchErrs[err.Error()]++
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			m := toMessage(r)
			k := msgKey(m)
			if _, dup := tr.consumed[k]; dup {
				tr.redelivered++
				return
			}
			tr.consumed[k] = m
		})
		tr.mu.Unlock()
	}
}

func msgKey(m Message) string { return fmt.Sprintf("%s-%d@%d", m.Topic, m.Partition, m.Offset) }

// Counts returns how many records were acknowledged and consumed so far.
func (tr *Traffic) Counts() (acked, consumed int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.acked), len(tr.consumed)
}

// Advance waits until n more records were both acknowledged and consumed
// than when it was called: the proof that clients are served right now.
func (tr *Traffic) Advance(ctx context.Context, n int, timeout time.Duration) error {
	a0, c0 := tr.Counts()
	deadline := time.Now().Add(timeout)
	for {
		a, c := tr.Counts()
		if a-a0 >= n && c-c0 >= n {
			return nil
		}
		if time.Now().After(deadline) {
			tr.mu.Lock()
			errs := fmt.Sprint(tr.fetchErrs)
			tr.mu.Unlock()
			return fmt.Errorf("kafkatest: traffic stalled: %d acknowledged and %d consumed in %s, want %d each (fetch errors %s)",
				a-a0, c-c0, timeout, n, errs)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops producing, waits for every record in flight to be
// acknowledged or to fail (the probe's too), lets the consumer drain
// until it has every acknowledged record and has reached each
// partition's end (at most drain), commits, and reports. The cluster's
// brokers must be up.
func (tr *Traffic) Stop(ctx context.Context, drain time.Duration) (*TrafficResult, error) {
	tr.stopProd()
	<-tr.prodDone
	if tr.probeDone != nil {
		<-tr.probeDone
	}
	fctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	err := tr.prod.Flush(fctx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("kafkatest: traffic flush: %w", err)
	}
	// The consumer drains to the partitions' ends, not only to the
	// acknowledged records: a probe record sent as the probe stopped is
	// in the log though nobody saw its answer, and a group that stopped
	// short of it would look behind (committed offset < end).
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	adm := kadm.NewClient(tr.prod)
	drainTo := map[int32]int64{}
	if le, err := adm.ListEndOffsets(cctx, tr.Topic); err == nil && le.Error() == nil {
		le.Each(func(o kadm.ListedOffset) { drainTo[o.Partition] = o.Offset })
	}
	deadline := time.Now().Add(drain)
	for {
		snap := tr.snapshot()
		if len(snap.missing()) == 0 && snap.reaches(drainTo) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	tr.stopCons()
	<-tr.consDone
	res := tr.snapshot()
	res.Duration = time.Since(tr.started)
	// Right after a roll a broker connection may still close under the
	// client (EOF): the commit and the fetch are retried until the
	// minute is up, as a client would.
	var committed kadm.OffsetResponses
	for {
		cerr := tr.cons.CommitUncommittedOffsets(cctx)
		var err error
		committed, err = adm.FetchOffsets(cctx, tr.Group)
		if err = errors.Join(cerr, err, committed.Error()); err == nil {
			break
		} else if cctx.Err() != nil {
			return res, fmt.Errorf("kafkatest: traffic group offsets: %w", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	ends, err := adm.ListEndOffsets(cctx, tr.Topic)
	if err = errors.Join(err, ends.Error()); err != nil {
		return res, fmt.Errorf("kafkatest: traffic end offsets: %w", err)
	}
	res.Committed, res.End = map[int32]int64{}, map[int32]int64{}
	committed.Each(func(o kadm.OffsetResponse) {
		if o.Topic == tr.Topic {
			res.Committed[o.Partition] = o.At
		}
	})
	ends.Each(func(o kadm.ListedOffset) { res.End[o.Partition] = o.Offset })
	tr.cons.Close()
	tr.prod.Close()
	return res, nil
}

func (tr *Traffic) snapshot() *TrafficResult {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	r := &TrafficResult{Topic: tr.Topic, Group: tr.Group, Acked: slices.Clone(tr.acked),
		Failed: slices.Clone(tr.failed), Redelivered: tr.redelivered, FetchErrors: map[string]int{},
		ProbeOK: tr.probeOK, ProbeErrors: maps.Clone(tr.probeErrs), ProbeFirst: maps.Clone(tr.probeFirst)}
	for _, m := range tr.consumed {
		r.Consumed = append(r.Consumed, m)
	}
	for k, v := range tr.fetchErrs {
		r.FetchErrors[k] = v
	}
	SortMessages(r.Acked)
	SortMessages(r.Consumed)
	sort.Strings(r.Failed)
	return r
}

// reaches says whether the consumer has received each partition's last
// record before its end offset in ends.
func (r *TrafficResult) reaches(ends map[int32]int64) bool {
	last := map[int32]int64{}
	for _, m := range r.Consumed {
		if m.Topic == r.Topic {
			last[m.Partition] = max(last[m.Partition], m.Offset+1)
		}
	}
	for p, end := range ends {
		if last[p] < end {
			return false
		}
	}
	return true
}

// missing lists the acknowledged records the consumer did not receive, or
// received with another key or value at that offset.
func (r *TrafficResult) missing() []string {
	got := map[string]Message{}
	for _, m := range r.Consumed {
		got[msgKey(m)] = m
	}
	var out []string
	for _, m := range r.Acked {
		g, ok := got[msgKey(m)]
		switch {
		case !ok:
			out = append(out, "acknowledged, never consumed: "+m.String())
		case string(g.Key) != string(m.Key) || string(g.Value) != string(m.Value):
			out = append(out, fmt.Sprintf("at %s: acknowledged %q=%q, consumed %q=%q", msgKey(m), m.Key, m.Value, g.Key, g.Value))
		}
	}
	return out
}

// Problems lists everything that says a record was lost or the group did
// not keep up: acknowledged records not consumed (or consumed with other
// contents at their offset), and committed offsets short of the end. An
// empty list is the proof the migration kept every acknowledged record.
func (r *TrafficResult) Problems() []string {
	out := r.missing()
	for p, end := range r.End {
		if c, ok := r.Committed[p]; !ok || c != end {
			out = append(out, fmt.Sprintf("partition %d: committed offset %d (present %v), end offset %d", p, c, ok, end))
		}
	}
	if len(r.Acked) == 0 {
		out = append(out, "no record was acknowledged")
	}
	return out
}

// NotEnoughReplicas counts the probe's NOT_ENOUGH_REPLICAS and
// NOT_ENOUGH_REPLICAS_AFTER_APPEND answers: the times an acks=all
// producer was refused because an ISR was under min.insync.replicas.
func (r *TrafficResult) NotEnoughReplicas() int {
	n := 0
	for e, c := range r.ProbeErrors {
		if strings.Contains(e, "NOT_ENOUGH_REPLICAS") {
			n += c
		}
	}
	return n
}

// String summarises the run.
func (r *TrafficResult) String() string {
	s := fmt.Sprintf("%d records acknowledged, %d consumed (%d redelivered), %d failed, fetch errors %v",
		len(r.Acked), len(r.Consumed), r.Redelivered, len(r.Failed), r.FetchErrors)
	if r.ProbeOK > 0 || len(r.ProbeErrors) > 0 {
		s += fmt.Sprintf("; acks=all probe: %d acknowledged, refused %v", r.ProbeOK, r.ProbeErrors)
	}
	return s
}
