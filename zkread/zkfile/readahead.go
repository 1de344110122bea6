package zkfile

import (
	"encoding/binary"
	"io"
	"sync"
)

// readAhead reads a snapshot on a goroutine of its own, a block ahead of
// the decoder, and keeps the Adler32 of the bytes before each block: the
// file's reading and decompression and most of its checksum are then off
// the decoding goroutine (on a million-partition snapshot they were a
// third of it). A block holds what one read filled; the error that ended
// the reading follows the last block's bytes.
type readAhead struct {
	filled chan *block
	free   chan *block
	done   chan struct{}
	wg     sync.WaitGroup
	cur    *block
	pos    int // bytes of cur consumed
}

type block struct {
	b   []byte
	n   int    // bytes filled
	sum uint32 // Adler32 of every byte before b[0]
	err error  // after b[:n] (io.EOF at the end)
}

// readAheadBlock is the size of a block, and readAheadBlocks how many
// there are: the decoder reads one while the reader fills the others.
const (
	readAheadBlock  = 1 << 20
	readAheadBlocks = 4
)

func newReadAhead(r io.Reader) *readAhead {
	ra := &readAhead{filled: make(chan *block, readAheadBlocks), free: make(chan *block, readAheadBlocks), done: make(chan struct{})}
	ra.wg.Go(func() {
		sum := uint32(1)
		made := 0
		for {
			// Blocks are made as needed, from 64 KiB up: a small file (a
			// fuzz input) reads into one small block.
			var b *block
			select {
			case b = <-ra.free:
			case <-ra.done:
				return
			default:
				if made < readAheadBlocks {
					b = &block{b: make([]byte, min(readAheadBlock, 64<<10<<made))}
					made++
					break
				}
				select {
				case b = <-ra.free:
				case <-ra.done:
					return
				}
			}
			n, err := io.ReadFull(r, b.b)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			b.n, b.sum, b.err = n, sum, err
			sum = adlerUpdate(sum, b.b[:n])
			select {
			case ra.filled <- b:
			case <-ra.done:
				return
			}
			if err != nil {
				return
			}
		}
	})
	return ra
}

// stop ends the reading goroutine and waits for it: no read of the
// underlying reader (or Progress call) happens after it returns.
func (ra *readAhead) stop() {
	select {
	case <-ra.done:
	default:
		close(ra.done)
	}
	ra.wg.Wait()
}

// next makes the following block current; false when the current one
// ended the reading.
func (ra *readAhead) next() bool {
	if ra.cur != nil {
		if ra.cur.err != nil {
			return false
		}
		ra.free <- ra.cur
	}
	ra.cur, ra.pos = <-ra.filled, 0
	return true
}

// Read fills p as io.ReadFull does: all of it, or fewer bytes and the
// error that ended the reading.
func (ra *readAhead) read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if ra.cur == nil || ra.pos == ra.cur.n {
			if !ra.next() {
				return n, ra.cur.err
			}
			continue
		}
		k := copy(p[n:], ra.cur.b[ra.pos:ra.cur.n])
		ra.pos += k
		n += k
	}
	return n, nil
}

// peek returns up to n bytes not yet read, without reading them; fewer
// with the error that ended the reading.
func (ra *readAhead) peek(n int) ([]byte, error) {
	for ra.cur == nil || (ra.cur.n-ra.pos < n && ra.cur.err == nil) {
		if ra.cur == nil || ra.pos == ra.cur.n {
			if !ra.next() {
				break
			}
			continue
		}
		// Join what is left of this block and the next into one.
		rest := &block{b: append([]byte(nil), ra.cur.b[ra.pos:ra.cur.n]...), sum: ra.sum()}
		if !ra.next() {
			break
		}
		nx := ra.cur
		rest.b = append(rest.b, nx.b[:nx.n]...)
		rest.n, rest.err = len(rest.b), nx.err
		ra.cur, ra.pos = rest, 0
		// nx's array goes back for reuse; rest was made for this.
		ra.free <- nx
	}
	if ra.cur == nil {
		return nil, io.EOF
	}
	avail := ra.cur.b[ra.pos:ra.cur.n]
	if len(avail) < n {
		return avail, ra.cur.err
	}
	return avail[:n], nil
}

// sum is the Adler32 of every byte read so far.
func (ra *readAhead) sum() uint32 {
	if ra.cur == nil {
		return 1
	}
	return adlerUpdate(ra.cur.sum, ra.cur.b[:ra.pos])
}

