package metalog

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"strconv"

	"github.com/kmeta/kmeta/metalog/internal/wire"
)

// Sizes of the v2 batch framing (see doc.go).
const (
	// HeaderSize is the size of a v2 batch header (RECORD_BATCH_OVERHEAD).
	HeaderSize = 61
	// LengthPrefix is the part of the header not counted by batchLength:
	// baseOffset (8) + batchLength (4).
	LengthPrefix = 12
	// minBatchLength is the smallest legal batchLength: a header with no
	// records.
	minBatchLength = HeaderSize - LengthPrefix
	// headerUpToMagic is how many bytes must be present to read the magic
	// byte; Kafka's FileLogInputStream uses the same threshold.
	headerUpToMagic = 17
	// crcStart is where the CRC-covered region begins (attributes).
	crcStart = 21
	// MagicV2 is the only batch format KRaft writes.
	MagicV2 = 2
	// MaxKRaftBatchBytes is KafkaRaftClient.MAX_BATCH_SIZE_BYTES.
	MaxKRaftBatchBytes = 8 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C returns the CRC-32C (Castagnoli) of p, the checksum v2 batches use.
func CRC32C(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }

// Compression is the codec in attribute bits 0-2.
type Compression int8

// Codecs, numbered as in the attributes field.
const (
	CompressionNone   Compression = 0
	CompressionGzip   Compression = 1
	CompressionSnappy Compression = 2
	CompressionLZ4    Compression = 3
	CompressionZstd   Compression = 4
)

// String returns the codec name as DumpLogSegments prints it.
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionGzip:
		return "gzip"
	case CompressionSnappy:
		return "snappy"
	case CompressionLZ4:
		return "lz4"
	case CompressionZstd:
		return "zstd"
	}
	return "unknown(" + strconv.Itoa(int(c)) + ")"
}

// Attributes is the int16 attributes field of a v2 batch.
type Attributes int16

// Attribute bits.
const (
	AttrCompressionMask Attributes = 0x07
	AttrLogAppendTime   Attributes = 0x08
	AttrTransactional   Attributes = 0x10
	AttrControl         Attributes = 0x20
	AttrDeleteHorizon   Attributes = 0x40
)

// Compression returns the codec bits.
func (a Attributes) Compression() Compression { return Compression(a & AttrCompressionMask) }

// Control reports whether the batch holds control records.
func (a Attributes) Control() bool { return a&AttrControl != 0 }

// Transactional reports the producer-transaction bit.
func (a Attributes) Transactional() bool { return a&AttrTransactional != 0 }

// LogAppendTime reports whether timestamps are LogAppendTime (else CreateTime).
func (a Attributes) LogAppendTime() bool { return a&AttrLogAppendTime != 0 }

// DeleteHorizon reports whether baseTimestamp holds a delete horizon.
func (a Attributes) DeleteHorizon() bool { return a&AttrDeleteHorizon != 0 }

// Batch is one decoded v2 record batch header plus access to its records.
//
// A *Batch returned by Reader.Next, and every slice reachable from it, is
// only valid until the next call to Next: the reader reuses its buffers so
// that reading a file allocates nothing per batch.
type Batch struct {
	// File is the name the reader was given; Position is the byte position
	// of the batch's first byte (baseOffset) in that file.
	File     string
	Position int64

	BaseOffset           int64
	BatchLength          int32
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           Attributes
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordsCount         int32

	// CRCChecked is false when the reader was told to skip verification.
	// CRCValid is meaningful only when CRCChecked is set.
	CRCChecked bool
	CRCValid   bool

	raw       []byte
	dec       *decompressor
	headers   []Header
	minOffset int64
}

// Size is the total size of the batch in bytes, header included.
func (b *Batch) Size() int64 { return int64(b.BatchLength) + LengthPrefix }

// LastOffset is baseOffset + lastOffsetDelta.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.LastOffsetDelta) }

// NextOffset is the offset after the batch's last offset.
func (b *Batch) NextOffset() int64 { return b.LastOffset() + 1 }

