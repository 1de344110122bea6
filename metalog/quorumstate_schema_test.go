package metalog

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestQuorumStateMatchesSchema checks the quorum-state reader against
// the QuorumStateData schema in the kafka-raft jar of every Kafka release
// the harness knows (3.9.2 and 4.4.0): every field the schema defines is
// read under Kafka's JSON name (lowerCamelCase), nested voter fields too,
// plus the data_version Kafka's file store adds. The reader serves every
// release, so every release's fields must be read.
func TestQuorumStateMatchesSchema(t *testing.T) {
	for _, v := range kafkatest.Versions {
		t.Run(v, func(t *testing.T) {
			ss, err := kafkatest.Dist(t, v).Schemas(kafkatest.RaftJar, kafkatest.MessageSchemaDir)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ss, func(s kafkatest.Schema) bool { return s.Name == "QuorumStateData" })
			if i < 0 {
				t.Fatalf("Kafka %s: no QuorumStateData schema in %s", v, kafkatest.RaftJar)
			}
			checkQuorumStateSchema(t, ss[i].JSON)
		})
	}
}

func checkQuorumStateSchema(t *testing.T, raw []byte) {
	t.Helper()
	type field struct {
		Name   string  `json:"name"`
		Fields []field `json:"fields"`
	}
	var s struct{ Fields []field }
	if err := json.Unmarshal(regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAll(raw, nil), &s); err != nil {
		t.Fatal(err)
	}
	tags := func(typ reflect.Type) map[string]reflect.StructField {
		m := map[string]reflect.StructField{}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			m[name] = f
		}
		return m
	}
	got := tags(reflect.TypeOf(QuorumState{}))
	if _, ok := got["data_version"]; !ok {
		t.Error("data_version is not read")
	}
	for _, f := range s.Fields {
		jn := strings.ToLower(f.Name[:1]) + f.Name[1:]
		sf, ok := got[jn]
		if !ok {
			t.Errorf("QuorumStateData.%s (%q) is not read", f.Name, jn)
			continue
		}
		if len(f.Fields) > 0 {
			et := sf.Type
			for et.Kind() == reflect.Slice || et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			sub := tags(et)
			for _, nf := range f.Fields {
				if _, ok := sub[strings.ToLower(nf.Name[:1])+nf.Name[1:]]; !ok {
					t.Errorf("QuorumStateData.%s.%s is not read", f.Name, nf.Name)
				}
			}
		}
	}
}

// TestQuorumStateFixtures reads the quorum-state files real Kafka wrote
// (the committed fixtures; no JVM).
func TestQuorumStateFixtures(t *testing.T) {
	for _, p := range []string{"3.9.2", "4.4.0"} {
		qs, err := ReadQuorumState(filepath.Join("..", "testdata", "kraft", p, "metadata", MetadataPartitionDir, "quorum-state"))
		if err != nil {
			t.Fatal(err)
		}
		if qs.LeaderEpoch < 1 {
			t.Errorf("%s: quorum-state leader epoch %d", p, qs.LeaderEpoch)
		}
	}
}
