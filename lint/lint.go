package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Family groups rules by the concern they check (issue 22 §2).
type Family string

// The families, one file each.
const (
	Durability   Family = "durability"
	Availability Family = "availability"
	Placement    Family = "placement"
	Leftovers    Family = "leftovers"
	ControlPlane Family = "control-plane"
)

// Input names what a rule's check reads beyond its own partition or topic:
// a replay-driven tracker re-runs the rule when one of these changes.
type Input uint8

// The inputs a rule may read besides its own entity.
const (
	InputBrokers       Input = 1 << iota // registrations: fenced, racks, ids
	InputClusterConfig                   // broker and cluster-default configs
	InputFeatures                        // finalized features (ELR, metadata.version)
	// InputTopicConfig: a Cluster rule that reads topic configs.
	InputTopicConfig
	// InputPartitions: a Cluster rule that walks every partition (so a
	// tracker re-runs it after any partition change).
	InputPartitions
	// InputQuorum and InputMigration: the controller quorum (control
	// records) and the ZooKeeper migration state.
	InputQuorum
	InputMigration
	// InputZooKeeper: ZooKeeper's own state (the controller znodes,
	// pending deletions, reassignments and elections, notification
	// queues). A change of it re-runs the Cluster rules, as every
	// cluster-wide input does.
	InputZooKeeper
)

// Rule is one entry of the registry. Exactly one of Partition, Topic and
// Cluster is set: the scope a tracker re-evaluates it at.
type Rule struct {
	Code     string
	Family   Family
	Severity model.Severity
	// Title says in one line what the rule checks (lint --list-rules,
	// the README).
	Title string
	// Needs are the image fields the rule reads; a source that does not
	// report one of them cannot run the rule.
	Needs []model.Field
	// Inputs are what the rule reads besides its own entity.
	Inputs Input
	// Applies says whether the image holds what the rule is about at all
	// (a quorum rule on a ZooKeeper image): nil means always. A rule that
	// does not apply is "not applicable", not clean and not failed.
	Applies func(*Context) (bool, string)

	Partition func(c *Context, t *model.Topic, p *model.Partition) []Finding
	Topic     func(c *Context, t *model.Topic) []Finding
	Cluster   func(c *Context) []Finding
}

// Entity is one thing a finding is about.
type Entity struct {
	// Kind is "partition", "topic", "broker", "config", "quorum" or
	// "cluster".
	Kind string `json:"kind"`
	// Name is the topic-partition ("orders-3"), topic, broker id, config
	// resource ("TOPIC orders", "BROKER <default>") or "".
	Name string `json:"name"`
}

func (e Entity) String() string {
	if e.Name == "" {
		return e.Kind
	}
	return e.Kind + " " + e.Name
}

// Finding is a lint finding: the one findings type (code, severity,
// entity, message, fix) and, apart, what the rule saw, why it matters and
// every entity it is about. Message is Saw and Why joined, for printers
// of model.Finding.
type Finding struct {
	model.Finding
	Saw      string   `json:"saw"`
	Why      string   `json:"why"`
	Entities []Entity `json:"entities"`
	// Excepted is the reason of the exception that covers the finding
	// (an accepted finding never fails the run).
	Excepted string `json:"excepted,omitempty"`
	// Since, with --history, is from when the finding has held.
	Since *Since `json:"since,omitempty"`
}

// newFinding builds a finding of rule r.
func (r *Rule) finding(saw, why, fix string, es ...Entity) Finding {
	f := Finding{Saw: saw, Why: why, Entities: es}
	f.Code, f.Severity, f.Class, f.Fix = r.Code, r.Severity, string(r.Family), fix
	f.Message = saw + ": " + why
	if len(es) > 0 {
		f.Entity = es[0].String()
	}
	return f
}

// RuleStatus says what became of a rule in a run.
type RuleStatus string

// The statuses of a rule in a run.
const (
	// StatusRan: the rule ran; its findings are in the result.
	StatusRan RuleStatus = "ran"
	// StatusNotRun: the source does not report what the rule reads; the
	// rule says nothing about the cluster, neither clean nor not.
	StatusNotRun RuleStatus = "not-run"
	// StatusNotApplicable: the image holds nothing the rule is about (a
	// quorum rule on a ZooKeeper view).
	StatusNotApplicable RuleStatus = "not-applicable"
	// StatusSkipped: left out by --rule or --skip.
	StatusSkipped RuleStatus = "skipped"
)

