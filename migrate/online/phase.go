package online

import (
	"fmt"
	"strings"
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

// Spec is one phase as data.
type Spec struct {
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
	// Reached is what kmeta waits for to call the phase reached, and how
	// it observes it.
	Reached string `json:"reached"`
	// RollbackTo is the phase a rollback from this one goes back to
	// first (ZooKeeper for the first phases, KRaftDualWriting from
	// KRaftPostMigration), or -1: no rollback from here.
	RollbackTo Phase `json:"-"`
	// Rollback says so in words.
	Rollback string `json:"rollback"`
}

// Phases are the phases as data, in order; Phases[p].Phase == p.
var Phases = []Spec{
	{Phase: ZooKeeper, Summary: "a ZooKeeper-mode cluster: no KRaft controller yet",
		Broker: BrokerZooKeeper, Controller: Absent,
		Reached:    "ZooKeeper's /controller is a broker and no /migration znode exists",
		RollbackTo: ZooKeeper, Rollback: "nothing to roll back"},
	{Phase: KRaftMigration, Summary: "KRaft controllers run in migration mode; the brokers roll into migration mode and register with them; the metadata is copied once every broker has",
		Broker: BrokerMigrating, Controller: ControllerMigrating, Rolls: []string{RoleController, RoleBroker},
		Reached:    "ZkMigrationState PRE_MIGRATION in the controllers' log (or a controller answering with ZkMigrationReady), every broker registered with KRaft as a migrating ZooKeeper broker",
		RollbackTo: ZooKeeper, Rollback: "stop the controllers, delete /controller and /migration in ZooKeeper, roll the brokers back to their ZooKeeper-mode files"},
	{Phase: KRaftDualWriting, Summary: "the metadata was copied; the KRaft controller is the cluster's controller and writes every change to ZooKeeper too; brokers are still ZooKeeper-mode brokers",
		Broker: BrokerMigrating, Controller: ControllerMigrating,
		Reached:    "ZkMigrationState MIGRATION, /controller claimed by a KRaft controller (kraftControllerEpoch), /migration at a KRaft offset",
		RollbackTo: ZooKeeper, Rollback: "as from KRaftMigration; safe while ZooKeeper agrees with KRaft (status runs verify)"},
	{Phase: KRaftPostMigration, Summary: "the brokers run as KRaft brokers; the controllers still write ZooKeeper",
		Broker: BrokerKRaft, Controller: ControllerMigrating, Rolls: []string{RoleBroker},
		Reached:    "every broker registered as a KRaft broker; none left in /brokers/ids",
		RollbackTo: KRaftDualWriting, Rollback: "roll the brokers back to migration mode (ZooKeeper-mode brokers with the migration flag), then as from KRaftDualWriting"},
	{Phase: PreKRaft, Summary: "the controllers run without migration: ZkMigrationState POST_MIGRATION, ZooKeeper is no longer written but still holds the migration's /controller and /migration",
		Broker: BrokerKRaft, Controller: ControllerKRaft, Rolls: []string{RoleController},
		Reached:    "ZkMigrationState POST_MIGRATION and no controller with the migration flag (ZkMigrationReady false everywhere)",
		RollbackTo: -1, Rollback: "none: once a controller without the migration flag took over, ZooKeeper is no longer written (Kafka has no revert after finalizing)"},
	{Phase: KRaft, Summary: "a KRaft cluster: ZooKeeper let go (the migration's /controller and /migration deleted, the ensemble free to stop)",
		Broker: BrokerKRaft, Controller: ControllerKRaft,
		Reached:    "as PreKRaft, and ZooKeeper holds neither the KRaft controller's /controller claim nor /migration",
		RollbackTo: -1, Rollback: "none: ZooKeeper was let go, and has not been written since PreKRaft"},
}

// noRollback says why there is no rollback from p, as a clause
// ("once a controller ... took over, ..."): its Rollback without "none: ".
func (p Phase) noRollback() string { return strings.TrimPrefix(Phases[p].Rollback, "none: ") }

// Profile returns the profile of a node of role in phase p.
func (p Phase) Profile(role string) Profile {
	if role == RoleController {
		return Phases[p].Controller
	}
	return Phases[p].Broker
}
