package metalog

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
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
	KindSnapshotOffsets     = "snapshot-offsets"
	KindSnapshotEpoch       = "snapshot-epoch-mismatch"
	KindBootstrapControl    = "bootstrap-control-type"
	KindFrameHeader         = "frame-header"
	KindFrameVersion        = "frame-version"
	KindRecordDecode        = "record-decode"
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

// Severity of a finding.
type Severity string

// Severities. Errors make a check fail; warnings are reported only.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem check found.
type Finding struct {
	Kind     string   `json:"kind"`
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	// Position is the byte position in File, -1 when the finding is about
	// the file or directory as a whole.
	Position int64 `json:"position"`
	// Offset is the batch (or record) offset, -1 when unknown.
	Offset  int64  `json:"offset"`
	Message string `json:"message"`
}

// FileReport summarises one data file.
type FileReport struct {
	Path        string   `json:"path"`
	Kind        FileKind `json:"kind"`
	Size        int64    `json:"size"`
	Batches     int64    `json:"batches"`
	Records     int64    `json:"records"`
	FirstOffset int64    `json:"firstOffset"`
	LastOffset  int64    `json:"lastOffset"`
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
	// LogStartOffset and LogEndOffset describe the segments (-1 without).
	// LogEndOffset is exclusive.
	LogStartOffset int64 `json:"logStartOffset"`
	LogEndOffset   int64 `json:"logEndOffset"`
	// LastGoodOffset is the highest offset up to which the newest snapshot
	// and the segments read cleanly and contiguously; -1 if none.
	LastGoodOffset int64  `json:"lastGoodOffset"`
	Stats          *Stats `json:"stats,omitempty"`
}

// Errors counts error-severity findings.
func (r *Report) Errors() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			n++
		}
	}
	return n
}

// OK reports whether no error-severity finding was made.
func (r *Report) OK() bool { return r.Errors() == 0 }

// CheckOptions tunes Check.
type CheckOptions struct {
	// Strict also checks the rules KRaft's raft layer enforces (doc.go,
	// "KRaft rules").
	Strict bool
	// DecodeValue, when set, is called with every data record's value
	// (frame header included); an error becomes a record-decode finding.
	// By default only the frame header is checked.
	DecodeValue func(value []byte) error
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

// CheckDir is Check over an already opened directory.
func CheckDir(d *LogDir, opts CheckOptions) (*Report, error) {
	if opts.MaxPerKind <= 0 {
		opts.MaxPerKind = 100
	}
	c := &checker{
		opts:      opts,
		rep:       &Report{Path: d.Path, LogStartOffset: -1, LogEndOffset: -1, LastGoodOffset: -1},
		counts:    map[[2]string]int{},
		epochSeen: map[int32]int64{},
		lastEpoch: -1,
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
	for _, u := range d.Unknown {
		dir := d.PartitionDir
		if dir == "" {
			dir = d.Root
		}
		c.add(Finding{Kind: KindUnknownFile, Severity: SeverityWarning, File: filepath.Join(dir, u), Position: -1, Offset: -1,
			Message: "not a file Kafka writes in a metadata log dir"})
	}
	if d.Bootstrap != nil {
		c.checkFile(*d.Bootstrap)
	}
	newestGood := int64(-1)
	for _, s := range d.Snapshots {
		if _, clean := c.checkFile(s); clean && s.Snapshot != nil {
			newestGood = s.Snapshot.EndOffset - 1
		}
	}
	c.rep.LastGoodOffset = newestGood
	logClean := true
	for i, s := range d.Segments {
		fr, clean := c.checkSegment(s, i == len(d.Segments)-1)
		if fr.Batches > 0 {
			if c.rep.LogStartOffset < 0 {
				c.rep.LogStartOffset = fr.FirstOffset
			}
			c.rep.LogEndOffset = fr.LastOffset + 1
		}
		// The good chain runs from the newest clean snapshot (or the first
		// segment) through contiguous clean segments.
		if logClean && fr.LastGoodOffset >= 0 {
			contiguous := fr.FirstOffset <= c.rep.LastGoodOffset+1 || (i == 0 && newestGood < 0)
			if contiguous {
				c.rep.LastGoodOffset = max(c.rep.LastGoodOffset, fr.LastGoodOffset)
			} else {
				logClean = false
			}
		}
		logClean = logClean && clean
	}
	if len(d.Segments) > 0 && c.rep.LogStartOffset < 0 {
		c.rep.LogStartOffset = d.Segments[0].BaseOffset
		c.rep.LogEndOffset = d.Segments[0].BaseOffset
	}
	c.crossChecks(d)
	sort.SliceStable(c.rep.Findings, func(i, j int) bool {
		a, b := c.rep.Findings[i], c.rep.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Position != b.Position {
			return a.Position < b.Position
		}
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Message < b.Message
	})
	if c.stats != nil {
		c.rep.Stats = c.stats.Finish()
	}
	if c.rep.Files == nil {
		c.rep.Files = []FileReport{}
	}
	if c.rep.Findings == nil {
		c.rep.Findings = []Finding{}
	}
	return c.rep, nil
}

type checker struct {
	opts   CheckOptions
	rep    *Report
	counts map[[2]string]int
	stats  *Stats
	cur    *FileReport

	// Bytes read so far and in all, for Progress.
	done, total int64

	// Log-wide state across segments.
	prevLast  int64
	havePrev  bool
	lastEpoch int32
	epochSeen map[int32]int64 // epoch -> first offset in the segments

	pre *prechecked // the current batch's records, checked in parallel
}

func (c *checker) add(f Finding) {
	key := [2]string{f.File, f.Kind}
	c.counts[key]++
	if c.counts[key] > c.opts.MaxPerKind {
		if c.cur != nil && c.cur.Path == f.File {
			c.cur.Suppressed++
		}
		return
	}
	c.rep.Findings = append(c.rep.Findings, f)
}

func (c *checker) addf(kind string, sev Severity, file string, pos, off int64, format string, args ...any) {
	c.add(Finding{Kind: kind, Severity: sev, File: file, Position: pos, Offset: off, Message: fmt.Sprintf(format, args...)})
}

// errorKind maps a reader error to a finding kind.
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
	}
	return KindUnreadable
}

