package kafkatest

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvCache names the environment variable that overrides the cache root
// (default $HOME/.cache/kmeta).
const EnvCache = "KMETA_CACHE"

// EnvUnitOnly is set to 1 by `make unit`: tests that need a JVM skip then,
// and only then.
const EnvUnitOnly = "KMETA_UNIT_ONLY"

// dependencyPlugin is pinned so that the fetch does not depend on whatever
// plugin version the local Maven happens to default to.
const dependencyPlugin = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"

// completeMarker is written last into a finished distribution directory.
const completeMarker = "classpath.txt"

// Distribution is one Kafka release fetched into the cache: a directory of
// jars plus logging configurations.
type Distribution struct {
	Version   string
	Dir       string // <cache>/kafka-<version>
	Classpath string // every jar in Dir/lib, joined with ':'
	Tools     Tools  // main classes of this release
	Java      string // path of the java binary

	rel release
}

// SkipIfUnitOnly skips t when KMETA_UNIT_ONLY=1. It is the only reason a
// JVM-backed test may skip.
func SkipIfUnitOnly(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvUnitOnly) == "1" {
		t.Skipf("%s=1: skipping test that needs a JVM and Kafka", EnvUnitOnly)
	}
}

var (
	distMu    sync.Mutex
	distCache = map[string]*Distribution{}
)

// Dist returns the Kafka release version, fetching it from Maven Central
// into the cache on first use. It skips t only when KMETA_UNIT_ONLY=1 and
// fails t on any other problem: a missing JVM or Maven is a broken
// environment, not a reason to pass.
func Dist(t testing.TB, version string) *Distribution {
	t.Helper()
	SkipIfUnitOnly(t)
	distMu.Lock()
	defer distMu.Unlock()
	if d, ok := distCache[version]; ok {
		return d
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	d, err := Fetch(ctx, version, t.Logf)
	if err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	t.Logf("kafkatest: Kafka %s ready in %s (%s)", version, time.Since(start).Round(time.Millisecond), d.Dir)
	distCache[version] = d
	return d
}

// CacheDir returns the cache root: $KMETA_CACHE, else $HOME/.cache/kmeta.
func CacheDir() (string, error) {
	if dir := os.Getenv(EnvCache); dir != "" {
		return filepath.Abs(dir)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("kafkatest: no cache dir: set %s: %w", EnvCache, err)
	}
	return filepath.Join(home, ".cache", "kmeta"), nil
}

// Fetch makes sure the release is in the cache and returns it. It is safe to
// call from several processes at once: a file lock serialises the download
// and the finished directory appears by an atomic rename. logf, if not nil,
// receives progress messages.
func Fetch(ctx context.Context, version string, logf func(format string, args ...any)) (*Distribution, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	rel, err := lookupRelease(version)
	if err != nil {
		return nil, err
	}
	java, err := findJava()
	if err != nil {
		return nil, err
	}
	root, err := CacheDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("kafkatest: create cache dir: %w", err)
	}
	dir := filepath.Join(root, "kafka-"+version)
	d, err := openDist(dir, rel, java)
	if err == nil {
		return d, nil
	}

	unlock, err := lockFile(filepath.Join(root, "kafka-"+version+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another process may have finished while we waited for the lock.
	if d, err := openDist(dir, rel, java); err == nil {
		return d, nil
	}
	// A directory without the marker is a leftover of a killed fetch from a
	// lock-less platform; the rename below needs the name free.
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("kafkatest: remove incomplete %s: %w", dir, err)
	}

	logf("kafkatest: fetching Kafka %s from Maven Central into %s", version, dir)
	start := time.Now()
	tmp, err := os.MkdirTemp(root, ".tmp-kafka-"+version+"-")
	if err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op after a successful rename
	if err := buildDist(ctx, tmp, rel); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("kafkatest: install %s: %w", dir, err)
	}
	logf("kafkatest: fetched Kafka %s in %s", version, time.Since(start).Round(time.Millisecond))
	return openDist(dir, rel, java)
}

func findJava() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("kafkatest: no java on PATH (install openjdk-17-jdk-headless): %w", err)
	}
	return p, nil
}

// openDist accepts dir only if a fetch finished writing it.
func openDist(dir string, rel release, java string) (*Distribution, error) {
	cp, err := os.ReadFile(filepath.Join(dir, completeMarker))
	if err != nil {
		return nil, err
	}
	jars := strings.Split(strings.TrimSpace(string(cp)), "\n")
	abs := make([]string, 0, len(jars))
	for _, j := range jars {
		abs = append(abs, filepath.Join(dir, "lib", j))
	}
	return &Distribution{
		Version:   rel.version,
		Dir:       dir,
		Classpath: strings.Join(abs, string(os.PathListSeparator)),
		Tools:     rel.tools,
		Java:      java,
		rel:       rel,
	}, nil
}

// buildDist resolves the release into dir/lib with Maven, writes the logging
// configurations, checks that every tool class is present, and writes the
// completion marker last.
func buildDist(ctx context.Context, dir string, rel release) error {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return fmt.Errorf("kafkatest: no mvn on PATH (install maven): %w", err)
	}
	pom := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pom, []byte(rel.pom()), 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "-f", pom,
		dependencyPlugin+":copy-dependencies",
		"-DoutputDirectory="+filepath.Join(dir, "lib"),
		"-DincludeScope=runtime")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kafkatest: mvn copy-dependencies for Kafka %s: %w\n%s", rel.version, err, tail(out.Bytes(), 40))
	}
	for _, cfg := range [][2]string{pick(rel.serverLogConfig()), pick(rel.toolLogConfig())} {
		if err := os.WriteFile(filepath.Join(dir, cfg[0]), []byte(cfg[1]), 0o644); err != nil {
			return fmt.Errorf("kafkatest: %w", err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "lib"))
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	var jars []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jar") {
			jars = append(jars, e.Name())
		}
	}
	sort.Strings(jars)
	if err := checkClasses(filepath.Join(dir, "lib"), jars, rel.tools); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, completeMarker), []byte(strings.Join(jars, "\n")+"\n"), 0o644)
}

func pick(a, b string) [2]string { return [2]string{a, b} }

// checkClasses fails when a tool's main class is in none of the jars, so a
// wrong class name is reported at fetch time instead of as a confusing
// ClassNotFoundException in some later test.
func checkClasses(lib string, jars []string, tools Tools) error {
	want := map[string]bool{}
	for _, c := range []string{tools.Kafka, tools.DumpLog, tools.Storage, tools.Features, tools.Topics,
		tools.Configs, tools.Acls, tools.MetadataQuorum, tools.MetadataShell, tools.ZooKeeper, tools.ZooKeeperShell} {
		if c != "" {
			want[strings.ReplaceAll(c, ".", "/")+".class"] = false
		}
	}
	for _, j := range jars {
		zr, err := zip.OpenReader(filepath.Join(lib, j))
		if err != nil {
			return fmt.Errorf("kafkatest: open %s: %w", j, err)
		}
		for _, f := range zr.File {
			if _, ok := want[f.Name]; ok {
				want[f.Name] = true
			}
		}
		zr.Close()
	}
	var missing []string
	for c, found := range want {
		if !found {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("kafkatest: classes missing from the fetched jars: %s", strings.Join(missing, ", "))
	}
	return nil
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
