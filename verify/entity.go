package verify

import (
	"encoding/base64"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kmeta/kmeta/model"
)

// One entity at a time: the entities of an image as diff names them, with
// their fields rendered as diff's findings render them, for the judges
// and planners that follow an image change by change (history) or
// entity by entity (restore) rather than compare two whole views.

// Entity is one entity of an image.
type Entity struct {
	Kind model.EntityKind
	// Name is the entity as diff's findings name it ("topic orders",
	// "partition orders-3", "config TOPIC orders", "acl TOPIC:LITERAL:x
	// User:a@* READ ALLOW"); features and the quorum, which diff compares
	// as one entity, are named one by one ("feature metadata.version",
	// "quorum").
	Name string
	// Key is Name without its kind ("orders-3", "TOPIC orders"), Topic
	// the topic of a topic, a partition or a topic config, and Aliases
	// other names a selector may give (a config's resource name, an
	// ACL's resource and principal, a quota entity unquoted).
	Key     string
	Topic   string
	Aliases []string
	// Fields, sorted by name, rendered as diff renders them; a secret is
	// its fingerprint unless FieldOptions.ShowSecrets.
	Fields []Field
}

// Field is one field of an entity.
type Field struct {
	Name, Value string
}

// FieldOptions tune how fields are rendered.
type FieldOptions struct {
	// ShowSecrets renders sensitive config values and SCRAM salts and
	// keys as they are; otherwise as model.RedactedValue and
	// model.ScramFingerprint, as diff does.
	ShowSecrets bool
}

// HeldByZooKeeper says whether Kafka's ZooKeeper data holds field of an
// entity of kind. A broker znode (BrokerInfo's JSON) holds endpoints,
// rack and features, its czxid the epoch; a partition's state znode
// leader, ISR, leader epoch and recovery state, its version the
// partition epoch. Fencing, controlled shutdown, incarnation ids, log
// dirs, replica directories and ELR exist only in KRaft: a ZooKeeper
// view holds zeros there (directories: MIGRATING, as Kafka's migration
// writes them), which are not the cluster's values.
func HeldByZooKeeper(kind model.EntityKind, field string) bool {
	switch kind {
	case model.EntityBroker:
		switch field {
		case "cordonedLogDirs", "fenced", "inControlledShutdown", "incarnationId", "isMigratingZkBroker", "logDirs":
			return false
		}
	case model.EntityPartition:
		switch field {
		case "directories", "elr", "lastKnownElr":
			return false
		}
	}
	return true
}

// Entity names, as findings carry them.

// TopicEntity names a topic.
func TopicEntity(name string) string { return topicEntity(name) }

// PartitionEntity names a partition.
func PartitionEntity(topic string, p int32) string { return partitionEntity(topic, p) }

// ConfigEntity names a config resource.
func ConfigEntity(r model.ConfigResource) string { return configEntity(r) }

// ACLEntity names an ACL by its content.
func ACLEntity(a *model.ACL) string { return aclEntity(a) }

// QuotaEntity names a client-quota entity.
func QuotaEntity(parts []model.QuotaEntityPart) string { return "quota " + model.QuotaEntityKey(parts) }

// ScramEntity names a SCRAM credential.
func ScramEntity(user string, mech int8) string { return scramEntity(user, mech) }

