//go:build unix

package kafkatest

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Ports are handed out below the kernel's ephemeral range (where no
// outgoing connection can take one before its server binds it), once,
// free when chosen, and locked against other processes for as long as
// this one lives.
func TestFreePortsOutsideEphemeralAndLocked(t *testing.T) {
	ceiling := portCeiling()
	if ceiling-portFloor < 1000 {
		t.Skipf("ephemeral ports start at %d: no room below them", ceiling)
	}
	a, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	b, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range append(a, b...) {
		if p < portFloor || p >= ceiling {
			t.Errorf("port %d outside [%d, %d)", p, portFloor, ceiling)
		}
		if seen[p] {
			t.Errorf("port %d handed out twice", p)
		}
		seen[p] = true
		// Free: nothing listens on it until its server does.
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d: %v", p, err)
			continue
		}
		l.Close()
		// Locked: another open file (as another process's) cannot lock
		// it.
		if f, ok := tryLock(filepath.Join(os.TempDir(), "kmeta-ports", strconv.Itoa(p))); ok {
			f.Close()
			t.Errorf("port %d is not locked", p)
		}
	}
	// A port another process holds is not handed out: lock one of the
	// next candidates from a file of our own, then check lockPort says
	// it is taken.
	p := ceiling - 1
	if seen[p] {
		p--
	}
	f, ok := tryLock(filepath.Join(os.TempDir(), "kmeta-ports", strconv.Itoa(p)))
	if !ok {
		t.Skipf("port %d's lock is held elsewhere", p)
	}
	defer f.Close()
	given.Lock()
	got := lockPort(p)
	given.Unlock()
	if got {
		t.Errorf("lockPort(%d) = true while another holder has its lock", p)
	}
}
