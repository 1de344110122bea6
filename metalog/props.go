package metalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kmeta/kmeta/model"
)

// maxPropsFileBytes bounds the small text files of a log dir; anything
// larger is not one of Kafka's.
const maxPropsFileBytes = 1 << 20

// readSmall reads a small text file read-only, refusing directories and
// oversized files.
func readSmall(path string) ([]byte, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &FileError{File: path, Err: err}
	}
	if st.Size() > maxPropsFileBytes {
		return nil, &FileError{File: path, Err: fmt.Errorf("%w: %d bytes, too large", ErrProperties, st.Size())}
	}
	buf := make([]byte, st.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n != len(buf) {
		return nil, &FileError{File: path, Err: err}
	}
	return buf[:n], nil
}

func propsError(path, format string, args ...any) error {
	return &FileError{File: path, Err: fmt.Errorf("%w: %s", ErrProperties, fmt.Sprintf(format, args...))}
}

// MetaProperties is a log dir's meta.properties (v0 from ZooKeeper-era
// brokers, v1 from kafka-storage format).
type MetaProperties struct {
	Version int `json:"version"`
	// NodeID is broker.id in v0 and node.id in v1; -1 when absent.
	NodeID      int32      `json:"nodeId"`
	ClusterID   string     `json:"clusterId,omitempty"`
	DirectoryID model.UUID `json:"directoryId"`
	// HasDirectoryID distinguishes an absent directory.id from the zero
	// (MIGRATING) one.
	HasDirectoryID bool `json:"hasDirectoryId"`
	// Props holds every key as read.
	Props map[string]string `json:"props"`
}

// ReadMetaProperties reads and validates a meta.properties file.
func ReadMetaProperties(path string) (*MetaProperties, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	mp, err := ParseMetaProperties(data)
	if err != nil {
		return nil, propsError(path, "%v", err)
	}
	return mp, nil
}

// ParseMetaProperties parses meta.properties text and checks the keys each
// version requires: v0 needs broker.id, v1 needs node.id and cluster.id.
func ParseMetaProperties(data []byte) (*MetaProperties, error) {
	props, err := ParseJavaProperties(data)
	if err != nil {
		return nil, err
	}
	mp := &MetaProperties{NodeID: -1, Props: props}
	if v, ok := props["version"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || (n != 0 && n != 1) {
			return nil, fmt.Errorf("unsupported version %q", v)
		}
		mp.Version = n
	}
	idKey := "node.id"
	if mp.Version == 0 {
		idKey = "broker.id"
	}
	v, ok := props[idKey]
	if !ok {
		return nil, fmt.Errorf("version %d requires %s", mp.Version, idKey)
	}
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil || id < 0 {
		return nil, fmt.Errorf("%s %q is not a non-negative int32", idKey, v)
	}
	mp.NodeID = int32(id)
	mp.ClusterID = props["cluster.id"]
	if mp.Version == 1 && mp.ClusterID == "" {
		return nil, fmt.Errorf("version 1 requires cluster.id")
	}
	if d, ok := props["directory.id"]; ok {
		u, err := model.ParseUUID(d)
		if err != nil {
			return nil, fmt.Errorf("directory.id %q: %v", d, err)
		}
		mp.DirectoryID, mp.HasDirectoryID = u, true
	}
	return mp, nil
}

// ParseJavaProperties parses the java.util.Properties text format: '#' and
// '!' comments, '=', ':' or whitespace separators, backslash escapes
// (including \uXXXX) and continuation lines. Later keys win, as in Java.
func ParseJavaProperties(data []byte) (map[string]string, error) {
	if !utf8.Valid(data) {
		// Java reads Properties files as ISO-8859-1; Kafka writes ASCII.
		return nil, fmt.Errorf("not ASCII/UTF-8 text")
	}
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimLeft(lines[i], " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// An odd number of trailing backslashes continues the line.
		for trailingBackslashes(line)%2 == 1 && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + strings.TrimLeft(lines[i], " \t\f")
		}
		key, rest := splitProperty(line)
		k, err := unescapeProperty(key)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		v, err := unescapeProperty(rest)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		out[k] = v
	}
	return out, nil
}

func trailingBackslashes(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n
}

