package restore

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
	"github.com/kmeta/kmeta/verify"
)

// Side names one of the two views.
type Side struct {
	// Name is the source string as given.
	Name  string
	World model.World
}

// Options tune Plan.
type Options struct {
	// Entities select what is restored (verify.Selector; none: all).
	Entities []verify.Selector
	// ClusterIDMismatchOK plans across two clusters.
	ClusterIDMismatchOK bool
}

// ActionKind is what an action asks of Kafka.
type ActionKind string

// The actions, in the order they are sent.
const (
	CreateTopic      ActionKind = "create-topic"
	CreatePartitions ActionKind = "create-partitions"
	AlterConfigs     ActionKind = "alter-configs"
	AlterQuotas      ActionKind = "alter-quotas"
	CreateACL        ActionKind = "create-acl"
	DeleteACL        ActionKind = "delete-acl"
)

// Action is one admin change.
type Action struct {
	Kind ActionKind `json:"action"`
	// Entity is what it changes, as diff names it.
	Entity string `json:"entity"`
	// Why says what the two views hold.
	Why    string        `json:"why"`
	Topic  *TopicSpec    `json:"topic,omitempty"`
	Config *ConfigChange `json:"config,omitempty"`
	Quota  *QuotaChange  `json:"quota,omitempty"`
	ACL    *ACLSpec      `json:"acl,omitempty"`
}

// TopicSpec is a topic to create (CreateTopic) or grow (CreatePartitions:
// Partitions is the new count, From the count now).
type TopicSpec struct {
	Name              string    `json:"name"`
	Partitions        int32     `json:"partitions"`
	ReplicationFactor int16     `json:"replicationFactor,omitempty"`
	From              int32     `json:"from,omitempty"`
	Assignment        [][]int32 `json:"assignment,omitempty"`
	// Configs are the topic's configs at the point.
	Configs []ConfigValue `json:"configs,omitempty"`
}

// ConfigValue is one config key and value; Was is TARGET's value now
// (absent: none).
type ConfigValue struct {
	Key   string  `json:"key"`
	Value string  `json:"value,omitempty"`
	Was   *string `json:"was,omitempty"`
}

// ConfigChange sets and deletes keys of one config resource.
type ConfigChange struct {
	Resource model.ConfigResource `json:"resource"`
	Set      []ConfigValue        `json:"set,omitempty"`
	Delete   []ConfigValue        `json:"delete,omitempty"`
}

// QuotaValue is one quota key and value; Was is TARGET's value now.
type QuotaValue struct {
	Key   string   `json:"key"`
	Value float64  `json:"value"`
	Was   *float64 `json:"was,omitempty"`
}

// QuotaChange sets and removes values of one client-quota entity.
type QuotaChange struct {
	Entity []model.QuotaEntityPart `json:"entity"`
	Set    []QuotaValue            `json:"set,omitempty"`
	Remove []QuotaValue            `json:"remove,omitempty"`
}

// ACLSpec is one ACL, by content.
type ACLSpec struct {
	model.ACL
	ResourceTypeName   string `json:"resourceTypeName"`
	PatternTypeName    string `json:"patternTypeName"`
	OperationName      string `json:"operationName"`
	PermissionTypeName string `json:"permissionTypeName"`
}

func aclSpec(a *model.ACL) *ACLSpec {
	c := *a
	c.ID = model.UUID{} // ids differ by write; an ACL is its content
	return &ACLSpec{ACL: c, ResourceTypeName: model.ACLResourceTypeName(a.ResourceType), PatternTypeName: model.ACLPatternTypeName(a.PatternType),
		OperationName: model.ACLOperationName(a.Operation), PermissionTypeName: model.ACLPermissionTypeName(a.PermissionType)}
}

