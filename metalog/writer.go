package metalog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// BatchParams are the header values a writer chooses. Everything else is
// fixed by KRaft: producerId/epoch/baseSequence -1, CreateTime, no
// compression, maxTimestamp = baseTimestamp.
type BatchParams struct {
	BaseOffset int64
	// Epoch is the partitionLeaderEpoch: the leader epoch in a segment,
	// the snapshot epoch in a snapshot, 0 in bootstrap.checkpoint.
	Epoch int32
	// Timestamp is the append time in milliseconds.
	Timestamp int64
}

// ControlRecord is a control record to write: its type and its body
// encoded at version 0 (no frame header).
type ControlRecord struct {
	Type  ControlType
	Value []byte
}

// AppendDataBatch appends one KRaft data batch holding values (already
// framed metadata records) to dst. Records get offsetDelta 0..n-1,
// timestampDelta 0, a null key and no headers.
func AppendDataBatch(dst []byte, p BatchParams, values [][]byte) ([]byte, error) {
	if len(values) == 0 {
		return dst, fmt.Errorf("%w: a batch needs at least one record", ErrBadRecord)
	}
	var bb batchBuilder
	bb.buf = dst
	bb.begin(p, false)
	for i, v := range values {
		if len(v) == 0 {
			return dst, fmt.Errorf("%w: record %d: KRaft requires a non-empty value", ErrKRaftRule, i)
		}
		bb.add(nil, v)
	}
	return bb.finish()
}

// AppendControlBatch appends one control batch to dst. Each key is int16
// version 0 + int16 type.
func AppendControlBatch(dst []byte, p BatchParams, recs []ControlRecord) ([]byte, error) {
	if len(recs) == 0 {
		return dst, fmt.Errorf("%w: a batch needs at least one record", ErrBadRecord)
	}
	var bb batchBuilder
	bb.buf = dst
	bb.begin(p, true)
	for i, r := range recs {
		if !r.Type.KRaftLegal() {
			return dst, fmt.Errorf("%w: record %d: control type %s", ErrKRaftRule, i, r.Type)
		}
		if len(r.Value) == 0 {
			return dst, fmt.Errorf("%w: record %d: KRaft requires a non-empty value", ErrKRaftRule, i)
		}
		bb.add(records.EncodeControlKey(r.Type), r.Value)
	}
	return bb.finish()
}

// EncodeSnapshotHeader encodes SnapshotHeaderRecord v0 {Version 0,
// LastContainedLogTimestamp} with no tagged fields.
func EncodeSnapshotHeader(lastContainedLogTimestamp int64) []byte {
	b := make([]byte, 11)
	binary.BigEndian.PutUint64(b[2:], uint64(lastContainedLogTimestamp))
	return b
}

// EncodeSnapshotFooter encodes SnapshotFooterRecord v0 {Version 0}.
func EncodeSnapshotFooter() []byte { return []byte{0, 0, 0} }

// EncodeKRaftVersion encodes KRaftVersionRecord v0 {Version 0, KRaftVersion}.
func EncodeKRaftVersion(level int16) []byte {
	return []byte{0, 0, byte(uint16(level) >> 8), byte(level), 0}
}

// batchBuilder encodes one batch in place: the header is reserved first
// and filled, with the CRC, by finish.
type batchBuilder struct {
	buf   []byte
	start int
	n     int32
	p     BatchParams
	ctl   bool
}

func (bb *batchBuilder) begin(p BatchParams, control bool) {
	bb.start = len(bb.buf)
	bb.buf = append(bb.buf, make([]byte, HeaderSize)...)
	bb.n, bb.p, bb.ctl = 0, p, control
}

// size returns the batch size so far.
func (bb *batchBuilder) size() int { return len(bb.buf) - bb.start }

// recordSize is the encoded size of the next record with this key/value.
func (bb *batchBuilder) recordSize(key, value []byte) int {
	body := bodySize(bb.n, key, value)
	return varintSize(int64(body)) + body
}

func bodySize(delta int32, key, value []byte) int {
	n := 1 + 1 + varintSize(int64(delta)) // attributes, timestampDelta 0, offsetDelta
	if key == nil {
		n++
	} else {
		n += varintSize(int64(len(key))) + len(key)
	}
	return n + varintSize(int64(len(value))) + len(value) + 1 // headers count 0
}

