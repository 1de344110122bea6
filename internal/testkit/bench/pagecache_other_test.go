//go:build !linux

package bench

import "testing"

// freshPageCache reads path once (elsewhere than Linux its pages are not
// dropped first).
func freshPageCache(t *testing.T, path string) {
	t.Helper()
	readCRC(t, path)
}
