//go:build unix

package metalog

import (
	"errors"
	"syscall"
)

// isLoop says whether err is the kernel's "too many levels of symbolic
// links".
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
