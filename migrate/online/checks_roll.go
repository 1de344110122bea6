package online

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// The checks of the roll gates (issue 30), declared as data.

// CodeZKSettingsLeft: a node's file still sets zookeeper.* when
// ZooKeeper is about to be let go.
const CodeZKSettingsLeft = "zookeeper-settings-left"

// CodeGatesReadZooKeeper: the brokers' gates of a roll while KRaft leads
// read ZooKeeper, which does not list KRaft brokers.
const CodeGatesReadZooKeeper = "gates-read-zookeeper"

// rollChecks are the checks the gates add (a table of the room's, see
// model.Check).
var rollChecks = model.Checks{
	{Code: CodeGatesReadZooKeeper, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "the brokers' roll gates read ZooKeeper while the KRaft controller leads",
		Meaning:  "ZooKeeper lists ZooKeeper-mode brokers only: a broker restarted as a KRaft broker (or still one) is not in /brokers/ids, so roll check and roll wait from ZooKeeper cannot tell (exit 2); a controller's metadata log dir holds every registration and the ISRs",
		Fix:      "stage with --kraft kraft:DIR (a controller's metadata log dir, read-only) so that the gates read it",
		Commands: []string{"migrate stage", "migrate rollback"}},
	{Code: CodeZKSettingsLeft, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "a node's file still sets ZooKeeper settings when ZooKeeper is about to be let go",
		Meaning:  "stage KRaft lets ZooKeeper go; a node that still runs with zookeeper.* settings (a controller in migration mode, a ZooKeeper-mode broker) has not reached the phase that drops them",
		Fix:      "{FIX}",
		Commands: []string{"migrate stage"}},
}

// zookeeperSettingsLeft is the finding for a node whose file still sets
// zookeeper.* keys (every such key, sorted, so that each node's finding
// reads alike), with the stage whose file drops them.
func zookeeperSettingsLeft(id int32, n *Node) (model.Finding, bool) {
	var keys []string
	for k := range n.Props {
		if strings.HasPrefix(k, "zookeeper.") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return model.Finding{}, false
	}
	slices.Sort(keys)
	c := settingsLeft
	role, stage := "broker", KRaftPostMigration
	if n.Role() == RoleController {
		role, stage = "controller", PreKRaft
	}
	ent := fmt.Sprintf("%s %d", role, id)
	return c.Finding(ent, fmt.Sprintf("its file still sets %s: ZooKeeper is about to be let go", strings.Join(keys, ", ")),
		c.FillFix("FIX", fmt.Sprintf("stage %s and restart %s on the file it writes (without the ZooKeeper settings), then stage KRaft", stage, ent))), true
}

var settingsLeft = rollChecks.Must(CodeZKSettingsLeft)
