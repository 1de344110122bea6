package metalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/javaprops"
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

// PropsError places a problem in a small text file (meta.properties,
// quorum-state): the 1-based line and the byte position where it is.
// Line is 0 and Position -1 when unknown. It unwraps to ErrProperties.
type PropsError struct {
	File     string
	Line     int
	Position int64
	Err      error
}

func (e *PropsError) Error() string {
	var where []string
	if e.File != "" {
		where = append(where, e.File)
	}
	if e.Line > 0 {
		where = append(where, fmt.Sprintf("line %d", e.Line))
	}
	if e.Position >= 0 {
		where = append(where, fmt.Sprintf("position %d", e.Position))
	}
	return strings.Join(append(where, e.Err.Error()), ": ")
}

func (e *PropsError) Unwrap() error { return e.Err }

// placed builds a *PropsError wrapping ErrProperties.
func placed(line int, pos int64, format string, args ...any) *PropsError {
	return &PropsError{Line: line, Position: pos, Err: fmt.Errorf("%w: %s", ErrProperties, fmt.Sprintf(format, args...))}
}

// withFile names the file in a parse error.
func withFile(path string, err error) error {
	var pe *PropsError
	if errors.As(err, &pe) {
		c := *pe
		c.File = path
		return &c
	}
	return &FileError{File: path, Err: err}
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
	// Lines gives the 1-based line each key was read from.
	Lines map[string]int `json:"-"`
	// ClusterIDProblem is set (a *PropsError) when cluster.id is not a
	// base64 UUID; Kafka accepts such an id, so it is not a parse error.
	ClusterIDProblem error `json:"-"`
	// Damage is set (a *PropsError) when the file holds none of Kafka's
	// keys: Kafka's reader takes it (version 0, no ids), but no Kafka
	// tool writes it, so log check makes it an error.
	Damage error `json:"-"`
}

// ReadMetaProperties reads and validates a meta.properties file, v0
// (ZooKeeper-mode brokers: broker.id) or v1 (kafka-storage format:
// node.id, cluster.id). Errors are *PropsError values naming the line.
func ReadMetaProperties(path string) (*MetaProperties, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	mp, err := ParseMetaProperties(data)
	if err != nil {
		return nil, withFile(path, err)
	}
	if mp.ClusterIDProblem != nil {
		mp.ClusterIDProblem = withFile(path, mp.ClusterIDProblem)
	}
	if mp.Damage != nil {
		mp.Damage = withFile(path, mp.Damage)
	}
	return mp, nil
}

// ParseMetaProperties parses meta.properties text as strictly as Kafka's
// MetaProperties.Builder (checked against Kafka 4.4.0's): version 0 or 1
// (absent means 0, blanks around it allowed); v0 may carry broker.id; v1
// needs node.id and cluster.id; ids are base-10 int32 with nothing around
// them (Integer.parseInt); directory.id must be a UUID. A node id below 0
// is refused too: no server config accepts one.
//
// Kafka takes cluster.id as any string. One that is not a base64 UUID (a
// truncated id, NUL bytes) was not written by kafka-storage format or a
// ZooKeeper-era broker; ParseMetaProperties keeps it and reports it in
// ClusterIDProblem, which log check makes a warning and image carries.
func ParseMetaProperties(data []byte) (*MetaProperties, error) {
	props, lines, err := javaprops.ParseLines(data)
	if err != nil {
		var se *javaprops.SyntaxError
		if errors.As(err, &se) {
			return nil, placed(se.Line, -1, "%s", se.Msg)
		}
		return nil, err
	}
	mp := &MetaProperties{NodeID: -1, Props: props, Lines: lines}
	if !slices.ContainsFunc(metaPropertiesKeys, func(k string) bool { _, ok := props[k]; return ok }) {
		// Kafka reads such a file as version 0 with no ids; no Kafka
		// tool writes one, so it is damage, not a dir without ids.
		what := "none of Kafka's keys"
		if javaprops.Binary(data) {
			what = "binary data, none of Kafka's keys"
		} else if len(bytes.TrimSpace(data)) == 0 {
			what = "nothing"
		}
		mp.Damage = placed(1, -1, "holds %s (%s): not a meta.properties Kafka wrote", what, strings.Join(metaPropertiesKeys, ", "))
	}
	bad := func(key, format string, args ...any) error {
		return placed(lines[key], -1, "%s: %s", key, fmt.Sprintf(format, args...))
	}
	if v, ok := props["version"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || (n != 0 && n != 1) {
			return nil, bad("version", "unsupported version %q (Kafka knows 0 and 1)", v)
		}
		mp.Version = n
	}
	idKey := "node.id"
	if mp.Version == 0 {
		idKey = "broker.id"
	}
	if v, ok := props[idKey]; ok {
		id, err := strconv.ParseInt(v, 10, 32)
		if err != nil || id < 0 {
			return nil, bad(idKey, "%q is not a non-negative base-10 int32", v)
		}
		mp.NodeID = int32(id)
	} else if mp.Version == 1 {
		// Placed at the line that makes the key required.
		return nil, placed(lines["version"], -1, "version 1 requires node.id")
	}
	cid, hasCID := props["cluster.id"]
	if mp.Version == 1 && !hasCID {
		return nil, placed(lines["version"], -1, "version 1 requires cluster.id")
	}
	mp.ClusterID = cid
	if hasCID {
		if u, err := model.ParseUUID(cid); err != nil {
			mp.ClusterIDProblem = bad("cluster.id", "%q is not a base64 UUID as kafka-storage format writes (Kafka reads it as it is; peers with the real id refuse this node)", cid)
		} else if u == (model.UUID{}) {
			mp.ClusterIDProblem = bad("cluster.id", "%q is the zero UUID, which no Kafka tool generates as a cluster id", cid)
		}
	} else {
		// A version 0 file may lack it (old ZooKeeper-era brokers wrote
		// none); an image read from such a dir then has no cluster id.
		mp.ClusterIDProblem = placed(max(lines["version"], 1), -1, "no cluster.id: the image has no cluster id")
	}
	if d, ok := props["directory.id"]; ok {
		u, err := model.ParseUUID(d)
		if err != nil {
			return nil, bad("directory.id", "%q is not a UUID", d)
		}
		mp.DirectoryID, mp.HasDirectoryID = u, true
	}
	if mp.Damage != nil {
		mp.ClusterIDProblem = nil // one finding for one damaged file
	}
	return mp, nil
}

