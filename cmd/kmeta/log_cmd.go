package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/wire"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

func init() { register(logCommand) }

func logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "inspect KRaft __cluster_metadata segments, snapshots and bootstrap files",
		Subcommands: []*cli.Command{
			logDumpCommand(),
			logCheckCommand(),
			logStatsCommand(),
		},
	}
}

// dumpFilter selects records for log dump.
type dumpFilter struct {
	types      map[string]bool // UPPER_SNAKE names, or apiKey numbers as text
	from, to   int64
	skipBatch  bool
	noControls bool
}

func (f *dumpFilter) wantOffset(o int64) bool {
	return o >= f.from && (f.to < 0 || o <= f.to)
}

func (f *dumpFilter) wantType(name string, key int16) bool {
	if len(f.types) == 0 {
		return true
	}
	return f.types[name] || f.types[strconv.Itoa(int(key))]
}

func logDumpCommand() *cli.Command {
	return &cli.Command{
		Name:      "dump",
		Usage:     "print every batch and record (text: the lines kafka-dump-log --cluster-metadata-decoder prints; json: one object per batch and record)",
		ArgsUsage: "PATH...",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "type", Usage: "only records of this type (TOPIC_RECORD, or an apiKey); repeatable"},
			&cli.Int64Flag{Name: "from-offset", Value: 0, Usage: "first offset to print"},
			&cli.Int64Flag{Name: "to-offset", Value: -1, Usage: "last offset to print (-1: to the end)"},
			&cli.BoolFlag{Name: "records-only", Usage: "omit batch lines"},
		},
		Action: func(c *cli.Context) error {
			paths, err := checkArgs(c, 1, -1, "PATH...")
			if err != nil {
				return err
			}
			streamingGC()
			f := &dumpFilter{from: c.Int64("from-offset"), to: c.Int64("to-offset"), skipBatch: c.Bool("records-only")}
			for _, t := range c.StringSlice("type") {
				for _, p := range strings.Split(t, ",") {
					if f.types == nil {
						f.types = map[string]bool{}
					}
					f.types[strings.ToUpper(strings.TrimSpace(p))] = true
				}
			}
			if len(f.types) > 0 {
				f.noControls = true
			}
			w := bufio.NewWriterSize(stdout(c), 1<<16)
			d := &dumper{w: w, format: outputFormat(c), secrets: showSecrets(c), filter: f, progress: newProgress(c, "dumping", progressBytes)}
			defer d.progress.Done()
			var runErr error
			for _, p := range paths {
				if err := d.dumpPath(p); err != nil {
					runErr = err
					break
				}
			}
			if err := w.Flush(); err != nil && runErr == nil {
				runErr = err
			}
			if runErr != nil {
				return fmt.Errorf("dump: %w", runErr)
			}
			if d.problems > 0 {
				return findingsf("%d batch(es) or record(s) could not be decoded", d.problems)
			}
			return nil
		},
	}
}

type dumper struct {
	w        *bufio.Writer
	format   printer.Format
	secrets  bool
	filter   *dumpFilter
	buf      []byte
	jbuf     []byte
	dec      records.Decoder
	pending  *pendingBatch
	progress *progress
	done     int64
	total    int64
	problems int
	table    [][]string
}

func (d *dumper) dumpPath(path string) error {
	dir, err := metalog.OpenLogDir(path)
	if err != nil {
		return err
	}
	for _, f := range dir.DataFiles() {
		d.total += f.Size
	}
	for _, f := range dir.DataFiles() {
		if err := d.dumpFile(f); err != nil {
			return err
		}
	}
	if d.format == printer.Table {
		err := printer.WriteRows(d.w, printer.Table, printer.Rows{
			Columns: []printer.Column{{Header: "FILE"}, {Header: "OFFSET"}, {Header: "EPOCH"}, {Header: "TYPE"}, {Header: "VERSION"}, {Header: "DATA"}},
			Rows:    d.table,
		})
		d.table = nil
		return err
	}
	return nil
}