// RuleRun is one rule's outcome.
type RuleRun struct {
	Code     string     `json:"code"`
	Family   Family     `json:"family"`
	Status   RuleStatus `json:"status"`
	Why      string     `json:"why,omitempty"`
	Findings int        `json:"findings"`
	Excepted int        `json:"excepted"`
}

// Options select and tune a run.
type Options struct {
	// Only, when set, runs only these codes; Skip leaves codes out.
	Only, Skip []string
	// Exceptions accept findings a team keeps on purpose.
	Exceptions *Exceptions
	// Bootstrap is the cluster address fix commands name
	// (--bootstrap-server); "" means BOOTSTRAP, a placeholder.
	Bootstrap string
	// ZooKeeper is the ensemble (host:port,...) zookeeper-shell fixes
	// name, the chroot left out (the image's is appended); "" means
	// ZOOKEEPER, a placeholder.
	ZooKeeper string
}

// Placeholder is the address fix commands name when kmeta cannot know it
// (the image was read from files).
const Placeholder = "BOOTSTRAP"

// ZooKeeperPlaceholder is the ensemble zookeeper-shell fixes name when
// kmeta cannot know it (a data dir or a dump).
const ZooKeeperPlaceholder = "ZOOKEEPER"

// Result is a lint run.
type Result struct {
	Source string    `json:"source"`
	Rules  []RuleRun `json:"rules"`
	// Findings are sorted in the one order (model.CompareFindings);
	// excepted ones are included, marked.
	Findings []Finding `json:"findings"`
}

// Failing reports whether a finding not excepted is at or above sev.
func (r *Result) Failing(sev model.Severity) bool {
	return slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Excepted == "" && f.Severity.AtLeast(sev) })
}

// NotRun lists the codes of rules that could not run.
func (r *Result) NotRun() []string {
	var out []string
	for _, rr := range r.Rules {
		if rr.Status == StatusNotRun {
			out = append(out, rr.Code)
		}
	}
	return out
}

// CheckCodes refuses codes that name no rule (--rule, --skip, an
// exceptions file).
func CheckCodes(codes []string) error {
	for _, c := range codes {
		if _, ok := Lookup(c); !ok {
			return fmt.Errorf("no rule %q (kmeta lint --list-rules names them)", c)
		}
	}
	return nil
}

// Run lints img.
func Run(img *model.Image, opts Options) (*Result, error) {
	if err := CheckCodes(opts.Only); err != nil {
		return nil, err
	}
	if err := CheckCodes(opts.Skip); err != nil {
		return nil, err
	}
	c := newContext(img, opts.Bootstrap)
	if opts.ZooKeeper != "" {
		c.zookeeper = opts.ZooKeeper
	}
	c.memoize = true
	// Rules are counted through pointers into res.Rules: its capacity
	// is fixed first, so that no append moves them.
	res := &Result{Source: img.Provenance.Source, Rules: make([]RuleRun, 0, len(Rules()))}
	var part, topic []*Rule
	runs := map[string]*RuleRun{}
	for _, r := range Rules() {
		rr := RuleRun{Code: r.Code, Family: r.Family, Status: StatusRan}
		switch {
		case len(opts.Only) > 0 && !slices.Contains(opts.Only, r.Code), slices.Contains(opts.Skip, r.Code):
			rr.Status = StatusSkipped
		default:
			if missing := notReported(img, r.Needs); len(missing) > 0 {
				rr.Status, rr.Why = StatusNotRun, "the source does not report "+strings.Join(missing, ", ")
			} else if r.Applies != nil {
				if ok, why := r.Applies(c); !ok {
					rr.Status, rr.Why = StatusNotApplicable, why
				}
			}
		}
		res.Rules = append(res.Rules, rr)
		runs[r.Code] = &res.Rules[len(res.Rules)-1]
		if rr.Status != StatusRan {
			continue
		}
		switch {
		case r.Partition != nil:
			part = append(part, r)
		case r.Topic != nil:
			topic = append(topic, r)
		case r.Cluster != nil:
			res.Findings = append(res.Findings, r.Cluster(c)...)
		}
	}
	// One walk over the partitions for every partition and topic rule.
	var buf []*model.Partition
	for _, t := range c.topics {
		for _, r := range topic {
			res.Findings = append(res.Findings, r.Topic(c, t)...)
		}
		if len(part) == 0 {
			continue
		}
		buf = t.AppendSortedPartitions(buf[:0])
		for _, p := range buf {
			for _, r := range part {
				res.Findings = append(res.Findings, r.Partition(c, t, p)...)
			}
		}
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		if opts.Exceptions != nil {
			f.Excepted = opts.Exceptions.Match(f)
		}
		rr := runs[f.Code]
		if f.Excepted != "" {
			rr.Excepted++
		} else {
			rr.Findings++
		}
	}
	slices.SortStableFunc(res.Findings, func(a, b Finding) int { return model.CompareFindings(a.Finding, b.Finding) })
	return res, nil
}