func (c *checker) errFinding(file string, err error, sev Severity) {
	var ce *CorruptionError
	f := Finding{Kind: errorKind(err), Severity: sev, File: file, Position: -1, Offset: -1, Message: err.Error()}
	if errors.As(err, &ce) {
		f.Position, f.Offset = ce.Position, ce.Offset
		f.Message = ce.Err.Error()
	}
	c.add(f)
}

func (c *checker) fileProblem(err error) {
	var fe *FileError
	file := ""
	if errors.As(err, &fe) {
		file = fe.File
		err = fe.Err
	}
	c.add(Finding{Kind: errorKind(err), Severity: SeverityError, File: file, Position: -1, Offset: -1, Message: err.Error()})
}

// fileScan is what one pass over a file yields besides findings.
type fileScan struct {
	fr             FileReport
	clean          bool
	firstControl   ControlType
	firstIsControl bool
	lastControl    ControlType
	lastIsControl  bool
	hardErr        error
	emptyFile      bool
}

// scan reads every batch of f, reporting framing, CRC, record and frame
// problems, and calls perBatch for the file-kind specific checks.
func (c *checker) scan(f DataFile, perBatch func(b *Batch)) fileScan {
	s := fileScan{fr: FileReport{Path: f.Path, Kind: f.Kind, Size: f.Size, FirstOffset: -1, LastOffset: -1, LastGoodOffset: -1}, clean: true}
	c.cur = &s.fr
	defer func() { c.cur = nil }()
	r, err := c.openSource(f)
	if err != nil {
		c.fileProblem(err)
		s.clean = false
		s.hardErr = err
		return s
	}
	defer r.Close()
	var prevLast int64
	first := true
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, ErrCRC) {
			s.hardErr = err
			s.clean = false
			break
		}
		if err != nil {
			c.errFinding(f.Path, err, SeverityError)
			s.clean = false
		}
		s.fr.Batches++
		s.fr.Records += int64(b.RecordsCount)
		if c.opts.Progress != nil {
			c.done += b.Size()
			c.opts.Progress(c.done, c.total)
		}
		if first {
			s.fr.FirstOffset = b.BaseOffset
		} else if b.BaseOffset > prevLast+1 {
			c.addf(KindOffsetGap, SeverityError, f.Path, b.Position, b.BaseOffset, "batch starts at %d, previous batch ended at %d", b.BaseOffset, prevLast)
		} else if b.BaseOffset <= prevLast {
			c.addf(KindOffsetOverlap, SeverityError, f.Path, b.Position, b.BaseOffset, "batch starts at %d, previous batch ended at %d", b.BaseOffset, prevLast)
		}
		if b.LastOffsetDelta < 0 {
			c.addf(KindBadLength, SeverityError, f.Path, b.Position, b.BaseOffset, "negative lastOffsetDelta %d", b.LastOffsetDelta)
		}
		prevLast = b.LastOffset()
		s.fr.LastOffset = max(s.fr.LastOffset, prevLast)
		// The contents of a batch failing its CRC are not trustworthy;
		// reporting rule violations in them would only add noise.
		recClean := true
		if !b.CRCChecked || b.CRCValid {
			recClean = c.records(f, b, &s, first)
		}
		if s.clean && recClean {
			s.fr.LastGoodOffset = b.LastOffset()
			s.fr.ValidBytes = r.Position()
		}
		s.clean = s.clean && recClean
		if perBatch != nil {
			perBatch(b)
		}
		if c.stats != nil {
			c.stats.AddBatch(b)
		}
		first = false
	}
	if s.fr.Batches == 0 && s.hardErr == nil {
		s.emptyFile = true
	}
	return s
}