// Entities appends to dst the entities of img that ref names, those that
// exist (none when ref names one that does not). Partitions come by id,
// ACLs and SCRAM credentials by name.
func Entities(img *model.Image, ref model.EntityRef, opts FieldOptions, dst []Entity) []Entity {
	switch ref.Kind {
	case model.EntityTopic:
		if t := img.Topics[ref.Name]; t != nil {
			dst = append(dst, TopicOf(t))
		}
	case model.EntityPartition:
		t := img.Topics[ref.Name]
		if t == nil {
			break
		}
		if ref.ID != model.AllIDs {
			if p := t.Partitions[ref.ID]; p != nil {
				dst = append(dst, PartitionOf(t.Name, p))
			}
			break
		}
		for _, p := range t.SortedPartitions() {
			dst = append(dst, PartitionOf(t.Name, p))
		}
	case model.EntityBroker:
		if b := img.Brokers[ref.ID]; b != nil {
			dst = append(dst, brokerEntityOf(b))
		}
	case model.EntityController:
		if c := img.Controllers[ref.ID]; c != nil {
			dst = append(dst, controllerEntityOf(c))
		}
	case model.EntityConfig:
		if kv := img.Configs[ref.Config]; len(kv) > 0 {
			dst = append(dst, ConfigOf(ref.Config, kv, opts))
		}
	case model.EntityQuota:
		if q := img.ClientQuotas[ref.Name]; q != nil && len(q.Values) > 0 {
			dst = append(dst, QuotaOf(q))
		}
	case model.EntityACL:
		if !ref.ACL.IsZero() {
			if a := img.ACLs[ref.ACL]; a != nil {
				dst = append(dst, ACLOf(a))
			}
			break
		}
		var acls []*model.ACL
		for _, a := range img.ACLs {
			if a.ResourceType == ref.ResourceType && a.PatternType == ref.PatternType && a.ResourceName == ref.Name {
				acls = append(acls, a)
			}
		}
		slices.SortFunc(acls, model.CompareACLContent)
		for _, a := range acls {
			dst = append(dst, ACLOf(a))
		}
	case model.EntitySCRAM:
		for _, mech := range []int8{model.ScramSHA256, model.ScramSHA512} {
			if ref.ID != model.AllIDs && int32(mech) != ref.ID {
				continue
			}
			if c := img.SCRAM[model.ScramKey{User: ref.Name, Mechanism: mech}]; c != nil {
				dst = append(dst, scramEntityOf(c, opts))
			}
		}
	case model.EntityToken:
		if t := img.DelegationTokens[ref.Name]; t != nil {
			dst = append(dst, tokenEntityOf(t))
		}
	case model.EntityFeature:
		if ref.Name == "" && ref.ID == model.AllIDs {
			for _, f := range img.SortedFeatures() {
				dst = append(dst, featureEntityOf(f.Name, f.Level))
			}
			break
		}
		if l, ok := img.Features[ref.Name]; ok {
			dst = append(dst, featureEntityOf(ref.Name, l))
		}
	case model.EntityQuorum:
		if e, ok := quorumEntityOf(img); ok {
			dst = append(dst, e)
		}
	case model.EntityProducerIDs:
		if p := img.ProducerIDs; p != nil {
			dst = append(dst, Entity{Kind: ref.Kind, Name: "producer-ids", Key: "producer-ids", Fields: []Field{
				{"brokerEpoch", strconv.FormatInt(p.BrokerEpoch, 10)}, {"brokerId", strconv.Itoa(int(p.BrokerID))},
				{"nextProducerId", strconv.FormatInt(p.NextProducerID, 10)}}})
		}
	case model.EntityMigration:
		if m := img.Migration; m != nil {
			var fs []Field
			if m.HasState {
				fs = append(fs, Field{"state", m.State.String()})
			}
			if m.HasZNode {
				fs = append(fs, Field{"znode", *migrationString(&model.Migration{HasZNode: true, KRaftControllerID: m.KRaftControllerID,
					KRaftControllerEpoch: m.KRaftControllerEpoch, KRaftMetadataOffset: m.KRaftMetadataOffset, KRaftMetadataEpoch: m.KRaftMetadataEpoch}, model.WorldZooKeeper)})
			}
			if len(fs) > 0 {
				dst = append(dst, Entity{Kind: ref.Kind, Name: "migration", Key: "migration", Fields: fs})
			}
		}
	}
	return dst
}

// TopicOf is a topic: its id and partition count.
func TopicOf(t *model.Topic) Entity {
	return Entity{Kind: model.EntityTopic, Name: topicEntity(t.Name), Key: t.Name, Topic: t.Name, Fields: []Field{
		{"id", t.ID.String()}, {"partitions", strconv.Itoa(len(t.Partitions))}}}
}

