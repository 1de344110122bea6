package source

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// Sentinels for what inference saw when it refuses a path. Every refusal
// also unwraps to ErrSource, so callers that only care that the source is
// unusable test for that.
var (
	// ErrNoPath: the path does not exist.
	ErrNoPath = errors.New("no such file or directory")
	// ErrUnreadable: the path exists but cannot be read (permissions).
	ErrUnreadable = errors.New("cannot be read")
	// ErrEmpty: an empty directory or an empty file.
	ErrEmpty = errors.New("empty")
	// ErrUnrecognised: the path holds something that is no source kind.
	ErrUnrecognised = errors.New("not a metadata source")
	// ErrBrokerDir: a broker's partition log dir (log.dirs), which holds no
	// KRaft metadata log.
	ErrBrokerDir = errors.New("a broker log dir, not a metadata log")
)

// sawError is a refusal that says what inference saw. Its message names
// the path once; it unwraps to one of the sentinels above.
type sawError struct {
	path     string
	sentinel error
	saw      string
}

func (e *sawError) Error() string   { return e.path + ": " + e.saw }
func (e *sawError) Unwrap() []error { return []error{e.sentinel, ErrSource} }

func saw(path string, sentinel error, format string, a ...any) error {
	return &sawError{path: path, sentinel: sentinel, saw: fmt.Sprintf(format, a...)}
}

// statPath is os.Stat with refusals that say what went wrong in words and
// name the path once (os.PathError would name it again).
func statPath(p string) (fs.FileInfo, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, statError(p, err)
	}
	return st, nil
}

func statError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return saw(p, ErrNoPath, "no such file or directory")
	case errors.Is(err, fs.ErrPermission):
		return saw(p, ErrUnreadable, "permission denied: kmeta cannot read it (run as a user that can, e.g. the one Kafka runs as)")
	}
	return saw(p, ErrUnreadable, "cannot be read: %v", unwrapPathError(err))
}

// readDir lists a directory with the same kind of refusal as statPath.
func readDir(p string) ([]fs.DirEntry, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, readDirError(p, err)
	}
	return ents, nil
}

func readDirError(p string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return saw(p, ErrUnreadable, "permission denied: the directory cannot be listed (run as a user that can, e.g. the one Kafka or ZooKeeper runs as)")
	}
	return saw(p, ErrUnreadable, "the directory cannot be listed: %v", unwrapPathError(err))
}

// notRegular refuses a path that is neither a directory nor a regular
// file: a device or a FIFO would be read without end, or hang.
func notRegular(p string, st fs.FileInfo) error {
	return saw(p, ErrUnrecognised, "%s, not a regular file or a directory: kmeta reads only those", model.FileTypeName(st.Mode()))
}

// unwrapPathError drops the path an *fs.PathError repeats.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// partitionDirRE matches a Kafka partition dir name: topic-partition.
var partitionDirRE = regexp.MustCompile(`^.+-[0-9]+$`)

// BrokerDir describes a broker's partition log dir (one of log.dirs): it
// holds meta.properties and topic-partition dirs, and no
// __cluster_metadata-0. A ZooKeeper-mode broker's dir (meta.properties
// version 0) is what migrate's broker conversion takes.
type BrokerDir struct {
	Path string
	// MetaVersion is meta.properties' version: 0 for a ZooKeeper-mode
	// broker, 1 for a KRaft one.
	MetaVersion int
	// NodeID is broker.id (v0) or node.id (v1).
	NodeID     int32
	ClusterID  string
	Partitions int
}

// ZooKeeperMode reports whether the dir was written by a ZooKeeper-mode
// broker.
func (b *BrokerDir) ZooKeeperMode() bool { return b.MetaVersion == 0 }

// Describe says in words what the dir is and why it is no metadata source.
func (b *BrokerDir) Describe() string {
	if b.ZooKeeperMode() {
		return fmt.Sprintf("a ZooKeeper-mode broker log dir (broker.id %d, %d partition dirs); it holds no KRaft metadata — migrate brokers converts it", b.NodeID, b.Partitions)
	}
	return fmt.Sprintf("a KRaft broker log dir (node.id %d, %d partition dirs) without the metadata log; read the broker's metadata.log.dir (the one holding %s)", b.NodeID, b.Partitions, metalog.MetadataPartitionDir)
}

// InspectBrokerDir recognises a broker's partition log dir: meta.properties
// that parses, no __cluster_metadata-0, and either meta.properties version
// 0 or at least one topic-partition dir. It returns nil for anything else
// (including unreadable dirs: the caller reports those).
func InspectBrokerDir(dir string) *BrokerDir {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	return inspectBrokerDir(dir, ents)
}

