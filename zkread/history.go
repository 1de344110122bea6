package zkread

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// A data dir's history (DataDirOptions.Step): the snapshot and the
// transaction logs are replayed once, as ReadDataDir always does, and
// after each transaction the image is brought up to date for the znodes
// that transaction changed only: a partition state re-decodes that
// partition, a topic znode its topic, /brokers/ids/<id> that broker, a
// config znode that config, and the controller, admin, notification,
// feature and migration znodes their part of the ZooKeeper state, a
// user's, client's or IP's config znode its quotas (and a user's SCRAM
// credentials), an ACL znode its resource's ACLs, a token znode that
// token. The caller (lint --history, history) learns, per transaction,
// its zxid and time and what each changed znode touched in the image,
// and re-evaluates only that; with DataDirOptions.Before it also learns,
// before the transaction is applied, the entities it touches
// (Change.Refs), so that it can read them as they were. The image is
// one object, changed in place; it holds brokers, topics and partitions,
// topic and broker configs, client quotas, SCRAM credentials, ACLs,
// delegation tokens, the producer-id block, features, the controller,
// pending admin work, the ISR and log dir notification counts and the
// migration znode, not raw znodes. The image ReadDataDir's tree decodes
// to at the end is the full one, as without a history.
//
// The tree is still being built while it is replayed: children lists are
// derived once, at the end (package zkfile). The history keeps the
// children of the containers whose children it decodes (broker ids,
// topics, topic and broker configs, pending deletions, the ISR and log
// dir notification queues) itself, from the created and deleted znodes.
//
// The chroot: one given is used from the start. Otherwise it is found as
// ReadTree finds it (the one path holding brokers/ids or cluster/id), in
// the snapshot, or else at the transaction that creates the first such
// znode (Kafka creates its chroot's brokers/ids at its first start,
// before any topic): the image starts there, from the tree as it then is.
// ReadTree checks that the chroot of the finished tree is the one the
// history followed.

// Step is one point of a data dir's history: the snapshot the replay
// starts from (Changes is one TouchedAll), or one transaction.
type Step struct {
	Zxid int64
	// Time is the transaction's time (zero for the snapshot, which holds
	// none).
	Time    time.Time
	Changes []Change
}

// Touched says what part of the image a change re-decoded.
type Touched uint8

// What a change touched.
const (
	// TouchedAll: the image was built from the tree as it is (the
	// snapshot, or the transaction that created the chroot's Kafka
	// znodes).
	TouchedAll Touched = iota
	TouchedBroker
	// TouchedTopic: the topic znode (its assignment); Removed when the
	// topic is gone.
	TouchedTopic
	// TouchedPartition: one partition's state znode.
	TouchedPartition
	TouchedTopicConfig
	// TouchedBrokerConfig: a broker's or the cluster default's config.
	TouchedBrokerConfig
	// TouchedController: /controller or /controller_epoch.
	TouchedController
	// TouchedAdmin: pending deletions, reassignment, preferred election,
	// ISR and log dir notifications.
	TouchedAdmin
	TouchedFeatures
	TouchedMigration
	// TouchedQuota: a user's, client's or IP's config znode: its client
	// quotas, and a user's SCRAM credentials.
	TouchedQuota
	// TouchedACL: the ACLs of one resource.
	TouchedACL
	TouchedToken
	TouchedProducerIDs
)

// Change is one znode a transaction changed, and what it touched.
type Change struct {
	// Znode is the path relative to the chroot ("" for TouchedAll of
	// the snapshot).
	Znode string
	// Op is what was done to it: "create", "setData", "delete",
	// "closeSession" (an ephemeral its session's end removed), or
	// "snapshot".
	Op   string
	What Touched
	// Topic and Partition (-1: the topic as a whole) for the topic
	// kinds; Removed: the topic is gone.
	Topic     string
	Partition int32
	Removed   bool
	// Refs are the entities the change touches (set in the Step given
	// to DataDirOptions.Before).
	Refs []model.EntityRef
}

