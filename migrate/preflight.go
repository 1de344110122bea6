package migrate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
)

// planStep is one rule or content step of NewPlan. Steps run in list
// order, each adding findings or plan content, so that a new check (an
// online-migration phase's entry condition, a lint rule) is an entry in a
// list, not a branch in one function. The order is part of the output:
// findings are sorted in the end, but a step may rest on what an earlier
// one set (the level, the cluster id, the topics to skip).
type planStep struct {
	name string
	run  func(*planCtx) error
}

// preflight is NewPlan's list of steps, in order.
var preflight = []planStep{
	// The target.
	{"target level", checkLevel},
	{"dynamic quorum level", checkDynamicQuorumLevel},
	{"feature levels", planFeatures},
	// The source.
	{"partial source", checkPartialSource},
	{"empty source", checkEmptySource},
	{"withheld secrets", checkWithheldSecrets},
	{"cluster id", checkClusterID},
	{"registered brokers", checkRegisteredBrokers},
	{"zookeeper data dirs", checkZKDataDirs},
	{"migration znode", checkMigrationZnode},
	// Controllers.
	{"controllers", checkControllers},
	{"brokers to convert", planBrokers},
	// Content.
	{"pending deletions", checkPendingDeletions},
	{"config-only topics", checkConfigOnlyTopics},
	{"legacy admin znodes", checkLegacyAdminZnodes},
	{"zookeeper consumer offsets", checkZKConsumerOffsets},
	{"missing partition states", checkMissingPartitionStates},
	{"topics", checkTopics},
	{"topic case collisions", checkTopicCaseCollisions},
	{"configs", checkConfigs},
	{"scram credentials", checkSCRAM},
	{"delegation tokens", checkTokens},
	{"records", planRecords},
	{"atomic batch size", checkAtomicBatch},
	{"plan topics", planTopics},
	{"files", planFiles},
	{"overrides used", noteOverrides},
}

// planCtx is what the steps share: what the plan is made from, the plan
// they fill, and what the content steps hand on to emit.
type planCtx struct {
	img  *model.Image
	opts Options
	cat  *features.Catalog
	p    *Plan
	over map[string]bool
	// level is the target, set by checkLevel.
	level features.Level
	// brokerIDs are the registered brokers and those assignments name.
	brokerIDs map[int32]bool
	eo        emitOptions
	// done ends the plan after the current step (an unusable level).
	done bool
}

func (c *planCtx) add(f model.Finding) { c.p.Findings = append(c.p.Findings, f) }

// note adds a finding of a check that does not block.
func (c *planCtx) note(code, entity, msg, fix string) model.Finding {
	f := finding(check(code), ClassPlan, entity, msg, fix)
	c.add(f)
	return f
}

// block adds a blocker, or when its override is given, the check's
// relaxed finding saying what the override does instead; it reports
// whether it was overridden.
func (c *planCtx) block(code, override, entity, msg, fix string) bool {
	chk := check(code)
	if override != "" && c.over[override] {
		if chk.Relaxed == "" {
			panic("migrate: check " + code + " has an override but no relaxed severity")
		}
		c.add(chk.Relax(finding(chk, ClassPlan, entity, msg+" (overridden with --override "+override+")", "")))
		return true
	}
	if override != "" {
		if fix != "" {
			fix += "; or "
		}
		fix += "rerun with --override " + override
	}
	c.add(finding(chk, ClassPlan, entity, msg, fix))
	return false
}

