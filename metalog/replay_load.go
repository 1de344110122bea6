package metalog

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// ImageOptions tunes LoadImage.
type ImageOptions struct {
	// AtOffset stops replay after the record at this offset; negative
	// replays everything. A snapshot that ends beyond it is not used.
	AtOffset int64
	Reader   ReaderOptions
	// Progress, when set, is called with bytes read so far and the total.
	Progress func(done, total int64)
	// Observe, when set, is the replayer's Observe: called after each
	// record that took effect (see Replayer.Observe). BatchDone, when
	// set, is called after each batch's records were applied (a tracker
	// evaluates there what it keeps per batch), with the batch's last
	// offset (for a snapshot's batches, the offset its records have:
	// the snapshot's end offset less one), where a replay may stop.
	Observe   func(img *model.Image, pos Position, rec records.Message)
	BatchDone func(end int64)
	// Before, when set, is the replayer's Before (see Replayer.Before).
	Before func(r *Replayer, pos Position, rec records.Message)
	// Oldest replays the longest history the files hold
	// (LogDir.PlanReplayOldest) rather than from the newest snapshot:
	// for a history of changes. The image at the end is the same.
	Oldest bool
}

// Warning codes LoadImage adds to the model's (model.Warn*).
const (
	// WarnDamageNotReplayed: a file replay did not need (a snapshot or
	// segment below the snapshot replay starts from, an unused bootstrap
	// file) is damaged. The image does not rest on it, so it is not
	// partial, but log check fails on it.
	WarnDamageNotReplayed = "damage-not-replayed"
	// WarnLogBehindSnapshot: the snapshot is newer than the whole log;
	// Kafka discards the log and restarts it at the snapshot.
	WarnLogBehindSnapshot = "log-behind-snapshot"
	// WarnQuorumStateVoters: quorum-state names a voter that never
	// registered as a controller; the voters are not taken from it.
	// Partial (an error).
	WarnQuorumStateVoters = "quorum-state-voters"
	// WarnBootstrapOnly: the log holds no record yet and the image is
	// the bootstrap kafka-storage format wrote. Not partial: the dir is
	// what Kafka leaves, but no cluster state is in it.
	WarnBootstrapOnly = "bootstrap-only"
	// WarnNoMetadataVersion: the image holds no metadata.version. Every
	// log Kafka 3.3+ writes starts with one (the bootstrap records the
	// first active controller writes), and every bootstrap holds one
	// (Kafka's BootstrapMetadata refuses a bootstrap without it): the
	// input is partial or damaged. Partial (an error).
	WarnNoMetadataVersion = "metadata-version-missing"
)

// ImageResult is a replayed image with what replay had to say about it.
type ImageResult struct {
	Image *model.Image
	Plan  *ReplayPlan
	// Records applied, and records skipped: unknown types or versions,
	// records Kafka's replay refuses (a stale broker epoch, an unknown
	// topic), and records of aborted or unfinished transactions.
	Applied, Skipped int64
	// Unknown counts undecodable records by what is wrong with them:
	// "apiKey K version V (unknown type)", "(unknown version)" or
	// "(malformed body)", "bad record frame", and for control records
	// "control TYPE (...)" or "control record with a bad key".
	Unknown map[string]int64
	// StoppedAt is the offset of the first damaged batch replay did not
	// apply (-1 when it read everything it needed).
	StoppedAt int64
	// Warnings are what the image rests on, in the one findings order,
	// each with its file, byte position and offset: the model's Warn*
	// codes, the Warn* codes above, and the log check finding (severity
	// error) of damage replay met. Image.Warnings holds the same list, so
	// Image.IsPartial says whether the view may miss content its source
	// held.
	Warnings []model.Finding
	// Damage is the first error log check would report on what LoadImage
	// read (nil when none): the same verdict as Check on the same input.
	Damage *model.Finding
	// EndOffset is one past the last offset replay read (a snapshot counts
	// as its end offset), -1 when it read nothing: an AtOffset at or
	// beyond it asked for more than the source holds.
	EndOffset int64
	// LastEpoch is the leader epoch of the batch holding EndOffset-1 (a
	// snapshot's epoch when it ends there): with EndOffset, the position
	// Raft's vote rule compares, and the id of a snapshot taken there.
	LastEpoch int32
}

// LoadImage replays path (a metadata log dir, a __cluster_metadata-0 dir, a
// snapshot, a segment or a bootstrap.checkpoint) into an image: the newest
// usable snapshot, then every later segment batch. Memory stays
// proportional to the image: batches are streamed and dropped once applied.
//
// Every file is read through the same Checker as log check, and replay
// applies only what check accepts, stopping where Kafka's log loading
// would: before the first batch that fails its CRC (recovery truncates the
// segment there), whose offsets do not follow the previous batch's (a
// swapped, repeated or shifted batch, or a gap: Kafka's offset index and
// its reads by offset assume strictly increasing offsets), whose epoch
// goes back, or that breaks KRaft's batch rules (Kafka's RecordsIterator
// throws). A snapshot is applied up to its SnapshotFooter only (Kafka's
// snapshot reader stops there). A torn tail of the last segment is what a
// crash leaves, and Kafka truncates it: replay ignores it with a
// WarnTornTail warning saying what was lost. Every stop is a typed
// warning (WarnReplayStopped, partial) with the file, position and offset;
// damage in files replay did not need is WarnDamageNotReplayed. LoadImage
// fails only when the source cannot be read at all.
func LoadImage(path string, opts ImageOptions) (*ImageResult, error) {
	d, err := OpenLogDir(path)
	if err != nil {
		return nil, err
	}
	return LoadImageDir(d, opts)
}