// Unrestorable is a difference the plan does not restore, and why.
type Unrestorable struct {
	Kind   string `json:"kind"`
	Entity string `json:"entity"`
	// Difference says what differs; Why why it is not restored; Fix what
	// an operator can do instead.
	Difference string `json:"difference"`
	Why        string `json:"why"`
	Fix        string `json:"fix,omitempty"`
	// Args, when set, are the command that does Fix: the tool and its
	// arguments without the connection, which FixCommands adds as
	// Commands does to the plan's actions.
	Args []string `json:"-"`
	// Stdin, when set, is shell, printed as it is, that the line runs
	// first and whose output the command reads through a pipe (Args
	// then name /dev/stdin): a value the
	// operator gives at run time reaches the tool through the pipe,
	// never through its command line (ps) or the printed line (history).
	Stdin string `json:"-"`
	// Then, when set, runs after the command succeeds (&&), as printed.
	Then string `json:"-"`
	// Command is Args as the line to run, set by FixCommands; nil when no
	// command does Fix.
	Command *Command `json:"command,omitempty"`
	// ByHand, when set, is a step the restore is incomplete without and
	// only the operator can do: a secret the point's view does not hold
	// in plain (redacted, not reported, encrypted). kmeta has no value
	// for it, so it prints no command for it: a command with a
	// placeholder, run as printed, would set the placeholder.
	ByHand string `json:"byHand,omitempty"`
}

// ByHand are the differences the restore leaves to the operator and is
// incomplete without (Unrestorable.ByHand).
func (p *Plan) ByHand() []Unrestorable {
	var out []Unrestorable
	for _, u := range p.NotRestored {
		if u.ByHand != "" {
			out = append(out, u)
		}
	}
	return out
}

// Reassignment is a kafka-reassign-partitions plan: the point's replicas
// of the partitions whose replicas differ.
type Reassignment = model.Reassignment

// Plan is what brings TARGET back to the point.
type Plan struct {
	Source, Target Side `json:"-"`
	// SourceClusterID and TargetClusterID are the views' cluster ids.
	SourceClusterID string `json:"sourceClusterId"`
	TargetClusterID string `json:"targetClusterId"`
	// Refused, when set, says why nothing is planned.
	Refused     string         `json:"refused,omitempty"`
	Actions     []Action       `json:"actions"`
	NotRestored []Unrestorable `json:"notRestored"`
	// Reassignment, when replicas differ, restores them with Kafka's
	// reassignment tool; ReassignCommand is the line that writes it to a
	// file and executes it (set by FixCommands).
	Reassignment    *Reassignment `json:"reassignment,omitempty"`
	ReassignCommand *Command      `json:"reassignCommand,omitempty"`
	// Notes say what was not compared, and why.
	Notes []string `json:"notes,omitempty"`
}

// planner holds one run.
type planner struct {
	want, have *model.Image
	opts       Options
	p          *Plan
}

// Make plans bringing have (TARGET now) back to want (SOURCE at the
// point). Refused plans hold no action.
func Make(want, have *model.Image, source, target Side, opts Options) *Plan {
	p := &Plan{Source: source, Target: target, SourceClusterID: want.ClusterID, TargetClusterID: have.ClusterID,
		Actions: []Action{}, NotRestored: []Unrestorable{}}
	if want.ClusterID != "" && have.ClusterID != "" && want.ClusterID != have.ClusterID && !opts.ClusterIDMismatchOK {
		p.Refused = fmt.Sprintf("%s is cluster %s and %s is cluster %s: restoring one cluster's metadata onto another is not an undo (--cluster-id-mismatch-ok plans it all the same)",
			source.Name, want.ClusterID, target.Name, have.ClusterID)
		return p
	}
	if want.ClusterID == "" || have.ClusterID == "" {
		p.Notes = append(p.Notes, "a view has no cluster id: that SOURCE and TARGET are one cluster is not checked")
	}
	pl := &planner{want: want, have: have, opts: opts, p: p}
	pl.topics()
	pl.configs()
	pl.quotas()
	pl.acls()
	pl.scram()
	pl.tokens()
	pl.brokers()
	pl.features()
	p.Notes = append(p.Notes, "not compared: leaders, ISR and epochs (runtime state), the quorum, controllers, the producer-id block, the migration state")
	slices.SortStableFunc(p.Actions, func(a, b Action) int { return cmp.Compare(actionOrder(a.Kind), actionOrder(b.Kind)) })
	return p
}

func actionOrder(k ActionKind) int {
	return slices.Index([]ActionKind{CreateTopic, CreatePartitions, AlterConfigs, AlterQuotas, CreateACL, DeleteACL}, k)
}