func (bb *batchBuilder) add(key, value []byte) {
	body := bodySize(bb.n, key, value)
	b := appendVarint(bb.buf, int64(body))
	b = append(b, 0, 0) // attributes, timestampDelta 0
	b = appendVarint(b, int64(bb.n))
	if key == nil {
		b = appendVarint(b, -1)
	} else {
		b = appendVarint(b, int64(len(key)))
		b = append(b, key...)
	}
	b = appendVarint(b, int64(len(value)))
	b = append(b, value...)
	bb.buf = append(b, 0)
	bb.n++
}

func (bb *batchBuilder) finish() ([]byte, error) {
	size := bb.size()
	if size > MaxKRaftBatchBytes {
		return bb.buf[:bb.start], fmt.Errorf("%w: batch of %d bytes exceeds KRaft's %d", ErrBadLength, size, MaxKRaftBatchBytes)
	}
	h := bb.buf[bb.start : bb.start+HeaderSize]
	be := binary.BigEndian
	be.PutUint64(h[0:], uint64(bb.p.BaseOffset))
	be.PutUint32(h[8:], uint32(size-LengthPrefix))
	be.PutUint32(h[12:], uint32(bb.p.Epoch))
	h[16] = MagicV2
	var attrs Attributes
	if bb.ctl {
		attrs = AttrControl
	}
	be.PutUint16(h[21:], uint16(attrs))
	be.PutUint32(h[23:], uint32(bb.n-1))
	be.PutUint64(h[27:], uint64(bb.p.Timestamp))
	be.PutUint64(h[35:], uint64(bb.p.Timestamp))
	be.PutUint64(h[43:], ^uint64(0))
	be.PutUint16(h[51:], ^uint16(0))
	be.PutUint32(h[53:], ^uint32(0))
	be.PutUint32(h[57:], uint32(bb.n))
	be.PutUint32(h[17:], CRC32C(bb.buf[bb.start+crcStart:]))
	return bb.buf, nil
}

func varintSize(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

func appendVarint(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// WriteOptions controls how files are created.
type WriteOptions struct {
	// Overwrite allows replacing an existing file, whose owner (uid and
	// gid) the new file keeps, and its permission bits unless Perm is
	// set: a broker's rewritten meta.properties stays the broker user's.
	Overwrite bool
	// Perm is the file mode; default 0644, or the replaced file's.
	Perm os.FileMode
}

// AtomicFile is written to a temporary file in the target's directory and
// appears under its final name only on Commit: fsync the file, rename (or
// hard-link when overwriting is refused, so a file created meanwhile is not
// clobbered), then fsync the directory.
type AtomicFile struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
	opts WriteOptions
	done bool
}

// CreateAtomic starts writing path. It fails with ErrExists when path
// exists and opts.Overwrite is false.
func CreateAtomic(path string, opts WriteOptions) (*AtomicFile, error) {
	if !opts.Overwrite {
		if _, err := os.Lstat(path); err == nil {
			return nil, &FileError{File: path, Err: ErrExists}
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// The .part suffix is one Kafka ignores (and deletes for snapshots)
	// should we die before Commit.
	tmp, err := os.CreateTemp(dir, "."+base+".*.part")
	if err != nil {
		return nil, &FileError{File: path, Err: err}
	}
	perm := opts.Perm
	if perm == 0 {
		perm = 0o644
	}
	var old os.FileInfo
	if opts.Overwrite {
		if old, err = os.Stat(path); err == nil && opts.Perm == 0 {
			perm = old.Mode().Perm()
		}
	}
	err = tmp.Chmod(perm)
	if err == nil && old != nil {
		err = chownLike(tmp, old)
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, &FileError{File: path, Err: err}
	}
	return &AtomicFile{path: path, tmp: tmp, w: bufio.NewWriterSize(tmp, 1<<20), opts: opts}, nil
}

// Path returns the final path.
func (a *AtomicFile) Path() string { return a.path }

// Write appends to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) {
	if a.done {
		return 0, &FileError{File: a.path, Err: errors.New("write after commit or abort")}
	}
	return a.w.Write(p)
}

// Commit makes the file visible under its final name, durably.
func (a *AtomicFile) Commit() error {
	if a.done {
		return &FileError{File: a.path, Err: errors.New("already committed or aborted")}
	}
	a.done = true
	tmpName := a.tmp.Name()
	fail := func(err error) error {
		a.tmp.Close()
		os.Remove(tmpName)
		return &FileError{File: a.path, Err: err}
	}
	if err := a.w.Flush(); err != nil {
		return fail(err)
	}
	if err := a.tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := a.tmp.Close(); err != nil {
		return fail(err)
	}
	if a.opts.Overwrite {
		if err := os.Rename(tmpName, a.path); err != nil {
			return fail(err)
		}
	} else {
		if err := os.Link(tmpName, a.path); err != nil {
			if errors.Is(err, os.ErrExist) {
				return fail(ErrExists)
			}
			return fail(err)
		}
		os.Remove(tmpName)
	}
	return syncDir(filepath.Dir(a.path))
}

// Abort discards the temporary file. It is safe after Commit.
func (a *AtomicFile) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	a.tmp.Close()
	return os.Remove(a.tmp.Name())
}

// MkdirAll is os.MkdirAll that makes each directory it creates durable:
// fsynced into its parent, so that a crash cannot lose a directory whose
// files were fsynced.
func MkdirAll(dir string, perm os.FileMode) error {
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return &FileError{File: dir, Err: errors.New("exists and is not a directory")}
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := MkdirAll(parent, perm); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, perm); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return nil // created meanwhile, by someone who syncs it
		}
		return &FileError{File: dir, Err: err}
	}
	return syncDir(filepath.Dir(dir))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return &FileError{File: dir, Err: err}
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return &FileError{File: dir, Err: err}
	}
	return nil
}

