package metalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestQuorumStateMatchesSchema checks the quorum-state reader against
// Kafka's QuorumStateData schema: every field the schema defines is read
// under Kafka's JSON name (lowerCamelCase), nested voter fields too, plus
// the data_version Kafka's file store adds.
func TestQuorumStateMatchesSchema(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "kafka-schemas")
	if d := os.Getenv("KMETA_SHARED"); d != "" {
		dir = filepath.Join(d, "kafka-schemas")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "raft", "QuorumStateData.json"))
	if err != nil {
		t.Fatalf("Kafka's schema not found (set KMETA_SHARED): %v", err)
	}
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
	// And the real files Kafka wrote parse.
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
