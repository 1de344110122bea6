// Package report turns library results into printable documents: plain
// data (JSON structs, rows, lines; printer.Document) with the class of
// exit the result calls for. It is the one place that decides what a
// command's output holds and what its verdict is, so that cmd/kmeta only
// wires (flags → options → library call → document → printer → exit
// code) and a new output format is one more renderer in internal/printer,
// not one more copy per command.
//
// Builders here never print, read or exit, and keep every order
// deterministic: the same result always makes the same document.
package report

import "github.com/kmeta/kmeta/internal/printer"

// Exit is the class of a command's outcome, which the command maps to
// its exit code.
type Exit int

// The exit classes (exit codes 0, 1 and 2).
const (
	// OK: the command ran and found nothing to report.
	OK Exit = iota
	// Findings: the command ran and found something (differences,
	// blockers, damage); the document shows it.
	Findings
	// Failed: the command could not reach its verdict (e.g. a view rests
	// on partial input, so verify does not call it equal).
	Failed
)

// Report is a document and the outcome it calls for.
type Report struct {
	printer.Document
	Exit Exit
	// Why is the diagnostic for a non-OK exit; empty when the document
	// says it all.
	Why string
}
