package online

import (
	"fmt"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Phase is where a cluster stands in Kafka's online migration. The names
// are Strimzi's, which operators already know.
type Phase int

// The phases, in order.
const (
	ZooKeeper Phase = iota
	KRaftMigration
	KRaftDualWriting
	KRaftPostMigration
	PreKRaft
	KRaft
)

var phaseNames = [...]string{"ZooKeeper", "KRaftMigration", "KRaftDualWriting", "KRaftPostMigration", "PreKRaft", "KRaft"}

func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("Phase(%d)", int(p))
	}
	return phaseNames[p]
}

// MarshalText writes the phase's name (JSON shows names, not numbers).
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a phase's name, so that a document with phases
// (status --watch's lines) reads back.
func (p *Phase) UnmarshalText(b []byte) error {
	v, err := ParsePhase(string(b))
	if err == nil {
		*p = v
	}
	return err
}

// ParsePhase reads a phase name, case-insensitively.
func ParsePhase(s string) (Phase, error) {
	for i, n := range phaseNames {
		if strings.EqualFold(n, strings.TrimSpace(s)) {
			return Phase(i), nil
		}
	}
	return 0, fmt.Errorf("%w: phase %q, want one of %s", ErrBadInput, s, strings.Join(phaseNames[:], ", "))
}

// Profile is the shape of one node's server.properties in a phase: every
// config kmeta generates, diffs or restores is one of these applied to
// the node's ZooKeeper-mode file, so stage, status and rollback read the
// same table and cannot drift apart.
type Profile string

// The profiles.
const (
	// Absent: the node does not run in this phase (controllers before
	// KRaftMigration).
	Absent Profile = "absent"
	// BrokerZooKeeper: the broker's own ZooKeeper-mode file.
	BrokerZooKeeper Profile = "zookeeper-broker"
	// BrokerMigrating: a ZooKeeper-mode broker in migration mode
	// (zookeeper.metadata.migration.enable, the controller quorum, the
	// IBP pinned to the controllers' metadata.version).
	BrokerMigrating Profile = "migrating-broker"
	// BrokerKRaft: a KRaft broker (process.roles=broker, node.id, no
	// ZooKeeper settings, StandardAuthorizer).
	BrokerKRaft Profile = "kraft-broker"
	// ControllerMigrating: a KRaft controller with
	// zookeeper.metadata.migration.enable and zookeeper.connect.
	ControllerMigrating Profile = "migrating-controller"
	// ControllerKRaft: the controller without the migration flag and
	// without ZooKeeper settings.
	ControllerKRaft Profile = "kraft-controller"
)

// Spec is one phase as data. Every field is read by code: status
// derives the phase from the rows' Reached, stage rolls the roles of
// Rolls onto the Broker and Controller profiles and waits for
// ReachedText, rollback follows RollbackTo, and status, watch and
// rollback compare ZooKeeper with KRaft in the phases that DualWrite.
type Spec struct {
	// Phase is the row's phase (Phases[p].Phase == p): the phase status
	// says when this row is the last one reached.
	Phase Phase `json:"phase"`
	// Summary says what the phase is, in one line.
	Summary string `json:"summary"`
	// Broker and Controller are the nodes' profiles in the phase.
	Broker     Profile `json:"broker"`
	Controller Profile `json:"controller"`
	// Rolls are the roles stage restarts, in order, to enter the phase
	// (RoleController, RoleBroker): none when Kafka itself reaches the
	// phase (stage checks that it did); KRaftMigration's controllers are
	// new nodes, started rather than restarted, before the brokers roll.
	// stage reads it: a role not listed is not rolled.
	Rolls []string `json:"rolls"`
	// Reached says whether the cluster got at least this far, from what
	// status observed. The phase is the last row reached: each row's
	// condition holds in every later phase too, except where a later
	// row's takes over (a controller finalized while ZooKeeper-mode
	// brokers are left is PreKRaft, not KRaftPostMigration).
	Reached func(Facts) bool `json:"-"`
	// ReachedText is Reached in words: what kmeta waits for to call the
	// phase reached, and how it observes it (stage prints it in its
	// wait steps).
	ReachedText string `json:"reached"`
	// DualWrites: the controllers write every change to ZooKeeper too.
	// Status compares ZooKeeper with KRaft then (a rollback is safe
	// while they agree, which watch reports), and rollback wants the
	// controllers' view: ZooKeeper alone shows a dual-writing phase just
	// as it shows PreKRaft, from which there is no rollback.
	DualWrites bool `json:"dualWrites"`
	// RollbackTo is the phase a rollback from this one goes back to
	// first, or -1: no rollback from here. A rollback follows the rows
	// until one that goes back to itself (ZooKeeper: nothing to roll
	// back), whose profiles the nodes get back; each hop before it rolls
	// the brokers onto the hop's broker profile (from
	// KRaftPostMigration, back to migration mode).
	RollbackTo Phase `json:"-"`
	// Rollback says so in words.
	Rollback string `json:"rollback"`
}