// PartitionOf is a partition of topic: its assignment and runtime state,
// the fields of diff's partitions and runtime classes.
func PartitionOf(topic string, p *model.Partition) Entity {
	e := Entity{Kind: model.EntityPartition, Name: partitionEntity(topic, p.ID), Topic: topic}
	e.Key = e.Name[len("partition "):]
	e.Fields = partitionFields(p, e.Fields)
	return e
}

// partitionFields appends p's fields to dst, sorted by name.
func partitionFields(p *model.Partition, dst []Field) []Field {
	return append(dst,
		Field{"addingReplicas", ints(p.AddingReplicas)},
		Field{"directories", "[" + strings.Join(uuids(p.Directories), ",") + "]"},
		Field{"elr", ints(p.ELR)},
		Field{"isr", ints(p.ISR)},
		Field{"lastKnownElr", ints(p.LastKnownELR)},
		Field{"leader", strconv.Itoa(int(p.Leader))},
		Field{"leaderEpoch", strconv.Itoa(int(p.LeaderEpoch))},
		Field{"leaderRecoveryState", strconv.Itoa(int(p.LeaderRecoveryState))},
		Field{"partitionEpoch", strconv.Itoa(int(p.PartitionEpoch))},
		Field{"removingReplicas", ints(p.RemovingReplicas)},
		Field{"replicas", ints(p.Replicas)},
	)
}

// FieldChange is one field of an entity that a change set, changed or
// removed: In says whether the field had a value before (Before), Out
// whether it has one after (After).
type FieldChange struct {
	Name          string
	Before, After string
	In, Out       bool
}

// PartitionChanges appends to dst the fields that differ between two
// states of one partition, sorted by name. It is the fast path of a
// change-by-change judge: a busy log is mostly partition changes, and
// only the fields that differ are rendered.
func PartitionChanges(before, after *model.Partition, dst []FieldChange) []FieldChange {
	list := func(name string, a, b []int32) {
		if !slices.Equal(a, b) {
			dst = append(dst, FieldChange{Name: name, Before: ints(a), After: ints(b), In: true, Out: true})
		}
	}
	num := func(name string, a, b int64) {
		if a != b {
			dst = append(dst, FieldChange{Name: name, Before: strconv.FormatInt(a, 10), After: strconv.FormatInt(b, 10), In: true, Out: true})
		}
	}
	list("addingReplicas", before.AddingReplicas, after.AddingReplicas)
	if !slices.Equal(before.Directories, after.Directories) {
		dst = append(dst, FieldChange{Name: "directories", In: true, Out: true,
			Before: "[" + strings.Join(uuids(before.Directories), ",") + "]", After: "[" + strings.Join(uuids(after.Directories), ",") + "]"})
	}
	list("elr", before.ELR, after.ELR)
	list("isr", before.ISR, after.ISR)
	list("lastKnownElr", before.LastKnownELR, after.LastKnownELR)
	num("leader", int64(before.Leader), int64(after.Leader))
	num("leaderEpoch", int64(before.LeaderEpoch), int64(after.LeaderEpoch))
	num("leaderRecoveryState", int64(before.LeaderRecoveryState), int64(after.LeaderRecoveryState))
	num("partitionEpoch", int64(before.PartitionEpoch), int64(after.PartitionEpoch))
	list("removingReplicas", before.RemovingReplicas, after.RemovingReplicas)
	list("replicas", before.Replicas, after.Replicas)
	return dst
}

// FieldChanges appends to dst what differs between two field lists of one
// entity (nil: the entity is absent), both sorted by name.
func FieldChanges(before, after []Field, dst []FieldChange) []FieldChange {
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || i < len(before) && before[i].Name < after[j].Name:
			dst = append(dst, FieldChange{Name: before[i].Name, Before: before[i].Value, In: true})
			i++
		case i == len(before) || after[j].Name < before[i].Name:
			dst = append(dst, FieldChange{Name: after[j].Name, After: after[j].Value, Out: true})
			j++
		default:
			if before[i].Value != after[j].Value {
				dst = append(dst, FieldChange{Name: before[i].Name, Before: before[i].Value, After: after[j].Value, In: true, Out: true})
			}
			i++
			j++
		}
	}
	return dst
}

