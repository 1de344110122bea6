package lint

import (
	"maps"
	"slices"
	"time"

	"github.com/kmeta/kmeta/model"
)

// Since says from when a finding has held: the point from which it has
// held (Offset), and the record that made it so: its offset, its batch's
// time and its type. A finding that appeared, cleared and came back
// holds since its last appearance.
//
// Offset is a point, an offset kmeta stops a replay at (SOURCE@offset=N,
// image --at-offset): Kafka's loader publishes an image only at the end
// of a batch, or just before a metadata transaction, so the state with
// the finding first exists at the end of the batch that holds the record
// (of the batch that holds its transaction's End, for a transaction's
// record), or just before a transaction that batch opens (metalog's
// points; the caller says where each batch's point is, FlushPoint). The
// point before (Offset's batch's first offset less one) is a state
// without it. RecordOffset is the record's own offset, where kmeta log
// dump shows it.
//
// On a ZooKeeper data dir the position is a transaction, and every
// transaction is a point: Offset, RecordOffset and Zxid are its zxid,
// Time the transaction's time, Record the operation on the znode
// (create, setData, delete, closeSession for an ephemeral its session's
// end removed; snapshot when the finding was already in the snapshot the
// replay starts from) and Znode the znode whose change made it so,
// relative to the chroot.
type Since struct {
	Offset       int64     `json:"offset"`
	RecordOffset int64     `json:"recordOffset"`
	Time         time.Time `json:"time"`
	Record       string    `json:"record"`
	Zxid         int64     `json:"zxid,omitempty"`
	Znode        string    `json:"znode,omitempty"`
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

// held is a finding present and since when it has held. A finding is
// held by the one scope whose rule reports it (a rule has one scope,
// and its findings' entities are its scope's: a partition's name is its
// topic's and its id after the last dash).
type held struct {
	fkey
	at Since
}

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
// Cost: a partition record costs its partition's checks, and its part in
// the per-broker counts the Cluster rules of InputPartitions read
// (preferred-leader imbalance, brokers without replicas, replicas and
// preferred leaders unbalanced, throttles left set): the tracker keeps
// them up to date record by record (partCounts), where a recount walked
// every partition. The checks that walk a whole topic (its Topic rules),
// and those Cluster rules, run once per batch that touched them through
// partition records (Flush, after each batch), so their
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
	// byScope holds the findings present by the scope that produced
	// them, so a re-evaluation drops those it no longer reports.
	byScope map[scope][]held
	c       *Context
	scratch []*model.Partition
	// The checks that walk a whole topic (Topic rules) or every partition
	// (Cluster rules of InputPartitions) are not re-run after each
	// partition record but once per batch (the records of one batch
	// time): pendTopics holds each touched topic's last record (and
	// whether a record of the batch changed what its Topic rules read:
	// only then do they run), pendWalk the batch's last partition record,
	// until the caller's Flush.
	pendTopics map[string]pending
	pendWalk   *Since
	// counts keeps what the Cluster rules of InputPartitions read of every
	// partition (replicas, preferred and not-leading preferred replicas
	// per broker, partitions moving), record by record: recounted at each
	// batch, they walked every partition per batch (a million partition
	// changes over ten thousand partitions: 74 s).
	counts partCounts
	// leaders says whether a partition's leader is a Topic rule's input
	// (leadersCount): 0 not known, 1 no, 2 yes.
	leaders int8
	// fresh are the findings that appeared since the last point, held
	// since their record's offset until FlushPoint makes it the point at
	// which their state is first published (Flush, on a ZooKeeper
	// replay, where each transaction is a point, forgets them).
	fresh []freshRef
}

// freshRef is a finding that appeared since the last point: its scope,
// its key and its record's offset.
type freshRef struct {
	sc  scope
	k   fkey
	rec int64
}

// leadersCount says whether a Topic rule reads a partition's leader:
// only the effective min.insync.replicas does, and only when a broker
// sets its own (a broker config resource named by its id; the cluster
// default and topic configs do not depend on the leader). Known until a
// config changes.
func (t *Tracker) leadersCount() bool {
	if t.leaders == 0 {
		t.leaders = 1
		for r, kv := range t.c.Img.Configs {
			if _, ok := kv["min.insync.replicas"]; ok && r.Type == model.ConfigBroker && r.Name != "" {
				t.leaders = 2
				break
			}
		}
	}
	return t.leaders == 2
}

// pending is a topic whose Topic rules a batch may have changed.
type pending struct {
	at      Since // the batch's last record about the topic
	changed bool  // a record of the batch changed what they read
}

