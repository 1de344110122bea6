//go:build !unix

package kafkatest

import "os"

// lockFile is a no-op where flock is unavailable; the atomic rename of the
// finished directory still keeps concurrent fetches correct, only wasteful.
func lockFile(string) (func(), error) { return func() {}, nil }

// tryLock takes no lock where flock is unavailable.
func tryLock(string) (*os.File, bool) { return nil, true }
