//go:build unix

package metalog

import (
	"fmt"
	"os"
	"syscall"
)

// chownLike gives f the owner and group of the file old describes, when
// they differ from f's: replacing a file must not hand it to whoever runs
// kmeta (root, typically), away from the user the broker runs as.
func chownLike(f *os.File, old os.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if have, ok := fi.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	if err := f.Chown(int(want.Uid), int(want.Gid)); err != nil {
		return fmt.Errorf("keeping the replaced file's owner %d:%d: %w (run as that user, or as root)", want.Uid, want.Gid, err)
	}
	return nil
}
