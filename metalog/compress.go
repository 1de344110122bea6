package metalog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Default limits. A corrupt length must never make the reader allocate
// more than these.
const (
	// DefaultMaxBatchBytes bounds a single batch (header included). KRaft
	// never writes batches above 8 MiB; ordinary topics default to 1 MiB
	// max.message.bytes. The slack covers operators who raised the limit.
	DefaultMaxBatchBytes = 2 * MaxKRaftBatchBytes
	// DefaultMaxDecompressedBytes bounds the decompressed records section
	// of one batch: 16x the KRaft batch maximum.
	DefaultMaxDecompressedBytes = 16 * MaxKRaftBatchBytes
)

// xerialMagic starts snappy data framed by snappy-java's
// SnappyOutputStream, which Kafka's producer uses; it is followed by two
// int32s (version, minimum compatible version) and then blocks of
// int32 length + raw snappy block.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const xerialHeaderLen = 16

var errTooLarge = errors.New("decompressed size exceeds the limit")

// decompressor holds codec state reused across batches so that reading a
// compressed file does not allocate a decoder per batch.
type decompressor struct {
	max  int
	buf  []byte
	src  bytes.Reader
	gz   *gzip.Reader
	lz   *lz4.Reader
	zs   *zstd.Decoder
	zsOK bool
}

func newDecompressor(max int) *decompressor {
	if max <= 0 {
		max = DefaultMaxDecompressedBytes
	}
	return &decompressor{max: max}
}

// decompress returns the decompressed records section. The result aliases
// d.buf and is valid until the next call.
func (d *decompressor) decompress(c Compression, src []byte) (out []byte, err error) {
	// Codec libraries are not all hardened against every input; a panic on
	// hostile bytes must come back as a compression error.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("decoder panic: %v", r)
		}
	}()
	switch c {
	case CompressionGzip:
		d.src.Reset(src)
		if d.gz == nil {
			d.gz, err = gzip.NewReader(&d.src)
		} else {
			err = d.gz.Reset(&d.src)
		}
		if err != nil {
			return nil, err
		}
		return d.readAll(d.gz)
	case CompressionSnappy:
		return d.snappy(src)
	case CompressionLZ4:
		d.src.Reset(src)
		if d.lz == nil {
			d.lz = lz4.NewReader(&d.src)
		} else {
			d.lz.Reset(&d.src)
		}
		return d.readAll(d.lz)
	case CompressionZstd:
		if d.zs == nil {
			d.zs, err = zstd.NewReader(nil,
				zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxMemory(uint64(d.max)),
				zstd.WithDecoderMaxWindow(uint64(min(d.max, 1<<27))))
			if err != nil {
				return nil, err
			}
		}
		d.src.Reset(src)
		if err := d.zs.Reset(&d.src); err != nil {
			return nil, err
		}
		return d.readAll(d.zs)
	}
	return nil, fmt.Errorf("unknown codec %d", c)
}

// readAll reads r into d.buf, failing once more than d.max bytes come out.
func (d *decompressor) readAll(r io.Reader) ([]byte, error) {
	buf := d.buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > d.max {
				d.buf = buf
				return nil, errTooLarge
			}
			// Grow by hand so the buffer never exceeds max+1 bytes.
			nc := min(2*cap(buf)+4096, d.max+1)
			nb := make([]byte, len(buf), nc)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			d.buf = buf
			if len(buf) > d.max {
				return nil, errTooLarge
			}
			return buf, nil
		}
		if err != nil {
			d.buf = buf
			return nil, err
		}
	}
}

// snappy decodes both Kafka's xerial-framed snappy and a raw snappy block
// (what librdkafka and some other clients write).
func (d *decompressor) snappy(src []byte) ([]byte, error) {
	buf := d.buf[:0]
	defer func() { d.buf = buf[:0] }()
	if len(src) < len(xerialMagic) || !bytes.Equal(src[:len(xerialMagic)], xerialMagic) {
		var err error
		buf, err = d.snappyBlock(buf, src)
		return buf, err
	}
	if len(src) < xerialHeaderLen {
		return nil, errors.New("xerial header truncated")
	}
	p := xerialHeaderLen
	for p < len(src) {
		if len(src)-p < 4 {
			return nil, errors.New("xerial block length truncated")
		}
		n := int(binary.BigEndian.Uint32(src[p:]))
		p += 4
		if n < 0 || n > len(src)-p {
			return nil, fmt.Errorf("xerial block length %d, %d bytes remain", n, len(src)-p)
		}
		var err error
		buf, err = d.snappyBlock(buf, src[p:p+n])
		if err != nil {
			return nil, err
		}
		p += n
	}
	return buf, nil
}

// snappyBlock appends the decoding of one raw snappy block to buf.
func (d *decompressor) snappyBlock(buf, block []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > d.max-len(buf) {
		return nil, errTooLarge
	}
	start := len(buf)
	if cap(buf)-start < n {
		nb := make([]byte, start, start+n+start/2)
		copy(nb, buf)
		buf = nb
	}
	out, err := snappy.Decode(buf[start:start+n], block)
	if err != nil {
		return nil, err
	}
	if len(out) != n {
		return nil, errors.New("snappy length mismatch")
	}
	return buf[:start+n], nil
}
