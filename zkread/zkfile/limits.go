package zkfile

import (
	"errors"
	"os"

	"github.com/kmeta/kmeta/model"
)

// DefaultJuteMaxBuffer is ZooKeeper's default jute.maxbuffer (0xfffff, one
// byte short of 1 MiB), the same in 3.5 through 3.9.
const DefaultJuteMaxBuffer = 0xfffff

// ErrNotRegular: a snapshot, log or dump path is not a regular file (after
// symlinks are resolved): a device, a FIFO or a directory could be read
// without end.
var ErrNotRegular = model.ErrNotRegular

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
// regular file once symlinks are followed (model.OpenRegular: the check
// is made on the open descriptor, and a FIFO is refused without waiting
// for its writer).
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, st, err := model.OpenRegular(path)
	if err != nil {
		var ie *model.InputError
		if errors.As(err, &ie) {
			err = ie.Err
		}
		return nil, nil, &FileError{File: path, Msg: "open", Err: err}
	}
	return f, st, nil
}