// ints renders a replica list as diff does: [1,2,3]. Short lists of
// small ids, which most are, come from a table made once: a busy log
// renders millions of them.
func ints(s []int32) string {
	if len(s) <= 3 && small(s) {
		return shortLists()[shortKey(s)]
	}
	return renderInts(s)
}

func small(s []int32) bool {
	for _, n := range s {
		if n < 0 || n >= shortIDs {
			return false
		}
	}
	return true
}

// shortIDs bounds the ids of the lists in shortLists.
const shortIDs = 32

func shortKey(s []int32) int {
	k := 0
	for _, n := range s {
		k = k*(shortIDs+1) + int(n) + 1
	}
	return k
}

// shortLists are the renderings of every list of up to three ids below
// shortIDs, by shortKey.
var shortLists = sync.OnceValue(func() []string {
	out := make([]string, (shortIDs+1)*(shortIDs+1)*(shortIDs+1))
	var walk func(prefix []int32)
	walk = func(prefix []int32) {
		out[shortKey(prefix)] = renderInts(prefix)
		if len(prefix) == 3 {
			return
		}
		for n := int32(0); n < shortIDs; n++ {
			walk(append(prefix, n))
		}
	}
	walk(nil)
	return out
})

func renderInts(s []int32) string {
	b := make([]byte, 0, 2+4*len(s))
	b = append(b, '[')
	for i, n := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(append(b, ']'))
}

// ConfigOf is a config resource's entries.
func ConfigOf(r model.ConfigResource, kv map[string]string, opts FieldOptions) Entity {
	e := Entity{Kind: model.EntityConfig, Name: configEntity(r)}
	e.Key = e.Name[len("config "):]
	name := r.Name
	if name == "" {
		name = "<default>"
	}
	e.Aliases = []string{name, strings.ToLower(r.Type.String()) + "/" + name}
	if r.Type == model.ConfigTopic {
		e.Topic = r.Name
	}
	for _, k := range sortedKeys(kv) {
		e.Fields = append(e.Fields, Field{k, ConfigValue(r.Type, k, kv[k], opts)})
	}
	return e
}

// ConfigValue renders one config value: a sensitive one (the printers'
// rule for the resource's type) as its fingerprint, unless ShowSecrets.
func ConfigValue(t model.ConfigResourceType, key, v string, opts FieldOptions) string {
	if opts.ShowSecrets {
		return v
	}
	return configValue(t, key, v).FP
}

// QuotaOf is a client-quota entity's values.
func QuotaOf(q *model.ClientQuota) Entity {
	key := model.QuotaEntityKey(q.Entity)
	e := Entity{Kind: model.EntityQuota, Name: "quota " + key, Key: key}
	var plain []string
	for _, p := range model.CanonicalQuotaEntity(q.Entity) {
		n := "<default>"
		if p.Name != nil {
			n = *p.Name
		}
		plain = append(plain, p.Type+"="+n)
	}
	e.Aliases = []string{strings.Join(plain, ",")}
	for _, k := range sortedKeys(q.Values) {
		e.Fields = append(e.Fields, Field{k, QuotaValue(q.Values[k])})
	}
	return e
}

