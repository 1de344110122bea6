package verify

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/model"
)

// Classes, in the order reports list them.
const (
	ClassCluster     = "cluster"
	ClassTopics      = "topics"
	ClassPartitions  = "partitions"
	ClassRuntime     = "runtime"
	ClassConfigs     = "configs"
	ClassQuotas      = "quotas"
	ClassACLs        = "acls"
	ClassSCRAM       = "scram"
	ClassTokens      = "tokens"
	ClassProducerIDs = "producer-ids"
	ClassFeatures    = "features"
	ClassBrokers     = "brokers"
	ClassMigration   = "migration"
	// ClassQuorum is the controller quorum's voters, compared when both
	// sides report them (two KRaft views: a log dir's voter set and a
	// live quorum's).
	ClassQuorum = "quorum"
	// ClassZooKeeper is state only ZooKeeper holds (pending deletions,
	// missing partition states, legacy reassignments, /consumers),
	// compared between two ZooKeeper views.
	ClassZooKeeper = "zookeeper"
)

// Classes lists every class.
var Classes = []string{ClassCluster, ClassTopics, ClassPartitions, ClassRuntime, ClassConfigs, ClassQuotas,
	ClassACLs, ClassSCRAM, ClassTokens, ClassProducerIDs, ClassFeatures, ClassBrokers, ClassMigration, ClassQuorum, ClassZooKeeper}

// Finding codes.
const (
	CodeMissingInKRaft     = "missing-in-kraft"
	CodeMissingInZooKeeper = "missing-in-zookeeper"
	CodeDifferent          = "different"
	CodeAdded              = "added"
	CodeRemoved            = "removed"
	CodeChanged            = "changed"

	CodeExpectedPendingDeletion   = "expected-pending-deletion"
	CodeExpectedConfigOnlyTopic   = "expected-config-without-topic"
	CodeExpectedEncryptedPassword = "expected-encrypted-password"
	CodeExpectedKRaftOnly         = "expected-kraft-only"
	CodeExpectedPartitionEpoch    = "expected-partition-epoch"
	CodeExpectedAssignedTopicID   = "expected-assigned-topic-id"
	CodeExpectedZooKeeperOnly     = "expected-zookeeper-only"
	CodeExpectedRemovedConfig     = "expected-removed-config"
	CodePasswordNotDecrypted      = "password-not-decrypted"
	CodeKRaftAhead                = "kraft-ahead"
	CodeKRaftBehind               = "kraft-behind"
	CodeIBPMismatch               = "ibp-mismatch"

	CodeTopicWithoutID              = "zk-topic-without-id"
	CodePartitionStateMissing       = "zk-partition-state-missing"
	CodeReplicaOnUnregisteredBroker = "replica-on-unregistered-broker"
	CodeNoBrokerRegistered          = "no-broker-registered"
	CodeStaleMigrationZnode         = "stale-migration-znode"
	CodeMigrationZnodeMissing       = "migration-znode-missing"
	CodeKRaftViewBehind             = "kraft-view-behind"
	CodePartitionMetadataTopicID    = "partition-metadata-topic-id"
)

// ErrUnknownClass is returned for an --ignore class that does not exist.
var ErrUnknownClass = errors.New("unknown class")

// Side describes one view.
type Side struct {
	// World is where the view comes from; it must be set.
	World model.World
	// Name is how findings and the summary name the side (a source
	// string); it defaults to the world's name.
	Name string
}

// PartitionMetadata is one broker's partition.metadata file, read by the
// caller from --broker-log-dirs.
type PartitionMetadata struct {
	Path      string
	Topic     string
	Partition int32
	TopicID   model.UUID
}

// Options tune Compare.
type Options struct {
	Left, Right Side
	// Ignore drops these classes from the report.
	Ignore []string
	// PartitionMetadata, when given, is checked against the ZooKeeper
	// side's topic ids (or the plan's, for a topic without one).
	PartitionMetadata []PartitionMetadata
	// PasswordEncoderSecret is the brokers' password.encoder.secret. With
	// it, ZooKeeper's encrypted password configs are decrypted (as Kafka's
	// migration does) and compared with KRaft's plaintext; without it,
	// they are not compared.
	PasswordEncoderSecret string
	// PlanTopicIDs is the topic id a migration plan gives each topic it
	// migrates (nil without a plan). With it, a ZooKeeper topic without
	// id must carry exactly the plan's id in KRaft; without it, KRaft's id
	// for such a topic is explained but not checked.
	PlanTopicIDs map[string]model.UUID
}

// Report is the result of a comparison.
type Report struct {
	Left, Right Side
	// Findings in model.SortFindings order, ignored classes left out.
	Findings []model.Finding
	// Ignored classes (sorted) and how many findings each dropped.
	Ignored        []string
	IgnoredCounts  map[string]int
	Compared       []ClassCount
	CrossWorld     bool
	NotComparedWhy []string
	// NotComparedFields are the fields either view does not report
	// (model.Image.NotReported), sorted: left out on both sides.
	NotComparedFields []model.Field
}

// ClassCount is how many entities of a class the two sides held.
type ClassCount struct {
	Class       string `json:"class"`
	Left, Right int
}

// readinessOnly are the readiness findings that describe one view, or
// the migration still to come, rather than a difference between the two
// views: they stay in the report, whatever their severity, and never make
// the views differ.
var readinessOnly = map[string]bool{
	CodeTopicWithoutID: true, CodePartitionStateMissing: true, CodeReplicaOnUnregisteredBroker: true,
	CodeNoBrokerRegistered: true, CodeKRaftViewBehind: true,
}

// IsDifference reports whether f makes the views differ: a change between
// two views of one world, or across worlds a finding that is neither
// explained (info) nor a readiness finding about one view.
func IsDifference(f model.Finding) bool {
	if f.Code == CodeAdded || f.Code == CodeRemoved || f.Code == CodeChanged {
		return true
	}
	return f.Severity != model.SevInfo && !readinessOnly[f.Code]
}

// Differ reports whether the views differ: any finding IsDifference.
func (r *Report) Differ() bool { return slices.ContainsFunc(r.Findings, IsDifference) }

// Counts are a class's findings by kind.
type Counts struct {
	// Differences make the views differ (IsDifference).
	Differences int
	// Explained are info findings: expected differences and notes.
	Explained int
	// Readiness are warning and error readiness findings about one view.
	Readiness int
}