// historyContainers are the containers whose children the history keeps;
// followed adds those one level of names below them (a user's clients,
// the resource types of ACLs).
var (
	historyContainers = []string{"/brokers/ids", "/brokers/topics", "/config/topics", "/config/brokers",
		"/admin/delete_topics", "/isr_change_notification", "/log_dir_event_notification",
		"/config/users", "/config/clients", "/config/ips", "/kafka-acl", "/kafka-acl-extended/prefixed",
		"/delegation_token/tokens"}
)

// followedParent and followedGrandparent name the last component of a
// container the history keeps the children of (followedParent) or of its
// parent (the resource types under the ACL roots): a node whose parent
// and grandparent have other names is in none of them.
var (
	followedParent = map[string]bool{"ids": true, "topics": true, "brokers": true, "delete_topics": true,
		"isr_change_notification": true, "log_dir_event_notification": true, "users": true, "clients": true,
		"ips": true, "kafka-acl": true, "prefixed": true, "tokens": true}
	followedGrandparent = map[string]bool{"kafka-acl": true, "prefixed": true}
)

// followed says whether the history keeps the children of the container
// at rel.
func followed(rel string) bool {
	if slices.Contains(historyContainers, rel) {
		return true
	}
	switch {
	case strings.HasPrefix(rel, "/config/users/"):
		return strings.HasSuffix(rel, "/clients") && strings.Count(rel, "/") == 4
	case strings.HasPrefix(rel, "/kafka-acl/"):
		return strings.Count(rel, "/") == 2
	case strings.HasPrefix(rel, "/kafka-acl-extended/prefixed/"):
		return strings.Count(rel, "/") == 3
	}
	return false
}

// history follows one replay (see the comment at the top).
type history struct {
	step   func(*model.Image, Step)
	before func(*model.Image, Step)
	source string
	// root is the chroot's absolute path ("/" for none), known once
	// ready; fixed when the caller named it.
	root  string
	fixed bool
	ready bool
	dt    *zkfile.DataTree
	t     *Tree
	d     *decoder
	kids  map[string]map[string]struct{}
	out   Step
}

// newHistory follows a replay; chroot as DataDirOptions.Chroot, except
// that "" means "find it" and "/" the root (ReadOptions.Chroot's sense).
func newHistory(source, chroot string, step func(*model.Image, Step)) *history {
	h := &history{step: step, source: source}
	if chroot != "" {
		h.root, h.fixed = NormalizeChroot(chroot), true
		if h.root == "" {
			h.root = "/"
		}
	}
	return h
}

// chroot is the chroot the history followed, as Tree.Chroot names one
// ("" for none); false when it never found Kafka's znodes.
func (h *history) chroot() (string, bool) {
	if !h.ready || h.root == "/" {
		return "", h.ready
	}
	return h.root, true
}

// base starts from the snapshot's tree, when the chroot is known there.
func (h *history) base(dt *zkfile.DataTree) {
	h.dt = dt
	if h.find(dt, nil) {
		h.start(dt.SnapshotZxid, time.Time{}, Change{Op: "snapshot", What: TouchedAll})
	}
}

// find says whether the chroot is known: named and present, or found in
// the tree (the snapshot: changed nil) or among the znodes a transaction
// created.
func (h *history) find(dt *zkfile.DataTree, changed []zkfile.Changed) bool {
	if h.fixed {
		return dt.Lookup(h.root) != zkfile.NoRef
	}
	if changed == nil {
		c, err := DetectChroot(offlineTree(dt, dt.Root(), "/"))
		if err != nil {
			return false
		}
		h.root = c
	} else {
		found := false
		for _, c := range changed {
			for _, suffix := range []string{"/brokers/ids", "/cluster/id"} {
				if c.Op == zkfile.OpCreate && strings.HasSuffix(c.Path, suffix) {
					h.root, found = strings.TrimSuffix(c.Path, suffix), true
				}
			}
		}
		if !found {
			return false
		}
	}
	if h.root == "" {
		h.root = "/"
	}
	return true
}

