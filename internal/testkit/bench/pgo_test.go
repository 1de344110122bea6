package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestPGOProfile writes cmd/kmeta/default.pgo, the CPU profile go build
// optimises kmeta with (profile-guided optimisation: hot calls inlined,
// interface calls devirtualised): kmeta's own profiles (KMETA_CPUPROFILE)
// of the benchmark's KRaft rows — image (text and JSON) of a snapshot of
// 300,000 partitions, log dump (text and JSON lines) and log check of a
// 128 MiB synthesized log — merged by go tool pprof. `make pgo` runs it
// (KMETA_PGO=1); build kmeta first, then build again to use the profile.
func TestPGOProfile(t *testing.T) {
	if os.Getenv("KMETA_PGO") == "" {
		t.Skip("writes cmd/kmeta/default.pgo: run with `make pgo` (KMETA_PGO=1)")
	}
	bin := kmetaBin(t)
	dir := t.TempDir()
	snap := synthSnapshot(t, mkdir(t, dir, "img"), 300_000)
	logPath, _, _ := synthesize(t, mkdir(t, dir, "log"), 128<<20)
	var profiles []string
	for i, args := range [][]string{
		{"image", "-o", "json", snap}, {"image", snap},
		{"log", "dump", "--show-secrets", logPath}, {"log", "dump", "--show-secrets", "-o", "json", logPath},
		{"log", "check", logPath},
	} {
		for run := range 2 {
			p := filepath.Join(dir, fmt.Sprintf("cpu-%d-%d.pprof", i, run))
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "KMETA_CPUPROFILE="+p)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() > 1 {
				t.Fatalf("kmeta %v: %v\n%s", args, err, stderr.String())
			}
			profiles = append(profiles, p)
		}
	}
	_, file, _, _ := runtime.Caller(0)
	out := filepath.Join(filepath.Dir(file), "..", "..", "..", "cmd", "kmeta", "default.pgo")
	merged, err := exec.Command("go", append([]string{"tool", "pprof", "-proto"}, profiles...)...).Output()
	if err != nil {
		t.Fatalf("go tool pprof: %v", err)
	}
	if err := os.WriteFile(out, merged, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes) from %d profiles", out, len(merged), len(profiles))
}
