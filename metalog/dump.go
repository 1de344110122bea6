package metalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// DumpFormat selects what a Dumper writes.
type DumpFormat int

const (
	// DumpText is exactly what Kafka's DumpLogSegments
	// --cluster-metadata-decoder prints.
	DumpText DumpFormat = iota
	// DumpJSON is JSON lines: one object per batch and record.
	DumpJSON
	// DumpRows hands each record to DumpOptions.Row (for tables).
	DumpRows
)

// DumpFilter selects what a Dumper prints.
type DumpFilter struct {
	// APIKeys selects metadata records by apiKey (none: every record).
	// With a type filter, control batches are left out.
	APIKeys map[int16]bool
	// From and To bound the offsets printed (To < 0: to the end).
	From, To int64
	// RecordsOnly leaves out the batch lines.
	RecordsOnly bool
}

func (f *DumpFilter) wantOffset(o int64) bool {
	return o >= f.From && (f.To < 0 || o <= f.To)
}

// ParseRecordType resolves a --type value: an apiKey number, or a metadata
// record type name in Kafka's MetadataRecordType spelling (TOPIC_RECORD)
// or its schema spelling (TopicRecord), case-insensitive.
func ParseRecordType(s string) (int16, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 16); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("record type %q: an apiKey is 0 or more", s)
		}
		return int16(n), nil
	}
	norm := func(n string) string { return strings.ToUpper(strings.ReplaceAll(n, "_", "")) }
	for _, t := range records.MetadataTypes() {
		if norm(t.Name) == norm(s) {
			return t.APIKey, nil
		}
	}
	return 0, fmt.Errorf("unknown record type %q (use a name such as TOPIC_RECORD or TopicRecord, or an apiKey)", s)
}

// DumpRow is one record as DumpRows hands it over.
type DumpRow struct {
	File    string
	Offset  int64
	Epoch   int32
	Type    string
	Version int16
	// Data is the record's JSON, or the decode error.
	Data string
}

// DumpOptions tune a Dumper.
type DumpOptions struct {
	Format DumpFormat
	Filter DumpFilter
	// ShowSecrets prints sensitive config values and SCRAM salts and keys
	// as they are; otherwise they are replaced as model's redaction does.
	ShowSecrets bool
	// Row receives every record with DumpRows.
	Row func(DumpRow)
	// Progress, when set, is called with bytes read so far and the total.
	Progress func(done, total int64)
}

// TornTail is a file that ends inside a batch.
type TornTail struct {
	File     string
	Position int64
	// Bytes after the last whole batch.
	Bytes int64
	// Active is set for the last segment of a log dir: what a crash (or a
	// Kafka still appending) leaves, and what Kafka's recovery truncates.
	Active bool
}

func (t TornTail) String() string {
	return fmt.Sprintf("%s ends in a torn batch at position %d: %d byte(s) after the last whole batch were never committed (Kafka truncates them on recovery)", t.File, t.Position, t.Bytes)
}

// Dumper prints batches and records. Build one with NewDumper; it keeps
// the verdict of what it printed (Problems, TornTails).
type Dumper struct {
	w    io.Writer
	opts DumpOptions
	buf  []byte
	jbuf []byte
	// acc: lines accumulate in buf (a parallel worker's, taken whole by
	// the consumer, dump_parallel.go) instead of being written one by one.
	acc bool
	// The current file's name as a JSON string, and the middles of the
	// JSON record lines by apiKey (jsonMid), made once.
	jsonFile     []byte
	jsonFileName string
	jsonMids     [128]jsonMid
	dec          records.Decoder
	pend         *pendingBatch
	done         int64
	total        int64

	problems int
	first    error
	torn     []TornTail
	// check sees every batch the dumper reads, so that dump's verdict is
	// log check's; damage is the first error it found.
	check    *Checker
	damage   *model.Finding
	warnings []model.Finding
}

type pendingBatch struct {
	f DataFile
	b *Batch
}

// NewDumper returns a Dumper writing to w (buffer w: the dumper writes a
// line at a time).
func NewDumper(w io.Writer, opts DumpOptions) *Dumper {
	return &Dumper{w: w, opts: opts}
}

// Problems is the number of records (or record sets) that could not be
// decoded, and the first of them. Damage to batches and files is Damage's.
func (d *Dumper) Problems() (int, error) { return d.problems, d.first }

// Damage is the first error log check reports on what the dumper read
// (nil when none): dump and check give one verdict on one input. A torn
// tail of the active segment is not damage (TornTails lists it).
func (d *Dumper) Damage() *model.Finding { return d.damage }

