package online

import "github.com/kmeta/kmeta/model"

// Codes of what ZooKeeper's /controller says that no cluster can be in
// (issue 29: status called such states healthy).
const (
	// CodeControllerZNodeInvalid: /controller names a negative id.
	CodeControllerZNodeInvalid = "controller-znode-invalid"
	// CodeControllerUnknown: /controller names a broker /brokers/ids does
	// not hold, or a KRaft controller the quorum does not hold.
	CodeControllerUnknown = "controller-not-registered"
)

// HostileChecks declares the codes above (see model.Check).
var HostileChecks = model.Checks{
	{
		Code: CodeControllerZNodeInvalid, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "/controller names no possible node",
		Meaning:  "ZooKeeper's /controller names a negative broker id: no broker or KRaft controller has one, so the znode was written by something other than Kafka or is damaged, and ZooKeeper-mode brokers follow a controller that does not exist",
		Fix:      "read /controller ({ZK_GET}); once Kafka's own controller is known, delete the znode so that an election rewrites it",
		Commands: []string{"migrate status", "migrate stage", "migrate rollback"},
	},
	{
		Code: CodeControllerUnknown, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "/controller names a node that is not there",
		Meaning:  "ZooKeeper's /controller names a ZooKeeper-mode broker that /brokers/ids does not hold, or a KRaft controller that is not a voter of the quorum given: a stale or damaged znode, or a read taken in the middle of an election; no live node acts on it",
		Fix:      "read the state again; if it stays, check the node /controller names (its log, its session) before any migration step",
		Commands: []string{"migrate status", "migrate stage", "migrate rollback"},
	},
}
