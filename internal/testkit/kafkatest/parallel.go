package kafkatest

import (
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Real-Kafka tests spend most of their time waiting (for a leader, an
// ISR, a session to expire, a roll), with the machine's cores idle. A
// test that starts its own cluster and shares nothing with the others of
// its package calls Concurrently first: it then runs beside the others
// that do, at most KMETA_JVM_TESTS of them at once (default 3) in a test
// binary, so that make test's wall time is what its CPU needs rather than
// the sum of every test's waits. The test must not use t.Setenv or
// t.Chdir (they refuse parallel tests), nor anything another test of the
// package changes.
//
// The longest tests start first: expect is how long the test takes on
// its own (make test prints the slowest tests' durations), and a free
// slot goes to the waiting test that expects the longest (default a
// minute; ties in the order the tests asked). Started in file order, a
// three-minute test that happens to sort last runs alone at the end
// while the other slots sit idle.
//
// go test runs parallel tests only after the package's other tests, and
// never more at once than its -parallel flag (GOMAXPROCS by default):
// make test passes -parallel large enough for every such test to be
// waiting here, so that the order is this one's.
func Concurrently(t *testing.T, expect ...time.Duration) {
	t.Helper()
	SkipIfUnitOnly(t)
	t.Parallel()
	w := &waiter{expect: time.Minute, ready: make(chan struct{})}
	if len(expect) > 0 {
		w.expect = expect[0]
	}
	q := jvmSlots()
	q.wait(w)
	t.Cleanup(q.release)
}

// gather is how long the queue waits, when the first test asks, for the
// others go test releases with it: they all arrive within milliseconds.
const gather = 200 * time.Millisecond

type waiter struct {
	expect time.Duration
	seq    int
	ready  chan struct{}
}

type slotQueue struct {
	mu       sync.Mutex
	free     int
	seq      int
	open     bool // gathered: slots are handed out
	gathered *time.Timer
	waiting  []*waiter
}

func (q *slotQueue) wait(w *waiter) {
	q.mu.Lock()
	q.seq++
	w.seq = q.seq
	q.waiting = append(q.waiting, w)
	if q.open {
		q.dispatch()
	} else if q.gathered == nil {
		q.gathered = time.AfterFunc(gather, func() {
			q.mu.Lock()
			q.open = true
			q.dispatch()
			q.mu.Unlock()
		})
	}
	q.mu.Unlock()
	<-w.ready
}

func (q *slotQueue) release() {
	q.mu.Lock()
	q.free++
	q.dispatch()
	q.mu.Unlock()
}

// dispatch hands the free slots to the waiting tests that expect the
// longest. q.mu is held.
func (q *slotQueue) dispatch() {
	for q.free > 0 && len(q.waiting) > 0 {
		best := 0
		for i, w := range q.waiting {
			b := q.waiting[best]
			if w.expect > b.expect || w.expect == b.expect && w.seq < b.seq {
				best = i
			}
		}
		w := q.waiting[best]
		q.waiting = append(q.waiting[:best], q.waiting[best+1:]...)
		q.free--
		close(w.ready)
	}
}

var (
	slotsOnce sync.Once
	slots     *slotQueue
)

func jvmSlots() *slotQueue {
	slotsOnce.Do(func() {
		n := 3
		if v, err := strconv.Atoi(os.Getenv("KMETA_JVM_TESTS")); err == nil && v > 0 {
			n = v
		}
		slots = &slotQueue{free: n}
	})
	return slots
}