// metaPropertiesKeys are the keys Kafka's MetaProperties reads.
var metaPropertiesKeys = []string{"version", "node.id", "broker.id", "cluster.id", "directory.id"}

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
	// LeaderEpochPos is the byte position of leaderEpoch's value (of the
	// last one, the one read, when the key repeats).
	LeaderEpochPos int64 `json:"-"`
	// Damage is set (a *PropsError) when a value parses as Kafka's reader
	// parses it but no Kafka writes it (a negative leaderEpoch): log
	// check makes it an error.
	Damage error `json:"-"`
	// Problem is set (a *PropsError placed at the first repetition) when
	// a key repeats. Kafka accepts that and reads the last value (Jackson's
	// readTree, as FileQuorumStateStore reads the file, keeps the last),
	// so it is not a parse error; Kafka never writes a key twice, so log
	// check makes it a warning.
	Problem error `json:"-"`
}

// QuorumVoter is one entry of quorum-state's currentVoters.
type QuorumVoter struct {
	VoterID int32 `json:"voterId"`
}

// ReadQuorumState reads and validates a quorum-state file. Errors are
// *PropsError values naming the byte position.
func ReadQuorumState(path string) (*QuorumState, error) {
	data, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	qs, err := ParseQuorumState(data)
	if err != nil {
		return nil, withFile(path, err)
	}
	if qs.Problem != nil {
		qs.Problem = withFile(path, qs.Problem)
	}
	if qs.Damage != nil {
		qs.Damage = withFile(path, qs.Damage)
	}
	return qs, nil
}

// quorumFields are the fields of Kafka's QuorumStateData by data_version.
// Kafka's generated JSON reader throws when a field of the file's version
// is missing ("unable to locate field ..., which is mandatory"), defaults
// included, and ignores fields of other versions.
var quorumFields = [2][]string{
	{"clusterId", "leaderId", "leaderEpoch", "votedId", "appliedOffset", "currentVoters"},
	{"leaderId", "leaderEpoch", "votedId", "votedDirectoryId"},
}

// firstLine is data up to its first line end (\n, \r or \r\n), as
// Kafka's BufferedReader.readLine ends a line.
func firstLine(data []byte) []byte {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		return data[:i]
	}
	return data
}

