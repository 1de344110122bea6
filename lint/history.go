package lint

import (
	"slices"
	"time"

	"github.com/kmeta/kmeta/model"
)

// Since says from when a finding has held: the offset and batch time of
// the record after which it appeared (and has held ever since), and that
// record's type. A finding that appeared, cleared and came back holds
// since its last appearance.
//
// On a ZooKeeper data dir the position is a transaction: Offset and Zxid
// are its zxid, Time the transaction's time, Record the operation on the
// znode (create, setData, delete, closeSession for an ephemeral its
// session's end removed; snapshot when the finding was already in the
// snapshot the replay starts from) and Znode the znode whose change made
// it so, relative to the chroot.
type Since struct {
	Offset int64     `json:"offset"`
	Time   time.Time `json:"time"`
	Record string    `json:"record"`
	Zxid   int64     `json:"zxid,omitempty"`
	Znode  string    `json:"znode,omitempty"`
}

// Change is one replayed record as the Tracker sees it: where it is and
// what it touched. The caller (which reads the log; lint never imports a
// reader) says which scope a record touches.
type Change struct {
	Offset int64
	Time   time.Time
	Record string
	// Zxid and Znode, on a ZooKeeper data dir (see Since).
	Zxid  int64
	Znode string
	// Topic is the topic the record is about ("" none); Partition its
	// partition, or -1 for the topic as a whole (a TopicRecord, a topic
	// config, ClearElr). Removed: the topic is gone (RemoveTopicRecord);
	// Config: the record is one of the topic's configs.
	Topic     string
	Partition int32
	Removed   bool
	Config    bool
	// Inputs are the cluster-wide inputs the record changed: brokers,
	// broker and cluster-default configs, features, the quorum, the
	// migration state (InputTopicConfig and InputPartitions are set by
	// the Tracker from Topic).
	Inputs Input
}

// fkey is a finding's identity across evaluations.
type fkey struct{ code, entity string }

// scope is what a check was evaluated on: a partition, a topic (part
// -1) or the cluster (topic "", cluster true).
type scope struct {
	cluster bool
	topic   string
	part    int32
}

// Tracker evaluates the rules incrementally during one replay (the
// package doc's "replay-driven tracker"): after each record it re-runs
// only the checks whose scope the record touched, and keeps, for each
// finding present, the position since which it has held. Memory is
// proportional to the findings present (plus the rules' scratch), not to
// the records replayed.
//
// Cost: a partition record costs its partition's checks. The checks that
// walk a whole topic (its Topic rules) or every partition (the three
// Cluster rules of InputPartitions: preferred-leader imbalance, brokers
// without replicas, throttles left set) run once per batch that touched
// them through partition records (Flush, after each batch), so their
// findings hold since the last partition record of that batch that
// touched their scope (for a topic's rules, the last partition record of
// the batch about that topic). A record about a topic as a whole (the
// topic, one of its configs, its ELR cleared) runs the topic's rules at
// once: a topic config is what makes most of them fire, and it is named
// exactly (Kafka 4.x writes a ClearElrRecord after a topic's
// min.insync.replicas in the same batch; the finding holds since the
// config). A broker, feature or cluster-config record re-runs every
// check reading it, over every partition.
type Tracker struct {
	opts  Options
	rules []*Rule
	since map[fkey]Since
	// byScope indexes the findings present by the scope that produced
	// them, so a re-evaluation drops those it no longer reports.
	byScope map[scope]map[fkey]struct{}
	c       *Context
	scratch []*model.Partition
	// The checks that walk a whole topic (Topic rules) or every partition
	// (Cluster rules of InputPartitions) are not re-run after each
	// partition record but once per batch (the records of one batch
	// time): pendTopics holds each touched topic's last record, pendWalk
	// the batch's last partition record, until the caller's Flush.
	pendTopics map[string]Since
	pendWalk   *Since
}