// LoadImageDir is LoadImage on a directory already opened, so that a
// caller that inspected the path does not scan it twice.
func LoadImageDir(d *LogDir, opts ImageOptions) (*ImageResult, error) {
	path := d.Path
	end := int64(-1)
	if opts.AtOffset >= 0 {
		end = opts.AtOffset + 1
	}
	plan := d.PlanReplayBefore(end)
	if opts.Oldest {
		plan = d.PlanReplayOldest(end)
	}
	if opts.AtOffset >= 0 && plan.Snapshot == nil && plan.Bootstrap == nil &&
		(len(d.Snapshots) > 0 || len(d.Segments) > 0) &&
		(len(d.Segments) == 0 || d.LogStartOffset() > opts.AtOffset) {
		// Every snapshot ends after the offset and the log starts after
		// it: replay would read nothing, and an empty image is not the
		// cluster's state at that offset.
		log := "there is no segment"
		if len(d.Segments) > 0 {
			log = fmt.Sprintf("the log starts at offset %d", d.LogStartOffset())
		}
		return nil, &FileError{File: path, Err: fmt.Errorf("%w: no usable snapshot ends at or before offset %d and %s",
			ErrOffsetNotCovered, opts.AtOffset, log)}
	}
	l := &loader{
		d: d, plan: plan, opts: opts, rp: NewReplayer(),
		res:     &ImageResult{Plan: plan, Unknown: map[string]int64{}, StoppedAt: -1, EndOffset: -1},
		check:   NewChecker(d, CheckOptions{Strict: true, Reader: opts.Reader}),
		unknown: map[string]*model.Location{},
	}
	l.rp.Observe, l.rp.Before = opts.Observe, opts.Before
	l.planWarnings()
	for _, f := range d.DataFiles() {
		l.total += f.Size
	}
	for _, f := range d.DataFiles() {
		if l.stop {
			break
		}
		from, replay := l.inPlan(f)
		if !replay {
			l.checkOnly(f)
			continue
		}
		if err := l.replayFile(f, from); err != nil {
			return nil, err
		}
	}
	return l.finish(path), nil
}

type loader struct {
	d     *LogDir
	plan  *ReplayPlan
	opts  ImageOptions
	rp    *Replayer
	res   *ImageResult
	check *Checker
	// unknown holds where each ImageResult.Unknown key was first met.
	unknown     map[string]*model.Location
	done, total int64
	stop        bool
	// next is the offset after the last batch read in the current file.
	next int64
	// snapTime is the lastContainedLogTimestamp of the SnapshotHeader of
	// the snapshot (or bootstrap file) being replayed: the time of the
	// state its records hold (Position.Timestamp).
	snapTime int64
	dec      records.Decoder
	// recs, ahead and decs are applyAhead's, reused from batch to batch.
	recs  []aheadRecord
	ahead []decoded
	decs  []records.Decoder
	// aheadArena holds the partitions applyAhead's goroutine builds.
	aheadArena partitionArena
}

// warn adds a warning of the image at its check's severity.
func (l *loader) warn(code string, where model.Location, format string, args ...any) {
	w := where
	l.res.Warnings = append(l.res.Warnings, model.Finding{Code: code, Severity: checkOf(code).Severity, Class: FindingClass, Message: fmt.Sprintf(format, args...), Where: &w})
}

// planWarnings says what the choice of files rests on.
func (l *loader) planWarnings() {
	d, plan := l.d, l.plan
	for _, e := range plan.Skipped {
		f := errorFinding(e)
		l.warn(model.WarnSnapshotFallback, *f.Where, "newer snapshot passed over, replay starts from an older one or the log: %s", f.Message)
	}
	dir := d.PartitionDir
	if dir == "" {
		dir = d.Path
	}
	if plan.Truncated && plan.LogEnd >= 0 {
		l.warn(WarnLogBehindSnapshot, model.At(plan.Snapshot.Path, -1, plan.StartOffset),
			"the snapshot ends at offset %d, past the log's end (offset %d) at the log's latest leader epoch: Kafka discards the log and restarts it at the snapshot, and so does replay", plan.StartOffset, plan.LogEnd)
	} else if plan.Truncated {
		l.warn(WarnLogBehindSnapshot, model.At(plan.Snapshot.Path, -1, plan.StartOffset),
			"the snapshot is newer than the whole log (by leader epoch): Kafka discards the log and restarts it at the snapshot, and so does replay")
	}
	if plan.Hole {
		l.warn(model.WarnCoverageHole, model.At(dir, -1, d.LogStartOffset()),
			"the log starts at offset %d and no snapshot reaches it: records below it are missing", d.LogStartOffset())
	}
	if why := plan.NeverStarted(d); why != "" {
		// Said plainly: an image of nothing but the bootstrap is no
		// cluster's state, though the dir is sound.
		where := dir
		if d.Root != "" {
			where = d.Root
		}
		l.warn(WarnBootstrapOnly, model.At(where, -1, -1), "%s", why)
	} else if d.Bootstrap != nil && d.PartitionDir != "" && filepath.Clean(d.Path) == filepath.Clean(d.PartitionDir) {
		l.warn(model.WarnBootstrapAlongside, model.At(d.Bootstrap.Path, -1, -1),
			"the parent dir's bootstrap.checkpoint is read along with %s: it is checked, and replayed only when the partition holds no record yet", d.PartitionDir)
	}
	// Files OpenLogDir could not use (unparseable meta.properties or
	// quorum-state, badly named data files) are check errors: the image
	// would otherwise silently lack a cluster id or a leader.
	for _, f := range l.check.Findings() {
		if f.Severity == model.SevError || f.Code == KindBadProperties {
			l.res.Warnings = append(l.res.Warnings, f)
		}
	}
}

