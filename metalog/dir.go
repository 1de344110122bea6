package metalog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// DataFile is a file made of record batches: a segment, a raft snapshot or
// a bootstrap.checkpoint.
type DataFile struct {
	Path string   `json:"path"`
	Kind FileKind `json:"kind"`
	// BaseOffset is the segment's base offset from its name; -1 when the
	// name does not carry one (a single file opened by any name).
	BaseOffset int64 `json:"baseOffset"`
	// Snapshot is set for raft snapshots with a well-formed name.
	Snapshot *SnapshotID `json:"snapshot,omitempty"`
	Size     int64       `json:"size"`
}

// LogDir is what OpenLogDir found: the metadata log dir, its
// __cluster_metadata-0 partition dir, or a single data file.
type LogDir struct {
	// Path is what was opened. Root is the metadata log dir (holding
	// meta.properties and bootstrap.checkpoint) and PartitionDir the
	// __cluster_metadata-0 dir; either may be empty.
	Path         string `json:"path"`
	Root         string `json:"root,omitempty"`
	PartitionDir string `json:"partitionDir,omitempty"`

	Segments  []DataFile `json:"segments"`  // sorted by base offset
	Snapshots []DataFile `json:"snapshots"` // sorted by snapshot id
	Bootstrap *DataFile  `json:"bootstrap,omitempty"`

	MetaProperties    *MetaProperties    `json:"metaProperties,omitempty"`
	QuorumState       *QuorumState       `json:"quorumState,omitempty"`
	LeaderEpochs      []EpochEntry       `json:"leaderEpochs,omitempty"`
	PartitionMetadata *PartitionMetadata `json:"partitionMetadata,omitempty"`

	// Ignored lists names skipped on purpose (indexes, transient files,
	// .lock); Unknown lists names that are not Kafka's.
	Ignored []string `json:"ignored,omitempty"`
	Unknown []string `json:"unknown,omitempty"`
	// Problems are files that are present but unusable: badly named data
	// files, unparseable properties, directories where files belong.
	// Opening still succeeds so that check can report them all.
	Problems []error `json:"-"`
}

