package online

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// StageOptions say which phase to stage and, for KRaftMigration, the new
// controllers.
type StageOptions struct {
	Phase Phase
	// Controllers and MetadataDir (each controller's metadata log dir on
	// its host; "{id}" is replaced by its id) are KRaftMigration's.
	Controllers []controllers.Spec
	MetadataDir string
	// Release is the brokers' metadata level when no broker file sets
	// inter.broker.protocol.version (it then defaults to the release
	// the brokers run, which kmeta cannot see).
	Release string
	// ControllerProtocol is the controller listener's security protocol
	// (KRaftMigration); "" follows the brokers' inter-broker listener.
	ControllerProtocol string
}

// Step is one thing the operator does, in order.
type Step struct {
	Step   int    `json:"step"`
	Action string `json:"action"`
	Node   *int32 `json:"node,omitempty"`
	// Config is the file (relative to the output dir) the node starts on.
	Config string `json:"config,omitempty"`
	// From and To: install-metadata-dir copies From (relative to the
	// output dir) into To; delete-metadata-dir deletes Path.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	Path string `json:"path,omitempty"`
	// Args are the ZooKeeper CLI's arguments, Command the whole line.
	Args    []string `json:"args,omitempty"`
	Command string   `json:"command,omitempty"`
	// Nodes are a roll-plan step's nodes (Config then names their files
	// with {id} for the node's id).
	Nodes []int32 `json:"nodes,omitempty"`
	What  string  `json:"what"`
}

// Step actions.
const (
	ActInstall   = "install-metadata-dir"
	ActStart     = "start"
	ActRestart   = "restart"
	ActStop      = "stop"
	ActWait      = "wait"
	ActZooKeeper = "zookeeper"
	ActDelete    = "delete-metadata-dir"
)

// NodePlan is one node's new file.
type NodePlan struct {
	ID      int32    `json:"id"`
	Role    string   `json:"role"`
	Profile Profile  `json:"profile"`
	Config  string   `json:"config"`
	Changes []Change `json:"changes"`
	// Props is the whole new file (written, never printed: it holds the
	// node's passwords).
	Props map[string]string `json:"-"`
	From  string            `json:"from,omitempty"`
}

// StageResult is a staged phase: its checks, each node's file and the
// steps in order.
type StageResult struct {
	Phase   Phase           `json:"phase"`
	Current Phase           `json:"current"`
	Ready   bool            `json:"ready"`
	Checks  []model.Finding `json:"checks"`
	Nodes   []NodePlan      `json:"nodes"`
	Steps   []Step          `json:"steps"`
	// Format is what KRaftMigration formats the controllers with.
	Format *FormatPlan `json:"format,omitempty"`
	Status *Status     `json:"-"`
}

// FormatPlan is the controllers' formatting.
type FormatPlan struct {
	ClusterID       string             `json:"clusterId"`
	MetadataVersion string             `json:"metadataVersion"`
	Controllers     []controllers.Spec `json:"controllers"`
	level           features.Level
}

// ConfigName is the file a node's generated config is written to.
func ConfigName(id int32) string { return fmt.Sprintf("server-%d.properties", id) }

func nodeRef(id int32) *int32 { return &id }

// stager builds one StageResult.
type stager struct {
	in  Input
	o   StageOptions
	st  *Status
	r   *StageResult
	cat *features.Catalog
}

func (s *stager) check(code, entity, msg, fix string) {
	s.r.Checks = append(s.r.Checks, finding(code, entity, msg, fix))
}

// add adds a finding made with finding (relaxed or escalated).
func (s *stager) add(f model.Finding) { s.r.Checks = append(s.r.Checks, f) }