// checkLevel resolves the target metadata.version. A string that names no
// KRaft level is a mistyped flag (ErrBadInput: no plan, and no target
// nobody asked for); a real level Kafka cannot start on is a blocker and
// ends the plan, which then names the newest level.
func checkLevel(c *planCtx) error {
	cat := c.cat
	minimum, _ := cat.ByLevel(cat.MinimumBootstrap)
	level, err := cat.LevelFor(c.opts.MetadataVersion)
	if errors.Is(err, features.ErrUnknownLevel) || errors.Is(err, features.ErrNotKRaft) {
		return fmt.Errorf("%w: --metadata-version: %w (choose a level from %s to %s)", ErrBadInput, err, minimum.Name, cat.LatestProductionLevel().Name)
	}
	if err == nil && (level.Level < cat.MinimumBootstrap || !level.Production) {
		err = fmt.Errorf("%s (%d) is not a production level Kafka %s can start on: the minimum is %s, the newest %s",
			level.Name, level.Level, cat.Software, minimum.Name, cat.LatestProductionLevel().Name)
	}
	if err != nil {
		c.block(CodeLevelUnsupported, "", "metadata.version", err.Error(),
			check(CodeLevelUnsupported).FillFix("MIN", minimum.Name, "MAX", cat.LatestProductionLevel().Name, "RELEASE", cat.LatestProductionLevel().Release))
		level = cat.LatestProductionLevel()
		c.done = true
	}
	c.level = level
	c.p.MetadataVersion = level.Ref()
	return nil
}

func checkDynamicQuorumLevel(c *planCtx) error {
	if c.p.Quorum == QuorumDynamic && c.level.Level < features.LevelDynamicQuorum {
		dyn := levelName(c.cat, features.LevelDynamicQuorum)
		c.block(CodeDynamicQuorumLevel, "", "kraft.version",
			fmt.Sprintf("a dynamic quorum (kraft.version 1) needs metadata.version %s or later; the target is %s", dyn, c.level.Name),
			check(CodeDynamicQuorumLevel).FillFix("LEVEL", dyn))
	}
	return nil
}

// planFeatures sets the FeatureLevelRecords: the level's defaults, ELR
// left off.
func planFeatures(c *planCtx) error {
	boot, err := c.cat.BootstrapRecords(c.level.Name)
	if err != nil {
		return err
	}
	for _, f := range boot {
		if f.Name == features.ELRVersion {
			// With ELR on, a 4.x controller takes every broker's first
			// registration for an unclean shutdown (no broker epoch to
			// compare with) and strips it from every ISR, which ends in
			// unclean elections of the migrated partitions (seen on
			// 4.4.0). So the cluster starts without ELR; the operator
			// turns it on once every broker has registered.
			c.note(CodeELRDeferred, "feature "+f.Name,
				fmt.Sprintf("%s=%d (the default of %s) is left at 0 for the first start: with ELR on, Kafka would treat each broker's first registration as an unclean shutdown", f.Name, f.Level, c.level.Name),
				check(CodeELRDeferred).FillFix("FEATURE", f.Name, "LEVEL", fmt.Sprint(f.Level)))
			continue
		}
		c.p.Features = append(c.p.Features, FeatureLevel{Name: f.Name, Level: f.Level})
	}
	return nil
}

func checkPartialSource(c *planCtx) error {
	if !c.img.IsPartial() {
		return nil
	}
	var what []string
	for _, w := range c.img.Warnings {
		if model.Partial(w) {
			what = append(what, w.Message)
		}
	}
	c.block(CodePartialSource, "", "source", "the source view may lack content: "+strings.Join(what, "; "), check(CodePartialSource).Fix)
	return nil
}

// withheldFix is what a source without its secrets is replaced with.
const withheldFix = "read the secrets: dump with `kmeta zk dump --show-secrets`, or plan from the data dir (zkdata:DIR) or the ensemble (zk://HOST:PORT/CHROOT) directly"