// OpenLogDir inspects path, which may be a metadata log dir, a
// __cluster_metadata-0 dir, a .log segment, a .checkpoint snapshot or a
// bootstrap.checkpoint. Everything is opened read-only and Kafka's .lock
// is never touched, so a directory a running Kafka uses can be read. It
// fails only when path cannot be read or holds nothing KRaft.
func OpenLogDir(path string) (*LogDir, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, &FileError{File: path, Err: err}
	}
	d := &LogDir{Path: path}
	if !st.IsDir() {
		f, err := classifyDataFile(path, st.Size())
		if err != nil {
			return nil, err
		}
		switch f.Kind {
		case KindSegment:
			d.Segments = []DataFile{f}
		case KindSnapshot:
			d.Snapshots = []DataFile{f}
		case KindBootstrap:
			d.Bootstrap = &f
		}
		return d, nil
	}
	if strings.HasPrefix(filepath.Base(filepath.Clean(path)), "__cluster_metadata-") {
		d.PartitionDir = path
		parent := filepath.Dir(filepath.Clean(path))
		if looksLikeRoot(parent) {
			d.Root = parent
		}
	} else {
		pd := filepath.Join(path, MetadataPartitionDir)
		if st, err := os.Stat(pd); err == nil && st.IsDir() {
			d.PartitionDir = pd
			d.Root = path
		} else if why := notPartitionDir(pd); why != "" {
			// Something is there by that name, but no log can be read
			// from it: damage, never an empty log.
			d.Root = path
			d.Problems = append(d.Problems, &FileError{File: pd, Err: fmt.Errorf("%w: %s", ErrNoLog, why)})
		} else if looksLikeRoot(path) {
			d.Root = path
			if why := noPartitionDir(path); why != "" {
				d.Problems = append(d.Problems, &FileError{File: pd, Err: fmt.Errorf("%w: %s", ErrNoLog, why)})
			}
		} else if hasDataFiles(path) {
			// A copy of a partition dir under another name.
			d.PartitionDir = path
		}
	}
	if d.Root == "" && d.PartitionDir == "" {
		return nil, &FileError{File: path, Err: fmt.Errorf("%w: no meta.properties, bootstrap.checkpoint, %s, segments or snapshots", ErrNotKRaft, MetadataPartitionDir)}
	}
	if d.Root != "" {
		if err := d.scanRoot(); err != nil {
			return nil, err
		}
	}
	if d.PartitionDir != "" {
		if err := d.scanPartition(); err != nil {
			return nil, err
		}
		if len(d.Segments) == 0 && len(d.Snapshots) == 0 {
			// Kafka creates the partition dir with its first segment:
			// an empty one is a log that was removed, not a new one.
			d.Problems = append(d.Problems, &FileError{File: d.PartitionDir,
				Err: fmt.Errorf("%w: the partition dir holds no segment and no snapshot (Kafka creates it with its first segment)", ErrNoLog)})
		}
	}
	sort.Slice(d.Segments, func(i, j int) bool {
		if d.Segments[i].BaseOffset != d.Segments[j].BaseOffset {
			return d.Segments[i].BaseOffset < d.Segments[j].BaseOffset
		}
		return d.Segments[i].Path < d.Segments[j].Path
	})
	if d.PartitionDir != "" && len(d.Snapshots) == 0 && d.Bootstrap == nil && d.EmptyLog() {
		// Only Kafka's log layer creates a segment (on start), and what
		// it starts from is the bootstrap format left: 4.x's bootstrap
		// snapshot in this dir, 3.x's bootstrap.checkpoint beside it. A
		// log with neither, and no record, has lost them: it is no
		// empty healthy log.
		d.Problems = append(d.Problems, &FileError{File: d.PartitionDir, Err: fmt.Errorf(
			"%w: its segments hold no batch (%s) and there is no snapshot and no %s: Kafka created the segment when it started, but kafka-storage format leaves the bootstrap it starts from (4.x: the bootstrap snapshot 00000000000000000000-0000000000.checkpoint in this dir; 3.x: %s beside it) and an elected controller writes records, so the log and its bootstrap are gone",
			ErrNoLog, emptySegments(d.Segments), BootstrapFileName, BootstrapFileName)})
	}
	sort.Slice(d.Snapshots, func(i, j int) bool { return d.Snapshots[i].Snapshot.Less(*d.Snapshots[j].Snapshot) })
	sort.Strings(d.Ignored)
	sort.Strings(d.Unknown)
	return d, nil
}

// classifyDataFile names a single file given directly by the user. Any
// .log is a segment (the base offset is taken from the name when it has
// one); .checkpoint files are snapshots or the bootstrap file.
func classifyDataFile(path string, size int64) (DataFile, error) {
	name := filepath.Base(path)
	f := DataFile{Path: path, BaseOffset: -1, Size: size}
	kind, nameErr := ClassifyName(name)
	switch {
	case kind == KindLock:
		return f, &FileError{File: path, Err: errors.New("refusing to open Kafka's .lock file")}
	case kind == KindSegment:
		f.Kind = KindSegment
		if nameErr == nil {
			f.BaseOffset, _ = ParseSegmentName(name)
		}
	case kind == KindSnapshot:
		f.Kind = KindSnapshot
		if nameErr == nil {
			id, _ := ParseSnapshotName(name)
			f.Snapshot = &id
		}
	case kind == KindBootstrap:
		f.Kind = KindBootstrap
	default:
		return f, &FileError{File: path, Err: fmt.Errorf("%w: not a .log or .checkpoint file (%s)", ErrNotKRaft, kind)}
	}
	return f, nil
}

