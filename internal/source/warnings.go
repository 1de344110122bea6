package source

import (
	"strings"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// This file is the one boundary where the ZooKeeper reader's string
// warnings become typed ones (model.Finding with a model.Warn* code);
// metalog produces typed warnings itself. A reader that sets img.Warnings
// itself wins.

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
		f := warning(unusableFile, p.Error()+" (read without it)")
		f.Severity = model.SevError
		out = append(out, f)
	}
	return out
}

// zkWarnings returns what a ZooKeeper image rests on; decodeErr is what a
// lenient decode survived.
func zkWarnings(img *model.Image, t *zkread.Tree, decodeErr error) []model.Finding {
	if len(img.Warnings) > 0 {
		return img.Warnings
	}
	var out []model.Finding
	for _, w := range t.Warnings {
		out = append(out, classify(w, zkCodes))
	}
	if decodeErr != nil {
		out = append(out, warning(model.WarnLenientDecode, decodeErr.Error()))
	}
	return out
}

// codeRule maps a reader's warning text to its code by what the text
// says; the first rule whose needle the text contains wins.
type codeRule struct{ needle, code string }

var zkCodes = []codeRule{
	{"detected in the data dir", model.WarnChrootDetected},
	{"changed while it was read", model.WarnTreeChanged},
	{"disappeared while reading", model.WarnTreeChanged},
	{"falling back to an older one", model.WarnSnapshotFallback},
	{"using an older one", model.WarnSnapshotFallback},
	{"torn transaction", model.WarnZKLogDamaged},
	{"zxid jumps", model.WarnZKLogDamaged},
	{"the data dir ends at zxid", model.WarnZKLogDamaged},
}

// unclassified is the code of a reader warning no rule knows. It gets
// severity error, which model.Partial counts as partial: a view resting on
// something unnamed is not called complete.
const unclassified = "unclassified-warning"

// unusableFile is the code of a file in the log dir that is present but
// unusable (a meta.properties or quorum-state that does not parse, a badly
// named data file). Severity error: partial.
const unusableFile = "unusable-file"

func classify(text string, rules []codeRule) model.Finding {
	for _, r := range rules {
		if strings.Contains(text, r.needle) {
			w := warning(r.code, text)
			if r.code == model.WarnTornTail {
				w.Message = tornTailMessage(text)
			}
			return w
		}
	}
	f := warning(unclassified, text)
	f.Severity = model.SevError
	return f
}

func warning(code, msg string) model.Finding {
	return model.Finding{Code: code, Severity: model.SevWarning, Message: msg}
}

// tornTailMessage says what a torn tail lost, in the terms of the README's
// rule: the bytes after the last whole batch, never committed.
func tornTailMessage(text string) string {
	return strings.TrimPrefix(text, "torn tail ignored, as Kafka truncates it: ") +
		" — the bytes after the last whole batch were never committed; Kafka truncates them on recovery"
}