// jsonBatch and jsonRecord are the JSON-lines shapes of log dump. Field
// order is the struct order and is part of kmeta's output contract.
type jsonBatch struct {
	Kind                 string `json:"kind"` // "batch"
	File                 string `json:"file"`
	Position             int64  `json:"position"`
	BaseOffset           int64  `json:"baseOffset"`
	LastOffset           int64  `json:"lastOffset"`
	Count                int32  `json:"count"`
	PartitionLeaderEpoch int32  `json:"partitionLeaderEpoch"`
	IsControl            bool   `json:"isControl"`
	Compression          string `json:"compression"`
	Timestamp            int64  `json:"timestamp"`
	Size                 int64  `json:"size"`
	CRC                  uint32 `json:"crc"`
	CRCValid             bool   `json:"crcValid"`
}

type jsonRecord struct {
	Kind    string          `json:"kind"` // "record"
	File    string          `json:"file"`
	Offset  int64           `json:"offset"`
	Epoch   int32           `json:"epoch"`
	Control bool            `json:"control"`
	Type    string          `json:"type"`
	APIKey  int16           `json:"apiKey"`
	Version int16           `json:"version"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

func (d *dumper) dumpFile(f metalog.DataFile) error {
	r, err := d.openBatches(f) // parallel for large files (dump_parallel.go)
	if err != nil {
		return err
	}
	defer r.Close()
	if d.format == printer.Text {
		d.w.WriteString(metalog.DumpHeader(f))
	}
	for {
		b, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, metalog.ErrCRC) {
			if errors.Is(err, metalog.ErrTornTail) || errors.Is(err, metalog.ErrBadLength) || errors.Is(err, metalog.ErrBadMagic) {
				// Kafka's tool reports what it could not read and stops
				// at the last valid batch; kmeta does the same and exits 1.
				d.problems++
				if d.format == printer.Text {
					fmt.Fprintf(d.w, "Found %d invalid bytes at the end of %s (%v)\n", f.Size-r.Position(), baseName(f.Path), err)
				} else if d.format == printer.JSON {
					printer.WriteJSONLine(d.w, map[string]any{"kind": "error", "file": f.Path, "error": err.Error()})
				}
				return nil
			}
			return err
		}
		if err != nil {
			d.problems++
		}
		if err := r.dump(d, f, b); err != nil {
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

func (d *dumper) dumpBatch(f metalog.DataFile, b *metalog.Batch) error {
	d.done += b.Size()
	d.progress.Update(d.done, d.total)
	flt := d.filter
	if b.LastOffset() < flt.from || (flt.to >= 0 && b.BaseOffset > flt.to) {
		return nil
	}
	if flt.noControls && b.IsControl() {
		return nil
	}
	// With a type filter, a batch line is printed only above the first
	// record it selects, so the output is not a list of empty batches.
	d.pending = nil
	if !flt.skipBatch {
		if len(flt.types) > 0 {
			d.pending = &pendingBatch{f, b}
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
		d.problems++
		if d.format == printer.Text {
			fmt.Fprintf(d.w, "Error in batch at position %d: %v\n", b.Position, err)
			return nil
		}
		if d.format == printer.JSON {
			return printer.WriteJSONLine(d.w, map[string]any{"kind": "error", "file": f.Path, "position": b.Position, "error": err.Error()})
		}
	}
	return nil
}

type pendingBatch struct {
	f metalog.DataFile
	b *metalog.Batch
}

func (d *dumper) writeBatch(f metalog.DataFile, b *metalog.Batch) error {
	switch d.format {
	case printer.Text:
		d.buf = metalog.AppendBatchLine(d.buf[:0], b)
		d.buf = append(d.buf, '\n')
		_, err := d.w.Write(d.buf)
		return err
	case printer.JSON:
		d.buf = metalog.AppendJSONBatchLine(d.buf[:0], f.Path, b) // the jsonBatch shape, by hand
		_, err := d.w.Write(d.buf)
		return err
	}
	return nil
}

// flushPending writes the batch line held back for a type filter.
func (d *dumper) flushPending() error {
	if d.pending == nil {
		return nil
	}
	p := d.pending
	d.pending = nil
	return d.writeBatch(p.f, p.b)
}

func (d *dumper) dumpRecord(f metalog.DataFile, b *metalog.Batch, rec *metalog.Record) error {
	jr := jsonRecord{Kind: "record", File: f.Path, Offset: rec.Offset, Epoch: b.PartitionLeaderEpoch}
	var data []byte
	if b.IsControl() {
		k, c, err := records.DecodeControl(rec.Key, rec.Value)
		jr.Control, jr.APIKey, jr.Type = true, int16(k.Type), k.Type.Name()
		if err != nil && c == nil {
			jr.Error = err.Error()
		}
		if c != nil {
			data = c.AppendJSON(nil, 0)
		}
		if d.format == printer.Text {
			d.buf = metalog.AppendRecordMeta(d.buf[:0], b, rec)
			if out, ok := metalog.AppendEndTxnMarker(d.buf, k.Type, rec.Value); ok {
				d.buf = out
			} else {
				d.buf = metalog.AppendControl(d.buf, k.Type, c)
			}
			d.buf = append(d.buf, '\n')
			_, err := d.w.Write(d.buf)
			return err
		}
	} else {
		fr, typ, recData, err := d.recordData(rec.Value) // transcoded when it can be (dump_fast.go)
		jr.APIKey, jr.Version, jr.Type = fr.APIKey, fr.Version, typ
		if !d.filter.wantType(jr.Type, fr.APIKey) {
			return nil
		}
		if err := d.flushPending(); err != nil {
			return err
		}
		if err != nil {
			d.problems++
			jr.Error = err.Error()
		} else {
			data = recData
		}
		if d.format == printer.Text {
			d.buf = metalog.AppendRecordMeta(d.buf[:0], b, rec)
			if err != nil {
				d.buf = append(d.buf, " payload: Error at "...)
				d.buf = strconv.AppendInt(d.buf, rec.Offset, 10)
				d.buf = append(d.buf, ", skipping. "...)
				d.buf = append(d.buf, err.Error()...)
			} else {
				d.buf = append(d.buf, ` payload: {"type":"`...)
				d.buf = append(d.buf, jr.Type...)
				d.buf = append(d.buf, `","version":`...)
				d.buf = strconv.AppendInt(d.buf, int64(fr.Version), 10)
				d.buf = append(d.buf, `,"data":`...)
				d.buf = append(d.buf, data...)
				d.buf = append(d.buf, '}')
			}
			d.buf = append(d.buf, '\n')
			_, werr := d.w.Write(d.buf)
			return werr
		}
	}
	switch d.format {
	case printer.JSON:
		// The jsonRecord shape, by hand.
		d.buf = metalog.AppendJSONRecordLine(d.buf[:0], jr.File, jr.Offset, jr.Epoch, jr.Control, jr.Type, jr.APIKey, jr.Version, data, jr.Error)
		_, err := d.w.Write(d.buf)
		return err
	case printer.Table:
		d.table = append(d.table, []string{baseName(f.Path), strconv.FormatInt(rec.Offset, 10), strconv.Itoa(int(b.PartitionLeaderEpoch)), jr.Type, strconv.Itoa(int(jr.Version)), string(data) + jr.Error})
	}
	return nil
}

