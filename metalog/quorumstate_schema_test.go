package metalog

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

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