// selected says whether the options pick e.
func (pl *planner) selected(e verify.Entity) bool { return verify.MatchAny(pl.opts.Entities, e) }

// reported says whether both views report f; when not, a note says what
// was left out.
func (pl *planner) reported(f model.Field, what string) bool {
	for _, s := range []struct {
		img  *model.Image
		side Side
	}{{pl.want, pl.p.Source}, {pl.have, pl.p.Target}} {
		if !s.img.Reports(f) {
			pl.p.Notes = append(pl.p.Notes, fmt.Sprintf("%s not compared: %s does not report them", what, s.side.Name))
			return false
		}
	}
	return true
}

func (pl *planner) notRestored(kind model.EntityKind, entity, diff, why, fix string, args ...string) {
	pl.p.NotRestored = append(pl.p.NotRestored, Unrestorable{Kind: kind.String(), Entity: entity, Difference: diff, Why: why, Fix: fix, Args: args})
}

// secretByHand lists config key k of entity, a secret the point's view
// does not hold in plain (why), as a step left to the operator; when says
// when it can be done ("" at once).
func (pl *planner) secretByHand(entity, k, why, when string) {
	pl.p.NotRestored = append(pl.p.NotRestored, Unrestorable{Kind: model.EntityConfig.String(), Entity: entity, Difference: "key " + k, Why: why,
		ByHand: fmt.Sprintf("set %s of %s%s to the value it held at the point: kmeta does not have it, so it prints no command for it", k, entity, when)})
}

func (pl *planner) topics() {
	if !pl.reported(model.FieldTopics, "topics") {
		return
	}
	want, have := pl.want, pl.have
	for _, wt := range want.SortedTopics() {
		e := verify.TopicOf(wt)
		if !pl.selected(e) {
			continue
		}
		ht := have.Topics[wt.Name]
		if ht == nil {
			pl.recreate(wt, e.Name)
			continue
		}
		nw, nh := int32(len(wt.Partitions)), int32(len(ht.Partitions))
		switch {
		case nw > nh:
			pl.p.Actions = append(pl.p.Actions, Action{Kind: CreatePartitions, Entity: e.Name,
				Why:   fmt.Sprintf("%d partitions at the point, %d now", nw, nh),
				Topic: &TopicSpec{Name: wt.Name, Partitions: nw, From: nh}})
		case nw < nh:
			pl.notRestored(model.EntityTopic, e.Name, fmt.Sprintf("partitions: %d at the point, %d now", nw, nh),
				"Kafka cannot remove partitions from a topic", "")
		}
		if !wt.ID.IsZero() && !ht.ID.IsZero() && wt.ID != ht.ID {
			pl.p.Notes = append(pl.p.Notes, fmt.Sprintf("%s has id %s at the point and %s now: it was deleted and created again since; it is restored by name", e.Name, wt.ID, ht.ID))
		}
		pl.replicas(wt, ht)
	}
	for _, ht := range have.SortedTopics() {
		if want.Topics[ht.Name] == nil {
			e := verify.TopicOf(ht)
			if pl.selected(e) {
				pl.notRestored(model.EntityTopic, e.Name, "created since the point", "kmeta restore never deletes a topic",
					"delete it if it should go", "kafka-topics", "--delete", "--topic", ht.Name)
			}
		}
	}
}