// txn follows one transaction.
func (h *history) txn(dt *zkfile.DataTree, txn *zkfile.Txn, changed []zkfile.Changed) {
	if len(changed) == 0 {
		return
	}
	at := time.UnixMilli(txn.Time).UTC()
	if !h.ready {
		if h.find(dt, changed) {
			h.start(txn.Zxid, at, Change{Znode: h.rel(changed[0].Path), Op: opName(changed[0].Op), What: TouchedAll})
		}
		return
	}
	if h.before != nil {
		h.announce(txn.Zxid, at, changed)
	}
	h.out = Step{Zxid: txn.Zxid, Time: at, Changes: h.out.Changes[:0]}
	for _, c := range changed {
		rel, ok := relPath(c.Path, h.root)
		if !ok {
			continue
		}
		h.track(rel, c.Op)
		if ch, ok := h.apply(rel); ok {
			ch.Op = opName(c.Op)
			h.out.Changes = append(h.out.Changes, ch)
		}
	}
	h.clean()
	if len(h.out.Changes) > 0 {
		h.step(h.d.img, h.out)
	}
}

// announce calls before with what the transaction's changes touch, the
// image still as it was.
func (h *history) announce(zxid int64, at time.Time, changed []zkfile.Changed) {
	pre := Step{Zxid: zxid, Time: at}
	for _, c := range changed {
		rel, ok := relPath(c.Path, h.root)
		if !ok {
			continue
		}
		if refs := h.refs(rel); len(refs) > 0 {
			pre.Changes = append(pre.Changes, Change{Znode: rel, Op: opName(c.Op), Partition: -1, Refs: refs})
		}
	}
	if len(pre.Changes) > 0 {
		h.before(h.d.img, pre)
	}
}

