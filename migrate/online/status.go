package online

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/roll"
	"github.com/kmeta/kmeta/verify"
)

// Input is what kmeta knows of a cluster mid-migration: ZooKeeper always,
// the KRaft side once controllers exist, and the nodes' files when the
// operator gives them.
type Input struct {
	ZK       *model.Image
	ZKSource string
	// ZKTLS and ZKDigest say how kmeta read a live ZKSource: over TLS,
	// with digest credentials (--zk-auth). The ZooKeeper commands printed
	// for it reach it so too (zkCLIOf).
	ZKTLS, ZKDigest bool
	// VerifySources name ZooKeeper and KRaft to kmeta verify as this
	// command read them: --zk SOURCE, --kraft SOURCE (or
	// --bootstrap-controller) and the flags set that reach them (TLS,
	// client settings, timeouts). The verify line a finding prints when
	// the two differ is made of them (verifyCommand). nil: --zk ZKSource
	// --kraft KRaftSource.
	VerifySources []string
	// ZKDeleteSchemes are the schemes whose logins may delete the
	// chroot's children (/controller, /migration), read from its ACL
	// (zkread.DeleteSchemes); nil when not read. Where no node's file
	// says how to reach ZooKeeper, zkCLIOf logs in as they require.
	ZKDeleteSchemes []string
	// KRaft is a controller's metadata log (everything) or a live quorum
	// asked through --bootstrap-controller (no ZkMigrationState, no
	// migrating flag on brokers: Image.NotReported says so); nil when not
	// given.
	KRaft       *model.Image
	KRaftSource string
	// Nodes are the nodes' server.properties by id; may be empty.
	Nodes map[int32]*Node
	// Migrated is what a LogWatch saw in the controllers' log (nil from
	// a live quorum, which cannot report it).
	Migrated *Migrated
	// Stores reads the TLS stores the nodes' files name, for the checks
	// of the controller listener (nil: not read).
	Stores StoreReader
	// Election is the controller's quorum-state (from --kraft kraft:DIR;
	// nil otherwise).
	Election *Election
	// KRaftUnanswered, when set, says why the live controllers
	// (--bootstrap-controller) gave no view (KRaft is nil then).
	KRaftUnanswered string
	// ZKDependents are zk dependents' findings on the ensemble (package
	// zkdeps: what else still uses it), ZKNotChecked what it could not
	// check; the command reads them once the cluster is in PreKRaft.
	// From PreKRaft on, status reports ZKDependents (a dependent keeps
	// the phase from its end: the ensemble cannot be let go), and stage
	// KRaft is refused on one and warns with ZKNotChecked.
	ZKDependents []model.Finding
	ZKNotChecked []model.Finding
	// Gates, when set, frame every restart stage and rollback print with
	// kmeta roll check and kmeta roll wait.
	Gates *Gates
}

// BrokerState is one broker as both sides see it.
type BrokerState struct {
	ID int32 `json:"id"`
	// InZooKeeper: registered in /brokers/ids (a ZooKeeper-mode broker
	// that is up).
	InZooKeeper bool `json:"inZooKeeper"`
	// KRaft: "migrating" (registered with the controller as a
	// ZooKeeper-mode broker in migration mode), "kraft" (a KRaft broker),
	// "absent", or "not-reported" (no KRaft source given).
	KRaft  string `json:"kraft"`
	Fenced bool   `json:"fenced,omitempty"`
	// Config is the profile of its file, when given.
	Config Profile `json:"config,omitempty"`
	// Cause says why it is not where the phase needs it, from its file.
	Cause string `json:"cause,omitempty"`
}

// ControllerState is one KRaft controller.
type ControllerState struct {
	ID int32 `json:"id"`
	// Migration: the controller runs with the migration flag
	// (ZkMigrationReady in its registration or ApiVersions answer):
	// "yes", "no" or "not-reported".
	Migration string  `json:"migration"`
	Voter     bool    `json:"voter"`
	Config    Profile `json:"config,omitempty"`
}

// ZooKeeperSide is the migration state ZooKeeper holds.
type ZooKeeperSide struct {
	ClusterID string `json:"clusterId"`
	// ControllerID is /controller's broker id (-1: none); for a KRaft
	// controller, KRaftControllerEpoch is its epoch (-1: a broker).
	ControllerID         int32 `json:"controllerId"`
	KRaftControllerEpoch int32 `json:"kraftControllerEpoch"`
	ControllerEpoch      int32 `json:"controllerEpoch"`
	// Migration is /migration (nil: absent).
	Migration *model.Migration `json:"migration,omitempty"`
	Brokers   []int32          `json:"brokers"`
}

