package quorum

import (
	"fmt"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

// quorum's table of checks: Survey's and Rebuild's (quorum survey); the
// voters' judge (quorum describe, roll check) has its own in package
// voters, and quorum-single-voter and quorum-even-voters are the model's:
// lint reports them too.

var surveyCommands = voters.SurveyCommands

var checks = model.Checks{
	{
		Code: CodeCopiesDiverge, Room: "quorum", Class: voters.Class, Severity: model.SevWarning,
		Escalated:     model.SevError,
		EscalatedWhen: "they diverge below a snapshot's end, i.e. on an offset known committed: Raft never lets committed records differ",
		Title:         "two copies of the metadata log hold different batches from an offset on",
		Meaning:       "Above every snapshot's end the offset is not known committed: an uncommitted tail Raft would truncate on the copy that lost the election. Below it, one copy is wrong.",
		Commands:      surveyCommands,
	},
	{
		Code: CodeCopyDamaged, Room: "quorum", Class: voters.Class, Severity: model.SevError,
		Title:    "a copy is damaged: usable only up to the damage",
		Meaning:  "log check finds damage in the copy (the finding is named): the offsets after it are not usable, and a rebuild takes them from another copy or gives them up.",
		Commands: surveyCommands,
	},
	{
		Code: CodeCopyTornTail, Room: "quorum", Class: voters.Class, Severity: model.SevInfo,
		Title:    "a copy's last segment ends inside a batch",
		Meaning:  "As a crash, or a copy taken while Kafka appends, leaves it: Kafka truncates it, and the copy ends at the last whole batch.",
		Commands: surveyCommands,
	},
	{
		Code: CodeCopyBehind, Room: "quorum", Class: voters.Class, Severity: model.SevWarning,
		Title:    "a copy behind the best copy (by last epoch, then end offset)",
		Meaning:  "Raft's vote rule would not elect it over the best copy: a rebuild from it would lose what the best copy holds beyond it.",
		Commands: surveyCommands,
	},
	{
		Code: CodeRebuildGivesUp, Room: "quorum", Class: voters.Class, Severity: model.SevWarning,
		Title:    "a rebuild from the best copy gives up offsets another copy holds",
		Meaning:  "Another copy holds offsets beyond the best copy's end, or other records there (uncommitted, or it diverged): a rebuild from the best copy loses them. quorum rebuild asks for --accept-loss.",
		Commands: surveyCommands,
	},
}

// Checks is quorum's table: survey's and rebuild's (the voters' judge's,
// which quorum describe prints, is voters.Checks).
func Checks() model.Checks { return checks }

// checkOf returns the check of a code quorum reports: its own table's, the
// judge's (voter-directory-id-mismatch) or the model's common one
// (quorum-single-voter, quorum-even-voters).
var checkOf = model.CheckIndex("quorum", model.CommonChecks, voters.Checks, Checks)

// newFinding makes a finding of a code at its check's severity: a call
// site names the code, never a severity. Another severity comes only from
// the check's Escalated or Relaxed (checkOf(code).Escalate, .Relax).
func newFinding(code, entity, fix string, where *model.Location, format string, args ...any) model.Finding {
	return model.Finding{Code: code, Severity: checkOf(code).Severity, Class: voters.Class, Entity: entity,
		Message: fmt.Sprintf(format, args...), Fix: fix, Where: where}
}