// NewTracker starts a tracker for the rules opts selects.
func NewTracker(opts Options) (*Tracker, error) {
	if err := CheckCodes(opts.Only); err != nil {
		return nil, err
	}
	if err := CheckCodes(opts.Skip); err != nil {
		return nil, err
	}
	t := &Tracker{opts: opts, since: map[fkey]Since{}, byScope: map[scope]map[fkey]struct{}{}, pendTopics: map[string]Since{}}
	for _, r := range Rules() {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, r.Code) || slices.Contains(opts.Skip, r.Code) {
			continue
		}
		t.rules = append(t.rules, r)
	}
	return t, nil
}

// Observe re-evaluates what ch touched on img, the image as of ch.
func (t *Tracker) Observe(img *model.Image, ch Change) {
	if t.c == nil || t.c.Img != img {
		// The first record, or replay started over on a new image:
		// nothing held before holds on it.
		t.c = newContext(img, t.opts)
		t.c.memoize = true // forgetConfigs below, on every config or feature change
		clear(t.since)
		clear(t.byScope)
		clear(t.pendTopics)
		t.pendWalk = nil
	}
	at := Since{Offset: ch.Offset, Time: ch.Time, Record: ch.Record, Zxid: ch.Zxid, Znode: ch.Znode}
	in := ch.Inputs
	if ch.Topic != "" {
		switch {
		case ch.Config:
			in |= InputTopicConfig
		case ch.Removed:
			// Its partitions and its configs go with it.
			in |= InputPartitions | InputTopicConfig
		default:
			in |= InputPartitions
		}
		if ch.Partition < 0 && !ch.Config {
			t.c.topics = nil // recomputed before a rule walks them
		}
	}
	if in&InputBrokers != 0 {
		t.c.refreshBrokers()
	}
	if in&(InputClusterConfig|InputTopicConfig|InputFeatures) != 0 {
		t.c.forgetConfigs()
	}
	cluster := in&^(InputPartitions|InputTopicConfig) != 0
	// The topic's own checks.
	if ch.Topic != "" {
		tp := img.Topics[ch.Topic]
		if ch.Removed || tp == nil {
			t.dropTopic(ch.Topic)
		} else {
			t.evalTopic(tp, ch.Partition, at)
		}
	}
	// Partition and topic checks reading what changed cluster-wide.
	if cluster {
		t.ensureTopics()
		for _, tp := range t.c.topics {
			t.evalTopicInputs(tp, in, at)
		}
	}
	// Cluster checks: all of them after a cluster-wide change, those
	// reading what changed otherwise.
	for _, r := range t.rules {
		if r.Cluster == nil || !cluster && r.Inputs&in == 0 {
			continue
		}
		if !cluster && r.Inputs&InputPartitions != 0 && in&InputTopicConfig == 0 {
			t.pendWalk = &at // once, at the end of the batch
			continue
		}
		if r.Inputs&InputPartitions != 0 {
			t.ensureTopics()
			t.c.refreshReplicas()
		}
		var fs []Finding
		if t.applies(r) {
			fs = r.Cluster(t.c)
		}
		t.settle(scope{cluster: true}, r.Code, fs, at)
	}
}

// applies says whether r can run on the image as it now is.
func (t *Tracker) applies(r *Rule) bool {
	if len(notReported(t.c.Img, r.Needs)) > 0 {
		return false
	}
	if r.Applies != nil {
		ok, _ := r.Applies(t.c)
		return ok
	}
	return true
}

// evalTopic runs tp's topic checks and the partition checks of part (all
// its partitions when part is -1).
func (t *Tracker) evalTopic(tp *model.Topic, part int32, at Since) {
	if part >= 0 {
		t.pendTopics[tp.Name] = at // the topic checks, at the end of the batch
	}
	for _, r := range t.rules {
		switch {
		case r.Topic != nil:
			if part < 0 {
				t.run(r, tp, nil, at)
			}
		case r.Partition != nil:
			if part >= 0 {
				if p := tp.Partitions[part]; p != nil {
					t.run(r, tp, p, at)
				}
				continue
			}
			t.scratch = tp.AppendSortedPartitions(t.scratch[:0])
			for _, p := range t.scratch {
				t.run(r, tp, p, at)
			}
		}
	}
}

