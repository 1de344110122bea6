package kafkatest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// A server's port is chosen before its JVM starts and binds it, which can
// be half a minute later (keytool making its TLS stores on a loaded
// machine). A port the kernel hands out for 127.0.0.1:0 is one of its
// ephemeral ports, which it also gives any outgoing connection in the
// meantime: .ci/run of 2026-12-07 saw a broker fail to bind such a port
// ("Address already in use"), taken while the TLS stores were made. So
// ports are chosen below the ephemeral range, where no connection is
// given one, and each is locked across processes (make test runs two
// test binaries at once) for as long as the process that chose it lives.
//
// given are the ports handed out in this process, never handed out
// twice; locks hold their lock files open.
var given struct {
	sync.Mutex
	ports   map[int]bool
	locks   []*os.File
	lockDir string // made once, by the first lockPort
}

// portFloor is the lowest port handed out; the highest is just below the
// kernel's ephemeral range.
const portFloor = 20000

// portCeiling is the first port of the ephemeral range: Linux's, read
// from /proc, else 32768 (Linux's default; macOS and Windows start theirs
// at 49152).
func portCeiling() int {
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
			if f := strings.Fields(string(b)); len(f) == 2 {
				if lo, err := strconv.Atoi(f[0]); err == nil {
					return lo
				}
			}
		}
	}
	return 32768
}

// freePorts reserves n distinct free TCP ports on 127.0.0.1, below the
// ephemeral range when there is room (else the kernel's choice, as before):
// each is free when chosen, locked against other processes' choosing it,
// and all are listened on until every one is chosen.
func freePorts(n int) ([]int, error) {
	given.Lock()
	defer given.Unlock()
	if given.ports == nil {
		given.ports = map[int]bool{}
	}
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	lo, hi := portFloor, portCeiling()
	if hi-lo < 1000 {
		return kernelPorts(n, &ls)
	}
	ports := make([]int, 0, n)
	p := lo + rand.IntN(hi-lo)
	for tries := 0; len(ports) < n; tries++ {
		if tries == hi-lo {
			return nil, fmt.Errorf("kafkatest: reserve port: none free in %d-%d", lo, hi-1)
		}
		if p++; p >= hi {
			p = lo
		}
		if given.ports[p] || !lockPort(p) {
			continue
		}
		given.ports[p] = true // locked by this process: not tried again
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // in use
		}
		ls = append(ls, l)
		ports = append(ports, p)
	}
	return ports, nil
}

// kernelPorts reserves n ports the kernel chooses (given locked).
func kernelPorts(n int, ls *[]net.Listener) ([]int, error) {
	ports := make([]int, 0, n)
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("kafkatest: reserve port: %w", err)
		}
		*ls = append(*ls, l)
		p := l.Addr().(*net.TCPAddr).Port
		if given.ports[p] {
			continue
		}
		given.ports[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}

// lockPort takes port p's lock file without waiting and keeps it for the
// life of the process (given locked); false when another process holds
// it. Where files cannot be locked every port is taken as unlocked.
func lockPort(p int) bool {
	if given.lockDir == "" {
		dir := filepath.Join(os.TempDir(), "kmeta-ports")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return true
		}
		given.lockDir = dir
	}
	f, ok := tryLock(filepath.Join(given.lockDir, strconv.Itoa(p)))
	if ok && f != nil {
		given.locks = append(given.locks, f)
	}
	return ok
}

// FreePorts reserves n distinct free ports on 127.0.0.1 for a test that
// must name a server's port before the harness starts it (the controllers
// kmeta migrate stage writes files for).
func FreePorts(n int) ([]int, error) { return freePorts(n) }