// inPlan says whether replay reads f, and from which offset.
func (l *loader) inPlan(f DataFile) (int64, bool) {
	p := l.plan
	if (p.Snapshot != nil && p.Snapshot.Path == f.Path) || (p.Bootstrap != nil && p.Bootstrap.Path == f.Path) {
		return 0, true
	}
	for _, s := range p.Segments {
		if s.Path == f.Path {
			return p.StartOffset, true
		}
	}
	return 0, false
}

// checkOnly reads a file replay does not need through the checker, so
// that damage in it is not silent.
func (l *loader) checkOnly(f DataFile) {
	n := len(l.check.Findings())
	l.check.CheckFile(f)
	l.done += f.Size
	l.progress()
	for _, x := range l.check.Findings()[n:] {
		if x.Severity == model.SevError {
			l.warn(WarnDamageNotReplayed, *x.Where, "%s: %s (replay does not read this file: the image does not rest on it)", x.Code, x.Message)
			if l.res.Damage == nil {
				c := x
				l.res.Damage = &c
			}
			return
		}
	}
}

func (l *loader) progress() {
	if l.opts.Progress != nil {
		l.opts.Progress(l.done, l.total)
	}
}

// replayFile reads one file of the plan through the checker and applies
// the batches it accepts.
func (l *loader) replayFile(f DataFile, from int64) error {
	c := l.check
	c.BeginFile(f)
	r, err := OpenReader(f.Path, l.opts.Reader)
	if err != nil {
		c.EndFile(err)
		return err
	}
	src := l.batches(f, r)
	defer src.close()
	snapshot := f.Kind == KindSnapshot || f.Kind == KindBootstrap
	l.snapTime = 0
	skipRest := false
	// below is damage in this file below from, the offset replay starts
	// at: whether the image rests on it depends on whether replay goes on
	// to take later batches from the file (apply1), so it is reported
	// when it does, or at the file's end.
	var below *model.Finding
	defer func() {
		if below != nil {
			l.warn(WarnDamageNotReplayed, *below.Where, "%s: %s (below offset %d, where replay starts, and replay reads nothing else of this file: the image does not rest on it)", below.Code, below.Message, from)
			l.noteDamage(*below)
		}
	}()
	l.next = f.BaseOffset
	for {
		a := src.next()
		// The source has ended the checker's file when it returns an
		// error other than a CRC mismatch.
		if err := a.err; err == io.EOF {
			l.fileEnd(f, nil, a.pos)
			return nil
		} else if err != nil && !errors.Is(err, ErrCRC) {
			var fe *FileError
			if errors.As(err, &fe) {
				return err
			}
			l.fileEnd(f, err, a.pos)
			return nil
		}
		if b := &a.b; !snapshot && !skipRest && !a.damaged && !b.IsControl() && l.opts.AtOffset >= b.BaseOffset && l.opts.AtOffset < b.LastOffset() && b.LastOffset() >= from && !beginsTransactionAt(b, l.opts.AtOffset+1) {
			// A bad point, not damage: the file is as Kafka wrote it.
			return &FileError{File: f.Path, Err: fmt.Errorf(
				"position %d, offset %d: %w: offset %d is inside the batch of offsets %d-%d, which Kafka applies whole (the image there is a state the cluster never had): give %d, its last offset, or an offset before %d",
				b.Position, b.BaseOffset, ErrOffsetInsideBatch, l.opts.AtOffset, b.BaseOffset, b.LastOffset(), b.LastOffset(), b.BaseOffset)}
		}
		l.apply1(f, a, snapshot, from, &skipRest, &below)
		src.release(a)
	}
}

// beginsTransactionAt says whether the record at offset off of b is a
// BeginTransactionRecord: Kafka's loader publishes the image just before
// one, inside a batch too, so the offset before it is a point.
func beginsTransactionAt(b *Batch, off int64) bool {
	it := b.Records()
	for it.Next() {
		if r := it.Record(); r.Offset == off {
			fr, err := records.ParseFrame(r.Value)
			return err == nil && fr.APIKey == (&records.BeginTransactionRecord{}).APIKey()
		}
	}
	return false
}

