package zkfile

// treeAhead makes a big tree's next node blocks and data arenas on a
// goroutine of its own while the snapshot is read, and touches every
// page of them there. In a fresh process the first write to each page of
// new heap is a page fault; taken by the decoding goroutine, one after
// another, they were a third of its time on a million-partition
// snapshot (verify's ZooKeeper side, 0.15 of 0.45 s of CPU on the bench
// VM), while the second core waited on it. The reader and this goroutine
// hand blocks over through channels, a couple ahead: what is made and
// not used when the read ends (a block and an arena or two, a few
// megabytes) is left to the garbage collector.
type treeAhead struct {
	blocks chan []cnode
	arenas chan []byte
	stop   chan struct{}
	done   chan struct{}
}

// aheadDepth is how many blocks and arenas wait ready: enough that the
// reader never waits on a page fault, little enough to leave unused.
const aheadDepth = 2

func startTreeAhead() *treeAhead {
	a := &treeAhead{blocks: make(chan []cnode, aheadDepth), arenas: make(chan []byte, aheadDepth),
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		var b []cnode
		var ar []byte
		for {
			// clear writes every byte (the memory is zero already): the
			// page faults are taken here.
			if b == nil {
				b = make([]cnode, 1<<maxBlockBits)
				clear(b)
			}
			if ar == nil {
				ar = make([]byte, arenaBytes)
				clear(ar)
			}
			select {
			case a.blocks <- b:
				b = nil
			case a.arenas <- ar:
				ar = nil
			case <-a.stop:
				return
			}
		}
	}()
	return a
}

// block is a zeroed block of 1<<maxBlockBits nodes.
func (a *treeAhead) block() []cnode { return <-a.blocks }

// arena is a zeroed arena of arenaBytes.
func (a *treeAhead) arena() []byte { return <-a.arenas }

// close ends the goroutine and waits for it.
func (a *treeAhead) close() {
	close(a.stop)
	<-a.done
}
