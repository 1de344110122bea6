package history

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
)

// Point is where a step is: a KRaft record (Offset, the batch's Time) or
// a ZooKeeper transaction (Zxid and its Time).
type Point struct {
	World  model.World
	Offset int64
	// Before (KRaft) is the last point before the step: the offset to
	// stop a replay at for the image without it (metalog's
	// Replayer.PointBefore). It is Offset-1 unless the step shares a batch
	// with records before it, or is part of a metadata transaction.
	Before int64
	Zxid   int64
	// Time is the batch's or the transaction's time; zero when the batch
	// has none.
	Time time.Time
}

// Touch is one entity a step touches, and how: the record type (KRaft)
// or the operation on a znode (ZooKeeper).
type Touch struct {
	Ref    model.EntityRef
	Record string
	Znode  string
}

// Change is one entity's change in one step (see the package doc). The
// Judge hands out one Change value it reuses: keep a copy (Clone), not
// the pointer.
type Change struct {
	Point
	Record string
	Znode  string
	Kind   model.EntityKind
	Entity string
	// Action is ActionCreated, ActionChanged or ActionDeleted.
	Action string
	Fields []verify.FieldChange
}

// The actions of a change.
const (
	ActionCreated = "created"
	ActionChanged = "changed"
	ActionDeleted = "deleted"
)

// Clone is a copy of c that the Judge does not reuse.
func (c *Change) Clone() Change {
	out := *c
	out.Fields = slices.Clone(c.Fields)
	return out
}

// Bound is one end of a window: a time, or an offset (KRaft) or zxid
// (ZooKeeper). The zero Bound is open.
type Bound struct {
	Time time.Time
	// Position is an offset or a zxid, when HasPosition.
	Position    int64
	HasPosition bool
}

// IsZero says whether b is open.
func (b Bound) IsZero() bool { return b.Time.IsZero() && !b.HasPosition }

// Options select what a Judge reports.
type Options struct {
	// Entities select entities (none: every entity).
	Entities []verify.Selector
	// Fields are path.Match globs on field names (none: every field).
	Fields []string
	// Since and Until bound the steps reported, both included.
	Since, Until Bound
	// ShowSecrets renders secrets as they are.
	ShowSecrets bool
}

// Judge follows a replay and reports changes. Call Before with the
// touches of a step and the image as it is, apply the step, then call
// After with the image as it now is; a step that took no effect gets no
// After (the next Before forgets it).
type Judge struct {
	opts  Options
	emit  func(*Change) error
	kinds [model.EntityMigration + 1]bool // the kinds a selector may pick
	pend  []pending
	ents  []verify.Entity
	out   Change
	err   error
	// Seen counts the changes the Judge found in the window, Reported
	// those it handed out (after the entity and field filters).
	Seen, Reported int64
	// First and Last are the points of the first and last change
	// reported.
	First, Last Point
	// Kinds counts the changes reported, by kind.
	Kinds map[model.EntityKind]int64
}

// pending is one touch of the step at hand, with what it read before.
type pending struct {
	touch Touch
	// part: a partition's state before (fast: a partition's lists are
	// never written in place, so a copy of the struct is a snapshot).
	part    model.Partition
	hasPart bool
	// zk: the partition's ZooKeeper-only fields before (zkPartition).
	zk     []verify.Field
	fast   bool
	before []verify.Entity
}

// New starts a judge handing each change to emit; an error from emit
// stops the reports (Err returns it).
func New(opts Options, emit func(*Change) error) *Judge {
	j := &Judge{opts: opts, emit: emit, Kinds: map[model.EntityKind]int64{}}
	for _, k := range model.EntityKinds() {
		j.kinds[k] = len(opts.Entities) == 0
	}
	for _, s := range opts.Entities {
		j.kinds[s.Kind] = true
		if s.Kind == model.EntityTopic {
			// A topic selector takes its partitions and config along.
			j.kinds[model.EntityPartition], j.kinds[model.EntityConfig] = true, true
		}
	}
	return j
}

// Err is the first error emit returned.
func (j *Judge) Err() error { return j.err }

// InWindow says whether a step at p is one the judge reports (Since and
// Until); false after Until tells the caller it may stop.
func (j *Judge) InWindow(p Point) bool {
	pos := p.Offset
	if p.World == model.WorldZooKeeper {
		pos = p.Zxid
	}
	s, u := j.opts.Since, j.opts.Until
	switch {
	case s.HasPosition && pos < s.Position, u.HasPosition && pos > u.Position:
		return false
	case !s.Time.IsZero() && (p.Time.IsZero() || p.Time.Before(s.Time)),
		!u.Time.IsZero() && (p.Time.IsZero() || p.Time.After(u.Time)):
		return false
	}
	return true
}