// refs are the entities a change of the znode at rel (relative to the
// chroot) touches: what apply re-decodes, as entities.
func (h *history) refs(rel string) []model.EntityRef {
	under := func(dir string) (string, bool) {
		name, ok := strings.CutPrefix(rel, dir)
		return name, ok && name != "" && !strings.Contains(name, "/")
	}
	one := func(r model.EntityRef) []model.EntityRef { return []model.EntityRef{r} }
	switch {
	case rel == "/controller" || rel == "/controller_epoch":
		return one(model.EntityRef{Kind: model.EntityQuorum})
	case rel == "/feature":
		return one(model.EntityRef{Kind: model.EntityFeature, ID: model.AllIDs})
	case rel == "/migration":
		return one(model.EntityRef{Kind: model.EntityMigration})
	case rel == "/latest_producer_id_block":
		return one(model.EntityRef{Kind: model.EntityProducerIDs})
	case strings.HasPrefix(rel, "/brokers/ids/"):
		name, ok := under("/brokers/ids/")
		id, err := strconv.ParseInt(name, 10, 32)
		if ok && err == nil {
			return one(model.EntityRef{Kind: model.EntityBroker, ID: int32(id)})
		}
	case strings.HasPrefix(rel, "/brokers/topics/"):
		name, sub, _ := strings.Cut(rel[len("/brokers/topics/"):], "/")
		if sub == "" {
			// The assignment: the topic, and every partition's replicas.
			return []model.EntityRef{{Kind: model.EntityTopic, Name: name}, {Kind: model.EntityPartition, Name: name, ID: model.AllIDs}}
		}
		ps, ok := strings.CutPrefix(sub, "partitions/")
		ps, ok2 := strings.CutSuffix(ps, "/state")
		if pid, err := strconv.ParseInt(ps, 10, 32); ok && ok2 && err == nil {
			return one(model.EntityRef{Kind: model.EntityPartition, Name: name, ID: int32(pid)})
		}
	case strings.HasPrefix(rel, "/admin/delete_topics/"):
		// The topic marked for deletion (the image's pending deletions,
		// a topic's pendingDeletion in diff).
		if name, ok := under("/admin/delete_topics/"); ok {
			return one(model.EntityRef{Kind: model.EntityTopic, Name: name})
		}
	case rel == "/admin/reassign_partitions":
		// A legacy reassignment names partitions of any topic, those of
		// the znode before and after: every topic's partitions (the znode
		// is written rarely).
		refs := make([]model.EntityRef, 0, len(h.d.img.Topics))
		for _, name := range slices.Sorted(maps.Keys(h.d.img.Topics)) {
			refs = append(refs, model.EntityRef{Kind: model.EntityPartition, Name: name, ID: model.AllIDs})
		}
		return refs
	case strings.HasPrefix(rel, "/config/topics/"):
		if name, ok := under("/config/topics/"); ok {
			return one(model.EntityRef{Kind: model.EntityConfig, Config: model.ConfigResource{Type: model.ConfigTopic, Name: name}})
		}
	case strings.HasPrefix(rel, "/config/brokers/"):
		if name, ok := under("/config/brokers/"); ok {
			if name == defaultEntity {
				name = ""
			}
			return one(model.EntityRef{Kind: model.EntityConfig, Config: model.ConfigResource{Type: model.ConfigBroker, Name: name}})
		}
	case strings.HasPrefix(rel, "/config/users/") || strings.HasPrefix(rel, "/config/clients/") || strings.HasPrefix(rel, "/config/ips/"):
		parts, ok := quotaZnode(rel)
		if !ok {
			break
		}
		key, err := znodeQuotaKey(parts)
		if err != nil {
			break
		}
		refs := []model.EntityRef{{Kind: model.EntityQuota, Name: key}}
		if len(parts) == 1 && parts[0].typ == "user" && parts[0].name != defaultEntity {
			if u, err := desanitize(parts[0].name); err == nil {
				refs = append(refs, model.EntityRef{Kind: model.EntitySCRAM, Name: u, ID: model.AllIDs})
			}
		}
		return refs
	case strings.HasPrefix(rel, "/kafka-acl"):
		if rt, name, pattern, ok := aclZnode(rel); ok {
			return one(model.EntityRef{Kind: model.EntityACL, Name: name, ResourceType: rt, PatternType: pattern})
		}
	case strings.HasPrefix(rel, "/delegation_token/tokens/"):
		if id, ok := under("/delegation_token/tokens/"); ok {
			return one(model.EntityRef{Kind: model.EntityToken, Name: id})
		}
	}
	return nil
}

// quotaZnode reads the entity of a quota znode: /config/users/U,
// /config/users/U/clients/C, /config/clients/C or /config/ips/I.
func quotaZnode(rel string) ([]part, bool) {
	segs := strings.Split(strings.TrimPrefix(rel, "/config/"), "/")
	for _, s := range segs {
		if s == "" {
			return nil, false
		}
	}
	switch {
	case len(segs) == 2 && segs[0] == "users":
		return []part{{"user", segs[1]}}, true
	case len(segs) == 4 && segs[0] == "users" && segs[2] == "clients":
		return []part{{"user", segs[1]}, {"client-id", segs[3]}}, true
	case len(segs) == 2 && segs[0] == "clients":
		return []part{{"client-id", segs[1]}}, true
	case len(segs) == 2 && segs[0] == "ips":
		return []part{{"ip", segs[1]}}, true
	}
	return nil, false
}

// znodeQuotaKey is the image's key of a quota entity named by znode names
// (decoder.quota's reading of them).
func znodeQuotaKey(parts []part) (string, error) {
	entity := make([]model.QuotaEntityPart, len(parts))
	for i, p := range parts {
		entity[i].Type = p.typ
		if p.name == defaultEntity {
			continue
		}
		name, err := desanitize(p.name)
		if err != nil {
			return "", err
		}
		entity[i].Name = &name
	}
	return model.QuotaEntityKey(entity), nil
}