// Warnings are log check's warnings on what the dumper read (bits KRaft
// never sets, a bootstrap batch epoch other than 0, unknown files, ...),
// torn tails aside (TornTails): the dump prints what it read, and the
// warnings say where that differs from what Kafka writes.
func (d *Dumper) Warnings() []model.Finding { return d.warnings }

// TornTails lists the files that ended inside a batch.
func (d *Dumper) TornTails() []TornTail { return d.torn }

func (d *Dumper) problem(err error) {
	d.problems++
	if d.first == nil {
		d.first = err
	}
}

// DumpDir prints every data file of an opened log dir in reading order.
func (d *Dumper) DumpDir(dir *LogDir) error {
	files := dir.DataFiles()
	for _, f := range files {
		d.total += f.Size
	}
	d.check = NewChecker(dir, CheckOptions{Strict: true})
	for i, f := range files {
		active := f.Kind == KindSegment && i == len(files)-1
		if err := d.dumpFile(f, active); err != nil {
			return err
		}
	}
	rep := d.check.Report()
	if dmg := rep.Damage(); dmg != nil && d.damage == nil {
		d.damage = dmg
	}
	for _, f := range rep.Findings {
		if f.Severity == model.SevWarning && f.Code != KindTornTail {
			d.warnings = append(d.warnings, f)
		}
	}
	return nil
}