// notPartitionDir says why an entry named __cluster_metadata-0 that is
// not a readable directory cannot be one ("" when there is no such
// entry at all: a formatted dir Kafka has not started on yet).
func notPartitionDir(pd string) string {
	lst, err := os.Lstat(pd)
	if err != nil {
		return ""
	}
	if lst.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(pd)
		_, err := os.Stat(pd)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("a dangling symlink (to %s)", target)
		case err != nil && isLoop(err):
			return fmt.Sprintf("a symlink loop (to %s)", target)
		case err != nil:
			return fmt.Sprintf("a symlink (to %s) that cannot be followed: %v", target, unwrapPath(err))
		}
		return fmt.Sprintf("a symlink to %s, which is not a directory", target)
	}
	st, err := os.Stat(pd)
	if err != nil {
		return fmt.Sprintf("cannot be read: %v", unwrapPath(err))
	}
	if !st.IsDir() {
		return fmt.Sprintf("%s, not a directory", model.FileTypeName(st.Mode()))
	}
	return ""
}

// noPartitionDir says why a metadata log dir without __cluster_metadata-0
// has lost its log ("" when it is a formatted dir Kafka has not started
// on, whose image is its bootstrap.checkpoint). kafka-storage format
// writes meta.properties with bootstrap.checkpoint in 3.x, and with
// __cluster_metadata-0/00000000000000000000-0000000000.checkpoint (the
// bootstrap records) in 4.x, static quorum or not: a dir with neither
// bootstrap file nor partition dir is no dir format left. A broker's
// LogManager writes its offset checkpoints into every log dir it runs on,
// so one of them beside a bootstrap.checkpoint says Kafka ran here and
// the log it wrote is gone.
func noPartitionDir(root string) string {
	if _, ok := statOK(filepath.Join(root, BootstrapFileName)); !ok {
		return "absent, with no " + BootstrapFileName + " either (kafka-storage format writes " + BootstrapFileName +
			" in 3.x, this dir with the bootstrap snapshot in 4.x): not a formatted dir Kafka has yet to start on"
	}
	for _, name := range ranFiles {
		if _, ok := statOK(filepath.Join(root, name)); ok {
			return "absent, although " + name + " says Kafka has run on this dir (kafka-storage format does not write it)"
		}
	}
	return ""
}

// ranFiles are what a broker's LogManager writes in each log dir it runs
// on, and kafka-storage format never writes.
var ranFiles = []string{"recovery-point-offset-checkpoint", "replication-offset-checkpoint",
	"log-start-offset-checkpoint", "cleaner-offset-checkpoint", ".kafka_cleanshutdown"}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func looksLikeRoot(dir string) bool {
	_, a := statOK(filepath.Join(dir, MetaPropertiesFileName))
	_, b := statOK(filepath.Join(dir, BootstrapFileName))
	return a || b
}

func hasDataFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		switch k, _ := ClassifyName(e.Name()); k {
		case KindSegment, KindSnapshot, KindQuorumState:
			return true
		}
	}
	return false
}

func (d *LogDir) scanRoot() error {
	mp := filepath.Join(d.Root, MetaPropertiesFileName)
	if _, ok := statOK(mp); ok {
		p, err := ReadMetaProperties(mp)
		if err != nil {
			d.Problems = append(d.Problems, err)
		}
		d.MetaProperties = p
	}
	bp := filepath.Join(d.Root, BootstrapFileName)
	if st, ok := statOK(bp); ok {
		d.Bootstrap = &DataFile{Path: bp, Kind: KindBootstrap, BaseOffset: -1, Size: st.Size()}
	}
	return nil
}

func (d *LogDir) scanPartition() error {
	ents, err := os.ReadDir(d.PartitionDir)
	if err != nil {
		return &FileError{File: d.PartitionDir, Err: err}
	}
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(d.PartitionDir, name)
		kind, nameErr := ClassifyName(name)
		if nameErr != nil {
			d.Problems = append(d.Problems, &FileError{File: path, Err: nameErr})
			continue
		}
		var size int64
		if info, err := e.Info(); err == nil {
			size = info.Size()
		}
		switch kind {
		case KindSegment:
			base, _ := ParseSegmentName(name)
			d.Segments = append(d.Segments, DataFile{Path: path, Kind: kind, BaseOffset: base, Size: size})
		case KindSnapshot:
			id, _ := ParseSnapshotName(name)
			d.Snapshots = append(d.Snapshots, DataFile{Path: path, Kind: kind, BaseOffset: -1, Snapshot: &id, Size: size})
		case KindBootstrap:
			// Kafka reads only the root's copy; one here is unusual but harmless.
			d.Unknown = append(d.Unknown, name)
		case KindQuorumState:
			qs, err := ReadQuorumState(path)
			if err != nil {
				d.Problems = append(d.Problems, err)
			}
			d.QuorumState = qs
		case KindLeaderEpochCheckpoint:
			es, err := ReadLeaderEpochCheckpoint(path)
			if err != nil {
				d.Problems = append(d.Problems, err)
			}
			d.LeaderEpochs = es
		case KindPartitionMetadata:
			pm, err := ReadPartitionMetadata(path)
			if err != nil {
				d.Problems = append(d.Problems, err)
			}
			d.PartitionMetadata = pm
		case KindIgnored, KindLock:
			d.Ignored = append(d.Ignored, name)
		default:
			d.Unknown = append(d.Unknown, name)
		}
	}
	return nil
}

