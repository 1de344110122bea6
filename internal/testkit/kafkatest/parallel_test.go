package kafkatest

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSlotsLongestFirst: with one slot, the tests that asked together get
// it longest first, ties in the order they asked, and one that asks while
// the slot is held waits its turn by the same rule.
func TestSlotsLongestFirst(t *testing.T) {
	q := &slotQueue{free: 1}
	var (
		mu      sync.Mutex
		order   []string
		wg      sync.WaitGroup
		first   = make(chan struct{})
		resumed = make(chan struct{})
	)
	waiting := func(n int) {
		for {
			q.mu.Lock()
			k := len(q.waiting)
			q.mu.Unlock()
			if k == n {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	run := func(name string, expect time.Duration) {
		defer wg.Done()
		q.wait(&waiter{expect: expect, ready: make(chan struct{})})
		mu.Lock()
		order = append(order, name)
		n := len(order)
		mu.Unlock()
		if n == 1 {
			close(first)
			<-resumed // hold the slot until e5 waits too
		}
		q.release()
	}
	for i, w := range []struct {
		name   string
		expect time.Duration
	}{{"a1", time.Minute}, {"b3", 3 * time.Minute}, {"c1", time.Minute}, {"d2", 2 * time.Minute}} {
		wg.Add(1)
		go run(w.name, w.expect)
		waiting(i + 1) // the order they ask in
	}
	<-first
	wg.Add(1)
	go run("e5", 5*time.Minute) // asks while b3 runs: next
	waiting(4)
	close(resumed)
	wg.Wait()
	if want := []string{"b3", "e5", "d2", "a1", "c1"}; !slices.Equal(order, want) {
		t.Errorf("slots handed out %v, want %v", order, want)
	}
}