// writeJSONLine writes v as one line of JSON, '<', '>' and '&' as they
// are (as the printers write JSON lines). The batch and record lines are
// appended by hand (dump_json.go); this writes the rare error lines.
func (d *Dumper) writeJSONLine(v any) error {
	enc := json.NewEncoder(d.w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (d *Dumper) dumpFile(f DataFile, active bool) error {
	d.check.BeginFile(f)
	r, err := d.openBatches(f) // in parallel for large files (dump_parallel.go)
	if err != nil {
		d.check.EndFile(err)
		return err
	}
	defer r.Close()
	if d.opts.Format == DumpText {
		io.WriteString(d.w, DumpHeader(f))
	}
	for {
		b, err := r.Next()
		if err == io.EOF {
			d.check.EndFile(nil)
			return r.flush()
		}
		if err != nil && !errors.Is(err, ErrCRC) {
			d.check.EndFile(err)
			if ferr := r.flush(); ferr != nil {
				return ferr
			}
			if errors.Is(err, ErrTornTail) || errors.Is(err, ErrBadLength) || errors.Is(err, ErrBadMagic) {
				// Kafka's tool reports what it could not read and stops
				// at the last valid batch; so does the dumper. Whether
				// that fails the dump is the checker's call: a torn
				// tail of the active segment is what a crash leaves.
				if errors.Is(err, ErrTornTail) {
					d.torn = append(d.torn, TornTail{File: f.Path, Position: r.Position(), Bytes: f.Size - r.Position(), Active: active})
				}
				switch d.opts.Format {
				case DumpText:
					fmt.Fprintf(d.w, "Found %d invalid bytes at the end of %s (%v)\n", f.Size-r.Position(), baseName(f.Path), err)
				case DumpJSON:
					return d.writeJSONLine(map[string]any{"kind": "error", "file": f.Path, "error": err.Error()})
				}
				return nil
			}
			return err
		}
		if err := r.dump(d, f, b, err); err != nil {
			return err
		}
	}
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func (d *Dumper) dumpBatch(f DataFile, b *Batch) error {
	d.done += b.Size()
	if d.opts.Progress != nil {
		d.opts.Progress(d.done, d.total)
	}
	flt := &d.opts.Filter
	if b.LastOffset() < flt.From || (flt.To >= 0 && b.BaseOffset > flt.To) {
		return nil
	}
	if len(flt.APIKeys) > 0 && b.IsControl() {
		return nil
	}
	// With a type filter, a batch line is printed only above the first
	// record it selects, so the output is not a list of empty batches.
	d.pend = nil
	if !flt.RecordsOnly {
		if len(flt.APIKeys) > 0 {
			d.pend = &pendingBatch{f, b}
		} else if err := d.writeBatch(f, b); err != nil {
			return err
		}
	}
	it := b.Records()
	for it.Next() {
		rec := it.Record()
		if !flt.wantOffset(rec.Offset) {
			continue
		}
		if err := d.dumpRecord(f, b, rec); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		d.problem(err)
		switch d.opts.Format {
		case DumpText:
			fmt.Fprintf(d.w, "Error in batch at position %d: %v\n", b.Position, err)
		case DumpJSON:
			return d.writeJSONLine(map[string]any{"kind": "error", "file": f.Path, "position": b.Position, "error": err.Error()})
		}
	}
	return nil
}

func (d *Dumper) writeBatch(f DataFile, b *Batch) error {
	switch d.opts.Format {
	case DumpText:
		d.buf = AppendBatchLine(d.buf, b)
		d.buf = append(d.buf, '\n')
		return d.line()
	case DumpJSON:
		d.buf = appendJSONBatchLine(d.buf, d.jsonFileString(f.Path), b)
		return d.line()
	}
	return nil
}

// flushPending writes the batch line held back for a type filter.
func (d *Dumper) flushPending() error {
	if d.pend == nil {
		return nil
	}
	p := d.pend
	d.pend = nil
	return d.writeBatch(p.f, p.b)
}

func (d *Dumper) dumpRecord(f DataFile, b *Batch, rec *Record) error {
	var (
		data         []byte
		control      bool
		typ, errMsg  string
		apiKey, recV int16
	)
	if b.IsControl() {
		k, c, err := records.DecodeControl(rec.Key, rec.Value)
		control, apiKey, typ = true, int16(k.Type), k.Type.Name()
		if err != nil && c == nil {
			errMsg = err.Error()
		}
		if c != nil {
			data = c.AppendJSON(nil, 0)
		}
		if d.opts.Format == DumpText {
			d.buf = AppendRecordMeta(d.buf, b, rec)
			if out, ok := AppendEndTxnMarker(d.buf, k.Type, rec.Value); ok {
				d.buf = out
			} else {
				d.buf = AppendControl(d.buf, k.Type, c)
			}
			d.buf = append(d.buf, '\n')
			return d.line()
		}
	} else {
		if jsonInPlace && d.opts.Format == DumpJSON && len(d.opts.Filter.APIKeys) == 0 && d.jsonRecordInPlace(f, b, rec) {
			return d.line()
		}
		fr, recTyp, recData, err := d.recordData(rec.Value) // transcoded when it can be
		apiKey, recV, typ = fr.APIKey, fr.Version, recTyp
		if keys := d.opts.Filter.APIKeys; len(keys) > 0 && !keys[fr.APIKey] {
			return nil
		}
		if err := d.flushPending(); err != nil {
			return err
		}
		if err != nil {
			d.problem(&CorruptionError{File: f.Path, Position: b.Position, Offset: rec.Offset, Err: err})
			errMsg = err.Error()
		} else {
			data = recData
		}
		if d.opts.Format == DumpText {
			d.buf = AppendRecordMeta(d.buf, b, rec)
			if err != nil {
				d.buf = append(d.buf, " payload: Error at "...)
				d.buf = strconv.AppendInt(d.buf, rec.Offset, 10)
				d.buf = append(d.buf, ", skipping. "...)
				d.buf = append(d.buf, err.Error()...)
			} else {
				d.buf = append(d.buf, ` payload: {"type":"`...)
				d.buf = append(d.buf, typ...)
				d.buf = append(d.buf, `","version":`...)
				d.buf = strconv.AppendInt(d.buf, int64(fr.Version), 10)
				d.buf = append(d.buf, `,"data":`...)
				d.buf = append(d.buf, data...)
				d.buf = append(d.buf, '}')
			}
			d.buf = append(d.buf, '\n')
			return d.line()
		}
	}
	switch d.opts.Format {
	case DumpJSON:
		d.buf = appendJSONRecordStart(d.buf, d.jsonFileString(f.Path))
		d.buf = appendJSONRecordHead(d.buf, rec.Offset, b.PartitionLeaderEpoch, control)
		d.buf = appendJSONRecordType(d.buf, typ, apiKey)
		d.buf = appendJSONRecordTail(d.buf, recV, data, errMsg)
		return d.line()
	case DumpRows:
		if d.opts.Row != nil {
			d.opts.Row(DumpRow{File: baseName(f.Path), Offset: rec.Offset, Epoch: b.PartitionLeaderEpoch, Type: typ, Version: recV, Data: string(data) + errMsg})
		}
	}
	return nil
}

// line ends a line appended to d.buf: written at once, or kept with the
// others of a worker's batch.
func (d *Dumper) line() error {
	if d.acc {
		return nil
	}
	_, err := d.w.Write(d.buf)
	d.buf = d.buf[:0]
	return err
}

// jsonFileString is file as a JSON string, escaped once per file.
func (d *Dumper) jsonFileString(file string) []byte {
	if d.jsonFile == nil || d.jsonFileName != file {
		d.jsonFile, d.jsonFileName = model.AppendJSONString(d.jsonFile[:0], file), file
	}
	return d.jsonFile
}

// jsonMid is the middle of a data record's JSON line, from `,"epoch":`
// to `"data":`, for one apiKey at the epoch and version it was last made
// for: in a log these change seldom from record to record.
type jsonMid struct {
	epoch int32
	ver   int16
	b     []byte
}

// jsonInPlace turns jsonRecordInPlace off, for the test comparing it with
// the general path.
var jsonInPlace = true

// jsonRecordInPlace appends a data record's JSON line with the record's
// data transcoded straight into the line (no copy of it), when the value
// has a one-byte frame header, transcodes and needs no redaction: what
// the general path below would write for it, byte for byte
// (TestDumpJSONInPlaceMatches). It reports false, leaving d.buf as it
// was, for anything else.
func (d *Dumper) jsonRecordInPlace(f DataFile, b *Batch, rec *Record) bool {
	v := rec.Value
	if len(v) < 3 || v[0] != 1 || v[1] >= 0x80 || v[2] >= 0x80 {
		return false
	}
	key, ver := int16(v[1]), int16(v[2])
	if !d.opts.ShowSecrets && redactedInDump(key) {
		return false
	}
	mid := &d.jsonMids[key]
	if mid.b == nil || mid.epoch != b.PartitionLeaderEpoch || mid.ver != ver {
		name := records.MetadataTypeName(key)
		if name == "" {
			return false
		}
		mid.epoch, mid.ver = b.PartitionLeaderEpoch, ver
		mid.b = appendJSONRecordEpoch(mid.b[:0], b.PartitionLeaderEpoch, false)
		mid.b = appendJSONRecordType(mid.b, name, key)
		mid.b = appendJSONRecordVersion(mid.b, ver)
		mid.b = append(mid.b, `,"data":`...)
	}
	mark := len(d.buf)
	d.buf = appendJSONRecordStart(d.buf, d.jsonFileString(f.Path))
	d.buf = appendJSONRecordOffset(d.buf, rec.Offset)
	d.buf = append(d.buf, mid.b...)
	out, k2, v2, ok := records.AppendMetadataJSON(d.buf, v)
	if !ok || k2 != key || v2 != ver {
		d.buf = d.buf[:mark]
		return false
	}
	d.buf = append(out, "}\n"...)
	return true
}

// recordData is a data record's frame, type name and Kafka JSON (or the
// decode error). The JSON is transcoded straight from the value's bytes
// (records.AppendMetadataJSON: AppendJSON's bytes without decoding into a
// struct) unless secrets must be redacted from it, which recordJSON does
// on the decoded record; values that do not transcode are decoded, for
// their JSON or their error.
func (d *Dumper) recordData(value []byte) (records.Frame, string, []byte, error) {
	if out, key, ver, ok := records.AppendMetadataJSON(d.jbuf[:0], value); ok && (d.opts.ShowSecrets || !redactedInDump(key)) {
		d.jbuf = out
		return records.Frame{FrameVersion: 1, APIKey: key, Version: ver}, records.MetadataTypeName(key), out, nil
	}
	fr, m, err := d.dec.DecodeMetadata(value)
	if m == nil {
		return fr, "", nil, err
	}
	typ := records.TypeName(m.RecordName())
	if err != nil {
		return fr, typ, nil, err
	}
	return fr, typ, d.recordJSON(m, fr.Version), nil
}

// redactedInDump: record types recordJSON may redact secrets from.
func redactedInDump(apiKey int16) bool {
	return apiKey == (&records.ConfigRecord{}).APIKey() || apiKey == (&records.UserScramCredentialRecord{}).APIKey()
}

// recordJSON renders a record's data as Kafka's JSON converter would, with
// secrets redacted unless ShowSecrets: sensitive config values and SCRAM
// salts and keys become model's redaction (short hashes, so equal secrets
// stay visibly equal).
func (d *Dumper) recordJSON(m records.Metadata, v int16) []byte {
	if !d.opts.ShowSecrets {
		switch r := m.(type) {
		case *records.ConfigRecord:
			if r.Value != nil && model.SensitiveConfig(model.ConfigResourceType(r.ResourceType), r.Name) {
				c := *r
				red := model.RedactedValue(*r.Value)
				c.Value = &red
				d.jbuf = c.AppendJSON(d.jbuf[:0], v)
				return d.jbuf
			}
		case *records.UserScramCredentialRecord:
			fp := model.ScramFingerprint(&model.ScramCredential{Salt: r.Salt, StoredKey: r.StoredKey, ServerKey: r.ServerKey})
			b := append([]byte(`{"name":`), records.AppendJSONString(nil, r.Name)...)
			b = append(b, `,"mechanism":`...)
			b = strconv.AppendInt(b, int64(r.Mechanism), 10)
			b = append(b, `,"salt":"[redacted]","storedKey":"[redacted]","serverKey":"[redacted]","fingerprint":`...)
			b = records.AppendJSONString(b, fp)
			b = append(b, `,"iterations":`...)
			b = strconv.AppendInt(b, int64(r.Iterations), 10)
			return append(b, '}')
		}
	}
	d.jbuf = m.AppendJSON(d.jbuf[:0], v)
	return d.jbuf
}
