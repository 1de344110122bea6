package kafkatest

import (
	"archive/zip"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Schema is one of Kafka's JSON message schemas as a release ships it in a
// jar. Kafka generates its record classes from these files and packs them
// beside the classes, so the fetched release is their source: tests need
// nothing outside the repository and the harness's cache.
type Schema struct {
	Name string // the file name without .json: TopicRecord
	Jar  string // the jar's file name: kafka-metadata-4.4.0.jar
	Path string // inside the jar: common/metadata/TopicRecord.json
	JSON []byte // as shipped, // comment lines included
}

// Where the release packs the schemas of what a KRaft metadata log and its
// directory hold (the same in 3.9 and 4.x):
const (
	// MetadataJar's MetadataSchemaDir holds the metadata records.
	MetadataJar       = "kafka-metadata"
	MetadataSchemaDir = "common/metadata"
	// RaftJar's MessageSchemaDir holds QuorumStateData (the quorum-state
	// file) and nothing else.
	RaftJar = "kafka-raft"
	// ClientsJar's MessageSchemaDir holds the raft control records
	// (LeaderChangeMessage, SnapshotHeaderRecord, VotersRecord, …) among
	// every request and response of the protocol.
	ClientsJar       = "kafka-clients"
	MessageSchemaDir = "common/message"
)

// Schemas reads the JSON schemas directly in dir (not below it) of the
// release's jar artifact, e.g. Schemas(MetadataJar, MetadataSchemaDir),
// sorted by name. No schema there is an error: the jar's layout changed.
func (d *Distribution) Schemas(artifact, dir string) ([]Schema, error) {
	jar := artifact + "-" + d.Version + ".jar"
	zr, err := zip.OpenReader(filepath.Join(d.Dir, "lib", jar))
	if err != nil {
		return nil, fmt.Errorf("kafkatest: Kafka %s: %w", d.Version, err)
	}
	defer zr.Close()
	var out []Schema
	for _, f := range zr.File {
		if path.Dir(f.Name) != dir || !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("kafkatest: %s: %s: %w", jar, f.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("kafkatest: %s: %s: %w", jar, f.Name, err)
		}
		out = append(out, Schema{
			Name: strings.TrimSuffix(path.Base(f.Name), ".json"),
			Jar:  jar,
			Path: f.Name,
			JSON: b,
		})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("kafkatest: %s has no %s/*.json", jar, dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
