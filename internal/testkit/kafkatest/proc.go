package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

// process is one server JVM whose stdout and stderr go to a log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the JVM has exited
	// logOffset is where this run's output starts in logPath; readiness
	// markers before it belong to an earlier run of the node.
	logOffset int64
	waitErr   error
}

// startServer starts mainClass with the JVM options base (nil: the
// harness's, serverJVMOpts) and jvm after them. Output is appended to
// logPath, so a restarted node keeps one log.
func (d *Distribution) startServer(base []string, name, dir, logPath string, jvm []string, mainClass string, args ...string) (*process, error) {
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: %s: %w", name, err)
	}
	if base == nil {
		base = serverJVMOpts
	}
	cds, tmp := d.cdsArgs(true, mainClass, true)
	cmd := exec.Command(d.Java, d.javaArgs(base, true, append(slices.Clone(jvm), cds...), mainClass, args)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = lf, lf
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("kafkatest: start %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	start := time.Now()
	go func() {
		p.waitErr = cmd.Wait()
		d.cdsFinish(true, mainClass, tmp, cmd.ProcessState)
		logJVM("server", d.Version, mainClass, logPath, start, cmd.ProcessState)
		lf.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM and waits up to grace for a clean exit (brokers do a
// controlled shutdown then), then SIGKILLs. It reports whether the exit was
// clean.
func (p *process) stop(grace time.Duration) (clean bool) {
	if p.exited() {
		return true
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return true
	case <-time.After(grace):
	}
	p.kill()
	return false
}

// kill SIGKILLs the process and waits for it to be reaped.
func (p *process) kill() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// waitLog polls the process log until it contains one of markers. It fails
// early if the process exits.
func (p *process) waitLog(ctx context.Context, markers ...string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		b, _ := os.ReadFile(p.logPath)
		if int64(len(b)) >= p.logOffset {
			b = b[p.logOffset:]
		}
		for _, m := range markers {
			if bytes.Contains(b, []byte(m)) {
				return nil
			}
		}
		if p.exited() {
			return fmt.Errorf("kafkatest: %s exited before it was ready (%v); last log lines:\n%s", p.name, p.waitErr, tail(b, 30))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: %s not ready: %w; last log lines:\n%s", p.name, ctx.Err(), tail(b, 30))
		case <-tick.C:
		}
	}
}