// IsControl reports the control attribute bit.
func (b *Batch) IsControl() bool { return b.Attributes.Control() }

// Compression returns the codec of the records section.
func (b *Batch) Compression() Compression { return b.Attributes.Compression() }

// Bytes returns the whole batch as stored, header included. It aliases the
// reader's buffer.
func (b *Batch) Bytes() []byte { return b.raw }

// RecordsBytes returns the stored (possibly compressed) records section.
func (b *Batch) RecordsBytes() []byte {
	if len(b.raw) < HeaderSize {
		return nil
	}
	return b.raw[HeaderSize:]
}

// ComputeCRC returns the CRC-32C of the covered region (attributes to end).
func (b *Batch) ComputeCRC() uint32 {
	if len(b.raw) < crcStart {
		return 0
	}
	return CRC32C(b.raw[crcStart:])
}

// ParseBatch decodes the batch at the start of data, which must hold at
// least the whole batch; trailing bytes are ignored. The returned batch
// aliases data. It verifies the CRC (reporting ErrCRC while still returning
// the batch) and is meant for callers that already hold bytes in memory,
// such as fuzzers and tests; files should go through Reader.
func ParseBatch(data []byte, file string, pos int64) (*Batch, error) {
	b := &Batch{}
	if err := b.parse(data, file, pos, DefaultMaxBatchBytes); err != nil {
		return nil, err
	}
	if int64(len(data)) < b.Size() {
		if why := lengthDamage(b, bytes.NewReader(data), int64(len(data)), DefaultMaxBatchBytes); why != "" {
			return nil, corrupt(file, pos, b.BaseOffset, ErrBadLength, "%s", why)
		}
		return nil, corrupt(file, pos, b.BaseOffset, ErrTornTail, "%d bytes left, batch needs %d", len(data), b.Size())
	}
	b.raw = data[:b.Size()]
	b.dec = newDecompressor(DefaultMaxDecompressedBytes)
	b.CRCChecked = true
	b.CRCValid = b.ComputeCRC() == b.CRC
	if !b.CRCValid {
		return b, b.crcError()
	}
	return b, nil
}

func (b *Batch) crcError() error {
	return corrupt(b.File, b.Position, b.BaseOffset, ErrCRC, "stored %d, computed %d", b.CRC, b.ComputeCRC())
}

// parse fills the header fields from data, which holds at least the header,
// or reports why it cannot. It checks what can be checked without the body:
// lengths and magic. A buffer shorter than the header is a torn tail.
func (b *Batch) parse(data []byte, file string, pos int64, maxBatch int) error {
	*b = Batch{File: file, Position: pos, headers: b.headers[:0], dec: b.dec, minOffset: math.MinInt64}
	if len(data) < LengthPrefix {
		return corrupt(file, pos, -1, ErrTornTail, "%d bytes left, batch header needs %d", len(data), HeaderSize)
	}
	b.BaseOffset = int64(binary.BigEndian.Uint64(data[0:]))
	b.BatchLength = int32(binary.BigEndian.Uint32(data[8:]))
	if len(data) < headerUpToMagic {
		return corrupt(file, pos, b.BaseOffset, ErrTornTail, "%d bytes left, batch header needs %d", len(data), HeaderSize)
	}
	b.PartitionLeaderEpoch = int32(binary.BigEndian.Uint32(data[12:]))
	b.Magic = int8(data[16])
	if b.BatchLength < minBatchLength {
		return corrupt(file, pos, b.BaseOffset, ErrBadLength, "batchLength %d is below the v2 minimum %d", b.BatchLength, minBatchLength)
	}
	if int64(b.BatchLength)+LengthPrefix > int64(maxBatch) {
		return corrupt(file, pos, b.BaseOffset, ErrBadLength, "batch size %d exceeds the maximum %d", int64(b.BatchLength)+LengthPrefix, maxBatch)
	}
	if b.Magic != MagicV2 {
		return corrupt(file, pos, b.BaseOffset, ErrBadMagic, "magic %d, want 2", b.Magic)
	}
	if len(data) < HeaderSize {
		return corrupt(file, pos, b.BaseOffset, ErrTornTail, "%d bytes left, batch header needs %d", len(data), HeaderSize)
	}
	b.CRC = binary.BigEndian.Uint32(data[17:])
	b.Attributes = Attributes(binary.BigEndian.Uint16(data[21:]))
	b.LastOffsetDelta = int32(binary.BigEndian.Uint32(data[23:]))
	b.BaseTimestamp = int64(binary.BigEndian.Uint64(data[27:]))
	b.MaxTimestamp = int64(binary.BigEndian.Uint64(data[35:]))
	b.ProducerID = int64(binary.BigEndian.Uint64(data[43:]))
	b.ProducerEpoch = int16(binary.BigEndian.Uint16(data[51:]))
	b.BaseSequence = int32(binary.BigEndian.Uint32(data[53:]))
	// recordsCount is covered by the CRC and checked when records are
	// read, so damage there shows up as a CRC mismatch first.
	b.RecordsCount = int32(binary.BigEndian.Uint32(data[57:]))
	return nil
}