// Before reads what touches name from img, the image before the step at
// p. Touches outside the window or of kinds no selector picks are not
// read.
func (j *Judge) Before(img *model.Image, p Point, touches []Touch) {
	j.pend = j.pend[:0]
	if j.err != nil || !j.InWindow(p) {
		return
	}
	for i, t := range touches {
		if !j.kinds[t.Ref.Kind] || touchedBefore(touches, i) {
			continue
		}
		if t.Ref.Kind == model.EntityPartition && t.Ref.ID != model.AllIDs {
			if len(j.opts.Entities) > 0 && !verify.MatchAny(j.opts.Entities, verify.Entity{Kind: model.EntityPartition,
				Key: t.Ref.Name + "-" + strconv.Itoa(int(t.Ref.ID)), Topic: t.Ref.Name}) {
				continue // not selected: not read
			}
			j.pend = append(j.pend, pending{touch: t, fast: true})
			pd := &j.pend[len(j.pend)-1]
			if tp := img.Topics[t.Ref.Name]; tp != nil {
				if pt := tp.Partitions[t.Ref.ID]; pt != nil {
					pd.part, pd.hasPart = *pt, true
					pd.zk = zkPartition(img, p.World, t.Ref.Name, t.Ref.ID, nil)
				}
			}
			continue
		}
		j.pend = append(j.pend, pending{touch: t, before: entities(img, p.World, t.Ref, j.fieldOpts(), nil)})
	}
}

// touchedBefore says whether the entity touches[i] names is one an
// earlier touch of the same step already names, or a partition whose
// topic's every partition a touch of the step names. A ZooKeeper
// transaction may write one entity's znode twice: Kafka registers a
// broker, and claims /controller, with a multi that creates the znode
// and then sets its data (KafkaZkClient's CheckedEphemeral), and its
// controller election sets /controller_epoch in the same multi. Read
// once per touch, the entity would be reported created twice.
func touchedBefore(touches []Touch, i int) bool {
	ref := touches[i].Ref
	for k, t := range touches {
		if k < i && t.Ref == ref {
			return true
		}
		if k != i && ref.Kind == model.EntityPartition && ref.ID != model.AllIDs &&
			t.Ref.Kind == model.EntityPartition && t.Ref.ID == model.AllIDs && t.Ref.Name == ref.Name {
			return true
		}
	}
	return false
}

// entities are verify.Entities, with what a ZooKeeper view holds beyond
// them, as kmeta diff of two ZooKeeper views compares it (its zookeeper
// class): a topic's pending deletion (/admin/delete_topics/<topic>), a
// partition's missing state znode and legacy reassignment (zkPartition).
// A broker without a rack has no rack field, as the image prints it
// ("<none>"), rather than an empty rack, which is a value of its own.
func entities(img *model.Image, w model.World, ref model.EntityRef, opts verify.FieldOptions, dst []verify.Entity) []verify.Entity {
	n := len(dst)
	dst = verify.Entities(img, ref, opts, dst)
	for i := n; i < len(dst); i++ {
		e := &dst[i]
		switch e.Kind {
		case model.EntityBroker:
			if b := img.Brokers[ref.ID]; b != nil && b.Rack == nil {
				e.Fields = slices.DeleteFunc(e.Fields, func(f verify.Field) bool { return f.Name == "rack" })
			}
		case model.EntityTopic:
			if w == model.WorldZooKeeper && img.ZK != nil && slices.Contains(img.ZK.PendingTopicDeletions, e.Key) {
				e.Fields = append(e.Fields, verify.Field{Name: "pendingDeletion", Value: "true"})
				sortFields(e.Fields)
			}
		case model.EntityPartition:
			if t := img.Topics[e.Topic]; t != nil && w == model.WorldZooKeeper {
				if i := strings.LastIndexByte(e.Key, '-'); i > 0 {
					if id, err := strconv.ParseInt(e.Key[i+1:], 10, 32); err == nil {
						e.Fields = zkPartition(img, w, e.Topic, int32(id), e.Fields)
					}
				}
			}
		}
	}
	return dst
}