// checkWithheldSecrets blocks a source that holds stand-ins instead of
// secrets (a dump written without --show-secrets, a live cluster's admin
// API), or that lists fields it does not report (Image.NotReported): written as they are, no SCRAM user could log in and every
// password config would be wrong. No override lifts it: the data is not
// there to write. The stand-ins are left out of the records (the plan is
// blocked; emit would refuse them, ErrSecretWithheld).
func checkWithheldSecrets(c *planCtx) error {
	// A view that lists fields its source does not report (a live
	// cluster's) lacks more than secrets: epochs, the producer-id block.
	// Written so, the metadata would be wrong where it is silent.
	if nr := c.img.NotReported; len(nr) > 0 {
		names := make([]string, len(nr))
		for i, f := range nr {
			names[i] = string(f)
		}
		c.block(CodeSecretsWithheld, "", "source",
			fmt.Sprintf("the source view does not report %s: a view with fields not reported (a live cluster's admin API) is never a migration source",
				strings.Join(names, ", ")), withheldFix)
	}
	var users []string
	redacted := false
	for _, k := range slices.SortedFunc(maps.Keys(c.img.SCRAM), func(a, b model.ScramKey) int {
		return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.Mechanism, b.Mechanism))
	}) {
		s := c.img.SCRAM[k]
		if !s.Withheld() {
			continue
		}
		c.eo.skipSCRAM[k] = true
		redacted = redacted || s.Fingerprint != ""
		users = append(users, fmt.Sprintf("%s (%s)", k.User, model.ScramMechanismName(k.Mechanism)))
	}
	if len(users) > 0 {
		c.block(CodeSecretsWithheld, "", "scram",
			fmt.Sprintf("%d SCRAM credentials have no salt and keys in the source (%s): %s; written so, no SCRAM user could log in",
				len(users), withheldHow(redacted), firstFew(users)), withheldFix)
	}
	var entries []string
	redacted = false
	for _, rc := range c.img.SortedConfigs() {
		r := rc.Resource
		for _, e := range rc.Entries {
			if !model.ConfigWithheld(r.Type, e.Name, e.Value) {
				continue
			}
			c.eo.dropConfigs[configKey(r, e.Name)] = true
			redacted = redacted || e.Value != model.NotReported
			entries = append(entries, fmt.Sprintf("%s %s %s", r.Type, displayName(r.Name), e.Name))
		}
	}
	if len(entries) > 0 {
		c.block(CodeSecretsWithheld, "", "configs",
			fmt.Sprintf("%d sensitive config values are not in the source (%s): %s; written so, each would be a wrong password",
				len(entries), withheldHow(redacted), firstFew(entries)), withheldFix)
	}
	return nil
}

// withheldHow says why a source lacks secrets.
func withheldHow(redacted bool) string {
	if redacted {
		return "redacted: a dump written without --show-secrets"
	}
	return "not reported by the source"
}

// firstFew joins up to five names, saying how many more there are.
func firstFew(names []string) string {
	if len(names) > 5 {
		names = append(slices.Clone(names[:5]), fmt.Sprintf("… %d more", len(names)-5))
	}
	return strings.Join(names, ", ")
}

func checkEmptySource(c *planCtx) error {
	if len(c.img.Topics) == 0 && c.img.ClusterID == "" && len(c.img.Brokers) == 0 {
		c.block(CodeEmptySource, "", "source", "the source holds no Kafka state (no /cluster/id, no topics): wrong data dir or chroot?", check(CodeEmptySource).Fix)
	}
	return nil
}

// checkClusterID sets the plan's cluster id: ZooKeeper's, else
// --cluster-id.
func checkClusterID(c *planCtx) error {
	p, img, opts := c.p, c.img, c.opts
	p.ClusterID = img.ClusterID
	if p.ClusterID == "" {
		p.ClusterID = opts.ClusterID
	}
	fix := check(CodeNoClusterID).Fix
	if p.ClusterID == "" {
		c.block(CodeNoClusterID, "", "/cluster/id", "ZooKeeper has no /cluster/id", fix)
	} else if u, err := model.ParseUUID(p.ClusterID); err != nil || u.IsZero() {
		c.block(CodeNoClusterID, "", "/cluster/id", fmt.Sprintf("cluster id %q is not a valid Kafka Uuid", p.ClusterID), fix)
	} else if opts.ClusterID != "" && img.ClusterID != "" && opts.ClusterID != img.ClusterID {
		c.block(CodeNoClusterID, "", "/cluster/id", fmt.Sprintf("--cluster-id %s differs from ZooKeeper's %s", opts.ClusterID, img.ClusterID),
			"drop --cluster-id")
	}
	return nil
}

