package mutate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
)

// Kafka record batch v2 (magic 2), the only batch format of __cluster_metadata:
//
//	0  baseOffset int64        (not covered by the CRC)
//	8  batchLength int32       bytes after this field (not covered)
//	12 partitionLeaderEpoch int32 (not covered)
//	16 magic int8              (not covered)
//	17 crc uint32              CRC-32C of bytes 21..end
//	21 attributes int16        bits 0-2 compression, 3 timestamp type, 4 transactional, 5 control
//	23 lastOffsetDelta int32
//	27 baseTimestamp int64, 35 maxTimestamp int64
//	43 producerId int64, 51 producerEpoch int16, 53 baseSequence int32
//	57 recordsCount int32
//	61 records: varint length, int8 attributes, varlong timestampDelta,
//	   varint offsetDelta, varint keyLength + key, varint valueLength + value,
//	   varint headerCount, headers (varint klen, key, varint vlen, value)
const (
	kHeader   = 61
	kCRCStart = 21
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type krec struct {
	start, bodyStart, end int // start: the length varint; body: after it
	offsetDelta           int64
	keyLen                int64
	key                   []byte
	valStart, valEnd      int
}

type kbatch struct {
	start, end int
	base       int64
	epoch      int32
	magic      byte
	attrs      int16
	lastDelta  int32
	count      int32
	recs       []krec
}

func (k kbatch) control() bool { return k.attrs&0x20 != 0 }

// varint reads a zigzag varint (at most 10 bytes).
func varint(b []byte, p int) (int64, int, error) {
	var u uint64
	for i := 0; i < 10; i++ {
		if p+i >= len(b) {
			return 0, 0, errors.New("varint past end")
		}
		c := b[p+i]
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	return 0, 0, errors.New("varint too long")
}

func putVarint(v int64) []byte {
	return binary.AppendUvarint(nil, uint64((v<<1)^(v>>63)))
}

// parseKafka splits b into batches. It stops at the first batch that does not
// frame (returning what it has and the error); records are parsed only for
// uncompressed batches and a record that does not parse is an error.
func parseKafka(b []byte) ([]kbatch, error) {
	var out []kbatch
	p := 0
	for p < len(b) {
		if len(b)-p < 12 {
			return out, fmt.Errorf("%d bytes of a batch header at %d", len(b)-p, p)
		}
		n := int32(binary.BigEndian.Uint32(b[p+8:]))
		if n < kHeader-12 || int64(p)+12+int64(n) > int64(len(b)) {
			return out, fmt.Errorf("batch at %d: length %d does not fit", p, n)
		}
		k := kbatch{start: p, end: p + 12 + int(n)}
		k.base = int64(binary.BigEndian.Uint64(b[p:]))
		k.epoch = int32(binary.BigEndian.Uint32(b[p+12:]))
		k.magic = b[p+16]
		k.attrs = int16(binary.BigEndian.Uint16(b[p+21:]))
		k.lastDelta = int32(binary.BigEndian.Uint32(b[p+23:]))
		k.count = int32(binary.BigEndian.Uint32(b[p+57:]))
		if k.magic != 2 {
			return out, fmt.Errorf("batch at %d: magic %d", p, k.magic)
		}
		if crc32.Checksum(b[p+kCRCStart:k.end], castagnoli) != binary.BigEndian.Uint32(b[p+17:]) {
			return out, fmt.Errorf("batch at %d: crc mismatch", p)
		}
		if k.attrs&7 == 0 {
			q := p + kHeader
			for q < k.end {
				r, err := parseRecord(b[:k.end], q)
				if err != nil {
					return out, fmt.Errorf("batch at %d: record at %d: %v", p, q, err)
				}
				k.recs = append(k.recs, r)
				q = r.end
			}
		}
		out = append(out, k)
		p = k.end
	}
	return out, nil
}

func parseRecord(b []byte, p int) (krec, error) {
	r := krec{start: p}
	l, n, err := varint(b, p)
	if err != nil {
		return r, err
	}
	r.bodyStart = p + n
	if l < 1 || int64(r.bodyStart)+l > int64(len(b)) {
		return r, fmt.Errorf("length %d does not fit", l)
	}
	r.end = r.bodyStart + int(l)
	q := r.bodyStart + 1 // attributes
	rb := b[:r.end]
	if _, n, err = varint(rb, q); err != nil { // timestampDelta
		return r, err
	}
	q += n
	if r.offsetDelta, n, err = varint(rb, q); err != nil {
		return r, err
	}
	q += n
	if r.keyLen, n, err = varint(rb, q); err != nil {
		return r, err
	}
	q += n
	if r.keyLen > int64(r.end-q) || r.keyLen < -1 {
		return r, fmt.Errorf("key length %d", r.keyLen)
	}
	if r.keyLen > 0 {
		r.key = rb[q : q+int(r.keyLen)]
		q += int(r.keyLen)
	}
	vl, n, err := varint(rb, q)
	if err != nil {
		return r, err
	}
	q += n
	if vl > int64(r.end-q) || vl < -1 {
		return r, fmt.Errorf("value length %d", vl)
	}
	r.valStart = q
	if vl > 0 {
		q += int(vl)
	}
	r.valEnd = q
	hc, n, err := varint(rb, q)
	if err != nil {
		return r, err
	}
	q += n
	if hc < 0 || hc > int64(r.end-q) {
		return r, fmt.Errorf("header count %d", hc)
	}
	for i := int64(0); i < hc; i++ {
		for j := 0; j < 2; j++ {
			hl, n, err := varint(rb, q)
			if err != nil {
				return r, err
			}
			q += n
			if hl < -1 || hl > int64(r.end-q) || (j == 0 && hl < 0) {
				return r, fmt.Errorf("header length %d", hl)
			}
			if hl > 0 {
				q += int(hl)
			}
		}
	}
	if q != r.end {
		return r, fmt.Errorf("record body ends at %d, length says %d", q, r.end)
	}
	return r, nil
}

// controlType is the type of a control record's key (version int16, type
// int16), -1 when the key is not one.
func controlType(r krec) int {
	if len(r.key) != 4 || binary.BigEndian.Uint16(r.key) != 0 {
		return -1
	}
	return int(binary.BigEndian.Uint16(r.key[2:]))
}

func reseal(b []byte, k kbatch) {
	binary.BigEndian.PutUint32(b[k.start+17:], crc32.Checksum(b[k.start+kCRCStart:k.end], castagnoli))
}

// validKafka is the validator: is mut a log segment / snapshot that Kafka's
// own reading would take as sound, with offsets that continue where the
// original's did?
func validKafka(kind Kind, orig, mut []byte, ctx Context) error {
	ob, err := parseKafka(orig)
	if err != nil || len(ob) == 0 {
		return fmt.Errorf("original does not parse: %v", err)
	}
	mb, err := parseKafka(mut)
	if err != nil {
		return err
	}
	if len(mb) == 0 {
		if kind == Segment && ctx.LastFile {
			return nil
		}
		return errors.New("no batches")
	}
	next := ob[0].base
	epoch := ob[0].epoch
	for i, k := range mb {
		if k.base != next {
			return fmt.Errorf("batch %d at %d: base offset %d, expected %d", i, k.start, k.base, next)
		}
		if k.epoch < epoch {
			return fmt.Errorf("batch %d at %d: epoch %d after %d", i, k.start, k.epoch, epoch)
		}
		epoch = k.epoch
		// Control (0x20) and timestamp type (0x08, LogAppendTime) are sound;
		// compression would need compressed records, and the transactional bit
		// turns a control batch into a transaction marker, which a metadata
		// log never holds.
		if k.attrs&^0x28 != 0 {
			return fmt.Errorf("batch %d at %d: attributes 0x%x", i, k.start, k.attrs)
		}
		if int(k.count) != len(k.recs) || k.lastDelta != k.count-1 || k.count < 1 {
			return fmt.Errorf("batch %d at %d: count %d, lastOffsetDelta %d, %d records", i, k.start, k.count, k.lastDelta, len(k.recs))
		}
		for j, r := range k.recs {
			if r.offsetDelta != int64(j) {
				return fmt.Errorf("batch %d record %d: offsetDelta %d", i, j, r.offsetDelta)
			}
			ct := controlType(r)
			if k.control() != (ct >= 0) || (!k.control() && r.keyLen != -1) || ct > 6 {
				return fmt.Errorf("batch %d record %d: key does not match the control bit", i, j)
			}
			if kind != Segment {
				first, last := i == 0 && j == 0, i == len(mb)-1 && j == len(k.recs)-1
				if (ct == 3) != first || (ct == 4) != last {
					return fmt.Errorf("batch %d record %d: snapshot header/footer misplaced", i, j)
				}
			}
		}
		next = k.base + int64(k.count)
	}
	ol := ob[len(ob)-1]
	if !ctx.LastFile && next != ol.base+int64(ol.count) {
		return fmt.Errorf("ends before offset %d, the original at %d", next, ol.base+int64(ol.count))
	}
	if ctx.LastFile && epoch > ol.epoch {
		return fmt.Errorf("epoch %d beyond the original's %d", epoch, ol.epoch)
	}
	return nil
}

func kafkaOps(kind Kind) []op {
	ops := byteOps()
	// batchOp wraps an operator that needs the parsed batches of the input.
	batchOp := func(name string, resealed bool, f func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool)) op {
		return op{name: name, resealed: resealed, apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
			bs, err := parseKafka(b)
			if err != nil || len(bs) == 0 {
				return nil, "", false
			}
			return f(r, b, bs)
		}}
	}
	recOp := func(name string, f func(r *rand.Rand, b []byte, k kbatch, rec krec, ri int) ([]byte, string, bool)) op {
		return batchOp(name, true, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			if len(k.recs) == 0 {
				return nil, "", false
			}
			ri := r.IntN(len(k.recs))
			return f(r, b, k, k.recs[ri], ri)
		})
	}
	// setVarint replaces the varint at [p, p+n) with v, fixes the batch
	// length, and reseals: batch framing stays sound, only the edit remains.
	setVarint := func(b []byte, k kbatch, p, n int, v int64) []byte {
		nv := putVarint(v)
		out := splice(b, p, p+n, nv)
		k.end += len(nv) - n
		binary.BigEndian.PutUint32(out[k.start+8:], uint32(k.end-k.start-12))
		reseal(out, k)
		return out
	}
	rearrange := func(b []byte, bs []kbatch, order []int, renumber bool) []byte {
		out := append([]byte(nil), b[:bs[0].start]...)
		next := bs[0].base
		for _, i := range order {
			k := bs[i]
			s := len(out)
			out = append(out, b[k.start:k.end]...)
			if renumber {
				binary.BigEndian.PutUint64(out[s:], uint64(next))
				next += int64(k.lastDelta) + 1
			}
		}
		return append(out, b[bs[len(bs)-1].end:]...)
	}
	ops = append(ops,
		batchOp("truncate-at-batch", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			i := r.IntN(len(bs))
			return b[:bs[i].start], fmt.Sprintf("truncate at the start of batch %d (position %d, offset %d)", i, bs[i].start, bs[i].base), true
		}),
		batchOp("batch-length", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			old := int32(binary.BigEndian.Uint32(b[k.start+8:]))
			v := pick(r, old+1, old-1, old+8, old-8, 0, -1, 1<<31-1, old*2, int32(r.IntN(1<<16)))
			binary.BigEndian.PutUint32(b[k.start+8:], uint32(v))
			return b, fmt.Sprintf("batch at %d (offset %d): batchLength %d -> %d", k.start, k.base, old, v), true
		}),
		batchOp("base-offset", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			i := r.IntN(len(bs))
			k := bs[i]
			v := pick(r, k.base+1, k.base-1, k.base+1000, 0, -1, k.base^(1<<uint(r.IntN(62))))
			if i > 0 && r.IntN(3) == 0 {
				v = bs[i-1].base
			}
			binary.BigEndian.PutUint64(b[k.start:], uint64(v))
			return b, fmt.Sprintf("batch at %d: baseOffset %d -> %d (not CRC-covered)", k.start, k.base, v), true
		}),
		batchOp("leader-epoch", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			v := pick(r, k.epoch+1, k.epoch-1, -1, k.epoch+100, 1<<31-1)
			binary.BigEndian.PutUint32(b[k.start+12:], uint32(v))
			return b, fmt.Sprintf("batch at %d (offset %d): partitionLeaderEpoch %d -> %d (not CRC-covered)", k.start, k.base, k.epoch, v), true
		}),
		batchOp("crc-field", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			bit := r.IntN(32)
			b[k.start+17+bit/8] ^= 1 << (bit % 8)
			return b, fmt.Sprintf("batch at %d (offset %d): flip crc bit %d", k.start, k.base, bit), true
		}),
		batchOp("magic", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			v := pick[byte](r, 0, 1, 3, 0xff)
			b[k.start+16] = v
			return b, fmt.Sprintf("batch at %d (offset %d): magic 2 -> %d", k.start, k.base, v), true
		}),
		batchOp("record-count", true, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			v := pick(r, k.count+1, k.count-1, 0, -1, k.count*2, 1<<31-1)
			binary.BigEndian.PutUint32(b[k.start+57:], uint32(v))
			reseal(b, k)
			return b, fmt.Sprintf("batch at %d (offset %d): recordsCount %d -> %d, CRC resealed", k.start, k.base, k.count, v), true
		}),
		batchOp("last-offset-delta", true, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			v := pick(r, k.lastDelta+1, k.lastDelta-1, -1, k.lastDelta+1000)
			binary.BigEndian.PutUint32(b[k.start+23:], uint32(v))
			reseal(b, k)
			return b, fmt.Sprintf("batch at %d (offset %d): lastOffsetDelta %d -> %d, CRC resealed", k.start, k.base, k.lastDelta, v), true
		}),
		batchOp("attributes", true, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			v := k.attrs ^ pick[int16](r, 1, 2, 3, 4, 7, 0x10, 0x20, 0x08, 0x40)
			binary.BigEndian.PutUint16(b[k.start+21:], uint16(v))
			reseal(b, k)
			return b, fmt.Sprintf("batch at %d (offset %d): attributes 0x%x -> 0x%x, CRC resealed", k.start, k.base, k.attrs, v), true
		}),
		batchOp("timestamp", true, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			at := pick(r, 27, 35)
			old := int64(binary.BigEndian.Uint64(b[k.start+at:]))
			v := pick(r, old+1, old-86400000, 0, -1, old+1<<40)
			binary.BigEndian.PutUint64(b[k.start+at:], uint64(v))
			reseal(b, k)
			return b, fmt.Sprintf("batch at %d (offset %d): timestamp field at +%d %d -> %d, CRC resealed", k.start, k.base, at, old, v), true
		}),
		batchOp("producer", true, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			k := bs[r.IntN(len(bs))]
			at := pick(r, 43, 51, 53)
			b[k.start+at+1] ^= byte(1 + r.IntN(255))
			reseal(b, k)
			return b, fmt.Sprintf("batch at %d (offset %d): producer field at +%d changed, CRC resealed", k.start, k.base, at), true
		}),
		recOp("record-length", func(r *rand.Rand, b []byte, k kbatch, rec krec, ri int) ([]byte, string, bool) {
			l := int64(rec.end - rec.bodyStart)
			v := pick(r, l+1, l-1, 0, -1, l+100, 1<<31-1)
			return setVarint(b, k, rec.start, rec.bodyStart-rec.start, v), fmt.Sprintf("batch at %d (offset %d) record %d: length %d -> %d, batch length and CRC resealed", k.start, k.base, ri, l, v), true
		}),
		recOp("offset-delta", func(r *rand.Rand, b []byte, k kbatch, rec krec, ri int) ([]byte, string, bool) {
			// offsetDelta follows attributes and the timestampDelta varint.
			_, tn, _ := varint(b, rec.bodyStart+1)
			p := rec.bodyStart + 1 + tn
			_, n, _ := varint(b, p)
			v := pick(r, rec.offsetDelta+1, rec.offsetDelta-1, 0, int64(len(k.recs)))
			if v == rec.offsetDelta {
				return nil, "", false
			}
			// Keep the record's own length in step with the varint's width.
			nv := putVarint(v)
			out := setVarint(b, k, p, n, v)
			if len(nv) != n {
				return nil, "", false
			}
			return out, fmt.Sprintf("batch at %d (offset %d) record %d: offsetDelta %d -> %d, CRC resealed", k.start, k.base, ri, rec.offsetDelta, v), true
		}),
		recOp("value-flip", func(r *rand.Rand, b []byte, k kbatch, rec krec, ri int) ([]byte, string, bool) {
			if rec.valEnd <= rec.valStart {
				return nil, "", false
			}
			p, bit := rec.valStart+r.IntN(rec.valEnd-rec.valStart), r.IntN(8)
			b[p] ^= 1 << bit
			reseal(b, k)
			return b, fmt.Sprintf("batch at %d (offset %d) record %d: flip bit %d of value byte %d (position %d), CRC resealed", k.start, k.base, ri, bit, p-rec.valStart, p), true
		}),
		batchOp("swap-batches", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			if len(bs) < 2 {
				return nil, "", false
			}
			i := r.IntN(len(bs) - 1)
			j := i + 1 + r.IntN(len(bs)-i-1)
			renum := r.IntN(2) == 0
			order := make([]int, len(bs))
			for x := range order {
				order[x] = x
			}
			order[i], order[j] = j, i
			return rearrange(b, bs, order, renum), fmt.Sprintf("swap batches %d and %d (offsets %d, %d; renumbered=%v)", i, j, bs[i].base, bs[j].base, renum), true
		}),
		batchOp("move-batch", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			if len(bs) < 3 {
				return nil, "", false
			}
			i, j := r.IntN(len(bs)), r.IntN(len(bs))
			if i == j {
				return nil, "", false
			}
			var order []int
			for x := range bs {
				if x != i {
					order = append(order, x)
				}
			}
			at := j
			if at > len(order) {
				at = len(order)
			}
			order = append(order[:at], append([]int{i}, order[at:]...)...)
			renum := r.IntN(2) == 0
			return rearrange(b, bs, order, renum), fmt.Sprintf("move batch %d (offset %d) to place %d (renumbered=%v)", i, bs[i].base, at, renum), true
		}),
		batchOp("duplicate-batch", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			i := r.IntN(len(bs))
			var order []int
			for x := range bs {
				order = append(order, x)
				if x == i {
					order = append(order, x)
				}
			}
			return rearrange(b, bs, order, false), fmt.Sprintf("duplicate batch %d (offset %d)", i, bs[i].base), true
		}),
		batchOp("delete-batch", false, func(r *rand.Rand, b []byte, bs []kbatch) ([]byte, string, bool) {
			if len(bs) < 2 {
				return nil, "", false
			}
			i := r.IntN(len(bs))
			if kind != Segment && r.IntN(2) == 0 {
				i = pick(r, 0, len(bs)-1) // the snapshot header or footer batch
			}
			var order []int
			for x := range bs {
				if x != i {
					order = append(order, x)
				}
			}
			return rearrange(b, bs, order, false), fmt.Sprintf("delete batch %d (position %d, offset %d)", i, bs[i].start, bs[i].base), true
		}),
	)
	return ops
}
