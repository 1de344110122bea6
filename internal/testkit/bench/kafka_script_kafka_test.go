package bench

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// kafkaScriptCommand is mainClass of d run with the scripts' JVM options
// and the harness's tool log configuration (warnings to stderr, as the
// scripts' tools-log4j does).
func kafkaScriptCommand(t *testing.T, d *kafkatest.Distribution, mainClass string, args ...string) *exec.Cmd {
	t.Helper()
	h := d.Command(t.Context(), mainClass, args...)
	a := []string{d.Java}
	a = append(a, kafkaScriptJVMOpts...)
	for _, x := range h.Args[1:] {
		if strings.HasPrefix(x, "-Dlog4j") {
			a = append(a, x)
		}
	}
	a = append(a, "-cp", d.Classpath, mainClass)
	a = append(a, args...)
	cmd := exec.CommandContext(t.Context(), d.Java, a[1:]...)
	return cmd
}