// KRaftSide is the migration state the controllers hold.
type KRaftSide struct {
	ClusterID string `json:"clusterId"`
	// State is ZkMigrationState ("not-reported" from a live quorum,
	// "none-recorded" when the log holds no ZkMigrationStateRecord).
	State           string            `json:"state"`
	MetadataVersion string            `json:"metadataVersion"`
	Controllers     []ControllerState `json:"controllers"`
	// KRaftVersion is 1 for a dynamic quorum (-1: unknown).
	KRaftVersion int16 `json:"kraftVersion"`
}

// Status is where the migration stands.
type Status struct {
	Phase Phase `json:"phase"`
	// Healthy: the cluster is where its phase wants it, nothing waited
	// for, nothing wrong.
	Healthy     bool              `json:"healthy"`
	ZooKeeper   ZooKeeperSide     `json:"zookeeper"`
	KRaft       *KRaftSide        `json:"kraft,omitempty"`
	Brokers     []BrokerState     `json:"brokers"`
	Controllers []ControllerState `json:"controllers"`
	// WaitingFor says what the phase still waits for, and why.
	WaitingFor []string        `json:"waitingFor"`
	Findings   []model.Finding `json:"findings"`
	// Agree is verify's verdict of ZooKeeper against KRaft, in the phases
	// that dual-write (nil: not compared): rollback is safe while it
	// holds. Differences counts verify's differences.
	Agree       *bool `json:"agree"`
	Differences int   `json:"differences,omitempty"`
	// Migrated says when each ZkMigrationState was written and how many
	// records the copy wrote (from a controller's log only).
	Migrated *Migrated `json:"migrated,omitempty"`
	// NextPhase is the phase stage can take the cluster to from here.
	NextPhase string `json:"nextPhase,omitempty"`
}

// Finding codes of status, stage and rollback (class "migration").
const (
	Class = "migration"

	CodeOutOfOrder          = "stage-out-of-order"
	CodeCombinedNode        = "combined-mode-node"
	CodeBrokerIDGenerated   = "broker-id-generated"
	CodeIBPTooOld           = "ibp-below-migration"
	CodeIBPUnset            = "ibp-not-set"
	CodeIBPDiffers          = "ibp-differs-between-brokers"
	CodeIBPMismatch         = "ibp-mismatch" // verify's: a broker's IBP against metadata.version
	CodeJBODLevel           = "jbod-needs-newer-ibp"
	CodeSCRAMLevel          = "scram-needs-newer-ibp"
	CodeAuthorizer          = "authorizer-wrong-phase"
	CodeMigrationZNode      = "stale-migration-znode" // verify's
	CodeMigrationZNodeNull  = "migration-znode-null"
	CodeControllerNoMigrate = "controller-formatted-without-migration"
	CodeQuorumMode          = "quorum-mode-mismatch"
	CodeInterBroker         = "inter-broker-listener-differs"
	CodeBrokerNotRegistered = "broker-not-registered"
	CodeBrokerNoFlag        = "broker-migration-flag-missing"
	CodeBrokerNoQuorum      = "broker-controller-settings-missing"
	CodeNodeConfigMissing   = "node-config-missing"
	CodeTopicWithoutID      = "zk-topic-without-id"            // verify's
	CodeUnregisteredReplica = "replica-on-unregistered-broker" // verify's
	CodeBrokerStillZK       = "broker-still-zookeeper"
	CodeClusterIDMismatch   = "cluster-id-mismatch"
	CodeZKBehind            = "zookeeper-disagrees"
	CodeNoRollback          = "no-rollback"
	CodeKRaftNeeded         = "kraft-source-needed"
	CodeControllerIDTaken   = "controller-id-conflict" // migrate plan's
	CodeControllerConfig    = "controller-config-wrong"
	CodeBrokerConfig        = "broker-config-wrong"
	CodeNotReached          = "phase-not-reached"
	CodeTokensLost          = "tokens-unsupported" // migrate plan's
	CodeQuotaMigration      = "quota-migration-bug"
	CodeNoClusterID         = "no-cluster-id" // migrate plan's
	CodeNoBrokers           = "empty-source"  // migrate plan's
	CodeBrokerFenced        = "broker-fenced" // lint's
)

// finding is a finding of code's check: its severity is the check's (a
// call site that needs the check's relaxed or escalated severity says so
// with relaxed or escalated, never with a severity of its own).
func finding(code, entity, msg, fix string) model.Finding {
	return model.Finding{Code: code, Severity: checkOf(code).Severity, Class: Class, Entity: entity, Message: msg, Fix: fix}
}