// recreate plans creating a topic deleted since the point.
func (pl *planner) recreate(wt *model.Topic, entity string) {
	ps := wt.SortedPartitions()
	spec := &TopicSpec{Name: wt.Name, Partitions: int32(len(ps))}
	if len(ps) > 0 {
		spec.ReplicationFactor = int16(len(ps[0].Replicas))
	}
	// The point's assignment when it is whole (partitions 0..n-1) and
	// every broker of it is registered now; else Kafka places replicas.
	whole := true
	for i, p := range ps {
		if p.ID != int32(i) || len(p.Replicas) == 0 {
			whole = false
			break
		}
		for _, b := range p.Replicas {
			if pl.have.Brokers[b] == nil {
				whole = false
			}
		}
	}
	placed := "Kafka places the replicas (a broker of the point's assignment is not registered now)"
	if whole && pl.have.Reports(model.FieldBrokers) {
		for _, p := range ps {
			spec.Assignment = append(spec.Assignment, slices.Clone(p.Replicas))
		}
		placed = "on the point's replicas"
	}
	res := model.ConfigResource{Type: model.ConfigTopic, Name: wt.Name}
	for _, k := range sortedKeys(pl.want.Configs[res]) {
		v := pl.want.Configs[res][k]
		if why := pl.unusable(res.Type, k, v); why != "" {
			pl.secretByHand(verify.ConfigEntity(res), k, why, ", once the topic is created again,")
			continue
		}
		spec.Configs = append(spec.Configs, ConfigValue{Key: k, Value: v})
	}
	pl.p.Actions = append(pl.p.Actions, Action{Kind: CreateTopic, Entity: entity, Topic: spec,
		Why: fmt.Sprintf("at the point, not now (deleted since): created again, empty, with %s, replication factor %d and %s, %s; it gets a new topic id",
			count(int(spec.Partitions), "partition"), spec.ReplicationFactor, count(len(spec.Configs), "config"), placed)})
	pl.notRestored(model.EntityTopic, entity, "its data", "a deleted topic's messages are gone with it: the topic is created again empty", "")
}

// replicas offers a reassignment for partitions whose replicas differ.
func (pl *planner) replicas(wt, ht *model.Topic) {
	for _, wp := range wt.SortedPartitions() {
		hp := ht.Partitions[wp.ID]
		if hp == nil || slices.Equal(wp.Replicas, hp.Replicas) {
			continue
		}
		entity := verify.PartitionEntity(wt.Name, wp.ID)
		diff := fmt.Sprintf("replicas: %v at the point, %v now", wp.Replicas, hp.Replicas)
		for _, b := range wp.Replicas {
			if pl.have.Brokers[b] == nil {
				pl.notRestored(model.EntityPartition, entity, diff, fmt.Sprintf("an assignment is not restored by kmeta, and broker %d of the point's is not registered now", b), "")
				return
			}
		}
		if pl.p.Reassignment == nil {
			pl.p.Reassignment = &Reassignment{Version: 1}
		}
		pl.p.Reassignment.Partitions = append(pl.p.Reassignment.Partitions, model.ReassignmentPartition{Topic: wt.Name, Partition: wp.ID, Replicas: slices.Clone(wp.Replicas)})
		pl.notRestored(model.EntityPartition, entity, diff, "partition assignments move data: kmeta restore does not reassign",
			"the reassignment printed moves them back (kafka-reassign-partitions), then a preferred leader election")
	}
}

// unusable says why a config value of the point cannot be written ("" when
// it can): a secret the view does not hold, or holds encrypted.
func (pl *planner) unusable(t model.ConfigResourceType, k, v string) string {
	switch {
	case model.ConfigWithheld(t, k, v):
		return "a sensitive value " + pl.p.Source.Name + " does not hold (redacted or not reported)"
	case model.IsPasswordConfig(k) && model.IsEncryptedPassword(v):
		return "ZooKeeper holds it encrypted with password.encoder.secret; written as it is, it would be a wrong password"
	}
	return ""
}

// configurable are the resource types restore sets configs of.
var configurable = []model.ConfigResourceType{model.ConfigTopic, model.ConfigBroker, model.ConfigClientMetrics, model.ConfigGroup}