// EmptyLog reports whether the segments hold no batch at all: at least
// one segment, starting at offset 0, every one of them zero bytes. That is
// what Kafka's log layer creates when a node starts (the active segment)
// before any record reaches it: a controller no leader has written to yet.
// A log starting above 0 is a coverage hole, not this.
func (d *LogDir) EmptyLog() bool {
	if len(d.Segments) == 0 || d.Segments[0].BaseOffset != 0 {
		return false
	}
	for _, s := range d.Segments {
		if s.Size != 0 {
			return false
		}
	}
	return true
}

// emptySegments names the empty segments of an EmptyLog.
func emptySegments(segs []DataFile) string {
	if len(segs) == 1 {
		return filepath.Base(segs[0].Path) + " is empty"
	}
	return fmt.Sprintf("its %d segments are empty", len(segs))
}

// LogStartOffset is the base offset of the first segment, or -1 without
// segments.
func (d *LogDir) LogStartOffset() int64 {
	if len(d.Segments) == 0 {
		return -1
	}
	return d.Segments[0].BaseOffset
}

// DataFiles returns every batch file in reading order: bootstrap, then
// snapshots by id, then segments by base offset.
func (d *LogDir) DataFiles() []DataFile {
	var out []DataFile
	if d.Bootstrap != nil {
		out = append(out, *d.Bootstrap)
	}
	out = append(out, d.Snapshots...)
	return append(out, d.Segments...)
}

// Log returns a stream over all batches of all segments in offset order.
func (d *LogDir) Log(opts StreamOptions) *Stream {
	parts := make([]StreamPart, len(d.Segments))
	for i, f := range d.Segments {
		parts[i] = StreamPart{File: f}
	}
	return NewStream(parts, opts)
}

// ReplayPlan is what a replay reads: the newest usable snapshot, then the
// segment batches after it.
type ReplayPlan struct {
	// Snapshot is the snapshot replay starts from; nil to start at the log
	// start.
	Snapshot *DataFile `json:"snapshot,omitempty"`
	// Bootstrap is set only when the log holds no record (no segment,
	// or only empty ones) and no snapshot but the bootstrap snapshot
	// (end offset 0): the controller would then apply
	// bootstrap.checkpoint. It is read first.
	Bootstrap *DataFile `json:"bootstrap,omitempty"`
	// Segments hold the offsets >= StartOffset.
	Segments    []DataFile `json:"segments"`
	StartOffset int64      `json:"startOffset"`
	// Skipped lists newer snapshots passed over because their first batch
	// is not a SnapshotHeader control batch.
	Skipped []error `json:"-"`
	// Truncated is set when the snapshot is newer than the whole log,
	// which Kafka then discards: no segment is replayed. Newer is Kafka's
	// truncateToLatestSnapshot's rule: a greater epoch than the log's
	// latest, or the same epoch and an end offset past the log's end.
	Truncated bool `json:"truncated"`
	// LogEnd is the log end offset Truncated compared the snapshot's end
	// with (the same epoch); -1 when the epochs decided.
	LogEnd int64 `json:"-"`
	// Hole is set when the log starts above offset 0 and no snapshot
	// reaches the log start: Kafka refuses to start ("Inconsistent
	// snapshot state") and replay misses records.
	Hole bool `json:"hole"`
}