// partCounts is Context.refreshReplicas's counts kept up to date: each
// partition's part in them is kept (parts), taken out when the partition
// changes and put back as it now is. The counts of the usual small broker
// ids are in arrays (a record moves a few of them), the Context's maps
// made from them only when a rule is about to read them (into).
type partCounts struct {
	parts map[string]map[int32]partCount
	// dense and over count replicas, preferred and not-leading preferred
	// replicas per broker: ids below len(dense[0]), and the others.
	dense  [3][1024]int
	over   [3]map[int32]int
	moving int
	// hi bounds the dense ids ever counted: into reads dense[kind][:hi],
	// not a thousand ids of which a cluster uses a few.
	hi int
	// maps are the counts as the Context reads them, made again by into
	// when stale.
	maps  [3]map[int32]int
	stale bool
}

// partCount is one partition's part in the counts. replicas is the
// image's own list: a replay replaces a partition's lists, it never
// writes into them (see metalog's partitionArena), so the list counted is
// the one to take out again.
type partCount struct {
	replicas []int32
	// leader and removing (the number of replicas being removed) are
	// kept too: with replicas, they are all a Topic rule reads of a
	// partition (see topicInputs).
	leader             int32
	removing           int
	notLeading, moving bool
}

func countOf(p *model.Partition) partCount {
	return partCount{replicas: p.Replicas, leader: p.Leader, removing: len(p.RemovingReplicas),
		notLeading: len(p.Replicas) > 0 && notLeading(p), moving: len(p.AddingReplicas) > 0 || len(p.RemovingReplicas) > 0}
}

// topicInputs says whether a and b differ in what the Topic rules read
// of a partition: its replicas, how many of them a reassignment is
// removing, and its leader when leaders count (a broker's own
// min.insync.replicas is set: the effective value is then the leader's
// broker's). TestTopicRulesReadOnlyTopicInputs holds the rules to that.
func topicInputs(a, b partCount, leaders bool) bool {
	return leaders && a.leader != b.leader || a.removing != b.removing || !slices.Equal(a.replicas, b.replicas)
}

// bump adds d to m[k], keeping only counts above zero as keys.
func bump(m map[int32]int, k int32, d int) {
	if n := m[k] + d; n == 0 {
		delete(m, k)
	} else {
		m[k] = n
	}
}

// The kinds of count.
const (
	countReplicas = iota
	countPreferred
	countNotLeading
)

func (pc *partCounts) bump(kind int, id int32, d int) {
	if uint32(id) < uint32(len(pc.dense[kind])) {
		pc.dense[kind][id] += d
		pc.hi = max(pc.hi, int(id)+1)
	} else {
		bump(pc.over[kind], id, d)
	}
}

func (pc *partCounts) add(c partCount, d int) {
	pc.stale = true
	for _, r := range c.replicas {
		pc.bump(countReplicas, r, d)
	}
	if len(c.replicas) > 0 {
		pc.bump(countPreferred, c.replicas[0], d)
		if c.notLeading {
			pc.bump(countNotLeading, c.replicas[0], d)
		}
	}
	if c.moving {
		pc.moving += d
	}
}

// reset counts img's partitions afresh.
func (pc *partCounts) reset(img *model.Image) {
	*pc = partCounts{parts: map[string]map[int32]partCount{}, over: [3]map[int32]int{{}, {}, {}}, stale: true}
	for name, tp := range img.Topics {
		pc.setTopic(name, tp)
	}
}

// set takes partition pid of topic out of the counts and puts p (nil: it
// is gone) in; it says whether what a Topic rule reads of the partition
// changed (topicInputs; a partition that came or went did).
func (pc *partCounts) set(topic string, pid int32, p *model.Partition, leaders bool) bool {
	ps := pc.parts[topic]
	old, had := ps[pid]
	if had {
		pc.add(old, -1)
	}
	if p == nil {
		if had {
			delete(ps, pid)
		}
		return had
	}
	if ps == nil {
		ps = map[int32]partCount{}
		pc.parts[topic] = ps
	}
	c := countOf(p)
	ps[pid] = c
	pc.add(c, 1)
	return !had || topicInputs(old, c, leaders)
}

// setTopic takes every partition of topic out and puts tp's (nil: the
// topic is gone) in.
func (pc *partCounts) setTopic(topic string, tp *model.Topic) {
	for _, old := range pc.parts[topic] {
		pc.add(old, -1)
	}
	delete(pc.parts, topic)
	if tp == nil {
		return
	}
	ps := make(map[int32]partCount, len(tp.Partitions))
	for pid, p := range tp.Partitions {
		c := countOf(p)
		ps[pid] = c
		pc.add(c, 1)
	}
	pc.parts[topic] = ps
}