// notReported names the fields of needs img does not report.
func notReported(img *model.Image, needs []model.Field) []string {
	var out []string
	for _, f := range needs {
		if !img.Reports(f) {
			out = append(out, string(f))
		}
	}
	return out
}

// Context is what rules share, derived from the image once per run.
type Context struct {
	Img       *model.Image
	bootstrap string
	// zookeeper is the ensemble zookeeper-shell fixes name.
	zookeeper string
	topics    []*model.Topic
	// brokerIDs are the registered brokers, sorted; racks maps a broker
	// to its rack ("" none).
	brokerIDs []int32
	racks     map[int32]string
	// replicas counts replicas per broker, over every partition,
	// preferred the partitions each broker is the first replica of, and
	// notLeading those of them it does not lead though it is in the ISR
	// (another replica or no one leads). Only counts above zero are
	// keys.
	replicas, preferred, notLeading map[int32]int
	// moving: some partition has adding or removing replicas.
	moving bool
	// memo holds what MinISR read of the configs and features (see
	// forgetConfigs), when memoize: Run's image does not change during
	// the run, and a tracker says when it does.
	memo    minISRMemo
	memoize bool
}

// minISRMemo keeps what MinISR looks up, which is the same for every
// partition of a topic and of a leader: a config lookup hashes its
// resource's name, and was a third of a million-partition lint. topic is
// the last topic asked about. A tracker forgets it all when a config or
// a feature changes (forgetConfigs).
type minISRMemo struct {
	valid            bool
	elr              bool
	cluster          int
	clusterSet       bool
	brokers          map[int32]int // leader → its broker config's value, -1 when it sets none
	topic            string
	topicN           int
	topicSet, topicK bool // topicK: topic holds a memo
}

// forgetConfigs drops what MinISR remembered of the configs and
// features (a tracker calls it when one of them changed).
func (c *Context) forgetConfigs() { c.memo = minISRMemo{} }

// minISRConfig reads a min.insync.replicas config value as MinISR does.
func (c *Context) minISRConfig(t model.ConfigResourceType, name string) (int, bool) {
	if v, ok := c.config(t, name, "min.insync.replicas"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n, true
		}
	}
	return 0, false
}

func newContext(img *model.Image, bootstrap string) *Context {
	if bootstrap == "" {
		bootstrap = Placeholder
	}
	c := &Context{Img: img, bootstrap: bootstrap, zookeeper: ZooKeeperPlaceholder}
	c.topics = img.SortedTopics()
	c.refresh()
	return c
}

// refresh recomputes what the context derives from brokers and
// partitions (a tracker calls it after a broker change).
func (c *Context) refresh() {
	c.refreshBrokers()
	c.refreshReplicas()
}

// refreshBrokers recomputes the broker ids and racks.
func (c *Context) refreshBrokers() {
	c.brokerIDs = c.brokerIDs[:0]
	for _, b := range c.Img.SortedBrokers() {
		c.brokerIDs = append(c.brokerIDs, b.ID)
	}
	c.racks = map[int32]string{}
	for id, b := range c.Img.Brokers {
		if b.Rack != nil {
			c.racks[id] = *b.Rack
		}
	}
}

