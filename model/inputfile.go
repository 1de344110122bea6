package model

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Every file kmeta reads goes through OpenRegular, and every file it reads
// whole through ReadInput with the kind of file it expects: a device
// (/dev/zero), a FIFO or a directory given where a file belongs would be
// read without end, or hang, and a file far larger than its kind ever is
// would be held in memory whole. The model is the one package every
// reader (metalog, zkread, kafkaread) and every command may import, so
// the rule lives here once.

// Sentinels of OpenRegular and ReadInput.
var (
	// ErrNotRegular: the path is not a regular file once symlinks are
	// followed (a device, a FIFO, a socket, a directory).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than a file of its kind may.
	ErrTooLarge = errors.New("too large")
)

// InputKind is a kind of file kmeta reads whole, with the most bytes one
// may hold: far above any real one, far below what would hurt.
type InputKind struct {
	Name string
	Max  int64
}

// The kinds of files read whole.
var (
	// InputClientConfig: --command-config, Kafka's client.properties.
	InputClientConfig = InputKind{"client settings file", 1 << 20}
	// InputServerProperties: a node's server.properties (--config).
	InputServerProperties = InputKind{"server.properties", 1 << 20}
	// InputKeyStore: a TLS trust or key store (JKS, PKCS12 or PEM), a CA
	// bundle, a certificate or a key.
	InputKeyStore = InputKind{"TLS store or PEM file", 16 << 20}
	// InputExceptions: lint --exceptions.
	InputExceptions = InputKind{"lint exceptions file", 4 << 20}
	// InputSmallMeta: a log dir's meta.properties, quorum-state,
	// leader-epoch-checkpoint or partition.metadata.
	InputSmallMeta = InputKind{"metadata file", 1 << 20}
	// InputPlan: a plan or stage document kmeta wrote.
	InputPlan = InputKind{"plan file", 64 << 20}
)

// InputError is a refusal of OpenRegular or ReadInput: the path, then why
// (it unwraps to ErrNotRegular, ErrTooLarge or the OS error).
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// OpenRegular opens path read-only and refuses anything that is not a
// regular file once symlinks are followed. The check is made on the open
// descriptor, so the file cannot be swapped between check and read; the
// open does not wait for a FIFO's writer (openNoWait).
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNoWait(path)
	if err != nil {
		return nil, nil, &InputError{Path: path, Err: unwrapPathErr(err)}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &InputError{Path: path, Err: unwrapPathErr(err)}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &InputError{Path: path, Err: fmt.Errorf("%w (%s): kmeta reads files, not devices, FIFOs or directories", ErrNotRegular, FileTypeName(st.Mode()))}
	}
	return f, st, nil
}

// ReadInput reads a whole file of the given kind: a regular file of at
// most kind.Max bytes (also when it grows while read).
func ReadInput(path string, kind InputKind) ([]byte, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func(n int64) error {
		return &InputError{Path: path, Err: fmt.Errorf("%w: %d bytes or more, where a %s holds at most %d", ErrTooLarge, n, kind.Name, kind.Max)}
	}
	if st.Size() > kind.Max {
		return nil, tooLarge(st.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, kind.Max+1))
	if err != nil {
		return nil, &InputError{Path: path, Err: unwrapPathErr(err)}
	}
	if int64(len(b)) > kind.Max {
		return nil, tooLarge(int64(len(b)))
	}
	return b, nil
}

// FileTypeName names a file's type in words.
func FileTypeName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
