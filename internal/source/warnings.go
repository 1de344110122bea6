package source

import (
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// The readers produce typed warnings themselves (metalog's ImageResult,
// zkread's Tree.Findings, copied into Image.Warnings by replay and Decode);
// this package only adds what the log commands need about a dir's files.

// DirWarnings are the files of a KRaft log dir that are present but
// unusable (a meta.properties or quorum-state that does not parse, a badly
// named data file): whatever is read from the dir is read without them, so
// each is a warning of severity error (partial).
func DirWarnings(d *metalog.LogDir) []model.Finding {
	if d == nil {
		return nil
	}
	var out []model.Finding
	for _, p := range d.Problems {
		out = append(out, checks.Must(unusableFile).Finding("", p.Error()+" (read without it)", ""))
	}
	return out
}

// unusableFile is the code of a file in the log dir that is present but
// unusable (a meta.properties or quorum-state that does not parse, a badly
// named data file); its check (checks.go) is of severity error: partial.
const unusableFile = "unusable-file"
