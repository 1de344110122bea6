package voters

import (
	"fmt"

	"github.com/kmeta/kmeta/model"
)

// The voters' judge's table of checks (quorum describe; roll check asks
// the same judge). quorum-single-voter and quorum-even-voters are the
// model's: lint reports them too. Their room stays "quorum": the commands
// that print them are quorum's.

var (
	describeCommands = []string{"quorum describe"}
	// SurveyCommands is quorum survey, which reports
	// voter-directory-id-mismatch as Judge does.
	SurveyCommands = []string{"quorum survey"}
	surveyCommands = SurveyCommands
)

var checks = model.Checks{
	{
		Code: CodeNoVoters, Room: "quorum", Class: Class, Severity: model.SevError,
		Title:    "the source names no voters",
		Meaning:  "No voter set is known (a static quorum's log before its first leader change, or an answer without voters): nothing about the quorum's health can be said.",
		Commands: describeCommands,
	},
	{
		Code: CodeNoLeader, Room: "quorum", Class: Class, Severity: model.SevError,
		Title:    "the quorum has no leader",
		Meaning:  "The quorum is electing a leader or has lost its majority: no metadata change happens until one is elected.",
		Fix:      "start the controllers that are down until a majority is up",
		Commands: describeCommands,
	},
	{
		Code: CodeVoterDown, Room: "quorum", Class: Class, Severity: model.SevWarning,
		Title:    "a voter that has not fetched within controller.quorum.fetch.timeout.ms",
		Meaning:  "The leader has not heard from the voter for longer than the fetch timeout: it is down or cut off, and the quorum runs with one failure fewer to spare.",
		Fix:      "start it, or look at its server.log",
		Commands: describeCommands,
	},
	{
		Code: CodeVoterLagging, Room: "quorum", Class: Class, Severity: model.SevWarning,
		Relaxed:     model.SevInfo,
		RelaxedWhen: "the source is metadata log dirs, which tell offsets but no times: copies taken at different moments differ too",
		Title:       "a voter that is not caught up with the leader",
		Meaning:     "The voter's last caught-up time is behind the leader's by more than the fetch timeout: it does not count towards a caught-up majority, and restarting another voter may stop the quorum.",
		Commands:    describeCommands,
	},
	{
		Code: CodeRestartUnsafe, Room: "quorum", Class: Class, Severity: model.SevWarning,
		Title:    "restarting this controller now leaves fewer caught-up voters than a majority",
		Meaning:  "Without it, the caught-up voters are under the majority: the metadata quorum would stop until it is back.",
		Fix:      "start the voters that are down first, and wait until the others are caught up (the finding names them)",
		Commands: describeCommands,
	},
	{
		Code: CodeCanBeDynamic, Room: "quorum", Class: Class, Severity: model.SevInfo,
		Title:    "a static quorum whose controllers support kraft.version 1: it can become dynamic",
		Meaning:  "A dynamic quorum (KIP-853, Kafka 4.1+) lets controllers be added and removed online.",
		Fix:      "kmeta features upgrade --feature kraft.version=1 on the cluster read (it checks that every node supports it, asks first, and prints the gated roll of the configs to controller.quorum.bootstrap.servers)",
		Commands: describeCommands,
	},
	{
		Code: CodeDirectoryIDMismatch, Room: "quorum", Class: Class, Severity: model.SevError,
		Title:    "a voter's directory id in the voter set is not the one its meta.properties holds",
		Meaning:  "With kraft.version 1 a voter is its id and its metadata log dir's directory.id: a node whose dir holds another id is not counted as that voter.",
		Fix:      "do not restart it with this dir: remove the voter (kafka-metadata-quorum remove-controller) and add it back with its current dir (add-controller)",
		Commands: model.CommandList(describeCommands, surveyCommands),
	},
}

// Checks is the judge's table.
func Checks() model.Checks { return checks }

// checkOf returns the check of a code Judge reports: its table's or the
// model's common one (quorum-single-voter, quorum-even-voters).
var checkOf = model.CheckIndex("quorum", model.CommonChecks, Checks)

// newFinding makes a finding of a code at its check's severity: a call
// site names the code, never a severity (another comes only from the
// check's Escalated or Relaxed).
func newFinding(code, entity, fix string, where *model.Location, format string, args ...any) model.Finding {
	return model.Finding{Code: code, Severity: checkOf(code).Severity, Class: Class, Entity: entity,
		Message: fmt.Sprintf(format, args...), Fix: fix, Where: where}
}
