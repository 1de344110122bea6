package metalog

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Finding kinds. These strings are part of the JSON output and stable.
const (
	KindCRCMismatch         = "crc-mismatch"
	KindTornTail            = "torn-tail"
	KindBadMagic            = "bad-magic"
	KindBadLength           = "bad-length"
	KindBadRecord           = "bad-record"
	KindCompressionError    = "compression"
	KindUnreadable          = "unreadable"
	KindBadFileName         = "bad-file-name"
	KindBadProperties       = "bad-properties"
	KindUnknownFile         = "unknown-file"
	KindEmptyFile           = "empty-file"
	KindOffsetGap           = "offset-gap"
	KindOffsetOverlap       = "offset-overlap"
	KindSegmentBase         = "segment-base-mismatch"
	KindEpochRegression     = "epoch-regression"
	KindCoverageHole        = "snapshot-coverage-hole"
	KindSnapshotHeader      = "snapshot-missing-header"
	KindSnapshotFooter      = "snapshot-missing-footer"
	KindSnapshotAfterFooter = "snapshot-after-footer"
	KindSnapshotOffsets     = "snapshot-offsets"
	KindSnapshotEpoch       = "snapshot-epoch-mismatch"
	KindBootstrapControl    = "bootstrap-control-type"
	KindFrameHeader         = "frame-header"
	KindFrameVersion        = "frame-version"
	KindRecordDecode        = "record-decode"
	KindRecordUnknown       = "record-unknown"
	KindQuorumStateEpoch    = "quorum-state-epoch"
	KindLeaderEpochMismatch = "leader-epoch-checkpoint-mismatch"
	KindPartitionTopicID    = "partition-metadata-topic-id"
	// KRaft rules (strict mode only).
	KindKRaftTimestampDelta = "kraft-timestamp-delta"
	KindKRaftHeaders        = "kraft-headers"
	KindKRaftDataKey        = "kraft-data-key"
	KindKRaftEmptyValue     = "kraft-empty-value"
	KindKRaftControlKey     = "kraft-control-key"
	KindKRaftControlType    = "kraft-control-type"
	KindKRaftOffsetDelta    = "kraft-offset-delta"
	KindKRaftProducer       = "kraft-producer-fields"
	KindKRaftCompressed     = "kraft-compressed"
	KindKRaftAttributes     = "kraft-attributes"
)

// Finding is kmeta's one findings type. Check's findings carry Code (one
// of the Kind* strings above, stable), Class "log", and Where: the file, the
// byte position (or the 1-based line of a text file) and the offset.
type Finding = model.Finding

// FindingClass is the Class of the findings metalog makes.
const FindingClass = "log"

// FileReport summarises one data file.
type FileReport struct {
	Path        string   `json:"path"`
	Kind        FileKind `json:"kind"`
	Size        int64    `json:"size"`
	Batches     int64    `json:"batches"`
	Records     int64    `json:"records"`
	FirstOffset int64    `json:"firstOffset"`
	// LastOffset is the last offset of the file's last batch (what Kafka
	// takes for the end of a segment), -1 without batches.
	LastOffset int64 `json:"lastOffset"`
	// LastGoodOffset is the last offset of the clean prefix of the file
	// (-1 if none); ValidBytes is that prefix's length in bytes.
	LastGoodOffset int64 `json:"lastGoodOffset"`
	ValidBytes     int64 `json:"validBytes"`
	// Suppressed counts findings dropped beyond CheckOptions.MaxPerKind.
	Suppressed int64 `json:"suppressed,omitempty"`
}

// Report is the result of Check: plain data, sorted and deterministic.
type Report struct {
	Path     string       `json:"path"`
	Files    []FileReport `json:"files"`
	Findings []Finding    `json:"findings"`
	// LogStartOffset is the first segment's first offset (-1 without
	// segments). LogEndOffset (exclusive) is where Kafka's log would end
	// on start: after the last segment's last batch, or at the newest
	// clean snapshot's end when that is beyond the segments (Kafka then
	// restarts the log there); -1 without either.
	LogStartOffset int64 `json:"logStartOffset"`
	LogEndOffset   int64 `json:"logEndOffset"`
	// LastGoodOffset is the highest offset up to which the newest clean
	// snapshot and the segments after it read cleanly and contiguously;
	// -1 if none. It is always below LogEndOffset.
	LastGoodOffset int64 `json:"lastGoodOffset"`
	// Stats (CheckOptions.Stats) describe the log: its segments' batches
	// and records only. A snapshot's or bootstrap file's are no part of
	// the log (its offsets restart at 0, its epoch is the snapshot's or
	// 0): SnapshotStats has them, one file each, in reading order.
	Stats         *Stats      `json:"stats,omitempty"`
	SnapshotStats []FileStats `json:"snapshotStats,omitempty"`
}