// zkPartition appends to dst (sorted by name, as dst is) the fields a
// ZooKeeper view holds of partition topic-id beyond its model fields,
// named as diff's zookeeper class names them: stateZnodeMissing (the
// controller has not written its state znode; the reader fills in the
// leader and ISR as Kafka's migration would) and legacyReassignment
// (/admin/reassign_partitions).
func zkPartition(img *model.Image, w model.World, topic string, id int32, dst []verify.Field) []verify.Field {
	if w != model.WorldZooKeeper || img.ZK == nil || len(img.ZK.MissingPartitionStates) == 0 && len(img.ZK.LegacyReassignments) == 0 {
		return dst
	}
	tp := topic + "-" + strconv.Itoa(int(id))
	n := len(dst)
	if _, ok := slices.BinarySearch(img.ZK.MissingPartitionStates, tp); ok {
		dst = append(dst, verify.Field{Name: "stateZnodeMissing", Value: "true"})
	}
	if rs, ok := img.ZK.LegacyReassignments[tp]; ok {
		dst = append(dst, verify.Field{Name: "legacyReassignment", Value: intList(rs)})
	}
	if len(dst) > n {
		sortFields(dst)
	}
	return dst
}

// intList renders a replica list as diff renders a legacy reassignment:
// [1,2,3].
func intList(s []int32) string {
	b := []byte{'['}
	for i, n := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(append(b, ']'))
}

func sortFields(fs []verify.Field) {
	slices.SortStableFunc(fs, func(a, b verify.Field) int { return strings.Compare(a.Name, b.Name) })
}

func sortFieldChanges(fs []verify.FieldChange) {
	slices.SortStableFunc(fs, func(a, b verify.FieldChange) int { return strings.Compare(a.Name, b.Name) })
}

func (j *Judge) fieldOpts() verify.FieldOptions {
	return verify.FieldOptions{ShowSecrets: j.opts.ShowSecrets}
}

// After reports what the step at p changed in what Before read, img being
// the image after it.
func (j *Judge) After(img *model.Image, p Point) {
	if j.err != nil {
		j.pend = j.pend[:0]
		return
	}
	for i := range j.pend {
		pd := &j.pend[i]
		j.out = Change{Point: p, Record: pd.touch.Record, Znode: pd.touch.Znode, Kind: pd.touch.Ref.Kind, Fields: j.out.Fields[:0]}
		if pd.fast {
			j.partition(img, pd)
		} else {
			j.ents = entities(img, p.World, pd.touch.Ref, j.fieldOpts(), j.ents[:0])
			j.entities(pd.before, j.ents)
		}
		if j.err != nil {
			break
		}
	}
	j.pend = j.pend[:0]
}

// partition reports one partition's change (the fast path).
func (j *Judge) partition(img *model.Image, pd *pending) {
	ref := pd.touch.Ref
	var after *model.Partition
	if tp := img.Topics[ref.Name]; tp != nil {
		after = tp.Partitions[ref.ID]
	}
	switch {
	case after == nil && !pd.hasPart:
		return
	case after != nil && pd.hasPart:
		j.out.Fields = verify.PartitionChanges(&pd.part, after, j.out.Fields)
		if zk := zkPartition(img, j.out.World, ref.Name, ref.ID, nil); len(zk) > 0 || len(pd.zk) > 0 {
			j.out.Fields = verify.FieldChanges(pd.zk, zk, j.out.Fields)
			sortFieldChanges(j.out.Fields)
		}
		j.out.Action = ActionChanged
	case after != nil:
		e := verify.PartitionOf(ref.Name, after)
		e.Fields = zkPartition(img, j.out.World, ref.Name, ref.ID, e.Fields)
		j.out.Fields = verify.FieldChanges(nil, e.Fields, j.out.Fields)
		j.out.Action = ActionCreated
	default:
		e := verify.PartitionOf(ref.Name, &pd.part)
		e.Fields = append(e.Fields, pd.zk...)
		sortFields(e.Fields)
		j.out.Fields = verify.FieldChanges(e.Fields, nil, j.out.Fields)
		j.out.Action = ActionDeleted
	}
	if len(j.out.Fields) == 0 {
		return
	}
	j.out.Entity = verify.PartitionEntity(ref.Name, ref.ID)
	if len(j.opts.Entities) > 0 && !verify.MatchAny(j.opts.Entities, verify.Entity{Kind: model.EntityPartition,
		Key: j.out.Entity[len("partition "):], Topic: ref.Name}) {
		return
	}
	j.report()
}

// entities reports the changes between the entities a touch named before
// and after, matched by name (both lists come sorted by the reader's
// order; a touch names few).
func (j *Judge) entities(before, after []verify.Entity) {
	done := make([]bool, len(after))
	for _, b := range before {
		k := slices.IndexFunc(after, func(a verify.Entity) bool { return a.Name == b.Name })
		if k < 0 {
			j.one(b, nil, ActionDeleted)
			continue
		}
		done[k] = true
		j.one(b, after[k].Fields, ActionChanged)
	}
	for k, a := range after {
		if !done[k] {
			j.one(verify.Entity{Kind: a.Kind, Name: a.Name, Key: a.Key, Topic: a.Topic, Aliases: a.Aliases}, a.Fields, ActionCreated)
		}
	}
}