// apply1 is replayFile's work on one batch the checker has seen.
func (l *loader) apply1(f DataFile, a *batchAhead, snapshot bool, from int64, skipRest *bool, below **model.Finding) {
	b := &a.b
	l.next = b.NextOffset()
	damaged := a.damaged
	l.done += b.Size()
	l.progress()
	if *skipRest {
		return
	}
	if l.opts.AtOffset >= 0 && !snapshot && b.BaseOffset > l.opts.AtOffset {
		// Past the requested offset: nothing here matters to the image.
		l.stop = true
		*skipRest = true
		return
	}
	if damaged {
		damaged = stopsReplay(a.findings)
	}
	if damaged && !snapshot && b.LastOffset() < from {
		// Below the offset replay starts from (the snapshot's end):
		// Kafka reads the log by offset from there and never reaches
		// this batch. The image does not rest on it unless replay takes
		// later batches of this file (see below).
		if *below == nil {
			x := firstError(a.findings)
			if x.Where == nil {
				w := model.At(f.Path, b.Position, b.BaseOffset)
				x.Where = &w
			}
			*below = &x
		}
		return
	}
	if damaged {
		first := firstError(a.findings)
		if snapshot && first.Code == KindSnapshotAfterFooter {
			// Kafka's snapshot reader stops at the footer and the log
			// goes on from the snapshot's end: so does replay.
			l.res.Warnings = append(l.res.Warnings, first)
			l.noteDamage(first)
			*skipRest = true
			return
		}
		l.stopAt(f, b.Position, b.BaseOffset, first)
		// The checker still sees the rest of the file, so that its
		// verdict on it matches log check's.
		*skipRest = true
		return
	}
	if b.LastOffset() < from {
		return
	}
	if x := *below; x != nil {
		// The file is damaged below from, and this batch of it is one
		// replay needs: Kafka's recovery truncates a segment at its first
		// invalid batch, and a finding on the file (a segment whose name
		// is not its first offset) sits on its first batch, so nothing of
		// the file after the damage is trusted. Replay stops here.
		*below = nil
		l.noteDamage(*x)
		l.res.StoppedAt = b.BaseOffset
		l.stop, *skipRest = true, true
		l.warn(model.WarnReplayStopped, model.At(f.Path, b.Position, b.BaseOffset),
			"replay stopped before this batch: its file is damaged below offset %d, where replay starts (%s at offset %d: %s), and Kafka's log loading does not trust the file from the damage on; this and later records are not in the image",
			from, x.Code, x.Where.Offset, x.Message)
		return
	}
	b.minOffset = from
	l.apply(f, a, snapshot)
	if l.opts.BatchDone != nil {
		end := b.LastOffset()
		if snapshot {
			// Its records' position (loader.position): the
			// snapshot's end offset less one.
			end = l.res.EndOffset - 1
		}
		l.opts.BatchDone(end)
	}
	if l.opts.AtOffset >= 0 && !snapshot && b.LastOffset() >= l.opts.AtOffset {
		l.stop = true
		*skipRest = true
	}
}

// batchAhead is one batch of a file as replay gets it: the batch, the
// reader's error with it, and the checker's verdict and findings on it.
// At the end of the file it holds only the error that ended it (io.EOF
// when clean) and the reader's position.
type batchAhead struct {
	b        Batch
	err      error
	damaged  bool
	findings []Finding // what Checker.Batch added for b
	pos      int64     // Reader.Position after b
	buf      []byte    // b's bytes when copied (readAhead)
	// recs are b's records when readAhead has listed them for
	// applyAhead (listed): a large uncompressed data batch.
	recs   []aheadRecord
	listed bool
}

// replaySource hands replayFile the batches of one file, each run through
// the checker, which it ends (EndFile) with the file.
type replaySource interface {
	next() *batchAhead
	release(*batchAhead) // replay is done with it
	close()
}

// batches reads r's batches for replay: on a goroutine of its own, one
// batch ahead, for a large file (the same threshold as parallel check),
// else in line.
func (l *loader) batches(f DataFile, r *Reader) replaySource {
	if parallelWorkers(f.Size) < 2 {
		return &inlineBatches{r: r, c: l.check}
	}
	return l.readAhead(r)
}

// inlineBatches reads on replay's goroutine; the batch is the reader's.
type inlineBatches struct {
	r *Reader
	c *Checker
	a batchAhead
}

func (s *inlineBatches) next() *batchAhead {
	readChecked(s.r, s.c, &s.a)
	return &s.a
}

func (s *inlineBatches) release(*batchAhead) {}
func (s *inlineBatches) close()              { s.r.Close() }

// readChecked reads r's next batch into a, through c, and ends c's file
// when it ends. a.b aliases the reader's buffers.
func readChecked(r *Reader, c *Checker, a *batchAhead) {
	b, err := r.Next()
	a.err, a.damaged, a.findings = err, false, a.findings[:0]
	if err != nil && !errors.Is(err, ErrCRC) {
		if err == io.EOF {
			c.EndFile(nil)
		} else {
			c.EndFile(err)
		}
		a.pos = r.Position()
		return
	}
	n := len(c.Findings())
	a.damaged = c.Batch(b, err)
	a.findings = append(a.findings, c.Findings()[n:]...)
	a.b, a.pos = *b, r.Position()
}

// aheadBatches is readAhead's source.
type aheadBatches struct {
	out  chan *batchAhead
	free chan *batchAhead
	stop chan struct{}
	done chan struct{}
	dec  *decompressor // replay's, for compressed batches
	max  int
}

// readAhead reads r on a goroutine of its own: reading, CRCs and the
// checker's walk over each batch run while replay applies the batch
// before (on two cores, replay's own work is then applying and decoding).
// Each batch is copied into one of two buffers, which replay gives back
// as it is done with one, so the goroutine reads at most one batch ahead
// and memory stays three batches (Kafka writes snapshots in batches of
// up to 8 MiB). The checker is the goroutine's until the file ends:
// replay reads the findings of a batch from its batchAhead, and looks at
// the checker again only after the last batchAhead, which the goroutine
// sends after ending the file.
func (l *loader) readAhead(r *Reader) *aheadBatches {
	s := &aheadBatches{out: make(chan *batchAhead, 2), free: make(chan *batchAhead, 2),
		stop: make(chan struct{}), done: make(chan struct{}), max: l.opts.Reader.withDefaults().MaxDecompressedBytes}
	for range 2 {
		s.free <- &batchAhead{}
	}
	c := l.check
	go func() {
		defer close(s.done)
		defer r.Close()
		for {
			var a *batchAhead
			select {
			case a = <-s.free:
			case <-s.stop:
				return
			}
			readChecked(r, c, a)
			end := a.err != nil && !errors.Is(a.err, ErrCRC)
			a.recs, a.listed = a.recs[:0], false
			if !end {
				a.buf = append(a.buf[:0], a.b.raw...)
				a.b.raw = a.buf
				a.b.headers, a.b.dec = nil, nil
				if ahead(&a.b) && a.b.Attributes.Compression() == CompressionNone {
					// The values alias a.buf. Replay skips those below
					// where it starts (minOffset, not set yet).
					a.recs, a.listed = appendRecords(a.recs, &a.b), true
				}
			}
			select {
			case s.out <- a:
			case <-s.stop:
				return
			}
			if end {
				return
			}
		}
	}()
	return s
}