// FileStats are the statistics of one snapshot or bootstrap file.
type FileStats struct {
	Path string   `json:"path"`
	Kind FileKind `json:"kind"`
	// Snapshot is the snapshot's id (end offset and epoch) when its name
	// gives one.
	Snapshot *SnapshotID `json:"snapshot,omitempty"`
	Stats    *Stats      `json:"stats"`
}

// Errors counts error-severity findings.
func (r *Report) Errors() int { return model.CountSeverity(r.Findings, model.SevError) }

// OK reports whether no error-severity finding was made.
func (r *Report) OK() bool { return r.Errors() == 0 }

// Damage returns the first error finding in reading order (the data files
// in the order Kafka reads them, then by byte position), or nil when the
// report has none. It is the one answer to "where is this input damaged"
// that log check, log dump and image give.
func (r *Report) Damage() *Finding {
	var best *Finding
	for _, fr := range r.Files {
		for i := range r.Findings {
			f := &r.Findings[i]
			if f.Severity != model.SevError || f.Where == nil || f.Where.File != fr.Path {
				continue
			}
			if best == nil || f.Where.Position < best.Where.Position ||
				(f.Where.Position == best.Where.Position && model.CompareFindings(*f, *best) < 0) {
				best = f
			}
		}
		if best != nil {
			return best
		}
	}
	for i := range r.Findings {
		if r.Findings[i].Severity == model.SevError {
			return &r.Findings[i]
		}
	}
	return nil
}

// CheckOptions tunes Check.
type CheckOptions struct {
	// Strict also checks the rules KRaft's raft layer enforces (doc.go,
	// "KRaft rules").
	Strict bool
	// DecodeValue, when set, is called with every data record's value
	// (frame header included); an error becomes a record-decode finding.
	// By default only the frame header is checked. Large files are
	// checked in parallel (check_fast.go), so DecodeValue is called from
	// several goroutines at once: it must be safe for that (a pure
	// function, such as records.ValidateMetadata).
	DecodeValue func(value []byte) error
	// ValidValue, when set with DecodeValue, is the clean path's verdict:
	// a value it accepts is one DecodeValue would return nil for, and
	// DecodeValue is called only for the others (to say why, or that an
	// unknown type is no damage). It must be as safe for concurrent use
	// as DecodeValue (records.ValidMetadata is).
	ValidValue func(value []byte) bool
	// Stats adds streaming statistics to the report.
	Stats bool
	// MaxPerKind caps findings per file and kind (default 100); the rest
	// are counted in FileReport.Suppressed.
	MaxPerKind int
	Reader     ReaderOptions
	// Progress, when set, is called after each batch with the bytes read
	// so far and the total size of the files to check.
	Progress func(done, total int64)
}

// Check reads everything at path (see OpenLogDir) and reports problems. It
// returns an error only when it cannot run at all: a path that does not
// exist or holds nothing KRaft. Damage inside the files is reported as
// findings.
func Check(path string, opts CheckOptions) (*Report, error) {
	d, err := OpenLogDir(path)
	if err != nil {
		return nil, err
	}
	return CheckDir(d, opts)
}

// CheckDir is Check over an already opened directory: every data file in
// reading order through one Checker.
func CheckDir(d *LogDir, opts CheckOptions) (*Report, error) {
	c := NewChecker(d, opts)
	for _, f := range d.DataFiles() {
		c.CheckFile(f)
	}
	return c.Report(), nil
}

// Checker applies check's rules to batches as a reader yields them, so
// that every reader of a log (log check, log dump, image replay) reaches
// the same verdict from the same rules in a single pass: feed it each
// data file of a LogDir in DataFiles order (BeginFile, Batch for every
// batch, EndFile), then take the Report.
type Checker struct {
	opts   CheckOptions
	d      *LogDir
	rep    *Report
	counts map[[2]string]int
	// stats collects the segments' statistics (CheckOptions.Stats);
	// fstats is the current file's collector: stats for a segment, its
	// own for a snapshot or bootstrap file, kept in snapStats.
	stats     *Stats
	fstats    *Stats
	snapStats []FileStats

	// Bytes read so far and in all, for Progress.
	done, total int64

	// Log-wide state across segments.
	prevLast  int64
	havePrev  bool
	lastEpoch int32
	maxEpoch  int32           // what Kafka's leader-epoch cache ends at
	epochSeen map[int32]int64 // epoch -> first offset in the segments
	// scannedThrough is the last offset of the last segment batch read:
	// what the leader-epoch cross-check may speak about.
	scannedThrough int64
	newestGood     int64 // last offset of the newest clean snapshot
	segs           []segResult

	f        DataFile
	s        *fileScan
	batchErr bool        // an error finding was made since the batch began
	pre      *prechecked // the current batch's records, walked by a worker
}