// Phases are the phases as data, in order; Phases[p].Phase == p.
var Phases = []Spec{
	{Phase: ZooKeeper, Summary: "a ZooKeeper-mode cluster: no KRaft controller yet",
		Broker: BrokerZooKeeper, Controller: Absent,
		Reached:     func(Facts) bool { return true },
		ReachedText: "ZooKeeper's /controller is a broker and no /migration znode exists",
		RollbackTo:  ZooKeeper, Rollback: "nothing to roll back"},
	{Phase: KRaftMigration, Summary: "KRaft controllers run in migration mode; the brokers roll into migration mode and register with them; the metadata is copied once every broker has",
		Broker: BrokerMigrating, Controller: ControllerMigrating, Rolls: []string{RoleController, RoleBroker},
		Reached:     Facts.controllersUp,
		ReachedText: "ZkMigrationState PRE_MIGRATION in the controllers' log (or a controller answering with ZkMigrationReady), every broker registered with KRaft as a migrating ZooKeeper broker",
		RollbackTo:  ZooKeeper, Rollback: "stop the controllers, delete /controller and /migration in ZooKeeper, roll the brokers back to their ZooKeeper-mode files"},
	{Phase: KRaftDualWriting, Summary: "the metadata was copied; the KRaft controller is the cluster's controller and writes every change to ZooKeeper too; brokers are still ZooKeeper-mode brokers",
		Broker: BrokerMigrating, Controller: ControllerMigrating,
		Reached:     Facts.copied,
		ReachedText: "ZkMigrationState MIGRATION, /controller claimed by a KRaft controller (kraftControllerEpoch), /migration at a KRaft offset",
		DualWrites:  true,
		RollbackTo:  ZooKeeper, Rollback: "as from KRaftMigration; safe while ZooKeeper agrees with KRaft (status runs verify)"},
	{Phase: KRaftPostMigration, Summary: "the brokers run as KRaft brokers; the controllers still write ZooKeeper",
		Broker: BrokerKRaft, Controller: ControllerMigrating, Rolls: []string{RoleBroker},
		Reached:     Facts.brokersMoved,
		ReachedText: "every broker registered as a KRaft broker; none left in /brokers/ids",
		DualWrites:  true,
		RollbackTo:  KRaftDualWriting, Rollback: "roll the brokers back to migration mode (ZooKeeper-mode brokers with the migration flag), then as from KRaftDualWriting"},
	{Phase: PreKRaft, Summary: "the controllers run without migration: ZkMigrationState POST_MIGRATION, ZooKeeper is no longer written but still holds the migration's /controller and /migration",
		Broker: BrokerKRaft, Controller: ControllerKRaft, Rolls: []string{RoleController},
		Reached:     Facts.finalized,
		ReachedText: "ZkMigrationState POST_MIGRATION and no controller with the migration flag (ZkMigrationReady false everywhere)",
		RollbackTo:  -1, Rollback: "none: once a controller without the migration flag took over, ZooKeeper is no longer written (Kafka has no revert after finalizing)"},
	{Phase: KRaft, Summary: "a KRaft cluster: ZooKeeper let go (the migration's /controller and /migration deleted, the ensemble free to stop)",
		Broker: BrokerKRaft, Controller: ControllerKRaft,
		Reached:     Facts.letGo,
		ReachedText: "as PreKRaft, and ZooKeeper holds neither the KRaft controller's /controller claim nor /migration",
		RollbackTo:  -1, Rollback: "none: ZooKeeper was let go, and has not been written since PreKRaft"},
}

// Facts are what status observed of both sides that decides the phase;
// each row's Reached reads them and nothing else.
type Facts struct {
	// KRaftView: the controllers' side was given (a controller's log or
	// a live quorum). StateReported: it is a log, which records
	// ZkMigrationState (a live quorum does not report it); HasState: the
	// log holds one, State.
	KRaftView     bool
	StateReported bool
	HasState      bool
	State         model.ZkMigrationState
	// KRaftClaimed: a KRaft controller holds ZooKeeper's /controller
	// (its kraftControllerEpoch).
	KRaftClaimed bool
	// MigrationZNode: /migration exists; MigrationNull: without data;
	// Migrated: at a KRaft offset (a controller copied the metadata).
	MigrationZNode bool
	MigrationNull  bool
	Migrated       bool
	// FlagsKnown: the controllers' migration flags are known (their
	// registrations, a live quorum's answers, or their files);
	// ControllersMigrating and ControllersWithout count the controllers
	// with and without the flag.
	FlagsKnown           bool
	ControllersMigrating int
	ControllersWithout   int
	// ZKBrokers are the brokers in /brokers/ids; ZKBrokersLeft the
	// ZooKeeper-mode brokers still up: those, and the brokers KRaft has
	// registered as migrating that /brokers/ids does not hold.
	ZKBrokers     int
	ZKBrokersLeft int
}