func checkRegisteredBrokers(c *planCtx) error {
	if len(c.img.Brokers) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(c.img.Brokers))
	if c.opts.Live {
		c.block(CodeBrokersRegistered, OverrideRegisteredBrokers, "/brokers/ids",
			fmt.Sprintf("brokers %s are registered: the cluster is still running", joinIDs(ids)), check(CodeBrokersRegistered).Fix)
	} else {
		c.note(CodeRegistrationsInSnap, "/brokers/ids",
			fmt.Sprintf("brokers %s are still registered in the data dir (ephemeral znodes left when ZooKeeper stopped before them)", joinIDs(ids)),
			check(CodeRegistrationsInSnap).Fix)
	}
	return nil
}

func checkZKDataDirs(c *planCtx) error {
	dirs := c.opts.ZKDataDirs
	if len(dirs) <= 1 {
		return nil
	}
	var used ZKDataDir
	var others []string
	for _, d := range dirs {
		if d.Used {
			used = d
			continue
		}
		others = append(others, fmt.Sprintf("%s at zxid %#x", d.Path, d.MaxZxid))
		if d.Diverged != "" {
			c.block(CodeZKDataDirsDiverge, "", "zkdata "+d.Path,
				fmt.Sprintf("%s (zxid %#x) is not a prefix of %s's history: %s", d.Path, d.MaxZxid, used.Path, d.Diverged), check(CodeZKDataDirsDiverge).Fix)
		}
	}
	c.note(CodeZKDataDirUsed, "zkdata "+used.Path,
		fmt.Sprintf("read %s (zxid %#x), the newest of %d data dirs; checked against %s", used.Path, used.MaxZxid, len(dirs), strings.Join(others, ", ")), "")
	return nil
}

func checkMigrationZnode(c *planCtx) error {
	if m := c.img.Migration; m != nil && m.HasZNode {
		c.block(CodeMigrationZnode, OverrideMigrationZnode, "/migration",
			fmt.Sprintf("a /migration znode from an earlier migration attempt exists (KRaft controller %d, offset %d)", m.KRaftControllerID, m.KRaftMetadataOffset),
			check(CodeMigrationZnode).Fix)
	}
	return nil
}

// checkControllers checks the controller ids against the broker ids and
// gives each controller without one its derived directory id.
func checkControllers(c *planCtx) error {
	p := c.p
	if len(p.Controllers) == 0 {
		c.block(CodeNoControllers, "", "controllers", "no controllers given", check(CodeNoControllers).Fix)
	}
	c.brokerIDs = map[int32]bool{}
	for id := range c.img.Brokers {
		c.brokerIDs[id] = true
	}
	// A million partitions name a few brokers: the ids are gathered in a
	// bitset (ids below 2^16, which is every real cluster's) rather than
	// with three million map writes.
	var low [1 << 16 / 64]uint64
	for _, t := range c.img.Topics {
		for _, pt := range t.Partitions {
			for _, r := range pt.Replicas {
				if r >= 0 && r < 1<<16 {
					low[r/64] |= 1 << (r % 64)
				} else {
					c.brokerIDs[r] = true
				}
			}
		}
	}
	for i, w := range low {
		for ; w != 0; w &= w - 1 {
			c.brokerIDs[int32(i*64+bits.TrailingZeros64(w))] = true
		}
	}
	for i := range p.Controllers {
		ctl := &p.Controllers[i]
		if c.brokerIDs[ctl.ID] {
			c.block(CodeControllerIDConflict, "", fmt.Sprintf("controller %d", ctl.ID),
				fmt.Sprintf("controller id %d is also a broker id", ctl.ID), check(CodeControllerIDConflict).Fix)
		}
		if !ctl.DirectoryGiven {
			ctl.DirectoryID = defaultDirectoryID(p.ClusterID, ctl.ID)
		}
	}
	return nil
}

func planBrokers(c *planCtx) error {
	c.p.Brokers = slices.Sorted(maps.Keys(c.brokerIDs))
	if len(c.p.Brokers) > 0 {
		c.note(CodeBrokersToConvert, "brokers",
			fmt.Sprintf("brokers %s hold replicas: run `kmeta migrate brokers` on each broker's log dirs before it starts", joinIDs(c.p.Brokers)), "")
	}
	return nil
}

