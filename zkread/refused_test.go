package zkread

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// closedPort is a port on 127.0.0.1 that nothing listens on: one the
// kernel just handed out and that was closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestRefusedFailsFast: when every server of the ensemble refuses the
// connection (nothing listens), ReadLive gives up within about a second,
// naming the addresses, not after the session timeout; a server that
// accepts but never answers is still waited for until the session timeout.
func TestRefusedFailsFast(t *testing.T) {
	a, b := closedPort(t), closedPort(t)
	start := time.Now()
	_, err := ReadLive(context.Background(), LiveOptions{Servers: []string{a, b}, SessionTimeout: 10 * time.Second})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("refused: gave up after %s, want about a second", took)
	}
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("refused: %v; want ErrUnreachable naming %s and %s", err, a, b)
	}

	// Accepts, never answers: a timeout, not a refusal.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	timeout := 1500 * time.Millisecond
	start = time.Now()
	_, err = ReadLive(context.Background(), LiveOptions{Servers: []string{l.Addr().String(), closedPort(t)}, SessionTimeout: timeout, Connections: 1})
	if took := time.Since(start); took < timeout || !errors.Is(err, ErrUnreachable) {
		t.Errorf("silent server: %v after %s, want ErrUnreachable after the session timeout (%s)", err, took, timeout)
	}
}