// phaseOf is the phase facts show by rows: the last row reached (the
// first row's phase when none is).
func phaseOf(rows []Spec, f Facts) Phase {
	p := rows[0].Phase
	for _, r := range rows {
		if r.Reached(f) {
			p = r.Phase
		}
	}
	return p
}

// in says the log records ZkMigrationState s.
func (f Facts) in(s model.ZkMigrationState) bool { return f.HasState && f.State == s }

// controllersUp: the controllers run. A KRaft view answered, a KRaft
// controller claimed /controller, or /migration was created with no
// offset yet (they wait for the brokers). A ZkMigrationState outside
// the four Kafka persists (a damaged log) is not read as any phase:
// status stays at ZooKeeper's row.
func (f Facts) controllersUp() bool {
	if f.HasState && (f.State < model.MigrationNone || f.State > model.MigrationPostMigration) {
		return false
	}
	return f.KRaftView || f.KRaftClaimed || f.MigrationZNode && !f.MigrationNull && !f.Migrated
}

// copied: the controllers copied the metadata. The log's
// ZkMigrationState says so where it is reported; else a KRaft
// controller's claim with /migration at a KRaft offset, or a KRaft
// cluster whose ZooKeeper was let go.
func (f Facts) copied() bool {
	if f.StateReported {
		return f.in(model.MigrationMigration) || f.in(model.MigrationPostMigration)
	}
	return f.KRaftClaimed && f.Migrated || f.withoutZooKeeper()
}

// brokersMoved: copied, and no ZooKeeper-mode broker is left.
func (f Facts) brokersMoved() bool {
	if f.StateReported {
		return f.in(model.MigrationMigration) && f.ZKBrokersLeft == 0 || f.in(model.MigrationPostMigration)
	}
	return f.KRaftClaimed && f.Migrated && f.ZKBrokers == 0 || f.withoutZooKeeper()
}

// finalized: a controller runs without the migration flag after the
// copy (the finalization roll, under way or done; the log then says
// POST_MIGRATION once one led the quorum).
func (f Facts) finalized() bool {
	without := f.FlagsKnown && f.ControllersWithout > 0
	if f.StateReported {
		return f.in(model.MigrationMigration) && without || f.in(model.MigrationPostMigration)
	}
	return f.KRaftClaimed && f.Migrated && without || f.withoutZooKeeper()
}

// letGo: finalized, no controller with the flag, and ZooKeeper holds
// neither the KRaft controller's claim nor /migration.
func (f Facts) letGo() bool {
	if f.StateReported {
		return f.in(model.MigrationPostMigration) && !(f.FlagsKnown && f.ControllersMigrating > 0) && !f.KRaftClaimed && !f.MigrationZNode
	}
	return f.withoutZooKeeper()
}

// controllersWithoutMigration: the live controllers answer, all without
// the migration flag, and ZooKeeper holds no migration state (no claim,
// no /migration): a KRaft cluster whose ZooKeeper was let go, or, while
// ZooKeeper-mode brokers are up, controllers started without migration
// (status says so).
func (f Facts) controllersWithoutMigration() bool {
	return !f.StateReported && f.KRaftView && f.FlagsKnown && f.ControllersMigrating == 0 && f.ControllersWithout > 0 &&
		!f.KRaftClaimed && !f.MigrationZNode
}

// withoutZooKeeper: controllersWithoutMigration and no ZooKeeper-mode
// broker registered: a KRaft cluster.
func (f Facts) withoutZooKeeper() bool { return f.controllersWithoutMigration() && f.ZKBrokers == 0 }

// noRollback says why there is no rollback from p, as a clause
// ("once a controller ... took over, ..."): its Rollback without "none: ".
func (p Phase) noRollback() string { return strings.TrimPrefix(Phases[p].Rollback, "none: ") }

// rollbackEnd is where a rollback from p ends: the row its RollbackTo
// hops lead to that goes back to itself (ZooKeeper), or p itself when
// there is no rollback from it.
func (p Phase) rollbackEnd() Phase {
	for range Phases {
		back := Phases[p].RollbackTo
		if back < 0 || back == p {
			break
		}
		p = back
	}
	return p
}

// Profile returns the profile of a node of role in phase p.
func (p Phase) Profile(role string) Profile {
	if role == RoleController {
		return Phases[p].Controller
	}
	return Phases[p].Broker
}