// aclZnode reads the resource of an ACL znode: /kafka-acl/TYPE/NAME
// (literal) or /kafka-acl-extended/prefixed/TYPE/NAME.
func aclZnode(rel string) (rt int8, name string, pattern int8, ok bool) {
	rest, pattern := "", patternLiteral
	switch {
	case strings.HasPrefix(rel, "/kafka-acl/"):
		rest = rel[len("/kafka-acl/"):]
	case strings.HasPrefix(rel, "/kafka-acl-extended/prefixed/"):
		rest, pattern = rel[len("/kafka-acl-extended/prefixed/"):], patternPrefixed
	default:
		return 0, "", 0, false
	}
	typ, name, found := strings.Cut(rest, "/")
	rt, known := aclResourceTypes[enumKey(typ)]
	if !found || !known || name == "" || strings.Contains(name, "/") {
		return 0, "", 0, false
	}
	return rt, name, pattern, true
}

// rel is an absolute path relative to the chroot.
func (h *history) rel(p string) string {
	if r, ok := relPath(p, h.root); ok {
		return r
	}
	return p
}

// start builds the image from the tree as it is and reports it.
func (h *history) start(zxid int64, at time.Time, ch Change) {
	h.ready = true
	chroot, _ := h.chroot()
	// The decoder reads the replay's tree as it goes, through a view
	// rooted at the chroot: its nodes are looked up by path each time.
	h.t = offlineTree(h.dt, h.dt.Lookup(h.root), h.root)
	h.t.Chroot, h.t.Source, h.t.MaxZxid = chroot, h.source, zxid
	h.kids = map[string]map[string]struct{}{}
	// The children of the containers the history keeps, from every node
	// in the tree (its children lists are not laid out while it is
	// replayed); a path is made only for a node whose parent's or
	// grandparent's name may be such a container's.
	dt := h.dt
	name := func(r zkfile.Ref) string {
		if r == zkfile.NoRef {
			return ""
		}
		return dt.Name(r)
	}
	dt.Range(func(r zkfile.Ref) bool {
		p := dt.Parent(r)
		if p == zkfile.NoRef {
			return false
		}
		return followedParent[name(p)] || followedGrandparent[name(dt.Parent(p))]
	}, func(p string, _ zkfile.Ref) bool {
		if rel, ok := relPath(p, h.root); ok && p != "" {
			h.track(rel, zkfile.OpCreate)
		}
		return true
	})
	// Lenient: a malformed znode leaves its entity out of this step's
	// image rather than stopping the history (the final decode is the
	// one that judges the tree).
	h.d = newDecoder(h.t, true)
	h.d.kids = func(path string) []string {
		if s := h.kids[path]; len(s) > 0 {
			return slices.Sorted(maps.Keys(s))
		}
		return nil
	}
	d := h.d
	for _, step := range []func() error{d.cluster, d.controller, d.brokers, d.topics, d.configs, d.acls, d.producerIDs, d.tokens, d.feature, d.migration, d.pending} {
		_ = step() // lenient: nothing stops it
	}
	h.sortMissing()
	h.clean()
	h.out = Step{Zxid: zxid, Time: at, Changes: []Change{ch}}
	h.step(d.img, h.out)
}

// track keeps the children of the history's containers.
func (h *history) track(rel string, op int32) {
	if op == zkfile.OpSetData {
		return
	}
	if s, ok := h.kids[rel]; ok && op != zkfile.OpCreate {
		clear(s) // the container itself is gone
	}
	i := strings.LastIndexByte(rel, '/')
	if i <= 0 {
		return
	}
	s, ok := h.kids[rel[:i]]
	if !ok {
		if !followed(rel[:i]) {
			return
		}
		s = map[string]struct{}{}
		h.kids[rel[:i]] = s
	}
	if op == zkfile.OpCreate {
		s[rel[i+1:]] = struct{}{}
	} else {
		delete(s, rel[i+1:])
	}
}

// clean drops what a lenient re-decode left behind that no one reads
// from a history's image (warnings), so that it does not grow with every transaction.
func (h *history) clean() {
	h.d.malformed = h.d.malformed[:0]
	h.d.img.Warnings = h.d.img.Warnings[:0]
	h.d.img.ZK.Warnings = nil
}