// ParseQuorumState parses quorum-state as strictly as Kafka's
// FileQuorumStateStore (checked against Kafka 4.4.0's): the first line is one JSON object; data_version
// is required and 0 or 1; every field of that version is required with
// its JSON type (int32/int64 in range, clusterId a string, currentVoters
// an array, votedDirectoryId a UUID string). A repeated key is read with
// its last value, as Kafka does, and reported in Problem.
func ParseQuorumState(data []byte) (*QuorumState, error) {
	line := firstLine(data)
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, placed(1, 0, "quorum-state: empty first line (Kafka: file ended prematurely)")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, placed(1, 0, "quorum-state: not a JSON object")
	}
	vals := map[string]json.RawMessage{}
	pos := map[string]int64{}
	var repeated []string
	repeatAt := int64(-1)
	for dec.More() {
		// The key starts after the separator and any blanks.
		keyAt := dec.InputOffset()
		for keyAt < int64(len(line)) && (line[keyAt] == ',' || line[keyAt] == ' ' || line[keyAt] == '\t') {
			keyAt++
		}
		t, err := dec.Token()
		if err != nil {
			return nil, placed(1, dec.InputOffset(), "quorum-state: %v", err)
		}
		key, _ := t.(string)
		var raw json.RawMessage
		at := dec.InputOffset()
		if err := dec.Decode(&raw); err != nil {
			return nil, placed(1, at, "quorum-state: %s: %v", key, err)
		}
		// The value starts after the colon and any blanks.
		p := at
		for p < int64(len(line)) && (line[p] == ':' || line[p] == ' ' || line[p] == '\t') {
			p++
		}
		if _, seen := vals[key]; seen {
			if repeatAt < 0 {
				repeatAt = keyAt
			}
			repeated = append(repeated, key)
		}
		vals[key], pos[key] = raw, p
	}
	if _, err := dec.Token(); err != nil {
		return nil, placed(1, dec.InputOffset(), "quorum-state: %v", err)
	}
	qs := &QuorumState{LeaderID: -1, VotedID: -1, LeaderEpoch: -1, LeaderEpochPos: -1}
	if len(repeated) > 0 {
		qs.Problem = placed(1, repeatAt, "quorum-state: repeated key %s (Kafka reads the last value; it writes each key once)", strings.Join(quoteAll(repeated), ", "))
	}
	get := func(key string, dst any) error {
		if err := json.Unmarshal(vals[key], dst); err != nil {
			return placed(1, pos[key], "quorum-state: %s: %s is not a valid value (%v)", key, vals[key], err)
		}
		return nil
	}
	if _, ok := vals["data_version"]; !ok {
		return nil, placed(1, 0, "quorum-state: missing data_version")
	}
	if err := get("data_version", &qs.DataVersion); err != nil {
		return nil, err
	}
	if qs.DataVersion != 0 && qs.DataVersion != 1 {
		return nil, placed(1, pos["data_version"], "quorum-state: unsupported data_version %d", qs.DataVersion)
	}
	for _, f := range quorumFields[qs.DataVersion] {
		if _, ok := vals[f]; !ok {
			return nil, placed(1, 0, "quorum-state: missing %s, which Kafka requires at data_version %d", f, qs.DataVersion)
		}
	}
	var err error
	for _, f := range quorumFields[qs.DataVersion] {
		switch f {
		case "clusterId":
			var s *string
			if err = get(f, &s); err == nil && s == nil {
				err = placed(1, pos[f], "quorum-state: clusterId is null, Kafka requires a string")
			} else if s != nil {
				qs.ClusterID = *s
			}
		case "leaderId":
			err = get(f, &qs.LeaderID)
		case "leaderEpoch":
			err = get(f, &qs.LeaderEpoch)
			qs.LeaderEpochPos = pos[f]
			if err == nil && qs.LeaderEpoch < 0 {
				// Kafka's reader takes it, but its quorum state starts at
				// epoch 0 and only grows: damage.
				qs.Damage = placed(1, pos[f], "quorum-state: leaderEpoch %d is negative: no election writes one", qs.LeaderEpoch)
			}
		case "votedId":
			err = get(f, &qs.VotedID)
		case "appliedOffset":
			err = get(f, &qs.AppliedOffset)
		case "currentVoters":
			// Kafka's JSON reader takes null, and its readElectionState
			// then fails on it (a NullPointerException in 4.4.0).
			if string(bytes.TrimSpace(vals[f])) == "null" {
				err = placed(1, pos[f], "quorum-state: currentVoters is null, Kafka requires an array")
			} else {
				err = get(f, &qs.CurrentVoters)
			}
		case "votedDirectoryId":
			var s string
			if err = get(f, &s); err == nil {
				u, perr := model.ParseUUID(s)
				if perr != nil {
					err = placed(1, pos[f], "quorum-state: votedDirectoryId %q is not a UUID", s)
				}
				qs.VotedDirectoryID = &u
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return qs, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
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
// An empty file is no entries: Kafka creates the file empty when it
// opens the log (CheckpointFile), before any epoch is written, and
// reads it back as empty, so a live controller's dir holds one until
// its first election.
func ParseLeaderEpochCheckpoint(data []byte) ([]EpochEntry, error) {
	if strings.TrimSpace(string(data)) == "" {
		return []EpochEntry{}, nil
	}
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
