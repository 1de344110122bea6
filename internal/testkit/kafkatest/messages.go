package kafkatest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Message is one record as a consumer sees it.
type Message struct {
	Topic     string             `json:"topic"`
	Partition int32              `json:"partition"`
	Offset    int64              `json:"offset"`
	Key       []byte             `json:"key"`
	Value     []byte             `json:"value"`
	Headers   []kgo.RecordHeader `json:"headers"`
	Timestamp int64              `json:"timestamp"`
}

func (m Message) String() string {
	return fmt.Sprintf("%s-%d@%d key=%q value=%q headers=%d ts=%d", m.Topic, m.Partition, m.Offset, m.Key, m.Value, len(m.Headers), m.Timestamp)
}

func equalMessage(a, b Message) bool {
	if a.Topic != b.Topic || a.Partition != b.Partition || a.Offset != b.Offset || !bytes.Equal(a.Key, b.Key) ||
		!bytes.Equal(a.Value, b.Value) || a.Timestamp != b.Timestamp || len(a.Headers) != len(b.Headers) {
		return false
	}
	for i := range a.Headers {
		if a.Headers[i].Key != b.Headers[i].Key || !bytes.Equal(a.Headers[i].Value, b.Headers[i].Value) {
			return false
		}
	}
	return true
}

// DataOptions configures ProduceData.
type DataOptions struct {
	// Group commits consumer-group offsets under this group id.
	Group string
}

// Data is what ProduceData wrote: every acknowledged committed record and
// the committed group offsets.
type Data struct {
	Produced []Message
	// Aborted records were produced in an aborted transaction:
	// read_committed consumers must never see them.
	Aborted []Message
	Group   string
	// Offsets are the committed group offsets, topic → partition → offset.
	Offsets map[string]map[int32]int64
	Topics  []string
	Log     []string
}

// ProduceData writes messages into the rich set's topics (PopulateRich
// must have run): gzip batches into orders.v1, zstd batches with headers
// into user_events, a transactional producer's two committed and one
// aborted transaction into payments_v2.eu, keyed records (keys repeated)
// into the compacted topic; then it commits group offsets.
func ProduceData(ctx context.Context, c *Cluster, opts DataOptions) (*Data, error) {
	d := &Data{Group: opts.Group, Offsets: map[string]map[int32]int64{},
		Topics: []string{"orders.v1", "user_events", "payments_v2.eu", "compacted"}}
	did := func(format string, args ...any) { d.Log = append(d.Log, fmt.Sprintf(format, args...)) }
	ts := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	n := 0
	rec := func(topic string, part int32, key string, hdrs ...kgo.RecordHeader) *kgo.Record {
		n++
		r := &kgo.Record{Topic: topic, Partition: part, Value: []byte(fmt.Sprintf("value %d of %s, %s", n, topic, bytes.Repeat([]byte{'x'}, n%17))),
			Headers: hdrs, Timestamp: ts.Add(time.Duration(n) * time.Millisecond)}
		if key != "" {
			r.Key = []byte(key)
		}
		return r
	}
	produce := func(comp kgo.CompressionCodec, recs []*kgo.Record, extra ...kgo.Opt) error {
		cl, err := kgo.NewClient(append(c.ClientOpts(), append([]kgo.Opt{kgo.ProducerBatchCompression(comp),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(50 * time.Millisecond)}, extra...)...)...)
		if err != nil {
			return err
		}
		defer cl.Close()
		return retryNotFound(func() error {
			res := cl.ProduceSync(ctx, recs...)
			if err := res.FirstErr(); err != nil {
				return err
			}
			for _, r := range res {
				d.Produced = append(d.Produced, toMessage(r.Record))
			}
			return nil
		})
	}
	var recs []*kgo.Record
	for i := range 60 {
		recs = append(recs, rec("orders.v1", int32(i%5), fmt.Sprintf("order-%d", i)))
	}
	if err := produce(kgo.GzipCompression(), recs); err != nil {
		return d, fmt.Errorf("produce orders.v1: %w", err)
	}
	did("Produce 60 records to orders.v1 (5 partitions, gzip)")
	recs = nil
	for i := range 40 {
		recs = append(recs, rec("user_events", int32(i%2), "", kgo.RecordHeader{Key: "trace", Value: []byte(fmt.Sprintf("t-%d", i))},
			kgo.RecordHeader{Key: "empty", Value: nil}))
	}
	if err := produce(kgo.ZstdCompression(), recs); err != nil {
		return d, fmt.Errorf("produce user_events: %w", err)
	}
	did("Produce 40 records with headers to user_events (2 partitions, zstd)")
	recs = nil
	for i := range 30 {
		recs = append(recs, rec("compacted", int32(i%2), fmt.Sprintf("key-%d", i%10)))
	}
	if err := produce(kgo.Lz4Compression(), recs); err != nil {
		return d, fmt.Errorf("produce compacted: %w", err)
	}
	did("Produce 30 keyed records (10 keys) to compacted (lz4)")

	txn, err := kgo.NewClient(append(c.ClientOpts(), kgo.TransactionalID("kmeta-migrate-txn"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.SnappyCompression()))...)
	if err != nil {
		return d, err
	}
	defer txn.Close()
	for round, commit := range []bool{true, false, true} {
		if err := txn.BeginTransaction(); err != nil {
			return d, fmt.Errorf("begin transaction: %w", err)
		}
		var got []Message
		for i := range 8 {
			res := txn.ProduceSync(ctx, rec("payments_v2.eu", int32((i+round)%4), fmt.Sprintf("pay-%d-%d", round, i)))
			if err := res.FirstErr(); err != nil {
				return d, fmt.Errorf("transactional produce: %w", err)
			}
			got = append(got, toMessage(res[0].Record))
		}
		if err := txn.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			return d, fmt.Errorf("end transaction: %w", err)
		}
		if commit {
			d.Produced = append(d.Produced, got...)
		} else {
			d.Aborted = append(d.Aborted, got...)
		}
	}
	did("Transactions into payments_v2.eu (snappy): 8 records committed, 8 aborted, 8 committed")

	if opts.Group != "" {
		cl, err := kgo.NewClient(c.ClientOpts()...)
		if err != nil {
			return d, err
		}
		defer cl.Close()
		adm := kadm.NewClient(cl)
		var os kadm.Offsets
		for _, m := range d.Produced {
			if m.Topic == "orders.v1" || m.Topic == "user_events" {
				if cur, ok := os.Lookup(m.Topic, m.Partition); !ok || cur.At < m.Offset {
					os.Add(kadm.Offset{Topic: m.Topic, Partition: m.Partition, At: m.Offset, LeaderEpoch: -1, Metadata: "kmeta"})
				}
			}
		}
		r, err := adm.CommitOffsets(ctx, opts.Group, os)
		if err = errors.Join(err, r.Error()); err != nil {
			return d, fmt.Errorf("commit offsets: %w", err)
		}
		os.Each(func(o kadm.Offset) {
			if d.Offsets[o.Topic] == nil {
				d.Offsets[o.Topic] = map[int32]int64{}
			}
			d.Offsets[o.Topic][o.Partition] = o.At
		})
		did("OffsetCommit group %s on orders.v1 and user_events", opts.Group)
	}
	SortMessages(d.Produced)
	SortMessages(d.Aborted)
	return d, nil
}