// adlerUpdate continues the Adler32 checksum a over p (RFC 1950: a
// starts at 1; s1 is the sum of the bytes plus one, s2 the sum of the
// s1s, both modulo 65521).
//
// Byte by byte that is two additions a byte, 3.5 GB/s on the bench
// machine (BenchmarkAdlerUpdate): 0.1–0.14 s of CPU over a
// million-partition snapshot's 334 MB. adlerUpdate adds eight bytes at a
// time instead, in lanes, at 7.3–7.6 GB/s. Over a block of n bytes
// b[0..n-1],
//
//	s1' = s1 + Σ b[i]
//	s2' = s2 + n·s1 + Σ (n-i)·b[i]
//
// and with the block as K words of 8 bytes (i = 8k+j), n-i = 8(K-k)-j:
//
//	Σ (n-i)·b[i] = 8·Σ_k (K-k)·T[k] − Σ_j j·L[j]
//
// where T[k] is the sum of word k's bytes and L[j] the sum of the bytes at
// position j of every word. Both come from running sums kept in lanes: P,
// the bytes' sums so far, lane j holding L[j], and Q, the sum of the Ps
// after each word (each word's bytes counted once for every word from
// theirs to the block's end, K-k times), whose lanes add up to
// Σ_k (K-k)·T[k]. The inner loop keeps P and Q in 16-bit lanes, four to a
// uint64 (even bytes in one, odd in the other), over runs of adlerRun
// words, short enough that Q's lanes (at most 255·r(r+1)/2) do not
// overflow; each run's sums are then widened into 32-bit lanes, the
// run's Q plus r times the P before it.
func adlerUpdate(a uint32, p []byte) uint32 {
	const (
		mod = 65521
		// adlerBlock is a block's words: Q's 32-bit lanes stay under
		// 255·K(K+1)/2 < 2^32; s1 and s2 are reduced once a block.
		adlerBlock = 512
		m32        = 0x0000ffff0000ffff
	)
	s1, s2 := uint64(a&0xffff), uint64(a>>16)
	for len(p) >= 8*adlerRun {
		k := min(len(p)/8, adlerBlock) / adlerRun * adlerRun
		blk := p[:8*k]
		p = p[8*k:]
		// Wide lanes, two of 32 bits to a uint64: pw0 holds bytes 0 and 4
		// of the words, pw1 bytes 2 and 6, pw2 bytes 1 and 5, pw3 bytes
		// 3 and 7; qw the same for Q.
		var pw0, pw1, pw2, pw3, qw0, qw1, qw2, qw3 uint64
		for len(blk) > 0 {
			pe, po, qe, qo := adlerLanes((*[8 * adlerRun]byte)(blk))
			blk = blk[8*adlerRun:]
			// Widen: the run's Q, plus r times the P before it; then P.
			qw0 += qe&m32 + adlerRun*pw0
			qw1 += qe>>16&m32 + adlerRun*pw1
			qw2 += qo&m32 + adlerRun*pw2
			qw3 += qo>>16&m32 + adlerRun*pw3
			pw0 += pe & m32
			pw1 += pe >> 16 & m32
			pw2 += po & m32
			pw3 += po >> 16 & m32
		}
		lo := func(x uint64) uint64 { return x & 0xffffffff }
		hi := func(x uint64) uint64 { return x >> 32 }
		// L[j], j = 0..7.
		l0, l4, l2, l6 := lo(pw0), hi(pw0), lo(pw1), hi(pw1)
		l1, l5, l3, l7 := lo(pw2), hi(pw2), lo(pw3), hi(pw3)
		sum := l0 + l1 + l2 + l3 + l4 + l5 + l6 + l7
		q := lo(qw0) + hi(qw0) + lo(qw1) + hi(qw1) + lo(qw2) + hi(qw2) + lo(qw3) + hi(qw3)
		weighted := 8*q - (l1 + 2*l2 + 3*l3 + 4*l4 + 5*l5 + 6*l6 + 7*l7)
		s2 = (s2 + uint64(8*k)*s1 + weighted) % mod
		s1 = (s1 + sum) % mod
	}
	// The tail, under a run, byte by byte (s1 and s2 stay far from
	// overflowing 64 bits).
	for _, c := range p {
		s1 += uint64(c)
		s2 += s1
	}
	return uint32(s2%mod)<<16 | uint32(s1%mod)
}

// adlerRun is how many words adlerLanes adds: Q's 16-bit lanes hold at
// most 255·r(r+1)/2, under 2^16 for r up to 22.
const adlerRun = 16

// adlerLanes adds a run of words into 16-bit lanes, bytes 0, 2, 4 and 6
// of each word in pe (P) and qe (Q), bytes 1, 3, 5 and 7 in po and qo (see
// adlerUpdate). It is a function of its own so that its eight values stay
// in registers: inlined into adlerUpdate's loop, with that loop's wide
// lanes alive around it, they went through the stack at every word.
//
//go:noinline
func adlerLanes(run *[8 * adlerRun]byte) (pe, po, qe, qo uint64) {
	const m16 = 0x00ff00ff00ff00ff
	for i := 0; i < len(run); i += 16 {
		w0 := binary.LittleEndian.Uint64(run[i:])
		w1 := binary.LittleEndian.Uint64(run[i+8:])
		pe += w0 & m16
		po += w0 >> 8 & m16
		qe += pe
		qo += po
		pe += w1 & m16
		po += w1 >> 8 & m16
		qe += pe
		qo += po
	}
	return pe, po, qe, qo
}
