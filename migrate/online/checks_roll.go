package online

import "github.com/kmeta/kmeta/model"

// The checks of the roll gates (issue 30), declared as data.

// CodeGatesReadZooKeeper: the brokers' gates of a roll while KRaft leads
// read ZooKeeper, which does not list KRaft brokers.
const CodeGatesReadZooKeeper = "gates-read-zookeeper"

// gateChecks are the checks the gates add (a table of the room's, see
// model.Check).
var gateChecks = model.Checks{
	{Code: CodeGatesReadZooKeeper, Room: "online", Class: Class, Severity: model.SevWarning,
		Title:    "the brokers' roll gates read ZooKeeper while the KRaft controller leads",
		Meaning:  "ZooKeeper lists ZooKeeper-mode brokers only: a broker restarted as a KRaft broker (or still one) is not in /brokers/ids, so roll check and roll wait from ZooKeeper cannot tell (exit 2); a controller's metadata log dir holds every registration and the ISRs",
		Fix:      "stage with --kraft kraft:DIR (a controller's metadata log dir, read-only) so that the gates read it",
		Commands: []string{"migrate stage", "migrate rollback"}},
}
