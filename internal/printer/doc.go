// Package printer renders kmeta's results in the output formats a user
// picks with --output: text (a readable, deterministic tree or aligned
// columns), table (ASCII-framed tables that fit the terminal, fit.go and
// table.go), json (one stable document) and, for the commands that build
// a report Page, html (one self-contained page with its charts, html.go
// and chart.go).
//
// Printers are fed plain data: a *model.Image, or a Document (a JSON
// value, text and table sections of lines and Rows, and for html a Page)
// that internal/report builds from a library's result. They never reach into readers, never sort by map order, and
// redact secrets unless told otherwise (ImageOptions.ShowSecrets), so the
// same input always prints the same bytes.
//
// Strings that come from the cluster (topic names, principals, config
// values) are printed as they are unless they hold control characters or
// leading/trailing white space; those are Go-quoted so that a hostile value
// cannot move the cursor or fake a line of output. JSON output is never
// altered that way: encoding/json escapes what needs escaping.
package printer