// into makes c's counts these, before a rule reads them.
func (pc *partCounts) into(c *Context) {
	if pc.stale {
		for kind := range pc.maps {
			// Made again, not cleared: a Context may still hold the
			// last ones.
			m := maps.Clone(pc.over[kind])
			for id, n := range pc.dense[kind][:pc.hi] {
				if n != 0 {
					m[int32(id)] = n
				}
			}
			pc.maps[kind] = m
		}
		pc.stale = false
	}
	c.replicas, c.preferred, c.notLeading = pc.maps[countReplicas], pc.maps[countPreferred], pc.maps[countNotLeading]
	c.moving = pc.moving > 0
}

// NewTracker starts a tracker for the rules opts selects.
func NewTracker(opts Options) (*Tracker, error) {
	if err := CheckCodes(opts.Only); err != nil {
		return nil, err
	}
	if err := CheckCodes(opts.Skip); err != nil {
		return nil, err
	}
	t := &Tracker{opts: opts, byScope: map[scope][]held{}, pendTopics: map[string]pending{}}
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
		t.c.memoize = true  // forgetConfigs below, on every config or feature change
		t.c.keysOnly = true // settle reads a finding's code and entity only
		t.counts.reset(img)
		t.counts.into(t.c)
		t.leaders = 0
		clear(t.byScope)
		clear(t.pendTopics)
		t.pendWalk = nil
		t.fresh = t.fresh[:0]
	}
	at := Since{Offset: ch.Offset, RecordOffset: ch.Offset, Time: ch.Time, Record: ch.Record, Zxid: ch.Zxid, Znode: ch.Znode}
	in := ch.Inputs
	// topicChanged: a partition record changed what the topic's Topic
	// rules read (an ISR change, the usual record, does not).
	topicChanged := false
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
		switch tp := img.Topics[ch.Topic]; {
		case ch.Config:
		case ch.Removed || tp == nil:
			t.counts.setTopic(ch.Topic, nil)
		case ch.Partition >= 0:
			topicChanged = t.counts.set(ch.Topic, ch.Partition, tp.Partitions[ch.Partition], t.leadersCount())
		default:
			t.counts.setTopic(ch.Topic, tp)
		}
	}
	if in&InputBrokers != 0 {
		t.c.refreshBrokers()
		// A value resolved for any broker is the one the registered
		// brokers agree on (model.ConfigResolver): another set of brokers,
		// another answer.
		t.c.forgetConfigs()
	}
	if in&(InputClusterConfig|InputTopicConfig|InputFeatures) != 0 {
		t.c.forgetConfigs()
		t.leaders = 0
	}
	cluster := in&^(InputPartitions|InputTopicConfig) != 0
	// The topic's own checks.
	if ch.Topic != "" {
		tp := img.Topics[ch.Topic]
		if ch.Removed || tp == nil {
			t.dropTopic(ch.Topic)
		} else {
			t.evalTopic(tp, ch.Partition, topicChanged, at)
			if p := tp.Partitions[ch.Partition]; ch.Partition >= 0 && p != nil {
				t.evalPartition(tp, p, at)
			}
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
		}
		var fs []Finding
		if t.applies(r) {
			t.counts.into(t.c)
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
// its partitions when part is -1). For a partition, the topic checks run
// at the end of the batch (Flush), when topicChanged says the record
// changed what they read.
func (t *Tracker) evalTopic(tp *model.Topic, part int32, topicChanged bool, at Since) {
	if part >= 0 {
		// The topic checks, at the end of the batch, as of its last
		// record about the topic.
		t.pendTopics[tp.Name] = pending{at: at, changed: topicChanged || t.pendTopics[tp.Name].changed}
	}
	for _, r := range t.rules {
		switch {
		case r.Topic != nil:
			if part < 0 {
				t.run(r, tp, nil, at)
			}
		case r.Partition != nil:
			if part >= 0 {
				continue // below, all at once
			}
			t.scratch = tp.AppendSortedPartitions(t.scratch[:0])
			for _, p := range t.scratch {
				t.run(r, tp, p, at)
			}
		}
	}
}

// evalPartition runs p's partition checks (one record's worth: a
// replay's most usual work), looking its scope's findings up once.
func (t *Tracker) evalPartition(tp *model.Topic, p *model.Partition, at Since) {
	sc := scope{topic: tp.Name, part: p.ID}
	have := t.byScope[sc]
	was := have
	for _, r := range t.rules {
		if r.Partition == nil || r.Topic != nil {
			continue
		}
		var fs []Finding
		if t.applies(r) {
			fs = r.Partition(t.c, tp, p)
		}
		if len(fs) == 0 && !hasCode(have, r.Code) {
			continue // nothing held, nothing found
		}
		have = t.settleIn(sc, have, r.Code, fs, at)
	}
	// settleIn edits the list in place: the map needs it again only when
	// its length changed or an append moved it.
	if len(have) != len(was) || len(have) > 0 && &have[0] != &was[0] {
		t.keep(sc, have)
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
	if p == nil {
		t.counts.into(t.c) // Topic rules read the counts
	}
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
	if len(have) == 0 && len(fs) == 0 {
		return
	}
	t.keep(sc, t.settleIn(sc, have, code, fs, at))
}

// settleIn is settle on have, scope sc's findings (its list is reused):
// it returns them as they now are. A new finding is fresh until the next
// point.
func (t *Tracker) settleIn(sc scope, have []held, code string, fs []Finding, at Since) []held {
	kept := have[:0]
	for _, h := range have {
		if h.code == code && !slices.ContainsFunc(fs, func(f Finding) bool { return f.Entity == h.entity }) {
			continue
		}
		kept = append(kept, h)
	}
	have = kept
	for _, f := range fs {
		k := fkey{code, f.Entity}
		if slices.ContainsFunc(have, func(h held) bool { return h.fkey == k }) {
			continue // held since before
		}
		have = append(have, held{k, at})
		t.fresh = append(t.fresh, freshRef{sc, k, at.RecordOffset})
	}
	return have
}

// keep stores a scope's findings (none: the scope is forgotten).
func (t *Tracker) keep(sc scope, have []held) {
	if len(have) == 0 {
		delete(t.byScope, sc)
	} else {
		t.byScope[sc] = have
	}
}

// hasCode says whether have holds a finding of code.
func hasCode(have []held, code string) bool {
	return slices.ContainsFunc(have, func(h held) bool { return h.code == code })
}

// Flush runs the checks the batch left pending, on the image as the
// batch left it: each touched topic's Topic checks, as of the last record
// that touched it, and the Cluster checks that walk every partition, as
// of the batch's last partition record. The caller calls it after each
// ZooKeeper transaction (each one a point: the findings hold since its
// zxid).
func (t *Tracker) Flush() {
	if t.c == nil {
		return
	}
	t.flush()
	t.fresh = t.fresh[:0]
}

// FlushPoint is Flush after a KRaft batch whose records' state is first
// published at point: the batch's last offset, or the offset before a
// metadata transaction the batch leaves open (metalog's points). The
// findings that appeared since the last point, from records at or before
// it, hold since it (their Since.Offset); one from a record after it (in
// a transaction still open) waits for a later point.
func (t *Tracker) FlushPoint(point int64) {
	if t.c == nil {
		return
	}
	t.flush()
	kept := t.fresh[:0]
	for _, f := range t.fresh {
		if f.rec > point {
			kept = append(kept, f)
			continue
		}
		// The finding as it holds now (one that cleared since is gone;
		// one that came back since has a fresh entry of its own, at or
		// before the point too, as offsets only grow).
		have := t.byScope[f.sc]
		if i := slices.IndexFunc(have, func(h held) bool { return h.fkey == f.k }); i >= 0 {
			have[i].at.Offset = point
		}
	}
	t.fresh = kept
}

func (t *Tracker) flush() {
	for name, p := range t.pendTopics {
		if tp := t.c.Img.Topics[name]; tp != nil && p.changed {
			for _, r := range t.rules {
				if r.Topic != nil {
					t.run(r, tp, nil, p.at)
				}
			}
		}
	}
	clear(t.pendTopics)
	if at := t.pendWalk; at != nil {
		t.pendWalk = nil
		t.ensureTopics()
		for _, r := range t.rules {
			if r.Cluster != nil && r.Inputs&InputPartitions != 0 {
				var fs []Finding
				if t.applies(r) {
					t.counts.into(t.c)
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
	for sc := range t.byScope {
		if sc.cluster || sc.topic != name {
			continue
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
	// The checks left pending; the findings not yet at a point stay
	// fresh (a KRaft replay's last batch gave its point already).
	if t.c != nil {
		t.flush()
	}
	since := make(map[fkey]Since, t.Tracked())
	for _, have := range t.byScope {
		for _, h := range have {
			since[h.fkey] = h.at
		}
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		if s, ok := since[fkey{f.Code, f.Entity}]; ok {
			f.Since = &s
		}
	}
}

// Tracked is the number of findings present (as of the last Annotate or
// the last batch).
func (t *Tracker) Tracked() int {
	n := 0
	for _, have := range t.byScope {
		n += len(have)
	}
	return n
}