func (s *aheadBatches) next() *batchAhead {
	a := <-s.out
	if s.dec == nil {
		s.dec = newDecompressor(s.max)
	}
	a.b.dec = s.dec
	return a
}

func (s *aheadBatches) release(a *batchAhead) { s.free <- a }

// close stops the goroutine (replay may return before the file's end)
// and waits for it.
func (s *aheadBatches) close() {
	close(s.stop)
	<-s.done
}

// recordContent are the check codes about one record's value. Replay
// skips such a record (WarnRecordsSkipped) instead of stopping: the batch
// around it is sound.
var recordContent = map[string]bool{KindFrameHeader: true, KindFrameVersion: true, KindRecordDecode: true}

// stopsReplay reports whether the batch's error findings include one that
// is not about a single record's content.
func stopsReplay(fs []model.Finding) bool {
	for _, f := range fs {
		if f.Severity == model.SevError && !recordContent[f.Code] {
			return true
		}
	}
	return false
}

func firstError(fs []model.Finding) model.Finding {
	for _, f := range fs {
		if f.Severity == model.SevError && !recordContent[f.Code] {
			return f
		}
	}
	return model.Finding{Code: KindUnreadable, Severity: checkOf(KindUnreadable).Severity, Message: "damaged batch"}
}

func (l *loader) noteDamage(f model.Finding) {
	if l.res.Damage == nil {
		c := f
		if f.Where != nil {
			w := *f.Where
			c.Where = &w
		}
		l.res.Damage = &c
	}
}

// stopAt ends replay before a damaged batch.
func (l *loader) stopAt(f DataFile, pos, off int64, why model.Finding) {
	l.noteDamage(why)
	l.res.StoppedAt = off
	l.stop = true
	where := model.At(f.Path, pos, off)
	if why.Where != nil && why.Where.Position >= 0 {
		where.Position = why.Where.Position
	}
	l.warn(model.WarnReplayStopped, where,
		"replay stopped before this batch, where Kafka's log loading stops trusting the log: %s: %s; later records are not in the image", why.Code, why.Message)
}

// fileEnd handles how a replayed file ended: cleanly, torn (the active
// segment's tail, which Kafka truncates), or damaged.
func (l *loader) fileEnd(f DataFile, err error, good int64) {
	c := l.check
	if l.stop {
		// Replay already stopped in this file: at the requested offset, or
		// at damage it has reported.
		return
	}
	if err == nil {
		// End-of-file rules (a snapshot without its footer, an empty
		// snapshot): the records were applied as Kafka applies them, but
		// log check fails the file, so the image says so.
		for _, x := range c.Findings() {
			if x.Severity == model.SevError && x.Where != nil && x.Where.File == f.Path && (x.Code == KindSnapshotFooter || x.Code == KindEmptyFile || x.Code == KindSnapshotHeader || x.Code == KindSnapshotOffsets) {
				l.res.Warnings = append(l.res.Warnings, x)
				l.noteDamage(x)
			}
		}
		return
	}
	var ce *CorruptionError
	pos, off := good, int64(-1)
	if errors.As(err, &ce) {
		pos, off = ce.Position, ce.Offset
	}
	last := len(l.d.Segments) > 0 && f.Path == l.d.Segments[len(l.d.Segments)-1].Path
	if off < 0 {
		off = l.next
	}
	if errors.Is(err, ErrTornTail) && last {
		l.warn(model.WarnTornTail, model.At(f.Path, pos, off), "%s", tornTailLoss(f, pos))
		return
	}
	l.stopAt(f, pos, off, escalate(errorFinding(err)))
}

// tornTailLoss says what a torn tail held: its bytes, and the offsets and
// records its batch header announces when the header survived.
func tornTailLoss(f DataFile, pos int64) string {
	lost := f.Size - pos
	msg := fmt.Sprintf("the segment ends inside a batch at position %d: %d byte(s) that Kafka never committed and truncates on start are ignored", pos, lost)
	fh, err := openData(f.Path)
	if err != nil {
		return msg
	}
	defer fh.Close()
	hdr := make([]byte, HeaderSize)
	if n, _ := fh.ReadAt(hdr, pos); n < HeaderSize {
		return msg
	}
	var b Batch
	if b.parse(hdr, f.Path, pos, DefaultMaxBatchBytes) != nil || b.LastOffsetDelta < 0 || b.RecordsCount < 0 {
		return msg
	}
	return fmt.Sprintf("%s (a batch of %d record(s), offsets %d to %d)", msg, b.RecordsCount, b.BaseOffset, b.LastOffset())
}

