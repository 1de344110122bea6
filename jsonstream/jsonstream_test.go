package jsonstream

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type item struct {
	Name string         `json:"name"`
	Tags []string       `json:"tags,omitempty"`
	M    map[string]int `json:"m"`
}

type doc struct {
	Source string `json:"source"`
	Inner  struct {
		Items []item `json:"items"`
	} `json:"inner"`
	Items []item `json:"items"`
	Last  string `json:"last"`
}

// TestWriteAsEncodingJSON: Write's bytes are encoding/json's for the whole
// value, compact with HTML escaped and indented without, for a nil array,
// an empty one and a long one, where strings hold the key's own pattern,
// what JSON escapes, and a deeper field of the same name is null.
func TestWriteAsEncodingJSON(t *testing.T) {
	var many []item
	for i := range 40 {
		many = append(many, item{Name: strings.Repeat("<&>\"\u2028", i%3) + `,"items":null` + "\n", Tags: []string{"a", ",\n  \"items\": null"}[:i%3%2+i%2], M: map[string]int{"z": i, "a": -i}})
	}
	for _, items := range [][]item{nil, {}, many} {
		d := doc{Source: `,"items":null and ,\n  "items": null`, Items: items, Last: "end"}
		head := d
		head.Items = nil
		for _, indent := range []bool{false, true} {
			var want bytes.Buffer
			e := json.NewEncoder(&want)
			e.SetEscapeHTML(!indent)
			if indent {
				e.SetIndent("", "  ")
			}
			if err := e.Encode(d); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Write(&got, head, "items", items, indent, !indent); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("indent %v, %d items (nil %v):\ngot  %s\nwant %s", indent, len(items), items == nil, got.Bytes(), want.Bytes())
			}
		}
	}
	if err := Write(&bytes.Buffer{}, doc{}, "missing", []item{}, true, false); err == nil {
		t.Error("a key the document lacks: no error")
	}
}
