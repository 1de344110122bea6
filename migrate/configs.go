package migrate

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/model"
)

// Config step finding codes.
const (
	CodeSettingRemoved   = "setting-removed"
	CodeSettingReplaced  = "setting-replaced"
	CodeControllerAccess = "controller-principal"
)

// Roles a generated config is for.
const (
	RoleBroker     = "broker"
	RoleController = "controller"
)

// StandardAuthorizer is KRaft's authorizer, which replaces AclAuthorizer.
const StandardAuthorizer = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"

var zkAuthorizers = []string{"kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer"}

// removedSettings are server.properties settings Kafka 4.x does not have,
// each with what replaces it.
var removedSettings = map[string]string{
	"broker.id":                               "node.id",
	"broker.id.generation.enable":             "nothing: KRaft node ids are static (node.id)",
	"reserved.broker.max.id":                  "nothing: KRaft node ids are static (node.id)",
	"control.plane.listener.name":             "controller.listener.names (the controllers' own listener)",
	"inter.broker.protocol.version":           "metadata.version, finalized in the metadata log (kmeta migrate apply sets it; kafka-features upgrades it)",
	"log.message.format.version":              "nothing: Kafka 4.x always writes record format v2 (KIP-724)",
	"log.message.downconversion.enable":       "nothing: Kafka 4.x never down-converts (KIP-896)",
	"log.message.timestamp.difference.max.ms": "log.message.timestamp.before.max.ms and log.message.timestamp.after.max.ms",
	"offsets.commit.required.acks":            "nothing: offset commits always wait for all in-sync replicas",
	"quota.producer.default":                  "a client quota on the default entity (kafka-configs --entity-type clients --entity-default)",
	"quota.consumer.default":                  "a client quota on the default entity (kafka-configs --entity-type clients --entity-default)",
	"delegation.token.master.key":             "delegation.token.secret.key",
}

// controllerKeeps are the settings a controller takes from a broker's
// file: who may do what, token secrets, and the defaults the controller
// applies when it creates topics.
var controllerKeeps = []string{"authorizer.class.name", "super.users", "allow.everyone.if.no.acl.found",
	"delegation.token.secret.key", "delegation.token.master.key", "delegation.token.max.lifetime.ms",
	"delegation.token.expiry.time.ms", "delegation.token.expiry.check.interval.ms",
	"default.replication.factor", "num.partitions", "min.insync.replicas",
	"password.encoder.secret", "password.encoder.old.secret", "password.encoder.keyfactory.algorithm",
	"password.encoder.cipher.algorithm", "password.encoder.key.length", "password.encoder.iterations"}

// ConfigOptions say which node a KRaft config is generated for.
type ConfigOptions struct {
	Role string
	// NodeID is node.id; -1 takes the file's broker.id (brokers only).
	NodeID      int32
	Controllers []controllers.Spec
	// Quorum is QuorumStatic (controller.quorum.voters, the default) or
	// QuorumDynamic (controller.quorum.bootstrap.servers).
	Quorum string
	// MetadataDir is log.dirs of a controller (required there), or
	// metadata.log.dir of a broker (optional).
	MetadataDir string
	// Set are extra settings, applied last.
	Set map[string]string
	// Plan, when set, is the plan the cluster is migrated by (its header
	// is enough): the config then takes the plan's controllers and quorum,
	// so a node cannot be configured for another quorum than the one apply
	// wrote (static voters on a dynamic quorum, a controller id among no
	// voters: Kafka only says so when the node fails to start).
	// Controllers and Quorum, when also set, must say what the plan says.
	Plan *Plan
}

// fromPlan puts the plan's quorum into o, refusing (ErrBadInput, naming
// both values) a --controllers or --quorum that says otherwise.
func (o *ConfigOptions) fromPlan() error {
	p := o.Plan
	if len(p.Controllers) == 0 {
		return fmt.Errorf("%w: the plan names no controllers (it was made without --controllers); make the plan again with them", ErrBadInput)
	}
	planQuorum, err := ParseQuorum(p.Quorum)
	if err != nil {
		return fmt.Errorf("the plan's quorum: %w", err)
	}
	if o.Quorum != "" {
		q, err := ParseQuorum(o.Quorum)
		if err != nil {
			return err
		}
		if q != planQuorum {
			return fmt.Errorf("%w: --quorum %s contradicts the plan's quorum %s", ErrBadInput, q, planQuorum)
		}
	}
	if o.Controllers != nil && !sameControllers(o.Controllers, p.Controllers) {
		given, planned := controllers.Voters(o.Controllers), controllers.Voters(p.Controllers)
		if given == planned {
			// Only directory ids differ: show them.
			given, planned = controllers.Initial(o.Controllers), controllers.Initial(p.Controllers)
		}
		return fmt.Errorf("%w: --controllers %s contradicts the plan's controllers %s", ErrBadInput, given, planned)
	}
	o.Controllers, o.Quorum = p.Controllers, planQuorum
	return nil
}