// dropMissing removes from the image's missing partition states those of
// topic (pid -1: every partition of it), before they are re-decoded:
// the decode adds back those still missing. The list stays sorted, as a
// decode leaves it, and is part of the image (diff compares it, history
// reports it as a partition's stateZnodeMissing).
func (h *history) dropMissing(topic string, pid int32) {
	z := h.d.img.ZK
	if len(z.MissingPartitionStates) == 0 {
		return
	}
	z.MissingPartitionStates = slices.DeleteFunc(z.MissingPartitionStates, func(tp string) bool {
		i := strings.LastIndexByte(tp, '-')
		return i > 0 && tp[:i] == topic && (pid < 0 || tp[i+1:] == strconv.Itoa(int(pid)))
	})
}

// sortMissing sorts the missing partition states after a re-decode added
// to them.
func (h *history) sortMissing() {
	slices.Sort(h.d.img.ZK.MissingPartitionStates)
}

// apply re-decodes what the znode at rel (relative to the chroot) is
// part of; false when it is nothing the history follows.
func (h *history) apply(rel string) (Change, bool) {
	d, img := h.d, h.d.img
	z := img.ZK
	ch := Change{Znode: rel, Partition: -1}
	under := func(dir string) (string, bool) {
		name, ok := strings.CutPrefix(rel, dir)
		return name, ok && name != "" && !strings.Contains(name, "/")
	}
	exists := h.t.Has(rel)
	switch {
	case rel == "/cluster/id":
		// No rule reads it; kept so that the image is the decode's.
		img.ClusterID = ""
		_ = d.cluster()
		return ch, false
	case rel == "/controller" || rel == "/controller_epoch":
		z.ControllerID, z.KRaftControllerEpoch, z.ControllerEpoch, z.ControllerEpochZkVersion = -1, -1, 0, -1
		_ = d.controller()
		ch.What = TouchedController
	case strings.HasPrefix(rel, "/brokers/ids/"):
		name, ok := under("/brokers/ids/")
		id, err := strconv.ParseInt(name, 10, 32)
		if !ok || err != nil {
			return ch, false
		}
		delete(img.Brokers, int32(id))
		if exists {
			_ = d.broker(name)
		}
		ch.What = TouchedBroker
	case strings.HasPrefix(rel, "/brokers/topics/"):
		name, sub, _ := strings.Cut(rel[len("/brokers/topics/"):], "/")
		ch.Topic = name
		if sub == "" {
			ch.What = TouchedTopic
			h.topic(name)
			ch.Removed = img.Topics[name] == nil
			return ch, true
		}
		ps, ok := strings.CutPrefix(sub, "partitions/")
		ps, ok2 := strings.CutSuffix(ps, "/state")
		pid, err := strconv.ParseInt(ps, 10, 32)
		if !ok || !ok2 || err != nil || !h.partition(name, int32(pid), rel) {
			return ch, false
		}
		ch.What, ch.Partition = TouchedPartition, int32(pid)
	case strings.HasPrefix(rel, "/config/topics/"):
		name, ok := under("/config/topics/")
		if !ok {
			return ch, false
		}
		delete(img.Configs, model.ConfigResource{Type: model.ConfigTopic, Name: name})
		if exists {
			_ = d.config(model.ConfigTopic, name)
		}
		ch.What, ch.Topic = TouchedTopicConfig, name
	case strings.HasPrefix(rel, "/config/brokers/"):
		name, ok := under("/config/brokers/")
		if !ok {
			return ch, false
		}
		res := name
		if name == defaultEntity {
			res = ""
		}
		delete(img.Configs, model.ConfigResource{Type: model.ConfigBroker, Name: res})
		if exists {
			_ = d.config(model.ConfigBroker, name)
		}
		ch.What = TouchedBrokerConfig
	case rel == "/admin/reassign_partitions" || rel == "/admin/preferred_replica_election" ||
		strings.HasPrefix(rel, "/admin/delete_topics/") || strings.HasPrefix(rel, "/isr_change_notification/") ||
		strings.HasPrefix(rel, "/log_dir_event_notification/"):
		z.PendingTopicDeletions, z.LegacyReassignments, z.PreferredReplicaElections = nil, nil, nil
		delete(z.Notifications, "isr_change")
		delete(z.Notifications, "log_dir_event")
		_ = d.pending()
		ch.What = TouchedAdmin
	case rel == "/feature":
		clear(img.Features)
		z.FeatureStatus = -1
		_ = d.feature()
		ch.What = TouchedFeatures
	case rel == "/migration":
		img.Migration = nil
		_ = d.migration()
		ch.What = TouchedMigration
	case rel == "/latest_producer_id_block":
		img.ProducerIDs = nil
		_ = d.producerIDs()
		ch.What = TouchedProducerIDs
	case strings.HasPrefix(rel, "/config/users/") || strings.HasPrefix(rel, "/config/clients/") || strings.HasPrefix(rel, "/config/ips/"):
		parts, ok := quotaZnode(rel)
		if !ok {
			return ch, false
		}
		key, err := znodeQuotaKey(parts)
		if err != nil {
			return ch, false
		}
		delete(img.ClientQuotas, key)
		scram := len(parts) == 1 && parts[0].typ == "user"
		if scram && parts[0].name != defaultEntity {
			if u, err := desanitize(parts[0].name); err == nil {
				delete(img.SCRAM, model.ScramKey{User: u, Mechanism: model.ScramSHA256})
				delete(img.SCRAM, model.ScramKey{User: u, Mechanism: model.ScramSHA512})
			}
		}
		if exists {
			_ = d.quota(rel, scram, parts...)
		}
		ch.What = TouchedQuota
	case strings.HasPrefix(rel, "/kafka-acl"):
		rt, name, pattern, ok := aclZnode(rel)
		if !ok {
			return ch, false
		}
		for id, a := range img.ACLs {
			if a.ResourceType == rt && a.PatternType == pattern && a.ResourceName == name {
				delete(img.ACLs, id)
			}
		}
		if exists {
			_ = d.aclNode(rel, rt, name, pattern)
		}
		ch.What = TouchedACL
	case strings.HasPrefix(rel, "/delegation_token/tokens/"):
		id, ok := under("/delegation_token/tokens/")
		if !ok {
			return ch, false
		}
		delete(img.DelegationTokens, id)
		if exists {
			_ = d.token(id)
		}
		ch.What = TouchedToken
	default:
		return ch, false
	}
	return ch, true
}

