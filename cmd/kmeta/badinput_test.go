package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
)

type cliResult struct {
	code           int
	stdout, stderr string
}

func kmeta(args ...string) cliResult {
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"kmeta"}, args...), &out, &errb)
	return cliResult{code, out.String(), errb.String()}
}

// kmetaOf is kmeta as t runs it: the command goes to t's transcript,
// if it records one (transcript_test.go).
func kmetaOf(t testing.TB, args ...string) cliResult {
	t.Helper()
	code, out, errs := runKmeta(t, args...)
	return cliResult{code, out, errs}
}

// copyFixture copies a real-Kafka metadata dir so a test can damage it.
func copyFixture(t *testing.T, version string) string {
	t.Helper()
	return fstree.Copy(t, filepath.Join("..", "..", "testdata", "kraft", version, "metadata"))
}

func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return nil
	})
	return m
}

// Damaged real logs: each gives the documented verdict and exit code, names
// the file and byte position, never panics, and leaves the input as it was.
func TestBadInputExitCodes(t *testing.T) {
	type checkJSON struct {
		Findings []struct {
			Code, Severity string
			Where          struct {
				File             string
				Position, Offset int64
			}
		}
		LastGoodOffset int64
	}
	seg := filepath.Join("__cluster_metadata-0", "00000000000000000086.log")
	for _, tc := range []struct {
		name      string
		damage    func(t *testing.T, dir string)
		checkCode int
		kind      string
	}{
		{"healthy", func(*testing.T, string) {}, 0, ""},
		{"bit flip in a batch", func(t *testing.T, dir string) {
			p := filepath.Join(dir, seg)
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x10
			os.WriteFile(p, b, 0o644)
		}, 1, "crc-mismatch"},
		{"torn tail of the active segment", func(t *testing.T, dir string) {
			p := filepath.Join(dir, seg)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-7], 0o644)
		}, 0, "torn-tail"},
		{"garbage segment in the middle", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "__cluster_metadata-0", "00000000000000000000.log"), bytes.Repeat([]byte{0xde, 0xad}, 500), 0o644)
		}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t, "4.4.0")
			tc.damage(t, dir)
			before := snapshotTree(t, dir)
			r := kmeta("log", "check", "-o", "json", dir)
			if r.code != tc.checkCode {
				t.Fatalf("log check exit %d, want %d\n%s%s", r.code, tc.checkCode, r.stdout, r.stderr)
			}
			var rep checkJSON
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("log check JSON: %v\n%s", err, r.stdout)
			}
			if tc.kind != "" {
				found := false
				for _, f := range rep.Findings {
					if f.Code == tc.kind && f.Where.File != "" && f.Where.Position >= 0 {
						found = true
					}
				}
				if !found {
					t.Errorf("no %s finding with file and position: %+v", tc.kind, rep.Findings)
				}
			}
			// The other commands survive the same input.
			for _, args := range [][]string{{"log", "dump", dir}, {"log", "stats", dir}, {"image", dir}, {"image", "-o", "json", dir}} {
				r := kmeta(args...)
				if r.code > 2 || strings.Contains(r.stderr, "panic") {
					t.Errorf("%v: exit %d %s", args, r.code, r.stderr)
				}
			}
			if after := snapshotTree(t, dir); len(after) != len(before) {
				t.Errorf("files changed: %d -> %d", len(before), len(after))
			} else {
				for p, b := range before {
					if after[p] != b {
						t.Errorf("%s was modified", p)
					}
				}
			}
		})
	}
	for _, args := range [][]string{
		{"log", "check", "/nonexistent/kmeta"}, {"log", "dump", "/nonexistent/kmeta"}, {"image", "/nonexistent/kmeta"},
		{"log", "check", t.TempDir()}, {"log", "check"}, {"log", "dump", "--bogus-flag", "x"},
	} {
		if r := kmeta(args...); r.code != 2 || !strings.HasPrefix(r.stderr, "kmeta: ") {
			t.Errorf("%v: exit %d stderr %q, want 2 and a message", args, r.code, r.stderr)
		}
	}
}

// features describe reads both worlds: a KRaft 3.9 log carries its
// ZkMigrationState (NONE for a KRaft-born cluster); a ZooKeeper data dir has
// no metadata.version but its content still sets a minimum for migration.
func TestFeaturesDescribeBothWorlds(t *testing.T) {
	r := kmeta("features", "describe", "-o", "json", filepath.Join("..", "..", "testdata", "kraft", "3.9.2", "metadata"))
	var k struct {
		MetadataVersion struct{ Level int16 }
		Migration       struct{ State string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &k); err != nil || r.code != 0 || k.MetadataVersion.Level != 21 || k.Migration.State != "NONE" {
		t.Fatalf("kraft 3.9.2: exit %d %+v %v\n%s", r.code, k, err, r.stdout)
	}
	r = kmeta("features", "describe", "-o", "json", filepath.Join("..", "..", "testdata", "zk", "datadir"))
	var z struct {
		MetadataVersion *struct{}
		RequiredMinimum struct{ Name string }
		ZKFeatureStatus *int32
	}
	if err := json.Unmarshal([]byte(r.stdout), &z); err != nil || r.code != 0 || z.MetadataVersion != nil || z.RequiredMinimum.Name != "3.6-IV2" || z.ZKFeatureStatus == nil || *z.ZKFeatureStatus != 1 {
		t.Fatalf("zk: exit %d %+v %v\n%s", r.code, z, err, r.stdout)
	}
}
