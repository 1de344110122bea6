package zkfile

import (
	"errors"
	"fmt"
	"os"
)

// DefaultJuteMaxBuffer is ZooKeeper's default jute.maxbuffer (0xfffff, one
// byte short of 1 MiB), the same in 3.5 through 3.9.
const DefaultJuteMaxBuffer = 0xfffff

// ErrNotRegular: a snapshot, log or dump path is not a regular file (after
// symlinks are resolved): a device, a FIFO or a directory could be read
// without end.
var ErrNotRegular = errors.New("zkfile: not a regular file")

// LengthLimit is the largest buffer or string length ZooKeeper's
// BinaryInputArchive accepts: jute.maxbuffer plus
// zookeeper.jute.maxbuffer.extrasize, which defaults to jute.maxbuffer
// itself and is never below 1024. A transaction log entry is read as one
// such buffer, so the limit bounds entries too; zkread holds a dump's and
// a live read's znodes to it as well, so every source accepts the same
// znodes. maxBuffer <= 0 means the default.
func LengthLimit(maxBuffer int) int {
	if maxBuffer <= 0 {
		maxBuffer = DefaultJuteMaxBuffer
	}
	return maxBuffer + max(1024, maxBuffer)
}

// OpenRegular opens path read-only and refuses anything that is not a
// regular file once symlinks are followed. The check is made on the open
// descriptor, so the file cannot be swapped between check and read.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &FileError{File: path, Msg: "open", Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &FileError{File: path, Msg: "stat", Err: err}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &FileError{File: path, Msg: "open", Err: fmt.Errorf("%w: mode %v", ErrNotRegular, st.Mode().Type())}
	}
	return f, st, nil
}