type segResult struct {
	fr    FileReport
	clean bool
}

// fileScan is the state of the file being checked.
type fileScan struct {
	fr             FileReport
	clean          bool
	first          bool
	prevLast       int64
	lastPos        int64
	firstControl   ControlType
	firstIsControl bool
	lastControl    ControlType
	lastIsControl  bool
	footerSeen     bool
	afterFooter    bool
	epochReported  bool
	segIndex       int // index in LogDir.Segments, -1 for other files
}

// NewChecker starts a check of d: the problems OpenLogDir met and the
// unknown files are reported at once.
func NewChecker(d *LogDir, opts CheckOptions) *Checker {
	if opts.MaxPerKind <= 0 {
		opts.MaxPerKind = 100
	}
	c := &Checker{
		opts:           opts,
		d:              d,
		rep:            &Report{Path: d.Path, LogStartOffset: -1, LogEndOffset: -1, LastGoodOffset: -1},
		counts:         map[[2]string]int{},
		epochSeen:      map[int32]int64{},
		lastEpoch:      -1,
		maxEpoch:       -1,
		scannedThrough: -1,
		newestGood:     -1,
	}
	if opts.Stats {
		c.stats = NewStats()
	}
	for _, f := range d.DataFiles() {
		c.total += f.Size
	}
	for _, p := range d.Problems {
		c.fileProblem(p)
	}
	if mp := d.MetaProperties; mp != nil && mp.ClusterIDProblem != nil {
		c.add(relax(errorFinding(mp.ClusterIDProblem)))
	}
	if qs := d.QuorumState; qs != nil && qs.Problem != nil {
		c.add(relax(errorFinding(qs.Problem)))
	}
	// Files Kafka's readers take but no Kafka writes (issue 29).
	if mp := d.MetaProperties; mp != nil && mp.Damage != nil {
		c.fileProblem(mp.Damage)
	}
	if qs := d.QuorumState; qs != nil && qs.Damage != nil {
		c.fileProblem(qs.Damage)
	}
	for _, u := range d.Unknown {
		dir := d.PartitionDir
		if dir == "" {
			dir = d.Root
		}
		c.addf(KindUnknownFile, filepath.Join(dir, u), -1, -1, "not a file Kafka writes in a metadata log dir")
	}
	return c
}

// CheckFile reads f whole through the checker.
func (c *Checker) CheckFile(f DataFile) {
	c.BeginFile(f)
	r, err := c.openSource(f) // in parallel for large files (check_fast.go)
	if err != nil {
		c.EndFile(err)
		return
	}
	defer r.Close()
	for {
		b, pre, err := r.Next()
		if err == io.EOF {
			c.EndFile(nil)
			return
		}
		if err != nil && !errors.Is(err, ErrCRC) {
			c.EndFile(err)
			return
		}
		c.batchPrechecked(b, err, pre)
	}
}

// BeginFile starts the checks of one data file.
func (c *Checker) BeginFile(f DataFile) {
	c.f = f
	if c.stats != nil {
		c.fstats = c.stats
		if f.Kind != KindSegment {
			c.fstats = NewStats()
			c.snapStats = append(c.snapStats, FileStats{Path: f.Path, Kind: f.Kind, Snapshot: f.Snapshot, Stats: c.fstats})
		}
	}
	c.s = &fileScan{
		fr:    FileReport{Path: f.Path, Kind: f.Kind, Size: f.Size, FirstOffset: -1, LastOffset: -1, LastGoodOffset: -1},
		clean: true, first: true, lastPos: -1, segIndex: -1,
	}
	if f.Kind == KindSegment {
		for i := range c.d.Segments {
			if c.d.Segments[i].Path == f.Path {
				c.s.segIndex = i
			}
		}
	}
}