// one reports entity e's change from e.Fields to after.
func (j *Judge) one(e verify.Entity, after []verify.Field, action string) {
	if j.err != nil || len(j.opts.Entities) > 0 && !verify.MatchAny(j.opts.Entities, e) {
		return
	}
	j.out.Kind, j.out.Entity, j.out.Action = e.Kind, e.Name, action
	before := e.Fields
	if action == ActionCreated {
		before = nil
	}
	j.out.Fields = verify.FieldChanges(before, after, j.out.Fields[:0])
	if len(j.out.Fields) == 0 && action == ActionChanged {
		return
	}
	j.report()
}

// report hands out j.out after the field filters.
func (j *Judge) report() {
	if j.out.World == model.WorldZooKeeper {
		// What ZooKeeper does not hold is no change of the cluster's: the
		// reader's zero (or MIGRATING directories) is not a value.
		j.out.Fields = slices.DeleteFunc(j.out.Fields, func(f verify.FieldChange) bool {
			return !verify.HeldByZooKeeper(j.out.Kind, f.Name)
		})
		if len(j.out.Fields) == 0 && j.out.Action == ActionChanged {
			return
		}
	}
	j.Seen++
	if len(j.opts.Fields) > 0 {
		j.out.Fields = slices.DeleteFunc(j.out.Fields, func(f verify.FieldChange) bool {
			return !slices.ContainsFunc(j.opts.Fields, func(g string) bool { ok, _ := path.Match(g, f.Name); return ok })
		})
		if len(j.out.Fields) == 0 {
			return
		}
	}
	if j.Reported == 0 {
		j.First = j.out.Point
	}
	j.Reported++
	j.Last = j.out.Point
	j.Kinds[j.out.Kind]++
	if err := j.emit(&j.out); err != nil {
		j.err = err
	}
}

// AppendJSON appends c as one JSON object (see the package doc), without
// a newline.
func AppendJSON(b []byte, c *Change) []byte {
	var e Encoder
	return e.Append(b, c)
}

// Encoder is AppendJSON for a stream of changes: the changes of one batch
// share a time, which it formats once.
type Encoder struct {
	last     time.Time
	lastText []byte
}

// Append is AppendJSON.
func (e *Encoder) Append(b []byte, c *Change) []byte {
	if c.World == model.WorldZooKeeper {
		b = append(b, `{"zxid":`...)
		b = strconv.AppendInt(b, c.Zxid, 10)
	} else {
		b = append(b, `{"offset":`...)
		b = strconv.AppendInt(b, c.Offset, 10)
		b = append(b, `,"pointBefore":`...)
		b = strconv.AppendInt(b, c.Before, 10)
	}
	if !c.Time.IsZero() {
		if e.lastText == nil || !c.Time.Equal(e.last) {
			e.last, e.lastText = c.Time, c.Time.UTC().AppendFormat(e.lastText[:0], time.RFC3339Nano)
		}
		b = append(b, `,"time":"`...)
		b = append(b, e.lastText...)
		b = append(b, '"')
	}
	b = append(b, `,"record":`...)
	b = appendString(b, c.Record)
	if c.Znode != "" {
		b = append(b, `,"znode":`...)
		b = appendString(b, c.Znode)
	}
	b = append(b, `,"kind":"`...)
	b = append(b, c.Kind.String()...)
	b = append(b, `","entity":`...)
	b = appendString(b, c.Entity)
	b = append(b, `,"action":"`...)
	b = append(b, c.Action...)
	b = append(b, '"')
	if c.Action != ActionCreated {
		b = appendFields(b, `,"before":{`, c.Fields, true)
	}
	if c.Action != ActionDeleted {
		b = appendFields(b, `,"after":{`, c.Fields, false)
	}
	return append(b, '}')
}

func appendFields(b []byte, open string, fs []verify.FieldChange, before bool) []byte {
	b = append(b, open...)
	first := true
	for _, f := range fs {
		v, ok := f.After, f.Out
		if before {
			v, ok = f.Before, f.In
		}
		if !ok {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, f.Name)
		b = append(b, ':')
		b = appendString(b, v)
	}
	return append(b, '}')
}

// jsonPlain are the bytes a JSON string holds as they are.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string: encoding/json's escapes, HTML
// characters left as they are (as kmeta's JSON printers do).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	plain := true
	for i := 0; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < 0x80 {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0xFFFD && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if r == 0xFFFD {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
