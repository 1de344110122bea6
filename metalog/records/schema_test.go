package records

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/recdef"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

type jsonField struct {
	Name             string      `json:"name"`
	Type             string      `json:"type"`
	Versions         string      `json:"versions"`
	NullableVersions string      `json:"nullableVersions"`
	TaggedVersions   string      `json:"taggedVersions"`
	Tag              any         `json:"tag"` // a number, or a string in 3.9's files
	Default          any         `json:"default"`
	Ignorable        bool        `json:"ignorable"`
	Fields           []jsonField `json:"fields"`
}

type jsonSchema struct {
	APIKey           *int        `json:"apiKey"`
	Type             string      `json:"type"`
	Name             string      `json:"name"`
	ValidVersions    string      `json:"validVersions"`
	FlexibleVersions string      `json:"flexibleVersions"`
	Fields           []jsonField `json:"fields"`
	CommonStructs    []jsonField `json:"commonStructs"`
}

var lineComment = regexp.MustCompile(`(?m)^\s*//.*$`)

// checkedElsewhere are schemas that are not record bodies.
var checkedElsewhere = map[string]string{
	"QuorumStateData": "the quorum-state JSON file, read by metalog (TestQuorumStateMatchesSchema)",
}

// controlTypes are the control record types Kafka's ControlRecordType assigns.
var controlTypes = map[string]int{
	"LeaderChangeMessage": 2, "SnapshotHeaderRecord": 3, "SnapshotFooterRecord": 4,
	"KRaftVersionRecord": 5, "VotersRecord": 6,
}