// CountByClass counts the findings of each class by kind.
func (r *Report) CountByClass() map[string]Counts {
	out := map[string]Counts{}
	for _, f := range r.Findings {
		c := out[f.Class]
		switch {
		case IsDifference(f):
			c.Differences++
		case f.Severity == model.SevInfo:
			c.Explained++
		default:
			c.Readiness++
		}
		out[f.Class] = c
	}
	return out
}

// ValidClass reports whether name is a class.
func ValidClass(name string) bool { return slices.Contains(Classes, name) }

// Compare compares two views. For verify, left is the ZooKeeper view and
// right the KRaft view; for diff, left is before and right after.
func Compare(left, right *model.Image, opts Options) (*Report, error) {
	for _, c := range opts.Ignore {
		if !ValidClass(c) {
			return nil, fmt.Errorf("%w %q (classes: %s)", ErrUnknownClass, c, strings.Join(Classes, ", "))
		}
	}
	if left == nil || right == nil {
		return nil, errors.New("verify: a view is missing")
	}
	if opts.Left.World == 0 || opts.Right.World == 0 {
		return nil, errors.New("verify: both sides need a world")
	}
	for _, s := range []*Side{&opts.Left, &opts.Right} {
		if s.Name == "" {
			s.Name = s.World.String()
		}
	}
	// A live cluster (kafka://) is a KRaft cluster asked through its API:
	// it is judged as KRaft, and named as given.
	sides := opts
	for _, s := range []*Side{&opts.Left, &opts.Right} {
		if s.World == model.WorldKafka {
			s.World = model.WorldKRaft
		}
	}
	nr := notReportedUnion(left, right)
	cr := &comparison{opts: opts, left: left, right: right, cross: opts.Left.World != opts.Right.World}
	cr.mask = maskOf(cr.cross, nr)
	cr.run()

	rep := &Report{Left: sides.Left, Right: sides.Right, CrossWorld: cr.cross, IgnoredCounts: map[string]int{}, NotComparedFields: nr}
	ignored := map[string]bool{}
	for _, c := range opts.Ignore {
		ignored[c] = true
	}
	for _, f := range cr.findings {
		if ignored[f.Class] {
			rep.IgnoredCounts[f.Class]++
			continue
		}
		rep.Findings = append(rep.Findings, f)
	}
	for c := range ignored {
		rep.Ignored = append(rep.Ignored, c)
	}
	slices.Sort(rep.Ignored)
	model.SortFindings(rep.Findings)
	rep.Compared = cr.counts
	rep.NotComparedWhy = slices.Compact(slices.Sorted(slices.Values(cr.notes)))
	if cr.cross {
		rep.NotComparedWhy = append(rep.NotComparedWhy, []string{
			"ACL ids (random per migration; ACLs are compared by content)",
			"broker epochs, incarnation ids, log dirs, fencing (they differ by design between ZooKeeper and KRaft)",
			"partition directories (a migrated PartitionRecord v0 reads as MIGRATING) and ELR (ZooKeeper does not track it)",
		}...)
	}
	return rep, nil
}

// comparison holds one run.
type comparison struct {
	opts        Options
	left, right *model.Image
	cross       bool
	mask        mask
	zk, kr      *model.Image // cross only: which side is which
	// unplaced, when comparePartitions walked the ZooKeeper side's
	// partitions (it is the left), holds the topics with a replica on a
	// broker neither side registered: readiness lists only theirs, not
	// walking a million partitions a second time.
	unplaced map[string]bool
	findings []model.Finding
	counts   []ClassCount
	notes    []string
}

func (c *comparison) add(f model.Finding) { c.findings = append(c.findings, f) }

func (c *comparison) run() {
	skipL, skipR := map[string]bool{}, map[string]bool{}
	if c.cross {
		if c.opts.Left.World == model.WorldZooKeeper {
			c.zk, c.kr = c.left, c.right
		} else {
			c.zk, c.kr = c.right, c.left
		}
		// A topic pending deletion is left out on both sides: its content
		// is not compared, and pendingDeletions says so once.
		skipL = c.pendingDeletions()
		skipR = skipL
	}
	// Only the ZooKeeper side of a cross-world comparison holds encrypted
	// passwords to decrypt.
	secret := func(w model.World) string {
		if c.cross && w == model.WorldZooKeeper {
			return c.opts.PasswordEncoderSecret
		}
		return ""
	}
	// The two sides normalize concurrently; nothing depends on which
	// finishes first.
	var lv, rv *view
	var wg sync.WaitGroup
	wg.Go(func() { lv = normalize(c.left, c.opts.Left.World, c.cross, c.mask, skipL, secret(c.opts.Left.World)) })
	rv = normalize(c.right, c.opts.Right.World, c.cross, c.mask, skipR, secret(c.opts.Right.World))
	wg.Wait()
	if c.cross {
		zv := lv
		if c.opts.Left.World != model.WorldZooKeeper {
			zv = rv
		}
		c.configOnlyTopics(zv)
	}
	c.notes = append(slices.Clone(lv.notes), rv.notes...)
	onlyPresence(lv.scram, rv.scram)

	// A class a side does not report is not compared, nor counted: its
	// field in Report.NotComparedFields says so.
	if !c.mask.clusterID {
		compareClass(c, ClassCluster, lv.cluster, rv.cluster, eqComparable, nil)
	}
	if !c.mask.topics {
		compareClass(c, ClassTopics, lv.topics, rv.topics, eqComparable, c.explainTopic)
		c.comparePartitions(skipL, skipR)
	}
	if !c.mask.topicConfigs || !c.mask.brokerConfigs {
		compareClass(c, ClassConfigs, lv.configs, rv.configs, eqMap(equalSecret), func(f *model.Finding, d rawDiff) { c.explainConfig(f, d, lv, rv) })
	}
	if !c.mask.quotas {
		compareClass(c, ClassQuotas, lv.quotas, rv.quotas, eqMap(func(a, b float64) bool { return a == b }), nil)
	}
	if !c.mask.acls {
		compareClass(c, ClassACLs, lv.acls, rv.acls, eqComparable, nil)
	}
	if !c.mask.scram {
		compareClass(c, ClassSCRAM, lv.scram, rv.scram, scramN.equal, nil)
	}
	if !c.mask.tokens {
		compareClass(c, ClassTokens, lv.tokens, rv.tokens, tokenN.equal, nil)
	}
	compareClass(c, ClassFeatures, lv.features, rv.features, eqMap(func(a, b int16) bool { return a == b }), c.explainFeature)
	if !c.mask.brokers {
		reconcileEndpoints(lv, rv)
		compareClass(c, ClassBrokers, lv.brokers, rv.brokers, brokerN.equal, func(f *model.Finding, d rawDiff) { c.explainBroker(f, d, lv, rv) })
	}
	if lv.voters != nil && rv.voters != nil {
		unreportedVoterFields(lv.voters, rv.voters)
		compareClass(c, ClassQuorum, lv.voters, rv.voters, eqComparable, nil)
	}
	if lv.zkOnly != nil && rv.zkOnly != nil {
		c.compareZooKeeperOnly(lv, rv)
	}
	c.rollUp()
	if !c.mask.producerIDs {
		c.producerIDs()
	}
	if !c.mask.migration {
		c.migration()
	}
	if c.cross {
		c.ibp()
		c.readiness()
	}
}