// Batch checks one batch; readErr is the reader's error that came with it
// (nil, or a CRC mismatch). It reports whether the batch is damaged: an
// error finding was made about it, so a reader that trusts only what
// check accepts must stop before it.
func (c *Checker) Batch(b *Batch, readErr error) bool {
	s, f := c.s, c.f
	c.batchErr = false
	if readErr != nil {
		c.errFinding(f.Path, escalate(errorFinding(readErr)))
	}
	s.fr.Batches++
	s.fr.Records += int64(b.RecordsCount)
	if c.opts.Progress != nil {
		c.done += b.Size()
		c.opts.Progress(c.done, c.total)
	}
	if s.first {
		s.fr.FirstOffset = b.BaseOffset
	} else if b.BaseOffset > s.prevLast+1 {
		c.addf(KindOffsetGap, f.Path, b.Position, b.BaseOffset, "batch starts at %d, previous batch ended at %d", b.BaseOffset, s.prevLast)
	} else if b.BaseOffset <= s.prevLast {
		c.addf(KindOffsetOverlap, f.Path, b.Position, b.BaseOffset, "batch starts at %d, previous batch ended at %d", b.BaseOffset, s.prevLast)
	}
	if b.LastOffsetDelta < 0 {
		c.addf(KindBadLength, f.Path, b.Position, b.BaseOffset, "negative lastOffsetDelta %d", b.LastOffsetDelta)
	}
	switch f.Kind {
	case KindSegment:
		c.segmentBatch(b)
	case KindSnapshot, KindBootstrap:
		c.snapshotBatch(b)
	}
	s.prevLast = b.LastOffset()
	s.fr.LastOffset = s.prevLast
	s.lastPos = b.Position
	// The contents of a batch failing its CRC are not trustworthy;
	// reporting rule violations in them would only add noise.
	if !b.CRCChecked || b.CRCValid {
		c.records(f, b, s)
		if s.lastIsControl && s.lastControl == ControlSnapshotFooter {
			s.footerSeen = true
		}
	}
	if c.batchErr {
		s.clean = false
	}
	if s.clean {
		s.fr.LastGoodOffset = b.LastOffset()
		s.fr.ValidBytes = b.Position + b.Size()
	}
	if c.fstats != nil {
		c.fstats.AddBatch(b)
	}
	s.first = false
	return c.batchErr
}

// segmentBatch checks the log-wide rules: the first batch at the file
// name's offset, contiguous offsets across segments, and leader epochs
// that never go back. An epoch field that is wrong once is reported once:
// the next batch is compared with the one before it, not with the highest
// epoch seen.
func (c *Checker) segmentBatch(b *Batch) {
	s, f := c.s, c.f
	if s.first && f.BaseOffset >= 0 && b.BaseOffset != f.BaseOffset {
		c.addf(KindSegmentBase, f.Path, b.Position, b.BaseOffset, "first batch at offset %d, file name says %d", b.BaseOffset, f.BaseOffset)
	}
	if c.havePrev && s.first {
		switch {
		case b.BaseOffset > c.prevLast+1:
			c.addf(KindOffsetGap, f.Path, b.Position, b.BaseOffset, "segment starts at %d, previous segment ended at %d", b.BaseOffset, c.prevLast)
		case b.BaseOffset <= c.prevLast:
			c.addf(KindOffsetOverlap, f.Path, b.Position, b.BaseOffset, "segment starts at %d, previous segment ended at %d", b.BaseOffset, c.prevLast)
		}
	}
	c.prevLast, c.havePrev = b.LastOffset(), true
	c.scannedThrough = b.LastOffset()
	e := b.PartitionLeaderEpoch
	switch {
	case e < c.lastEpoch:
		c.addf(KindEpochRegression, f.Path, b.Position, b.BaseOffset, "partitionLeaderEpoch %d after epoch %d", e, c.lastEpoch)
	case e > c.lastEpoch && c.lastEpoch >= 0 && !c.leaderChangeStarts(b):
		// Kept out of lastEpoch and the epochs seen, so that the next
		// batch is compared with the last trustworthy one and one bad
		// field is one finding.
		c.addf(KindEpochNoLeaderChange, f.Path, b.Position, b.BaseOffset,
			"partitionLeaderEpoch %d after epoch %d, but the batch is not the LeaderChange a leader of epoch %d writes first (partitionLeaderEpoch is not covered by the CRC)", e, c.lastEpoch, e)
		return
	case e > c.lastEpoch:
		if _, ok := c.epochSeen[e]; !ok {
			c.epochSeen[e] = b.BaseOffset
		}
	}
	c.lastEpoch = e
	c.maxEpoch = max(c.maxEpoch, e)
}

// leaderChangeStarts says whether b may open a leader epoch: a control
// batch whose first record is a LeaderChange, or an epoch already met
// (a batch whose epoch was reported once returns to it), or a batch whose
// CRC fails (its contents are reported already and cannot be trusted).
func (c *Checker) leaderChangeStarts(b *Batch) bool {
	if _, seen := c.epochSeen[b.PartitionLeaderEpoch]; seen || (b.CRCChecked && !b.CRCValid) {
		return true
	}
	t, ok := firstControlType(b)
	return ok && t == ControlLeaderChange
}