func (pl *planner) configs() {
	topicsOK := pl.reported(model.FieldTopicConfigs, "topic configs")
	brokersOK := pl.reported(model.FieldBrokerConfigs, "broker configs")
	res := map[model.ConfigResource]bool{}
	for r := range pl.want.Configs {
		res[r] = true
	}
	for r := range pl.have.Configs {
		res[r] = true
	}
	keys := slices.SortedFunc(maps.Keys(res), model.CompareConfigResource)
	for _, r := range keys {
		if !slices.Contains(configurable, r.Type) || r.Type == model.ConfigTopic && !topicsOK || r.Type == model.ConfigBroker && !brokersOK {
			continue
		}
		wkv, hkv := pl.want.Configs[r], pl.have.Configs[r]
		e := verify.ConfigOf(r, wkv, verify.FieldOptions{})
		if len(wkv) == 0 {
			e = verify.ConfigOf(r, hkv, verify.FieldOptions{})
		}
		if !pl.selected(e) {
			continue
		}
		if r.Type == model.ConfigTopic && (pl.want.Topics[r.Name] == nil || pl.have.Topics[r.Name] == nil) {
			// A re-created topic gets its configs at creation; one
			// created since is not restored (listed with the topics);
			// configs of a topic neither view holds have nothing to
			// apply to.
			continue
		}
		ch := &ConfigChange{Resource: r}
		var why []string
		for _, k := range sortedKeys(wkv) {
			v := wkv[k]
			hv, ok := hkv[k]
			switch {
			case ok && hv == v:
				continue
			case ok && model.ConfigWithheld(r.Type, k, hv):
				pl.p.Notes = append(pl.p.Notes, fmt.Sprintf("%s %s: a sensitive value %s does not report; not compared", e.Name, k, pl.p.Target.Name))
				continue
			}
			if reason := pl.unusable(r.Type, k, v); reason != "" {
				pl.secretByHand(e.Name, k, reason, "")
				continue
			}
			cv := ConfigValue{Key: k, Value: v}
			if ok {
				cv.Was = &hv
			}
			ch.Set = append(ch.Set, cv)
		}
		for _, k := range sortedKeys(hkv) {
			if _, ok := wkv[k]; !ok {
				hv := hkv[k]
				ch.Delete = append(ch.Delete, ConfigValue{Key: k, Was: &hv})
			}
		}
		if len(ch.Set) == 0 && len(ch.Delete) == 0 {
			continue
		}
		if r.Type == model.ConfigBroker && r.Name != "" {
			id, err := strconv.ParseInt(r.Name, 10, 32)
			if err != nil || pl.have.Brokers[int32(id)] == nil {
				pl.notRestored(model.EntityConfig, e.Name, fmt.Sprintf("%d keys to set, %d to delete", len(ch.Set), len(ch.Delete)),
					"broker "+r.Name+" is not registered now: Kafka takes a broker's configs only while it is", "start the broker, then restore again")
				continue
			}
		}
		if len(ch.Set) > 0 {
			why = append(why, fmt.Sprintf("%d set back", len(ch.Set)))
		}
		if len(ch.Delete) > 0 {
			why = append(why, fmt.Sprintf("%d added since, deleted", len(ch.Delete)))
		}
		pl.p.Actions = append(pl.p.Actions, Action{Kind: AlterConfigs, Entity: e.Name, Config: ch, Why: "keys: " + strings.Join(why, ", ")})
	}
}

func (pl *planner) quotas() {
	if !pl.reported(model.FieldClientQuotas, "client quotas") {
		return
	}
	keys := map[string]bool{}
	for k := range pl.want.ClientQuotas {
		keys[k] = true
	}
	for k := range pl.have.ClientQuotas {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		wq, hq := pl.want.ClientQuotas[k], pl.have.ClientQuotas[k]
		var wv, hv map[string]float64
		q := wq
		if wq != nil {
			wv = wq.Values
		}
		if hq != nil {
			hv = hq.Values
			if q == nil {
				q = hq
			}
		}
		e := verify.QuotaOf(q)
		if !pl.selected(e) {
			continue
		}
		ch := &QuotaChange{Entity: model.CanonicalQuotaEntity(q.Entity)}
		for _, key := range sortedKeys(wv) {
			v := wv[key]
			h, ok := hv[key]
			if ok && h == v {
				continue
			}
			qv := QuotaValue{Key: key, Value: v}
			if ok {
				qv.Was = &h
			}
			ch.Set = append(ch.Set, qv)
		}
		for _, key := range sortedKeys(hv) {
			if _, ok := wv[key]; !ok {
				h := hv[key]
				ch.Remove = append(ch.Remove, QuotaValue{Key: key, Value: h, Was: &h})
			}
		}
		if len(ch.Set) == 0 && len(ch.Remove) == 0 {
			continue
		}
		pl.p.Actions = append(pl.p.Actions, Action{Kind: AlterQuotas, Entity: e.Name, Quota: ch,
			Why: fmt.Sprintf("values: %d set back, %d added since, removed", len(ch.Set), len(ch.Remove))})
	}
}