func loadDefs(t *testing.T) []*recdef.Message {
	t.Helper()
	f, err := os.Open("records.def")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defs, err := recdef.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// checkSchemaSet compares definitions with one set of schema files. exact
// requires the same valid versions and a schema for every definition;
// otherwise every version the schema defines must match.
func checkSchemaSet(t *testing.T, defs []*recdef.Message, schemas []kafkatest.Schema, exact bool) {
	t.Helper()
	byName := map[string]*recdef.Message{}
	for _, m := range defs {
		byName[m.Name] = m
	}
	if len(schemas) < 30 {
		t.Fatalf("found only %d schema files", len(schemas))
	}
	seen := map[string]bool{}
	for _, sc := range schemas {
		file := sc.Jar + ":" + sc.Path
		var s jsonSchema
		if err := json.Unmarshal(lineComment.ReplaceAll(sc.JSON, nil), &s); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if why, ok := checkedElsewhere[s.Name]; ok {
			t.Logf("%s: checked in %s", s.Name, why)
			continue
		}
		m := byName[s.Name]
		if m == nil {
			t.Errorf("%s: schema %s has no definition in records.def", file, s.Name)
			continue
		}
		seen[s.Name] = true
		where := path.Base(sc.Path)
		if s.APIKey != nil {
			if m.Kind != recdef.Metadata || m.Key != *s.APIKey {
				t.Errorf("%s: apiKey %d, definition says kind %v key %d", where, *s.APIKey, m.Kind, m.Key)
			}
		} else if m.Kind != recdef.Control || controlTypes[s.Name] != m.Key {
			t.Errorf("%s: control type: definition says kind %v key %d, want %d", where, m.Kind, m.Key, controlTypes[s.Name])
		}
		vv, err := recdef.ParseVersions(s.ValidVersions)
		if err != nil || (exact && vv != m.Versions) || (!exact && (vv.Lo != m.Versions.Lo || vv.Hi > m.Versions.Hi)) {
			t.Errorf("%s: validVersions %q, definition %s", where, s.ValidVersions, m.Versions)
		}
		if s.FlexibleVersions != "0+" {
			t.Errorf("%s: flexibleVersions %q; the codec assumes 0+", where, s.FlexibleVersions)
		}
		common := map[string][]jsonField{}
		for _, c := range s.CommonStructs {
			common[c.Name] = c.Fields
		}
		// Check every version separately: the wire shape of each version is
		// what must agree.
		for v := vv.Lo; v <= vv.Hi; v++ {
			compareFields(t, fmt.Sprintf("%s v%d", s.Name, v), v, vv, s.Fields, m.Fields, common)
		}
	}
	if !exact {
		return
	}
	for _, m := range defs {
		if !seen[m.Name] {
			t.Errorf("records.def defines %s, which no Kafka schema has", m.Name)
		}
	}
}

func present(fs []jsonField, v int, valid recdef.Versions) []jsonField {
	var out []jsonField
	for _, f := range fs {
		vs := f.Versions
		if vs == "" {
			vs = f.TaggedVersions
		}
		r, _ := recdef.ParseVersions(vs)
		if r.Contains(v) {
			out = append(out, f)
		}
	}
	return out
}

func presentDefs(fs []*recdef.Field, v int) []*recdef.Field {
	var out []*recdef.Field
	for _, f := range fs {
		if f.Versions.Contains(v) {
			out = append(out, f)
		}
	}
	return out
}

func compareFields(t *testing.T, where string, v int, valid recdef.Versions, js []jsonField, ds []*recdef.Field, common map[string][]jsonField) {
	t.Helper()
	jp, dp := present(js, v, valid), presentDefs(ds, v)
	names := func() string {
		var a, b []string
		for _, f := range jp {
			a = append(a, f.Name)
		}
		for _, f := range dp {
			b = append(b, f.Name)
		}
		return fmt.Sprintf("schema %v, definition %v", a, b)
	}
	if len(jp) != len(dp) {
		t.Errorf("%s: field count differs: %s", where, names())
		return
	}
	for i := range jp {
		j, d := jp[i], dp[i]
		at := where + "." + j.Name
		if j.Name != d.Name {
			t.Errorf("%s: field %d is %s in the schema and %s in the definition (%s)", where, i, j.Name, d.Name, names())
			continue
		}
		if j.Type != d.Type {
			t.Errorf("%s: type %s, definition %s", at, j.Type, d.Type)
		}
		jn := false
		if j.NullableVersions != "" {
			r, _ := recdef.ParseVersions(j.NullableVersions)
			jn = r.Contains(v)
		}
		if dn := d.Nullable.Contains(v); jn != dn {
			t.Errorf("%s: nullable %v, definition %v", at, jn, dn)
		}
		jt := j.TaggedVersions != ""
		if jt {
			r, _ := recdef.ParseVersions(j.TaggedVersions)
			jt = r.Contains(v)
		}
		if jt != d.Tagged {
			t.Errorf("%s: tagged %v, definition %v", at, jt, d.Tagged)
		} else if jt {
			var tag int
			switch x := j.Tag.(type) {
			case float64:
				tag = int(x)
			case string: // Kafka 3.9's files write "tag": "0"
				fmt.Sscan(x, &tag)
			default:
				t.Errorf("%s: tagged field without a tag", at)
			}
			if tag != d.Tag {
				t.Errorf("%s: tag %d, definition %d", at, tag, d.Tag)
			}
		}
		if jd, dd := normDefault(j.Default, j.Type), normDefault(d.Default, d.Type); jd != dd {
			t.Errorf("%s: default %q, definition %q", at, jd, dd)
		}
		if j.Ignorable {
			t.Errorf("%s: ignorable fields are not supported by the codec", at)
		}
		if et := strings.TrimPrefix(j.Type, "[]"); !recdef.Primitive(et) {
			sub := j.Fields
			if len(sub) == 0 {
				sub = common[et]
			}
			if d.Struct == nil {
				t.Errorf("%s: struct type without a struct definition", at)
				continue
			}
			compareFields(t, at, v, valid, sub, d.Struct.Fields, common)
		}
	}
}

// normDefault maps "unspecified" and the type's implicit default to one form.
func normDefault(d any, typ string) string {
	s := ""
	switch x := d.(type) {
	case string:
		s = x
	case float64:
		s = fmt.Sprint(x)
	case bool:
		s = fmt.Sprint(x)
	}
	implicit := map[string]string{"bool": "false", "int8": "0", "int16": "0", "int32": "0", "int64": "0", "uint16": "0", "uint32": "0", "float64": "0"}
	if s == implicit[typ] {
		s = ""
	}
	return s
}

// TestDefinitionsCoverMetadataTypes guards the apiKey table against gaps.
func TestDefinitionsCoverMetadataTypes(t *testing.T) {
	var keys []int
	for _, mt := range MetadataTypes() {
		keys = append(keys, int(mt.APIKey))
		if NewMetadata(mt.APIKey) == nil {
			t.Errorf("apiKey %d (%s) has no constructor", mt.APIKey, mt.Name)
		}
	}
	sort.Ints(keys)
	if len(keys) != 27 {
		t.Errorf("%d metadata types, Kafka 4.4 defines 27: %v", len(keys), keys)
	}
}