// reconcileEndpoints compares the brokers' endpoints where one side
// names only the address it was asked through (a live view): that
// address (host, port, protocol) must be one the other side registered;
// when it is, the other side's list is taken as equal. Listener names,
// which a live view does not report, are not compared.
func reconcileEndpoints(lv, rv *view) {
	if lv.partialEndpoints == rv.partialEndpoints {
		return
	}
	part, full := lv, rv
	if rv.partialEndpoints {
		part, full = rv, lv
	}
	for k, pb := range part.brokers {
		fb, ok := full.brokers[k]
		if !ok || len(pb.Endpoints) == 0 {
			continue
		}
		if !slices.ContainsFunc(pb.Endpoints, func(e string) bool { return !slices.Contains(fb.Endpoints, e) }) {
			fb.Endpoints = pb.Endpoints
			full.brokers[k] = fb
		}
	}
}

// unreportedVoterFields leaves out of both sides a voter field one side
// does not report (a live quorum before DescribeQuorum v2: no directory
// ids or endpoints).
func unreportedVoterFields(l, r map[string]voterN) {
	dirs, eps := true, true
	for _, m := range []map[string]voterN{l, r} {
		for _, v := range m {
			dirs = dirs && v.DirectoryID != ""
			eps = eps && v.Endpoints != ""
		}
	}
	for _, m := range []map[string]voterN{l, r} {
		for k, v := range m {
			if !dirs {
				v.DirectoryID = ""
			}
			if !eps {
				v.Endpoints = ""
			}
			m[k] = v
		}
	}
}

// rollUp reports an entity missing on one side once: a topic that is
// missing takes its partitions, their runtime state and its config entity
// with it, and a missing partition its runtime state.
func (c *comparison) rollUp() {
	goneTopics := map[string]bool{} // topic names missing on one side
	goneParts := map[string]bool{}  // partition entities missing on one side
	for _, f := range c.findings {
		if f.Field != "" || (f.Left != nil && f.Right != nil) {
			continue
		}
		switch f.Class {
		case ClassTopics:
			goneTopics[strings.TrimPrefix(f.Entity, "topic ")] = true
		case ClassPartitions:
			goneParts[f.Entity] = true
		}
	}
	// topicOf reads the topic back from a partition or topic config
	// entity (see partitionEntity, configEntity).
	topicOf := func(e string) string {
		if t, ok := strings.CutPrefix(e, "config TOPIC "); ok {
			return t
		}
		if p, ok := strings.CutPrefix(e, "partition "); ok {
			if i := strings.LastIndexByte(p, '-'); i > 0 {
				return p[:i]
			}
		}
		return ""
	}
	kept := c.findings[:0]
	for _, f := range c.findings {
		whole := f.Field == "" && (f.Left == nil) != (f.Right == nil)
		switch {
		case (f.Class == ClassPartitions || f.Class == ClassRuntime || f.Class == ClassConfigs) && whole && goneTopics[topicOf(f.Entity)]:
			continue
		case f.Class == ClassRuntime && whole && goneParts[f.Entity]:
			continue
		}
		kept = append(kept, f)
	}
	c.findings = kept
}

// pendingDeletions reports the ZooKeeper topics Kafka's migration skips,
// each with an explained finding.
func (c *comparison) pendingDeletions() map[string]bool {
	skip := map[string]bool{}
	if c.zk.ZK == nil {
		return skip
	}
	for _, name := range c.zk.ZK.PendingTopicDeletions {
		if c.zk.Topics[name] == nil {
			continue
		}
		skip[name] = true
		f := model.Finding{Code: CodeExpectedPendingDeletion, Severity: checkSeverity(CodeExpectedPendingDeletion), Class: ClassTopics, Entity: topicEntity(name),
			Message: "pending deletion in ZooKeeper (/admin/delete_topics): Kafka's migration skips it and deletes the znodes during reconciliation; not compared",
			Where:   &model.Location{Position: -1, Offset: -1, Znode: "/admin/delete_topics/" + name}}
		if c.kr.Topics[name] != nil {
			// One finding: the topic is a difference (ZooKeeper is
			// deleting what KRaft keeps), its content is not compared.
			zs, ks := strp("pending deletion"), strp("present")
			f.Left, f.Right = zs, ks
			if c.opts.Left.World != model.WorldZooKeeper {
				f.Left, f.Right = ks, zs
			}
			f.Code, f.Severity, f.Field = CodeDifferent, checkSeverity(CodeDifferent), "state"
			f.Message = "pending deletion in ZooKeeper (/admin/delete_topics) yet present in KRaft: Kafka's migration skips such topics, so KRaft got it some other way; its content is not compared"
		}
		c.add(f)
	}
	return skip
}

// configOnlyTopics leaves out of zv, the ZooKeeper side's view, the
// configs of topics ZooKeeper does not hold (/config/topics/X without
// /brokers/topics/X), each with an explained finding: Kafka's migration,
// and kmeta's (migrate's config-without-topic), read configs only for the
// topics they migrate. Configs KRaft holds under such a name stay a
// difference: a topic created there would inherit them. A topic KRaft
// holds is another matter: the topic missing in ZooKeeper is the
// difference (its znode removed behind the migration's back), and its
// configs are compared with it as ever.
func (c *comparison) configOnlyTopics(zv *view) {
	for r := range c.zk.Configs {
		e := configEntity(r)
		if r.Type != model.ConfigTopic || c.zk.Topics[r.Name] != nil || c.kr.Topics[r.Name] != nil || zv.configs[e] == nil {
			continue
		}
		delete(zv.configs, e)
		delete(zv.encrypted, e)
		c.add(model.Finding{Code: CodeExpectedConfigOnlyTopic, Severity: checkSeverity(CodeExpectedConfigOnlyTopic), Class: ClassConfigs, Entity: e,
			Message: "a topic config in ZooKeeper without its topic (/brokers/topics/" + r.Name + "): a migration does not carry it; not compared",
			Where:   &model.Location{Position: -1, Offset: -1, Znode: "/config/topics/" + r.Name}})
	}
}