// PlanReplay chooses the newest usable snapshot and the segments after it.
// A snapshot is usable when its first batch is a control batch starting
// with a SnapshotHeader; a snapshot ending beyond the log end is fine
// (Kafka truncates the log to it).
func (d *LogDir) PlanReplay() *ReplayPlan { return d.PlanReplayBefore(-1) }

// PlanReplayBefore is PlanReplay for a replay that stops before offset
// end (exclusive; negative for no limit): only snapshots ending at or
// before end qualify, so replay can stop exactly there.
//
// Like Kafka at startup (truncateToLatestSnapshot), when the chosen
// snapshot's epoch is newer than the log's latest epoch (from
// leader-epoch-checkpoint), or the same and the snapshot ends past the log
// end offset, the segments are not replayed: Kafka discards the whole log
// and restarts it at the snapshot's end offset.
func (d *LogDir) PlanReplayBefore(end int64) *ReplayPlan {
	p := &ReplayPlan{LogEnd: -1}
	for i := len(d.Snapshots) - 1; i >= 0; i-- {
		s := d.Snapshots[i]
		if s.Snapshot == nil {
			// A snapshot file given by a name Kafka would not use: its
			// end offset is unknown, so it can only stand alone.
			if len(d.Segments) > 0 {
				continue
			}
		} else if end >= 0 && s.Snapshot.EndOffset > end {
			continue
		}
		if err := checkSnapshotStart(s.Path); err != nil {
			p.Skipped = append(p.Skipped, err)
			continue
		}
		p.Snapshot = &s
		if s.Snapshot != nil {
			p.StartOffset = s.Snapshot.EndOffset
		}
		break
	}
	if p.Snapshot != nil && p.Snapshot.Snapshot != nil && len(d.LeaderEpochs) > 0 {
		id, latest := *p.Snapshot.Snapshot, d.LeaderEpochs[len(d.LeaderEpochs)-1].Epoch
		switch {
		case id.Epoch > latest:
			p.Truncated = true
		case id.Epoch == latest && len(d.Segments) > 0 && id.EndOffset > d.Segments[len(d.Segments)-1].BaseOffset:
			// The log end is at least the last segment's base offset, so
			// only a snapshot ending past that needs it read.
			if leo, ok := logEndOffset(d.Segments[len(d.Segments)-1]); ok && id.EndOffset > leo {
				p.Truncated, p.LogEnd = true, leo
			}
		}
	}
	if !p.Truncated {
		for i, seg := range d.Segments {
			// Segment i holds [base_i, base_{i+1}); skip it when entirely
			// below the start offset.
			if i+1 < len(d.Segments) && d.Segments[i+1].BaseOffset <= p.StartOffset {
				continue
			}
			p.Segments = append(p.Segments, seg)
		}
	}
	if start := d.LogStartOffset(); start > 0 && !p.Truncated &&
		(p.Snapshot == nil || p.Snapshot.Snapshot == nil || p.Snapshot.Snapshot.EndOffset < start) {
		p.Hole = true
	}
	if p.Snapshot == nil && (len(d.Segments) == 0 || d.EmptyLog()) ||
		p.Snapshot != nil && p.Snapshot.Snapshot != nil && p.Snapshot.Snapshot.EndOffset == 0 && (len(d.Segments) == 0 || d.EmptyLog()) {
		// No record yet: the controller that first leads writes the
		// bootstrap records into the log (3.x's from bootstrap.checkpoint,
		// with a dynamic quorum's bootstrap snapshot, 3.9's
		// 00000000000000000000-0000000000.checkpoint, holding only the
		// voters), so the bootstrap is the image.
		p.Bootstrap = d.Bootstrap
	}
	return p
}