// checkPendingDeletions: a topic pending deletion blocks, or with its
// override is left out.
func checkPendingDeletions(c *planCtx) error {
	if c.img.ZK == nil {
		return nil
	}
	for _, t := range c.img.ZK.PendingTopicDeletions {
		if c.block(CodePendingDeletion, OverrideDropPendingDeletions, "topic "+t,
			fmt.Sprintf("topic %s is pending deletion", t), check(CodePendingDeletion).FillFix("TOPIC", t)) {
			c.eo.skipTopics[t] = true
		}
	}
	return nil
}

// checkConfigOnlyTopics skips the topic configs whose topic does not exist
// (/config/topics/X without /brokers/topics/X: left by a deletion that did
// not finish, or written behind Kafka's back). Kafka's migration reads
// configs only for the topics it migrates, and a topic created later
// under that name would inherit them.
func checkConfigOnlyTopics(c *planCtx) error {
	for r := range c.img.Configs {
		if r.Type != model.ConfigTopic || c.img.Topics[r.Name] != nil {
			continue
		}
		c.eo.skipTopics[r.Name] = true
		c.note(CodeConfigWithoutTopic, fmt.Sprintf("config %s %s", r.Type, r.Name),
			fmt.Sprintf("/config/topics/%s has no topic (/brokers/topics/%s): its configs are not migrated, as in Kafka's migration, so that a topic created later under this name does not inherit them", r.Name, r.Name), "")
	}
	return nil
}

func checkLegacyAdminZnodes(c *planCtx) error {
	zk := c.img.ZK
	if zk == nil {
		return nil
	}
	if len(zk.LegacyReassignments) > 0 {
		c.note(CodeLegacyAdminZnode, "/admin/reassign_partitions",
			fmt.Sprintf("/admin/reassign_partitions lists %d partitions; it is not migrated (as in Kafka's migration)", len(zk.LegacyReassignments)), "")
	}
	if len(zk.PreferredReplicaElections) > 0 {
		// Nothing is lost: the election can be asked for again.
		chk := check(CodeLegacyAdminZnode)
		c.add(chk.Relax(finding(chk, ClassPlan, "/admin/preferred_replica_election",
			"a pending preferred replica election is not migrated; run kafka-leader-election after the migration", "")))
	}
	return nil
}

func checkZKConsumerOffsets(c *planCtx) error {
	if c.img.ZK == nil {
		return nil
	}
	groups, offsets := zkConsumerOffsets(c.img.ZK.Raw)
	if len(groups) == 0 {
		return nil
	}
	shown := groups
	if len(shown) > 5 {
		shown = append(slices.Clone(shown[:5]), fmt.Sprintf("… %d more", len(groups)-5))
	}
	c.note(CodeZKConsumerOffsets, "/consumers",
		fmt.Sprintf("%d consumer group(s) keep %d offset(s) in ZooKeeper (/consumers: the old consumer's offsets.storage=zookeeper): neither Kafka's migration nor kmeta moves them, and Kafka 4.x cannot read them (%s)",
			len(groups), offsets, strings.Join(shown, ", ")),
		check(CodeZKConsumerOffsets).Fix)
	return nil
}

func checkMissingPartitionStates(c *planCtx) error {
	if c.img.ZK == nil {
		return nil
	}
	for _, tp := range c.img.ZK.MissingPartitionStates {
		c.note(CodeMissingPartitionState, "partition "+tp,
			"partition has no state znode: written as Kafka's migration does (ISR = replicas, leader = first replica, epochs 0)", "")
	}
	return nil
}