// Stage checks the phase's entry conditions and makes every node's file
// for it and the steps, in order. A refused phase (Ready false) has its
// checks and no steps; nothing is written by Stage itself (Write does).
func Stage(in Input, o StageOptions) (*StageResult, error) {
	st, err := Observe(in)
	if err != nil {
		return nil, err
	}
	s := &stager{in: in, o: o, st: st, cat: features.Catalog39(),
		r: &StageResult{Phase: o.Phase, Current: st.Phase, Checks: []model.Finding{}, Nodes: []NodePlan{}, Steps: []Step{}, Status: st}}
	target := o.Phase
	if target == ZooKeeper {
		return nil, fmt.Errorf("%w: ZooKeeper is where the migration starts; to go back, use migrate rollback", ErrBadInput)
	}
	if st.Phase != target && st.Phase != target-1 {
		fix := checkOf(CodeOutOfOrder).FillFix("NEXT", min(st.Phase+1, KRaft).String())
		if st.Phase > target {
			fix = "the cluster is past it; `kmeta migrate rollback` says what is valid now"
		}
		s.check(CodeOutOfOrder, "phase "+target.String(),
			fmt.Sprintf("the cluster is in %s; %s follows %s", st.Phase, target, target-1), fix)
	}
	s.inputChecks()
	// The status's problems block every phase.
	for _, f := range st.Findings {
		if f.Severity == model.SevError || f.Severity == model.SevCritical {
			s.r.Checks = append(s.r.Checks, f)
		}
	}
	if target >= KRaftDualWriting && in.KRaft == nil {
		s.add(escalated(findingOf(CodeKRaftNeeded, "phase "+target.String(),
			"the controllers' view is needed from here on: ZooKeeper alone cannot say whether the metadata was copied or which brokers registered")))
	}
	switch target {
	case KRaftMigration:
		err = s.migration()
	case KRaft:
		s.letGo()
	case KRaftDualWriting:
		// Reached by Kafka itself: the check is that it was.
		if st.Phase == target-1 {
			for _, w := range st.WaitingFor {
				s.check(CodeNotReached, "phase "+target.String(), "waiting for "+w, "")
			}
			if len(st.WaitingFor) == 0 {
				s.check(CodeNotReached, "phase "+target.String(), "not reached yet: "+Phases[target].ReachedText, "")
			}
		}
	default:
		// The phases entered by a roll of existing nodes: the roles the
		// phase's row lists, in its order.
		for _, role := range Phases[target].Rolls {
			if err = s.roll(role); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	model.SortFindings(s.r.Checks)
	s.r.Ready = !slices.ContainsFunc(s.r.Checks, func(f model.Finding) bool {
		return f.Severity == model.SevError || f.Severity == model.SevCritical
	})
	if !s.r.Ready {
		s.r.Steps = []Step{}
	}
	// A waiting status after a roll is the roll's own wait.
	n := 0
	for i := range s.r.Steps {
		n++
		s.r.Steps[i].Step = n
	}
	return s.r, nil
}

// inputChecks refuse node files that disagree with the cluster read: a
// broker it does not know, a zookeeper.connect naming another ensemble or
// chroot (the controllers' files inherit a broker's).
func (s *stager) inputChecks() {
	known := map[int32]bool{}
	for id := range s.in.ZK.Brokers {
		known[id] = true
	}
	if k := s.in.KRaft; k != nil {
		for id := range k.Brokers {
			known[id] = true
		}
	}
	for _, t := range s.in.ZK.Topics {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				known[r] = true
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.in.Nodes)) {
		n := s.in.Nodes[id]
		ent := fmt.Sprintf("--config %d", id)
		if n.Role() == RoleBroker && !known[id] {
			s.r.Checks = append(s.r.Checks, checks.Must(CodeNodeNotInCluster).Findingf(ent,
				"%s is the file of broker %d, which neither ZooKeeper's /brokers/ids nor the KRaft controllers know and which holds no replica", n.Path, id))
		}
		if v := n.Props[keyZKConnect]; v != "" {
			if why := zkConnectMismatch(v, s.in.ZK.ZK); why != "" {
				s.r.Checks = append(s.r.Checks, checks.Must(CodeZKConnectMismatch).Findingf(ent,
					"%s: zookeeper.connect=%s is not the ZooKeeper read (%s): %s", n.Path, v, s.in.ZKSource, why))
			}
		}
	}
}

// brokerIDs are the brokers the phase rolls: every broker ZooKeeper or
// KRaft knows, each with its file.
func (s *stager) brokerIDs() []int32 {
	ids := map[int32]bool{}
	for _, b := range s.st.Brokers {
		ids[b.ID] = true
	}
	return slices.Sorted(maps.Keys(ids))
}

// needFile records a missing --config and returns the node's file.
func (s *stager) needFile(id int32, role string) *Node {
	n := s.in.Nodes[id]
	if n == nil {
		s.check(CodeNodeConfigMissing, fmt.Sprintf("%s %d", role, id),
			fmt.Sprintf("no --config %d=FILE: kmeta makes each node's new file from its current one", id),
			fmt.Sprintf("add --config %d=/path/to/its/server.properties", id))
	}
	return n
}

// migration is KRaftMigration: the checks of §6.1–6.2 of Kafka's
// migration, the controllers' formatted dirs and files, the brokers'
// migration-mode files, and the order: controllers, then the brokers with
// ZooKeeper's controller last (one controller move instead of one per
// broker).
func (s *stager) migration() error {
	zk := s.in.ZK
	if zk.ClusterID == "" {
		s.check(CodeNoClusterID, "cluster", "ZooKeeper has no /cluster/id: the controllers must be formatted with the cluster's id", "start a broker once so that Kafka writes /cluster/id")
	}
	if len(s.o.Controllers) == 0 {
		return fmt.Errorf("%w: KRaftMigration needs --controllers ID@HOST:PORT,... (the new KRaft controllers)", ErrBadInput)
	}
	if s.o.MetadataDir == "" {
		return fmt.Errorf("%w: KRaftMigration needs --metadata-dir DIR (each controller's metadata log dir on its host; {id} is replaced by its id)", ErrBadInput)
	}
	brokers := s.brokerIDs()
	if len(brokers) == 0 {
		s.check(CodeNoBrokers, "brokers", "no broker is registered in ZooKeeper and no broker file was given", "start the cluster's brokers, or give --config for each")
	}
	files := map[int32]*Node{}
	for _, id := range brokers {
		if n := s.needFile(id, "broker"); n != nil {
			files[id] = n
		}
	}
	for _, c := range s.o.Controllers {
		if zk.Brokers[c.ID] != nil || s.in.Nodes[c.ID] != nil && s.in.Nodes[c.ID].Role() != RoleController {
			s.check(CodeControllerIDTaken, fmt.Sprintf("controller %d", c.ID),
				fmt.Sprintf("node id %d is a broker's: controller ids must not collide with broker ids", c.ID), "choose other --controllers ids")
		}
	}
	// Assignments naming a broker that is not up block WAIT_FOR_BROKERS
	// for ever.
	up := map[int32]bool{}
	for id := range zk.Brokers {
		up[id] = true
	}
	if k := s.in.KRaft; k != nil {
		for id := range k.Brokers {
			up[id] = true
		}
	}
	missing := map[int32][]string{}
	for _, name := range slices.Sorted(maps.Keys(zk.Topics)) {
		t := zk.Topics[name]
		if t.ID.IsZero() {
			s.check(CodeTopicWithoutID, "topic "+name, "the topic has no topic_id in ZooKeeper: Kafka's migration fails on it", "roll the brokers once on IBP 2.8 or later so the controller assigns ids")
		}
		for _, pid := range slices.Sorted(maps.Keys(t.Partitions)) {
			p := t.Partitions[pid]
			for _, r := range p.Replicas {
				if !up[r] && len(missing[r]) < 3 {
					missing[r] = append(missing[r], fmt.Sprintf("%s-%d", name, p.ID))
				}
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(missing)) {
		s.check(CodeUnregisteredReplica, fmt.Sprintf("broker %d", id),
			fmt.Sprintf("broker %d holds replicas (%s, ...) but is not registered: the controller waits for every broker of every assignment", id, strings.Join(missing[id], ", ")),
			fmt.Sprintf("start broker %d, or reassign its replicas away (kafka-reassign-partitions)", id))
	}
	level, ok := s.brokerLevel(brokers, files)
	var q quorum
	if ok {
		q = quorum{controllers: s.o.Controllers, ibp: level.Name, protocol: s.ctlProtocol(files)}
		s.levelChecks(level, files)
	}
	s.brokerFileChecks(files)
	if !ok {
		return nil
	}
	// Brokers keep the IBP spelling they have when it is the level.
	for _, id := range slices.Sorted(maps.Keys(files)) {
		n := files[id]
		if n.Role() != RoleBroker {
			continue
		}
		qq := q
		if v := n.Props[keyIBP]; v != "" {
			qq.ibp = v
		}
		props := migratingBroker(n.Props, qq)
		s.r.Nodes = append(s.r.Nodes, NodePlan{ID: id, Role: RoleBroker, Profile: BrokerMigrating, Config: ConfigName(id), Changes: Diff(n.Props, props), Props: props, From: n.Path})
	}
	// The controllers' files come from a broker's (its authorizer, super
	// users, token and password-encoder secrets, ZooKeeper client
	// settings): the lowest id's.
	var template *Node
	for _, id := range slices.Sorted(maps.Keys(files)) {
		if files[id].Role() == RoleBroker {
			template = files[id]
			break
		}
	}
	if template == nil {
		return nil
	}
	s.r.Format = &FormatPlan{ClusterID: zk.ClusterID, MetadataVersion: level.Name, Controllers: s.o.Controllers, level: level}
	for _, c := range s.o.Controllers {
		dir := metadataDir(s.o.MetadataDir, c.ID)
		props, err := migratingController(template.Props, c, dir, q)
		if err != nil {
			return err
		}
		s.dropTokenSecret(props, fmt.Sprintf("controller %d", c.ID), level.Level)
		var changes []Change
		if cur := s.in.Nodes[c.ID]; cur != nil {
			changes = Diff(cur.Props, props)
		} else {
			changes = Diff(nil, props)
		}
		s.r.Nodes = append(s.r.Nodes, NodePlan{ID: c.ID, Role: RoleController, Profile: ControllerMigrating, Config: ConfigName(c.ID), Changes: changes, Props: props})
	}
	s.secureQuorum(files, template, q.proto())
	// Steps. Controllers already running (a rerun mid-roll) are left as
	// they are.
	running := s.in.KRaft != nil
	rolls := Phases[KRaftMigration].Rolls
	if !running && slices.Contains(rolls, RoleController) {
		for _, c := range s.o.Controllers {
			s.r.Steps = append(s.r.Steps, Step{Action: ActInstall, Node: nodeRef(c.ID), From: controllers.Dir("", c.ID), To: metadataDir(s.o.MetadataDir, c.ID),
				What: fmt.Sprintf("copy controller-%d/ (meta.properties, bootstrap.checkpoint) into controller %d's metadata log dir %s", c.ID, c.ID, metadataDir(s.o.MetadataDir, c.ID))})
		}
		for _, c := range s.o.Controllers {
			what := fmt.Sprintf("start controller %d on %s", c.ID, ConfigName(c.ID))
			if isTrue(nodeProps(s.r.Nodes, c.ID)[keyZKSetACL]) {
				// Kafka's znodes are the brokers' own: ZooKeeper refuses
				// any other session's writes (TestZKCommandsLogInToSASLZooKeeper).
				what += ", with the JAAS file the brokers log in to ZooKeeper with in its KAFKA_OPTS (java.security.auth.login.config, its Client section): " +
					"zookeeper.set.acl=true makes the znodes theirs, and ZooKeeper refuses the writes of a controller logged in as anyone else"
			}
			s.r.Steps = append(s.r.Steps, Step{Action: ActStart, Node: nodeRef(c.ID), Config: ConfigName(c.ID), What: what})
		}
		s.r.Steps = append(s.r.Steps, Step{Action: ActWait, What: "the controllers elect a leader and write ZkMigrationState PRE_MIGRATION (kmeta migrate status says KRaftMigration)"})
	}
	// The brokers are ZooKeeper-mode brokers before and after: ZooKeeper
	// orders the roll (its controller last) and gates it.
	zkController := s.st.ZooKeeper.ControllerID
	order := rollOrder(s.in.ZK, brokers, zkController)
	src := s.in.Gates.brokerSource(false, nil)
	for _, id := range order {
		if !slices.Contains(rolls, RoleBroker) || files[id] == nil || files[id].Profile() == BrokerMigrating && sameProps(files[id].Props, nodeProps(s.r.Nodes, id)) {
			continue
		}
		what := fmt.Sprintf("restart broker %d on %s (migration mode)", id, ConfigName(id))
		if id == zkController {
			what += "; it is ZooKeeper's controller, so it goes last"
		}
		s.r.Steps = append(s.r.Steps, gated(Step{Action: ActRestart, Node: nodeRef(id), Config: ConfigName(id), What: what}, src)...)
	}
	s.r.Steps = append(s.r.Steps, Step{Action: ActWait, What: "every broker registers with the KRaft controller; the controller copies the metadata and starts dual-writing (kmeta migrate status says KRaftDualWriting)"})
	return nil
}

// lastOf orders ids with last at the end: ZooKeeper's controller among
// the brokers, the quorum's leader among the controllers, so the roll
// moves leadership once instead of once per node.
func lastOf(ids []int32, last int32) []int32 {
	out := slices.DeleteFunc(slices.Clone(ids), func(id int32) bool { return id == last })
	if len(out) < len(ids) {
		out = append(out, last)
	}
	return out
}

// kraftLevel is the controllers' metadata.version, 0 when unknown.
func (s *stager) kraftLevel() int16 {
	if k := s.in.KRaft; k != nil {
		return k.MetadataVersion()
	}
	return 0
}

// dropTokenSecret takes the delegation-token secret out of a KRaft node's
// file below 3.6-IV2: a KRaft node of those releases refuses to start
// with it ("Delegation tokens are not supported", seen on 3.5.2), and the
// migration does not copy tokens there.
func (s *stager) dropTokenSecret(props map[string]string, entity string, mv int16) {
	min, err := s.cat.LevelFor("3.6-IV2")
	if err != nil || mv == 0 || mv >= min.Level {
		return
	}
	var gone []string
	for _, k := range []string{"delegation.token.secret.key", "delegation.token.master.key"} {
		if _, ok := props[k]; ok {
			delete(props, k)
			gone = append(gone, k)
		}
	}
	if len(gone) > 0 {
		s.add(relaxed(finding(CodeTokensLost, entity,
			fmt.Sprintf("%s left out: a KRaft node below metadata.version 3.6-IV2 (%s) refuses to start with it, and delegation tokens are not migrated there; clients that use tokens must get new credentials", strings.Join(gone, ", "), levelName(s.cat, mv)),
			"migrate at 3.6 or later to keep delegation tokens")))
	}
}

func nodeProps(ns []NodePlan, id int32) map[string]string {
	for _, n := range ns {
		if n.ID == id {
			return n.Props
		}
	}
	return nil
}

func sameProps(a, b map[string]string) bool { return b != nil && maps.Equal(a, b) }

func firstFew(xs []string) string {
	if len(xs) > 3 {
		return strings.Join(xs[:3], ", ") + ", ..."
	}
	return strings.Join(xs, ", ")
}

func metadataDir(pattern string, id int32) string {
	return strings.ReplaceAll(pattern, "{id}", strconv.Itoa(int(id)))
}

// brokerLevel is the brokers' IBP as a level: every broker's the same,
// at least 3.4-IV0; --metadata-version when no file sets it.
func (s *stager) brokerLevel(brokers []int32, files map[int32]*Node) (features.Level, bool) {
	seen := map[string][]string{}
	for _, id := range slices.Sorted(maps.Keys(files)) {
		v := strings.TrimSpace(files[id].Props[keyIBP])
		if v == "" {
			v = s.o.Release
		}
		seen[v] = append(seen[v], strconv.Itoa(int(id)))
	}
	if len(seen) > 1 {
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(seen)) {
			name := v
			if name == "" {
				name = "(unset)"
			}
			parts = append(parts, fmt.Sprintf("%s on %s", name, strings.Join(seen[v], ",")))
		}
		s.add(findingOf(CodeIBPDiffers, "brokers", "the brokers' inter.broker.protocol.version differ ("+strings.Join(parts, "; ")+"): the controllers have one metadata.version, and each migrating broker must run exactly it"))
		return features.Level{}, false
	}
	var v string
	for k := range seen {
		v = k
	}
	if v == "" {
		if len(files) > 0 {
			s.add(findingOf(CodeIBPUnset, "brokers", "no broker file sets inter.broker.protocol.version, so it is the brokers' release, which kmeta cannot see"))
		}
		return features.Level{}, false
	}
	l, err := s.cat.LevelFor(v)
	if err != nil {
		s.add(findingOf(CodeIBPTooOld, "brokers", fmt.Sprintf("inter.broker.protocol.version %s is not a KRaft metadata.version: the migration needs 3.4 or later", v)))
		return features.Level{}, false
	}
	return l, true
}

// levelChecks are the level minimums of Kafka's migration.
func (s *stager) levelChecks(l features.Level, files map[int32]*Node) {
	at := func(name string) int16 {
		x, err := s.cat.LevelFor(name)
		if err != nil {
			return 0
		}
		return x.Level
	}
	if l.Level < at("3.4-IV0") {
		s.check(CodeIBPTooOld, "brokers", fmt.Sprintf("inter.broker.protocol.version %s is below 3.4-IV0, the first with the migration", l.Name),
			"upgrade the brokers and their inter.broker.protocol.version to 3.4 or later first")
	}
	if l.Level < at("3.6-IV1") {
		s.add(relaxed(finding(CodeIBPTooOld, "brokers", fmt.Sprintf("metadata.version %s has no metadata transactions: a migration that fails half way leaves partial records (Kafka logs \"Starting ZK Migration without metadata transactions enabled. This is not safe\"), and a 3.9 controller refuses it on an empty log", l.Name),
			"upgrade to 3.6 or later (inter.broker.protocol.version 3.6-IV1 or later) before migrating")))
	}
	if l.Level < at("3.8-IV0") {
		var odd []string
		for key, q := range s.in.ZK.ClientQuotas {
			for _, e := range q.Entity {
				// Kafka's Sanitizer escapes every byte outside these in
				// ZooKeeper's znode names.
				if e.Name == nil || strings.IndexFunc(*e.Name, func(r rune) bool {
					return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-~", r))
				}) >= 0 {
					odd = append(odd, key)
					break
				}
			}
		}
		if len(odd) > 0 {
			slices.Sort(odd)
			s.add(findingOf(CodeQuotaMigration, "quotas", fmt.Sprintf("%d client quotas on default or escaped entity names (%s): Kafka below 3.7.1 migrates them wrong (defaults become the entity named \"\", KAFKA-16411; escaped names stay escaped, KAFKA-16222); kmeta verify shows each after the copy", len(odd), firstFew(odd))))
		}
	}
	if len(s.in.ZK.SCRAM) > 0 && l.Level < at("3.5-IV2") {
		s.add(findingOf(CodeSCRAMLevel, "scram", fmt.Sprintf("ZooKeeper holds %d SCRAM credentials; metadata.version %s cannot hold them (3.5-IV2 can)", len(s.in.ZK.SCRAM), l.Name)))
	}
	for _, id := range slices.Sorted(maps.Keys(files)) {
		p := files[id].Props
		if len(logDirs(p)) > 1 && l.Level < at("3.7-IV2") {
			s.add(findingOf(CodeJBODLevel, fmt.Sprintf("broker %d", id), fmt.Sprintf("broker %d has %d log dirs (JBOD); migrating JBOD brokers needs metadata.version 3.7-IV2, the level is %s", id, len(logDirs(p)), l.Name)))
		}
		if a := p[keyAuthorizer]; a != "" && l.Level < at("3.5-IV0") {
			s.check(CodeAuthorizer, fmt.Sprintf("broker %d", id), "Kafka 3.4 refuses to migrate a cluster with an authorizer (KAFKA-14621)", "upgrade to 3.5 or later first")
		}
	}
}

// brokerFileChecks are the checks of the brokers' own files.
func (s *stager) brokerFileChecks(files map[int32]*Node) {
	ibls := map[string][]string{}
	for _, id := range slices.Sorted(maps.Keys(files)) {
		n := files[id]
		p := n.Props
		ent := fmt.Sprintf("broker %d", id)
		if n.Role() == RoleCombined {
			continue // nodeChecks said it
		}
		if n.Role() != RoleBroker || n.Profile() == BrokerKRaft {
			s.add(findingOf(CodeBrokerConfig, ent, fmt.Sprintf("--config %d is a %s file, not a ZooKeeper-mode broker's", id, n.Profile())))
			continue
		}
		bid, err := strconv.ParseInt(strings.TrimSpace(p[keyBrokerID]), 10, 32)
		switch {
		case err == nil && bid >= 0 && int32(bid) != id:
			// Another broker's file, not a generated id.
			s.check(CodeBrokerConfig, ent, fmt.Sprintf("the file sets broker.id=%d, --config names broker %d: it is another broker's file", bid, id),
				fmt.Sprintf("give broker %d's own server.properties as --config %d=FILE", id, id))
		case err != nil || bid < 0:
			s.add(findingOf(CodeBrokerIDGenerated, ent, fmt.Sprintf("the file sets no broker.id %d (broker.id=%q): an auto-generated broker id cannot migrate (KAFKA-17042)", id, p[keyBrokerID]),
				"ID", strconv.Itoa(int(id))))
		}
		if a := p[keyAuthorizer]; a == migrate.StandardAuthorizer {
			s.check(CodeAuthorizer, ent, "a ZooKeeper-mode broker cannot run StandardAuthorizer: it reads ACLs from ZooKeeper until it becomes a KRaft broker", "keep AclAuthorizer until KRaftPostMigration; kmeta switches it then")
		}
		ibls[interBrokerListener(p)] = append(ibls[interBrokerListener(p)], strconv.Itoa(int(id)))
		if l := interBrokerListener(p); p["listeners"] != "" && !strings.Contains(","+p["listeners"], ","+l+"://") {
			s.check(CodeInterBroker, ent, fmt.Sprintf("the inter-broker listener %s is not among its listeners %s", l, p["listeners"]), "set inter.broker.listener.name to one of its listeners")
		}
	}
	if len(ibls) > 1 {
		var parts []string
		for _, l := range slices.Sorted(maps.Keys(ibls)) {
			parts = append(parts, l+" on "+strings.Join(ibls[l], ","))
		}
		s.check(CodeInterBroker, "brokers", "the brokers' inter-broker listeners differ ("+strings.Join(parts, "; ")+"): the controllers reach every ZooKeeper-mode broker on one listener name (KAFKA-16468)",
			"set one inter.broker.listener.name on every broker and roll them first")
	}
}

// roll is KRaftPostMigration (brokers) and PreKRaft (controllers): each
// node of role gets the phase's file, and is restarted in order.
func (s *stager) roll(role string) error {
	target := s.o.Phase
	want := target.Profile(role)
	var ids []int32
	if role == RoleBroker {
		ids = s.brokerIDs()
		for _, b := range s.st.Brokers {
			if b.Fenced {
				s.check(CodeBrokerFenced, fmt.Sprintf("broker %d", b.ID), "fenced: it has not caught up with the metadata log", "wait until it is unfenced (kmeta migrate status)")
			}
		}
		if s.st.Agree != nil && !*s.st.Agree {
			s.check(CodeZKBehind, "zookeeper", "ZooKeeper and KRaft differ now; moving the brokers makes a rollback depend on ZooKeeper being complete (the fix lists the differences)", s.in.verifyCommand())
		}
	} else {
		for _, c := range s.st.Controllers {
			ids = append(ids, c.ID)
		}
		for _, b := range s.st.Brokers {
			if b.InZooKeeper || b.KRaft == "migrating" {
				s.check(CodeBrokerStillZK, fmt.Sprintf("broker %d", b.ID),
					"still a ZooKeeper-mode broker: finalizing strands it (no rollback after this phase; KAFKA-20960)",
					"stage KRaftPostMigration and restart it as a KRaft broker first")
			}
		}
	}
	if len(ids) == 0 {
		s.check(CodeNodeConfigMissing, role+"s", "no "+role+" is known (give --config for each)", "")
	}
	leader := int32(-1)
	if k := s.in.KRaft; k != nil && k.Quorum != nil {
		leader = k.Quorum.LeaderID
	}
	// Brokers: the KRaft controller leads, so a controller's log dir
	// (every registration, the ISRs) orders and gates the roll when
	// given; controllers: followers first, the leader last, gated by
	// the live quorum.
	view := s.in.ZK
	if k := s.in.KRaft; k != nil && (role == RoleController || k.Reports(model.FieldTopics)) {
		view = k
	}
	order := rollOrder(view, ids, leader)
	src := s.in.Gates.controllerSource()
	if role == RoleBroker {
		src = s.in.Gates.brokerSource(true, func(f model.Finding) { s.r.Checks = append(s.r.Checks, f) })
	}
	for _, id := range order {
		n := s.needFile(id, role)
		if n == nil {
			continue
		}
		var props map[string]string
		switch want {
		case BrokerKRaft:
			if n.Role() != RoleBroker {
				s.check(CodeBrokerConfig, fmt.Sprintf("broker %d", id), "--config is not a broker's file", "")
				continue
			}
			var err error
			if props, err = kraftBroker(n.Props, quorum{}); err != nil {
				s.check(CodeBrokerConfig, fmt.Sprintf("broker %d", id), err.Error(), "")
				continue
			}
		case ControllerKRaft:
			if n.Role() != RoleController {
				s.check(CodeControllerConfig, fmt.Sprintf("controller %d", id), "--config is not a controller's file", "")
				continue
			}
			props = kraftController(n.Props)
		}
		if want == BrokerKRaft {
			s.dropTokenSecret(props, fmt.Sprintf("broker %d", id), s.kraftLevel())
		}
		ch := Diff(n.Props, props)
		s.r.Nodes = append(s.r.Nodes, NodePlan{ID: id, Role: role, Profile: want, Config: ConfigName(id), Changes: ch, Props: props, From: n.Path})
		if len(ch) == 0 {
			continue
		}
		what := fmt.Sprintf("restart %s %d on %s (%s)", role, id, ConfigName(id), want)
		if id == leader {
			what += "; it leads the quorum, so it goes last"
		}
		s.r.Steps = append(s.r.Steps, gated(Step{Action: ActRestart, Node: nodeRef(id), Config: ConfigName(id), What: what}, src)...)
	}
	s.r.Steps = append(s.r.Steps, Step{Action: ActWait, What: Phases[target].ReachedText + " (kmeta migrate status says " + target.String() + ")"})
	s.checkListener()
	return nil
}

// letGo is KRaft: once no controller runs with the flag, ZooKeeper is
// let go: its migration state saved and deleted (a ZooKeeper that still
// names a KRaft controller in /controller, and a /migration, mislead any
// tool or broker pointed at it later), then the ensemble may stop.
func (s *stager) letGo() {
	for _, c := range s.st.Controllers {
		if c.Migration == "yes" {
			s.check(CodeNotReached, fmt.Sprintf("controller %d", c.ID), "still runs with the migration flag: stage PreKRaft and restart it first", "")
		}
	}
	if s.st.Phase == PreKRaft && s.in.KRaft != nil && s.in.KRaft.Reports(model.FieldMigration) && (s.in.KRaft.Migration == nil || s.in.KRaft.Migration.State != model.MigrationPostMigration) {
		s.check(CodeNotReached, "phase KRaft", "ZkMigrationState is not POST_MIGRATION yet: no controller without the flag has led the quorum", "restart the controllers on stage PreKRaft's files")
	}
	for _, id := range slices.Sorted(maps.Keys(s.in.Nodes)) {
		if f, ok := zookeeperSettingsLeft(id, s.in.Nodes[id]); ok {
			s.r.Checks = append(s.r.Checks, f)
		}
	}
	// What else uses the ensemble: status's findings carry zk
	// dependents' (a dependent refuses the phase); what it could not
	// check is said before the steps.
	s.r.Checks = append(s.r.Checks, s.in.ZKNotChecked...)
	zk := zkCLIOf(s.in)
	for _, z := range []struct {
		args []string
		what string
	}{
		{[]string{"get", "/migration"}, "save /migration's content (the record of the migration)"},
		{[]string{"delete", "/migration"}, "delete /migration"},
		{[]string{"delete", "/controller"}, "delete /controller, the KRaft controller's claim: no controller uses this ZooKeeper any more"},
	} {
		s.r.Steps = append(s.r.Steps, zk.step(z.what, z.args...))
	}
	s.r.Steps = append(s.r.Steps, Step{Action: ActWait, What: "kmeta migrate status says KRaft; then the ZooKeeper ensemble may be stopped (no node of this cluster uses it)"})
}

// WriteOptions say where a staged phase's files go.
type WriteOptions struct {
	// Made names what wrote the files, in their first comment line
	// ("migrate stage KRaftMigration", "migrate rollback from ...").
	Made   string
	Out    string
	Force  bool
	DryRun bool
	Source string
}

// Write writes a ready stage's files into o.Out: each node's new
// server.properties (mode 0600: it holds the node's passwords) and its
// diff, and for KRaftMigration the controllers' formatted metadata dirs.
// Every file is written atomically; an existing file with other content
// is refused unless Force.
func (r *StageResult) Write(o WriteOptions) ([]migrate.FileResult, error) {
	if !r.Ready {
		return nil, fmt.Errorf("%w: %s is not ready", ErrRefused, r.Phase)
	}
	if o.Out == "" {
		return nil, fmt.Errorf("%w: no output dir (--out)", ErrBadInput)
	}
	if o.Made == "" {
		o.Made = "migrate stage " + r.Phase.String()
	}
	if !o.DryRun {
		// Every target is checked before the first is written: a refusal
		// (a file that differs, the input itself) leaves --out as it was,
		// not half the nodes' files written.
		dry := o
		dry.DryRun = true
		if _, err := r.write(dry); err != nil {
			return nil, err
		}
		if err := metalog.MkdirAll(o.Out, 0o755); err != nil {
			return nil, err
		}
	}
	return r.write(o)
}

// write writes (or, dry, checks) every file of the stage.
func (r *StageResult) write(o WriteOptions) ([]migrate.FileResult, error) {
	var out []migrate.FileResult
	for _, n := range r.Nodes {
		path := filepath.Join(o.Out, n.Config)
		if n.From != "" {
			if err := migrate.CheckConfigOut(path, n.From); err != nil {
				return out, err
			}
		}
		fr, err := migrate.WriteConfig(path, javaprops.Format(fmt.Sprintf("%s server.properties of %s %d, written by kmeta %s", n.Profile, n.Role, n.ID, o.Made), n.Props), o.Force, o.DryRun)
		if err != nil {
			return out, err
		}
		out = append(out, fr)
		if len(n.Changes) == 0 {
			// A file restored as it was (rollback) has no diff to show.
			continue
		}
		diff := FormatDiff(n.Changes, false)
		dr, err := migrate.WriteConfig(path+".diff", []byte(diff), o.Force, o.DryRun)
		if err != nil {
			return out, err
		}
		dr.Kind = "diff"
		out = append(out, dr)
	}
	if f := r.Format; f != nil {
		frs, err := migrate.FormatControllers(migrate.FormatOptions{Out: o.Out, Controllers: f.Controllers, ClusterID: f.ClusterID,
			Level: f.level, Catalog: features.Catalog39(), Source: o.Source, Force: o.Force, DryRun: o.DryRun})
		out = append(out, frs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// FormatDiff renders changes one per line ("+key=value", "-key=value",
// "~key=old -> new"); sensitive values are shown as their short hash
// unless show (--show-secrets): the diff is a preview, and the file
// itself holds the values.
func FormatDiff(cs []Change, show bool) string {
	var b strings.Builder
	val := func(k, v string) string {
		if !show && model.IsSecretSetting(k) && !model.IsRedacted(v) {
			return model.RedactedValue(v)
		}
		return v
	}
	for _, c := range cs {
		switch c.Op {
		case "add":
			fmt.Fprintf(&b, "+%s=%s\n", c.Key, val(c.Key, c.To))
		case "remove":
			fmt.Fprintf(&b, "-%s=%s\n", c.Key, val(c.Key, c.From))
		default:
			fmt.Fprintf(&b, "~%s=%s -> %s\n", c.Key, val(c.Key, c.From), val(c.Key, c.To))
		}
	}
	return b.String()
}
