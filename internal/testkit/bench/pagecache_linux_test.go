package bench

import (
	"os"
	"syscall"
	"testing"
)

// freshPageCache drops path's pages from the page cache
// (POSIX_FADV_DONTNEED) and reads the file once, so that the rows after
// it read pages the kernel has just filled. The state of a file's cached
// pages moves what reading them costs: on this VM the same 530 MB log
// read at 10.3 GB/s right after it was read from disk and at 5.3 GB/s an
// hour of large rows later (dd alike), which took the log check row's
// ratio to its read+CRC ceiling from 0.32 to 0.53. Freshly read, the
// ceiling is at its fastest: the stricter of the two.
func freshPageCache(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const posixFadvDontneed = 4
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, posixFadvDontneed, 0, 0); errno != 0 {
		t.Fatalf("fadvise %s: %v", path, errno)
	}
	readCRC(t, path)
}