// findingOf is a finding of code whose fix is its check's template,
// filled with kv (NAME, value pairs; none: the template as it is): the
// call site names the code and says what it found, the table says what
// to do.
func findingOf(code, entity, msg string, kv ...string) model.Finding {
	return finding(code, entity, msg, checkOf(code).FillFix(kv...))
}

// relaxed is f at its check's relaxed severity (RelaxedWhen says when).
func relaxed(f model.Finding) model.Finding { return checkOf(f.Code).Relax(f) }

// escalated is f at its check's escalated severity (EscalatedWhen says
// when).
func escalated(f model.Finding) model.Finding { return checkOf(f.Code).Escalate(f) }

// observer holds what Observe derives once.
type observer struct {
	in  Input
	st  *Status
	cat *features.Catalog
	// kraftFull: the KRaft side reports migration state and broker flags
	// (a log dir); a live quorum does not.
	kraftFull bool
	state     model.ZkMigrationState
	hasState  bool
}

// Observe works out the phase from what both sides hold, each broker's
// and controller's state, what the phase still waits for and why, and,
// while dual-writing, whether ZooKeeper and KRaft agree.
func Observe(in Input) (*Status, error) {
	if in.ZK == nil {
		return nil, fmt.Errorf("%w: no ZooKeeper view", ErrBadInput)
	}
	o := &observer{in: in, st: &Status{WaitingFor: []string{}, Findings: []model.Finding{}, Brokers: []BrokerState{}, Controllers: []ControllerState{}},
		cat: features.Catalog39()}
	o.st.Migrated = in.Migrated
	o.zookeeperSide()
	o.kraftSide()
	o.phase()
	o.brokers()
	o.controllers()
	o.nodeChecks()
	o.secureChecks()
	o.compare()
	if o.st.Phase >= PreKRaft {
		o.st.Findings = append(o.st.Findings, in.ZKDependents...)
	}
	st := o.st
	model.SortFindings(st.Findings)
	// One fact found by two checks (a broker's IBP, from its
	// registration and from its file) is one finding.
	st.Findings = slices.CompactFunc(st.Findings, func(a, b model.Finding) bool { return a.Code == b.Code && a.Entity == b.Entity })
	st.Healthy = len(st.WaitingFor) == 0 && !slices.ContainsFunc(st.Findings, func(f model.Finding) bool {
		return f.Severity == model.SevError || f.Severity == model.SevCritical || f.Severity == model.SevWarning
	})
	if st.Phase < KRaft {
		st.NextPhase = (st.Phase + 1).String()
	}
	return st, nil
}

func (o *observer) add(f model.Finding) { o.st.Findings = append(o.st.Findings, f) }
func (o *observer) wait(format string, a ...any) {
	o.st.WaitingFor = append(o.st.WaitingFor, fmt.Sprintf(format, a...))
}

func (o *observer) zookeeperSide() {
	zk := o.in.ZK
	side := ZooKeeperSide{ClusterID: zk.ClusterID, ControllerID: -1, KRaftControllerEpoch: -1, Brokers: []int32{}}
	if z := zk.ZK; z != nil {
		side.ControllerID, side.KRaftControllerEpoch, side.ControllerEpoch = z.ControllerID, z.KRaftControllerEpoch, z.ControllerEpoch
	}
	if m := zk.Migration; m != nil && m.HasZNode {
		side.Migration = m
	}
	side.Brokers = slices.Sorted(maps.Keys(zk.Brokers))
	o.st.ZooKeeper = side
	if zk.ClusterID == "" {
		// Kafka's first broker writes it: without it the chroot is wrong,
		// or the tree is damaged, and no phase can be told healthy.
		o.add(finding(CodeNoClusterID, "/cluster/id",
			"ZooKeeper has no /cluster/id: Kafka's first broker writes it, so this is not a Kafka cluster's tree (a wrong chroot?) or the tree is damaged",
			"check the chroot of --zk against the brokers' zookeeper.connect"))
	}
	switch c := side.ControllerID; {
	case c < -1 || c == -1 && side.KRaftControllerEpoch >= 0:
		ch := checks.Must(CodeControllerZNodeInvalid)
		o.add(ch.Finding("znode /controller", fmt.Sprintf("/controller names node %d: no broker or controller has a negative id", c),
			ch.FillFix("ZK_GET", o.zkCommand("get", "/controller"))))
	case c >= 0 && side.KRaftControllerEpoch < 0 && zk.Brokers[c] == nil:
		o.add(checks.Must(CodeControllerUnknown).Findingf("znode /controller",
			"/controller names ZooKeeper-mode broker %d, which /brokers/ids does not hold (registered: %s)", c, idList(side.Brokers)))
	}
}