// Header is one record header. Value is nil for a null value.
type Header struct {
	Key   []byte
	Value []byte
}

// Record is one record of a batch. Key and Value are nil for null, and, like
// Headers, alias the batch's buffer: they are valid until the reader moves
// to the next batch.
type Record struct {
	// Index is the record's position in the batch, from 0.
	Index          int
	Length         int32
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	// Offset and Timestamp are the absolute values (base + delta).
	Offset    int64
	Timestamp int64
	Key       []byte
	Value     []byte
	Headers   []Header
}

// RecordIterator walks the records of one batch:
//
//	it := b.Records()
//	for it.Next() {
//		rec := it.Record()
//	}
//	if err := it.Err(); err != nil { ... }
type RecordIterator struct {
	b       *Batch
	data    []byte
	pos     int
	n       int
	base    int64 // file position of data[0], or -1 when decompressed
	rec     Record
	err     error
	started bool
}

// Records returns an iterator over the batch's records, decompressing the
// records section first when needed. When the batch came from a Stream
// that starts mid-batch, records below the stream's start offset are
// skipped.
func (b *Batch) Records() RecordIterator {
	it := RecordIterator{b: b}
	it.data, it.base, it.err = b.recordsSection()
	return it
}

// recordsSection returns the (decompressed) records section and the file
// position of its first byte, -1 when it was decompressed. A compressed
// section aliases the batch's decompressor buffer.
func (b *Batch) recordsSection() ([]byte, int64, error) {
	if len(b.raw) < HeaderSize {
		return nil, -1, corrupt(b.File, b.Position, b.BaseOffset, ErrBadLength, "batch has no header")
	}
	if b.RecordsCount < 0 {
		return nil, -1, corrupt(b.File, b.Position, b.BaseOffset, ErrBadRecord, "negative recordsCount %d", b.RecordsCount)
	}
	body := b.raw[HeaderSize:]
	c := b.Compression()
	if c == CompressionNone {
		return body, b.Position + HeaderSize, nil
	}
	if b.dec == nil {
		b.dec = newDecompressor(DefaultMaxDecompressedBytes)
	}
	out, err := b.dec.decompress(c, body)
	if err != nil {
		return nil, -1, corrupt(b.File, b.Position, b.BaseOffset, ErrCompression, "%s: %v", c, err)
	}
	return out, -1, nil
}

// Err returns the first error met, a *CorruptionError.
func (it *RecordIterator) Err() error { return it.err }

// Record returns the current record; it is overwritten by Next.
func (it *RecordIterator) Record() *Record { return &it.rec }

// Next decodes the next record. It returns false at the end of the batch or
// on error. At the end it also checks that the records matched the header's
// recordsCount and filled the records section exactly.
func (it *RecordIterator) Next() bool {
	for {
		ok := it.next()
		if !ok || it.rec.Offset >= it.b.minOffset {
			return ok
		}
	}
}

