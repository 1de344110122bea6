package source

import "github.com/kmeta/kmeta/model"

// source's table of checks: what the log commands add about a dir's
// files (the readers declare their own warnings).

var checks = model.Checks{
	{
		Code: unusableFile, Room: "source", ClassFrom: "none (a warning on stderr)", Severity: model.SevError,
		Title:    "a file of the KRaft log dir is present but unusable: the dir is read without it",
		Meaning:  "A meta.properties or quorum-state that does not parse, or a badly named data file: whatever is read from the dir is read without it, so the result is partial (severity error) and the command exits 1.",
		Fix:      "kmeta log check {PATH} names the file and what is wrong with it",
		Commands: []string{"log dump", "log stats"},
	},
}

// Checks is source's table.
func Checks() model.Checks { return checks }