// sameControllers says whether the controllers an operator gave are the
// plan's, in any order: the same ids, hosts and ports, and the same
// directory id wherever the operator gave one.
func sameControllers(given, planned []controllers.Spec) bool {
	if len(given) != len(planned) {
		return false
	}
	byID := map[int32]controllers.Spec{}
	for _, c := range planned {
		byID[c.ID] = c
	}
	for _, g := range given {
		c, ok := byID[g.ID]
		if !ok || g.Host != c.Host || g.Port != c.Port || (g.DirectoryGiven && g.DirectoryID != c.DirectoryID) {
			return false
		}
	}
	return true
}

// KRaftConfig turns a ZooKeeper-mode broker's server.properties into the
// KRaft server.properties of a broker or a controller. The findings name
// every setting removed or replaced.
func KRaftConfig(in map[string]string, o ConfigOptions) (map[string]string, []model.Finding, error) {
	var fs []model.Finding
	note := func(code, key, msg, fix string) {
		f := finding(check(code), ClassConfigs, "setting "+key, msg, fix)
		f.Field = key
		fs = append(fs, f)
	}
	if o.Plan != nil {
		if err := o.fromPlan(); err != nil {
			return nil, nil, err
		}
	}
	if len(o.Controllers) == 0 {
		return nil, nil, fmt.Errorf("%w: no controllers", ErrBadInput)
	}
	quorum, err := ParseQuorum(o.Quorum)
	if err != nil {
		return nil, nil, err
	}
	id := o.NodeID
	if id < 0 {
		v, ok := in["broker.id"]
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if !ok || err != nil || n < 0 {
			return nil, nil, fmt.Errorf("%w: the file has no usable broker.id; pass --node-id", ErrBadInput)
		}
		id = int32(n)
	}
	// A dynamic quorum's nodes find the voters through the bootstrap
	// servers; Kafka refuses both settings together.
	quorumKey, quorumValue, otherKey := "controller.quorum.voters", controllers.Voters(o.Controllers), "controller.quorum.bootstrap.servers"
	if quorum == QuorumDynamic {
		quorumKey, quorumValue, otherKey = otherKey, controllers.BootstrapServers(o.Controllers), quorumKey
	}
	out := map[string]string{}
	switch o.Role {
	case RoleBroker:
		// Kafka refuses a broker-only node whose id is a voter's; the
		// plan knows the voters even of a dynamic quorum, whose config
		// does not list them.
		if o.Plan != nil && slices.ContainsFunc(o.Controllers, func(c controllers.Spec) bool { return c.ID == id }) {
			return nil, nil, fmt.Errorf("%w: node %d is one of the plan's voters %s; a broker needs another node.id", ErrBadInput, id, controllers.Voters(o.Controllers))
		}
		for k, v := range in {
			out[k] = v
		}
		if d := o.MetadataDir; d != "" {
			out["metadata.log.dir"] = d
		}
		pm := out["listener.security.protocol.map"]
		if pm == "" {
			pm = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
		}
		if !strings.Contains(","+pm, ","+controllers.Listener+":") {
			pm += "," + controllers.Listener + ":PLAINTEXT"
		}
		out["listener.security.protocol.map"] = pm
	case RoleController:
		var c *controllers.Spec
		for i := range o.Controllers {
			if o.Controllers[i].ID == id {
				c = &o.Controllers[i]
			}
		}
		if c == nil {
			if o.Plan != nil {
				return nil, nil, fmt.Errorf("%w: node %d is not one of the plan's voters %s", ErrBadInput, id, controllers.Voters(o.Controllers))
			}
			return nil, nil, fmt.Errorf("%w: node %d is not among --controllers", ErrBadInput, id)
		}
		if o.MetadataDir == "" {
			return nil, nil, fmt.Errorf("%w: a controller needs --metadata-dir (the dir migrate apply wrote)", ErrBadInput)
		}
		for _, k := range controllerKeeps {
			if v, ok := in[k]; ok {
				out[k] = v
			}
		}
		out["listeners"] = fmt.Sprintf("%s://%s:%d", controllers.Listener, c.Host, c.Port)
		out["listener.security.protocol.map"] = controllers.Listener + ":PLAINTEXT"
		out["log.dirs"] = o.MetadataDir
	default:
		return nil, nil, fmt.Errorf("%w: role %q, want broker or controller", ErrBadInput, o.Role)
	}
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if strings.HasPrefix(k, "zookeeper.") {
			delete(out, k)
			note(CodeSettingRemoved, k, k+" is removed: KRaft keeps metadata in the controller quorum", quorumKey)
			continue
		}
		if repl, ok := removedSettings[k]; ok {
			v := out[k]
			delete(out, k)
			switch k {
			case "delegation.token.master.key":
				if _, has := out["delegation.token.secret.key"]; !has {
					out["delegation.token.secret.key"] = v
				}
				note(CodeSettingReplaced, k, k+" is removed in Kafka 4.x; its value moves to delegation.token.secret.key", repl)
			case "broker.id":
				note(CodeSettingReplaced, k, k+" becomes node.id", repl)
			default:
				note(CodeSettingRemoved, k, k+" is removed in Kafka 4.x", repl)
			}
		}
	}
	if a := out["authorizer.class.name"]; slices.Contains(zkAuthorizers, a) {
		out["authorizer.class.name"] = StandardAuthorizer
		note(CodeSettingReplaced, "authorizer.class.name", a+" needs ZooKeeper; KRaft uses StandardAuthorizer, which reads the migrated ACLs", StandardAuthorizer)
	}
	if o.Role == RoleController && out["authorizer.class.name"] != "" {
		su := out["super.users"]
		if !slices.Contains(strings.Split(su, ";"), "User:ANONYMOUS") {
			chk := check(CodeControllerAccess)
			fs = append(fs, finding(chk, ClassConfigs, "setting super.users",
				"brokers reach the controllers on the PLAINTEXT controller listener as User:ANONYMOUS, which the authorizer must let register", chk.Fix))
		}
	}
	out["process.roles"] = o.Role
	out["node.id"] = strconv.Itoa(int(id))
	out["controller.listener.names"] = controllers.Listener
	delete(out, otherKey)
	out[quorumKey] = quorumValue
	for k, v := range o.Set {
		out[k] = v
	}
	model.SortFindings(fs)
	return out, fs, nil
}

