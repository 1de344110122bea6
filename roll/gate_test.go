package roll

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/toolstub"
)

// TestGatesRunAsPrinted runs the gate lines with sh and a stand-in kmeta:
// each gives kmeta exactly its args; a ZooKeeper read with digest
// credentials takes them from $KMETA_ZK_AUTH (no line carries them), and
// without it the shell stops before kmeta runs, saying what to set, so
// that "go on only when it exits 0" holds.
func TestGatesRunAsPrinted(t *testing.T) {
	stub := toolstub.New(t, "kmeta")
	src := []string{"zk://zk 1:2181/kafka", "--config", "1=/etc/my b1.properties"}
	plain, digest := GatesFor(3, Source{Words: src}), GatesFor(3, Source{Words: src, ZKDigest: true})
	if plain.Env != nil || !slices.Equal(digest.Env, []string{"KMETA_ZK_AUTH"}) || !slices.Equal(digest.CheckArgs, plain.CheckArgs) {
		t.Errorf("env %q and %q, args %q and %q", plain.Env, digest.Env, plain.CheckArgs, digest.CheckArgs)
	}
	for _, g := range []Gates{plain, digest} {
		for _, l := range []struct {
			line string
			args []string
		}{{g.Check, g.CheckArgs}, {g.Wait, g.WaitArgs}} {
			out, calls, err := stub.Run(t, "", l.line, "KMETA_ZK_AUTH=admin:pw")
			if err != nil || len(calls) != 1 || !slices.Equal(calls[0].Args, l.args) {
				t.Errorf("%s: %v %q\n%s", l.line, err, calls, out)
			}
			if strings.Contains(l.line, "admin:pw") {
				t.Errorf("%s carries the password", l.line)
			}
		}
	}
	out, calls, err := stub.Run(t, "", digest.Check, "KMETA_ZK_AUTH=")
	if err == nil || len(calls) != 0 || !strings.Contains(out, "KMETA_ZK_AUTH") {
		t.Errorf("KMETA_ZK_AUTH unset: %v, calls %q\n%s", err, calls, out)
	}
}
