//go:build !linux

package kafkatest

import "os/exec"

// setParentDeathSignal has no portable equivalent; t.Cleanup still stops
// every server on a normal exit.
func setParentDeathSignal(*exec.Cmd) {}
