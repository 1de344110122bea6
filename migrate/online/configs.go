package online

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/migrate"
)

// Roles of a node.
const (
	RoleBroker     = migrate.RoleBroker
	RoleController = migrate.RoleController
	// RoleCombined is a node that is broker and controller at once, which
	// Kafka's migration does not support.
	RoleCombined = "broker,controller"
)

// Setting names the phases change.
const (
	keyMigration       = "zookeeper.metadata.migration.enable"
	keyRoles           = "process.roles"
	keyVoters          = "controller.quorum.voters"
	keyBootstrap       = "controller.quorum.bootstrap.servers"
	keyListenerNames   = "controller.listener.names"
	keyProtocolMap     = "listener.security.protocol.map"
	keyIBP             = "inter.broker.protocol.version"
	keyInterBroker     = "inter.broker.listener.name"
	keySecurityInter   = "security.inter.broker.protocol"
	keyAuthorizer      = "authorizer.class.name"
	keyBrokerID        = "broker.id"
	keyNodeID          = "node.id"
	keyControlPlane    = "control.plane.listener.name"
	keyZKConnect       = "zookeeper.connect"
	keyZKTLS           = "zookeeper.ssl.client.enable"
	keyZKSetACL        = "zookeeper.set.acl"
	keyIDGeneration    = "broker.id.generation.enable"
	keyReservedMaxID   = "reserved.broker.max.id"
	keyLogDirs         = "log.dirs"
	keyLogDir          = "log.dir"
	defaultProtocolMap = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
)

var zkAuthorizers = []string{"kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer"}

// Node is one node's server.properties as the operator gave it.
type Node struct {
	ID    int32             `json:"id"`
	Path  string            `json:"path"`
	Props map[string]string `json:"-"`
}

// Role says what the file makes the node: a ZooKeeper-mode or KRaft
// broker, a controller, or both at once.
func (n *Node) Role() string {
	r := strings.ReplaceAll(n.Props[keyRoles], " ", "")
	switch {
	case r == "" || r == "broker":
		return RoleBroker
	case r == "controller":
		return RoleController
	}
	return RoleCombined
}

// Profile is the profile the file has now.
func (n *Node) Profile() Profile {
	mig := isTrue(n.Props[keyMigration])
	switch strings.ReplaceAll(n.Props[keyRoles], " ", "") {
	case "":
		if mig {
			return BrokerMigrating
		}
		return BrokerZooKeeper
	case "broker":
		return BrokerKRaft
	case "controller":
		if mig {
			return ControllerMigrating
		}
		return ControllerKRaft
	}
	return ""
}

func isTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

// interBrokerListener is the listener a ZooKeeper-mode broker talks to
// other brokers on: inter.broker.listener.name, else the listener of
// security.inter.broker.protocol (PLAINTEXT by default), as Kafka
// resolves it.
func interBrokerListener(p map[string]string) string {
	if v := strings.TrimSpace(p[keyInterBroker]); v != "" {
		return v
	}
	if v := strings.TrimSpace(p[keySecurityInter]); v != "" {
		return v
	}
	return "PLAINTEXT"
}

