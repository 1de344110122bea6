package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/model"
)

// TestPlanJSONAsEncodingJSON: a plan written a topic at a time is the
// bytes encoding/json writes for it whole, compact with HTML escaped
// (the plan file) and indented without (the -o json report), for plans
// with no topics, an empty list, and many, with names and findings that
// hold what JSON escapes.
func TestPlanJSONAsEncodingJSON(t *testing.T) {
	img := baseImage()
	for i := range 30 {
		name := fmt.Sprintf("t<%d>&\"x\"\u2028", i)
		ps := map[int32]*model.Partition{}
		for p := range int32(i % 4) {
			r := []int32{p % 3, (p + 1) % 3}
			ps[p] = &model.Partition{ID: p, Replicas: r, ISR: r, Leader: r[0], AddingReplicas: []int32{}, RemovingReplicas: []int32{}}
		}
		img.Topics[name] = &model.Topic{Name: name, ID: derivedUUID("j", name), Partitions: ps}
	}
	p, err := NewPlan(img, Options{Source: "src <&> \"topics\": null", MetadataVersion: "4.4", Controllers: []controllers.Spec{{ID: 3000, Host: "h", Port: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Topics) != 31 || len(p.Findings) == 0 {
		t.Fatalf("%d topics, %d findings", len(p.Topics), len(p.Findings))
	}
	empty, none := *p, *p
	empty.Topics, none.Topics = []PlanTopic{}, nil
	for _, pl := range []*Plan{p, &empty, &none} {
		compact, err := json.Marshal(pl)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := pl.writeJSON(&got, false, true); err != nil {
			t.Fatal(err)
		}
		if want := append(compact, '\n'); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("compact, %d topics: differs from json.Marshal:\n%s\n%s", len(pl.Topics), got.Bytes(), want)
		}
		var want bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetEscapeHTML(false)
		e.SetIndent("", "  ")
		if err := e.Encode(pl); err != nil {
			t.Fatal(err)
		}
		got.Reset()
		if err := pl.WriteJSONIndented(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("indented, %d topics: differs from an indenting Encoder:\n%s\n%s", len(pl.Topics), got.Bytes(), want.Bytes())
		}
	}
}