func toMessage(r *kgo.Record) Message {
	return Message{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value,
		Headers: slices.Clone(r.Headers), Timestamp: r.Timestamp.UnixMilli()}
}

// SortMessages sorts by topic, partition and offset.
func SortMessages(ms []Message) {
	slices.SortFunc(ms, func(a, b Message) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
}

// ConsumeAll reads every record of topics from the start with
// read_committed isolation. It connects with c.ClientOpts(), or, when opts
// are given, with opts instead (seed brokers and SASL of a given user:
// kgo.SASL appends, so the cluster's own PLAIN super user must not be
// among them). It stops once at least want records arrived and the
// cluster sent nothing for a while.
func ConsumeAll(ctx context.Context, c *Cluster, topics []string, want int, opts ...kgo.Opt) ([]Message, error) {
	base := c.ClientOpts()
	if len(opts) > 0 {
		base, opts = opts, nil
	}
	cl, err := kgo.NewClient(append(append(base, kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted())), opts...)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var out []Message
	deadline := time.Now().Add(90 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		var ferr error
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				ferr = errors.Join(ferr, fmt.Errorf("%s-%d: %w", t, p, err))
			}
		})
		if ferr != nil {
			return out, ferr
		}
		got := 0
		fs.EachRecord(func(r *kgo.Record) { out = append(out, toMessage(r)); got++ })
		if got == 0 && len(out) >= want {
			break
		}
		if time.Now().After(deadline) {
			return out, fmt.Errorf("consumed %d records of at least %d before the deadline", len(out), want)
		}
	}
	SortMessages(out)
	return out, nil
}

// DiffMessages describes how got differs from want (empty when equal).
func DiffMessages(want, got []Message) []string {
	var out []string
	key := func(m Message) string { return fmt.Sprintf("%s-%d@%d", m.Topic, m.Partition, m.Offset) }
	gm := map[string]Message{}
	for _, m := range got {
		gm[key(m)] = m
	}
	wm := map[string]bool{}
	for _, m := range want {
		wm[key(m)] = true
		g, ok := gm[key(m)]
		switch {
		case !ok:
			out = append(out, "missing "+m.String())
		case !equalMessage(m, g):
			out = append(out, fmt.Sprintf("differs: want %s, got %s", m, g))
		}
	}
	for _, m := range got {
		if !wm[key(m)] {
			out = append(out, "unexpected "+m.String())
		}
	}
	return out
}
