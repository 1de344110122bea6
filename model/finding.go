package model

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity ranks a finding. The order of the constants is the sort order:
// what blocks comes first.
type Severity string

const (
	// SevCritical: the cluster is losing or refusing data now (a partition
	// offline, under its min.insync.replicas). Only lint reports it; a
	// command that reports one exits 1, as for an error.
	SevCritical Severity = "critical"
	// SevError: the input is damaged, the views differ, or Kafka would
	// refuse what was asked. A command that reports one exits 1.
	SevError Severity = "error"
	// SevWarning: the answer holds, but rests on something the user should
	// know (a torn tail, a skipped record, a lenient decode).
	SevWarning Severity = "warning"
	// SevInfo: a fact worth saying (an expected difference explained, an
	// id kmeta assigned).
	SevInfo Severity = "info"
)

func (s Severity) rank() int {
	// Critical ranks before error; the other ranks are as they always
	// were, so existing orders are unchanged.
	switch s {
	case SevCritical:
		return -1
	case SevError:
		return 0
	case SevWarning:
		return 1
	case SevInfo:
		return 2
	}
	return 3
}

// Severities lists the one severity set, most severe first.
func Severities() []Severity { return []Severity{SevCritical, SevError, SevWarning, SevInfo} }

// AtLeast reports whether s is as severe as t or more (critical ≥ error ≥
// warning ≥ info). An unknown severity is below every known one.
func (s Severity) AtLeast(t Severity) bool { return s.rank() <= t.rank() }

// ParseSeverity reads a severity name as printed ("critical", "error",
// "warning", "info").
func ParseSeverity(name string) (Severity, bool) {
	for _, s := range Severities() {
		if string(s) == name {
			return s, true
		}
	}
	return "", false
}

// Location says where a finding was made. Unknown numeric fields are -1
// (use NoLocation and set what is known); empty strings are omitted.
type Location struct {
	// File is a path on disk (a segment, a snapshot, quorum-state, a
	// ZooKeeper snapshot or transaction log, a dump file).
	File string `json:"file,omitempty"`
	// Position is the byte position in File, -1 when the finding is about
	// the file as a whole.
	Position int64 `json:"position"`
	// Offset is a KRaft log offset (batch or record), -1 when unknown.
	Offset int64 `json:"offset"`
	// Line is a 1-based line number in a text file (meta.properties,
	// quorum-state), 0 when none.
	Line int `json:"line,omitempty"`
	// Znode is a ZooKeeper path relative to the chroot.
	Znode string `json:"znode,omitempty"`
	// Zxid is the ZooKeeper transaction id, 0 when none.
	Zxid int64 `json:"zxid,omitempty"`
}

// NoLocation is a location with every numeric field unknown.
func NoLocation() Location { return Location{Position: -1, Offset: -1} }

// At is a location in a file at a byte position and log offset.
func At(file string, position, offset int64) Location {
	return Location{File: file, Position: position, Offset: offset}
}

func (l Location) String() string {
	var parts []string
	if l.File != "" {
		parts = append(parts, l.File)
	}
	if l.Line > 0 {
		parts = append(parts, fmt.Sprintf("line %d", l.Line))
	}
	if l.Position >= 0 {
		parts = append(parts, fmt.Sprintf("position %d", l.Position))
	}
	if l.Offset >= 0 {
		parts = append(parts, fmt.Sprintf("offset %d", l.Offset))
	}
	if l.Znode != "" {
		parts = append(parts, "znode "+l.Znode)
	}
	if l.Zxid != 0 {
		parts = append(parts, fmt.Sprintf("zxid %#x", l.Zxid))
	}
	return strings.Join(parts, ", ")
}

// Finding is the one findings type of kmeta: log check, features check,
// verify and diff, migrate plan and lint all report in it, and every
// printer prints it the same way.
//
// Code is stable (scripts match on it); Message is for people and may
// change. A finding never carries a value that the printers would redact:
// producers put fingerprints, not secrets, into Message, Left and Right.
type Finding struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	// Class groups findings of one kind of entity or concern: "log",
	// "features", "topics", "configs", "runtime", ... verify's --ignore
	// takes classes.
	Class string `json:"class,omitempty"`
	// Entity names what the finding is about ("topic orders",
	// "partition orders-3", "broker 2", "config BROKER <default>").
	Entity string `json:"entity,omitempty"`
	// Field, Left and Right are set by comparisons: which field differs
	// and each side's value (as text, secrets fingerprinted).
	Field string  `json:"field,omitempty"`
	Left  *string `json:"left,omitempty"`
	Right *string `json:"right,omitempty"`

	Message string `json:"message"`
	// Fix says what to do about it: a Kafka command where one exists.
	Fix string `json:"fix,omitempty"`

	Where *Location `json:"where,omitempty"`
}

func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(string(f.Severity))
	b.WriteString(" ")
	b.WriteString(f.Code)
	if f.Entity != "" {
		b.WriteString(" ")
		b.WriteString(f.Entity)
	}
	if f.Where != nil {
		if w := f.Where.String(); w != "" {
			b.WriteString(" (")
			b.WriteString(w)
			b.WriteString(")")
		}
	}
	b.WriteString(": ")
	b.WriteString(f.Message)
	return b.String()
}

