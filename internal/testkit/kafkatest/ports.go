package kafkatest

import (
	"fmt"
	"net"
	"sync"
)

// given are the ports handed out in this process: tests that run
// concurrently (Concurrently) reserve ports at the same time, and the
// kernel may offer a port again once its listener here is closed, before
// the server it was meant for binds it.
var given struct {
	sync.Mutex
	ports map[int]bool
}

// freePorts reserves n distinct free TCP ports on 127.0.0.1. All listeners
// stay open until every port is chosen, so the n ports differ; another
// process could still take one before the server binds it, which is
// unlikely enough for tests.
func freePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	given.Lock()
	defer given.Unlock()
	if given.ports == nil {
		given.ports = map[int]bool{}
	}
	ports := make([]int, 0, n)
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("kafkatest: reserve port: %w", err)
		}
		ls = append(ls, l)
		p := l.Addr().(*net.TCPAddr).Port
		if given.ports[p] {
			continue
		}
		given.ports[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}

// FreePorts reserves n distinct free ports on 127.0.0.1 for a test that
// must name a server's port before the harness starts it (the controllers
// kmeta migrate stage writes files for).
func FreePorts(n int) ([]int, error) { return freePorts(n) }