// NeverStarted says, when the plan's image is only what kafka-storage
// format wrote, why: no record has reached the log yet ("" otherwise).
func (p *ReplayPlan) NeverStarted(d *LogDir) string {
	if slices.ContainsFunc(d.Problems, func(err error) bool { return errors.Is(err, ErrNoLog) }) {
		// The log is lost, not yet to come.
		return ""
	}
	switch {
	case p.Truncated || len(d.Segments) > 0 && !d.EmptyLog():
		return ""
	case p.Snapshot != nil && (p.Snapshot.Snapshot == nil || p.Snapshot.Snapshot.EndOffset != 0):
		return ""
	case p.Snapshot == nil && p.Bootstrap == nil:
		return ""
	}
	what := "kafka-storage format wrote"
	if len(d.Segments) > 0 {
		what = "kafka-storage format wrote; Kafka started on the dir (" + emptySegments(d.Segments) + ") but no leader has written to its log yet"
	}
	var from []string
	if p.Snapshot != nil {
		from = append(from, "the bootstrap snapshot "+filepath.Base(p.Snapshot.Path))
	}
	if p.Bootstrap != nil {
		from = append(from, BootstrapFileName)
	}
	return fmt.Sprintf("a node that holds no metadata record yet, only what %s: the image is the bootstrap in %s, which the first active controller writes into the log; no cluster state is in it yet",
		what, strings.Join(from, " and "))
}

// PlanReplayOldest is PlanReplayBefore for the longest history the files
// hold (history, which lists changes from where replay starts): the
// whole log when it starts at offset 0, else the oldest usable snapshot
// that reaches the log start, else PlanReplayBefore's choice. A log
// Kafka would discard for a newer snapshot (Truncated) is not replayed
// either way.
func (d *LogDir) PlanReplayOldest(end int64) *ReplayPlan {
	p := d.PlanReplayBefore(end)
	if p.Truncated || len(d.Segments) == 0 || p.Bootstrap != nil {
		// A plan with the bootstrap is one of a log without records:
		// there is no longer history than it.
		return p
	}
	start := d.LogStartOffset()
	if start == 0 {
		o := &ReplayPlan{Segments: slices.Clone(d.Segments)}
		// The bootstrap snapshot a dynamic quorum is formatted with
		// (00000000000000000000-0000000000.checkpoint: 4.x puts the
		// bootstrap features in it too) is where the log starts from, for
		// Kafka and for PlanReplayBefore's images: history starts from it
		// as well, or it would list the snapshot's state as changes the
		// images at the log's first points already hold.
		for _, s := range d.Snapshots {
			if s.Snapshot != nil && s.Snapshot.EndOffset == 0 && checkSnapshotStart(s.Path) == nil {
				o.Snapshot = &s
				break
			}
		}
		return o
	}
	for _, s := range d.Snapshots {
		if s.Snapshot == nil || s.Snapshot.EndOffset < start || end >= 0 && s.Snapshot.EndOffset > end {
			continue
		}
		if p.Snapshot != nil && p.Snapshot.Path == s.Path {
			return p
		}
		if checkSnapshotStart(s.Path) != nil {
			continue
		}
		o := &ReplayPlan{Snapshot: &s, StartOffset: s.Snapshot.EndOffset}
		for i, seg := range d.Segments {
			if i+1 < len(d.Segments) && d.Segments[i+1].BaseOffset <= o.StartOffset {
				continue
			}
			o.Segments = append(o.Segments, seg)
		}
		return o
	}
	return p
}

// Stream returns a stream over the plan: the bootstrap file and the
// snapshot whole, then segment batches from StartOffset on.
func (p *ReplayPlan) Stream(opts StreamOptions) *Stream {
	var parts []StreamPart
	if p.Bootstrap != nil {
		parts = append(parts, StreamPart{File: *p.Bootstrap})
	}
	if p.Snapshot != nil {
		parts = append(parts, StreamPart{File: *p.Snapshot})
	}
	for _, s := range p.Segments {
		parts = append(parts, StreamPart{File: s, FromOffset: p.StartOffset})
	}
	return NewStream(parts, opts)
}