// SnapshotOptions describes a snapshot or bootstrap.checkpoint to write.
type SnapshotOptions struct {
	// Epoch is written as every batch's partitionLeaderEpoch: the
	// snapshot id's epoch, or 0 for bootstrap.checkpoint.
	Epoch int32
	// Timestamp is the batches' append time (ms).
	Timestamp int64
	// LastContainedLogTimestamp goes into the SnapshotHeader (0 in
	// bootstrap.checkpoint).
	LastContainedLogTimestamp int64
	// HeaderRecords are extra control records for the header batch, after
	// the SnapshotHeader: KRaftVersion and Voters when kraft.version >= 1.
	HeaderRecords []ControlRecord
	// ImpliedLevel, for WriteImageSnapshot: the image stands at the
	// implied 3.0-IV1 (ImageRecordOptions.ImpliedLevel).
	ImpliedLevel bool
	// MaxBatchBytes caps data batches; default MaxKRaftBatchBytes.
	MaxBatchBytes int
	Write         WriteOptions
}

// SnapshotWriter writes a raft snapshot or bootstrap.checkpoint: a header
// control batch, data batches, and a footer control batch, offsets from 0.
type SnapshotWriter struct {
	f    *AtomicFile
	opts SnapshotOptions
	next int64
	bb   batchBuilder
	err  error
}

// CreateSnapshot starts a snapshot file at path and writes its header
// batch. Name it with SnapshotID.FileName or BootstrapFileName.
func CreateSnapshot(path string, opts SnapshotOptions) (*SnapshotWriter, error) {
	if opts.MaxBatchBytes <= 0 || opts.MaxBatchBytes > MaxKRaftBatchBytes {
		opts.MaxBatchBytes = MaxKRaftBatchBytes
	}
	recs := append([]ControlRecord{{Type: ControlSnapshotHeader, Value: EncodeSnapshotHeader(opts.LastContainedLogTimestamp)}}, opts.HeaderRecords...)
	hdr, err := AppendControlBatch(nil, BatchParams{BaseOffset: 0, Epoch: opts.Epoch, Timestamp: opts.Timestamp}, recs)
	if err != nil {
		return nil, err
	}
	f, err := CreateAtomic(path, opts.Write)
	if err != nil {
		return nil, err
	}
	w := &SnapshotWriter{f: f, opts: opts, next: int64(len(recs))}
	if _, err := f.Write(hdr); err != nil {
		f.Abort()
		return nil, err
	}
	return w, nil
}