// refreshReplicas recounts the replicas and preferred leaders per
// broker, and whether a reassignment is in flight (one walk for all; a
// tracker calls it before a rule that reads every partition). The usual
// small broker ids are counted in arrays, then put in the maps once: a
// map update per replica was a sixth of a million-partition lint.
func (c *Context) refreshReplicas() {
	c.replicas, c.preferred, c.notLeading, c.moving = map[int32]int{}, map[int32]int{}, map[int32]int{}, false
	var dense, densePref [1024]int
	for _, t := range c.topics {
		for _, p := range t.Partitions {
			c.moving = c.moving || len(p.AddingReplicas) > 0 || len(p.RemovingReplicas) > 0
			for _, r := range p.Replicas {
				if uint32(r) < uint32(len(dense)) {
					dense[r]++
				} else {
					c.replicas[r]++
				}
			}
			if len(p.Replicas) > 0 {
				if r := p.Replicas[0]; uint32(r) < uint32(len(densePref)) {
					densePref[r]++
				} else {
					c.preferred[r]++
				}
				if notLeading(p) {
					c.notLeading[p.Replicas[0]]++
				}
			}
		}
	}
	for id, n := range dense {
		if n > 0 {
			c.replicas[int32(id)] += n
		}
	}
	for id, n := range densePref {
		if n > 0 {
			c.preferred[int32(id)] += n
		}
	}
}

// notLeading says whether p's preferred replica (its first) is in its
// ISR and yet another replica or no one leads it.
func notLeading(p *model.Partition) bool {
	pref := p.Replicas[0]
	return p.Leader != pref && p.Leader != model.NoLeader && slices.Contains(p.ISR, pref)
}

// partitions are t's partitions by id.
func (c *Context) partitions(t *model.Topic) []*model.Partition {
	return t.SortedPartitions()
}

// available says whether broker id is registered and not fenced.
func (c *Context) available(id int32) bool {
	b, ok := c.Img.Brokers[id]
	return ok && !b.Fenced
}

// config is a config value of a resource and whether it is set.
func (c *Context) config(t model.ConfigResourceType, name, key string) (string, bool) {
	v, ok := c.Img.Configs[model.ConfigResource{Type: t, Name: name}][key]
	return v, ok
}

// elr says whether eligible leader replicas are on (KIP-966): then the
// cluster-level min.insync.replicas is the one that counts, not a
// broker's.
func (c *Context) elr() bool { return c.Img.Features["eligible.leader.replicas.version"] >= 1 }

// MinISR is the effective min.insync.replicas of a partition of topic
// led by leader, as Kafka resolves it: the topic's config; else, with ELR
// on, the cluster default (the broker-level value is not used); without
// ELR, the leader's own broker config, then the cluster default; else
// Kafka's default, 1. The second result says where the value comes from.
// Static server.properties are not in the metadata: a broker default set
// only there is not seen (Kafka's default stands in for it).
func (c *Context) MinISR(topic string, leader int32) (int, string) {
	m := &c.memo
	if !m.valid || !c.memoize {
		*m = minISRMemo{valid: true, elr: c.elr(), brokers: map[int32]int{}}
		m.cluster, m.clusterSet = c.minISRConfig(model.ConfigBroker, "")
	}
	if !m.topicK || m.topic != topic {
		m.topicN, m.topicSet = c.minISRConfig(model.ConfigTopic, topic)
		m.topic, m.topicK = topic, true
	}
	if m.topicSet {
		return m.topicN, "topic config"
	}
	if !m.elr && leader >= 0 {
		n, ok := m.brokers[leader]
		if !ok {
			v, set := c.minISRConfig(model.ConfigBroker, strconv.Itoa(int(leader)))
			n = -1
			if set {
				n = v
			}
			m.brokers[leader] = n
		}
		if n >= 0 {
			return n, fmt.Sprintf("broker %d config", leader)
		}
	}
	if m.clusterSet {
		return m.cluster, "cluster default"
	}
	return 1, "Kafka's default"
}

// tp names a topic-partition as Kafka's tools do.
func tp(t *model.Topic, p *model.Partition) string { return t.Name + "-" + strconv.Itoa(int(p.ID)) }

// ids formats broker ids as "1,2,3".
func ids(xs []int32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, ",")
}
