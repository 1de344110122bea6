package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// toolJVMOpts keep short-lived tools quick to start on a small machine:
// C1 only (no C2 compile work for a run of a second or two) and a serial GC.
var toolJVMOpts = []string{"-Xms32m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-Djava.awt.headless=true"}

// serverJVMOpts are for servers. They stay with C1 too: on two shared cores
// the C2 compiler threads cost more start-up time than they win back in a
// test that lasts a minute.
var serverJVMOpts = []string{"-Xms64m", "-Xmx768m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-Djava.awt.headless=true"}

// Is3 reports whether the release is a 3.x one (ZooKeeper mode available).
func (d *Distribution) Is3() bool { return strings.HasPrefix(d.Version, "3.") }

// HasZooKeeper reports whether the release ships ZooKeeper and ZK-mode brokers.
func (d *Distribution) HasZooKeeper() bool { return d.rel.zk }

func (d *Distribution) logConfigArg(server bool) string {
	name, _ := d.rel.toolLogConfig()
	if server {
		name, _ = d.rel.serverLogConfig()
	}
	p := filepath.Join(d.Dir, name)
	if d.rel.log4j2 {
		return "-Dlog4j2.configurationFile=" + p
	}
	return "-Dlog4j.configuration=file:" + p
}

// Command returns an unstarted java command running mainClass of this
// release with tool JVM settings (log output: warnings, on stderr). Set its
// Dir, Stdout or Stderr as needed.
func (d *Distribution) Command(ctx context.Context, mainClass string, args ...string) *exec.Cmd {
	// The caller runs the command: it maps a class archive that exists
	// but cannot finish writing one (cds.go).
	cds, _ := d.cdsArgs(false, mainClass, false)
	return exec.CommandContext(ctx, d.Java, d.javaArgs(toolJVMOpts, false, cds, mainClass, args)...)
}

// javaArgs is the java command line of mainClass: the JVM options opts
// (toolJVMOpts, serverJVMOpts or a server's own), the tool's or the
// server's log configuration, extra options, then args.
func (d *Distribution) javaArgs(opts []string, server bool, extra []string, mainClass string, args []string) []string {
	a := append([]string{}, opts...)
	a = append(a, d.logConfigArg(server))
	a = append(a, extra...)
	a = append(a, "-cp", d.Classpath, mainClass)
	return append(a, args...)
}

// Run runs mainClass to completion and returns what it printed. err is
// non-nil when the JVM exits non-zero; stderr then says why.
func (d *Distribution) Run(ctx context.Context, mainClass string, args ...string) (stdout, stderr []byte, err error) {
	cds, tmp := d.cdsArgs(false, mainClass, true)
	cmd := exec.CommandContext(ctx, d.Java, d.javaArgs(toolJVMOpts, false, cds, mainClass, args)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err = cmd.Run()
	d.cdsFinish(false, mainClass, tmp, cmd.ProcessState)
	logJVM("tool", d.Version, mainClass, "", start, cmd.ProcessState)
	if err != nil {
		err = fmt.Errorf("kafkatest: %s %s: %w\n%s", mainClass, strings.Join(args, " "), err, tail(e.Bytes(), 30))
	}
	return o.Bytes(), e.Bytes(), err
}

// MustRun is Run that fails t on error and returns stdout.
func (d *Distribution) MustRun(t testing.TB, mainClass string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, _, err := d.Run(ctx, mainClass, args...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// DumpLog runs kafka-dump-log --cluster-metadata-decoder over files and
// returns its stdout. extra adds options such as "--skip-record-metadata".
func (d *Distribution) DumpLog(t testing.TB, files []string, extra ...string) string {
	t.Helper()
	args := append([]string{"--cluster-metadata-decoder", "--files", strings.Join(files, ",")}, extra...)
	return d.MustRun(t, d.Tools.DumpLog, args...)
}

// Format runs `kafka-storage format -c configPath args...` (args carry
// --cluster-id, --release-version, --feature, --add-scram, --standalone, …)
// and returns its stdout.
func (d *Distribution) Format(t testing.TB, configPath string, args ...string) string {
	t.Helper()
	return d.MustRun(t, d.Tools.Storage, append([]string{"format", "-c", configPath}, args...)...)
}
