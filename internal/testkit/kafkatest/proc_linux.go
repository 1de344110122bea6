package kafkatest

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the JVM if the test binary
// dies without running its cleanups (a panic or a `go test` timeout), so no
// Kafka is left running.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