func (it *RecordIterator) next() bool {
	if it.err != nil || it.b == nil {
		return false
	}
	b := it.b
	if it.n >= int(b.RecordsCount) {
		if it.pos != len(it.data) {
			it.fail(it.pos, "%d bytes after the last of %d records", len(it.data)-it.pos, b.RecordsCount)
		}
		return false
	}
	start := it.pos
	var f recFrame
	if fault, x := parseRecord(it.data, start, &f); fault != recOK {
		it.failRecord(start, fault, x, &f)
		return false
	}
	it.pos = f.end
	r := &it.rec
	*r = Record{
		Index: it.n, Length: f.length, Attributes: f.attrs,
		TimestampDelta: f.tsDelta, OffsetDelta: f.offDelta,
		Offset: b.BaseOffset + int64(f.offDelta), Timestamp: b.BaseTimestamp + f.tsDelta,
		Key: f.key(it.data), Value: f.value(it.data),
	}
	it.n++
	if f.hdrCount > 0 {
		// Validated by parseRecord; only built when there are any.
		hdrs := b.headers[:0]
		p := f.hdrOff
		for range f.hdrCount {
			var h Header
			h.Key, p, _ = readBytes(it.data[:f.end], p)
			h.Value, p, _ = readBytes(it.data[:f.end], p)
			hdrs = append(hdrs, h)
		}
		b.headers = hdrs
		r.Headers = hdrs
	}
	return true
}

// recFrame is one record's layout in a records section: its fields and
// where its key, value and headers are, nothing copied or allocated.
// Positions are indexes into the section.
type recFrame struct {
	length   int32
	attrs    int8
	tsDelta  int64
	offDelta int32
	keyOff   int
	keyLen   int // -1: null
	valOff   int
	valLen   int // -1: null
	hdrCount int32
	hdrOff   int
	end      int // just after the record
}

func (f *recFrame) key(d []byte) []byte {
	if f.keyLen < 0 {
		return nil
	}
	return d[f.keyOff : f.keyOff+f.keyLen : f.keyOff+f.keyLen]
}

func (f *recFrame) value(d []byte) []byte {
	if f.valLen < 0 {
		return nil
	}
	return d[f.valOff : f.valOff+f.valLen : f.valOff+f.valLen]
}

// recFault says why parseRecord refused a record.
type recFault uint8

const (
	recOK recFault = iota
	recBadLengthVarint
	recLengthRange // x: the bytes that remain after the length
	recBadTimestamp
	recBadOffsetDelta
	recBadKey
	recBadValue
	recBadHeaderCount
	recBadHeaderKey   // x: the header's index
	recBadHeaderValue // x: the header's index
	recTrailing       // x: the bytes after the last field
)

// parseRecord reads the record at d[pos:] into f (layout in doc.go,
// "Records"): every length bounded by the record, headers walked without
// being built. It is the one record parser: the iterator and check's fast
// walk (check_records.go) both use it. It runs for every record of every
// batch read, so the one-byte varints (nearly all of them) are decoded in
// line (varint1) and only longer ones take a call.
func parseRecord(d []byte, pos int, f *recFrame) (fault recFault, x int) {
	length, ok := varint1(d, pos, len(d))
	n := 1
	if !ok {
		if length, n = varintLong(d[pos:]); n <= 0 {
			return recBadLengthVarint, 0
		}
	}
	p := pos + n
	if length <= 0 || int(length) > len(d)-p {
		return recLengthRange, len(d) - p
	}
	end := p + int(length)
	f.length, f.end = length, end
	f.attrs = int8(d[p])
	p++
	if ts, ok := varint1(d, p, end); ok {
		f.tsDelta = int64(ts)
		p++
	} else {
		ts, n := varlongLong(d[p:end])
		if n <= 0 {
			return recBadTimestamp, 0
		}
		f.tsDelta = ts
		p += n
	}
	if f.offDelta, ok = varint1(d, p, end); ok {
		p++
	} else {
		if f.offDelta, n = varintLong(d[p:end]); n <= 0 {
			return recBadOffsetDelta, 0
		}
		p += n
	}
	if f.keyOff, f.keyLen, p, ok = bytesAt(d, p, end); !ok {
		return recBadKey, 0
	}
	if f.valOff, f.valLen, p, ok = bytesAt(d, p, end); !ok {
		return recBadValue, 0
	}
	hc, ok := varint1(d, p, end)
	n = 1
	if !ok {
		hc, n = varintLong(d[p:end])
	}
	if n <= 0 || hc < 0 || int(hc) > end-p-n {
		return recBadHeaderCount, 0
	}
	p += n
	f.hdrCount, f.hdrOff = hc, p
	for i := 0; i < int(hc); i++ {
		var l int
		if _, l, p, ok = bytesAt(d, p, end); !ok || l < 0 {
			return recBadHeaderKey, i
		}
		if _, _, p, ok = bytesAt(d, p, end); !ok {
			return recBadHeaderValue, i
		}
	}
	if p != end {
		return recTrailing, end - p
	}
	return recOK, 0
}