// snapshotBatch checks what a snapshot or bootstrap file must hold: every
// batch at the snapshot's epoch, and nothing after the SnapshotFooter
// (Kafka's snapshot reader stops there).
func (c *Checker) snapshotBatch(b *Batch) {
	s, f := c.s, c.f
	if f.Snapshot != nil && b.PartitionLeaderEpoch != f.Snapshot.Epoch && !s.epochReported {
		c.addf(KindSnapshotEpoch, f.Path, b.Position, b.BaseOffset, "partitionLeaderEpoch %d, snapshot epoch is %d", b.PartitionLeaderEpoch, f.Snapshot.Epoch)
		s.epochReported = true
	}
	if f.Kind == KindBootstrap && b.PartitionLeaderEpoch != 0 && !s.epochReported {
		// BatchFileWriter writes epoch 0 and BatchFileReader never looks
		// at it: the file still loads, but not as Kafka wrote it.
		c.add(relax(finding(KindSnapshotEpoch, f.Path, b.Position, b.BaseOffset, "partitionLeaderEpoch %d; kafka-storage writes bootstrap batches at epoch 0 (Kafka's bootstrap reader ignores it)", b.PartitionLeaderEpoch)))
		s.epochReported = true
	}
	if s.footerSeen && !s.afterFooter {
		c.addf(KindSnapshotAfterFooter, f.Path, b.Position, b.BaseOffset, "batch after the SnapshotFooter: Kafka's snapshot reader stops at the footer")
		s.afterFooter = true
	}
}

// EndFile ends the current file; err is the reader's terminal error (nil
// at a clean end of file).
func (c *Checker) EndFile(err error) {
	s, f := c.s, c.f
	c.batchErr = false
	if err != nil {
		s.clean = false
		var fe *FileError
		switch {
		case errors.As(err, &fe):
			c.fileProblem(err)
		case s.segIndex >= 0 && s.segIndex == len(c.d.Segments)-1 && errors.Is(err, ErrTornTail):
			// Kafka may be appending right now, and recovery truncates a
			// torn tail of the active segment anyway.
			c.errFinding(f.Path, errorFinding(err))
		default:
			c.errFinding(f.Path, escalate(errorFinding(err)))
		}
	}
	switch f.Kind {
	case KindSnapshot, KindBootstrap:
		c.endSnapshot(err)
	case KindSegment:
		if err == nil && s.fr.Batches == 0 && s.segIndex >= 0 && s.segIndex < len(c.d.Segments)-1 &&
			(!c.havePrev || c.prevLast < f.BaseOffset-1) {
			// An empty segment that is not the last: its offsets, from its
			// base to the next segment's, are in no batch. Kafka reads past
			// them without a word; check reports the gap at the next
			// segment's first batch.
			c.prevLast, c.havePrev = f.BaseOffset-1, true
		}
		c.segs = append(c.segs, segResult{fr: s.fr, clean: s.clean})
	}
	c.rep.Files = append(c.rep.Files, s.fr)
	c.s = nil
}

func (c *Checker) endSnapshot(err error) {
	s, f := c.s, c.f
	if s.fr.Batches == 0 && err == nil {
		c.addf(KindEmptyFile, f.Path, 0, -1, "no batches")
		s.clean = false
	}
	if err == nil && s.fr.Batches > 0 {
		if s.fr.FirstOffset != 0 {
			c.addf(KindSnapshotOffsets, f.Path, 0, s.fr.FirstOffset, "first offset %d, snapshots start at 0", s.fr.FirstOffset)
			s.clean = false
		}
		if !s.firstIsControl || s.firstControl != ControlSnapshotHeader {
			c.addf(KindSnapshotHeader, f.Path, 0, s.fr.FirstOffset, "first record is not a SnapshotHeader control record")
			s.clean = false
		}
		if !s.footerSeen {
			c.addf(KindSnapshotFooter, f.Path, s.lastPos, s.fr.LastOffset, "last record is not a SnapshotFooter control record")
			s.clean = false
		}
	}
	if c.batchErr {
		s.clean = false
		s.fr.LastGoodOffset = -1
	}
	if f.Kind == KindSnapshot && s.clean && f.Snapshot != nil {
		c.newestGood = max(c.newestGood, f.Snapshot.EndOffset-1)
	}
}

// Findings returns the findings made so far, in the order they were made.
func (c *Checker) Findings() []Finding { return c.rep.Findings }

// Damage is Report.Damage over what the checker has seen so far.
func (c *Checker) Damage() *Finding {
	r := Report{Files: c.rep.Files, Findings: c.rep.Findings}
	if c.s != nil {
		r.Files = append(r.Files[:len(r.Files):len(r.Files)], c.s.fr)
	}
	d := r.Damage()
	if d == nil {
		return nil
	}
	x := model.CloneFindings([]Finding{*d})[0]
	return &x
}