// CompareFindings is the one sort order for findings: severity, class,
// entity, code, field, then location (file, position, offset, znode), then
// message, so that equal inputs print identically whatever order the
// producers ran in.
func CompareFindings(a, b Finding) int {
	if c := cmp.Compare(a.Severity.rank(), b.Severity.rank()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Class, b.Class); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Entity, b.Entity); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Field, b.Field); c != 0 {
		return c
	}
	la, lb := a.Where, b.Where
	switch {
	case la == nil && lb != nil:
		return -1
	case la != nil && lb == nil:
		return 1
	case la != nil && lb != nil:
		if c := cmp.Compare(la.File, lb.File); c != 0 {
			return c
		}
		if c := cmp.Compare(la.Position, lb.Position); c != 0 {
			return c
		}
		if c := cmp.Compare(la.Offset, lb.Offset); c != 0 {
			return c
		}
		if c := cmp.Compare(la.Line, lb.Line); c != 0 {
			return c
		}
		if c := cmp.Compare(la.Znode, lb.Znode); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Message, b.Message)
}

// SortFindings sorts findings in the one order (stable for equal ones).
func SortFindings(fs []Finding) { slices.SortStableFunc(fs, CompareFindings) }

// CountSeverity counts findings of one severity.
func CountSeverity(fs []Finding, s Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Warning codes an image can carry: what a view rests on. They are
// findings of severity warning (or error, where the view is partial), so
// every command reports them the same way and verify can refuse to call a
// partial view equal.
const (
	// WarnReplayStopped: replay stopped at a damaged batch; later records
	// are not in the image. Partial.
	WarnReplayStopped = "replay-stopped"
	// WarnRecordsSkipped: records replay could not decode or Kafka's
	// loader refuses were skipped. Partial.
	WarnRecordsSkipped = "records-skipped"
	// WarnTornTail: the active segment ends in a torn batch, as a crash
	// leaves it; Kafka truncates it at start. Not partial: Kafka never
	// committed those bytes.
	WarnTornTail = "torn-tail"
	// WarnSnapshotFallback: the newest snapshot was unusable and an older
	// one (or the log) was used. Not partial if the log covers the gap.
	WarnSnapshotFallback = "snapshot-fallback"
	// WarnCoverageHole: the log starts above every snapshot. Partial.
	WarnCoverageHole = "coverage-hole"
	// WarnUnfinishedTxn: a metadata transaction has no end; its records
	// are not applied (as Kafka does).
	WarnUnfinishedTxn = "unfinished-transaction"
	// WarnBootstrapAlongside: a parent bootstrap.checkpoint was read along
	// with a __cluster_metadata-0 dir.
	WarnBootstrapAlongside = "bootstrap-alongside"
	// WarnLenientDecode: znodes that do not decode were kept raw or
	// skipped under --lenient. Partial.
	WarnLenientDecode = "lenient-decode"
	// WarnTreeChanged: a live ZooKeeper tree changed while it was read.
	// Partial.
	WarnTreeChanged = "tree-changed"
	// WarnChrootDetected: the chroot was inferred from the tree.
	WarnChrootDetected = "chroot-detected"
	// WarnZKLogDamaged: a ZooKeeper transaction log ends early (torn,
	// damaged, or a zxid that repeats or goes back); the read stops there.
	WarnZKLogDamaged = "zk-log-damaged"
	// WarnZKLogEntriesPastEnd: a ZooKeeper transaction log holds
	// well-formed transactions after an entry length of zero or a torn
	// entry, either of which ends the log for ZooKeeper and kmeta alike:
	// the files hold more than the tree. Partial.
	WarnZKLogEntriesPastEnd = "zk-log-entries-past-end"
	// WarnTopicNameIllegal: a topic is named as no Kafka names one
	// (LegalTopicName): the source is damaged or was not written by
	// Kafka. Not partial: the image holds what the source says.
	WarnTopicNameIllegal = "topic-name-illegal"
)

// Partial reports whether an image carrying this warning may be missing
// content that its source held: such a view is never reported as equal.
func Partial(w Finding) bool {
	if w.Severity == SevError {
		return true
	}
	switch w.Code {
	case WarnReplayStopped, WarnRecordsSkipped, WarnCoverageHole, WarnLenientDecode, WarnTreeChanged, WarnZKLogDamaged, WarnZKLogEntriesPastEnd:
		return true
	}
	return false
}

// IsPartial reports whether the image rests on partial input.
func (img *Image) IsPartial() bool {
	return slices.ContainsFunc(img.Warnings, Partial)
}

// Warn adds a warning of one of the model's checks (a Warn* code) to the
// image.
func (img *Image) Warn(code string, where *Location, format string, args ...any) {
	img.Warnings = append(img.Warnings, Warning(code, where, format, args...))
}

// CloneFindings deep-copies findings: no pointer is shared with fs.
func CloneFindings(fs []Finding) []Finding {
	if fs == nil {
		return nil
	}
	out := make([]Finding, len(fs))
	for i, f := range fs {
		if f.Where != nil {
			w := *f.Where
			f.Where = &w
		}
		if f.Left != nil {
			l := *f.Left
			f.Left = &l
		}
		if f.Right != nil {
			r := *f.Right
			f.Right = &r
		}
		out[i] = f
	}
	return out
}