// rawDiff is one unequal leaf cmp reported: an entity, or one field of it.
type rawDiff struct {
	entity, field string
	left, right   reflect.Value // invalid when absent on that side
}

// collector is the cmp.Reporter turning cmp's report into rawDiffs.
type collector struct {
	path  cmp.Path
	diffs []rawDiff
}

func (r *collector) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *collector) PopStep()                 { r.path = r.path[:len(r.path)-1] }

func (r *collector) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	var d rawDiff
	for _, s := range r.path {
		switch s := s.(type) {
		case cmp.MapIndex:
			if d.entity == "" {
				d.entity = fmt.Sprint(s.Key().Interface())
			} else {
				d.field = fmt.Sprint(s.Key().Interface())
			}
		case cmp.StructField:
			if d.field == "" {
				d.field = fieldName(s.Name())
			}
		}
	}
	d.left, d.right = r.path.Last().Values()
	r.diffs = append(r.diffs, d)
}

// fieldName turns a Go field name into the lower-case form findings carry
// ("PartitionEpoch" → "partitionEpoch").
func fieldName(s string) string {
	switch s {
	case "ISR":
		return "isr"
	case "ELR":
		return "elr"
	case "LastKnownELR":
		return "lastKnownElr"
	case "ID":
		return "id"
	case "IncarnationID":
		return "incarnationId"
	}
	return strings.ToLower(s[:1]) + s[1:]
}

var cmpOpts = []cmp.Option{
	cmp.Comparer(equalSecret),
	cmp.Comparer(func(a, b []int32) bool { return slices.Equal(a, b) }),
	cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) }),
}

// compareClass diffs one class's entity maps and turns each unequal
// leaf into a finding; explain may rewrite it (expected differences).
// Entities are matched by key and compared with eq, the class's typed
// equality (cheap enough for millions of partitions); only the entities
// that differ go through go-cmp, whose report names the fields.
func compareClass[V any](c *comparison, class string, l, r map[string]V, eq func(a, b V) bool, explain func(*model.Finding, rawDiff)) {
	c.counts = append(c.counts, ClassCount{Class: class, Left: len(l), Right: len(r)})
	compareEntities(c, class, l, r, eq, explain)
}

// compareEntities is compareClass without the count: for a class
// compared as several maps.
func compareEntities[V any](c *comparison, class string, l, r map[string]V, eq func(a, b V) bool, explain func(*model.Finding, rawDiff)) {
	var diffs []rawDiff
	for k, a := range l {
		b, ok := r[k]
		switch {
		case !ok:
			diffs = append(diffs, rawDiff{entity: k, left: reflect.ValueOf(a)})
		case !eq(a, b):
			col := &collector{}
			cmp.Equal(map[string]V{k: a}, map[string]V{k: b}, append(slices.Clone(cmpOpts), cmp.Reporter(col))...)
			diffs = append(diffs, col.diffs...)
		}
	}
	for k, b := range r {
		if _, ok := l[k]; !ok {
			diffs = append(diffs, rawDiff{entity: k, right: reflect.ValueOf(b)})
		}
	}
	for _, d := range diffs {
		f := c.finding(class, d)
		if explain != nil {
			explain(&f, d)
		}
		c.add(f)
	}
}

