//go:build unix

package model

import (
	"os"
	"syscall"
)

// openNoWait opens read-only without waiting for a FIFO's writer
// (O_NONBLOCK), which a regular file ignores.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