// Report finishes the check: the log offsets, the cross-file checks and
// the one sort order.
func (c *Checker) Report() *Report {
	rep := c.rep
	if len(c.segs) > 0 {
		rep.LogStartOffset = c.d.Segments[0].BaseOffset
		rep.LogEndOffset = rep.LogStartOffset
		for _, sr := range c.segs {
			if sr.fr.Batches > 0 {
				if rep.LogStartOffset == c.d.Segments[0].BaseOffset && rep.LogEndOffset == rep.LogStartOffset {
					rep.LogStartOffset = sr.fr.FirstOffset
				}
				rep.LogEndOffset = sr.fr.LastOffset + 1
			}
		}
	}
	if c.newestGood >= 0 && c.newestGood+1 > rep.LogEndOffset {
		rep.LogEndOffset = c.newestGood + 1
	}
	rep.LastGoodOffset = c.goodChain()
	if rep.LastGoodOffset >= rep.LogEndOffset {
		// Never below -1: a snapshot that ends at offset 0 (what
		// kafka-storage format writes) covers no offset of the log.
		rep.LastGoodOffset = max(rep.LogEndOffset-1, -1)
	}
	c.crossChecks(c.d)
	model.SortFindings(rep.Findings)
	if c.stats != nil {
		rep.Stats = c.stats.Finish()
		for _, fs := range c.snapStats {
			fs.Stats.Finish()
		}
		rep.SnapshotStats = c.snapStats
	}
	if rep.Files == nil {
		rep.Files = []FileReport{}
	}
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	return rep
}

// goodChain is the last offset of the good chain: from the newest clean
// snapshot (or the first segment) through contiguous clean segments.
// Segments wholly below the snapshot do not break it: replay never reads
// them.
func (c *Checker) goodChain() int64 {
	good := c.newestGood
	started := good >= 0
	for i, sr := range c.segs {
		if sr.fr.Batches == 0 {
			continue
		}
		if started && i+1 < len(c.segs) && c.segs[i+1].fr.FirstOffset >= 0 && c.segs[i+1].fr.FirstOffset <= good+1 {
			continue
		}
		if !started {
			if i > 0 {
				break
			}
			started = true
		} else if sr.fr.FirstOffset > good+1 {
			break
		}
		if sr.fr.LastGoodOffset >= 0 {
			good = max(good, sr.fr.LastGoodOffset)
		}
		if !sr.clean {
			break
		}
	}
	return good
}

func (c *Checker) add(f Finding) {
	if f.Severity == model.SevError {
		c.batchErr = true
	}
	file := ""
	if f.Where != nil {
		file = f.Where.File
	}
	key := [2]string{file, f.Code}
	c.counts[key]++
	if c.counts[key] > c.opts.MaxPerKind {
		if c.s != nil && c.s.fr.Path == file {
			c.s.fr.Suppressed++
		}
		return
	}
	c.rep.Findings = append(c.rep.Findings, f)
}

// finding builds a log finding at a file position and offset.
// Its severity is the check's (checkOf).
func finding(code string, file string, pos, off int64, format string, args ...any) Finding {
	w := model.At(file, pos, off)
	return Finding{Code: code, Severity: checkOf(code).Severity, Class: FindingClass, Message: fmt.Sprintf(format, args...), Where: &w}
}

func (c *Checker) addf(code string, file string, pos, off int64, format string, args ...any) {
	c.add(finding(code, file, pos, off, format, args...))
}

// errorKind maps a reader error to a finding code.
func errorKind(err error) string {
	switch {
	case errors.Is(err, ErrTornTail):
		return KindTornTail
	case errors.Is(err, ErrCRC):
		return KindCRCMismatch
	case errors.Is(err, ErrBadMagic):
		return KindBadMagic
	case errors.Is(err, ErrBadLength):
		return KindBadLength
	case errors.Is(err, ErrBadRecord):
		return KindBadRecord
	case errors.Is(err, ErrCompression):
		return KindCompressionError
	case errors.Is(err, ErrFileName):
		return KindBadFileName
	case errors.Is(err, ErrProperties):
		return KindBadProperties
	case errors.Is(err, ErrSnapshot):
		return KindSnapshotHeader
	case errors.Is(err, ErrNoLog):
		return KindNoMetadataLog
	}
	return KindUnreadable
}

// errorFinding turns a package error into a finding with its location, at
// its check's severity. A caller reporting it as damage escalates it (a
// torn tail anywhere but at the end of the active segment); one reporting
// what Kafka reads but would not write relaxes it (bad-properties).
func errorFinding(err error) Finding {
	code := errorKind(err)
	f := Finding{Code: code, Severity: checkOf(code).Severity, Class: FindingClass, Message: err.Error()}
	w := model.NoLocation()
	var ce *CorruptionError
	var pe *PropsError
	var fe *FileError
	switch {
	case errors.As(err, &ce):
		w.File, w.Position, w.Offset = ce.File, ce.Position, ce.Offset
		f.Message = ce.Err.Error()
	case errors.As(err, &pe):
		w.File, w.Position, w.Line = pe.File, pe.Position, pe.Line
		f.Message = pe.Err.Error()
	case errors.As(err, &fe):
		w.File = fe.File
		f.Message = fe.Err.Error()
	}
	f.Where = &w
	return f
}