// records walks one batch's records: frame header, optional decode hook,
// strict KRaft rules, and the first/last control types for snapshots.
func (c *checker) records(f DataFile, b *Batch, s *fileScan, firstBatch bool) bool {
	if c.pre != nil { // walked already by a worker (check_fast.go)
		return c.applyPrechecked(c.pre, s, firstBatch)
	}
	clean := true
	if c.opts.Strict {
		c.batchRules(f.Path, b)
	}
	it := b.Records()
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
					c.addf(KindKRaftControlKey, SeverityError, f.Path, b.Position, rec.Offset, "control record key %x is not int16 version + int16 type", rec.Key)
					clean = false
				}
			} else if f.Kind == KindBootstrap && (t == ControlKRaftVersion || t == ControlKRaftVoters) {
				c.addf(KindBootstrapControl, SeverityError, f.Path, b.Position, rec.Offset, "%s control record in bootstrap.checkpoint: Kafka refuses to read it", t)
				clean = false
			} else if c.opts.Strict && !t.KRaftLegal() {
				c.addf(KindKRaftControlType, SeverityError, f.Path, b.Position, rec.Offset, "control type %s is not legal in the metadata log", t)
				clean = false
			}
		} else {
			s.lastIsControl = false
			if !c.frame(f.Path, b, rec) {
				clean = false
			}
		}
		if c.opts.Strict && !c.recordRules(f.Path, b, rec) {
			clean = false
		}
		if c.stats != nil {
			c.stats.AddRecord(b, rec)
		}
	}
	if err := it.Err(); err != nil {
		c.errFinding(f.Path, err, SeverityError)
		return false
	}
	return clean
}

// frame checks a data record's metadata frame header (and runs the decode
// hook). A null or empty value is a strict-mode finding, not a frame one.
func (c *checker) frame(file string, b *Batch, rec *Record) bool {
	if len(rec.Value) == 0 {
		return true
	}
	fv, apiKey, ver, n := FrameHeader(rec.Value)
	switch {
	case n <= 0:
		c.addf(KindFrameHeader, SeverityError, file, b.Position, rec.Offset, "value does not start with three unsigned varints")
		return false
	case fv != 1:
		c.addf(KindFrameVersion, SeverityError, file, b.Position, rec.Offset, "frame version %d, want 1", fv)
		return false
	case apiKey > 32767 || ver > 32767:
		c.addf(KindFrameHeader, SeverityError, file, b.Position, rec.Offset, "apiKey %d / version %d above 32767", apiKey, ver)
		return false
	}
	if c.opts.DecodeValue != nil {
		if err := c.opts.DecodeValue(rec.Value); err != nil {
			c.addf(KindRecordDecode, SeverityError, file, b.Position, rec.Offset, "apiKey %d v%d: %v", apiKey, ver, err)
			return false
		}
	}
	return true
}