func inspectBrokerDir(dir string, ents []fs.DirEntry) *BrokerDir {
	var hasMeta bool
	parts := 0
	for _, e := range ents {
		switch {
		case e.Name() == metalog.MetadataPartitionDir:
			return nil
		case e.Name() == metalog.MetaPropertiesFileName:
			hasMeta = true
		case e.IsDir() && partitionDirRE.MatchString(e.Name()) && !strings.HasPrefix(e.Name(), "__cluster_metadata-"):
			parts++
		}
	}
	if !hasMeta {
		return nil
	}
	mp, err := metalog.ReadMetaProperties(filepath.Join(dir, metalog.MetaPropertiesFileName))
	if err != nil {
		return nil
	}
	if mp.Version != 0 && parts == 0 {
		// A KRaft metadata log dir whose __cluster_metadata-0 is elsewhere
		// or gone: leave it to the KRaft reader, which reports it.
		return nil
	}
	if mp.Version == 0 && parts == 0 && hasKRaftFiles(ents) {
		return nil
	}
	return &BrokerDir{Path: dir, MetaVersion: mp.Version, NodeID: mp.NodeID, ClusterID: mp.ClusterID, Partitions: parts}
}

func hasKRaftFiles(ents []fs.DirEntry) bool {
	for _, e := range ents {
		switch k, _ := metalog.ClassifyName(e.Name()); k {
		case metalog.KindSegment, metalog.KindSnapshot, metalog.KindBootstrap, metalog.KindQuorumState:
			return true
		}
	}
	return false
}

// partitionLogOf names the topic whose partition log p is (a partition
// dir topic-N, or a segment in one), "" when p is no ordinary topic's
// partition log. Such a log holds the topic's messages, not metadata
// records: read as the metadata log it would be hundreds of decode errors.
// The evidence: partition.metadata naming a topic id other than
// __cluster_metadata's, or, without one (topics before Kafka 2.8), a dir
// named topic-N that is not __cluster_metadata-0 and holds segments but
// nothing only the metadata log has (quorum-state, snapshots).
func partitionLogOf(p string, isDir bool) string {
	dir := p
	if !isDir {
		if k, _ := metalog.ClassifyName(filepath.Base(p)); k != metalog.KindSegment {
			return ""
		}
		dir = filepath.Dir(p)
	}
	name := filepath.Base(filepath.Clean(dir))
	if !partitionDirRE.MatchString(name) || name == metalog.MetadataPartitionDir {
		return ""
	}
	topic := name[:strings.LastIndexByte(name, '-')]
	if pm, err := metalog.ReadPartitionMetadata(filepath.Join(dir, "partition.metadata")); err == nil {
		if pm.TopicID == metalog.MetadataTopicID {
			return ""
		}
		return topic
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	segments := false
	for _, e := range ents {
		switch k, _ := metalog.ClassifyName(e.Name()); k {
		case metalog.KindQuorumState, metalog.KindSnapshot, metalog.KindMetaProperties, metalog.KindBootstrap:
			return ""
		case metalog.KindSegment:
			segments = true
		}
	}
	if !segments {
		return ""
	}
	return topic
}

// partitionLogError is the refusal of an ordinary topic's partition log.
func partitionLogError(p, topic string) error {
	return saw(p, ErrUnrecognised, "a partition log of topic %s, not the metadata log (KRaft metadata lives in %s/ of a controller's metadata.log.dir)", topic, metalog.MetadataPartitionDir)
}

// OpenKRaft opens a KRaft source path for reading, refusing with what it
// saw when the path is no KRaft metadata: missing, unreadable, empty, a
// broker's partition log dir, or a file of another kind.
func OpenKRaft(p string) (*metalog.LogDir, error) {
	st, err := statPath(p)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		ents, err := readDir(p)
		if err != nil {
			return nil, err
		}
		if len(ents) == 0 {
			return nil, saw(p, ErrEmpty, "an empty directory: it holds no KRaft metadata (a metadata log dir holds meta.properties and %s/)", metalog.MetadataPartitionDir)
		}
		if b := inspectBrokerDir(p, ents); b != nil {
			return nil, saw(p, ErrBrokerDir, "%s", b.Describe())
		}
		if isZKDataDir(p, ents) {
			return nil, saw(p, ErrUnrecognised, "a ZooKeeper data dir, not KRaft metadata (read it as zkdata:%s)", p)
		}
	} else if !st.Mode().IsRegular() {
		return nil, notRegular(p, st)
	} else if st.Size() == 0 {
		if k, _ := metalog.ClassifyName(filepath.Base(p)); k != metalog.KindSegment {
			return nil, saw(p, ErrEmpty, "an empty file")
		}
	}
	if topic := partitionLogOf(p, st.IsDir()); topic != "" {
		return nil, partitionLogError(p, topic)
	}
	d, err := metalog.OpenLogDir(p)
	if err != nil {
		if errors.Is(err, metalog.ErrNotKRaft) {
			return nil, saw(p, ErrUnrecognised, "%s", describeOther(p, st))
		}
		return nil, err
	}
	return d, nil
}

