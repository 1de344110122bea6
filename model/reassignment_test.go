package model

import (
	"encoding/json"
	"testing"
)

// TestReassignmentJSON: the plan file kafka-reassign-partitions reads, on
// one printable line whatever the topic names hold, and read back
// exactly.
func TestReassignmentJSON(t *testing.T) {
	names := []string{"orders", `a"b\c`, "x\x1b]2;y\x07", "bidi\u202eend", "nb\u00a0sp", "<&>", "emoji😀"}
	r := Reassignment{Version: 1}
	for i, n := range names {
		r.Partitions = append(r.Partitions, ReassignmentPartition{Topic: n, Partition: int32(i), Replicas: []int32{1, 2}})
	}
	js := r.JSON()
	if !Printable(js) {
		t.Errorf("not printable: %q", js)
	}
	var back Reassignment
	if err := json.Unmarshal([]byte(js), &back); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	for i, p := range back.Partitions {
		if p.Topic != names[i] {
			t.Errorf("topic %q read back as %q", names[i], p.Topic)
		}
	}
	want := `{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2]},{"topic":"a\"b\\c","partition":1,"replicas":[1,2]},` +
		`{"topic":"x\u001b]2;y\u0007","partition":2,"replicas":[1,2]},{"topic":"bidi\u202eend","partition":3,"replicas":[1,2]},` +
		`{"topic":"nb\u00a0sp","partition":4,"replicas":[1,2]},{"topic":"<&>","partition":5,"replicas":[1,2]},{"topic":"emoji😀","partition":6,"replicas":[1,2]}]}`
	if js != want {
		t.Errorf("got  %s\nwant %s", js, want)
	}
}