// evalTopicInputs re-runs tp's topic and partition checks that read one
// of in.
func (t *Tracker) evalTopicInputs(tp *model.Topic, in Input, at Since) {
	for _, r := range t.rules {
		if r.Inputs&in == 0 {
			continue
		}
		switch {
		case r.Topic != nil:
			t.run(r, tp, nil, at)
		case r.Partition != nil:
			t.scratch = tp.AppendSortedPartitions(t.scratch[:0])
			for _, p := range t.scratch {
				t.run(r, tp, p, at)
			}
		}
	}
}

// run evaluates one topic (p nil) or partition check.
func (t *Tracker) run(r *Rule, tp *model.Topic, p *model.Partition, at Since) {
	sc := scope{topic: tp.Name, part: -1}
	var fs []Finding
	ok := t.applies(r)
	if p != nil {
		sc.part = p.ID
		if ok {
			fs = r.Partition(t.c, tp, p)
		}
	} else if ok {
		fs = r.Topic(t.c, tp)
	}
	t.settle(sc, r.Code, fs, at)
}

// settle records rule code's findings fs on scope sc: new ones hold
// since at, those it no longer reports are dropped.
func (t *Tracker) settle(sc scope, code string, fs []Finding, at Since) {
	have := t.byScope[sc]
	for k := range have {
		if k.code == code && !slices.ContainsFunc(fs, func(f Finding) bool { return f.Entity == k.entity }) {
			delete(have, k)
			delete(t.since, k)
		}
	}
	for _, f := range fs {
		k := fkey{code, f.Entity}
		if _, ok := t.since[k]; ok {
			continue
		}
		t.since[k] = at
		if have == nil {
			have = map[fkey]struct{}{}
			t.byScope[sc] = have
		}
		have[k] = struct{}{}
	}
	if have != nil && len(have) == 0 {
		delete(t.byScope, sc)
	}
}

// Flush runs the checks the batch left pending, on the image as the
// batch left it: each touched topic's Topic checks, as of the last record
// that touched it, and the Cluster checks that walk every partition, as
// of the batch's last partition record. The caller calls it after each
// batch (metalog's BatchDone); Annotate calls it too.
func (t *Tracker) Flush() {
	if t.c == nil {
		return
	}
	t.flush()
}

func (t *Tracker) flush() {
	for name, at := range t.pendTopics {
		if tp := t.c.Img.Topics[name]; tp != nil {
			for _, r := range t.rules {
				if r.Topic != nil {
					t.run(r, tp, nil, at)
				}
			}
		}
	}
	clear(t.pendTopics)
	if at := t.pendWalk; at != nil {
		t.pendWalk = nil
		t.ensureTopics()
		t.c.refreshReplicas()
		for _, r := range t.rules {
			if r.Cluster != nil && r.Inputs&InputPartitions != 0 {
				var fs []Finding
				if t.applies(r) {
					fs = r.Cluster(t.c)
				}
				t.settle(scope{cluster: true}, r.Code, fs, *at)
			}
		}
	}
}

// dropTopic forgets the findings of a topic that is gone.
func (t *Tracker) dropTopic(name string) {
	delete(t.pendTopics, name)
	for sc, have := range t.byScope {
		if sc.cluster || sc.topic != name {
			continue
		}
		for k := range have {
			delete(t.since, k)
		}
		delete(t.byScope, sc)
	}
}

// ensureTopics recomputes the sorted topic list after a topic came or
// went.
func (t *Tracker) ensureTopics() {
	if t.c.topics == nil {
		t.c.topics = t.c.Img.SortedTopics()
	}
}

// Annotate sets the Since of res's findings (a Run on the image the
// tracker ended on); a finding the tracker did not see appear keeps nil.
func (t *Tracker) Annotate(res *Result) {
	t.Flush()
	for i := range res.Findings {
		f := &res.Findings[i]
		if s, ok := t.since[fkey{f.Code, f.Entity}]; ok {
			f.Since = &s
		}
	}
}

// Tracked is the number of findings present (as of the last Annotate or
// the last batch).
func (t *Tracker) Tracked() int { return len(t.since) }
