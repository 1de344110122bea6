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

// keys is a finding of r about e as a Context with keysOnly wants it:
// its code and entity, nothing else.
func (r *Rule) keys(e Entity) []Finding {
	var f Finding
	f.Code, f.Entity = r.Code, e.String()
	return []Finding{f}
}

// partitionKeys is r.keys(partitionEntity(t, p)), its entity made in one
// string, not two (a replay's most usual finding).
func (r *Rule) partitionKeys(t *model.Topic, p *model.Partition) []Finding {
	var f Finding
	f.Code, f.Entity = r.Code, "partition "+t.Name+"-"+strconv.Itoa(int(p.ID))
	return []Finding{f}
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
	// Assumes, for a rule that ran, says which configs it judged by
	// assumption: layers the source does not report (static configs of
	// a log dir or a ZooKeeper read; a broker that did not answer) were
	// taken to set nothing.
	Assumes string `json:"assumes,omitempty"`
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
	// CommandConfig is the client settings file fix commands pass to
	// Kafka's tools (--command-config), as the user read the cluster
	// with it; "" for none.
	CommandConfig string
	// ZooKeeper is the ensemble (host:port,...) zookeeper-shell fixes
	// name, the chroot left out (the image's is appended); "" means
	// ZOOKEEPER, a placeholder.
	ZooKeeper string
	// ZooKeeperTLS: the ensemble was read over TLS, so zookeeper-shell
	// fixes name a TLS settings file (-zk-tls-config-file); without it
	// the CLI would speak plain text to the TLS port.
	ZooKeeperTLS bool
	// StaticFiles names, by node id, the file each node's static
	// configs (Image.StaticConfigs) were read from (--config ID=FILE),
	// for findings about a value in it; a node not listed is said as
	// "server.properties".
	StaticFiles map[int32]string
	// ZooKeeperDigest: the ensemble was read with digest credentials
	// (--zk-auth, KMETA_ZK_AUTH), as a secured ensemble is (its znodes
	// deny other clients their writes), so zookeeper-shell fixes log in
	// with them first.
	ZooKeeperDigest bool
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
func Run(img *model.Image, opts Options) (*Result, error) { return runWith(img, opts, false) }

// runWith is Run; keysOnly: its findings are keys (Context.keysOnly), for a
// test that holds them to the full ones.
func runWith(img *model.Image, opts Options, keysOnly bool) (*Result, error) {
	if err := CheckCodes(opts.Only); err != nil {
		return nil, err
	}
	if err := CheckCodes(opts.Skip); err != nil {
		return nil, err
	}
	c := newContext(img, opts)
	c.memoize, c.keysOnly = true, keysOnly
	c.assumed, c.noted = map[string]*assumption{}, map[notedKey]bool{}
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
				rr.Status, rr.Why = StatusNotRun, "the source does not report "+strings.Join(missing, ", ")+gapEntities(img, missing)
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
	for code, a := range c.assumed {
		runs[code].Assumes = a.String()
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

// gapEntities names, from the image's warnings, what left the fields
// unreported (" (broker 2)": a node that did not answer), "" when no
// warning says.
func gapEntities(img *model.Image, fields []string) string {
	var ents []string
	for _, w := range img.Warnings {
		if w.Field == "" || slices.Contains(ents, w.Entity) {
			continue
		}
		for _, f := range strings.Split(w.Field, ",") {
			if slices.Contains(fields, f) {
				ents = append(ents, w.Entity)
				break
			}
		}
	}
	if len(ents) == 0 {
		return ""
	}
	return " (not answered for: " + strings.Join(ents, ", ") + ")"
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
	// commandConfig is the client settings file fixes pass (Options).
	commandConfig string
	// zookeeper is the ensemble zookeeper-shell fixes name; zkTLS and
	// zkDigest are Options.ZooKeeperTLS and ZooKeeperDigest.
	zookeeper       string
	zkTLS, zkDigest bool
	// staticFiles is Options.StaticFiles.
	staticFiles map[int32]string
	topics      []*model.Topic
	// brokerIDs are the registered brokers, sorted; racks maps a broker
	// to its rack ("" none).
	brokerIDs []int32
	racks     map[int32]string
	// caps37: the brokers run Kafka 3.7 or later (a registration
	// supports metadata.version 3.7-IV0, or a server.properties sets
	// inter.broker.protocol.version 3.7+), whose leaders cap
	// min.insync.replicas at the replication factor (KAFKA-15583).
	caps37 bool
	// replicas counts replicas per broker, over every partition,
	// preferred the partitions each broker is the first replica of, and
	// notLeading those of them it does not lead though it is in the ISR
	// (another replica or no one leads). Only counts above zero are
	// keys.
	replicas, preferred, notLeading map[int32]int
	// moving: some partition has adding or removing replicas.
	moving bool
	// res resolves the configs Kafka applies (model.ConfigResolver),
	// remembering the broker-level ones when memoize: Run's image does
	// not change during the run, and a tracker says when it does
	// (forgetConfigs).
	res     *model.ConfigResolver
	memoize bool
	// assumed are, per rule, the keys a check resolved with layers the
	// source did not report, and what was missing (see noteAssumed);
	// noted are the resolutions already counted in it (a resolution's
	// gaps are the resolver's, shared by every partition it answered).
	assumed map[string]*assumption
	noted   map[notedKey]bool
	minISR  minISRMemo
	// keysOnly: the caller reads of a finding only its code and entity (a
	// Tracker keeps which findings hold and since when, never their
	// text). The rules a replay runs after every partition record or
	// batch (every Partition rule, the Cluster rules of InputPartitions
	// that fire at scale) then return keys (Rule.keys) instead of
	// building messages and fixes that would be dropped.
	// TestKeysOnlySameFindings holds them to the findings they key.
	keysOnly bool
}

type notedKey struct {
	code, key string
	gaps      *model.ConfigGap
}

// forgetConfigs drops what the resolver remembered of the configs,
// brokers and features (a tracker calls it when one of them changed).
func (c *Context) forgetConfigs() {
	c.res.Forget()
	c.minISR.ok = false
}

func newContext(img *model.Image, opts Options) *Context {
	c := &Context{Img: img, bootstrap: opts.Bootstrap, commandConfig: opts.CommandConfig, zookeeper: opts.ZooKeeper,
		zkTLS: opts.ZooKeeperTLS, zkDigest: opts.ZooKeeperDigest, staticFiles: opts.StaticFiles, res: model.NewConfigResolver(img)}
	if c.bootstrap == "" {
		c.bootstrap = Placeholder
	}
	if c.zookeeper == "" {
		c.zookeeper = ZooKeeperPlaceholder
	}
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
	c.caps37 = false
	for id, b := range c.Img.Brokers {
		if b.Rack != nil {
			c.racks[id] = *b.Rack
		}
		for _, f := range b.Features {
			if f.Name == "metadata.version" && f.Max >= level37 {
				c.caps37 = true
			}
		}
	}
	for _, kv := range c.Img.StaticConfigs {
		// Only a version Kafka 3.x accepts says the node runs 3.7 or
		// later ("abc" or "3.7-iv0" stops a 3.x node, and a 4.x node
		// ignores the key).
		if ibp, ok := kv["inter.broker.protocol.version"]; ok && ibpAtLeast37(ibp) {
			c.caps37 = true
		}
	}
}

// level37 is metadata.version 3.7-IV0: a broker that supports it runs
// Kafka 3.7 or later.
const level37 = 15

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
// broker's dynamic override.
func (c *Context) elr() bool { return c.res.ELR() }

// resolver is the run's resolver, fresh unless the run memoizes.
func (c *Context) resolver() *model.ConfigResolver {
	if !c.memoize {
		c.res.Forget()
	}
	return c.res
}

// TopicConfig is the value of topic config key on topic's partitions led
// by leader (model.NoLeader: no broker in particular), as Kafka resolves
// it (model.ConfigResolver).
func (c *Context) TopicConfig(topic, key string, leader int32) model.EffectiveConfig {
	if leader < 0 {
		leader = model.AnyBroker
	}
	return c.resolver().TopicConfig(topic, key, leader)
}

// MinISR is the effective min.insync.replicas of a partition of topic
// led by leader, as Kafka resolves it (topic; broker dynamic, skipped
// with ELR on; cluster default; broker static; Kafka's default), and the
// resolution: where the value comes from, and what the source did not
// report (then the value is an assumption, and says so). It is 0 when
// the layer that gives the value sets one Kafka refuses (minISRValue):
// the value is then not known, the rules judge nothing by it and say so
// (noteRefused), and a server.properties holding it is
// static-config-invalid's finding.
//
// The result points into a memo (a topic's partitions share a few
// leaders): do not modify it.
func (c *Context) MinISR(topic string, leader int32) (int, *model.EffectiveConfig) {
	m := &c.minISR
	if c.memoize {
		if !m.ok || m.topic != topic {
			m.ok, m.topic = true, topic
			if m.byLeader == nil {
				m.byLeader = map[int32]*minISRResult{}
			}
			clear(m.byLeader)
		}
		if r := m.byLeader[leader]; r != nil {
			return r.n, &r.e
		}
	}
	r := &minISRResult{e: c.TopicConfig(topic, "min.insync.replicas", leader)}
	// A value Kafka refuses (not an INT of at least 1) is not one to
	// judge by: 0, never a default made up in its place.
	r.n, _ = model.MinISRValue(r.e.Value)
	if c.memoize {
		m.byLeader[leader] = r
	}
	return r.n, &r.e
}

// minISRMemo keeps MinISR's answers for the last topic asked, by leader.
type minISRMemo struct {
	ok       bool
	topic    string
	byLeader map[int32]*minISRResult
}

type minISRResult struct {
	n int
	e model.EffectiveConfig
}

// staticFile names node id's server.properties: the file given for it
// (Options.StaticFiles), else "server.properties".
func (c *Context) staticFile(id int32) string {
	if f := c.staticFiles[id]; f != "" {
		return "server.properties (" + f + ")"
	}
	return "server.properties"
}

// source says where an effective value comes from, for a finding: its
// layer, the ELR rule where it applied, and what it assumes.
func source(e *model.EffectiveConfig) string {
	s := e.Source()
	if e.ELR && e.Layer != model.LayerTopic {
		s += ", ELR on: no broker-level override counts"
	}
	if !e.Known {
		s += "; " + assumes(e)
	}
	for _, sk := range e.Skipped {
		s += "; " + sk.String()
	}
	return s
}

// assumes says what a value that is not Known assumes: that the layers
// the source did not report set nothing, with the flag that supplies a
// node's static configs where those are missing; that the brokers'
// values differ (the value is the first broker's); that Kafka's default
// is not known to kmeta. Each gap is said by its reason: a value not
// Known has at least one (model.ConfigResolver), and "" is never said
// as a layer.
func assumes(e *model.EffectiveConfig) string {
	var missing, other []string
	for _, g := range e.Gaps {
		one := *e
		one.Gaps = []model.ConfigGap{g}
		switch g.Reason {
		case model.GapNotReported:
			missing = appendOnce(missing, one.Missing())
		case model.GapDisagree:
			other = appendOnce(other, "the brokers apply different values, and this is the first broker's")
		default:
			other = appendOnce(other, one.Missing()+" is not known to kmeta")
		}
	}
	var parts []string
	if len(missing) > 0 {
		s := "assumes no override in " + strings.Join(missing, ", ")
		if b := e.StaticGapBrokers(); len(b) == 1 {
			s += fmt.Sprintf(" (not in this source: pass --config %d=server.properties)", b[0])
		} else if len(b) > 1 {
			s += " (not in this source: pass --config ID=server.properties for brokers " + ids(b) + ")"
		}
		parts = append(parts, s)
	}
	parts = append(parts, other...)
	if len(parts) == 0 {
		return "not known"
	}
	return strings.Join(parts, "; ")
}

// assumption is what a rule's checks assumed, for its RuleRun: the keys,
// the brokers whose static or dynamic configs were missing, any other
// layer not reported (the cluster default, the topic configs), what
// else the values rest on (brokers that disagree, a default kmeta does
// not know), and the values it could not judge by (noteUnjudged).
type assumption struct {
	keys            []string
	static, dynamic []int32
	notReported     []string
	other           []string
	unjudged        []string
}

// noteAssumed records that rule code judged with e, a value that is not
// Known, so that the run says what the rule assumed even where the
// assumption gave no finding.
func (c *Context) noteAssumed(code string, e *model.EffectiveConfig) {
	if c.assumed == nil {
		return
	}
	c.noteSkipped(code, e)
	if e.Known {
		return
	}
	k := notedKey{code: code, key: e.Key}
	if len(e.Gaps) > 0 {
		k.gaps = &e.Gaps[0]
	}
	if c.noted[k] {
		return
	}
	c.noted[k] = true
	a := c.assumption(code)
	for _, g := range e.Gaps {
		one := *e
		one.Gaps = []model.ConfigGap{g}
		switch {
		case g.Reason == model.GapNotReported && g.Layer == model.LayerStatic && g.Broker != model.AnyBroker:
			a.static = appendOnce(a.static, g.Broker)
		case g.Reason == model.GapNotReported && g.Layer == model.LayerBroker && g.Broker != model.AnyBroker:
			a.dynamic = appendOnce(a.dynamic, g.Broker)
		case g.Reason == model.GapNotReported:
			a.notReported = appendOnce(a.notReported, one.Missing())
		case g.Reason == model.GapDisagree:
			a.other = appendOnce(a.other, "the brokers apply different values of "+e.Key+" (judged by the first broker's)")
		default:
			a.other = appendOnce(a.other, one.Missing()+" is not known to kmeta")
		}
	}
	if len(a.static)+len(a.dynamic)+len(a.notReported) > 0 {
		a.keys = appendOnce(a.keys, e.Key)
	}
}

// noteSkipped records that rule code resolved e as a broker does,
// without the dynamic values a broker drops (EffectiveConfig.Skipped):
// the run says which, and why.
func (c *Context) noteSkipped(code string, e *model.EffectiveConfig) {
	if len(e.Skipped) == 0 || c.assumed == nil {
		return
	}
	a := c.assumption(code)
	for _, sk := range e.Skipped {
		a.other = appendOnce(a.other, sk.String())
	}
}

// noteUnjudged records that rule code could not judge by a value: where
// it is set, and why Kafka refuses it (what, e.g. "sets
// min.insync.replicas=\"abc\", which Kafka refuses: ...").
func (c *Context) noteUnjudged(code, what string) {
	if c.assumed == nil {
		return
	}
	a := c.assumption(code)
	a.unjudged = appendOnce(a.unjudged, "not judged where "+what)
}

// assumption is rule code's, made on first use.
func (c *Context) assumption(code string) *assumption {
	a := c.assumed[code]
	if a == nil {
		a = &assumption{}
		c.assumed[code] = a
	}
	return a
}

func appendOnce[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// String says the assumption as a rule's run prints it: "assumes no
// override of min.insync.replicas in the server.properties of brokers
// 1,2 (not in this source: pass --config ID=server.properties)", then
// what else it rests on and what it did not judge, joined by "; ".
func (a *assumption) String() string {
	slices.Sort(a.keys)
	slices.Sort(a.static)
	slices.Sort(a.dynamic)
	slices.Sort(a.notReported)
	slices.Sort(a.other)
	slices.Sort(a.unjudged)
	var where []string
	if len(a.dynamic) > 0 {
		where = append(where, "the dynamic configs of "+brokerList(a.dynamic)+" (not answered)")
	}
	if len(a.static) > 0 {
		where = append(where, "the server.properties of "+brokerList(a.static))
	}
	where = append(where, a.notReported...)
	var parts []string
	if len(where) > 0 {
		s := fmt.Sprintf("assumes no override of %s in %s", strings.Join(a.keys, ", "), strings.Join(where, ", "))
		if len(a.static) > 0 {
			s += " (not in this source: pass --config ID=server.properties for broker(s) " + ids(a.static) + ")"
		}
		parts = append(parts, s)
	}
	parts = append(parts, a.other...)
	parts = append(parts, a.unjudged...)
	return strings.Join(parts, "; ")
}

// brokerList names brokers: "broker 2", "brokers 1,2,3".
func brokerList(b []int32) string {
	if len(b) == 1 {
		return "broker " + ids(b)
	}
	return "brokers " + ids(b)
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
