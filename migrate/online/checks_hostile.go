package online

import (
	"cmp"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Codes of what ZooKeeper's /controller says that no cluster can be in
// (issue 29: status called such states healthy).
const (
	// CodeControllerZNodeInvalid: /controller names a negative id.
	CodeControllerZNodeInvalid = "controller-znode-invalid"
	// CodeControllerUnknown: /controller names a broker /brokers/ids does
	// not hold, or a KRaft controller the quorum does not hold.
	CodeControllerUnknown = "controller-not-registered"
	// CodeNodeNotInCluster: a --config names a broker the cluster does
	// not know.
	CodeNodeNotInCluster = "node-not-in-cluster"
	// CodeZKConnectMismatch: a node's zookeeper.connect names another
	// ensemble or chroot than the ZooKeeper read.
	CodeZKConnectMismatch = "zookeeper-connect-mismatch"
)

// hostileChecks declares the codes above (see model.Check); init adds
// them to the room's table.
var hostileChecks = model.Checks{
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
	{
		Code: CodeNodeNotInCluster, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "a --config file names a broker the cluster does not know",
		Meaning:  "the broker id of --config ID=FILE is registered neither in ZooKeeper's /brokers/ids nor with the KRaft controllers, and no partition has a replica on it: the file is not one of this cluster's brokers' (a mistyped id, another cluster's file), and a stage would tell the operator to restart a broker that does not exist",
		Fix:      "give --config for the cluster's brokers only (kmeta migrate status lists them)",
		Commands: []string{"migrate stage", "migrate rollback"},
	},
	{
		Code: CodeZKConnectMismatch, Room: "online", Class: Class, Severity: model.SevError,
		Title:    "a node's zookeeper.connect is not the ZooKeeper read",
		Meaning:  "the node's file names another ZooKeeper ensemble or another chroot than the one kmeta read: it is another cluster's file, or kmeta read the wrong ZooKeeper; the controllers' files inherit zookeeper.connect from a broker's, so they would migrate the wrong cluster",
		Fix:      "give the files of the cluster at --zk, or read the ZooKeeper (and chroot) the brokers' zookeeper.connect names",
		Commands: []string{"migrate stage", "migrate rollback"},
	},
}

func init() { checks = append(checks, hostileChecks...) }

// zkConnectMismatch says how a zookeeper.connect value disagrees with
// the ZooKeeper a view was read from: another chroot, or no server in
// common with the ensemble (when the view knows it); "" when it agrees or
// cannot be told.
func zkConnectMismatch(connect string, zk *model.ZKState) string {
	if zk == nil {
		return "" // not read from a ZooKeeper: nothing to compare
	}
	hosts, chroot, _ := strings.Cut(strings.TrimSpace(connect), "/")
	if chroot = "/" + strings.TrimSuffix(chroot, "/"); chroot == "/" {
		chroot = ""
	}
	if want := strings.TrimSuffix(zk.Chroot, "/"); chroot != want {
		return fmt.Sprintf("its chroot is %q, ZooKeeper was read under %q", cmp.Or(chroot, "/"), cmp.Or(want, "/"))
	}
	if len(zk.Servers) == 0 {
		return ""
	}
	read := make([]string, len(zk.Servers))
	for i, h := range zk.Servers {
		read[i] = serverKey(h)
	}
	for _, h := range strings.Split(hosts, ",") {
		if slices.Contains(read, serverKey(h)) {
			return ""
		}
	}
	return fmt.Sprintf("its servers %s share none with the ensemble read (%s)", hosts, strings.Join(zk.Servers, ","))
}

// serverKey is a ZooKeeper server as compared across spellings, without
// resolving names (kmeta never resolves a host it does not connect to):
// lower case, the default port added, the loopback names one, and a
// host name by its first label (zk1 and zk1.example.com are one server).
func serverKey(hostPort string) string {
	hp := strings.ToLower(strings.TrimSpace(hostPort))
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		host, port = strings.Trim(hp, "[]"), "2181"
	}
	switch host {
	case "localhost", "127.0.0.1", "::1":
		host = "loopback"
	default:
		if net.ParseIP(host) == nil {
			host, _, _ = strings.Cut(host, ".")
		}
	}
	return host + ":" + port
}