func (pl *planner) acls() {
	if !pl.reported(model.FieldACLs, "ACLs") {
		return
	}
	byContent := func(img *model.Image) map[string]*model.ACL {
		m := map[string]*model.ACL{}
		for _, a := range img.ACLs {
			m[verify.ACLEntity(a)] = a
		}
		return m
	}
	w, h := byContent(pl.want), byContent(pl.have)
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if h[k] == nil && pl.selected(verify.ACLOf(w[k])) {
			pl.p.Actions = append(pl.p.Actions, Action{Kind: CreateACL, Entity: k, ACL: aclSpec(w[k]), Why: "at the point, not now (deleted since)"})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if w[k] == nil && pl.selected(verify.ACLOf(h[k])) {
			pl.p.Actions = append(pl.p.Actions, Action{Kind: DeleteACL, Entity: k, ACL: aclSpec(h[k]), Why: "not at the point (added since)"})
		}
	}
}

// ScramPasswordVar is the variable a printed line that sets a SCRAM
// credential reads the new password from.
const ScramPasswordVar = "KMETA_SCRAM_PASSWORD"

const scramWhy = "the metadata log holds a credential's salted keys, not the password AlterUserScramCredentials needs"

func (pl *planner) scram() {
	if !pl.reported(model.FieldSCRAM, "SCRAM credentials") {
		return
	}
	secrets := pl.want.Reports(model.FieldSCRAMSecrets) && pl.have.Reports(model.FieldSCRAMSecrets)
	keys := map[model.ScramKey]bool{}
	for k := range pl.want.SCRAM {
		keys[k] = true
	}
	for k := range pl.have.SCRAM {
		keys[k] = true
	}
	sorted := slices.SortedFunc(maps.Keys(keys), func(a, b model.ScramKey) int {
		return cmp.Or(strings.Compare(a.User, b.User), cmp.Compare(a.Mechanism, b.Mechanism))
	})
	for _, k := range sorted {
		w, h := pl.want.SCRAM[k], pl.have.SCRAM[k]
		entity := verify.ScramEntity(k.User, k.Mechanism)
		if !pl.selected(verify.Entity{Kind: model.EntitySCRAM, Name: entity, Key: strings.TrimPrefix(entity, "scram "), Aliases: []string{k.User}}) {
			continue
		}
		mech := model.ScramMechanismName(k.Mechanism)
		// A new password goes through a variable the shell refuses
		// empty, piped in as kafka-configs' --add-config-file: a
		// template ("password=...") would, run as printed, become the
		// password, and a password on the line would be in the shell's
		// history and in ps. The variable is unset once used: the next
		// user's line stops until it is set again, for that user.
		rebuild := func(diff string) {
			pl.notRestored(model.EntitySCRAM, entity, diff, scramWhy, "kmeta quorum rebuild at the point rebuilds the whole metadata, credentials included; "+
				"or set a new password, read from "+ScramPasswordVar+" (read -rs "+ScramPasswordVar+" keeps it out of the history; "+
				"a backslash in it is an escape to the properties file kafka-configs reads)",
				"kafka-configs", "--alter", "--entity-type", "users", "--entity-name", k.User, "--add-config-file", "/dev/stdin")
			u := &pl.p.NotRestored[len(pl.p.NotRestored)-1]
			// Checked before the pipe: a failed expansion on its left
			// would still run kafka-configs, with an empty file.
			u.Stdin = `: "` + shellword.Require(ScramPasswordVar, "the new password") + `" && printf '%s\n' "` + mech + "=password=$" + ScramPasswordVar + `"`
			u.Then = "unset " + ScramPasswordVar
		}
		switch {
		case h == nil:
			rebuild("deleted since the point")
		case w == nil:
			pl.notRestored(model.EntitySCRAM, entity, "added since the point", "kmeta restore does not write credentials",
				"delete it if it should go", "kafka-configs", "--alter", "--entity-type", "users", "--entity-name", k.User, "--delete-config", mech)
		case w.Iterations != h.Iterations:
			rebuild(fmt.Sprintf("iterations: %d at the point, %d now", w.Iterations, h.Iterations))
		case secrets && !w.Withheld() && !h.Withheld() && model.ScramFingerprint(w) != model.ScramFingerprint(h):
			rebuild("changed since the point (another password)")
		}
	}
}

