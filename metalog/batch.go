package metalog

import (
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
	it := RecordIterator{b: b, base: -1}
	if len(b.raw) < HeaderSize {
		it.err = corrupt(b.File, b.Position, b.BaseOffset, ErrBadLength, "batch has no header")
		return it
	}
	if b.RecordsCount < 0 {
		it.err = corrupt(b.File, b.Position, b.BaseOffset, ErrBadRecord, "negative recordsCount %d", b.RecordsCount)
		return it
	}
	body := b.raw[HeaderSize:]
	if c := b.Compression(); c != CompressionNone {
		if b.dec == nil {
			b.dec = newDecompressor(DefaultMaxDecompressedBytes)
		}
		out, err := b.dec.decompress(c, body)
		if err != nil {
			it.err = corrupt(b.File, b.Position, b.BaseOffset, ErrCompression, "%s: %v", c, err)
			return it
		}
		it.data = out
	} else {
		it.data = body
		it.base = b.Position + HeaderSize
	}
	return it
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
	d := it.data[it.pos:]
	length, n := wire.Varint(d)
	if n <= 0 {
		it.fail(start, "record %d: bad length varint", it.n)
		return false
	}
	if length <= 0 || int(length) > len(d)-n {
		it.fail(start, "record %d: length %d, %d bytes remain", it.n, length, len(d)-n)
		return false
	}
	body := d[n : n+int(length)]
	it.pos += n + int(length)
	r := &it.rec
	hdrs := b.headers[:0]
	*r = Record{Index: it.n, Length: length}
	it.n++
	p := 0
	if len(body) < 1 {
		it.fail(start, "record %d: empty body", r.Index)
		return false
	}
	r.Attributes = int8(body[0])
	p = 1
	ts, n := wire.Varlong(body[p:])
	if n <= 0 {
		it.fail(start, "record %d: bad timestampDelta", r.Index)
		return false
	}
	p += n
	r.TimestampDelta = ts
	od, n := wire.Varint(body[p:])
	if n <= 0 {
		it.fail(start, "record %d: bad offsetDelta", r.Index)
		return false
	}
	p += n
	r.OffsetDelta = od
	r.Offset = b.BaseOffset + int64(od)
	r.Timestamp = b.BaseTimestamp + ts
	var ok bool
	if r.Key, p, ok = readBytes(body, p); !ok {
		it.fail(start, "record %d: bad key length", r.Index)
		return false
	}
	if r.Value, p, ok = readBytes(body, p); !ok {
		it.fail(start, "record %d: bad value length", r.Index)
		return false
	}
	hc, n := wire.Varint(body[p:])
	if n <= 0 || hc < 0 || int(hc) > len(body)-p-n {
		it.fail(start, "record %d: bad headers count", r.Index)
		return false
	}
	p += n
	for i := 0; i < int(hc); i++ {
		var h Header
		if h.Key, p, ok = readBytes(body, p); !ok || h.Key == nil {
			it.fail(start, "record %d: bad header %d key", r.Index, i)
			return false
		}
		if h.Value, p, ok = readBytes(body, p); !ok {
			it.fail(start, "record %d: bad header %d value", r.Index, i)
			return false
		}
		hdrs = append(hdrs, h)
	}
	if p != len(body) {
		it.fail(start, "record %d: %d bytes after the last field", r.Index, len(body)-p)
		return false
	}
	b.headers = hdrs
	if hc > 0 {
		r.Headers = hdrs
	}
	return true
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