// comparePartitions compares the partitions (assignment) and runtime
// classes. A topic on one side only is left to the topics class (its
// partitions are not reported one by one).
//
// The topics are shared out between workers, one a core: at a million
// partitions the walk is a cache miss or two a partition (each side's
// partitions are pointers into the heap), about 0.15 s on one core,
// which two walking at once nearly halve. Each worker keeps its own
// findings and notes, merged at the end; Compare sorts the findings, so
// the report does not depend on which worker found what.
func (c *comparison) comparePartitions(skipL, skipR map[string]bool) {
	var registered []int32
	if c.cross && c.zk == c.left {
		registered = c.registeredBrokers()
		c.unplaced = map[string]bool{}
	}
	names := make([]string, 0, len(c.left.Topics))
	parts := 0
	for name, lt := range c.left.Topics {
		if !skipL[name] {
			names = append(names, name)
			parts += len(lt.Partitions)
		}
	}
	workers := 1
	if parts >= parallelPartitions {
		workers = min(runtime.GOMAXPROCS(0), maxCompareWorkers)
	}
	ws := make([]partitionWalk, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range ws {
		w := &ws[i]
		w.c, w.registered, w.skipR = c, registered, skipR
		if c.unplaced != nil {
			w.unplaced = map[string]bool{}
		}
		walk := func() {
			// Topics are claimed a few at a time: a topic's partitions
			// can number one or thousands.
			const claim = 16
			for {
				i := int(next.Add(claim)) - claim
				if i >= len(names) {
					return
				}
				for _, name := range names[i:min(i+claim, len(names))] {
					w.topic(name)
				}
			}
		}
		if i == len(ws)-1 {
			walk()
		} else {
			wg.Go(walk)
		}
	}
	wg.Wait()
	nr := 0
	for i := range ws {
		c.findings = append(c.findings, ws[i].findings...)
		for name := range ws[i].unplaced {
			c.unplaced[name] = true
		}
	}
	for name, rt := range c.right.Topics {
		if !skipR[name] {
			nr += len(rt.Partitions)
		}
	}
	c.counts = append(c.counts, ClassCount{Class: ClassPartitions, Left: parts, Right: nr}, ClassCount{Class: ClassRuntime, Left: parts, Right: nr})
}

// parallelPartitions is how many partitions a comparison must hold before
// comparePartitions shares them out: below it a goroutine costs more than
// it saves (a variable: tests share out small images too).
// maxCompareWorkers bounds the workers: the walk waits on memory, which
// more than a few do not share out further.
var parallelPartitions = 50_000

const maxCompareWorkers = 4

// partitionWalk is one comparePartitions worker: the topics it claimed
// and what it found in them.
type partitionWalk struct {
	c          *comparison
	registered []int32
	skipR      map[string]bool
	unplaced   map[string]bool // nil unless c.unplaced is kept
	findings   []model.Finding
	lbuf, rbuf []*model.Partition
}

// report adds the findings of one partition's class, as compareClass
// words them.
func (w *partitionWalk) report(class string, entity string, l, r any, explain func(*model.Finding, rawDiff)) {
	var diffs []rawDiff
	switch {
	case r == nil:
		diffs = []rawDiff{{entity: entity, left: reflect.ValueOf(l)}}
	case l == nil:
		diffs = []rawDiff{{entity: entity, right: reflect.ValueOf(r)}}
	default:
		col := &collector{}
		cmp.Equal(map[string]any{entity: l}, map[string]any{entity: r}, append(slices.Clone(cmpOpts), cmp.Reporter(col))...)
		diffs = col.diffs
	}
	for _, d := range diffs {
		f := w.c.finding(class, d)
		if explain != nil {
			explain(&f, d)
		}
		w.findings = append(w.findings, f)
	}
}

// note notes lp's topic when a replica of lp is on a broker neither side
// registered (see readiness).
func (w *partitionWalk) note(name string, lp *model.Partition) {
	if w.unplaced == nil || lp == nil || w.unplaced[name] {
		return
	}
	if !allRegistered(w.registered, lp.Replicas) || !allRegistered(w.registered, lp.AddingReplicas) {
		w.unplaced[name] = true
	}
}

// topic compares one topic's partitions, left's topic name.
func (w *partitionWalk) topic(name string) {
	c := w.c
	lt := c.left.Topics[name]
	rt := c.right.Topics[name]
	if rt == nil || w.skipR[name] {
		for _, lp := range lt.Partitions {
			w.note(name, lp)
		}
		return
	}
	both := func(id int32, lp, rp *model.Partition) {
		switch {
		case rp == nil:
			// The runtime state goes with the partition.
			w.report(ClassPartitions, partitionEntity(name, id), partitionOf(lp, c.mask), nil, nil)
			return
		case lp == nil:
			w.report(ClassPartitions, partitionEntity(name, id), nil, partitionOf(rp, c.mask), nil)
			return
		case !sameAssignment(lp, rp, c.mask):
			w.report(ClassPartitions, partitionEntity(name, id), partitionOf(lp, c.mask), partitionOf(rp, c.mask), nil)
		}
		if !sameRuntime(lp, rp, c.mask) {
			w.report(ClassRuntime, partitionEntity(name, id), runtimeOf(lp, c.mask), runtimeOf(rp, c.mask), c.explainRuntime)
		}
	}
	// Both sides' partitions by id when each side holds ids 0..n-1 (as
	// good as always): a walk in the order the readers laid the
	// partitions out in memory, with no lookup of one side's ids in the
	// other's map, then back again.
	var lok, rok bool
	if w.lbuf, lok = denseByID(lt.Partitions, w.lbuf); lok {
		w.rbuf, rok = denseByID(rt.Partitions, w.rbuf)
	}
	if lok && rok {
		for i := range max(len(w.lbuf), len(w.rbuf)) {
			var lp, rp *model.Partition
			if i < len(w.lbuf) {
				lp = w.lbuf[i]
			}
			if i < len(w.rbuf) {
				rp = w.rbuf[i]
			}
			both(int32(i), lp, rp)
			w.note(name, lp)
		}
		return
	}
	for id, lp := range lt.Partitions {
		both(id, lp, rt.Partitions[id])
		w.note(name, lp)
	}
	for id, rp := range rt.Partitions {
		if lt.Partitions[id] == nil {
			both(id, nil, rp)
		}
	}
}

// registeredBrokers is the ids of the brokers either side registered,
// sorted.
func (c *comparison) registeredBrokers() []int32 {
	ids := make([]int32, 0, len(c.zk.Brokers)+len(c.kr.Brokers))
	for id := range c.zk.Brokers {
		ids = append(ids, id)
	}
	for id := range c.kr.Brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// allRegistered: every broker of rs is in registered (sorted).
func allRegistered(registered, rs []int32) bool {
	for _, r := range rs {
		if _, ok := slices.BinarySearch(registered, r); !ok {
			return false
		}
	}
	return true
}

// denseByID returns the partitions of m by id in buf when m holds ids
// 0..len(m)-1, each under its own id; false (and buf holding whatever)
// otherwise.
func denseByID(m map[int32]*model.Partition, buf []*model.Partition) ([]*model.Partition, bool) {
	buf = buf[:0]
	for i := range int32(len(m)) {
		p := m[i]
		if p == nil || p.ID != i {
			return buf, false
		}
		buf = append(buf, p)
	}
	return buf, true
}

// finding turns a raw difference into a finding with side-aware codes.
func (c *comparison) finding(class string, d rawDiff) model.Finding {
	f := model.Finding{Class: class, Entity: d.entity, Field: d.field}
	lok, rok := d.left.IsValid(), d.right.IsValid()
	if class == ClassACLs {
		// An ACL's entity is its whole content: it is there or not.
		d.left, d.right = presence(d.left), presence(d.right)
	}
	if lok {
		s := render(d.left)
		f.Left = &s
	}
	if rok {
		s := render(d.right)
		f.Right = &s
	}
	what := d.entity
	if d.field != "" {
		what += " " + d.field
	}
	switch {
	case lok && !rok:
		f.Code = c.missingCode(c.opts.Right, CodeRemoved)
		f.Message = fmt.Sprintf("%s is in %s, not in %s", what, c.opts.Left.Name, c.opts.Right.Name)
	case !lok && rok:
		f.Code = c.missingCode(c.opts.Left, CodeAdded)
		f.Message = fmt.Sprintf("%s is in %s, not in %s", what, c.opts.Right.Name, c.opts.Left.Name)
	default:
		f.Code = CodeDifferent
		if !c.cross {
			f.Code = CodeChanged
		}
		f.Message = fmt.Sprintf("%s: %s has %s, %s has %s", what, c.opts.Left.Name, *f.Left, c.opts.Right.Name, *f.Right)
	}
	// Between two views of one world a difference is a change, not a
	// fault (added, removed, changed: info); across worlds runtime state
	// legitimately moves between two reads (the checks' relaxed severity).
	ch := checks.Must(f.Code)
	f.Severity = ch.Severity
	if class == ClassRuntime {
		f = ch.Relax(f)
	}
	return f
}

func presence(v reflect.Value) reflect.Value {
	if !v.IsValid() {
		return v
	}
	return reflect.ValueOf("present")
}

// missingCode names "absent on side s": missing-in-<world> across worlds,
// sameWorld (added or removed) within one.
func (c *comparison) missingCode(s Side, sameWorld string) string {
	if !c.cross {
		return sameWorld
	}
	if s.World == model.WorldKRaft {
		return CodeMissingInKRaft
	}
	return CodeMissingInZooKeeper
}

// render prints a normalized value; secrets print their fingerprint.
func render(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case secret:
		return x.FP
	case string:
		return x
	case []int32:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = strconv.Itoa(int(n))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case []string:
		return "[" + strings.Join(x, ",") + "]"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]secret:
		return renderMap(x, func(s secret) string { return s.FP })
	case map[string]float64:
		return renderMap(x, func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) })
	case map[string]int16:
		return renderMap(x, func(n int16) string { return strconv.Itoa(int(n)) })
	case scramN:
		return fmt.Sprintf("iterations=%d credential=%s", x.Iterations, x.Credential.FP)
	}
	if v.Kind() == reflect.Struct {
		// A whole entity: its fields, in declaration order.
		var parts []string
		t := v.Type()
		for i := range t.NumField() {
			// Zero fields are left out: they are the ones a cross-world
			// comparison does not fill.
			if !v.Field(i).IsZero() {
				parts = append(parts, fieldName(t.Field(i).Name)+"="+render(v.Field(i)))
			}
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v.Interface())
}