// topic re-decodes topic name from its znode (gone: the topic is).
func (h *history) topic(name string) {
	img := h.d.img
	path := "/brokers/topics/" + name
	n := h.t.Get(path)
	delete(img.Topics, name)
	h.dropMissing(name, -1)
	if n == nil {
		return
	}
	if t, err := h.d.topic(name, path, n); err == nil && t != nil {
		img.Topics[name] = t
	}
	h.sortMissing()
}

// partition re-decodes one partition's state znode (at path); false when
// the image has no such partition (a state outside the assignment).
func (h *history) partition(name string, pid int32, path string) bool {
	t := h.d.img.Topics[name]
	if t == nil || t.Partitions[pid] == nil {
		return false
	}
	h.d.pbuf = append(h.d.pbuf[:0], path...)
	var data []byte
	var version int32
	n := h.t.Get(path)
	if n != nil {
		data, version = n.Data, n.Stat.Version
	}
	h.dropMissing(name, pid)
	ok, _ := h.d.partitionState(name, t.Partitions[pid], data, version, n != nil, nil)
	h.sortMissing()
	if !ok {
		delete(t.Partitions, pid) // malformed: left out, as a decode does
	}
	return true
}

// opName names a zkfile operation as a Change does.
func opName(op int32) string {
	switch op {
	case zkfile.OpCreate:
		return "create"
	case zkfile.OpSetData:
		return "setData"
	case zkfile.OpCloseSession:
		return "closeSession"
	}
	return "delete"
}
