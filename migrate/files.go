package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// FileHook, when set in ApplyOptions or BrokerOptions, is called at every
// file boundary: FileBefore when a file's content is complete in its
// temporary file and not yet renamed into place, FileAfter once it is in
// place. It exists for fault injection (kmeta kills itself at the N-th
// boundary to prove a rerun completes the job) and for tests to count
// boundaries; it is an option of the call, so two calls never share one.
type FileHook func(event, path string)

// File boundary events.
const (
	FileBefore = "before"
	FileAfter  = "after"
)

// File names.
const (
	bootstrapFile = "bootstrap.checkpoint"
	// The bootstrap snapshot of a dynamic quorum (snapshot id 0-0).
	metadataPartitionDir  = "__cluster_metadata-0"
	bootstrapSnapshotFile = "00000000000000000000-0000000000.checkpoint"
	bootstrapSnapshotPath = metadataPartitionDir + "/" + bootstrapSnapshotFile
	metaPropertiesFile    = "meta.properties"
	partitionMetadata     = "partition.metadata"
	backupSuffix          = ".kmeta-zk-backup"
)

// FileResult is what happened (or, with --dry-run, would happen) to one
// file.
type FileResult struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Action  string `json:"action"` // "write", "unchanged", "would write"
	Bytes   int    `json:"bytes"`
	Summary string `json:"summary"`
}

// Actions.
const (
	ActionWrite     = "write"
	ActionUnchanged = "unchanged"
	ActionWouldDo   = "would write"
)

// sameContent reports whether path holds exactly data. A target that is
// not a regular file (a FIFO, a device) is an error, not a wait or an
// endless read, and no more than data and one byte is read of it.
func sameContent(path string, data []byte) (exists, same bool, err error) {
	f, _, err := model.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(len(data))+1))
	if err != nil {
		return false, false, err
	}
	return true, bytes.Equal(b, data), nil
}

// putFile makes path hold data: unchanged when it already does, refused
// when it holds something else unless overwrite, else written atomically
// (temporary file, fsync, rename, directory fsync). A rerun after a crash
// therefore finishes the job: what was written is recognised, what was not
// is written.
func putFile(path string, data []byte, overwrite, dryRun bool) (string, error) {
	return putFileProgress(path, data, overwrite, dryRun, 0, nil, nil)
}

// writeChunk is how much putFileProgress writes between progress reports.
const writeChunk = 4 << 20

// putFileProgress is putFile reporting each chunk written (and a file
// left as it was, whole) to progress, and its boundaries to hook, each
// when not nil; it creates the file with mode perm (0: metalog's default,
// 0644).
func putFileProgress(path string, data []byte, overwrite, dryRun bool, perm os.FileMode, progress func(n int), hook FileHook) (string, error) {
	report := func(n int) {
		if progress != nil {
			progress(n)
		}
	}
	exists, same, err := sameContent(path, data)
	if err != nil {
		return "", err
	}
	switch {
	case same:
		report(len(data))
		return ActionUnchanged, nil
	case exists && !overwrite:
		return "", fmt.Errorf("%w: %s (use --force to replace it)", ErrTargetNotEmpty, path)
	case dryRun:
		return ActionWouldDo, nil
	}
	removeParts(path)
	f, err := metalog.CreateAtomic(path, metalog.WriteOptions{Overwrite: exists, Perm: perm})
	if err != nil {
		return "", err
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), writeChunk)
		if _, err := f.Write(rest[:n]); err != nil {
			f.Abort()
			return "", err
		}
		rest = rest[n:]
		report(n)
	}
	if hook != nil {
		hook(FileBefore, path)
	}
	if err := f.Commit(); err != nil {
		return "", err
	}
	if hook != nil {
		hook(FileAfter, path)
	}
	return ActionWrite, nil
}

// removeParts deletes temporary files an interrupted putFile of path left
// (".NAME.*.part", metalog's naming).
func removeParts(path string) {
	dir, base := filepath.Split(path)
	ms, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".*.part"))
	for _, m := range ms {
		os.Remove(m)
	}
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// isPart reports whether name is a temporary file of putFile.
func isPart(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".part")
}