// recordJSON renders a record's data as Kafka's JSON converter would, with
// secrets redacted unless --show-secrets: sensitive config values and SCRAM
// salts and keys become short hashes, so equal secrets stay visibly equal.
func (d *dumper) recordJSON(m records.Metadata, v int16) []byte {
	if !d.secrets {
		switch r := m.(type) {
		case *records.ConfigRecord:
			if r.Value != nil && model.IsSensitiveConfig(r.Name) {
				c := *r
				red := model.RedactedValue(*r.Value)
				c.Value = &red
				d.jbuf = c.AppendJSON(d.jbuf[:0], v)
				return d.jbuf
			}
		case *records.UserScramCredentialRecord:
			fp := model.ScramFingerprint(&model.ScramCredential{Salt: r.Salt, StoredKey: r.StoredKey, ServerKey: r.ServerKey})
			b := append([]byte(`{"name":`), wire.AppendJSONString(nil, r.Name)...)
			b = append(b, `,"mechanism":`...)
			b = wire.AppendJSONInt(b, int64(r.Mechanism))
			b = append(b, `,"salt":"[redacted]","storedKey":"[redacted]","serverKey":"[redacted]","fingerprint":`...)
			b = wire.AppendJSONString(b, fp)
			b = append(b, `,"iterations":`...)
			b = wire.AppendJSONInt(b, int64(r.Iterations))
			return append(b, '}')
		}
	}
	d.jbuf = m.AppendJSON(d.jbuf[:0], v)
	return d.jbuf
}

func logCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "integrity verdict: CRC failures, offset gaps and overlaps, epoch regressions, torn tail, snapshot/log coverage holes, undecodable records",
		ArgsUsage: "PATH",
		Description: "Exit 0 when healthy, 1 when problems were found, 2 when the path could not be read.\n" +
			"Every finding names the file, the byte position and the offset; the last known-good offset says\n" +
			"how far the log can be trusted. Inputs are opened read-only and Kafka's .lock is never taken,\n" +
			"so a directory a running Kafka uses can be checked (its active segment may end in a torn tail:\n" +
			"that is a warning, as Kafka truncates it on recovery).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-strict", Usage: "skip the rules KRaft's raft layer enforces on metadata batches"},
			&cli.BoolFlag{Name: "frames-only", Usage: "check framing and CRCs and record frame headers, without decoding record bodies"},
			&cli.IntFlag{Name: "max-per-kind", Value: 100, Usage: "report at most this many findings of one kind per file"},
		},
		Action: func(c *cli.Context) error {
			path, err := oneArg(c, "PATH")
			if err != nil {
				return err
			}
			streamingGC()
			opts := metalog.CheckOptions{Strict: !c.Bool("no-strict"), MaxPerKind: c.Int("max-per-kind")}
			if !c.Bool("frames-only") {
				opts.DecodeValue = decodeForCheck
			}
			p := newProgress(c, "checking "+path, progressBytes)
			opts.Progress = p.Update
			rep, err := metalog.Check(path, opts)
			p.Done()
			if err != nil {
				return fmt.Errorf("check %s: %w", path, err)
			}
			if err := writeCheckReport(c, rep); err != nil {
				return err
			}
			if !rep.OK() {
				return errFindingsReported
			}
			return nil
		},
	}
}

// decodeForCheck checks that a record body decodes (records.ValidateMetadata:
// the full decoder's verdict and error, without building the record). Unknown types and newer versions
// are not damage: a newer Kafka may write them, and readers skip them.
func decodeForCheck(value []byte) error {
	err := records.ValidateMetadata(value)
	if errors.Is(err, records.ErrUnknownType) || errors.Is(err, records.ErrUnknownVersion) {
		return nil
	}
	return err
}

