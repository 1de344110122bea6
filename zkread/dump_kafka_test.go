package zkread

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestGenerateFixture regenerates the fixture. It runs only with
// -zk-generate: go test ./zkread -run TestGenerateFixture -zk-generate
// (then go test ./zkread -run TestFixtureDump -update).
func TestGenerateFixture(t *testing.T) {
	if !*generate {
		t.Skip("regenerates committed fixtures; run with -zk-generate")
	}
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	cmd := exec.Command("bash", filepath.Join(fixtureDir, "generate.sh"))
	cmd.Env = append(os.Environ(), "KAFKA_LIB="+filepath.Join(d.Dir, "lib"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
}