func (pl *planner) tokens() {
	if !pl.reported(model.FieldDelegationTokens, "delegation tokens") {
		return
	}
	ids := map[string]bool{}
	for k := range pl.want.DelegationTokens {
		ids[k] = true
	}
	for k := range pl.have.DelegationTokens {
		ids[k] = true
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		w, h := pl.want.DelegationTokens[id], pl.have.DelegationTokens[id]
		entity := "token " + id
		if !pl.selected(verify.Entity{Kind: model.EntityToken, Name: entity, Key: id}) {
			continue
		}
		why := "a token's HMAC is derived from delegation.token.secret.key by Kafka at creation; it cannot be written back"
		switch {
		case h == nil:
			pl.notRestored(model.EntityToken, entity, "expired or deleted since the point", why, "kafka-delegation-tokens --create for a new one")
		case w == nil:
			pl.notRestored(model.EntityToken, entity, "created since the point", "kmeta restore does not expire tokens", "kafka-delegation-tokens --expire --expiry-time-period -1 --hmac HMAC if it should go")
		case w.ExpirationTimestamp != h.ExpirationTimestamp || w.MaxTimestamp != h.MaxTimestamp:
			pl.notRestored(model.EntityToken, entity, fmt.Sprintf("expiration: %d at the point, %d now", w.ExpirationTimestamp, h.ExpirationTimestamp), why, "")
		}
	}
}

func (pl *planner) brokers() {
	if !pl.reported(model.FieldBrokers, "broker registrations") {
		return
	}
	ids := map[int32]bool{}
	for id := range pl.want.Brokers {
		ids[id] = true
	}
	for id := range pl.have.Brokers {
		ids[id] = true
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		w, h := pl.want.Brokers[id], pl.have.Brokers[id]
		entity := "broker " + strconv.Itoa(int(id))
		if (w == nil) == (h == nil) || !pl.selected(verify.Entity{Kind: model.EntityBroker, Name: entity, Key: strconv.Itoa(int(id))}) {
			continue
		}
		why := "a broker registers itself when it starts; no admin request writes a registration"
		if h == nil {
			pl.notRestored(model.EntityBroker, entity, "registered at the point, not now", why, "start broker "+strconv.Itoa(int(id)))
		} else {
			pl.notRestored(model.EntityBroker, entity, "registered now, not at the point", why, "")
		}
	}
}

func (pl *planner) features() {
	names := map[string]bool{}
	for k := range pl.want.Features {
		names[k] = true
	}
	for k := range pl.have.Features {
		names[k] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		w, wok := pl.want.Features[n]
		h, hok := pl.have.Features[n]
		if w == h && wok == hok {
			continue
		}
		if pl.want.ZK != nil || pl.have.ZK != nil {
			continue // ZooKeeper mode finalizes no feature but its IBP's: not comparable
		}
		entity := "feature " + n
		if !pl.selected(verify.Entity{Kind: model.EntityFeature, Name: entity, Key: n}) {
			continue
		}
		// kmeta's own command gates the change (what a downgrade turns
		// off, what the nodes support) and asks before it acts.
		args := []string{"kmeta", "features", "disable", "--feature", n}
		switch {
		case wok && hok && w < h:
			args = []string{"kmeta", "features", "downgrade", "--feature", fmt.Sprintf("%s=%d", n, w)}
		case wok:
			args = []string{"kmeta", "features", "upgrade", "--feature", fmt.Sprintf("%s=%d", n, w)}
		}
		pl.notRestored(model.EntityFeature, entity, fmt.Sprintf("level %s at the point, %s now", level(w, wok), level(h, hok)),
			"kmeta restore does not change feature levels: a downgrade may lose metadata",
			"set the point's level with kmeta's gated command, which says what it would turn off and asks first", args...)
	}
}

// count is n and noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func level(l int16, ok bool) string {
	if !ok {
		return "none"
	}
	return strconv.Itoa(int(l))
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Empty says whether the plan has nothing to do.
func (p *Plan) Empty() bool { return len(p.Actions) == 0 }