// varint1 decodes the zig-zag varint at d[p:lim] when it is one byte;
// ok is false otherwise (longer, malformed or no bytes: varintLong tells).
func varint1(d []byte, p, lim int) (v int32, ok bool) {
	if p < lim {
		if c := d[p]; c < 0x80 {
			return int32(c>>1) ^ -int32(c&1), true
		}
	}
	return 0, false
}

// varintLong and varlongLong are wire's decoders, kept out of line so
// that the one-byte case stays small.
//
//go:noinline
func varintLong(d []byte) (int32, int) { return wire.Varint(d) }

//go:noinline
func varlongLong(d []byte) (int64, int) { return wire.Varlong(d) }

// bytesAt reads a varint length and that many bytes at d[p:lim] (-1 is
// null: l = -1); it returns where they start, their length and the
// position after them.
func bytesAt(d []byte, p, lim int) (start, l, next int, ok bool) {
	v, ok := varint1(d, p, lim)
	n := 1
	if !ok {
		if v, n = varintLong(d[p:lim]); n <= 0 {
			return 0, 0, p, false
		}
	}
	if v < -1 {
		return 0, 0, p, false
	}
	p += n
	if v == -1 {
		return p, -1, p, true
	}
	if int(v) > lim-p {
		return 0, 0, p, false
	}
	return p, int(v), p + int(v), true
}

// failRecord reports parseRecord's fault in the iterator's words.
func (it *RecordIterator) failRecord(start int, fault recFault, x int, f *recFrame) {
	i := it.n
	switch fault {
	case recBadLengthVarint:
		it.fail(start, "record %d: bad length varint", i)
	case recLengthRange:
		length, _ := wire.Varint(it.data[start:])
		it.fail(start, "record %d: length %d, %d bytes remain", i, length, x)
	case recBadTimestamp:
		it.fail(start, "record %d: bad timestampDelta", i)
	case recBadOffsetDelta:
		it.fail(start, "record %d: bad offsetDelta", i)
	case recBadKey:
		it.fail(start, "record %d: bad key length", i)
	case recBadValue:
		it.fail(start, "record %d: bad value length", i)
	case recBadHeaderCount:
		it.fail(start, "record %d: bad headers count", i)
	case recBadHeaderKey:
		it.fail(start, "record %d: bad header %d key", i, x)
	case recBadHeaderValue:
		it.fail(start, "record %d: bad header %d value", i, x)
	case recTrailing:
		it.fail(start, "record %d: %d bytes after the last field", i, x)
	}
}

func (it *RecordIterator) fail(at int, format string, args ...any) {
	pos := it.b.Position
	if it.base >= 0 {
		pos = it.base + int64(at)
	}
	it.err = corrupt(it.b.File, pos, it.b.BaseOffset, ErrBadRecord, format, args...)
}

// readBytes reads a zig-zag varint length and that many bytes; -1 is null.
func readBytes(d []byte, p int) ([]byte, int, bool) {
	l, n := wire.Varint(d[p:])
	if n <= 0 || l < -1 {
		return nil, p, false
	}
	p += n
	if l == -1 {
		return nil, p, true
	}
	if int(l) > len(d)-p {
		return nil, p, false
	}
	return d[p : p+int(l) : p+int(l)], p + int(l), true
}