// checkTopics assigns topic ids where ZooKeeper has none and checks for
// reassignments in flight, topic by topic in name order.
func checkTopics(c *planCtx) error {
	for _, name := range slices.Sorted(maps.Keys(c.img.Topics)) {
		t := c.img.Topics[name]
		if c.eo.skipTopics[name] {
			continue
		}
		if t.ID.IsZero() {
			c.eo.topicIDs[name] = derivedUUID("topic_id", c.p.ClusterID, name)
			c.note(CodeTopicIDAssigned, "topic "+name,
				fmt.Sprintf("topic has no topic_id (created before Kafka 2.8): kmeta assigns %s; `migrate brokers` writes it into partition.metadata", c.eo.topicIDs[name]), "")
		}
		for _, pid := range slices.Sorted(maps.Keys(t.Partitions)) {
			pt := t.Partitions[pid]
			if len(pt.AddingReplicas) > 0 || len(pt.RemovingReplicas) > 0 {
				c.block(CodeReassignmentInFlight, OverrideKeepReassignments, fmt.Sprintf("partition %s-%d", name, pid),
					fmt.Sprintf("reassignment in flight (adding %v, removing %v)", pt.AddingReplicas, pt.RemovingReplicas),
					check(CodeReassignmentInFlight).Fix)
			}
		}
	}
	return nil
}

// checkTopicCaseCollisions looks at every topic, skipped ones too: their
// dirs are still on the brokers' disks.
func checkTopicCaseCollisions(c *planCtx) error {
	lower := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(c.img.Topics)) {
		lower[strings.ToLower(name)] = append(lower[strings.ToLower(name)], name)
	}
	for _, names := range lower {
		if len(names) > 1 {
			c.note(CodeTopicCaseCollision, "topics "+strings.Join(names, ", "),
				"topic names differ only in case: their partition dirs collide on a case-insensitive file system", "")
		}
	}
	return nil
}

// checkConfigs drops the configs Kafka 4.x removed and decrypts (or
// blocks on) encrypted password configs.
func checkConfigs(c *planCtx) error {
	img := c.img
	for _, r := range slices.SortedFunc(maps.Keys(img.Configs), func(a, b model.ConfigResource) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
	}) {
		if r.Type == model.ConfigTopic && c.eo.skipTopics[r.Name] {
			continue // not written: nothing to drop or decrypt
		}
		for _, k := range slices.Sorted(maps.Keys(img.Configs[r])) {
			v := img.Configs[r][k]
			ent := fmt.Sprintf("config %s %s", r.Type, displayName(r.Name))
			if why, ok := model.RemovedConfig(k); ok {
				c.eo.dropConfigs[configKey(r, k)] = true
				f := finding(check(CodeConfigRemoved), ClassPlan, ent, fmt.Sprintf("%s is not written: %s", k, why), "")
				f.Field = k
				c.add(f)
				continue
			}
			if !model.IsPasswordConfig(k) || !model.IsEncryptedPassword(v) {
				continue
			}
			if secret := c.opts.PasswordEncoderSecret; secret != "" {
				plain, err := model.DecryptPassword(secret, v)
				if err != nil {
					c.block(CodeEncryptedPassword, "", ent, fmt.Sprintf("%s cannot be decrypted: %v", k, err),
						"pass the password.encoder.secret the brokers used")
					continue
				}
				c.eo.configValues[configKey(r, k)] = plain
				f := finding(check(CodePasswordDecrypted), ClassPlan, ent, k+" decrypted with --password-encoder-secret; KRaft stores it in plain text, as Kafka's migration does", "")
				f.Field = k
				c.add(f)
				continue
			}
			c.block(CodeEncryptedPassword, OverrideCopyEncryptedPasswords, ent,
				fmt.Sprintf("%s is encrypted with the brokers' password.encoder.secret", k),
				check(CodeEncryptedPassword).Fix)
		}
	}
	return nil
}

func checkSCRAM(c *planCtx) error {
	c.eo.dropSCRAM = c.blockUnwritable(len(c.img.SCRAM), "SCRAM credentials", "scram",
		features.UserScramCredentialRecord, features.LevelScram, CodeSCRAMUnsupported, OverrideDropSCRAM)
	return nil
}

func checkTokens(c *planCtx) error {
	c.eo.dropTokens = c.blockUnwritable(len(c.img.DelegationTokens), "delegation tokens", "delegation tokens",
		features.DelegationTokenRecord, features.LevelDelegationTokens, CodeTokensUnsupported, OverrideDropTokens)
	return nil
}