func writeCheckReport(c *cli.Context, rep *metalog.Report) error {
	if outputFormat(c) == printer.JSON {
		return writeJSON(c, rep)
	}
	w := stdout(c)
	verdict := "HEALTHY"
	if !rep.OK() {
		verdict = fmt.Sprintf("PROBLEMS (%d error(s))", rep.Errors())
	}
	var segs, snaps int
	var batches, recs int64
	for _, f := range rep.Files {
		switch f.Kind {
		case metalog.KindSegment:
			segs++
		case metalog.KindSnapshot:
			snaps++
		}
		batches += f.Batches
		recs += f.Records
	}
	fmt.Fprintf(w, "%s: %s\n", rep.Path, verdict)
	fmt.Fprintf(w, "files: %d segment(s), %d snapshot(s), %d file(s) in all; %d batches, %d records\n", segs, snaps, len(rep.Files), batches, recs)
	fmt.Fprintf(w, "log offsets: [%d, %d); last known-good offset: %d\n", rep.LogStartOffset, rep.LogEndOffset, rep.LastGoodOffset)
	if len(rep.Findings) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "SEVERITY", Key: "severity"}, {Header: "KIND", Key: "kind"}, {Header: "FILE", Key: "file"},
		{Header: "POSITION", Key: "position"}, {Header: "OFFSET", Key: "offset"}, {Header: "MESSAGE", Key: "message"},
	}}
	for _, f := range rep.Findings {
		rows.Rows = append(rows.Rows, []string{string(f.Severity), f.Kind, f.File, strconv.FormatInt(f.Position, 10), strconv.FormatInt(f.Offset, 10), printer.Clean(f.Message)})
	}
	return printer.WriteRows(w, outputFormat(c), rows)
}

func logStatsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "records and bytes per record type, batches, epochs, time range",
		ArgsUsage: "PATH",
		Action: func(c *cli.Context) error {
			path, err := oneArg(c, "PATH")
			if err != nil {
				return err
			}
			streamingGC()
			st, err := metalog.ComputeStats(path, metalog.ReaderOptions{})
			if err != nil {
				return fmt.Errorf("stats %s: %w", path, err)
			}
			if outputFormat(c) == printer.JSON {
				return writeJSON(c, st)
			}
			w := stdout(c)
			fmt.Fprintf(w, "batches: %d (%d control), records: %d, bytes: %d\n", st.Batches, st.ControlBatches, st.Records, st.Bytes)
			fmt.Fprintf(w, "offsets: %d..%d\n", st.FirstOffset, st.LastOffset)
			if st.Records > 0 {
				fmt.Fprintf(w, "time: %s .. %s\n", msTime(st.MinTimestamp), msTime(st.MaxTimestamp))
			}
			fmt.Fprintln(w)
			rows := printer.Rows{Columns: []printer.Column{{Header: "TYPE", Key: "type"}, {Header: "KEY", Key: "key"}, {Header: "RECORDS", Key: "records"}, {Header: "BYTES", Key: "bytes"}}}
			for _, k := range st.ByAPIKey {
				rows.Rows = append(rows.Rows, []string{k.Name, strconv.Itoa(int(k.Key)), strconv.FormatInt(k.Records, 10), strconv.FormatInt(k.Bytes, 10)})
			}
			for _, k := range st.ByControlType {
				rows.Rows = append(rows.Rows, []string{k.Name, "control " + strconv.Itoa(int(k.Key)), strconv.FormatInt(k.Records, 10), strconv.FormatInt(k.Bytes, 10)})
			}
			if err := printer.WriteRows(w, outputFormat(c), rows); err != nil {
				return err
			}
			fmt.Fprintln(w)
			erows := printer.Rows{Columns: []printer.Column{{Header: "EPOCH", Key: "epoch"}, {Header: "BATCHES", Key: "batches"}, {Header: "RECORDS", Key: "records"}, {Header: "FIRST OFFSET", Key: "firstOffset"}, {Header: "LAST OFFSET", Key: "lastOffset"}}}
			for _, e := range st.Epochs {
				erows.Rows = append(erows.Rows, []string{strconv.Itoa(int(e.Epoch)), strconv.FormatInt(e.Batches, 10), strconv.FormatInt(e.Records, 10), strconv.FormatInt(e.FirstOffset, 10), strconv.FormatInt(e.LastOffset, 10)})
			}
			return printer.WriteRows(w, outputFormat(c), erows)
		},
	}
}

func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }

// streamingGC raises the GC target for commands that stream: their live
// heap is small (one batch) while they allocate short-lived records
// quickly, so the default target spends much of a dump collecting. A few
// MiB buy a large share of throughput. GOGC still wins when set.
func streamingGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