// FormatConfig renders a generated server.properties.
func FormatConfig(props map[string]string, from string) []byte {
	return javaprops.Format("KRaft server.properties written by kmeta migrate configs from "+from, props)
}

// configPerm is the mode of a written config: it holds the node's
// passwords (ssl.keystore.password, sasl.jaas.config, ...) in plain text.
const configPerm = 0o600

// WriteConfig writes a generated config atomically, created mode 0600;
// an existing file with other content is refused unless overwrite.
func WriteConfig(path string, data []byte, overwrite, dryRun bool) (FileResult, error) {
	act, err := putFileProgress(path, data, overwrite, dryRun, configPerm, nil, nil)
	return FileResult{Path: path, Kind: "server.properties", Action: act, Bytes: len(data)}, err
}

// CheckConfigOut refuses (ErrBadInput) to write a generated config over
// the ZooKeeper-mode file it is made from (the same file under any name:
// a link, a relative path). That file is the node's way back until the
// migration is finalized, and a rerun would read the KRaft file as the
// ZooKeeper one; a backup (as migrate brokers keeps of meta.properties)
// would still leave the original path holding the KRaft config, so the
// rollback would need a rename the operator may not know of. out not
// existing yet is never the input.
func CheckConfigOut(out, in string) error {
	oi, err := os.Stat(out)
	if err != nil {
		return nil
	}
	ii, err := os.Stat(in)
	if err == nil && os.SameFile(oi, ii) {
		return fmt.Errorf("%w: --out %s is the --server-properties file it is made from: write the KRaft config to another file (the ZooKeeper-mode one is the way back)", ErrBadInput, out)
	}
	return nil
}