// logDirs are the node's log dirs (log.dirs, else log.dir).
func logDirs(p map[string]string) []string {
	v := p[keyLogDirs]
	if v == "" {
		v = p[keyLogDir]
	}
	var out []string
	for _, d := range strings.Split(v, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// withController adds the CONTROLLER listener to a protocol map.
func withController(pm string) string {
	if pm == "" {
		pm = defaultProtocolMap
	}
	if !strings.Contains(","+pm, ","+controllers.Listener+":") {
		pm += "," + controllers.Listener + ":PLAINTEXT"
	}
	return pm
}

// quorum is what every generated config says about the controllers.
type quorum struct {
	controllers []controllers.Spec
	// ibp is the metadata.version the controllers were formatted with,
	// as a release name (inter.broker.protocol.version's spelling).
	ibp string
	// protocol is the controller listener's security protocol ("":
	// PLAINTEXT); each node's settings for it come from its own file
	// (ctlSettings).
	protocol string
}

func (q quorum) proto() string {
	if q.protocol == "" {
		return ProtoPlaintext
	}
	return q.protocol
}

// migratingBroker is a ZooKeeper-mode broker's file in migration mode
// (Kafka's 3.9 docs, "Enter Migration Mode on the Brokers").
func migratingBroker(cur map[string]string, q quorum) map[string]string {
	out := maps.Clone(cur)
	out[keyMigration] = "true"
	out[keyVoters] = controllers.Voters(q.controllers)
	delete(out, keyBootstrap)
	out[keyListenerNames] = controllers.Listener
	// The controller listener as the broker connects to it: the
	// quorum's protocol, with the broker's own TLS stores and SASL
	// credentials (those of its inter-broker listener).
	settings, _, _ := ctlSettings(cur, q.proto())
	applyCtlSettings(out, q.proto(), settings)
	// A migrating broker registers with [IBP, IBP] as its metadata.version
	// range: the IBP must be the controllers' level, spelled out so that
	// a Kafka upgrade of the binaries cannot move it.
	out[keyIBP] = q.ibp
	return out
}

// kraftBroker is the file of the same broker as a KRaft broker (3.9
// docs, "Migrating brokers to KRaft"): node.id instead of broker.id, no
// IBP, no ZooKeeper settings, StandardAuthorizer.
func kraftBroker(cur map[string]string, q quorum) (map[string]string, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(cur[keyBrokerID]), 10, 32)
	if v, ok := cur[keyNodeID]; ok && err != nil {
		id, err = strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	}
	if err != nil || id < 0 {
		return nil, fmt.Errorf("%w: no usable broker.id", ErrBadInput)
	}
	out := maps.Clone(cur)
	for k := range cur {
		if strings.HasPrefix(k, "zookeeper.") {
			delete(out, k)
		}
	}
	for _, k := range []string{keyBrokerID, keyIBP, keyControlPlane, keyIDGeneration, keyReservedMaxID} {
		delete(out, k)
	}
	if slices.Contains(zkAuthorizers, out[keyAuthorizer]) {
		out[keyAuthorizer] = migrate.StandardAuthorizer
	}
	out[keyRoles] = RoleBroker
	out[keyNodeID] = strconv.Itoa(int(id))
	if len(q.controllers) > 0 {
		out[keyVoters] = controllers.Voters(q.controllers)
	}
	out[keyListenerNames] = controllers.Listener
	out[keyProtocolMap] = withController(cur[keyProtocolMap])
	return out, nil
}

// interBrokerClient says whether k is a setting a controller needs to reach
// the ZooKeeper-mode brokers on their inter-broker listener, as a broker
// does: the listener's own overrides and the client SASL and SSL settings.
func interBrokerClient(k, listener string) bool {
	return strings.HasPrefix(k, "listener.name."+strings.ToLower(listener)+".") ||
		strings.HasPrefix(k, "sasl.") || strings.HasPrefix(k, "ssl.") ||
		k == keySecurityInter || k == "sasl.mechanism.inter.broker.protocol"
}

// migratingController is a new controller's file in migration mode (3.9
// docs, "Provisioning the KRaft controller quorum"), made from a
// broker's file: migrate.KRaftConfig's controller (its listener, metadata
// dir, authorizer, super users, token secret, password encoder, topic
// defaults), plus the migration flag, ZooKeeper's connect string and
// client settings, and the brokers' inter-broker listener with what it
// takes to reach the brokers on it.
func migratingController(broker map[string]string, c controllers.Spec, metadataDir string, q quorum) (map[string]string, error) {
	out, _, err := migrate.KRaftConfig(broker, migrate.ConfigOptions{Role: RoleController, NodeID: c.ID,
		Controllers: q.controllers, Quorum: migrate.QuorumStatic, MetadataDir: metadataDir})
	if err != nil {
		return nil, err
	}
	ibl := interBrokerListener(broker)
	for k, v := range broker {
		if strings.HasPrefix(k, "zookeeper.") || interBrokerClient(k, ibl) {
			out[k] = v
		}
	}
	out[keyMigration] = "true"
	out[keyInterBroker] = ibl
	delete(out, keySecurityInter)
	// The controller's map: its own listener, secured as the brokers'
	// inter-broker listener is (ctlSettings), and the brokers' protocols
	// so it can reach them on the inter-broker listener.
	settings, _, _ := ctlSettings(broker, q.proto())
	out[keyProtocolMap] = broker[keyProtocolMap]
	applyCtlSettings(out, q.proto(), settings)
	return out, nil
}

// kraftController is a controller's file without the migration: the flag
// and every ZooKeeper setting removed (3.9 docs, "Finalizing the
// migration").
func kraftController(cur map[string]string) map[string]string {
	out := maps.Clone(cur)
	for k := range cur {
		if strings.HasPrefix(k, "zookeeper.") {
			delete(out, k)
		}
	}
	return out
}

// Change is one setting a phase changes in a node's file.
type Change struct {
	Key string `json:"key"`
	// Op is add, remove or change.
	Op   string `json:"op"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Diff lists what changes from a to b, by key.
func Diff(a, b map[string]string) []Change {
	var out []Change
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		av, inA := a[k]
		bv, inB := b[k]
		switch {
		case inA && !inB:
			out = append(out, Change{Key: k, Op: "remove", From: av})
		case !inA && inB:
			out = append(out, Change{Key: k, Op: "add", To: bv})
		case av != bv:
			out = append(out, Change{Key: k, Op: "change", From: av, To: bv})
		}
	}
	return out
}