// idList prints ids as 1,2,3 ("none" when empty).
func idList(ids []int32) string {
	if len(ids) == 0 {
		return "none"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}

func (o *observer) kraftSide() {
	k := o.in.KRaft
	if k == nil {
		return
	}
	o.kraftFull = k.Reports(model.FieldMigration)
	side := &KRaftSide{ClusterID: k.ClusterID, KRaftVersion: -1, Controllers: []ControllerState{}}
	switch {
	case !o.kraftFull:
		side.State = "not-reported"
	case k.Migration != nil && k.Migration.HasState:
		o.state, o.hasState = k.Migration.State, true
		side.State = k.Migration.State.String()
	default:
		side.State = "none-recorded"
	}
	if mv := k.MetadataVersion(); mv > 0 {
		side.MetadataVersion = levelName(o.cat, mv)
	}
	if q := k.Quorum; q != nil {
		side.KRaftVersion = q.KRaftVersion
	}
	o.st.KRaft = side
	if !k.Reports(model.FieldBrokers) {
		// A live quorum asked through its controllers: said once here,
		// not as a reader's warning on every call.
		o.add(relaxed(finding(CodeKRaftNeeded, "kraft",
			"the live controllers (--bootstrap-controller) answer for the quorum, the features and their migration flags only: no ZkMigrationState, no broker registrations, no topics or configs, so ZooKeeper is not compared with KRaft (whether a rollback now loses anything)",
			"add --kraft kraft:METADATA_LOG_DIR of a controller (read-only) to see them")))
	}
	if zs := o.st.ZooKeeper; zs.ControllerID >= 0 && zs.KRaftControllerEpoch >= 0 && k.Quorum != nil && len(k.Quorum.Voters) > 0 &&
		!slices.ContainsFunc(k.Quorum.Voters, func(v model.Voter) bool { return v.ID == zs.ControllerID }) {
		o.add(checks.Must(CodeControllerUnknown).Findingf("znode /controller",
			"/controller names KRaft controller %d, which is not a voter of the quorum (%s)", zs.ControllerID, votersText(k.Quorum.Voters)))
	}
	if o.in.ZK.ClusterID != "" && k.ClusterID != "" && k.ClusterID != o.in.ZK.ClusterID {
		o.add(findingOf(CodeClusterIDMismatch, "cluster",
			fmt.Sprintf("the controllers' cluster id %s is not ZooKeeper's /cluster/id %s: no broker of this cluster can register with them", k.ClusterID, o.in.ZK.ClusterID)))
	}
}

func votersText(vs []model.Voter) string {
	ids := make([]int32, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	slices.Sort(ids)
	return "voters " + idList(ids)
}

func levelName(cat *features.Catalog, mv int16) string {
	if l, ok := cat.ByLevel(mv); ok {
		return l.Name
	}
	return fmt.Sprintf("level %d", mv)
}

// controllerFlags reports the controllers' migration flags: registered
// controllers from a log (MV 3.7+) or a live quorum's ApiVersions
// answers; yes/no counts, and whether any is known.
func (o *observer) controllerFlags() (yes, no int, known bool) {
	k := o.in.KRaft
	if k == nil || !k.Reports(model.FieldControllerZkMigrationReady) || len(k.Controllers) == 0 {
		// Fall back on the controllers' files.
		for _, n := range o.in.Nodes {
			switch n.Profile() {
			case ControllerMigrating:
				yes++
				known = true
			case ControllerKRaft:
				no++
				known = true
			}
		}
		return
	}
	for _, c := range k.Controllers {
		if c.ZkMigrationReady {
			yes++
		} else {
			no++
		}
	}
	return yes, no, true
}

// zkBrokersLeft counts ZooKeeper-mode brokers still up: in /brokers/ids,
// or registered with KRaft as migrating.
func (o *observer) zkBrokersLeft() int {
	n := len(o.in.ZK.Brokers)
	if k := o.in.KRaft; k != nil && k.Reports(model.FieldBrokerMigrating) {
		for id, b := range k.Brokers {
			if b.IsMigratingZkBroker && o.in.ZK.Brokers[id] == nil {
				n++
			}
		}
	}
	return n
}

// facts gathers what decides the phase. The KRaft side's
// ZkMigrationState is the ground truth where it is reported; ZooKeeper's
// /controller and /migration, the brokers' registrations and the
// controllers' migration flags tell the rest (and all of it from a live
// quorum, which does not report the state).
func (o *observer) facts() Facts {
	zk := o.st.ZooKeeper
	f := Facts{KRaftView: o.in.KRaft != nil, StateReported: o.kraftFull, HasState: o.hasState, State: o.state,
		KRaftClaimed: zk.KRaftControllerEpoch >= 0, ZKBrokers: len(o.in.ZK.Brokers), ZKBrokersLeft: o.zkBrokersLeft()}
	if m := zk.Migration; m != nil {
		f.MigrationZNode, f.MigrationNull = true, m.ZNodeNull
		f.Migrated = !m.ZNodeNull && m.KRaftMetadataOffset >= 0
	}
	f.ControllersMigrating, f.ControllersWithout, f.FlagsKnown = o.controllerFlags()
	return f
}

// phase decides the phase by the rows of Phases, and says what the
// facts show beside it: controllers that can never take the cluster
// over, a log that holds only the bootstrap, a phase ZooKeeper alone
// cannot tell from later ones, a /migration left behind.
func (o *observer) phase() {
	st, zk := o.st, o.st.ZooKeeper
	f := o.facts()
	st.Phase = phaseOf(Phases, f)
	switch {
	case f.in(model.MigrationNone):
		o.add(findingOf(CodeControllerNoMigrate, "controllers",
			"the controllers' log records ZkMigrationState NONE: they were formatted and started without zookeeper.metadata.migration.enable, so they initialised a new KRaft cluster and can never take this one over"))
	case f.StateReported && !f.HasState:
		// A log without ZkMigrationStateRecord: formatted, never started
		// (bootstrap only), or a pre-3.4 KRaft cluster.
		if o.in.KRaft.MetadataVersion() == 0 || len(o.in.KRaft.Brokers)+len(o.in.KRaft.Controllers) == 0 {
			o.wait("the controllers to start: their metadata log holds only the bootstrap records")
		}
	case f.controllersWithoutMigration() && f.ZKBrokers > 0:
		o.add(findingOf(CodeControllerNoMigrate, "controllers",
			"the controllers answer without ZkMigrationReady (no zookeeper.metadata.migration.enable) while ZooKeeper-mode brokers are up: they cannot take this cluster over"))
	case st.Phase == KRaftPostMigration && !f.KRaftView:
		o.add(relaxed(finding(CodeKRaftNeeded, "phase",
			"ZooKeeper alone cannot tell KRaftPostMigration from PreKRaft or KRaft: no broker is left in /brokers/ids",
			"give the controllers: --bootstrap-controller HOST:PORT or --kraft kraft:METADATA_LOG_DIR")))
	}
	// /migration at a KRaft offset while a broker is ZooKeeper's
	// controller: a rolled-back attempt's leftover (a retry would skip
	// the copy and can wipe ZooKeeper, KAFKA-17146).
	if f.MigrationZNode && !f.KRaftClaimed && st.Phase <= KRaftMigration {
		if f.MigrationNull {
			o.add(findingOf(CodeMigrationZNodeNull, "znode /migration",
				"/migration exists without data (zookeeper-security-migration leaves it so, KAFKA-19480): the migration hangs on it",
				"ZK_DELETE", o.zkCommand("delete", "/migration")))
		} else if f.Migrated {
			o.add(finding(CodeMigrationZNode, "znode /migration",
				fmt.Sprintf("/migration records a migration at KRaft offset %d (controller %d, epoch %d) but no KRaft controller holds /controller: it is left from an earlier attempt, and a new migration would skip the copy and can wipe ZooKeeper (KAFKA-17146)",
					zk.Migration.KRaftMetadataOffset, zk.Migration.KRaftControllerID, zk.Migration.KRaftControllerEpoch),
				"save it (`"+o.zkCommand("get", "/migration")+"`), then `"+o.zkCommand("delete", "/migration")+"`"))
		}
	}
}

// zkCommand is a command of ZooKeeper's CLI as Kafka ships it, against
// the cluster's ensemble (zkCLIOf).
func (o *observer) zkCommand(args ...string) string {
	return zkCLIOf(o.in).Line(args...)
}

func (o *observer) brokers() {
	ids := map[int32]bool{}
	for id := range o.in.ZK.Brokers {
		ids[id] = true
	}
	k := o.in.KRaft
	if k != nil {
		for id := range k.Brokers {
			ids[id] = true
		}
	}
	for id, n := range o.in.Nodes {
		if n.Role() == RoleBroker {
			ids[id] = true
		}
	}
	phase := o.st.Phase
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		b := BrokerState{ID: id, InZooKeeper: o.in.ZK.Brokers[id] != nil, KRaft: "not-reported"}
		if n := o.in.Nodes[id]; n != nil {
			b.Config = n.Profile()
		}
		if k != nil && k.Reports(model.FieldBrokers) {
			r := k.Brokers[id]
			switch {
			case r == nil:
				b.KRaft = "absent"
			case k.Reports(model.FieldBrokerMigrating) && r.IsMigratingZkBroker, !k.Reports(model.FieldBrokerMigrating) && b.InZooKeeper:
				b.KRaft = "migrating"
			default:
				b.KRaft = "kraft"
			}
			if r != nil && k.Reports(model.FieldBrokerFenced) {
				b.Fenced = r.Fenced
			}
		}
		// The phase's broker profile says what a broker must be: a
		// migrating broker registers with the KRaft controller; a KRaft
		// broker is no longer in ZooKeeper.
		want := Phases[phase].Broker
		switch want {
		case BrokerMigrating:
			if k != nil && b.KRaft == "absent" {
				code, cause := o.notRegisteredCause(id)
				b.Cause = cause
				o.wait("broker %d to register with the KRaft controller as a migrating ZooKeeper broker: %s", id, b.Cause)
				o.add(relaxed(finding(code, fmt.Sprintf("broker %d", id),
					"not registered with the KRaft controller: "+b.Cause, o.registerFix(id))))
			}
		case BrokerKRaft:
			if b.InZooKeeper || b.KRaft == "migrating" {
				b.Cause = "still a ZooKeeper-mode broker"
				f := findingOf(CodeBrokerStillZK, fmt.Sprintf("broker %d", id),
					fmt.Sprintf("broker %d is still a ZooKeeper-mode broker in %s", id, phase))
				if Phases[phase].RollbackTo >= 0 {
					// While a rollback is still possible (before the
					// controllers are finalized); finalizing with a
					// ZooKeeper-mode broker left strands it: it can no
					// longer reach a controller that speaks to it
					// (KAFKA-20960).
					f = relaxed(f)
				}
				o.add(f)
			} else if k != nil && b.KRaft == "absent" {
				b.Cause = "not registered with the KRaft controller"
				o.wait("broker %d to register as a KRaft broker", id)
			}
		}
		if b.Fenced {
			o.wait("broker %d to be unfenced (it is registered but has not caught up with the metadata log)", id)
		}
		if b.Config != "" && want != Absent && b.Config != want && phase != ZooKeeper {
			// A file that is not the phase's: the roll is not done, or
			// was done with another file.
			if !(phase == KRaftMigration && b.Config == BrokerZooKeeper) {
				o.add(relaxed(finding(CodeBrokerConfig, fmt.Sprintf("broker %d", id),
					fmt.Sprintf("its file is a %s file; %s wants a %s file", b.Config, phase, want), "")))
			}
		}
		o.st.Brokers = append(o.st.Brokers, b)
	}
	// KRaftMigration always waits: for the registrations, then the copy.
	if phase == KRaftMigration && len(o.st.WaitingFor) == 0 {
		switch {
		case k == nil:
			o.wait("every broker to register with the KRaft controllers (give --kraft or --bootstrap-controller to see which have)")
		case !k.Reports(model.FieldBrokers):
			o.wait("every broker to register and the controller to copy the metadata (the live controllers do not report broker registrations; --kraft kraft:DIR of a controller does)")
		default:
			o.wait("the controller to copy the metadata (every broker is registered; it logs \"Completed migration of metadata from ZooKeeper to KRaft\")")
		}
	}
}

// notRegisteredCause reads why a broker did not register from its file
// (the causes of field notes §1: not restarted, the migration flag or
// the controller settings missing, an IBP the controller refuses,
// another quorum), as a finding code and a sentence.
func (o *observer) notRegisteredCause(id int32) (string, string) {
	n := o.in.Nodes[id]
	if n == nil {
		if o.in.ZK.Brokers[id] == nil {
			return CodeBrokerNotRegistered, "it is not up (not in /brokers/ids) and no --config was given for it"
		}
		return CodeBrokerNotRegistered, "not restarted in migration mode yet? (give its --config to know)"
	}
	p := n.Props
	if !isTrue(p[keyMigration]) {
		if p[keyListenerNames] != "" {
			return CodeBrokerNoFlag, "its file sets controller.listener.names without zookeeper.metadata.migration.enable=true: Kafka refuses to start a ZooKeeper-mode broker so (\"controller.listener.names must be empty when not running in KRaft mode\")"
		}
		return CodeBrokerNoFlag, "its file has no zookeeper.metadata.migration.enable=true: it was not restarted into migration mode"
	}
	if p[keyVoters] == "" && p[keyBootstrap] == "" || p[keyListenerNames] == "" {
		return CodeBrokerNoQuorum, "its file lacks the controller settings (controller.quorum.voters, controller.listener.names)"
	}
	if k := o.in.KRaft; k != nil && k.MetadataVersion() > 0 {
		if p[keyIBP] == "" {
			return CodeIBPMismatch, "its file does not pin inter.broker.protocol.version to the controllers' metadata.version " + levelName(o.cat, k.MetadataVersion())
		}
		if l, err := o.cat.LevelFor(p[keyIBP]); err == nil && l.Level != k.MetadataVersion() {
			return CodeIBPMismatch, fmt.Sprintf("its inter.broker.protocol.version %s is not the controllers' metadata.version %s: the controller refuses its registration", p[keyIBP], levelName(o.cat, k.MetadataVersion()))
		}
	}
	if want := controllers.Voters(o.voters()); want != "" && p[keyVoters] != "" && !sameVoters(p[keyVoters], want) {
		return CodeBrokerNoQuorum, fmt.Sprintf("its controller.quorum.voters %s is not the quorum's %s", p[keyVoters], want)
	}
	if o.in.ZK.Brokers[id] == nil {
		return CodeBrokerNotRegistered, "its file is in migration mode but it is not up (not in /brokers/ids)"
	}
	return CodeBrokerNotRegistered, "its file is in migration mode: it has not been restarted since, or cannot reach the quorum from its host"
}

// voters are the controllers with their addresses: from the quorum's
// VotersRecord (a dynamic quorum), else from the files given (a static
// quorum's log names voter ids only): a controller's own, else a
// migrating or KRaft broker's controller.quorum.voters.
func (o *observer) voters() []controllers.Spec {
	if k := o.in.KRaft; k != nil && k.Quorum != nil {
		var out []controllers.Spec
		for _, v := range k.Quorum.Voters {
			if len(v.Endpoints) == 0 {
				out = nil
				break
			}
			out = append(out, controllers.Spec{ID: v.ID, Host: v.Endpoints[0].Host, Port: int(v.Endpoints[0].Port)})
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, role := range []string{RoleController, RoleBroker} {
		for _, id := range slices.Sorted(maps.Keys(o.in.Nodes)) {
			n := o.in.Nodes[id]
			if n.Role() != role || n.Props[keyVoters] == "" {
				continue
			}
			if cs, err := controllers.Parse(n.Props[keyVoters]); err == nil && len(cs) > 0 {
				return cs
			}
		}
	}
	return nil
}

// sameVoters compares two controller.quorum.voters values as sets.
func sameVoters(a, b string) bool {
	x, err1 := controllers.Parse(a)
	y, err2 := controllers.Parse(b)
	return err1 == nil && err2 == nil && controllers.Voters(x) == controllers.Voters(y)
}

func (o *observer) registerFix(id int32) string {
	return fmt.Sprintf("restart broker %d with the file `kmeta migrate stage KRaftMigration` writes for it (server-%d.properties)", id, id)
}

func (o *observer) controllers() {
	k := o.in.KRaft
	ids := map[int32]bool{}
	voters := map[int32]bool{}
	if k != nil {
		for id := range k.Controllers {
			ids[id] = true
		}
		if k.Quorum != nil {
			for _, v := range k.Quorum.Voters {
				ids[v.ID], voters[v.ID] = true, true
			}
		}
	}
	for id, n := range o.in.Nodes {
		if n.Role() == RoleController {
			ids[id] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		c := ControllerState{ID: id, Migration: "not-reported", Voter: voters[id]}
		if k != nil && k.Reports(model.FieldControllerZkMigrationReady) {
			if r := k.Controllers[id]; r != nil {
				c.Migration = map[bool]string{true: "yes", false: "no"}[r.ZkMigrationReady]
			}
		}
		if n := o.in.Nodes[id]; n != nil {
			c.Config = n.Profile()
		}
		o.st.Controllers = append(o.st.Controllers, c)
		if o.st.KRaft != nil {
			o.st.KRaft.Controllers = append(o.st.KRaft.Controllers, c)
		}
		if o.st.Phase == PreKRaft && c.Migration == "yes" {
			o.wait("controller %d to restart without the migration flag", id)
		}
	}
}

// nodeChecks are the checks of the given files that hold in any phase:
// combined nodes, and in the KRaft phases brokers left in ZooKeeper mode.
func (o *observer) nodeChecks() {
	for _, id := range slices.Sorted(maps.Keys(o.in.Nodes)) {
		n := o.in.Nodes[id]
		if n.Role() == RoleCombined {
			o.add(findingOf(CodeCombinedNode, fmt.Sprintf("node %d", id),
				"process.roles="+n.Props[keyRoles]+": Kafka's migration does not support nodes that are broker and controller at once (they fail with BROKER_ID_NOT_REGISTERED)"))
		}
	}
	if k := o.in.KRaft; k != nil && k.Quorum != nil && k.Reports(model.FieldQuorum) {
		for _, id := range slices.Sorted(maps.Keys(o.in.Nodes)) {
			p := o.in.Nodes[id].Props
			static, dynamic := p[keyVoters] != "", p[keyBootstrap] != "" && p[keyVoters] == ""
			switch {
			case k.Quorum.KRaftVersion >= 1 && static:
				o.add(finding(CodeQuorumMode, fmt.Sprintf("node %d", id),
					"the controllers were formatted as a dynamic quorum (kraft.version 1) but the file names static voters (controller.quorum.voters)",
					"use controller.quorum.bootstrap.servers, or format the controllers for a static quorum (kmeta migrate stage KRaftMigration does)"))
			case k.Quorum.KRaftVersion == 0 && dynamic:
				o.add(finding(CodeQuorumMode, fmt.Sprintf("node %d", id),
					"the controllers run a static quorum (kraft.version 0) but the file has only controller.quorum.bootstrap.servers: Kafka fails with \"Starting voters are VoterSet(voters={})\"",
					"set controller.quorum.voters to the controllers (ID@HOST:PORT,...), as the files kmeta migrate stage writes do"))
			}
		}
	}
	if k := o.in.KRaft; k != nil && o.hasState && o.st.Phase <= KRaftPostMigration {
		// A migrating broker's IBP is its only metadata.version: the
		// level must not move mid-migration.
		for _, id := range slices.Sorted(maps.Keys(o.in.Nodes)) {
			n := o.in.Nodes[id]
			if n.Profile() != BrokerMigrating || n.Props[keyIBP] == "" || k.MetadataVersion() == 0 {
				continue
			}
			if l, err := o.cat.LevelFor(n.Props[keyIBP]); err == nil && l.Level != k.MetadataVersion() {
				o.add(finding(CodeIBPMismatch, fmt.Sprintf("broker %d", id),
					fmt.Sprintf("inter.broker.protocol.version %s is not the controllers' metadata.version %s: the controller refuses the broker's registration (a migrating broker supports only its IBP), and metadata.version must not change mid-migration", n.Props[keyIBP], levelName(o.cat, k.MetadataVersion())),
					fmt.Sprintf("set inter.broker.protocol.version=%s in its file and restart it", levelName(o.cat, k.MetadataVersion()))))
			}
		}
	}
}

// compare runs verify while the controllers dual-write: ZooKeeper must
// hold what KRaft holds for a rollback to lose nothing.
func (o *observer) compare() {
	k := o.in.KRaft
	if k == nil || !Phases[o.st.Phase].DualWrites {
		return
	}
	if !k.Reports(model.FieldTopics) {
		// A live quorum asked through its controllers answers for the
		// quorum and features only: nothing to compare ZooKeeper with
		// (kraftSide said so).
		return
	}
	world := model.WorldKRaft
	if !o.kraftFull {
		world = model.WorldKafka
	}
	rep, err := verify.Compare(o.in.ZK, k, verify.Options{
		Left:   verify.Side{World: model.WorldZooKeeper, Name: o.in.ZKSource},
		Right:  verify.Side{World: world, Name: o.in.KRaftSource},
		Ignore: statusIgnores,
	})
	if err != nil {
		return
	}
	agree := !rep.Differ()
	o.st.Agree = &agree
	for _, f := range rep.Findings {
		if verify.IsDifference(f) {
			o.st.Differences++
		}
	}
	if !agree {
		o.add(finding(CodeZKBehind, "zookeeper",
			fmt.Sprintf("ZooKeeper and KRaft differ (%d differences): dual-write has not caught up, or lost writes (KAFKA-15010, KAFKA-15003); a rollback now would land on a ZooKeeper that lacks them: wait and check again before rolling back (the fix lists them)", o.st.Differences),
			o.in.verifyCommand()))
	}
}

// statusIgnores are the classes the comparison leaves out: brokers
// differ by design mid-migration (KRaft brokers are not in ZooKeeper),
// the migration class is judged by the phase, and leaders and ISRs move
// between the two reads.
var statusIgnores = []string{"brokers", "migration", "runtime"}

// verifyCommand is the kmeta verify line that lists the differences the
// comparison counted: both sources as this command read them
// (VerifySources), the classes it leaves out left out, and for a
// ZooKeeper read with a digest login the stop when $KMETA_ZK_AUTH is
// unset (the password is never printed).
func (in Input) verifyCommand() string {
	args := []string{"verify"}
	if in.VerifySources != nil {
		args = append(args, in.VerifySources...)
	} else {
		args = append(args, "--zk", in.ZKSource, "--kraft", in.KRaftSource)
	}
	for _, c := range statusIgnores {
		args = append(args, "--ignore", c)
	}
	return roll.CommandLine(args, roll.Source{ZKDigest: in.ZKDigest && strings.HasPrefix(in.ZKSource, "zk://")})
}