// apply replays the records of one accepted batch.
func (l *loader) apply(f DataFile, a *batchAhead, snapshot bool) {
	b := &a.b
	if ahead(b) {
		l.applyAhead(f, a, snapshot)
		return
	}
	it := b.Records()
	for it.Next() {
		rec := it.Record()
		pos, ok := l.position(f, b, snapshot, rec.Offset)
		if !ok {
			return
		}
		if b.IsControl() {
			k, ctl, err := records.DecodeControl(rec.Key, rec.Value)
			if err != nil {
				l.unknownAt(undecodableControl(rec.Key, k, err), f, b, rec.Offset)
				continue
			}
			if h, ok := ctl.(*records.SnapshotHeaderRecord); ok && snapshot {
				// Kafka's image loaded from a snapshot is as of this time
				// (MetadataLoader.loadSnapshot's provenance), as one
				// loaded from the log is as of its last batch's append
				// time (MetadataBatchLoader.loadBatch).
				l.snapTime = h.LastContainedLogTimestamp
			}
			l.rp.ApplyControl(pos, ctl)
			continue
		}
		fr, m, err := l.decode(rec.Value)
		l.applyData(f, b, pos, rec.Offset, fr, m, err)
	}
	// The checker walked these records already and accepted them.
}

// aheadMin is the number of data records from which a batch's decoding is
// shared with a second goroutine (applyAhead); aheadWindow is how many
// records one round shares, and aheadChunk how many the goroutine hands
// over at a time.
const (
	aheadMin    = 48
	aheadWindow = 768
	aheadChunk  = 64
)

// applyAhead is apply for a data batch of many records, on two cores. In
// rounds of up to aheadWindow records, a goroutine decodes the last five
// eighths, and builds the partitions of their PartitionRecords, while this
// one decodes and applies the first three eighths; it then applies the
// rest in order, chunk by chunk as the goroutine hands them over.
// Registering a built partition costs this goroutine a lookup and a map
// insertion; decoding a record and building its partition (copying its
// lists into fresh memory, page faults included) costs about three times
// that, so the two finish together. Decoding and building are pure
// functions of the record's bytes, so the image, the counts and the
// warnings are exactly those of a one-by-one replay. The goroutine decodes record i of a round
// into a value that decoder i reuses from round to round (no garbage per
// record) and builds partitions from an arena of its own; a record that a
// metadata transaction would keep past the round is decoded again, fresh.
// Record values alias the batch's buffer, valid until the reader moves
// on, which happens only after the goroutine is done.
func (l *loader) applyAhead(f DataFile, a *batchAhead, snapshot bool) {
	b := &a.b
	recs := a.recs
	if a.listed {
		// Listed before minOffset was set: without what Records skips.
		recs = slices.DeleteFunc(recs, func(r aheadRecord) bool { return r.offset < b.minOffset })
	} else {
		l.recs = appendRecords(l.recs[:0], b)
		recs = l.recs
	}
	for start := 0; start < len(recs); start += aheadWindow {
		if !l.applyRound(f, b, snapshot, recs[start:min(start+aheadWindow, len(recs))]) {
			return
		}
	}
}

// ahead says whether b is a batch applyAhead applies.
func ahead(b *Batch) bool { return !b.IsControl() && b.RecordsCount >= aheadMin }

// appendRecords appends what applyAhead keeps of b's records.
func appendRecords(recs []aheadRecord, b *Batch) []aheadRecord {
	it := b.Records()
	for it.Next() {
		rec := it.Record()
		recs = append(recs, aheadRecord{offset: rec.Offset, value: rec.Value})
	}
	return recs
}

// aheadSplit is how many of a round's n records applyAhead decodes on its
// own goroutine; the rest are decoded ahead.
func aheadSplit(n int) int { return n * 3 / 8 }

// applyRound applies one round of applyAhead; false when replay ends
// inside it (AtOffset).
func (l *loader) applyRound(f DataFile, b *Batch, snapshot bool, recs []aheadRecord) bool {
	h := aheadSplit(len(recs))
	rest := recs[h:]
	if len(l.decs) < len(rest) {
		l.decs = make([]records.Decoder, aheadWindow)
		l.ahead = make([]decoded, aheadWindow)
		l.aheadArena = newPartitionArena()
	}
	ahead, decs := l.ahead[:len(rest)], l.decs[:len(rest)]
	// ready carries how many of rest are decoded; it never blocks the
	// goroutine, which ends after sending len(rest).
	ready := make(chan int, (len(rest)+aheadChunk-1)/aheadChunk)
	go func() {
		for start := 0; start < len(rest); start += aheadChunk {
			end := min(start+aheadChunk, len(rest))
			for i := start; i < end; i++ {
				d := &ahead[i]
				d.fr, d.m, d.err = decs[i].DecodeMetadata(rest[i].value)
				d.part = nil
				if pr, ok := d.m.(*records.PartitionRecord); ok {
					d.part = l.aheadArena.partition(pr)
				}
			}
			ready <- end
		}
	}()
	done := 0 // rest[:done] is decoded
	defer func() {
		for done < len(rest) {
			done = <-ready
		}
	}()
	for i, r := range recs {
		pos, ok := l.position(f, b, snapshot, r.offset)
		if !ok {
			return false
		}
		if i < h {
			fr, m, err := l.decode(r.value)
			l.applyData(f, b, pos, r.offset, fr, m, err)
			continue
		}
		for i-h >= done {
			done = <-ready
		}
		d := &ahead[i-h]
		if l.rp.InTransaction() {
			// The replayer keeps it until the End: not decs[i]'s value.
			fr, m, err := records.DecodeMetadata(r.value)
			l.applyData(f, b, pos, r.offset, fr, m, err)
			continue
		}
		if pr, ok := d.m.(*records.PartitionRecord); ok {
			l.rp.applyPartition(pos, pr, d.part)
			continue
		}
		l.applyData(f, b, pos, r.offset, d.fr, d.m, d.err)
	}
	return true
}