// isZKDataDir says whether a dir is a ZooKeeper data dir (holding
// version-2/) or its version-2 dir (holding snapshot.* or log.* files).
func isZKDataDir(p string, ents []fs.DirEntry) bool {
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() && n == "version-2" {
			return true
		}
		if !e.IsDir() && filepath.Base(filepath.Clean(p)) == "version-2" && (strings.HasPrefix(n, "snapshot.") || strings.HasPrefix(n, "log.")) {
			return true
		}
	}
	return false
}

// describeOther says what a path that is no source holds.
func describeOther(p string, st fs.FileInfo) string {
	if st.IsDir() {
		ents, _ := os.ReadDir(p)
		var names []string
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() {
				n += "/"
			}
			names = append(names, n)
			if len(names) == 3 {
				break
			}
		}
		more := ""
		if len(ents) > len(names) {
			more = ", ..."
		}
		return fmt.Sprintf("a directory holding neither KRaft metadata (meta.properties, %s/, .log or .checkpoint files) nor a ZooKeeper data dir (version-2/); it holds %d entries (%s%s)",
			metalog.MetadataPartitionDir, len(ents), strings.Join(names, ", "), more)
	}
	name := filepath.Base(p)
	switch k, _ := metalog.ClassifyName(name); k {
	case metalog.KindMetaProperties, metalog.KindQuorumState, metalog.KindLeaderEpochCheckpoint, metalog.KindPartitionMetadata:
		return fmt.Sprintf("a KRaft %s file: give the directory holding it", k)
	}
	return fmt.Sprintf("a file kmeta does not recognise (%d bytes, %s): not a KRaft .log or .checkpoint, not a dump written by 'kmeta zk dump'", st.Size(), sniff(p))
}

// sniff names what a file's first bytes look like, for refusals.
func sniff(p string) string {
	f, _, err := model.OpenRegular(p)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	if n == 0 {
		return "empty"
	}
	text := 0
	for _, c := range buf {
		if c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f) {
			text++
		}
	}
	if text*10 >= n*9 {
		return "text"
	}
	return "binary"
}

// looksLikeDump says whether a file starts like a JSON document, as a dump
// written by 'kmeta zk dump' does.
func looksLikeDump(p string) bool {
	f, _, err := model.OpenRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		c, err := r.ReadByte()
		if err != nil {
			return false
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
}

// notDump says what a JSON file is instead of a dump written by 'kmeta zk
// dump' ("" when it starts as one, or cannot be read: the dump reader then
// says why). A dump's first field is "format": "kmeta-zk-dump".
func notDump(p string) string {
	if k, _ := metalog.ClassifyName(filepath.Base(p)); k == metalog.KindQuorumState {
		return "a KRaft quorum-state file (a controller's election state), not a dump written by 'kmeta zk dump'; give the metadata log dir holding it (kraft:DIR)"
	}
	f, _, err := model.OpenRegular(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(f, 1<<16)))
	tok, err := dec.Token()
	if err != nil {
		return "a file that is neither JSON nor a dump written by 'kmeta zk dump'"
	}
	// Where the top-level value ends (an object: where its { ends), so
	// that a refusal names a place in the file as every other one does.
	top := dec.InputOffset()
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Sprintf("JSON that is not a dump written by 'kmeta zk dump' (a dump is an object; this is %s, ending at byte position %d)", jsonKind(tok), top)
	}
	// The format field is looked for among the top-level fields, in any
	// order (a dump passed through jq -S still reads back).
	var first string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := tok.(string)
		if first == "" {
			first = key
		}
		if key != "format" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return "" // beyond what is sniffed: the reader decides
			}
			continue
		}
		at := dec.InputOffset() // the end of the key: the value follows
		var val any
		if dec.Decode(&val) != nil {
			return ""
		}
		if val == zkread.DumpFormat {
			return ""
		}
		return fmt.Sprintf("JSON that is not a dump written by 'kmeta zk dump' (its format, after byte position %d, is %v; a dump's is %q)", at, val, zkread.DumpFormat)
	}
	if first == "" {
		return fmt.Sprintf("JSON that is not a dump written by 'kmeta zk dump' (an empty object, opened before byte position %d)", top)
	}
	return fmt.Sprintf("JSON that is not a dump written by 'kmeta zk dump' (the object opened before byte position %d has no \"format\": %q field; its first field is %q)", top, zkread.DumpFormat, first)
}

// jsonKind names a JSON value's kind from its first token.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}