// logEndOffset is the log end offset of a log whose last segment is seg:
// one past the last offset of its last batch, or its base offset when it
// holds none. Only the batch headers are read (Batch.parse, the one
// header parser: lengths and magic checked), one small read per batch;
// CRCs are log check's and replay's business. ok is false unless the
// lengths lead exactly to the file's end: a torn tail or a damaged length
// would make the end a guess, and a plan that discarded the log on a
// guess would hide the damage from replay, which reports it.
func logEndOffset(seg DataFile) (end int64, ok bool) {
	end = seg.BaseOffset
	f, err := openData(seg.Path)
	if err != nil {
		return end, false
	}
	defer f.Close()
	pos := int64(0)
	var hdr [HeaderSize]byte
	var b Batch
	for pos+HeaderSize <= seg.Size {
		if _, err := f.ReadAt(hdr[:], pos); err != nil || b.parse(hdr[:], seg.Path, pos, DefaultMaxBatchBytes) != nil || b.LastOffsetDelta < 0 {
			break
		}
		next := pos + LengthPrefix + int64(b.BatchLength)
		if next > seg.Size {
			break
		}
		end, pos = b.LastOffset()+1, next
	}
	return end, pos == seg.Size
}

// checkSnapshotStart reads only the first batch of a snapshot.
func checkSnapshotStart(path string) error {
	r, err := OpenReader(path, ReaderOptions{BufferSize: 64 << 10})
	if err != nil {
		return err
	}
	defer r.Close()
	b, err := r.Next()
	if err == io.EOF {
		return corrupt(path, 0, -1, ErrSnapshot, "empty snapshot")
	}
	if err != nil {
		return err
	}
	if t, ok := firstControlType(b); !ok || t != ControlSnapshotHeader {
		return corrupt(path, b.Position, b.BaseOffset, ErrSnapshot, "first batch is not a SnapshotHeader control batch")
	}
	return nil
}

// StreamPart is one file of a Stream. Batches entirely below FromOffset
// are skipped, and records below it are skipped by Batch.Records.
type StreamPart struct {
	File       DataFile
	FromOffset int64
}

// StreamOptions tunes a Stream.
type StreamOptions struct {
	Reader ReaderOptions
	// TolerateTornTail makes a torn tail at the end of the last file a
	// clean end of stream, as Kafka treats it; TornTail then reports it.
	TolerateTornTail bool
}

// Stream reads the batches of several files in order. Like Reader, a CRC
// mismatch comes with its batch and the stream can go on; other errors end
// it.
type Stream struct {
	parts []StreamPart
	opts  StreamOptions
	i     int
	cur   *Reader
	err   error
	torn  error
}

// NewStream returns a stream over parts, read in the given order.
func NewStream(parts []StreamPart, opts StreamOptions) *Stream {
	return &Stream{parts: parts, opts: opts, i: -1}
}

// File returns the file the last batch came from.
func (s *Stream) File() DataFile {
	if s.i < 0 || s.i >= len(s.parts) {
		return DataFile{}
	}
	return s.parts[s.i].File
}

// TornTail returns the torn-tail error tolerated at the end, if any.
func (s *Stream) TornTail() error { return s.torn }

// Next returns the next batch, or io.EOF after the last file.
func (s *Stream) Next() (*Batch, error) {
	for {
		if s.err != nil {
			return nil, s.err
		}
		if s.cur == nil {
			s.i++
			if s.i >= len(s.parts) {
				s.err = io.EOF
				return nil, io.EOF
			}
			r, err := OpenReader(s.parts[s.i].File.Path, s.opts.Reader)
			if err != nil {
				s.err = err
				return nil, err
			}
			s.cur = r
		}
		b, err := s.cur.Next()
		if err == io.EOF {
			s.cur.Close()
			s.cur = nil
			continue
		}
		if err != nil && !errors.Is(err, ErrCRC) {
			s.cur.Close()
			s.cur = nil
			if errors.Is(err, ErrTornTail) && s.opts.TolerateTornTail && s.i == len(s.parts)-1 {
				s.torn = err
				s.err = io.EOF
				return nil, io.EOF
			}
			s.err = err
			return nil, err
		}
		from := s.parts[s.i].FromOffset
		if b.LastOffset() < from {
			if err != nil {
				return b, err
			}
			continue
		}
		b.minOffset = from
		return b, err
	}
}

// Close releases the open file, if any.
func (s *Stream) Close() error {
	if s.cur != nil {
		err := s.cur.Close()
		s.cur = nil
		return err
	}
	return nil
}
