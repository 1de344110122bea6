package metalog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// A batch whose length runs past the end of its file is a torn tail only
// when the file really ends inside that batch: an append cut short. The
// length field is outside the CRC, so one flipped byte there makes the
// same shape out of a whole batch with intact batches behind it, and
// Kafka's recovery would truncate them all. lengthDamage tells the two
// apart from what follows the header:
//
//   - the stored CRC matches the bytes left: the batch is whole and only
//     its length is wrong;
//   - a whole batch (its own CRC valid) at the offset after this batch's
//     last starts somewhere in the bytes left: the file goes on past this
//     batch, so the length is wrong.
//
// Either is damage (ErrBadLength, at the batch's position); anything else
// is a torn tail. Both tests read the bytes left once or twice, which a
// torn tail keeps below one batch; only a damaged length pays for more.

// lengthScanChunk is how much of the rest of a file lengthDamage reads at
// a time.
const lengthScanChunk = 1 << 20

// lengthDamage says why b, whose length runs past the n bytes left, is a
// damaged length rather than a torn tail ("" for a torn tail). rest reads
// the bytes left from the batch's first byte (offset 0). maxBatch bounds
// the batches it looks for behind b.
func lengthDamage(b *Batch, rest io.ReaderAt, n int64, maxBatch int) string {
	if n <= HeaderSize {
		return ""
	}
	buf := make([]byte, min(n, lengthScanChunk))
	// The CRC over everything left.
	crc := uint32(0)
	for off := int64(crcStart); off < n; {
		k, err := rest.ReadAt(buf[:min(int64(len(buf)), n-off)], off)
		if k == 0 {
			if err != nil {
				return ""
			}
			break
		}
		crc = crc32.Update(crc, castagnoli, buf[:k])
		off += int64(k)
	}
	if crc == b.CRC {
		return fmt.Sprintf("batchLength %d runs past the end of the file, yet the batch's CRC matches the %d bytes left: the batch is whole and its length field is damaged", b.BatchLength, n)
	}
	if b.LastOffsetDelta < 0 {
		return ""
	}
	next := b.BaseOffset + int64(b.LastOffsetDelta) + 1
	var want [8]byte
	binary.BigEndian.PutUint64(want[:], uint64(next))
	// Chunks overlap by 7 bytes so that no offset field is split.
	for start := int64(HeaderSize); start < n; start += int64(len(buf)) - 7 {
		k, _ := rest.ReadAt(buf[:min(int64(len(buf)), n-start)], start)
		if k < 8 {
			break
		}
		chunk := buf[:k]
		for i := 0; ; {
			j := bytes.Index(chunk[i:], want[:])
			if j < 0 {
				break
			}
			at := start + int64(i+j)
			if wholeBatchAt(rest, at, n, maxBatch) {
				return fmt.Sprintf("batchLength %d runs past the end of the file (%d bytes left), yet a whole batch at offset %d starts at position %d: the length field is damaged, not a torn tail",
					b.BatchLength, n, next, b.Position+at)
			}
			i += j + 1
		}
		if start+int64(k) >= n {
			break
		}
	}
	return ""
}

// wholeBatchAt says whether a batch with a valid CRC that fits in the n
// bytes of rest starts at position at.
func wholeBatchAt(rest io.ReaderAt, at, n int64, maxBatch int) bool {
	if n-at < HeaderSize {
		return false
	}
	hdr := make([]byte, HeaderSize)
	if k, _ := rest.ReadAt(hdr, at); k < HeaderSize {
		return false
	}
	var nb Batch
	if nb.parse(hdr, "", at, maxBatch) != nil || nb.Size() > n-at {
		return false
	}
	raw := make([]byte, nb.Size())
	if k, _ := rest.ReadAt(raw, at); int64(k) < nb.Size() {
		return false
	}
	return CRC32C(raw[crcStart:]) == nb.CRC
}

// offsetReaderAt reads an io.ReaderAt from base on.
type offsetReaderAt struct {
	r    io.ReaderAt
	base int64
}

func (o offsetReaderAt) ReadAt(p []byte, off int64) (int, error) { return o.r.ReadAt(p, o.base+off) }