// aheadRecord is what applyAhead keeps of a record.
type aheadRecord struct {
	offset int64
	value  []byte
}

// decoded is one decoded data record.
type decoded struct {
	fr  records.Frame
	m   records.Metadata
	err error
	// part is the partition a PartitionRecord registers, built ahead
	// (nil when Kafka refuses the record).
	part *model.Partition
}

// position is the replay position of the record at recOffset in b, and
// false when replay ends before it (AtOffset).
func (l *loader) position(f DataFile, b *Batch, snapshot bool, recOffset int64) (Position, bool) {
	off := recOffset
	if plan := l.plan; snapshot && plan.Snapshot != nil && plan.Snapshot.Snapshot != nil && f.Path == plan.Snapshot.Path {
		// Records inside a snapshot restart at 0; they all belong
		// to the snapshot's position.
		off = plan.Snapshot.Snapshot.EndOffset - 1
	}
	if off+1 >= l.res.EndOffset {
		l.res.EndOffset, l.res.LastEpoch = off+1, b.PartitionLeaderEpoch
	}
	if l.opts.AtOffset >= 0 && !snapshot && off > l.opts.AtOffset {
		return Position{}, false
	}
	ts := b.BaseTimestamp
	if snapshot {
		ts = l.snapTime
	}
	return Position{Offset: off, Epoch: b.PartitionLeaderEpoch, Timestamp: ts, Batch: b.BaseOffset, Snapshot: snapshot}, true
}

// decode decodes a data record that is applied before the next is
// decoded. Outside a metadata transaction it is done with once applied,
// so one value per record type serves; inside one the replayer keeps
// records until the End.
func (l *loader) decode(value []byte) (records.Frame, records.Metadata, error) {
	if l.rp.InTransaction() {
		return records.DecodeMetadata(value)
	}
	return l.dec.DecodeMetadata(value)
}

// applyData applies one decoded data record (or counts why it could not
// be decoded).
func (l *loader) applyData(f DataFile, b *Batch, pos Position, recOffset int64, fr records.Frame, m records.Metadata, err error) {
	if err != nil {
		l.res.Skipped++
		l.unknownAt(undecodableMetadata(fr, err), f, b, recOffset)
		return
	}
	if err := l.rp.Apply(pos, m); err != nil {
		// Kafka's loader reports a misplaced transaction marker as a
		// fault and skips that record; so does replay, loudly.
		l.res.Skipped++
		l.warn(model.WarnRecordsSkipped, model.At(f.Path, b.Position, recOffset), "%v (record skipped, as Kafka's loader does)", err)
	} else if t, ok := m.(*records.TopicRecord); ok && !model.LegalTopicName(t.Name) {
		l.warn(model.WarnTopicNameIllegal, model.At(f.Path, b.Position, recOffset), "%s", model.IllegalTopicNameText(t.Name))
	}
}

func (l *loader) unknownAt(key string, f DataFile, b *Batch, off int64) {
	l.res.Unknown[key]++
	if _, ok := l.unknown[key]; !ok {
		w := model.At(f.Path, b.Position, off)
		l.unknown[key] = &w
	}
}