// errFinding adds f, a reader error's finding, naming file when the error
// does not.
func (c *Checker) errFinding(file string, f Finding) {
	if f.Where.File == "" {
		f.Where.File = file
	}
	c.add(f)
}

func (c *Checker) fileProblem(err error) { c.add(escalate(errorFinding(err))) }

// records walks one batch's records: frame header, optional decode hook,
// strict KRaft rules, and the first/last control types for snapshots.
func (c *Checker) records(f DataFile, b *Batch, s *fileScan) {
	if c.pre != nil { // walked already by a worker (check_fast.go)
		c.applyPrechecked(c.pre, s)
		return
	}
	firstBatch := s.first
	if c.opts.Strict {
		c.batchRules(f.Path, b)
	}
	done, pos, n := c.fastRecords(f.Path, b, s) // check_records.go
	if done {
		return
	}
	it := b.Records()
	it.pos, it.n = pos, n
	for it.Next() {
		rec := it.Record()
		if b.IsControl() {
			t, ok := ParseControlKey(rec.Key)
			if firstBatch && rec.Index == 0 {
				s.firstIsControl, s.firstControl = ok, t
			}
			s.lastIsControl, s.lastControl = ok, t
			if !ok {
				if c.opts.Strict {
					c.addf(KindKRaftControlKey, f.Path, b.Position, rec.Offset, "control record key %x is not int16 version + int16 type", rec.Key)
				}
			} else if f.Kind == KindBootstrap && (t == ControlKRaftVersion || t == ControlKRaftVoters) {
				c.addf(KindBootstrapControl, f.Path, b.Position, rec.Offset, "%s control record in bootstrap.checkpoint: Kafka refuses to read it", t)
			} else if c.opts.Strict && !t.KRaftLegal() {
				c.addf(KindKRaftControlType, f.Path, b.Position, rec.Offset, "control type %s is not legal in the metadata log", t)
			}
		} else {
			s.lastIsControl = false
			c.frame(f.Path, b, rec)
		}
		if c.opts.Strict {
			c.recordRules(f.Path, b, rec)
		}
		if c.fstats != nil {
			c.fstats.AddRecord(b, rec)
		}
	}
	if err := it.Err(); err != nil {
		c.errFinding(f.Path, escalate(errorFinding(err)))
	}
}

// frame checks a data record's metadata frame header (and runs the decode
// hook). A null or empty value is a strict-mode finding, not a frame one.
func (c *Checker) frame(file string, b *Batch, rec *Record) {
	if len(rec.Value) == 0 {
		return
	}
	fr, err := records.ParseFrame(rec.Value)
	switch {
	case errors.Is(err, records.ErrFrameVersion):
		c.addf(KindFrameVersion, file, b.Position, rec.Offset, "frame version %d, want 1", fr.FrameVersion)
		return
	case err != nil:
		c.addf(KindFrameHeader, file, b.Position, rec.Offset, "%v", err)
		return
	}
	if c.opts.DecodeValue != nil && (c.opts.ValidValue == nil || !c.opts.ValidValue(rec.Value)) {
		if err := c.opts.DecodeValue(rec.Value); err != nil {
			c.decodeFailed(file, b, rec.Offset, int64(fr.APIKey), int64(fr.Version), err)
		}
	}
}

// decodeFailed reports a record body the decode hook refused. A type or
// version this kmeta does not know is no damage of the file (a newer
// Kafka may have written it), so it is a warning of its own, and the last
// known-good offset goes on; but Kafka's own reader throws on a type or
// version it does not know, and image and log dump skip the record, so
// log check fails on it too (report.CheckOK) rather than call the log
// healthy.
func (c *Checker) decodeFailed(file string, b *Batch, off, apiKey, version int64, err error) {
	code := KindRecordDecode
	if errors.Is(err, records.ErrUnknownType) || errors.Is(err, records.ErrUnknownVersion) {
		code = KindRecordUnknown
	}
	c.addf(code, file, b.Position, off, "apiKey %d v%d: %v", apiKey, version, err)
}

