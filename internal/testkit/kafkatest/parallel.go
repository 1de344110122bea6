package kafkatest

import (
	"os"
	"strconv"
	"sync"
	"testing"
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
// go test runs parallel tests only after the package's other tests, and
// never more at once than its -parallel flag (GOMAXPROCS by default):
// make test passes -parallel large enough for the slots here to fill.
func Concurrently(t *testing.T) {
	t.Helper()
	SkipIfUnitOnly(t)
	t.Parallel()
	slots := jvmSlots()
	slots <- struct{}{}
	t.Cleanup(func() { <-slots })
}

var (
	slotsOnce sync.Once
	slotsCh   chan struct{}
)

func jvmSlots() chan struct{} {
	slotsOnce.Do(func() {
		n := 3
		if v, err := strconv.Atoi(os.Getenv("KMETA_JVM_TESTS")); err == nil && v > 0 {
			n = v
		}
		slotsCh = make(chan struct{}, n)
	})
	return slotsCh
}