// Append adds one framed metadata record. Records are packed into batches
// of at most MaxBatchBytes.
func (w *SnapshotWriter) Append(value []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(value) == 0 {
		return fmt.Errorf("%w: KRaft requires a non-empty value", ErrKRaftRule)
	}
	if w.bb.n > 0 && w.bb.size()+w.bb.recordSize(nil, value) > w.opts.MaxBatchBytes {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if w.bb.n == 0 {
		w.bb.buf = w.bb.buf[:0]
		w.bb.begin(BatchParams{BaseOffset: w.next, Epoch: w.opts.Epoch, Timestamp: w.opts.Timestamp}, false)
	}
	w.bb.add(nil, value)
	return nil
}

func (w *SnapshotWriter) flush() error {
	if w.bb.n == 0 {
		return nil
	}
	out, err := w.bb.finish()
	if err == nil {
		_, err = w.f.Write(out)
	}
	if err != nil {
		w.err = err
		return err
	}
	w.next += int64(w.bb.n)
	w.bb.n = 0
	return nil
}

// Commit writes the pending data batch and the footer batch, then makes
// the file visible atomically.
func (w *SnapshotWriter) Commit() error {
	if w.err == nil {
		w.flush()
	}
	if w.err != nil {
		w.f.Abort()
		return w.err
	}
	footer, err := AppendControlBatch(nil, BatchParams{BaseOffset: w.next, Epoch: w.opts.Epoch, Timestamp: w.opts.Timestamp},
		[]ControlRecord{{Type: ControlSnapshotFooter, Value: EncodeSnapshotFooter()}})
	if err == nil {
		_, err = w.f.Write(footer)
	}
	if err != nil {
		w.f.Abort()
		return err
	}
	return w.f.Commit()
}

// Abort discards the file.
func (w *SnapshotWriter) Abort() error { return w.f.Abort() }

// WriteSnapshotFile writes a whole snapshot or bootstrap file from values.
func WriteSnapshotFile(path string, values [][]byte, opts SnapshotOptions) error {
	w, err := CreateSnapshot(path, opts)
	if err != nil {
		return err
	}
	for _, v := range values {
		if err := w.Append(v); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Commit()
}

// SegmentWriter writes a .log segment batch by batch, assigning offsets.
type SegmentWriter struct {
	f    *AtomicFile
	next int64
	buf  []byte
}

// CreateSegment starts dir/<baseOffset>.log.
func CreateSegment(dir string, baseOffset int64, opts WriteOptions) (*SegmentWriter, error) {
	f, err := CreateAtomic(filepath.Join(dir, SegmentFileName(baseOffset)), opts)
	if err != nil {
		return nil, err
	}
	return &SegmentWriter{f: f, next: baseOffset}, nil
}

// NextOffset is the offset the next record will get.
func (w *SegmentWriter) NextOffset() int64 { return w.next }

// AppendData writes one data batch.
func (w *SegmentWriter) AppendData(epoch int32, timestamp int64, values [][]byte) error {
	out, err := AppendDataBatch(w.buf[:0], BatchParams{BaseOffset: w.next, Epoch: epoch, Timestamp: timestamp}, values)
	return w.write(out, err, len(values))
}

// AppendControl writes one control batch (e.g. LeaderChange at the start
// of an epoch).
func (w *SegmentWriter) AppendControl(epoch int32, timestamp int64, recs []ControlRecord) error {
	out, err := AppendControlBatch(w.buf[:0], BatchParams{BaseOffset: w.next, Epoch: epoch, Timestamp: timestamp}, recs)
	return w.write(out, err, len(recs))
}

func (w *SegmentWriter) write(out []byte, err error, n int) error {
	if err != nil {
		return err
	}
	w.buf = out
	if _, err := w.f.Write(out); err != nil {
		return err
	}
	w.next += int64(n)
	return nil
}

// Commit makes the segment visible atomically.
func (w *SegmentWriter) Commit() error { return w.f.Commit() }

// Abort discards the segment.
func (w *SegmentWriter) Abort() error { return w.f.Abort() }

// VotersControlRecords are the control records that make a dynamic quorum
// (kraft.version 1, KIP-853), written after the SnapshotHeader in a
// snapshot's first batch: KRaftVersionRecord{1} and a VotersRecord naming
// each voter's id, directory id and endpoints, each supporting
// kraft.version 0 to 1 (what kafka-storage format --initial-controllers
// and a 4.x controller's snapshot write).
func VotersControlRecords(voters []model.Voter) ([]ControlRecord, error) {
	v := &records.VotersRecord{}
	for _, vo := range voters {
		rv := records.VotersRecordVoter{VoterId: vo.ID, VoterDirectoryId: vo.DirectoryID,
			KRaftVersionFeature: records.VotersRecordKRaftVersionFeature{MinSupportedVersion: 0, MaxSupportedVersion: 1}}
		for _, e := range vo.Endpoints {
			rv.Endpoints = append(rv.Endpoints, records.VotersRecordEndpoint{Name: e.Name, Host: e.Host, Port: e.Port})
		}
		v.Voters = append(v.Voters, rv)
	}
	body, err := records.EncodeControl(nil, v)
	if err != nil {
		return nil, err
	}
	return []ControlRecord{{Type: ControlKRaftVersion, Value: EncodeKRaftVersion(1)}, {Type: ControlKRaftVoters, Value: body}}, nil
}