// batchRules checks what KRaft writes in every batch header.
func (c *checker) batchRules(file string, b *Batch) {
	if b.Compression() != CompressionNone {
		c.addf(KindKRaftCompressed, SeverityWarning, file, b.Position, b.BaseOffset, "batch compressed with %s; KRaft never compresses (readers accept it)", b.Compression())
	}
	if b.ProducerID != -1 || b.ProducerEpoch != -1 || b.BaseSequence != -1 {
		c.addf(KindKRaftProducer, SeverityWarning, file, b.Position, b.BaseOffset, "producerId %d, producerEpoch %d, baseSequence %d; KRaft writes -1", b.ProducerID, b.ProducerEpoch, b.BaseSequence)
	}
	if b.Attributes.Transactional() || b.Attributes.LogAppendTime() || b.Attributes.DeleteHorizon() {
		c.addf(KindKRaftAttributes, SeverityWarning, file, b.Position, b.BaseOffset, "attributes %#04x set bits KRaft never sets", uint16(b.Attributes))
	}
	if b.RecordsCount > 0 && b.LastOffsetDelta != b.RecordsCount-1 {
		c.addf(KindKRaftOffsetDelta, SeverityError, file, b.Position, b.BaseOffset, "lastOffsetDelta %d with %d records", b.LastOffsetDelta, b.RecordsCount)
	}
}

