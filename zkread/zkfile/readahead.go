package zkfile

import (
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
// s1s, both modulo 65521; the sums are reduced every 5552 bytes, the
// most that cannot overflow 32 bits).
func adlerUpdate(a uint32, p []byte) uint32 {
	const mod, nmax = 65521, 5552
	s1, s2 := a&0xffff, a>>16
	for len(p) > 0 {
		q := p[:min(len(p), nmax)]
		p = p[len(q):]
		for len(q) >= 8 {
			s1 += uint32(q[0])
			s2 += s1
			s1 += uint32(q[1])
			s2 += s1
			s1 += uint32(q[2])
			s2 += s1
			s1 += uint32(q[3])
			s2 += s1
			s1 += uint32(q[4])
			s2 += s1
			s1 += uint32(q[5])
			s2 += s1
			s1 += uint32(q[6])
			s2 += s1
			s1 += uint32(q[7])
			s2 += s1
			q = q[8:]
		}
		for _, c := range q {
			s1 += uint32(c)
			s2 += s1
		}
		s1 %= mod
		s2 %= mod
	}
	return s2<<16 | s1
}