func renderMap[V any](m map[string]V, f func(V) string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + f(m[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// explainConfig: cross-world expected differences of configs.
func (c *comparison) explainConfig(f *model.Finding, d rawDiff, lv, rv *view) {
	if !c.cross {
		return
	}
	zkv := lv
	if c.opts.Left.World != model.WorldZooKeeper {
		zkv = rv
	}
	if d.field == "" {
		// A whole entity on one side: resource types ZooKeeper cannot
		// hold exist in KRaft only.
		if f.Code == CodeMissingInZooKeeper && (strings.HasPrefix(d.entity, "config CLIENT_METRICS ") || strings.HasPrefix(d.entity, "config GROUP ")) {
			f.Code, f.Severity = CodeExpectedKRaftOnly, checkSeverity(CodeExpectedKRaftOnly)
			f.Message = d.entity + " exists in KRaft only: ZooKeeper has no such resource type"
		}
		// An entity that holds only configs Kafka 4.x removed.
		if f.Code == CodeMissingInKRaft && len(zkv.configs[d.entity]) > 0 && removedOnly(zkv.configs[d.entity]) {
			f.Code, f.Severity = CodeExpectedRemovedConfig, checkSeverity(CodeExpectedRemovedConfig)
			f.Message = fmt.Sprintf("%s is not in KRaft: it holds only configs Kafka 4.x removed (%s), which a migration to 4.x leaves out",
				d.entity, strings.Join(slices.Sorted(maps.Keys(zkv.configs[d.entity])), ", "))
		}
		return
	}
	if why, ok := model.RemovedConfig(d.field); ok && f.Code == CodeMissingInKRaft {
		f.Code, f.Severity = CodeExpectedRemovedConfig, checkSeverity(CodeExpectedRemovedConfig)
		f.Message = fmt.Sprintf("%s %s is not in KRaft: %s; a migration to 4.x leaves it out", d.entity, d.field, why)
		return
	}
	ep, ok := zkv.encrypted[d.entity][d.field]
	if !ok || f.Code != CodeDifferent {
		return
	}
	switch {
	case ep.err != nil:
		f.Code = CodePasswordNotDecrypted
		f.Message = fmt.Sprintf("%s %s: ZooKeeper holds it encrypted and --password-encoder-secret does not decrypt it (%v): not compared", d.entity, d.field, ep.err)
		f.Fix = "pass the password.encoder.secret the brokers used"
	case ep.decrypted:
		f.Message = fmt.Sprintf("%s %s: ZooKeeper's value, decrypted with --password-encoder-secret, differs from KRaft's (fingerprints %s, %s)", d.entity, d.field, *f.Left, *f.Right)
	default:
		f.Code, f.Severity = CodeExpectedEncryptedPassword, checkSeverity(CodeExpectedEncryptedPassword)
		f.Message = fmt.Sprintf("%s %s: ZooKeeper holds it encrypted with password.encoder.secret and Kafka's migration stores the plaintext in KRaft; not compared without --password-encoder-secret", d.entity, d.field)
	}
}

// removedOnly reports whether every key of a config entity is one Kafka
// 4.x removed.
func removedOnly(kv map[string]secret) bool {
	for k := range kv {
		if _, ok := model.RemovedConfig(k); !ok {
			return false
		}
	}
	return true
}

// explainTopic: a topic created before Kafka 2.8 has no id in ZooKeeper,
// and the migration gives it one. With the plan, KRaft must carry exactly
// the plan's; without it, kmeta cannot tell which id is right.
func (c *comparison) explainTopic(f *model.Finding, d rawDiff) {
	if !c.cross || d.field != "id" || f.Code != CodeDifferent {
		return
	}
	name := strings.TrimPrefix(d.entity, "topic ")
	zt, kt := c.zk.Topics[name], c.kr.Topics[name]
	if zt == nil || kt == nil || !zt.ID.IsZero() {
		return
	}
	if c.opts.PlanTopicIDs == nil {
		f.Code, f.Severity = CodeExpectedAssignedTopicID, checkSeverity(CodeExpectedAssignedTopicID)
		f.Message = fmt.Sprintf("ZooKeeper holds no topic id (a topic created before Kafka 2.8); KRaft carries %s, assigned by the migration: not checked without --plan", kt.ID)
		c.notes = append(c.notes, "the ids KRaft carries for topics that have none in ZooKeeper (pass --plan with the migration's plan file to check them)")
		return
	}
	want, ok := c.opts.PlanTopicIDs[name]
	if ok && want == kt.ID {
		f.Code, f.Severity = CodeExpectedAssignedTopicID, checkSeverity(CodeExpectedAssignedTopicID)
		f.Message = fmt.Sprintf("ZooKeeper holds no topic id (a topic created before Kafka 2.8); KRaft carries %s, the id the plan assigned", kt.ID)
		return
	}
	planned := "no id"
	if ok {
		planned = want.String()
	}
	f.Message = fmt.Sprintf("ZooKeeper holds no topic id and the plan assigns %s, but KRaft carries %s", planned, kt.ID)
}

// explainRuntime: in dual-write the controller writes a partition's
// state znode once per batch of changes it applies, so the znode's
// version (ZooKeeper's partition epoch) lags KRaft's partition epoch,
// which every PartitionChangeRecord bumps.
func (c *comparison) explainRuntime(f *model.Finding, d rawDiff) {
	if !c.cross || d.field != "partitionEpoch" || f.Code != CodeDifferent {
		return
	}
	zkE, krE := d.left.Int(), d.right.Int()
	if c.opts.Left.World != model.WorldZooKeeper {
		zkE, krE = krE, zkE
	}
	if krE > zkE {
		f.Code, f.Severity = CodeExpectedPartitionEpoch, checkSeverity(CodeExpectedPartitionEpoch)
		f.Message = fmt.Sprintf("%s partitionEpoch: ZooKeeper %d, KRaft %d: the controller dual-writes a state znode once per batch of changes, so its version lags KRaft's partition epoch", d.entity, zkE, krE)
	}
}

// explainFeature: a ZooKeeper-mode cluster finalizes no feature but
// metadata.version's predecessor (its /feature znode is empty in practice),
// while a KRaft controller bootstraps the other features (group.version,
// transaction.version, ...) at their defaults for the metadata.version.
// A feature only KRaft finalizes is therefore expected; one both sides
// hold at different levels, or one only ZooKeeper holds, is not.
func (c *comparison) explainFeature(f *model.Finding, d rawDiff) {
	if !c.cross || f.Code != CodeMissingInZooKeeper || d.field == "" || d.field == "metadata.version" {
		return
	}
	f.Code, f.Severity = CodeExpectedKRaftOnly, checkSeverity(CodeExpectedKRaftOnly)
	f.Message = fmt.Sprintf("feature %s is finalized in KRaft only: ZooKeeper mode has no such feature, and KRaft bootstraps it at the default for its metadata.version", d.field)
}

// explainBroker: KRaft brokers that are not migrating ZooKeeper brokers
// are expected in KRaft only.
func (c *comparison) explainBroker(f *model.Finding, d rawDiff, lv, rv *view) {
	if !c.cross || d.field != "" {
		return
	}
	if f.Code == CodeMissingInKRaft && c.offline() {
		f.Code, f.Severity = CodeExpectedZooKeeperOnly, checkSeverity(CodeExpectedZooKeeperOnly)
		f.Message = d.entity + " is registered in ZooKeeper, and no broker has registered with KRaft yet (an offline migration, before its brokers start): " +
			"the registration is ephemeral, left in the snapshot by a broker that was killed rather than stopped, or by one still running"
		return
	}
	if f.Code != CodeMissingInZooKeeper {
		return
	}
	krv := rv
	if c.opts.Right.World != model.WorldKRaft {
		krv = lv
	}
	if !krv.brokerMigrating[d.entity] {
		f.Code, f.Severity = CodeExpectedKRaftOnly, checkSeverity(CodeExpectedKRaftOnly)
		f.Message = d.entity + " is a KRaft broker (not a migrating ZooKeeper broker): ZooKeeper does not list it"
	}
}

// compareZooKeeperOnly compares the state only ZooKeeper holds, between
// two ZooKeeper views. An entity (a topic, a partition) that holds such
// state on one side only is compared field by field against nothing, so
// that the finding names the field and is not taken for the entity itself
// missing (rollUp).
func (c *comparison) compareZooKeeperOnly(lv, rv *view) {
	c.counts = append(c.counts, ClassCount{Class: ClassZooKeeper, Left: len(lv.zkOnly) + len(lv.zkRaw), Right: len(rv.zkOnly) + len(rv.zkRaw)})
	for e := range lv.zkOnly {
		if rv.zkOnly[e] == nil {
			rv.zkOnly[e] = map[string]string{}
		}
	}
	for e := range rv.zkOnly {
		if lv.zkOnly[e] == nil {
			lv.zkOnly[e] = map[string]string{}
		}
	}
	compareEntities(c, ClassZooKeeper, lv.zkOnly, rv.zkOnly, eqMap(eqComparable[string]), nil)
	compareEntities(c, ClassZooKeeper, lv.zkRaw, rv.zkRaw, eqComparable, nil)
}

// offline reports whether the KRaft view is one no broker has joined yet
// and that is not migrating online: an offline migration's output, or a
// controller started on it, before the brokers start. ZooKeeper's broker
// registrations then have no KRaft counterpart to compare with.
func (c *comparison) offline() bool {
	if len(c.kr.Brokers) > 0 {
		return false
	}
	km := c.kr.Migration
	return km == nil || !km.HasState || km.State == model.MigrationNone
}

func strp(s string) *string { return &s }

// producerIDBlockSize is Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE.
const producerIDBlockSize = 1000

func (c *comparison) producerIDs() {
	l, r := c.left.ProducerIDs, c.right.ProducerIDs
	n := func(p *model.ProducerIDs) int {
		if p == nil {
			return 0
		}
		return 1
	}
	c.counts = append(c.counts, ClassCount{Class: ClassProducerIDs, Left: n(l), Right: n(r)})
	show := func(p *model.ProducerIDs) *string {
		if p == nil {
			return nil
		}
		return strp(strconv.FormatInt(p.NextProducerID, 10))
	}
	f := model.Finding{Class: ClassProducerIDs, Entity: "producer-ids", Field: "nextProducerId", Left: show(l), Right: show(r)}
	if !c.cross {
		if (l == nil) != (r == nil) || l != nil && l.NextProducerID != r.NextProducerID {
			f.Severity, f.Code = checkSeverity(CodeChanged), CodeChanged
			if l == nil {
				f.Code = CodeAdded
			} else if r == nil {
				f.Code = CodeRemoved
			}
			f.Message = fmt.Sprintf("next producer id block: %s → %s", orNone(f.Left), orNone(f.Right))
			c.add(f)
		}
		return
	}
	zk, kr := c.zk.ProducerIDs, c.kr.ProducerIDs
	switch {
	case zk == nil && kr == nil:
		return
	case kr == nil:
		f.Severity, f.Code = checkSeverity(CodeMissingInKRaft), CodeMissingInKRaft
		f.Message = "ZooKeeper has /latest_producer_id_block, KRaft has no producer-id block: new producers could be given ids ZooKeeper-mode brokers already handed out"
	case zk == nil:
		f.Severity, f.Code = checkSeverity(CodeKRaftAhead), CodeKRaftAhead
		f.Message = "KRaft has allocated producer ids, ZooKeeper has no /latest_producer_id_block"
	default:
		zkNext := zk.NextProducerID
		how := "block_end+1"
		if zk.BrokerID == -1 {
			// Written by a KRaft controller in dual-write: block_start is
			// KRaft's next id.
			zkNext -= producerIDBlockSize
			how = "block_start of a block written by the KRaft controller"
		}
		switch {
		case kr.NextProducerID < zkNext:
			f.Severity, f.Code = checkSeverity(CodeKRaftBehind), CodeKRaftBehind
			f.Message = fmt.Sprintf("KRaft's next producer id %d is behind ZooKeeper's %d (%s): ids could be handed out twice", kr.NextProducerID, zkNext, how)
		case kr.NextProducerID > zkNext:
			f.Severity, f.Code = checkSeverity(CodeKRaftAhead), CodeKRaftAhead
			f.Message = fmt.Sprintf("KRaft's next producer id %d is ahead of ZooKeeper's %d (%s): KRaft allocated more since", kr.NextProducerID, zkNext, how)
		default:
			return
		}
	}
	c.add(f)
}

func orNone(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

func migrationString(m *model.Migration, world model.World) *string {
	if m == nil {
		return nil
	}
	if world == model.WorldKRaft || m.HasState && !m.HasZNode {
		if !m.HasState {
			return nil
		}
		return strp(m.State.String())
	}
	if !m.HasZNode {
		return nil
	}
	return strp(fmt.Sprintf("controller=%d epoch=%d offset=%d metadataEpoch=%d", m.KRaftControllerID, m.KRaftControllerEpoch, m.KRaftMetadataOffset, m.KRaftMetadataEpoch))
}

func (c *comparison) migration() {
	if !c.cross {
		l, r := migrationString(c.left.Migration, c.opts.Left.World), migrationString(c.right.Migration, c.opts.Right.World)
		if orNone(l) != orNone(r) {
			c.add(model.Finding{Code: CodeChanged, Severity: checkSeverity(CodeChanged), Class: ClassMigration, Entity: "migration",
				Field: "state", Left: l, Right: r, Message: fmt.Sprintf("migration state: %s → %s", orNone(l), orNone(r))})
		}
		return
	}
	zm, km := c.zk.Migration, c.kr.Migration
	zdone := zm != nil && zm.HasZNode && zm.KRaftMetadataOffset > 0
	kstate := model.MigrationNone
	if km != nil && km.HasState {
		kstate = km.State
	}
	zs, ks := migrationString(zm, model.WorldZooKeeper), migrationString(km, model.WorldKRaft)
	left, right := zs, ks
	if c.opts.Left.World != model.WorldZooKeeper {
		left, right = ks, zs
	}
	f := model.Finding{Class: ClassMigration, Entity: "migration", Left: left, Right: right,
		Where: &model.Location{Position: -1, Offset: -1, Znode: "/migration"}}
	switch {
	case zdone && (kstate == model.MigrationNone || kstate == model.MigrationPreMigration):
		f.Code, f.Severity = CodeStaleMigrationZnode, checkSeverity(CodeStaleMigrationZnode)
		f.Message = fmt.Sprintf("/migration says the migration is done (KRaft offset %d) but KRaft's migration state is %s: a controller would skip the migration and reconcile ZooKeeper to what KRaft holds", zm.KRaftMetadataOffset, kstate)
		f.Fix = "save /migration (get /migration), then delete it before starting the migration (3.9 docs, reverting)"
	case kstate == model.MigrationMigration && !zdone:
		f.Code, f.Severity = CodeMigrationZnodeMissing, checkSeverity(CodeMigrationZnodeMissing)
		f.Message = "KRaft's migration state is MIGRATION but ZooKeeper has no completed /migration: ZooKeeper was not migrated from, or /migration was removed"
	case kstate == model.MigrationMigration && zdone && c.kr.Provenance.Offset >= 0 && zm.KRaftMetadataOffset > c.kr.Provenance.Offset:
		f.Code, f.Severity = CodeKRaftViewBehind, checkSeverity(CodeKRaftViewBehind)
		f.Message = fmt.Sprintf("/migration says KRaft offset %d was dual-written to ZooKeeper but the KRaft view ends at offset %d: the views may differ for that reason alone", zm.KRaftMetadataOffset, c.kr.Provenance.Offset)
	default:
		return
	}
	c.add(f)
}

// ibp: migrating brokers register with metadata.version [IBP, IBP], so
// the finalized metadata.version must lie in that range.
func (c *comparison) ibp() {
	mv, ok := c.kr.Features["metadata.version"]
	if !ok {
		return
	}
	for id, b := range c.kr.Brokers {
		if !b.IsMigratingZkBroker {
			continue
		}
		for _, fr := range b.Features {
			if fr.Name != "metadata.version" || (mv >= fr.Min && mv <= fr.Max) {
				continue
			}
			ibp := strconv.Itoa(int(fr.Min))
			if fr.Min != fr.Max {
				ibp = fmt.Sprintf("%d-%d", fr.Min, fr.Max)
			}
			zkSide, krSide := strp("inter.broker.protocol.version level "+ibp), strp("metadata.version "+strconv.Itoa(int(mv)))
			l, r := zkSide, krSide
			if c.opts.Left.World != model.WorldZooKeeper {
				l, r = krSide, zkSide
			}
			c.add(model.Finding{Code: CodeIBPMismatch, Severity: checkSeverity(CodeIBPMismatch), Class: ClassFeatures, Entity: brokerEntity(id),
				Field: "metadata.version", Left: l, Right: r,
				Message: fmt.Sprintf("broker %d registered with metadata.version %s (its inter.broker.protocol.version) but KRaft's finalized metadata.version is %d: every ZooKeeper broker's IBP must equal it", id, ibp, mv),
				Fix:     "set inter.broker.protocol.version on every broker to the KRaft cluster's metadata.version"})
		}
	}
}