// blockUnwritable blocks n entities that the target level has no record
// for (lifted by override), and reports whether they are left out: they
// are either way, since the plan is blocked unless overridden.
func (c *planCtx) blockUnwritable(n int, what, entity string, apiKey, since int16,
	code, override string) bool {
	if n == 0 {
		return false
	}
	if _, ok := c.cat.RecordVersion(c.level.Level, apiKey); ok {
		return false
	}
	need := levelName(c.cat, since)
	c.block(code, override, entity,
		fmt.Sprintf("%d %s cannot be written below %s (target %s)", n, what, need, c.level.Name),
		check(code).FillFix("LEVEL", need))
	return true
}

// planRecords computes the records, with what the checks before decided
// (topics skipped, configs dropped or decrypted, topic ids assigned).
func planRecords(c *planCtx) error {
	c.eo.level, c.eo.catalog, c.eo.features, c.eo.progress = c.level, c.cat, c.p.Features, c.opts.Progress
	recs, err := emit(c.img, c.eo)
	if err != nil {
		return err
	}
	c.p.records = recs
	c.p.Records = summarize(recs)
	return nil
}

func checkAtomicBatch(c *planCtx) error {
	if n := len(c.p.records); c.level.Level < features.LevelTransactions && n > maxAtomicRecords {
		txn := levelName(c.cat, features.LevelTransactions)
		c.block(CodeTooManyRecords, "", "metadata.version",
			fmt.Sprintf("%d records: below %s the controller appends them as one atomic batch, which Kafka limits to %d records", n, txn, maxAtomicRecords),
			check(CodeTooManyRecords).FillFix("LEVEL", txn))
	}
	return nil
}

// planTopics lists every topic with the brokers that may hold its
// partitions, for `migrate brokers`.
func planTopics(c *planCtx) error {
	for _, name := range slices.Sorted(maps.Keys(c.img.Topics)) {
		t := c.img.Topics[name]
		pt := PlanTopic{Name: name, ID: t.ID, Skipped: c.eo.skipTopics[name], Partitions: make([]PlanPartition, 0, len(t.Partitions))}
		if pt.ID.IsZero() {
			pt.ID = c.eo.topicIDs[name]
		}
		for _, pid := range slices.Sorted(maps.Keys(t.Partitions)) {
			pt.Partitions = append(pt.Partitions, PlanPartition{ID: pid, Replicas: orEmpty(t.Partitions[pid].Replicas)})
		}
		c.p.Topics = append(c.p.Topics, pt)
	}
	return nil
}

// planFiles lists the files apply writes for each controller.
func planFiles(c *planCtx) error {
	p := c.p
	for _, ctl := range p.Controllers {
		dir := controllers.DirName(ctl.ID)
		if p.Quorum == QuorumDynamic {
			p.Steps = append(p.Steps, Step{Node: ctl.ID, File: dir + "/" + bootstrapSnapshotPath, Kind: "bootstrap snapshot",
				Summary: fmt.Sprintf("kraft.version 1, voters %s, then %d records at metadata.version %s, replayed by the controller as its first transaction",
					controllers.Initial(p.Controllers), p.Records.Total, c.level.Name)})
		} else {
			p.Steps = append(p.Steps, Step{Node: ctl.ID, File: dir + "/" + bootstrapFile, Kind: "bootstrap.checkpoint",
				Summary: fmt.Sprintf("%d records at metadata.version %s, replayed by the controller as its first transaction", p.Records.Total, c.level.Name)})
		}
		p.Steps = append(p.Steps, Step{Node: ctl.ID, File: dir + "/" + metaPropertiesFile, Kind: "meta.properties",
			Summary: fmt.Sprintf("version=1 node.id=%d cluster.id=%s directory.id=%s", ctl.ID, p.ClusterID, ctl.DirectoryID)})
	}
	return nil
}

func noteOverrides(c *planCtx) error {
	for _, o := range c.p.Overrides {
		c.note(CodeOverrideUsed, "override "+o, "override given: --override "+o, "")
	}
	return nil
}