// recordRules checks the per-record rules of KRaft's RecordsIterator.
func (c *checker) recordRules(file string, b *Batch, rec *Record) bool {
	ok := true
	bad := func(kind, format string, args ...any) {
		c.addf(kind, SeverityError, file, b.Position, rec.Offset, format, args...)
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

// checkFile checks a snapshot or bootstrap file.
func (c *checker) checkFile(f DataFile) (FileReport, bool) {
	var epochReported bool
	s := c.scan(f, func(b *Batch) {
		if f.Snapshot != nil && b.PartitionLeaderEpoch != f.Snapshot.Epoch && !epochReported {
			c.addf(KindSnapshotEpoch, SeverityError, f.Path, b.Position, b.BaseOffset, "partitionLeaderEpoch %d, snapshot epoch is %d", b.PartitionLeaderEpoch, f.Snapshot.Epoch)
			epochReported = true
		}
	})
	c.finishFile(f, &s)
	if s.hardErr == nil && !s.emptyFile {
		if s.fr.FirstOffset != 0 {
			c.addf(KindSnapshotOffsets, SeverityError, f.Path, 0, s.fr.FirstOffset, "first offset %d, snapshots start at 0", s.fr.FirstOffset)
			s.clean = false
		}
		if !s.firstIsControl || s.firstControl != ControlSnapshotHeader {
			c.addf(KindSnapshotHeader, SeverityError, f.Path, 0, s.fr.FirstOffset, "first record is not a SnapshotHeader control record")
			s.clean = false
		}
		if !s.lastIsControl || s.lastControl != ControlSnapshotFooter {
			c.addf(KindSnapshotFooter, SeverityError, f.Path, -1, s.fr.LastOffset, "last record is not a SnapshotFooter control record")
			s.clean = false
		}
	}
	if s.emptyFile {
		c.addf(KindEmptyFile, SeverityError, f.Path, 0, -1, "no batches")
		s.clean = false
	}
	c.rep.Files = append(c.rep.Files, s.fr)
	return s.fr, s.clean && !epochReported
}

// finishFile reports how a scan ended.
func (c *checker) finishFile(f DataFile, s *fileScan) {
	if s.hardErr == nil {
		return
	}
	var fe *FileError
	if errors.As(s.hardErr, &fe) {
		return // already reported by scan
	}
	c.errFinding(f.Path, s.hardErr, SeverityError)
}

// checkSegment checks a log segment and the log-wide rules: contiguous
// offsets across segments and non-decreasing epochs.
func (c *checker) checkSegment(f DataFile, last bool) (FileReport, bool) {
	firstBatch := true
	s := c.scan(f, func(b *Batch) {
		if firstBatch && f.BaseOffset >= 0 && b.BaseOffset != f.BaseOffset {
			c.addf(KindSegmentBase, SeverityError, f.Path, b.Position, b.BaseOffset, "first batch at offset %d, file name says %d", b.BaseOffset, f.BaseOffset)
		}
		if c.havePrev && firstBatch {
			switch {
			case b.BaseOffset > c.prevLast+1:
				c.addf(KindOffsetGap, SeverityError, f.Path, b.Position, b.BaseOffset, "segment starts at %d, previous segment ended at %d", b.BaseOffset, c.prevLast)
			case b.BaseOffset <= c.prevLast:
				c.addf(KindOffsetOverlap, SeverityError, f.Path, b.Position, b.BaseOffset, "segment starts at %d, previous segment ended at %d", b.BaseOffset, c.prevLast)
			}
		}
		firstBatch = false
		c.prevLast, c.havePrev = b.LastOffset(), true
		if b.PartitionLeaderEpoch < c.lastEpoch {
			c.addf(KindEpochRegression, SeverityError, f.Path, b.Position, b.BaseOffset, "partitionLeaderEpoch %d after epoch %d", b.PartitionLeaderEpoch, c.lastEpoch)
		} else if b.PartitionLeaderEpoch > c.lastEpoch {
			c.lastEpoch = b.PartitionLeaderEpoch
			if _, ok := c.epochSeen[b.PartitionLeaderEpoch]; !ok {
				c.epochSeen[b.PartitionLeaderEpoch] = b.BaseOffset
			}
		}
	})
	if s.hardErr != nil {
		sev := SeverityError
		if last && errors.Is(s.hardErr, ErrTornTail) {
			// Kafka may be appending right now, and recovery truncates a
			// torn tail of the active segment anyway.
			sev = SeverityWarning
		}
		var fe *FileError
		if !errors.As(s.hardErr, &fe) {
			c.errFinding(f.Path, s.hardErr, sev)
		}
	}
	c.rep.Files = append(c.rep.Files, s.fr)
	return s.fr, s.clean
}

// crossChecks compares the files with each other and with quorum-state,
// leader-epoch-checkpoint and partition.metadata.
func (c *checker) crossChecks(d *LogDir) {
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
			c.addf(KindCoverageHole, SeverityError, dir, -1, start, "log starts at offset %d and no snapshot reaches it: offsets [0, %d) are missing", start, start)
		}
	}
	if qs := d.QuorumState; qs != nil && c.lastEpoch >= 0 && qs.LeaderEpoch < c.lastEpoch {
		c.addf(KindQuorumStateEpoch, SeverityWarning, filepath.Join(dir, QuorumStateFileName), -1, -1,
			"leaderEpoch %d is below the log's last epoch %d (Kafka warns and uses the log's)", qs.LeaderEpoch, c.lastEpoch)
	}
	if d.LeaderEpochs != nil && len(d.Segments) > 0 {
		path := filepath.Join(dir, LeaderEpochFileName)
		logStart := c.rep.LogStartOffset
		for _, e := range d.LeaderEpochs {
			first, ok := c.epochSeen[e.Epoch]
			if e.StartOffset < logStart {
				continue
			}
			if !ok && e.StartOffset < c.rep.LogEndOffset {
				c.addf(KindLeaderEpochMismatch, SeverityWarning, path, -1, e.StartOffset, "epoch %d starts at %d but no batch of that epoch is in the segments", e.Epoch, e.StartOffset)
			} else if ok && first != e.StartOffset {
				c.addf(KindLeaderEpochMismatch, SeverityWarning, path, -1, e.StartOffset, "epoch %d starts at %d, the segments say %d", e.Epoch, e.StartOffset, first)
			}
		}
	}
	if pm := d.PartitionMetadata; pm != nil && pm.TopicID != MetadataTopicID {
		c.addf(KindPartitionTopicID, SeverityWarning, filepath.Join(dir, PartitionMetadataFileName), -1, -1, "topic_id %s, __cluster_metadata uses %s", pm.TopicID, MetadataTopicID)
	}
}