// batchRules checks what KRaft writes in every batch header.
func (c *Checker) batchRules(file string, b *Batch) {
	if b.Compression() != CompressionNone {
		c.addf(KindKRaftCompressed, file, b.Position, b.BaseOffset, "batch compressed with %s; KRaft never compresses (readers accept it)", b.Compression())
	}
	if b.ProducerID != -1 || b.ProducerEpoch != -1 || b.BaseSequence != -1 {
		c.addf(KindKRaftProducer, file, b.Position, b.BaseOffset, "producerId %d, producerEpoch %d, baseSequence %d; KRaft writes -1", b.ProducerID, b.ProducerEpoch, b.BaseSequence)
	}
	if b.Attributes.Transactional() || b.Attributes.LogAppendTime() || b.Attributes.DeleteHorizon() {
		c.addf(KindKRaftAttributes, file, b.Position, b.BaseOffset, "attributes %#04x set bits KRaft never sets", uint16(b.Attributes))
	}
	if b.RecordsCount > 0 && b.LastOffsetDelta != b.RecordsCount-1 {
		c.addf(KindKRaftOffsetDelta, file, b.Position, b.BaseOffset, "lastOffsetDelta %d with %d records", b.LastOffsetDelta, b.RecordsCount)
	}
}

// recordRules checks the per-record rules of KRaft's RecordsIterator.
func (c *Checker) recordRules(file string, b *Batch, rec *Record) bool {
	ok := true
	bad := func(kind, format string, args ...any) {
		c.addf(kind, file, b.Position, rec.Offset, format, args...)
		ok = false
	}
	if rec.TimestampDelta != 0 {
		bad(KindKRaftTimestampDelta, "timestampDelta %d, KRaft requires 0", rec.TimestampDelta)
	}
	if len(rec.Headers) != 0 {
		bad(KindKRaftHeaders, "%d headers, KRaft requires none", len(rec.Headers))
	}
	if int64(rec.OffsetDelta) != int64(rec.Index) {
		bad(KindKRaftOffsetDelta, "record %d has offsetDelta %d", rec.Index, rec.OffsetDelta)
	}
	if b.IsControl() {
		if len(rec.Key) == 0 {
			bad(KindKRaftControlKey, "control record without a key")
		}
		if len(rec.Value) == 0 {
			bad(KindKRaftEmptyValue, "control record with an empty value")
		}
	} else {
		if rec.Key != nil {
			bad(KindKRaftDataKey, "data record with a %d-byte key, KRaft requires a null key", len(rec.Key))
		}
		if len(rec.Value) == 0 {
			bad(KindKRaftEmptyValue, "data record with a null or empty value")
		}
	}
	return ok
}

// crossChecks compares the files with each other and with quorum-state,
// leader-epoch-checkpoint and partition.metadata.
func (c *Checker) crossChecks(d *LogDir) {
	dir := d.PartitionDir
	if dir == "" {
		dir = d.Path
	}
	if start := d.LogStartOffset(); start > 0 && d.PartitionDir != "" {
		covered := false
		for _, s := range d.Snapshots {
			if s.Snapshot.EndOffset >= start {
				covered = true
			}
		}
		if !covered {
			c.addf(KindCoverageHole, dir, -1, start, "log starts at offset %d and no snapshot reaches it: offsets [0, %d) are missing", start, start)
		}
	}
	if qs := d.QuorumState; qs != nil && qs.Damage == nil && c.maxEpoch >= 0 && qs.LeaderEpoch < c.maxEpoch {
		f := finding(KindQuorumStateEpoch, filepath.Join(dir, QuorumStateFileName), qs.LeaderEpochPos, -1,
			"leaderEpoch %d is below the log's last epoch %d (Kafka warns and uses the log's)", qs.LeaderEpoch, c.maxEpoch)
		f.Where.Line = 1
		c.add(f)
	}
	if d.LeaderEpochs != nil && len(d.Segments) > 0 {
		path := filepath.Join(dir, LeaderEpochFileName)
		logStart := c.rep.LogStartOffset
		for i, e := range d.LeaderEpochs {
			first, ok := c.epochSeen[e.Epoch]
			// Speak only about offsets the segments were read through:
			// below the log start the batches are gone, and past a damaged
			// segment they were never seen.
			if e.StartOffset < logStart || e.StartOffset > c.scannedThrough {
				continue
			}
			var f Finding
			switch {
			case !ok:
				f = finding(KindLeaderEpochMismatch, path, -1, e.StartOffset, "epoch %d starts at %d but no batch of that epoch is in the segments", e.Epoch, e.StartOffset)
			case first != e.StartOffset:
				f = finding(KindLeaderEpochMismatch, path, -1, e.StartOffset, "epoch %d starts at %d, the segments say %d", e.Epoch, e.StartOffset, first)
			default:
				continue
			}
			f.Where.Line = i + 3 // after the version and count lines
			c.add(f)
		}
	}
	if pm := d.PartitionMetadata; pm != nil && pm.TopicID != MetadataTopicID {
		f := relax(finding(KindPartitionTopicID, filepath.Join(dir, PartitionMetadataFileName), -1, -1, "topic_id %s, __cluster_metadata uses %s", pm.TopicID, MetadataTopicID))
		f.Where.Line = 2
		c.add(f)
	}
}
