package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// copyTree copies the regular files below src into dst with mode perm and
// mtime, so that two copies differ in everything but content.
func copyTree(t *testing.T, src, dst string, perm os.FileMode, mtime time.Time) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, b, perm); err != nil {
			return err
		}
		if err := os.Chmod(to, perm); err != nil { // past the umask
			return err
		}
		return os.Chtimes(to, mtime, mtime)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestDistReproducible runs the whole release (build, archives,
// SHA256SUMS) twice for a small program on one tar.gz and one zip target:
// from two checkouts at different paths whose files differ in mode and
// mtime, the second with GOAMD64=v3 and GOFLAGS=-race exported (dist pins
// and clears them). Both runs must write byte-identical files, the
// checksums must be the files', the binary must hold no checkout path,
// and it must run and say the stamped version. An older release's
// archives are cleared; other files are left alone. `make dist-check`
// proves the same on kmeta itself with an empty build cache. A few
// seconds once the build cache holds the standard library for the two
// targets (about 20 the first time).
func TestDistReproducible(t *testing.T) {
	start := time.Now()
	tmp := t.TempDir()
	srcA := filepath.Join(tmp, "a", "hello")
	srcB := filepath.Join(tmp, "b", "somewhere", "else", "hello")
	copyTree(t, filepath.Join("testdata", "hello"), srcA, 0o644, time.Unix(1e9, 0))
	copyTree(t, filepath.Join("testdata", "hello"), srcB, 0o600, time.Unix(1.5e9, 0))
	outA, outB := filepath.Join(tmp, "outA"), filepath.Join(tmp, "outB")
	if err := os.MkdirAll(outB, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"hello_0.9.0_linux_amd64.tar.gz", "SHA256SUMS", "notes.txt", "kmeta_0.9.0_linux_amd64.tar.gz"} {
		if err := os.WriteFile(filepath.Join(outB, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := func(src, out string) options {
		var log bytes.Buffer
		return options{module: src, pkg: ".", name: "hello",
			docs: []string{"README.md", "LICENSE", "man/hello.1"}, out: out,
			version: "v1.2.3", ldflags: "-s -w -X main.version=v1.2.3",
			mtime: time.Unix(1767225600, 0), targets: []target{{"linux", "amd64"}, {"windows", "amd64"}},
			goCmd: "go", log: &log}
	}
	if err := run(opts(srcA, outA)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOAMD64", "v3")
	t.Setenv("GOFLAGS", "-race")
	if err := run(opts(srcB, outB)); err != nil {
		t.Fatal(err)
	}

	a, b := readDir(t, outA), readDir(t, outB)
	const tgz, zip = "hello_1.2.3_linux_amd64.tar.gz", "hello_1.2.3_windows_amd64.zip"
	if got, want := slices.Sorted(maps.Keys(a)), []string{"SHA256SUMS", tgz, zip}; !slices.Equal(got, want) {
		t.Fatalf("first run wrote %v, want %v", got, want)
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between the two runs", name)
		}
	}
	if _, ok := b["hello_0.9.0_linux_amd64.tar.gz"]; ok {
		t.Error("the older release's archive was left in the output dir")
	}
	for _, kept := range []string{"notes.txt", "kmeta_0.9.0_linux_amd64.tar.gz"} {
		if string(b[kept]) != "old" {
			t.Errorf("%s, not a file of this release, was not left alone", kept)
		}
	}
	var want strings.Builder
	for _, name := range []string{tgz, zip} {
		sum := sha256.Sum256(a[name])
		fmt.Fprintf(&want, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if diff := cmp.Diff(want.String(), string(a["SHA256SUMS"])); diff != "" {
		t.Errorf("SHA256SUMS (-want +got):\n%s", diff)
	}

	entries := readTarGz(t, a[tgz])
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	dir := "hello_1.2.3_linux_amd64/"
	if want := []string{dir, dir + "hello", dir + "README.md", dir + "LICENSE", dir + "hello.1"}; !slices.Equal(names, want) {
		t.Fatalf("tar.gz holds %v, want %v", names, want)
	}
	bin := []byte(entries[1].Data)
	for _, src := range []string{srcA, srcB, tmp} {
		if bytes.Contains(bin, []byte(src)) {
			t.Errorf("the binary holds the checkout's path %s (-trimpath?)", src)
		}
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		exe := filepath.Join(tmp, "hello")
		if err := os.WriteFile(exe, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(exe).CombinedOutput()
		if err != nil || string(out) != "hello v1.2.3\n" {
			t.Errorf("the released binary said %q (%v), want %q", out, err, "hello v1.2.3\n")
		}
	}
	var zipNames []string
	for _, e := range readZip(t, a[zip]) {
		zipNames = append(zipNames, e.Name)
	}
	dir = "hello_1.2.3_windows_amd64/"
	if want := []string{dir, dir + "hello.exe", dir + "README.md", dir + "LICENSE", dir + "hello.1"}; !slices.Equal(zipNames, want) {
		t.Errorf("zip holds %v, want %v", zipNames, want)
	}
	t.Logf("two releases of 2 targets in %v", time.Since(start).Round(100*time.Millisecond))
}
