package quorum

import (
	"fmt"

	"github.com/kmeta/kmeta/model"
)

// quorum's table of checks: Judge's (quorum describe) and Survey's (quorum
// survey). quorum-single-voter and quorum-even-voters are the model's:
// lint reports them too.

var (
	describeCommands = []string{"quorum describe"}
	surveyCommands   = []string{"quorum survey"}
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
		Fix:      "kafka-features upgrade --feature kraft.version=1, then roll the configs to controller.quorum.bootstrap.servers",
		Commands: describeCommands,
	},
	{
		Code: CodeDirectoryIDMismatch, Room: "quorum", Class: Class, Severity: model.SevError,
		Title:    "a voter's directory id in the voter set is not the one its meta.properties holds",
		Meaning:  "With kraft.version 1 a voter is its id and its metadata log dir's directory.id: a node whose dir holds another id is not counted as that voter.",
		Fix:      "do not restart it with this dir: remove the voter (kafka-metadata-quorum remove-controller) and add it back with its current dir (add-controller)",
		Commands: model.CommandList(describeCommands, surveyCommands),
	},
	{
		Code: CodeCopiesDiverge, Room: "quorum", Class: Class, Severity: model.SevWarning,
		Escalated:     model.SevError,
		EscalatedWhen: "they diverge below a snapshot's end, i.e. on an offset known committed: Raft never lets committed records differ",
		Title:         "two copies of the metadata log hold different batches from an offset on",
		Meaning:       "Above every snapshot's end the offset is not known committed: an uncommitted tail Raft would truncate on the copy that lost the election. Below it, one copy is wrong.",
		Commands:      surveyCommands,
	},
	{
		Code: CodeCopyDamaged, Room: "quorum", Class: Class, Severity: model.SevError,
		Title:    "a copy is damaged: usable only up to the damage",
		Meaning:  "log check finds damage in the copy (the finding is named): the offsets after it are not usable, and a rebuild takes them from another copy or gives them up.",
		Commands: surveyCommands,
	},
	{
		Code: CodeCopyTornTail, Room: "quorum", Class: Class, Severity: model.SevInfo,
		Title:    "a copy's last segment ends inside a batch",
		Meaning:  "As a crash, or a copy taken while Kafka appends, leaves it: Kafka truncates it, and the copy ends at the last whole batch.",
		Commands: surveyCommands,
	},
	{
		Code: CodeCopyBehind, Room: "quorum", Class: Class, Severity: model.SevWarning,
		Title:    "a copy behind the best copy (by last epoch, then end offset)",
		Meaning:  "Raft's vote rule would not elect it over the best copy: a rebuild from it would lose what the best copy holds beyond it.",
		Commands: surveyCommands,
	},
	{
		Code: CodeRebuildGivesUp, Room: "quorum", Class: Class, Severity: model.SevWarning,
		Title:    "a rebuild from the best copy gives up offsets another copy holds",
		Meaning:  "Another copy holds offsets beyond the best copy's end, or other records there (uncommitted, or it diverged): a rebuild from the best copy loses them. quorum rebuild asks for --accept-loss.",
		Commands: surveyCommands,
	},
}

// Checks is quorum's table: describe's and survey's.
func Checks() model.Checks { return checks }

// checkOf returns the check of a code quorum reports: its own table's or
// the model's common one (quorum-single-voter, quorum-even-voters).
var checkOf = model.CheckIndex("quorum", model.CommonChecks, Checks)

// newFinding makes a finding of a code at its check's severity: a call
// site names the code, never a severity. Another severity comes only from
// the check's Escalated or Relaxed (checkOf(code).Escalate, .Relax).
func newFinding(code, entity, fix string, where *model.Location, format string, args ...any) model.Finding {
	return model.Finding{Code: code, Severity: checkOf(code).Severity, Class: Class, Entity: entity,
		Message: fmt.Sprintf(format, args...), Fix: fix, Where: where}
}