func (l *loader) finish(path string) *ImageResult {
	res, rp, d := l.res, l.rp, l.d
	keys := make([]string, 0, len(res.Unknown))
	for k := range res.Unknown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l.warn(model.WarnRecordsSkipped, *l.unknown[k], "%d record(s) skipped, not decodable: %s (the first is here)", res.Unknown[k], k)
	}
	if rp.Refused > 0 {
		// Kafka's MetadataDelta throws on these: a broker reports a
		// metadata load fault and goes on without the record, an active
		// controller stops. The image is the broker's, and partial.
		// Aborted transactions' records are Skipped too, but Kafka
		// drops them by design: they are not counted here.
		p := rp.FirstRefused
		l.warn(model.WarnRecordsSkipped, l.recordAt(p), "%d record(s) refused, as Kafka's metadata replay refuses them (a broker reports a metadata load fault and skips them, a controller stops): the first, at offset %d, is %s",
			rp.Refused, p.Offset, rp.FirstRefusedWhy)
	}
	if p, n, open := rp.PendingTransaction(); open {
		dir := d.PartitionDir
		if dir == "" {
			dir = d.Path
		}
		l.warn(model.WarnUnfinishedTxn, model.At(dir, -1, p.Offset), "metadata transaction begun at offset %d is unfinished: its %d records are not applied", p.Offset, n)
		rp.Skipped += int64(n)
	}
	img := rp.Image()
	if d.MetaProperties != nil && img.ClusterID == "" {
		img.ClusterID = d.MetaProperties.ClusterID
	}
	if img.ClusterID == "" {
		img.MarkNotReported(model.FieldClusterID)
	}
	if _, ok := img.Features["metadata.version"]; !ok {
		// No value is taken for it (Kafka 3.x reads a log without one
		// as 3.0-IV1, 4.x refuses it): the source does not tell it.
		img.MarkNotReported(model.FieldMetadataVersion)
		dir := d.PartitionDir
		if dir == "" {
			dir = d.Path
		}
		if rp.Applied == 0 {
			l.warn(WarnNoMetadataVersion, model.At(dir, -1, -1),
				"the image holds no metadata.version (not reported): replay applied no record at all, while every log Kafka 3.3+ writes starts with one and every bootstrap holds one, so the input is partial or damaged")
		} else {
			// Records and no level: what a log written before 3.3 holds,
			// which Kafka 3.3 to 3.9 reads at 3.0-IV1
			// (ActivationRecordsGenerator: "Treating the log as version
			// 3.0-IV1"); a 3.3+ log that lost its start is a coverage
			// hole or an offset gap, reported as such.
			l.warn(WarnNoMetadataVersion, model.At(dir, -1, -1),
				"the image holds no metadata.version (not reported): replay applied %d record(s) and no FeatureLevelRecord for it, as a log written before Kafka 3.3 does; Kafka 3.3 to 3.9 reads such a log as 3.0-IV1, Kafka 4.x refuses it", rp.Applied)
			w := &l.res.Warnings[len(l.res.Warnings)-1]
			*w = relax(*w)
		}
	}
	img.Provenance.Source = "kraft:" + path
	if d.QuorumState != nil && img.Quorum != nil && d.QuorumState.LeaderEpoch > img.Quorum.LeaderEpoch {
		img.Quorum.LeaderID, img.Quorum.LeaderEpoch = d.QuorumState.LeaderID, d.QuorumState.LeaderEpoch
	}
	if q := img.Quorum; q != nil && q.KRaftVersion == 0 && len(q.Voters) == 0 && d.QuorumState != nil && len(d.QuorumState.CurrentVoters) > 0 {
		// A static quorum's voters are controller.quorum.voters: the log
		// names them only in LeaderChange records, which a snapshot does
		// not carry, so replay from one ends without them. quorum-state
		// holds the set the node runs with (its currentVoters), as
		// quorum describe reads it. The file has no checksum: a voter the
		// log never registered as a controller (3.7+ registers them) is
		// damage, not a voter.
		var strangers []int32
		for _, v := range d.QuorumState.CurrentVoters {
			if len(img.Controllers) > 0 && img.Controllers[v.VoterID] == nil {
				strangers = append(strangers, v.VoterID)
			}
		}
		if len(strangers) > 0 {
			dir := d.PartitionDir
			if dir == "" {
				dir = d.Path
			}
			l.warn(WarnQuorumStateVoters, model.At(filepath.Join(dir, QuorumStateFileName), -1, -1),
				"quorum-state's currentVoters name %v, which the log never registered as controllers (it registered %v): the image holds no voters",
				strangers, slices.Sorted(maps.Keys(img.Controllers)))
		} else {
			for _, v := range d.QuorumState.CurrentVoters {
				q.Voters = append(q.Voters, model.Voter{ID: v.VoterID})
			}
		}
	}
	// Log check's warnings on what was read (a bootstrap batch at an epoch
	// Kafka never writes, bits KRaft never sets, unknown files) say where
	// the input differs from what Kafka writes: the image carries them.
	// Torn tails and what planWarnings took are reported already.
	key := func(f model.Finding) string {
		if f.Where == nil {
			return f.Code
		}
		return f.Code + "\x00" + f.Where.String()
	}
	have := map[string]bool{}
	for _, w := range res.Warnings {
		have[key(w)] = true
	}
	for _, f := range l.check.Findings() {
		if f.Severity != model.SevWarning || f.Code == KindTornTail || have[key(f)] {
			continue
		}
		res.Warnings = append(res.Warnings, f)
	}
	// The first damage by log check's definition (reading order, then
	// position), whatever order replay met it in.
	res.Damage = l.check.Damage()
	model.SortFindings(res.Warnings)
	img.Warnings = model.CloneFindings(res.Warnings)
	res.Image = img
	res.Applied, res.Skipped = rp.Applied, res.Skipped+rp.Skipped
	return res
}

// recordAt is the location of a replayed record: the snapshot (or
// bootstrap file) it came from, or the segment holding its offset. The
// byte position is its batch's only while that batch is read, so it is
// left out.
func (l *loader) recordAt(p Position) model.Location {
	if p.Snapshot {
		if s := l.plan.Snapshot; s != nil {
			return model.At(s.Path, -1, p.Offset)
		}
		if b := l.plan.Bootstrap; b != nil {
			return model.At(b.Path, -1, p.Offset)
		}
	}
	file := l.d.PartitionDir
	if file == "" {
		file = l.d.Path
	}
	for _, s := range l.plan.Segments {
		if s.BaseOffset <= p.Offset {
			file = s.Path
		}
	}
	return model.At(file, -1, p.Offset)
}

// undecodableMetadata is the ImageResult.Unknown key of a data record
// records.DecodeMetadata refused.
func undecodableMetadata(fr records.Frame, err error) string {
	if errors.Is(err, records.ErrFrame) {
		return "bad record frame"
	}
	return fmt.Sprintf("apiKey %d version %d (%s)", fr.APIKey, fr.Version, decodeProblem(err))
}

// undecodableControl is the ImageResult.Unknown key of a control record
// records.DecodeControl refused.
func undecodableControl(key []byte, k records.ControlKey, err error) string {
	if _, kerr := records.ParseControlKey(key); kerr != nil {
		return "control record with a bad key"
	}
	return fmt.Sprintf("control %s (%s)", k.Type, decodeProblem(err))
}

func decodeProblem(err error) string {
	switch {
	case errors.Is(err, records.ErrUnknownType):
		return "unknown type"
	case errors.Is(err, records.ErrUnknownVersion):
		return "unknown version"
	}
	return "malformed body"
}