// splitProperty splits at the first unescaped '=', ':' or whitespace,
// skipping the separator and whitespace around it.
func splitProperty(line string) (string, string) {
	i := 0
	for ; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
	}
	if i >= len(line) {
		return line, ""
	}
	key := line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	} else if line[i] == '=' || line[i] == ':' {
		rest = strings.TrimLeft(line[i+1:], " \t\f")
	}
	return key, rest
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 >= len(s) {
				return "", fmt.Errorf("truncated \\u escape")
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("bad \\u escape %q", s[i+1:i+5])
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// QuorumState is __cluster_metadata-0/quorum-state. data_version 0 carries
// the voter list; data_version 1 (kraft.version 1) carries
// votedDirectoryId instead and leaves voters to VotersRecord.
type QuorumState struct {
	DataVersion      int16         `json:"data_version"`
	ClusterID        string        `json:"clusterId"`
	LeaderID         int32         `json:"leaderId"`
	LeaderEpoch      int32         `json:"leaderEpoch"`
	VotedID          int32         `json:"votedId"`
	VotedDirectoryID *model.UUID   `json:"votedDirectoryId,omitempty"`
	AppliedOffset    int64         `json:"appliedOffset"`
	CurrentVoters    []QuorumVoter `json:"currentVoters,omitempty"`
}

// QuorumVoter is one entry of quorum-state's currentVoters.
type QuorumVoter struct {
	VoterID int32 `json:"voterId"`
}

// ReadQuorumState reads and validates a quorum-state file.
func ReadQuorumState(path string) (*QuorumState, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	qs, err := ParseQuorumState(data)
	if err != nil {
		return nil, propsError(path, "%v", err)
	}
	return qs, nil
}

// ParseQuorumState parses quorum-state JSON. Absent ids default to -1
// (none), as in Kafka's QuorumStateData.
func ParseQuorumState(data []byte) (*QuorumState, error) {
	qs := QuorumState{LeaderID: -1, VotedID: -1, DataVersion: -1}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&qs); err != nil {
		return nil, fmt.Errorf("quorum-state: %v", err)
	}
	switch qs.DataVersion {
	case 0, 1:
	case -1:
		return nil, fmt.Errorf("quorum-state: missing data_version")
	default:
		return nil, fmt.Errorf("quorum-state: unsupported data_version %d", qs.DataVersion)
	}
	if qs.LeaderEpoch < 0 {
		return nil, fmt.Errorf("quorum-state: negative leaderEpoch %d", qs.LeaderEpoch)
	}
	return &qs, nil
}

// EpochEntry is one leader-epoch-checkpoint line: the first offset written
// in a leader epoch.
type EpochEntry struct {
	Epoch       int32 `json:"epoch"`
	StartOffset int64 `json:"startOffset"`
}

// ReadLeaderEpochCheckpoint reads a leader-epoch-checkpoint file.
func ReadLeaderEpochCheckpoint(path string) ([]EpochEntry, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	es, err := ParseLeaderEpochCheckpoint(data)
	if err != nil {
		return nil, propsError(path, "%v", err)
	}
	return es, nil
}

// ParseLeaderEpochCheckpoint parses "0\n<count>\n<epoch> <offset>\n...".
func ParseLeaderEpochCheckpoint(data []byte) ([]EpochEntry, error) {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) < 2 {
		return nil, fmt.Errorf("leader-epoch-checkpoint: want version and count lines")
	}
	if strings.TrimSpace(lines[0]) != "0" {
		return nil, fmt.Errorf("leader-epoch-checkpoint: unsupported version %q", lines[0])
	}
	n, err := strconv.Atoi(strings.TrimSpace(lines[1]))
	if err != nil || n < 0 || n != len(lines)-2 {
		return nil, fmt.Errorf("leader-epoch-checkpoint: count %q does not match %d entries", lines[1], len(lines)-2)
	}
	out := make([]EpochEntry, 0, n)
	for i, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) != 2 {
			return nil, fmt.Errorf("leader-epoch-checkpoint: line %d: want <epoch> <startOffset>", i+3)
		}
		e, err1 := strconv.ParseInt(f[0], 10, 32)
		o, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("leader-epoch-checkpoint: line %d: bad number", i+3)
		}
		out = append(out, EpochEntry{Epoch: int32(e), StartOffset: o})
	}
	return out, nil
}

// PartitionMetadata is partition.metadata: "version: 0\ntopic_id: <uuid>".
type PartitionMetadata struct {
	Version int        `json:"version"`
	TopicID model.UUID `json:"topicId"`
}

// MetadataTopicID is the fixed topic id of __cluster_metadata.
var MetadataTopicID = model.UUID{15: 1}

// ReadPartitionMetadata reads a partition.metadata file.
func ReadPartitionMetadata(path string) (*PartitionMetadata, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	pm, err := ParsePartitionMetadata(data)
	if err != nil {
		return nil, propsError(path, "%v", err)
	}
	return pm, nil
}

// ParsePartitionMetadata parses partition.metadata text.
func ParsePartitionMetadata(data []byte) (*PartitionMetadata, error) {
	pm := &PartitionMetadata{Version: -1}
	var haveID bool
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("partition.metadata: line %q has no ':'", l)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "version":
			n, err := strconv.Atoi(v)
			if err != nil || n != 0 {
				return nil, fmt.Errorf("partition.metadata: unsupported version %q", v)
			}
			pm.Version = n
		case "topic_id":
			u, err := model.ParseUUID(v)
			if err != nil {
				return nil, fmt.Errorf("partition.metadata: topic_id %q: %v", v, err)
			}
			pm.TopicID, haveID = u, true
		}
	}
	if pm.Version != 0 || !haveID {
		return nil, fmt.Errorf("partition.metadata: want version 0 and topic_id")
	}
	return pm, nil
}

// statOK is os.Stat without following the error into a FileError when the
// file simply does not exist.
func statOK(path string) (os.FileInfo, bool) {
	st, err := os.Stat(path)
	return st, err == nil
}