// QuotaValue renders a quota value: a whole number as one (2097152, not
// 2.097152e+06: quotas are mostly byte rates), others as Go's shortest
// form.
func QuotaValue(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ACLOf is one ACL: diff compares ACLs by content, so its fields are its
// content.
func ACLOf(a *model.ACL) Entity {
	e := Entity{Kind: model.EntityACL, Name: aclEntity(a)}
	e.Key = e.Name[len("acl "):]
	e.Aliases = []string{a.ResourceName, a.Principal}
	e.Fields = []Field{
		{"host", a.Host},
		{"operation", model.ACLOperationName(a.Operation)},
		{"patternType", model.ACLPatternTypeName(a.PatternType)},
		{"permissionType", model.ACLPermissionTypeName(a.PermissionType)},
		{"principal", a.Principal},
		{"resourceName", a.ResourceName},
		{"resourceType", model.ACLResourceTypeName(a.ResourceType)},
	}
	return e
}

func brokerEntityOf(b *model.Broker) Entity {
	e := Entity{Kind: model.EntityBroker, Name: brokerEntity(b.ID), Key: strconv.Itoa(int(b.ID))}
	eps := make([]string, 0, len(b.Endpoints))
	for _, ep := range b.Endpoints {
		eps = append(eps, endpointString(ep))
	}
	slices.Sort(eps)
	var feats []string
	for _, f := range b.Features {
		feats = append(feats, fmt.Sprintf("%s[%d,%d]", f.Name, f.Min, f.Max))
	}
	slices.Sort(feats)
	rack := ""
	if b.Rack != nil {
		rack = *b.Rack
	}
	e.Fields = []Field{
		{"cordonedLogDirs", "[" + strings.Join(uuids(b.CordonedLogDirs), ",") + "]"},
		{"endpoints", "[" + strings.Join(eps, ",") + "]"},
		{"epoch", strconv.FormatInt(b.Epoch, 10)},
		{"features", "[" + strings.Join(feats, ",") + "]"},
		{"fenced", strconv.FormatBool(b.Fenced)},
		{"inControlledShutdown", strconv.FormatBool(b.InControlledShutdown)},
		{"incarnationId", b.IncarnationID.String()},
		{"isMigratingZkBroker", strconv.FormatBool(b.IsMigratingZkBroker)},
		{"logDirs", "[" + strings.Join(uuids(b.LogDirs), ",") + "]"},
		{"rack", rack},
	}
	return e
}

func controllerEntityOf(c *model.Controller) Entity {
	id := strconv.Itoa(int(c.ID))
	e := Entity{Kind: model.EntityController, Name: "controller " + id, Key: id}
	eps := make([]string, 0, len(c.Endpoints))
	for _, ep := range c.Endpoints {
		eps = append(eps, endpointString(ep))
	}
	slices.Sort(eps)
	var feats []string
	for _, f := range c.Features {
		feats = append(feats, fmt.Sprintf("%s[%d,%d]", f.Name, f.Min, f.Max))
	}
	slices.Sort(feats)
	e.Fields = []Field{
		{"endpoints", "[" + strings.Join(eps, ",") + "]"},
		{"features", "[" + strings.Join(feats, ",") + "]"},
		{"incarnationId", c.IncarnationID.String()},
		{"zkMigrationReady", strconv.FormatBool(c.ZkMigrationReady)},
	}
	return e
}

func scramEntityOf(c *model.ScramCredential, opts FieldOptions) Entity {
	e := Entity{Kind: model.EntitySCRAM, Name: scramEntity(c.User, c.Mechanism)}
	e.Key = e.Name[len("scram "):]
	e.Aliases = []string{c.User}
	e.Fields = []Field{{"iterations", strconv.Itoa(int(c.Iterations))}}
	switch {
	case opts.ShowSecrets && (c.Salt != nil || c.StoredKey != nil || c.ServerKey != nil):
		b64 := base64.StdEncoding.EncodeToString
		e.Fields = append(e.Fields, Field{"salt", b64(c.Salt)}, Field{"serverKey", b64(c.ServerKey)}, Field{"storedKey", b64(c.StoredKey)})
	case c.Salt != nil || c.StoredKey != nil || c.ServerKey != nil:
		e.Fields = append([]Field{{"credential", model.ScramFingerprint(c)}}, e.Fields...)
	case c.Fingerprint != "":
		e.Fields = append([]Field{{"credential", c.Fingerprint}}, e.Fields...)
	}
	return e
}

func tokenEntityOf(t *model.DelegationToken) Entity {
	ren := slices.Clone(t.Renewers)
	slices.Sort(ren)
	return Entity{Kind: model.EntityToken, Name: "token " + t.TokenID, Key: t.TokenID, Aliases: []string{t.Owner}, Fields: []Field{
		{"expirationTimestamp", strconv.FormatInt(t.ExpirationTimestamp, 10)},
		{"issueTimestamp", strconv.FormatInt(t.IssueTimestamp, 10)},
		{"maxTimestamp", strconv.FormatInt(t.MaxTimestamp, 10)},
		{"owner", t.Owner},
		{"renewers", "[" + strings.Join(ren, ",") + "]"},
		{"requester", t.Requester},
	}}
}

func featureEntityOf(name string, level int16) Entity {
	return Entity{Kind: model.EntityFeature, Name: "feature " + name, Key: name, Fields: []Field{{"level", strconv.Itoa(int(level))}}}
}

// quorumEntityOf is the KRaft quorum (leader, epoch, voters,
// kraft.version), or on the ZooKeeper side the controller Kafka's
// brokers elected through /controller.
func quorumEntityOf(img *model.Image) (Entity, bool) {
	e := Entity{Kind: model.EntityQuorum, Name: "quorum", Key: "quorum"}
	if q := img.Quorum; q != nil {
		var vs []string
		for _, v := range q.Voters {
			s := strconv.Itoa(int(v.ID))
			if !v.DirectoryID.IsZero() {
				s += "@" + v.DirectoryID.String()
			}
			vs = append(vs, s)
		}
		e.Fields = []Field{
			{"kraftVersion", strconv.Itoa(int(q.KRaftVersion))},
			{"leaderEpoch", strconv.Itoa(int(q.LeaderEpoch))},
			{"leaderId", strconv.Itoa(int(q.LeaderID))},
			{"voters", "[" + strings.Join(vs, ",") + "]"},
		}
		return e, true
	}
	if z := img.ZK; z != nil && (z.ControllerID >= 0 || z.ControllerEpoch > 0) {
		e.Fields = []Field{
			{"controllerEpoch", strconv.Itoa(int(z.ControllerEpoch))},
			{"controllerId", strconv.Itoa(int(z.ControllerID))},
		}
		if z.KRaftControllerEpoch >= 0 {
			e.Fields = append(e.Fields, Field{"kraftControllerEpoch", strconv.Itoa(int(z.KRaftControllerEpoch))})
		}
		return e, true
	}
	return e, false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Selector picks entities by kind and name: --entity KIND[:GLOB] of
// history and restore.
type Selector struct {
	Kind model.EntityKind
	// Glob is a path.Match pattern ("" or "*": every entity of the kind).
	Glob string
}

// ParseSelector reads KIND[:GLOB] ("topic:orders*", "acl", "config:BROKER
// <default>", "quota:user=alice").
func ParseSelector(s string) (Selector, error) {
	k, g, _ := strings.Cut(s, ":")
	kind, ok := model.ParseEntityKind(k)
	if !ok {
		var names []string
		for _, k := range model.EntityKinds() {
			names = append(names, k.String())
		}
		return Selector{}, fmt.Errorf("entity %q: unknown kind %q (want KIND[:NAME], KIND one of %s)", s, k, strings.Join(names, ", "))
	}
	if _, err := path.Match(g, ""); err != nil {
		return Selector{}, fmt.Errorf("entity %q: bad pattern %q: %w", s, g, err)
	}
	return Selector{Kind: kind, Glob: g}, nil
}

// Match says whether e is selected: its kind, and its key or an alias
// matching the glob. A topic selector also picks the topic's partitions
// and its config.
func (s Selector) Match(e Entity) bool {
	glob := func(name string) bool {
		if s.Glob == "" {
			return true
		}
		ok, _ := path.Match(s.Glob, name)
		return ok
	}
	if s.Kind == model.EntityTopic && e.Topic != "" && (e.Kind == model.EntityPartition || e.Kind == model.EntityConfig) {
		return glob(e.Topic)
	}
	if s.Kind != e.Kind {
		return false
	}
	if glob(e.Key) {
		return true
	}
	return slices.ContainsFunc(e.Aliases, glob)
}

// MatchAny says whether any of sels selects e; no selector selects
// everything.
func MatchAny(sels []Selector, e Entity) bool {
	if len(sels) == 0 {
		return true
	}
	return slices.ContainsFunc(sels, func(s Selector) bool { return s.Match(e) })
}
